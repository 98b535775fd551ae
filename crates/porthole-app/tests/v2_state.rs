//! ACP v2 in the app model: the connection view says which version the connection speaks, and
//! the session view keeps v2's running state (what the prompt box and the sidebar say).

mod common;

#[tokio::test]
async fn a_v2_connection_shows_its_version_and_its_sessions_running_state() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) = common::start_with_test_agent(home.path(), &[("PORTHOLE_TEST_AGENT_V2", "1")]);
    let state = shell.wait_for_session().await;
    let connection = &state["snapshot"]["connections"][0];
    assert_eq!(connection["protocolVersion"], 2, "{connection}");
    let session_id = state["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        state["snapshot"]["sessions"][0]["runState"].is_null(),
        "no state said yet"
    );

    backend.send_prompt(&session_id, "v2-upserts", &[]).expect("sent");
    shell
        .wait_for("the idle state in the session view", |s| {
            s["snapshot"]["sessions"][0]["runState"]["state"] == "idle"
                && s["snapshot"]["sessions"][0]["runState"]["stopReason"] == "end_turn"
                && s["snapshot"]["sessions"][0]["runState"]["busy"] == false
        })
        .await;
}
