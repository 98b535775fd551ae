//! A fork the agent refuses with `auth_required` shows the sign-in panel, as a refused
//! `session/new`, `load` or `resume` does (issue 41: the app's fork skipped `session_failed`).
//! Its own process: it sets the test agent's environment.

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_refused_for_want_of_sign_in_shows_the_sign_in_panel() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) =
        common::start_with_test_agent(home.path(), &[("PORTHOLE_TEST_AGENT_FORK_AUTH", "1")]);
    let snapshot = shell.wait_for_session().await;
    assert_eq!(snapshot["snapshot"]["connections"][0]["needsAuth"], false);
    let session_id = snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();

    let refused = backend.fork_session(&session_id).await;
    assert!(refused.is_err(), "the agent refuses the fork");
    let state = common::app_state(&backend);
    let conn = &state["snapshot"]["connections"][0];
    assert_eq!(conn["needsAuth"], true, "the sign-in panel shows: {conn:#}");
    // The session it was forked from stays open, and no fork joined it.
    let sessions = state["snapshot"]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:#?}");
    assert_eq!(sessions[0]["sessionId"], session_id.as_str());
}
