//! An MCP connection's questions answered by `porthole-cli --mcp` with its `--elicit` /
//! `--answers` policy: the demo agent (an MCP client that declares no elicitation, reaching
//! the connection through the bridge and the gateway) calls tools of the official MCP
//! TypeScript SDK's `elicitationFormExample.js`; the gateway takes the server's questions out
//! of its stream, the CLI answers and prints them with `"mcpConnection"`, and the tool result
//! the agent shows carries the answers.
//!
//! Needs the SDK: `./scripts/test-mcp-ts-sdk --install` (npm ci in tests/mcp-ts-sdk).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;
use support::workspace_bin;

const EXAMPLE: &str = "tests/mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationFormExample.js";

/// The example server, killed on drop.
struct Example(Child, u16);

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port outside Linux's ephemeral range (32768-60999), free now on every interface (the
/// example listens on all of them): a port from `bind(0)` may be handed to another `bind(0)`
/// before node takes it.
fn free_port(attempt: u32) -> u16 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    (0..1000u32)
        .map(|i| 30000 - 1 - ((seed / 7 + (attempt * 1000 + i) * 7919) % 10000) as u16)
        .find(|p| std::net::TcpListener::bind(("0.0.0.0", *p)).is_ok())
        .expect("a free port in 20000-29999")
}

/// The example server on a free port; a port taken before node listens is tried again.
fn start_example() -> Example {
    use std::io::BufRead;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(EXAMPLE);
    assert!(
        script.exists(),
        "{} is missing: install the SDK with `./scripts/test-mcp-ts-sdk --install`",
        script.display()
    );
    for attempt in 0..5 {
        let port = free_port(attempt);
        let mut child = Command::new("node")
            .arg(&script)
            .env("PORT", port.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // Node prints this once it listens, and exits on EADDRINUSE.
        let listening = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.contains("is running on"));
        let example = Example(child, port);
        if listening {
            // Its further logging is not read: drained so the server never blocks on a full pipe.
            std::thread::spawn(move || lines.for_each(drop));
            return example;
        }
    }
    panic!("the example server did not start in 5 attempts (its stderr is above)");
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
    let url = format!("http://127.0.0.1:{}/mcp", server.1);
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
