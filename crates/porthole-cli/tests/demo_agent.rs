//! The demo agent driven through porthole-cli: each command, each answer, in ACP v1 (the
//! agent limited to v1 by `PORTHOLE_DEMO_AGENT_PROTOCOLS`, so the CLI's default offer of v2
//! falls back): these are v1's client-side files, terminals and request scopes. Its v2 is
//! tested in its own crate (`protocol_v2.rs`) and through the CLI in `tests/v2.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
mod support;

use std::process::{Command, Output, Stdio};
use support::workspace_bin;

use serde_json::{Value, json};

fn demo_agent() -> String {
    workspace_bin("porthole-demo-agent").display().to_string()
}

fn run(dir: &std::path::Path, args: &[&str]) -> (Output, Vec<Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .env("PORTHOLE_DEMO_AGENT_PROTOCOLS", "1")
        .args(["--agent", &demo_agent(), "--cwd", dir.to_str().unwrap(), "--json"])
        .args(args)
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, lines)
}

/// Run one prompt with `--elicit accept` and an answers file holding `answers` (JSON).
fn accept_with(dir: &std::path::Path, answers: &str, prompt: &str) -> (Output, Vec<Value>) {
    let file = dir.join("answers.json");
    std::fs::write(&file, answers).unwrap();
    run(
        dir,
        &["--elicit", "accept", "--answers", file.to_str().unwrap(), prompt],
    )
}

/// All agent message text of the run, concatenated.
fn text(lines: &[Value]) -> String {
    lines
        .iter()
        .filter(|l| l["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["update"]["content"]["text"].as_str())
        .collect()
}

fn updates<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["update"]["sessionUpdate"] == kind)
        .map(|l| &l["update"])
        .collect()
}

fn elicitations(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "elicitation").collect()
}

#[test]
fn free_text_streams_markdown_a_thought_a_plan_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["hello there"]);
    assert!(out.status.success());
    assert!(
        updates(&lines, "agent_message_chunk").len() >= 5,
        "several chunks"
    );
    assert_eq!(updates(&lines, "agent_thought_chunk").len(), 1);
    let plan = updates(&lines, "plan");
    assert_eq!(plan[0]["entries"].as_array().unwrap().len(), 3);
    let commands = updates(&lines, "available_commands_update");
    let names: Vec<&str> = commands[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for c in ["configure", "connect", "ask", "edit", "slow"] {
        assert!(names.contains(&c), "{c} in {names:?}");
    }
    assert!(text(&lines).contains("hello there"));
    assert_eq!(lines.last().unwrap()["stopReason"], "end_turn");
}

#[test]
fn configure_uses_every_field_type_and_reports_what_it_received() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = accept_with(
        dir.path(),
        r#"{"email":"ada@example.com","license":"mit","port":8080}"#,
        "/configure",
    );
    assert!(out.status.success());
    let e = elicitations(&lines);
    assert_eq!(e.len(), 1);
    assert!(e[0]["toolCallId"].is_string(), "tied to a tool call");
    let kinds: Vec<&str> = e[0]["schema"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"]["type"].as_str().unwrap())
        .collect();
    for k in [
        "text",
        "number",
        "integer",
        "boolean",
        "singleSelect",
        "multiSelect",
    ] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    let fields = e[0]["schema"]["fields"].as_array().unwrap();
    let titled_single = fields
        .iter()
        .any(|f| f["kind"]["type"] == "singleSelect" && f["kind"]["titled"] == true);
    let untitled_single = fields
        .iter()
        .any(|f| f["kind"]["type"] == "singleSelect" && f["kind"]["titled"] == false);
    let titled_multi = fields
        .iter()
        .any(|f| f["kind"]["type"] == "multiSelect" && f["kind"]["titled"] == true);
    let untitled_multi = fields
        .iter()
        .any(|f| f["kind"]["type"] == "multiSelect" && f["kind"]["titled"] == false);
    assert!(titled_single && untitled_single && titled_multi && untitled_multi);
    assert!(fields.iter().any(|f| f["kind"]["pattern"].is_string()));
    assert!(fields.iter().any(|f| f["kind"]["format"] == "email"));
    assert_eq!(e[0]["action"], "accept");
    assert_eq!(e[0]["content"]["port"], 8080);
    let said = text(&lines);
    assert!(
        said.contains("ada@example.com") && said.contains("8080"),
        "{said}"
    );
    assert!(said.contains("all values conform"), "{said}");
}

#[test]
fn configure_decline_and_cancel_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["--elicit", "decline", "/configure", "hello"]);
    assert!(out.status.success(), "the agent continues after a decline");
    assert!(text(&lines).contains("You declined the configuration form."));
    assert_eq!(lines.iter().filter(|l| l["type"] == "turn_end").count(), 2);
    let (_, lines) = run(dir.path(), &["--elicit", "cancel", "/configure"]);
    assert!(text(&lines).contains("You cancelled the configuration form."));
}

#[test]
fn configure_without_form_support_falls_back_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["--modes", "url", "/configure"]);
    assert!(out.status.success());
    assert!(
        elicitations(&lines).is_empty(),
        "never sends an unadvertised mode"
    );
    assert!(text(&lines).contains("does not support form elicitation"));
}

#[test]
fn connect_without_url_support_does_not_fall_back_to_a_form() {
    let dir = tempfile::tempdir().unwrap();
    let (_, lines) = run(dir.path(), &["--modes", "form", "/connect"]);
    assert!(elicitations(&lines).is_empty());
    assert!(text(&lines).to_lowercase().contains("url"));
}

#[test]
fn ask_uses_request_scope_and_the_secret_form_is_flagged_and_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = accept_with(dir.path(), r#"{"workspaceName":"acme","api_token":"x"}"#, "/ask");
    assert!(out.status.success());
    let e = elicitations(&lines);
    assert_eq!(e.len(), 2);
    assert!(
        e[0]["sessionId"].is_null() && !e[0]["requestId"].is_null(),
        "request scoped: {}",
        e[0]
    );
    assert_eq!(e[0]["action"], "accept");
    assert_eq!(e[1]["warnings"][0], "secret-request");
    assert_eq!(
        e[1]["action"], "cancel",
        "secret forms are never accepted automatically"
    );
}

#[test]
fn edit_asks_permission_and_the_cli_rejects_it() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["/edit"]);
    assert!(out.status.success());
    let tool = updates(&lines, "tool_call");
    assert_eq!(tool[0]["kind"], "edit");
    assert_eq!(tool[0]["content"][0]["type"], "diff");
    let p: Vec<&Value> = lines.iter().filter(|l| l["type"] == "permission").collect();
    assert_eq!(p.len(), 1);
    let reject = p[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "reject_once")
        .unwrap();
    assert_eq!(p[0]["selected"], reject["optionId"]);
    assert!(
        !dir.path().join("notes.txt").exists(),
        "nothing written after a rejection"
    );
}

#[test]
fn test_runs_in_a_terminal_embedded_in_its_tool_call_once_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["--permission", "allow-once", "/test"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let updates = updates(&lines, "tool_call_update");
    let embedded = updates
        .iter()
        .find_map(|u| u["content"][0]["terminalId"].as_str())
        .expect("the terminal is embedded in the tool call");
    let output: String = lines
        .iter()
        .filter(|l| l["type"] == "terminal_output" && l["terminalId"] == embedded)
        .filter_map(|l| l["data"].as_str())
        .collect();
    assert!(
        output.contains("test lexer ... ok") && output.contains("3 passed"),
        "{output}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "terminal_exited" && l["exitCode"] == 0)
    );
    assert!(lines.iter().any(|l| l["type"] == "terminal_released"));
    assert_eq!(updates.last().unwrap()["status"], "completed");
    assert!(text(&lines).contains("All 3 tests passed"));

    // Rejected: nothing runs.
    let (_, lines) = run(dir.path(), &["/test"]);
    assert!(!lines.iter().any(|l| l["type"] == "terminal_created"));
    assert!(text(&lines).contains("Not running the tests"));
}

#[test]
fn slow_streams_many_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["/slow"]);
    assert!(out.status.success());
    assert!(updates(&lines, "agent_message_chunk").len() >= 30);
}

/// A minimal browser: GET keeps the cookie, POST sends it back.
fn http(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// POST the sign-in form, as the browser that holds `cookie` (or one without it).
fn post(port: u16, cookie: Option<&str>, body: &str) -> String {
    let cookie = cookie.map(|c| format!("Cookie: {c}\r\n")).unwrap_or_default();
    http(
        port,
        &format!(
            "POST /authorize HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{cookie}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

#[test]
fn connect_completes_after_the_browser_authorizes() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .env("PORTHOLE_DEMO_AGENT_PROTOCOLS", "1")
        .args([
            "--agent",
            &demo_agent(),
            "--cwd",
            dir.path().to_str().unwrap(),
            "--json",
            "--elicit",
            "accept",
            "/connect",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["type"] == "elicitation" {
            assert_eq!(v["mode"], "url");
            assert_eq!(v["action"], "accept");
            assert_eq!(v["warnings"], json!([]), "loopback http is not flagged");
            let url = url::Url::parse(v["url"].as_str().unwrap()).unwrap();
            let port = url.port().unwrap();
            let path = format!("{}?{}", url.path(), url.query().unwrap());
            let page = http(
                port,
                &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
            );
            assert!(page.contains("Authorize Porthole Demo"), "{page}");
            let cookie = page
                .lines()
                .find_map(|l| l.strip_prefix("Set-Cookie: "))
                .and_then(|c| c.split(';').next())
                .unwrap()
                .to_string();
            let state = url
                .query_pairs()
                .find(|(k, _)| k == "state")
                .unwrap()
                .1
                .to_string();
            // Another browser (no cookie) cannot complete it.
            let body = format!("state={state}&decision=authorize");
            let foreign = post(port, None, &body);
            assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
            let done = post(port, Some(&cookie), &body);
            assert!(done.starts_with("HTTP/1.1 200"), "{done}");
        }
        lines.push(v);
    }
    assert!(child.wait().unwrap().success());
    let complete: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "elicitation_complete")
        .collect();
    assert_eq!(complete.len(), 1);
    assert_eq!(complete[0]["known"], true);
    let said = text(&lines);
    assert!(said.contains("Connected to the Porthole Demo service."), "{said}");
    assert!(
        !said.contains("porthole_demo_session"),
        "nothing out of band crosses ACP"
    );
}

#[test]
fn connect_declined_ends_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["--elicit", "decline", "/connect"]);
    assert!(out.status.success());
    assert_eq!(elicitations(&lines)[0]["action"], "decline");
    assert!(text(&lines).to_lowercase().contains("declin"));
}

#[test]
fn cancel_after_updates_ends_a_slow_turn_as_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let (out, lines) = run(dir.path(), &["--cancel-after-updates", "3", "/slow"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let end = lines.iter().find(|l| l["type"] == "turn_end").expect("turn_end");
    assert_eq!(end["stopReason"], "cancelled");
    // The slow answer has 40 steps and a closing "Done."; a cancelled turn stops early.
    assert!(!text(&lines).contains("Done."), "{}", text(&lines));
    assert!(updates(&lines, "agent_message_chunk").len() < 20);
}
