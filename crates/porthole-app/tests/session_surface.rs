//! The v1 session surface through the app model, with the scripted test agent (which
//! advertises all of it): a session over more than one folder, `session/delete`, `logout`.

use std::sync::Arc;
use std::time::Duration;

mod common;

use common::FakeShell;
use porthole_app::Backend;

fn start(home: &std::path::Path) -> (Backend, Arc<FakeShell>) {
    common::start_with_test_agent(home, &[])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_folders_delete_and_sign_out_go_through_the_app_model() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) = start(home.path());
    let snapshot = shell.wait_for_session().await;
    let conn = &snapshot["snapshot"]["connections"][0];
    let agent_id = conn["agentId"].as_str().unwrap().to_string();
    for cap in [
        "/sessionCapabilities/delete",
        "/sessionCapabilities/additionalDirectories",
        "/auth/logout",
    ] {
        assert!(
            !conn["capabilities"]
                .pointer(cap)
                .unwrap_or(&serde_json::Value::Null)
                .is_null(),
            "{cap} in {conn}"
        );
    }

    // A session over two folders: the agent may write in the second one.
    let ws = tempfile::tempdir().unwrap();
    let extra = tempfile::tempdir().unwrap();
    let extra_real = extra.path().canonicalize().unwrap();
    let view = backend
        .new_session_in(
            &agent_id,
            ws.path().to_str().unwrap(),
            &[extra.path().display().to_string(), "  ".into()],
        )
        .await
        .expect("new session");
    let view = serde_json::to_value(&view).unwrap();
    assert_eq!(view["additionalDirectories"], serde_json::json!([extra_real]));
    let session_id = view["sessionId"].as_str().unwrap().to_string();
    backend.send_prompt(&session_id, "roots", &[]).unwrap();
    let written = extra.path().join("from-agent.txt");
    for _ in 0..500 {
        if written.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        std::fs::read_to_string(&written).unwrap(),
        "written by the agent\n"
    );
    // Beside the folder is outside the session: the user is asked, as for any such file.
    let asked = shell
        .wait_for_dialog("a file-access dialog for the file beside the folder", |e| {
            e["dialogId"].is_u64() && e.to_string().contains("beside-root.txt")
        })
        .await;
    backend
        .answer_file_access(asked["dialogId"].as_u64().unwrap(), false)
        .unwrap();
    assert!(!extra_real.parent().unwrap().join("beside-root.txt").exists());

    // A folder that does not exist is refused before anything is sent.
    let missing = backend
        .new_session_in(
            &agent_id,
            ws.path().to_str().unwrap(),
            &["/no/such/folder".into()],
        )
        .await;
    assert!(missing.is_err());

    // session/delete of an open session closes it here too.
    let open = |state: &serde_json::Value| {
        state["snapshot"]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == session_id.as_str())
    };
    assert!(open(&common::app_state(&backend)));
    backend
        .delete_session(&agent_id, &session_id)
        .await
        .expect("delete");
    assert!(!open(&common::app_state(&backend)));

    // logout: the agent now needs a sign-in, which the window offers.
    assert_eq!(
        common::app_state(&backend)["snapshot"]["connections"][0]["needsAuth"],
        false
    );
    backend.logout(&agent_id).await.expect("logout");
    assert_eq!(
        common::app_state(&backend)["snapshot"]["connections"][0]["needsAuth"],
        true
    );
}
