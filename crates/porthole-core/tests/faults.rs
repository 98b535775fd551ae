//! The agent dies while the user has dialogs open or a turn is running: every pending dialog is
//! dismissed with the reason, the turn ends with an error naming the exit and its stderr.
//! (Death mid-elicitation is `crash_mid_elicitation_ends_the_turn_and_dismisses_dialogs` in
//! `client.rs`; an agent that never answers `initialize` is
//! `an_agent_that_never_initializes_times_out` there.)

mod common;

use common::start;
use porthole_core::events::{DialogPrompt, DismissReason, Event};

#[tokio::test]
async fn death_mid_permission_dismisses_the_permission_and_file_dialogs() {
    let mut h = start().await;
    h.client.prompt_text(&h.session, "crash-permission").unwrap();
    let (mut shown, mut dismissed) = (Vec::new(), Vec::new());
    let (mut exited, mut turn_error) = (None, None);
    while exited.is_none() || turn_error.is_none() {
        match h.next().await {
            Event::Dialog(DialogPrompt::Permission(p)) => shown.push(("permission", p.dialog_id)),
            Event::Dialog(DialogPrompt::FileAccess(p)) => shown.push(("file", p.dialog_id)),
            Event::DialogDismissed { dialog_id, reason } => dismissed.push((dialog_id, reason)),
            Event::AgentExited(info) => exited = Some(info),
            Event::TurnEnded { error: Some(e), .. } => turn_error = Some(e),
            Event::TurnEnded { error: None, .. } => panic!("the turn cannot end normally"),
            _ => {}
        }
    }
    // A request read only after the exit was seen is refused, never shown: so every dialog
    // shown is dismissed, because the agent exited.
    assert!(
        !shown.is_empty(),
        "at least one dialog was shown before the crash"
    );
    for (kind, id) in &shown {
        assert!(
            dismissed.contains(&(*id, DismissReason::AgentExited)),
            "{kind} dialog {id} was not dismissed: {dismissed:?}"
        );
    }
    let info = exited.unwrap();
    assert_eq!(info.code, Some(4));
    assert!(
        info.stderr_tail.contains("died mid-permission"),
        "{}",
        info.stderr_tail
    );
    let e = turn_error.unwrap();
    assert!(
        e.message.contains("exit status 4") && e.message.contains("died mid-permission"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn sigkill_mid_turn_ends_the_turn_with_the_signal_and_stderr() {
    let mut h = start().await;
    h.client.prompt_text(&h.session, "kill-turn").unwrap();
    let (mut exited, mut turn_error, mut output) = (None, None, false);
    while exited.is_none() || turn_error.is_none() {
        match h.next().await {
            Event::SessionUpdate { .. } => output = true,
            Event::AgentExited(info) => exited = Some(info),
            Event::TurnEnded { error: Some(e), .. } => turn_error = Some(e),
            Event::TurnEnded { error: None, .. } => panic!("the turn cannot end normally"),
            _ => {}
        }
    }
    assert!(output, "the turn had started streaming");
    let info = exited.unwrap();
    assert_eq!(info.signal, Some(9), "{info:?}");
    assert!(!info.requested);
    assert!(
        info.stderr_tail.contains("killed mid-turn"),
        "{}",
        info.stderr_tail
    );
    let e = turn_error.unwrap();
    assert!(e.message.contains("killed by signal 9"), "{}", e.message);
    // Nothing can be sent to a dead agent: a new turn fails with the exit, not a hang.
    let again = h.client.prompt_text(&h.session, "form");
    if again.is_ok() {
        loop {
            if let Event::TurnEnded { error, .. } = h.next().await {
                assert!(error.is_some());
                break;
            }
        }
    }
}
