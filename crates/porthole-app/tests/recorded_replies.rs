//! The window's mock backend (`ui/src/lib/mock.ts`) replays what the app model answered here,
//! against the demo agent, instead of hand-built values: `ui/src/lib/generated/replies.json`,
//! one reply per command, as the command returned it. `PORTHOLE_BLESS=1 cargo test -p
//! porthole-app --test recorded_replies` records it again (the throwaway home written as
//! `/home/user`, the build dir as `/target/debug`, times from the first line on); otherwise the
//! recording must still hold every protocol method of this run, so the mock's inspector cannot
//! fall behind the exchange the app has with an agent.

use std::collections::BTreeSet;

use serde_json::{Value, json};

mod common;

const BLESS: &str = "PORTHOLE_BLESS=1 cargo test -p porthole-app --test recorded_replies";

/// The JSON-RPC methods in a protocol log's lines.
fn methods(log: &Value) -> BTreeSet<String> {
    log["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::from_str::<Value>(e["text"].as_str()?).ok())
        .filter_map(|line| line["method"].as_str().map(str::to_string))
        .collect()
}

/// Times from the first line on, so a recording reads the same whenever it was made.
fn from_first_line(mut log: Value) -> Value {
    let entries = log["entries"].as_array_mut().unwrap();
    let first = entries.first().and_then(|e| e["atMs"].as_u64()).unwrap_or(0);
    for entry in entries {
        entry["atMs"] = json!(entry["atMs"].as_u64().unwrap() - first);
    }
    log
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mocks_replies_are_the_app_models() {
    let home = tempfile::tempdir().unwrap();
    let connections = home.path().join("connections.json");
    std::fs::write(&connections, r#"{"connections": {}}"#).unwrap();
    let (backend, shell) = common::mcp::demo_app(home.path(), &connections);
    common::mcp::start(&backend, &shell).await;
    let state = serde_json::to_value(backend.app_state()).unwrap();
    let agent_id = state["snapshot"]["connections"][0]["agentId"]
        .as_str()
        .unwrap()
        .to_string();

    let log = serde_json::to_value(backend.protocol_log(&agent_id, 0).unwrap()).unwrap();
    for method in ["initialize", "session/new"] {
        assert!(methods(&log).contains(method), "no {method} in {log:#}");
    }
    let replies = json!({ "protocol_log": from_first_line(log.clone()) });

    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/generated/replies.json");
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        let build_dir = common::workspace_bin("porthole-demo-agent", "porthole-demo-agent")
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let text = serde_json::to_string_pretty(&replies)
            .unwrap()
            .replace(&home.path().display().to_string(), "/home/user")
            .replace(&build_dir, "/target/debug");
        std::fs::write(&path, text + "\n").unwrap();
        return;
    }
    let recorded: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let missing: Vec<String> = methods(&log)
        .difference(&methods(&recorded["protocol_log"]))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "{} lacks the methods {missing:?}; run `{BLESS}`",
        path.display()
    );
}
