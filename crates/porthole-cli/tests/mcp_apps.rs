//! `porthole-cli --mcp NAME --json` prints an `mcp_app` line for each UI tool call of the
//! connection (MCP Apps), matched to the agent's ACP tool call; `--mcp-apps off` takes none
//! and the gateway declares nothing. The demo agent (through the bridge and the gateway) lists
//! the tools with `/tools`, then calls one with `/tools NAME TOOL {json}`.
//!
//! Against porthole-test-mcp's UI tools (fast), and against the official
//! `@modelcontextprotocol/server-basic-vanillajs` (ignored: `./scripts/test-mcp-apps --install`).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use support::workspace_bin;

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

/// The `--json` lines of a run of the demo agent with the connection `name`.
fn run(home: &Path, name: &str, extra: &[&str], prompts: &[&str]) -> Vec<Value> {
    let agent = workspace_bin("porthole-demo-agent");
    let mut args = vec![
        "--agent",
        agent.to_str().unwrap(),
        "--cwd",
        home.to_str().unwrap(),
        "--json",
        "--mcp",
        name,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(prompts);
    let out = cli(home, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn apps(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["type"] == "mcp_app").collect()
}

/// The ids of the agent's `tool_call`s, in order.
fn tool_calls(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["update"]["sessionUpdate"] == "tool_call")
        .map(|l| l["update"]["toolCallId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_ui_tool_call_gets_an_mcp_app_line_naming_the_agents_tool_call() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(porthole_test_mcp::start(porthole_test_mcp::Options {
        open: true,
        apps: true,
        ..Default::default()
    }));
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    assert!(
        cli(home, &["mcp", "add", "charts", "--url", &server.mcp_url()])
            .status
            .success()
    );

    let lines = run(
        home,
        "charts",
        &[],
        &[
            "/tools",
            r#"/tools charts show_chart {"data": [1, 2]}"#,
            "/tools charts echo {\"text\": \"hi\"}",
            "/tools charts fail_ui {}",
        ],
    );
    let calls = tool_calls(&lines);
    assert_eq!(calls.len(), 3, "{lines:?}");
    let seen = apps(&lines);
    assert_eq!(seen.len(), 2, "{lines:?}");
    let session = lines.iter().find(|l| l["type"] == "session").unwrap()["sessionId"].clone();
    assert_eq!(
        seen[0],
        &json!({"type": "mcp_app", "mcpConnection": "charts", "tool": "show_chart",
            "resourceUri": "ui://charts/chart.html", "toolCallId": calls[0], "sessionId": session, "ok": true})
    );
    assert_eq!(seen[1]["tool"], "fail_ui");
    assert_eq!(seen[1]["toolCallId"], calls[2]);
    assert_eq!(seen[1]["ok"], false);
    // Each line comes in its turn, before the turn's end.
    let at = |v: &Value| lines.iter().position(|l| l == v).unwrap();
    let turn_ends: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l["type"] == "turn_end")
        .map(|(i, _)| i)
        .collect();
    assert!(turn_ends[0] < at(seen[0]) && at(seen[0]) < turn_ends[1]);
    assert!(turn_ends[2] < at(seen[1]) && at(seen[1]) < turn_ends[3]);
    // The server was told the extension (the demo agent declares none).
    let state = server.state();
    assert!(
        state
            .initialized
            .iter()
            .all(|i| i["capabilities"]["extensions"]["io.modelcontextprotocol/ui"]
                == json!({"mimeTypes": ["text/html;profile=mcp-app"]})),
        "{:?}",
        state.initialized
    );
}

#[test]
fn with_mcp_apps_off_nothing_is_declared_or_printed() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(porthole_test_mcp::start(porthole_test_mcp::Options {
        open: true,
        apps: true,
        ..Default::default()
    }));
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    assert!(
        cli(home, &["mcp", "add", "charts", "--url", &server.mcp_url()])
            .status
            .success()
    );
    let lines = run(
        home,
        "charts",
        &["--mcp-apps", "off"],
        &["/tools", r#"/tools charts show_chart {"data": [1]}"#],
    );
    assert_eq!(tool_calls(&lines).len(), 1, "{lines:?}");
    assert!(apps(&lines).is_empty(), "{lines:?}");
    let state = server.state();
    assert!(!state.initialized.is_empty());
    assert!(
        state
            .initialized
            .iter()
            .all(|i| i["capabilities"].get("extensions").is_none()),
        "{:?}",
        state.initialized
    );
}

#[test]
#[ignore = "needs the MCP Apps examples from npm: run via scripts/test-mcp-apps or scripts/test"]
fn the_official_basic_example_gets_its_mcp_app_line() {
    let example = porthole_test_mcp::mcp_apps::start(porthole_test_mcp::mcp_apps::BASIC);
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    assert!(
        cli(home, &["mcp", "add", "apps", "--url", &example.url])
            .status
            .success()
    );
    let lines = run(home, "apps", &[], &["/tools", "/tools apps get-time {}"]);
    let calls = tool_calls(&lines);
    let seen = apps(&lines);
    assert_eq!(seen.len(), 1, "{lines:?}");
    assert_eq!(seen[0]["mcpConnection"], "apps");
    assert_eq!(seen[0]["tool"], "get-time");
    assert_eq!(seen[0]["resourceUri"], "ui://get-time/mcp-app.html");
    assert_eq!(seen[0]["toolCallId"], calls[0]);
    assert_eq!(seen[0]["ok"], true);
}
