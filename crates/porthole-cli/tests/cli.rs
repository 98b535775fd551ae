//! porthole-cli as agent authors use it: real processes, real pipes, JSON lines out.

mod support;

use std::process::{Command, Output};
use support::workspace_bin;

use serde_json::{Value, json};

fn test_agent() -> String {
    workspace_bin("porthole-test-agent").display().to_string()
}

fn cli(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap()])
        .args(args)
        .output()
        .unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn of_type<'a>(lines: &'a [Value], t: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == t).collect()
}

/// The agent's JSON report for the last scenario turn.
fn report(lines: &[Value]) -> Value {
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let text = l["update"]["content"]["text"].as_str()?;
            serde_json::from_str(text).ok()
        })
        .unwrap_or(Value::Null)
}

#[test]
fn usage_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = cli(&["--agent", "x", "--modes", "sms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown elicitation mode"));
    let bad = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(bad.path(), "[1,2]").unwrap();
    let out = cli(&[
        "--agent",
        &test_agent(),
        "--answers",
        bad.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a JSON object"));
    let out = cli(&["--agent", "'unterminated"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn accept_overlays_answers_on_defaults_and_prints_what_was_sent() {
    let answers = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(answers.path(), r#"{"name":"beta","port":443}"#).unwrap();
    let out = cli(&[
        "--agent",
        &test_agent(),
        "--json",
        "--elicit",
        "accept",
        "--answers",
        answers.path().to_str().unwrap(),
        "form",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let e = of_type(&l, "elicitation");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["mode"], "form");
    assert_eq!(e[0]["action"], "accept");
    assert_eq!(e[0]["sessionId"], "test-session-1");
    assert_eq!(e[0]["toolCallId"], "tc-1");
    assert_eq!(e[0]["error"], Value::Null);
    assert_eq!(e[0]["warnings"], json!([]));
    let expected = json!({"name":"beta","port":443,"fast":true});
    assert_eq!(e[0]["content"], expected);
    assert_eq!(report(&l)["results"][0]["result"]["content"], expected);
    let turns = of_type(&l, "turn_end");
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0]["stopReason"], "end_turn");
}

#[test]
fn invalid_answers_are_never_sent() {
    let answers = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(answers.path(), r#"{"port":"eighty"}"#).unwrap();
    let out = cli(&[
        "--agent",
        &test_agent(),
        "--json",
        "--elicit",
        "accept",
        "--answers",
        answers.path().to_str().unwrap(),
        "form",
    ]);
    let l = lines(&out);
    assert_eq!(of_type(&l, "elicitation")[0]["action"], "cancel");
    assert_eq!(report(&l)["results"][0]["result"], json!({"action":"cancel"}));
}

#[test]
fn decline_and_cancel_policies() {
    for policy in ["decline", "cancel"] {
        let out = cli(&["--agent", &test_agent(), "--json", "--elicit", policy, "form"]);
        let l = lines(&out);
        assert_eq!(of_type(&l, "elicitation")[0]["action"], policy);
        assert_eq!(report(&l)["results"][0]["result"], json!({"action": policy}));
    }
    // decline is the default
    let out = cli(&["--agent", &test_agent(), "--json", "form"]);
    assert_eq!(of_type(&lines(&out), "elicitation")[0]["action"], "decline");
}

#[test]
fn secret_forms_are_cancelled_even_under_accept() {
    let out = cli(&["--agent", &test_agent(), "--json", "--elicit", "accept", "secret"]);
    let l = lines(&out);
    let e = of_type(&l, "elicitation");
    assert_eq!(e[0]["action"], "cancel");
    assert_eq!(e[0]["warnings"][0], "secret-request");
}

#[test]
fn url_accept_is_consent_only() {
    let out = cli(&[
        "--agent",
        &test_agent(),
        "--json",
        "--elicit",
        "accept",
        "url-lifecycle",
    ]);
    assert!(out.status.success());
    let l = lines(&out);
    let e = of_type(&l, "elicitation");
    assert_eq!(e[0]["mode"], "url");
    assert_eq!(e[0]["url"], "https://accounts.example.com/a?state=1");
    assert_eq!(e[0]["elicitationId"], "dup");
    assert_eq!(e[0]["action"], "accept");
    assert_eq!(e[1]["action"], Value::Null);
    assert_eq!(e[1]["error"]["code"], -32602);
    let c = of_type(&l, "elicitation_complete");
    assert_eq!(c.len(), 3);
    assert_eq!(c[0]["known"], true);
    assert_eq!(c[1]["known"], false);
}

#[test]
fn modes_flag_controls_what_is_advertised() {
    let out = cli(&["--agent", &test_agent(), "--json", "--modes", "none", "modes"]);
    let l = lines(&out);
    let e = of_type(&l, "elicitation");
    assert_eq!(e.len(), 2);
    assert!(
        e.iter()
            .all(|x| x["error"]["code"] == -32602 && x["action"].is_null())
    );
}

#[test]
fn several_prompts_run_in_order_and_exit_0() {
    let out = cli(&["--agent", &test_agent(), "--json", "form", "permission", "fs"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    assert_eq!(of_type(&l, "turn_end").len(), 3);
    let p = of_type(&l, "permission");
    assert_eq!(p[0]["selected"], "no", "permissions are rejected");
    assert_eq!(
        of_type(&l, "initialized")[0]["agent"]["name"],
        "porthole-test-agent"
    );
    assert_eq!(of_type(&l, "initialized")[0]["protocolVersion"], 1);
}

#[test]
fn agent_crash_exits_non_zero_with_stderr() {
    let out = cli(&["--agent", &test_agent(), "--json", "crash"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exit status 3") && err.contains("crashed on purpose"),
        "{err}"
    );
}

#[test]
fn agent_that_cannot_start_exits_non_zero() {
    let out = cli(&["--agent", "/nonexistent/agent", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed to start"));
}

#[test]
fn human_output_streams_text() {
    let out = cli(&["--agent", &test_agent(), "noise"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("still alive"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not JSON"));
    // An update of a kind Porthole does not know is shown by its name; a malformed one is
    // refused, and said so.
    assert!(
        stderr.contains("[update] an update Porthole does not know: _future_kind"),
        "{stderr}"
    );
    assert!(stderr.contains("[malformed update]"), "{stderr}");
}

/// `--json` gives an update of a kind Porthole does not know exactly as the agent sent it; a
/// malformed one is a `malformed_update` line.
#[test]
fn json_output_keeps_an_unknown_update_as_it_came() {
    let out = cli(&["--agent", &test_agent(), "--json", "noise"]);
    assert!(out.status.success());
    let l = lines(&out);
    let updates = of_type(&l, "session_update");
    assert!(
        updates
            .iter()
            .any(|u| u["update"] == json!({"sessionUpdate": "_future_kind", "x": 1})),
        "{updates:?}"
    );
    assert_eq!(of_type(&l, "malformed_update").len(), 1);
}

#[test]
fn human_output_reports_context_usage_and_cost() {
    let out = cli(&["--agent", &test_agent(), "updates"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[usage] 1200 of 200000 tokens of context (1%) · 0.25 USD"),
        "{stderr}"
    );
}

#[test]
fn agent_death_mid_permission_exits_non_zero_with_stderr() {
    let out = cli(&["--agent", &test_agent(), "--json", "crash-permission"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exit status 4") && err.contains("died mid-permission"),
        "{err}"
    );
}

#[test]
fn agent_killed_mid_turn_exits_non_zero_with_stderr() {
    let out = cli(&["--agent", &test_agent(), "--json", "kill-turn"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("killed by signal 9") && err.contains("killed mid-turn"),
        "{err}"
    );
    // What was streamed before the kill was printed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("working on it"));
}

/// A line over core's 16 MiB cap (the test agent's `huge`: a 17 MiB request) is reported once
/// with its size: on stderr in human mode, as an event with `--json` (issue 32: nothing was);
/// and the run, which did not see all the agent said, exits 1 saying why (it exited 0).
#[test]
fn a_line_over_the_cap_is_reported_with_its_size() {
    let out = cli(&["--agent", &test_agent(), "huge"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = "porthole-cli: 1 message from the agent exceeded the limit of 16777216 bytes per line and was discarded (reported above)";
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().last(), Some(last), "{stderr}");
    let reports: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("[agent message too long] a line of 1782"))
        .collect();
    assert_eq!(reports.len(), 1, "{stderr}");
    assert!(
        reports[0].ends_with("bytes from the agent was discarded (limit 16777216 bytes)"),
        "{stderr}"
    );

    let out = cli(&["--agent", &test_agent(), "--json", "huge"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(last));
    let lines = lines(&out);
    let too_long = of_type(&lines, "line_too_long");
    assert_eq!(too_long.len(), 1, "{lines:?}");
    assert!(
        too_long[0]["bytes"].as_u64().unwrap() > 17 << 20,
        "{}",
        too_long[0]
    );
    assert_eq!(too_long[0]["limit"], 16 << 20);
}

/// A `warn!` reaches the log file (issue 32: no subscriber was installed, every warning was
/// lost), and stderr only with `--verbose`. The `noise` scenario's non-JSON line is one.
#[test]
fn warnings_go_to_the_log_file_and_with_verbose_to_stderr() {
    let logs = tempfile::tempdir().unwrap();
    let run = |verbose: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_porthole-cli"));
        command
            .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &test_agent()])
            .env("PORTHOLE_LOG_DIR", logs.path());
        if verbose {
            command.arg("--verbose");
        }
        command.arg("noise").output().unwrap()
    };
    let warning = "ignoring non-JSON line from agent stdout: Starting agent... banner text";
    let quiet = run(false);
    assert!(quiet.status.success());
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains(warning));
    let files: Vec<_> = std::fs::read_dir(logs.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("porthole-cli.") && name.ends_with(".log"),
        "{name}"
    );
    let log = std::fs::read_to_string(&files[0]).unwrap();
    assert!(log.contains("WARN") && log.contains(warning), "{log}");

    let verbose = run(true);
    let stderr = String::from_utf8_lossy(&verbose.stderr);
    assert!(stderr.contains(warning), "{stderr}");
    let log = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(log.matches(warning).count(), 2, "{log}");
}

#[test]
fn agent_that_never_initializes_times_out_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &test_agent()])
        .args(["--init-timeout", "1", "hello"])
        .env("PORTHOLE_TEST_AGENT_MUTE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did not answer `initialize` within 1s"), "{err}");
}

/// The test agent's `HOSTILE_TEXT` (crates/porthole-test-agent/src/scenarios/faults.rs).
const HOSTILE: &str = "m\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{1b}[31mred\u{1b}]0;title\u{1b}\\\u{9b}1m\u{8}\u{7f}x\rfake\u{202E}evil\u{200B}";
/// How the CLI shows it: every escape, control, bidi and invisible character as its code point.
const SHOWN: &str = "m⟨U+001B⟩]52;c;cHduZWQ=⟨U+0007⟩⟨U+001B⟩[2J⟨U+001B⟩[31mred⟨U+001B⟩]0;title⟨U+001B⟩\\⟨U+009B⟩1m⟨U+0008⟩⟨U+007F⟩x⟨U+000D⟩fake⟨U+202E⟩evil⟨U+200B⟩";

/// Nothing a terminal would act on: no control character but line feed, tab and the CR of a
/// CRLF; no bidi or invisible character.
fn assert_inert(what: &str, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let allowed = matches!(c, '\n' | '\t') || (c == '\r' && chars.peek() == Some(&'\n'));
        assert!(
            allowed
                || !(c.is_control()
                    || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')),
            "{what} carries U+{:04X} raw:\n{text}",
            c as u32
        );
    }
}

#[test]
fn hostile_agent_text_reaches_the_terminal_only_as_visible_escapes() {
    let out = cli(&["--agent", &test_agent(), "hostile-text"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_inert("stdout", &stdout);
    assert_inert("stderr", &stderr);
    // Each agent string, shown with its escapes visible.
    assert!(stdout.contains(&format!("message {SHOWN}\n")), "{stdout}");
    let nl = "⟨U+000A⟩[turn ended: end_turn]";
    for line in [
        format!("[thought] thought {SHOWN}"),
        format!("[tool] tool {SHOWN}{nl} (in_progress)"),
        format!("[tool output] output {SHOWN}"),
        format!("[tool update] h-1 completed update {SHOWN}{nl}"),
        format!("[plan] pending plan {SHOWN}{nl}"),
        format!("[command] /cmd command {SHOWN}{nl}"),
        format!("[agent stdout, not JSON] noise {SHOWN}"),
        format!("[permission] permission {SHOWN}{nl} options=[yes=allow {SHOWN}, no=Reject]"),
        format!("\"form {SHOWN}{nl}\""),
        "terminal ⟨U+001B⟩]52;c;cHduZWQ=⟨U+0007⟩⟨U+001B⟩[2J\r\n".to_string(),
    ] {
        assert!(stderr.contains(&line), "no `{line}` in:\n{stderr}");
    }
    // Statuses in plain words, as the protocol names them, not Rust's debug text (issue 32).
    for debug in ["Some(", "None", "Pending", "Completed", "InProgress"] {
        assert!(!stderr.contains(debug), "`{debug}` in:\n{stderr}");
    }
    // The forged "[turn ended]" lines stay inside theirs: the only line that starts with it is
    // the CLI's own.
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("[turn ended")).count(),
        1,
        "{stderr}"
    );

    // --json stays exact.
    let out = cli(&["--agent", &test_agent(), "--json", "hostile-text"]);
    let message = lines(&out)
        .iter()
        .find_map(|l| {
            l["update"]["content"]["text"]
                .as_str()
                .filter(|t| t.starts_with("message "))
                .map(String::from)
        })
        .expect("the message");
    assert_eq!(message, format!("message {HOSTILE}\n"));
    // ... and inert: C1 and bidi controls escaped as \uXXXX, not raw (issue 32).
    let stdout = String::from_utf8(out.stdout).unwrap();
    for (raw, escaped) in [
        ('\u{9B}', "\\u009B"),
        ('\u{202E}', "\\u202E"),
        ('\u{200B}', "\\u200B"),
    ] {
        assert!(!stdout.contains(raw), "U+{:04X} raw in --json output", raw as u32);
        assert!(stdout.contains(escaped), "{escaped} in --json output");
    }
}

/// Qwen Code's and Gemini CLI's questions are forms the CLI answers from `--answers` like any
/// other; an answer that is none of a question's options goes to its "Other" box, and each
/// agent gets the answers in its own shape (the test agent speaks both).
#[test]
fn agents_questions_are_answered_from_answers_with_typed_answers_in_their_other_box() {
    let run = |scenario: &str, answers: &str| {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), answers).unwrap();
        let out = cli(&[
            "--agent",
            &test_agent(),
            "--json",
            "--elicit",
            "accept",
            "--answers",
            file.path().to_str().unwrap(),
            scenario,
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        lines(&out)
    };
    let l = run(
        "qwen-question",
        r#"{"question_0":"Magenta","question_1":["Docs","a CHANGELOG"]}"#,
    );
    let e = of_type(&l, "elicitation");
    assert_eq!(e.len(), 1, "a form, not a permission: {l:?}");
    assert!(of_type(&l, "permission").is_empty());
    assert_eq!(
        e[0]["content"],
        json!({"question_0_custom":"Magenta","question_1":["Docs"],"question_1_custom":"a CHANGELOG"})
    );
    assert_eq!(
        report(&l)["results"][0]["result"],
        json!({"outcome":{"outcome":"selected","optionId":"proceed_once"},
               "answers":{"0":"Magenta","1":"Docs, a CHANGELOG"}})
    );

    // One answers file for both of Gemini's requests: ask_user, then the plan, which takes
    // "DuckDB" (none of its options) as feedback.
    let l = run(
        "gemini-host-input",
        r#"{"question_0":"DuckDB","question_1":"billing","question_2":"Yes"}"#,
    );
    assert_eq!(of_type(&l, "elicitation").len(), 2);
    let r = report(&l);
    assert_eq!(
        r["results"][0]["result"],
        json!({"outcome":"submitted","answers":{"0":"DuckDB","1":"billing","2":"Yes"}})
    );
    assert_eq!(
        r["results"][1]["result"],
        json!({"outcome":"submitted","answers":{"0":"DuckDB"}})
    );
}
