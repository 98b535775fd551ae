//! A connection's life in the app model, with the scripted test agent through a fake shell:
//! start-up connects and opens a session; a restart forgets the old connection's sessions and
//! waiting dialogs (the window's list empties) and connects again; an agent that dies
//! mid-question fails with its exit status and stderr, its dialog withdrawn with the reason;
//! connecting again brings it back; stopping the app stops the agent.

use std::sync::Arc;
use std::time::Duration;

mod common;

use common::FakeShell;
use porthole_app::Backend;
use serde_json::Value;

fn start(home: &std::path::Path) -> (Backend, Arc<FakeShell>) {
    common::start_with_test_agent(home, &[])
}

/// The events delivered so far (to look only at what comes after).
fn delivered(shell: &FakeShell) -> usize {
    shell.events.lock().unwrap().len()
}

/// Waits for a snapshot delivered after `from` whose connection satisfies `matches`.
async fn connection_after(
    shell: &FakeShell,
    from: usize,
    what: &str,
    matches: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..750 {
        let found = shell.events.lock().unwrap()[from..]
            .iter()
            .rev()
            .find(|e| e["type"] == "connection" && matches(&e["snapshot"]))
            .cloned();
        if let Some(e) = found {
            return e["snapshot"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no {what} in {:#?}", &shell.events.lock().unwrap()[from..]);
}

fn state_of(snapshot: &Value) -> &str {
    snapshot["connections"][0]["state"].as_str().unwrap_or("")
}

fn session_of(snapshot: &Value) -> Option<String> {
    snapshot["sessions"][0]["sessionId"].as_str().map(str::to_string)
}

/// The last list of waiting dialogs delivered.
fn last_list(shell: &FakeShell) -> Value {
    let events = shell.events.lock().unwrap();
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "dialogs")
        .map(|e| e["dialogs"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_starts_restarts_fails_reconnects_and_stops() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) = start(home.path());

    // Start: "starting", then connected with a session in the start-up directory.
    let first = connection_after(&shell, 0, "a connected agent with a session", |s| {
        state_of(s) == "connected" && session_of(s).is_some()
    })
    .await;
    let agent_id = first["connections"][0]["agentId"].as_str().unwrap().to_string();
    let session = session_of(&first).unwrap();
    assert_eq!(first["sessions"][0]["cwd"], home.path().display().to_string());
    let events = shell.events.lock().unwrap().clone();
    let starting = events
        .iter()
        .position(|e| e["type"] == "connection" && state_of(&e["snapshot"]) == "starting");
    assert!(starting.is_some(), "no `starting` before `connected`");

    // Restart while a form waits: the old connection's dialog and session are forgotten (the
    // window's list empties), and the agent connects again with a new session.
    backend.send_prompt(&session, "form", &[]).unwrap();
    shell
        .wait_for_dialog("the form", |d| d["type"] == "elicitation")
        .await;
    let from = delivered(&shell);
    backend.restart(&agent_id).unwrap();
    let restarted = connection_after(&shell, from, "the agent connected again", |s| {
        state_of(s) == "connected" && session_of(s).is_some()
    })
    .await;
    assert_eq!(last_list(&shell), serde_json::json!([]));
    assert!(
        common::app_state(&backend)["dialogs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let session = session_of(&restarted).unwrap();
    assert!(
        backend.restart("no-such-agent").is_err(),
        "an unknown agent is refused"
    );

    // Exit: the agent dies mid-question. The connection fails with its exit status and the
    // stderr tail; the dialog is withdrawn with the reason; the session is gone.
    let from = delivered(&shell);
    let before = shell.dialog_ids();
    backend.send_prompt(&session, "crash", &[]).unwrap();
    let asked = shell
        .wait_for_dialog("the crashing agent's form", |d| {
            d["type"] == "elicitation" && !before.contains(&d["dialogId"].as_u64().unwrap_or(0))
        })
        .await;
    let failed = connection_after(&shell, from, "the failed connection", |s| state_of(s) == "failed").await;
    let error = &failed["connections"][0]["error"];
    assert!(
        error["message"].as_str().unwrap().contains("exit status 3"),
        "{error}"
    );
    assert!(
        error["stderrTail"]
            .as_str()
            .unwrap()
            .contains("crashed on purpose"),
        "{error}"
    );
    let dismissed = shell
        .wait_for("its dismissal", |e| {
            e["type"] == "dialog_dismissed" && e["dialogId"] == asked["dialogId"]
        })
        .await;
    assert_eq!(dismissed["reason"], "agent_exited");
    connection_after(&shell, from, "no session of the dead agent", |s| {
        state_of(s) == "failed" && session_of(s).is_none()
    })
    .await;
    assert_eq!(last_list(&shell), serde_json::json!([]));

    // Connecting a failed agent starts it again; a running one is left alone.
    let from = delivered(&shell);
    backend.connect_agent(&agent_id).unwrap();
    connection_after(&shell, from, "the agent back", |s| {
        state_of(s) == "connected" && session_of(s).is_some()
    })
    .await;
    let from = delivered(&shell);
    backend.connect_agent(&agent_id).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !shell.events.lock().unwrap()[from..]
            .iter()
            .any(|e| e["type"] == "connection" && state_of(&e["snapshot"]) == "starting"),
        "a running agent was restarted"
    );

    // Stop: the agent is asked to exit, and the window hears that it did.
    let from = delivered(&shell);
    backend.stop().await;
    for _ in 0..250 {
        let exited = shell.events.lock().unwrap()[from..]
            .iter()
            .find(|e| e["type"] == "agent_exited")
            .cloned();
        if let Some(exited) = exited {
            assert_eq!(exited["requested"], true, "{exited}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "no agent_exited after stop: {:#?}",
        &shell.events.lock().unwrap()[from..]
    );
}
