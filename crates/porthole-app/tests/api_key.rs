//! API-key sign-in in the app model (its own process: it sets the environment). The test agent
//! presents as Gemini CLI: its `gemini-api-key` method becomes a one-field form (`api_key`);
//! the key typed is sent in `authenticate`'s `_meta["api-key"]` and the session opens.
//! There is no OS keyring here, so keeping the key fails, which is shown without failing the
//! sign-in.

use std::sync::Arc;

mod common;

use common::FakeShell;
use porthole_app::Backend;

fn start(home: &std::path::Path) -> (Backend, Arc<FakeShell>) {
    common::start_with_test_agent(
        home,
        &[
            // Presenting as Gemini CLI: its API-key method, no session before signing in.
            ("PORTHOLE_TEST_AGENT_NAME", "gemini-cli"),
            ("PORTHOLE_TEST_AGENT_AUTH", "1"),
            // No Secret Service: keeping the key fails, which must not fail the sign-in.
            (
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/porthole-test-bus",
            ),
        ],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_method_is_a_key_field_that_signs_in_through_authenticate() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) = start(home.path());

    // Start-up cannot open a session: the agent wants a key.
    let refused = shell
        .wait_for("the sign-in panel", |e| {
            e["type"] == "connection" && e["snapshot"]["connections"][0]["needsAuth"] == true
        })
        .await;
    let conn = &refused["snapshot"]["connections"][0];
    let agent_id = conn["agentId"].as_str().unwrap().to_string();
    let method = conn["authMethods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "gemini-api-key")
        .unwrap_or_else(|| panic!("{conn:#}"));
    assert_eq!(method["kind"], "api_key");
    assert_eq!(method["vars"][0]["name"], "api-key");
    assert_eq!(method["vars"][0]["secret"], true);
    assert_eq!(method["vars"][0]["optional"], true, "empty: the agent's own key");

    let values = |k: &str, v: &str| std::collections::BTreeMap::from([(k.to_string(), v.to_string())]);
    assert!(
        backend
            .save_sign_in(&agent_id, "gemini-api-key", values("API_KEY", "x"))
            .await
            .is_err()
    );
    // No key: authenticate without one (this agent has none of its own, so no session yet).
    backend
        .save_sign_in(&agent_id, "gemini-api-key", values("api-key", " "))
        .await
        .unwrap();
    assert!(
        backend
            .new_session(&agent_id, home.path().to_path_buf())
            .await
            .is_err()
    );
    assert_eq!(
        common::app_state(&backend)["snapshot"]["connections"][0]["needsAuth"],
        true
    );
    backend
        .save_sign_in(
            &agent_id,
            "gemini-api-key",
            values("api-key", "test-key-accepted"),
        )
        .await
        .unwrap();
    let state = common::app_state(&backend);
    let conn = &state["snapshot"]["connections"][0];
    assert_eq!(conn["needsAuth"], false, "{conn:#}");
    assert!(
        conn["signInProblem"]
            .as_str()
            .is_some_and(|p| p.contains("not kept")),
        "no keyring here: {conn:#}"
    );
    // Signed in: a session opens.
    let view = backend.new_session(&agent_id, home.path().to_path_buf()).await;
    assert!(view.is_ok(), "{:?}", view.err());
    backend.stop().await;
}
