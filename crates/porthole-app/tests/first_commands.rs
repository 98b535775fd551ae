//! The commands an agent sends right after the answer that opens a session (as the demo agent
//! and Claude Code do) reach the session's view: the connection's event loop may apply that
//! `available_commands_update` before the task that asked for the session has registered it
//! (issue 41: on a busy machine a first session listed no commands).
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
async fn the_commands_sent_with_a_new_or_forked_session_are_listed() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) =
        common::start_with_test_agent(home.path(), &[("PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN", "1")]);
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
}
