//! The app model without a window: the scripted test agent through a fake shell that records
//! what the window would receive. Start-up opens a session, a permission request becomes a
//! waiting dialog (in the batches and in `app_state`), the answer reaches the agent, and the
//! dialog leaves the waiting list; a form is validated by core before it is answered.

use std::sync::Arc;
use std::time::Duration;

mod common;

use common::FakeShell;
use porthole_app::Backend;
use serde_json::Value;

fn start(home: &std::path::Path) -> (Backend, Arc<FakeShell>) {
    common::start_with_test_agent(home, &[])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_waits_in_the_model_until_answered_and_a_form_is_validated_by_core() {
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) = start(home.path());

    // Start-up connects the agent and opens a session in the working directory.
    let snapshot = shell.wait_for_session().await;
    let session_id = snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(snapshot["snapshot"]["connections"][0]["state"], "connected");

    // A permission request: delivered to the window, waiting in the model, counted in the title.
    backend.send_prompt(&session_id, "permission", &[]).unwrap();
    let asked = shell
        .wait_for_dialog("a permission dialog", |d| d["type"] == "permission")
        .await;
    assert_eq!(asked["toolCall"]["title"], "Delete everything");
    let dialog_id = asked["dialogId"].as_u64().unwrap();
    let pending = common::app_state(&backend)["dialogs"].clone();
    assert_eq!(pending.as_array().unwrap().len(), 1, "{pending:#}");
    assert_eq!(pending[0]["dialogId"], dialog_id);
    for _ in 0..100 {
        if *shell.waiting.lock().unwrap() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        *shell.waiting.lock().unwrap(),
        1,
        "the title counts the waiting dialog"
    );

    backend.answer_permission(dialog_id, Some("yes".into())).unwrap();
    assert!(
        common::app_state(&backend)["dialogs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The agent reports what it got back: the chosen option.
    shell
        .wait_for("the agent's report of the answer", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("\"yes\""))
        })
        .await;
    shell
        .wait_for("the end of the turn", |e| {
            e["type"] == "turn_ended" && e["sessionId"] == session_id.as_str()
        })
        .await;
    // Answering twice is refused: the dialog is gone.
    assert!(backend.answer_permission(dialog_id, Some("yes".into())).is_err());

    // A form: core validates; an invalid answer is refused with the field errors and the
    // dialog keeps waiting.
    backend.send_prompt(&session_id, "form", &[]).unwrap();
    let form = shell
        .wait_for_dialog("a form elicitation", |d| d["type"] == "elicitation")
        .await;
    let form_id = form["dialogId"].as_u64().unwrap();
    // The window says it shows the form: its latency figure is taken once, from its arrival.
    backend.dialog_shown(form_id);
    backend.dialog_shown(form_id);
    let stats = serde_json::to_value(backend.perf_stats()).unwrap();
    let shown: Vec<u64> = stats["dialogs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["dialogId"].as_u64())
        .collect();
    assert_eq!(shown, [form_id], "one latency sample for the form");
    let invalid = serde_json::Map::from_iter([("no_such_field".to_string(), Value::from(1))]);
    let refused = backend.answer_elicitation(form_id, "accept", Some(invalid));
    assert!(refused.is_err(), "an invalid form answer is refused");
    assert_eq!(
        common::app_state(&backend)["dialogs"].as_array().unwrap().len(),
        1
    );
    backend.answer_elicitation(form_id, "decline", None).unwrap();
    assert!(
        common::app_state(&backend)["dialogs"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The window hears of it too (the list, empty again), before the turn ends.
    for _ in 0..250 {
        let turns = shell
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "turn_ended")
            .count();
        if turns == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let events = shell.events.lock().unwrap().clone();
    let last_list = events.iter().rev().find(|e| e["type"] == "dialogs").unwrap();
    assert_eq!(last_list["dialogs"], serde_json::json!([]), "{events:#?}");

    tour(&backend, &shell, &session_id).await;

    // `stop` returns only once the window heard the agent exit, so the run recorded after it
    // holds that exit whatever the timing (connection_life.rs checks its delivery further).
    let before_stop = shell.events.lock().unwrap().len();
    backend.stop().await;
    let run = shell.events.lock().unwrap().clone();
    assert!(
        run[before_stop..].iter().any(|e| e["type"] == "agent_exited"),
        "stop returns once the window heard the agent exit"
    );
    common::golden_stream("app-model", home.path(), &run);
}

/// More kinds of event for the golden stream, each from a real turn of the test agent: lines
/// on stdout that are not JSON and an update kind the schema does not know (`noise`), the
/// terminals it runs (`terminal`), a question withdrawn before it is answered (`withdraw`), a
/// permission answered by an "always" rule (`permission-always`), requests refused without
/// asking (`hostile-requests`), a line over the cap (`endless-line`), URL consents the agent
/// completes (`url-lifecycle`, the accepted one opened in the isolated window) and a flood of
/// lines on stdout that are not JSON (`noise-flood`).
async fn tour(backend: &Backend, shell: &FakeShell, session_id: &str) {
    let turns = |n: usize| {
        move |events: &[Value]| {
            let ended = events.iter().filter(|e| e["type"] == "turn_ended").count();
            (ended >= n).then_some(Value::Null)
        }
    };
    backend.send_prompt(session_id, "noise", &[]).unwrap();
    shell.wait("the end of the noise turn", turns(3)).await;
    backend.send_prompt(session_id, "terminal", &[]).unwrap();
    shell.wait("the end of the terminal turn", turns(4)).await;
    backend.send_prompt(session_id, "withdraw", &[]).unwrap();
    shell.wait("the end of the withdraw turn", turns(5)).await;

    backend.send_prompt(session_id, "permission-always", &[]).unwrap();
    let first = shell
        .wait_for_dialog("the first edit's permission", |d| {
            d["toolCall"]["title"] == "Edit a"
        })
        .await;
    backend
        .answer_permission(first["dialogId"].as_u64().unwrap(), Some("always".into()))
        .unwrap();
    let third = shell
        .wait_for_dialog("the command's permission", |d| d["toolCall"]["title"] == "Run c")
        .await;
    backend
        .answer_permission(third["dialogId"].as_u64().unwrap(), Some("once".into()))
        .unwrap();
    shell
        .wait("the end of the permission-always turn", turns(6))
        .await;

    // Requests core refuses without asking, and a line over the cap (17 MiB, the cap is 16).
    backend.send_prompt(session_id, "hostile-requests", &[]).unwrap();
    shell.wait("the end of the hostile-requests turn", turns(7)).await;
    backend.send_prompt(session_id, "endless-line 17", &[]).unwrap();
    shell.wait("the end of the endless-line turn", turns(8)).await;

    // URL consents: the first accepted, then completed by the agent; the others declined.
    backend.send_prompt(session_id, "url-lifecycle", &[]).unwrap();
    let mut answered = std::collections::HashSet::new();
    for action in ["accept", "decline", "decline"] {
        let asked = shell
            .wait_for_dialog("a URL consent", |d| {
                d["mode"] == "url" && !answered.contains(&d["dialogId"].as_u64().unwrap())
            })
            .await;
        let id = asked["dialogId"].as_u64().unwrap();
        backend.answer_elicitation(id, action, None).unwrap();
        if action == "accept" {
            // The person opens it in the isolated window (a stand-in here: no display).
            backend.open_url(id, "sealed").unwrap();
            shell
                .wait_for("the isolated window's opening", |e| {
                    e["type"] == "url_view" && e["dialogId"] == id && e["state"] == "opened"
                })
                .await;
        }
        answered.insert(id);
    }
    shell.wait("the end of the url-lifecycle turn", turns(9)).await;

    // A chatty agent: every line on stdout that is not JSON reaches the window, one by one or
    // in a count of lines not shown (when the stream is full), and none is lost.
    const NOISE_LINES: u64 = 100_000;
    backend
        .send_prompt(session_id, &format!("noise-flood {NOISE_LINES}"), &[])
        .unwrap();
    shell.wait("the end of the noise-flood turn", turns(10)).await;
    let events = shell.events.lock().unwrap().clone();
    let start = events.iter().rposition(|e| e["type"] == "user_prompt").unwrap();
    let (mut shown, mut counted) = (0, 0);
    for e in &events[start..] {
        match e["type"].as_str() {
            Some("stdout_noise") => shown += 1,
            Some("stdout_not_shown") => counted += e["lines"].as_u64().unwrap(),
            _ => {}
        }
    }
    assert_eq!(shown + counted, NOISE_LINES, "{shown} shown, {counted} counted");
    for kind in [
        "stdout_noise",
        "malformed_update",
        "terminal_created",
        "terminal_output",
        "terminal_exited",
        "terminal_released",
        "dialog_dismissed",
        "permission_auto",
        "elicitation_rejected",
        "line_too_long",
        "elicitation_complete",
        "url_view",
    ] {
        shell.wait_for(kind, |e| e["type"] == kind).await;
    }
    // An update of a kind Porthole does not know reaches the window by its name, as it came.
    shell
        .wait_for("the unknown kind", |e| {
            e["type"] == "session_update"
                && e["update"]["kind"] == "unknown"
                && e["update"]["sessionUpdate"] == "_future_kind"
                && e["update"]["update"]["x"] == 1
        })
        .await;
}
