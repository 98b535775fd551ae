//! The person's MCP connections reach the window's sessions: the demo agent (an MCP client
//! that takes only stdio servers) lists the tools of a remote connection through the gateway
//! and the bridge, and of a stdio connection directly. A connection that wants sign-in is said
//! in the session, with how to sign in.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

mod common;

use common::{FakeShell, workspace_bin};

struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn server(args: &[&str]) -> Server {
    let mut child = Command::new(workspace_bin("porthole-test-mcp", "porthole-test-mcp"))
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().strip_prefix("ready ").unwrap().to_string();
    Server(child, url)
}

fn said(shell: &FakeShell) -> String {
    shell
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "session_update")
        .filter_map(|e| e["update"]["content"]["text"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_gets_the_connections_through_the_gateway() {
    let home = tempfile::tempdir().unwrap();
    let open = server(&["--open"]);
    let guarded = server(&[]);
    let stdio = workspace_bin("porthole-test-mcp", "porthole-test-mcp");
    let file = home.path().join("connections.json");
    std::fs::write(
        &file,
        serde_json::json!({"connections": {
            "tracker": {"url": open.1},
            "local": {"command": stdio, "args": ["--stdio"]},
            "guarded": {"url": guarded.1},
            "off": {"url": open.1, "enabled": false},
        }})
        .to_string(),
    )
    .unwrap();
    let cli = workspace_bin("porthole-cli", "porthole-cli");
    common::set_home(home.path());
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_CONNECTIONS_FILE", &file);
        std::env::set_var("PORTHOLE_MCP_BRIDGE", format!("{} mcp bridge", cli.display()));
        std::env::set_var(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        );
    }
    let agent = workspace_bin("porthole-demo-agent", "porthole-demo-agent");
    let launch = porthole_app::Launch::from_args(
        Some(&agent.display().to_string()),
        Some(home.path().to_path_buf()),
    )
    .unwrap();
    let shell = std::sync::Arc::new(FakeShell::default());
    let backend = porthole_app::Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    backend.start();
    let snapshot = shell.wait_for_session().await;
    let session = snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();

    backend.send_prompt(&session, "/tools", &[]).unwrap();
    shell
        .wait_for("the end of the turn", |e| {
            e["type"] == "turn_ended" && e["sessionId"] == session.as_str()
        })
        .await;
    let text = said(&shell);
    assert!(
        text.contains("MCP server `tracker`: `echo`, `whoami`, `env`"),
        "{text}"
    );
    assert!(
        text.contains("MCP server `local`: `echo`, `whoami`, `env`"),
        "{text}"
    );
    assert!(
        !text.contains("`off`"),
        "a switched-off connection was handed over: {text}"
    );

    // A server that wants sign-in: the model reads why, the window says how, in this session.
    backend
        .send_prompt(&session, "/tools guarded whoami", &[])
        .unwrap();
    let problem = shell
        .wait_for("the connection's problem", |e| {
            e["type"] == "mcp_connection_problem"
        })
        .await;
    assert_eq!(problem["connection"], "guarded");
    assert_eq!(problem["needsSignIn"], true);
    assert_eq!(problem["sessions"], serde_json::json!([session]));
    shell
        .wait_for("the tool's answer", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Sign in to `guarded` again"))
        })
        .await;
    backend.stop().await;
}
