//! An MCP connection's questions answered by `porthole-cli --mcp` with its `--elicit` /
//! `--answers` policy: the demo agent (an MCP client that declares no elicitation, reaching
//! the connection through the bridge and the gateway) calls tools of the official MCP
//! TypeScript SDK's `elicitationFormExample.js`; the gateway takes the server's questions out
//! of its stream, the CLI answers and prints them with `"mcpConnection"`, and the tool result
//! the agent shows carries the answers.
//!
//! Needs the SDK: `./scripts/test-mcp-ts-sdk --install` (npm ci in tests/mcp-ts-sdk).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::workspace_bin;

/// The official TypeScript SDK's form example (porthole-test-mcp's shared launcher).
fn start_example() -> porthole_test_mcp::ts_sdk::TsExample {
    porthole_test_mcp::ts_sdk::start("elicitationFormExample.js")
}

fn cli(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PORTHOLE_CONNECTIONS_FILE", home.join("connections.json"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        )
        .output()
        .unwrap()
}

/// `--json` lines and the agent's message text of a run of the demo agent (with the CLI's
/// stderr, for a failure's message).
fn run(home: &Path, extra: &[&str], prompt: &str) -> (Vec<Value>, String) {
    let agent = workspace_bin("porthole-demo-agent");
    let mut args = vec![
        "--agent",
        agent.to_str().unwrap(),
        "--cwd",
        home.to_str().unwrap(),
        "--json",
        // The gateway's warnings on stderr, for a failure's message.
        "--verbose",
        "--mcp",
        "forms",
    ];
    args.extend_from_slice(extra);
    args.push(prompt);
    let out = cli(home, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let said: String = lines
        .iter()
        .filter(|l| l["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["update"]["content"]["text"].as_str())
        .collect();
    let said = format!("{said}\n[stderr] {}", String::from_utf8_lossy(&out.stderr));
    (lines, said)
}

fn questions(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "elicitation").collect()
}

#[test]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
fn the_cli_answers_a_connections_questions_by_its_policy_and_names_the_connection() {
    let server = start_example();
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let url = server.url.clone();
    let added = cli(home, &["mcp", "add", "forms", "--url", &url]);
    assert!(added.status.success());
    let answers = home.join("answers.json");
    std::fs::write(
        &answers,
        r#"{"title": "Standup", "date": "2026-12-06", "startTime": "09:30", "duration": 30,
            "username": "ada", "email": "ada@example.com", "password": "hunter22"}"#,
    )
    .unwrap();
    let accept = ["--elicit", "accept", "--answers", answers.to_str().unwrap()];

    // Two questions, both accepted with the answers file's values.
    let (lines, said) = run(home, &accept, "/tools forms create_event {}");
    let asked = questions(&lines);
    assert_eq!(asked.len(), 2, "{said}\n{lines:?}");
    for q in &asked {
        assert_eq!(q["mcpConnection"], "forms");
        assert_eq!(q["mode"], "form");
        assert_eq!(q["action"], "accept");
        assert_eq!(q["agent"]["name"], "porthole-demo-agent");
    }
    // Both came while the demo agent's one tool call ran: each names it.
    let tool_calls: Vec<&Value> = (lines.iter())
        .filter(|l| l["type"] == "session_update" && l["update"]["sessionUpdate"] == "tool_call")
        .collect();
    assert_eq!(tool_calls.len(), 1, "{lines:?}");
    for q in &asked {
        assert_eq!(q["toolCallId"], tool_calls[0]["update"]["toolCallId"], "{q}");
    }
    assert_eq!(asked[0]["message"], "Step 1: Enter basic event information");
    assert_eq!(asked[0]["content"]["title"], "Standup");
    assert_eq!(asked[1]["content"]["duration"], 30);
    assert!(said.contains("Event created successfully!"), "{said}");
    assert!(said.contains("\"title\": \"Standup\""), "{said}");
    assert!(said.contains("\"startTime\": \"09:30\""), "{said}");

    // A form asking for a password: accept becomes cancel by the secret rule.
    let (lines, said) = run(home, &accept, "/tools forms register_user {}");
    let asked = questions(&lines);
    assert_eq!(asked.len(), 1, "{lines:?}");
    assert_eq!(asked[0]["mcpConnection"], "forms");
    assert_eq!(asked[0]["action"], "cancel");
    assert_eq!(asked[0]["warnings"][0], "secret-request");
    assert!(
        asked[0]["note"].as_str().unwrap().contains("secret"),
        "{}",
        asked[0]
    );
    assert!(said.contains("Registration was cancelled."), "{said}");

    // --elicit decline, and the first step's answer ends the tool.
    let (lines, said) = run(home, &["--elicit", "decline"], "/tools forms create_event {}");
    assert_eq!(questions(&lines)[0]["action"], "decline");
    assert!(said.contains("Event creation cancelled."), "{said}");
}
