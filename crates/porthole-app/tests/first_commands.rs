//! The commands an agent sends right after the answer that opens a session (as the demo agent
//! and Claude Code do) reach the session's view: the connection's event loop may apply that
//! `available_commands_update` before the task that asked for the session has registered it
//! (issue 41: on a busy machine a first session listed no commands). Every way of opening a
//! session (new, load, resume, fork) goes through the app model's one `open`, so each gets its
//! first commands and the person's MCP connections.
//!
//! The test's own future opens the sessions on a one-thread runtime, so the event loop, woken
//! by the update, runs before the opener resumes: the order of a busy machine, every time.

use std::time::{Duration, Instant};

mod common;

use serde_json::Value;

/// The sessions of the app model's state without their commands.
fn without_commands(backend: &porthole_app::Backend, ids: &[String]) -> Vec<String> {
    let state = common::app_state(backend);
    let sessions = state["snapshot"]["sessions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    ids.iter()
        .filter(|id| {
            !sessions.iter().any(|s| {
                s["sessionId"] == **id
                    && s["availableCommands"]
                        .as_array()
                        .is_some_and(|c| c.iter().any(|c| c["name"] == "web"))
            })
        })
        .cloned()
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_opened_by_each_kind_of_request_lists_its_first_commands_and_gets_the_connections() {
    let home = tempfile::tempdir().unwrap();
    // One connection of the person's, for every agent: each session opened gets it.
    let server = porthole_test_mcp::Spawned::start(
        &porthole_test_bins::workspace_bin("porthole-test-mcp", "porthole-test-mcp"),
        &["--open"],
    );
    let connections = home.path().join("connections.json");
    std::fs::write(
        &connections,
        serde_json::json!({"connections": {"tracker": {"url": server.url}}}).to_string(),
    )
    .unwrap();
    let (backend, shell) = common::start_with_test_agent(
        home.path(),
        &[
            ("PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN", "1"),
            ("PORTHOLE_CONNECTIONS_FILE", connections.to_str().unwrap()),
            // No keyring: the connection keeps nothing in one.
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/porthole-test-bus",
            ),
        ],
    );
    let snapshot = shell.wait_for_session().await;
    let agent_id = snapshot["snapshot"]["connections"][0]["agentId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut ids: Vec<String> = vec![
        snapshot["snapshot"]["sessions"][0]["sessionId"]
            .as_str()
            .unwrap()
            .to_string(),
    ];
    let ws = tempfile::tempdir().unwrap();
    for _ in 0..10 {
        let view = backend
            .new_session_in(&agent_id, ws.path().to_str().unwrap(), &[])
            .await
            .expect("new session");
        let view: Value = serde_json::to_value(&view).unwrap();
        ids.push(view["sessionId"].as_str().unwrap().to_string());
    }
    // The test agent's stored session, loaded (its history replays first), and sessions it
    // resumes by id.
    let loaded = backend
        .load_session(&agent_id, "old-1", ws.path().to_str().unwrap(), &[])
        .await
        .expect("load");
    ids.push(
        serde_json::to_value(&loaded).unwrap()["sessionId"]
            .as_str()
            .unwrap()
            .to_string(),
    );
    for i in 0..3 {
        let resumed = backend
            .resume_session(
                &agent_id,
                &format!("stored-{i}"),
                ws.path().to_str().unwrap(),
                &[],
            )
            .await
            .expect("resume");
        ids.push(
            serde_json::to_value(&resumed).unwrap()["sessionId"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    for _ in 0..3 {
        // The test agent forks its latest session.
        let source = ids.last().unwrap().clone();
        let view = backend.fork_session(&source).await.expect("fork");
        let view: Value = serde_json::to_value(&view).unwrap();
        ids.push(view["sessionId"].as_str().unwrap().to_string());
    }
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(
        distinct.len(),
        ids.len(),
        "each opened session has its own id: {ids:?}"
    );

    // Every update was sent before the next request's answer; give the event loop time anyway.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut missing = without_commands(&backend, &ids);
    while !missing.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        missing = without_commands(&backend, &ids);
    }
    assert!(
        missing.is_empty(),
        "sessions whose first available_commands_update was lost: {missing:?} of {ids:?}"
    );

    let list = serde_json::to_value(backend.mcp_connections().await).unwrap();
    let tracker = &list["connections"][0];
    assert_eq!(tracker["name"], "tracker", "{list:#}");
    let mut with_it: Vec<String> = serde_json::from_value(tracker["sessions"].clone()).unwrap();
    let mut all = ids.clone();
    with_it.sort();
    all.sort();
    assert_eq!(with_it, all, "every opened session has the connection");
    backend.stop().await;
}
