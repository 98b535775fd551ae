//! Every way of opening a session (new, load, resume, fork) goes through the app model's one
//! `open`: a request the agent refuses with `auth_required` shows the sign-in panel whichever
//! kind it was, leaves no session behind, and the next session that opens hides the panel
//! again (issue 41: the app's fork once skipped that step).
//! Its own process: it sets the test agent's environment.

mod common;

use serde_json::Value;

/// The sign-in panel's flag and the open sessions' ids, as the window reads them.
fn needs_auth_and_sessions(backend: &porthole_app::Backend) -> (bool, Vec<String>) {
    let state = common::app_state(backend);
    let needs_auth = state["snapshot"]["connections"][0]["needsAuth"] == true;
    let sessions = state["snapshot"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap().to_string())
        .collect();
    (needs_auth, sessions)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_kind_of_session_request_refused_for_want_of_sign_in_shows_the_sign_in_panel() {
    let home = tempfile::tempdir().unwrap();
    let signed_out = home.path().join("signed-out");
    let (backend, shell) = common::start_with_test_agent(
        home.path(),
        &[("PORTHOLE_TEST_AGENT_SIGNED_OUT", signed_out.to_str().unwrap())],
    );
    let snapshot = shell.wait_for_session().await;
    let agent_id = snapshot["snapshot"]["connections"][0]["agentId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut latest = snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let ws = tempfile::tempdir().unwrap();
    let cwd = ws.path().to_str().unwrap();

    for kind in ["new", "load", "resume", "fork"] {
        let (needs_auth, before) = needs_auth_and_sessions(&backend);
        assert!(!needs_auth, "before {kind}: no sign-in panel yet");

        std::fs::write(&signed_out, "").unwrap();
        let refused = match kind {
            "new" => backend.new_session_in(&agent_id, cwd, &[]).await,
            "load" => backend.load_session(&agent_id, "old-1", cwd, &[]).await,
            "resume" => backend.resume_session(&agent_id, "old-2", cwd, &[]).await,
            _ => backend.fork_session(&latest).await,
        };
        assert!(refused.is_err(), "the agent refuses the {kind}");
        let (needs_auth, after) = needs_auth_and_sessions(&backend);
        assert!(needs_auth, "a refused {kind} shows the sign-in panel");
        assert_eq!(after, before, "a refused {kind} leaves no session behind");

        // Signed in again: the next session opens and the panel goes.
        std::fs::remove_file(&signed_out).unwrap();
        let opened = backend
            .new_session_in(&agent_id, cwd, &[])
            .await
            .expect("a session opens once signed in");
        let opened: Value = serde_json::to_value(&opened).unwrap();
        latest = opened["sessionId"].as_str().unwrap().to_string();
        let (needs_auth, _) = needs_auth_and_sessions(&backend);
        assert!(!needs_auth, "after {kind}: a session opened, the panel goes");
    }
    backend.stop().await;
}
