//! Connections handed to an agent (`--mcp`, `--mcp-all`): the demo agent (an MCP client that
//! takes only stdio servers) reaches a remote server through Porthole's gateway and bridge,
//! and a stdio server too (served by the gateway, as the CLI answers connections' questions);
//! `mcp tools` lists tools the same way. No keyring here: these
//! servers need no sign-in (tests/keyring.rs signs in).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use porthole_test_mcp::Spawned;
use serde_json::Value;
use support::workspace_bin;

/// porthole-test-mcp on a free loopback port, killed on drop.
fn test_server(args: &[&str]) -> Spawned {
    Spawned::start(&workspace_bin("porthole-test-mcp"), args)
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

fn ok(home: &Path, args: &[&str]) -> String {
    let out = cli(home, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The agent's message text of a `--json` run.
fn said(stdout: &str) -> String {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["update"]["content"]["text"].as_str().map(str::to_string))
        .collect()
}

fn demo(home: &Path, extra: &[&str], prompt: &str) -> Output {
    let agent = workspace_bin("porthole-demo-agent");
    let mut args = vec![
        "--agent",
        agent.to_str().unwrap(),
        "--cwd",
        home.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    args.push(prompt);
    cli(home, &args)
}

#[test]
fn the_agent_reaches_a_remote_server_through_the_gateway_and_a_stdio_server_directly() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let server = test_server(&["--open"]);
    ok(home, &["mcp", "add", "tracker", "--url", &server.url]);
    let stdio = workspace_bin("porthole-test-mcp");
    ok(
        home,
        &["mcp", "add", "local", "--", stdio.to_str().unwrap(), "--stdio"],
    );

    // The tools as an agent sees them, through the gateway.
    let tools = ok(home, &["mcp", "tools", "tracker", "--json"]);
    let names: Vec<String> = tools
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["echo", "whoami", "env"]);
    assert!(ok(home, &["mcp", "tools", "local"]).contains("echo  Echoes its text back."));

    let out = demo(
        home,
        &["--mcp", "tracker"],
        r#"/tools tracker echo {"text": "through the gateway"}"#,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        said(&stdout).contains("tracker answered: echo: through the gateway"),
        "{stdout}"
    );

    // --mcp-all: both; the remote one through the bridge (the demo agent takes no http).
    let out = demo(home, &["--mcp-all"], "/tools");
    let text = said(&String::from_utf8_lossy(&out.stdout));
    assert!(
        text.contains("MCP server `tracker`: `echo`, `whoami`, `env`"),
        "{text}"
    );
    assert!(
        text.contains("MCP server `local`: `echo`, `whoami`, `env`"),
        "{text}"
    );

    // A switched-off connection is not in --mcp-all.
    ok(home, &["mcp", "disable", "local"]);
    let out = demo(home, &["--mcp-all"], "/tools");
    let text = said(&String::from_utf8_lossy(&out.stdout));
    assert!(text.contains("`tracker`") && !text.contains("`local`"), "{text}");
}

#[test]
fn an_unknown_connection_is_a_usage_error_before_any_session() {
    let home = tempfile::tempdir().unwrap();
    let out = demo(home.path(), &["--mcp", "nope"], "hello");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no connection named `nope`"));
}

#[test]
fn a_server_that_wants_sign_in_tells_the_person_how() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let server = test_server(&[]);
    ok(home, &["mcp", "add", "tracker", "--url", &server.url]);
    let out = demo(home, &["--mcp", "tracker"], "/tools tracker whoami");
    let text = said(&String::from_utf8_lossy(&out.stdout));
    assert!(text.contains("`tracker` needs sign-in"), "{text}");
    assert!(!text.contains("expired"), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("porthole-cli mcp login tracker"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
