//! The app model with the demo agent and the person's MCP connections (an open remote server,
//! a stdio one, one that wants sign-in, one switched off), for the connections tests.

use porthole_test_mcp::Spawned;

use super::{FakeShell, workspace_bin};

pub struct Started {
    pub backend: porthole_app::Backend,
    pub shell: std::sync::Arc<FakeShell>,
    /// The start-up session.
    pub session: String,
    pub file: std::path::PathBuf,
    /// The open remote server's address (`tracker`).
    pub tracker_url: String,
    _servers: (Spawned, Spawned),
}

/// Sets process-wide variables: one test per test binary may call it.
pub async fn start_with_connections(home: &std::path::Path) -> Started {
    let test_mcp = workspace_bin("porthole-test-mcp", "porthole-test-mcp");
    let open = Spawned::start(&test_mcp, &["--open"]);
    let guarded = Spawned::start(&test_mcp, &[]);
    let file = home.join("connections.json");
    std::fs::write(
        &file,
        serde_json::json!({"connections": {
            "tracker": {"url": open.url},
            "local": {"command": test_mcp, "args": ["--stdio"]},
            "guarded": {"url": guarded.url},
            "off": {"url": open.url, "enabled": false},
        }})
        .to_string(),
    )
    .unwrap();
    // No keyring here: these connections keep nothing in one.
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        );
    }
    let (backend, shell) = demo_app(home, &file);
    let session = start(&backend, &shell).await;
    Started {
        backend,
        shell,
        session,
        file,
        tracker_url: open.url.clone(),
        _servers: (open, guarded),
    }
}

/// The app model with the demo agent, everything in the throwaway `home`, the connections in
/// `file` and bridges run by porthole-cli; not started yet (a test may set its keyring first).
///
/// Sets process-wide variables: one test per test binary may call it.
/// [`demo_app`] with `connections` (the `connections` object of connections.json) written to
/// `home`, and no keyring (the servers need none; a keyring a test machine may run is not used).
pub fn demo_app_without_keyring(
    home: &std::path::Path,
    connections: serde_json::Value,
) -> (porthole_app::Backend, std::sync::Arc<FakeShell>) {
    let file = home.join("connections.json");
    std::fs::write(
        &file,
        serde_json::json!({ "connections": connections }).to_string(),
    )
    .unwrap();
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        );
    }
    demo_app(home, &file)
}

pub fn demo_app(
    home: &std::path::Path,
    file: &std::path::Path,
) -> (porthole_app::Backend, std::sync::Arc<FakeShell>) {
    let cli = workspace_bin("porthole-cli", "porthole-cli");
    super::set_home(home);
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_CONNECTIONS_FILE", file);
        std::env::set_var("PORTHOLE_MCP_BRIDGE", format!("{} mcp bridge", cli.display()));
    }
    let agent = workspace_bin("porthole-demo-agent", "porthole-demo-agent");
    let mut launch =
        porthole_app::Launch::from_args(Some(&agent.display().to_string()), Some(home.to_path_buf()))
            .unwrap();
    launch.sealed_view = Some(super::fake_sealed_view());
    let shell = std::sync::Arc::new(FakeShell::default());
    let backend = porthole_app::Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    (backend, shell)
}

/// Start the app model; returns the start-up session's id.
pub async fn start(backend: &porthole_app::Backend, shell: &FakeShell) -> String {
    backend.start();
    let snapshot = shell.wait_for_session().await;
    snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The text of every session update the window got so far (the agent's words, tool output).
pub fn said(shell: &FakeShell) -> String {
    shell
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "session_update")
        .filter_map(|e| e["update"]["content"]["text"].as_str().map(str::to_string))
        .collect()
}
