//! `--connections` in the relay: the person's MCP connections join the editor's sessions.
//! (Moved from the companion's relay tests with the connections themselves.)

use std::time::Duration;

use porthole_companion::{ProxyOptions, run_proxy};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const EDITOR_INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

/// `--connections`: the editor's `session/new` reaches the agent with the person's
/// connections beside the editor's own servers (the editor's name wins), a remote one and a
/// stdio one at the proxy's gateway on loopback.
#[tokio::test]
async fn connections_join_the_editors_session_requests() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("connections.json");
    std::fs::write(
        &file,
        r#"{"connections": {"tracker": {"url": "http://127.0.0.1:9/mcp"},
            "files": {"command": "/bin/cat"}, "mine": {"command": "/bin/true"},
            "codex-only": {"command": "/bin/true", "agents": ["codex"]}}}"#,
    )
    .unwrap();
    let seen = dir.path().join("agent-saw.json");
    let script = format!(
        r#"read init; echo '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1,"agentCapabilities":{{"mcpCapabilities":{{"http":true}}}}}}}}'
           read new; printf '%s\n' "$new" > {seen}; echo '{{"jsonrpc":"2.0","id":1,"result":{{"sessionId":"s1"}}}}'"#,
        seen = seen.display()
    );
    let mut opts = ProxyOptions::new(vec!["sh".into(), "-c".into(), script]);
    opts.socket = dir.path().join("no-app.sock");
    opts.launcher = None;
    opts.connections = Some(porthole_proxy_connections::hook(Some(file)));
    let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
    let (proxy_out, from_proxy) = tokio::io::duplex(1 << 16);
    let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
    let mut answers = BufReader::new(from_proxy).lines();
    editor
        .write_all(format!("{EDITOR_INIT}\n").as_bytes())
        .await
        .unwrap();
    answers.next_line().await.unwrap().unwrap();
    let new = r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"name":"mine","command":"/usr/bin/editors-own","args":[],"env":[]}]}}"#;
    editor.write_all(format!("{new}\n").as_bytes()).await.unwrap();
    answers.next_line().await.unwrap().unwrap();
    drop(editor);
    let _ = tokio::time::timeout(Duration::from_secs(20), proxy).await;

    let request: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    let servers = request["params"]["mcpServers"].as_array().unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["mine", "tracker", "files"], "{servers:?}");
    assert_eq!(servers[0]["command"], "/usr/bin/editors-own");
    assert_eq!(servers[1]["type"], "http");
    assert!(
        servers[1]["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    assert_ne!(
        servers[1]["url"], "http://127.0.0.1:9/mcp",
        "the remote server goes through the gateway"
    );
    // A stdio connection is started by the proxy's gateway and served to the agent over HTTP
    // (so its questions and apps reach the window): the agent gets an address, not the command.
    assert_eq!(servers[2]["type"], "http");
    assert!(
        servers[2]["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    assert!(servers[2].get("command").is_none(), "{servers:?}");
}
