//! The dialogs waiting for the user: one table for every kind ([`Dialogs`]), and what is done
//! to any of them, written once: insert, look up, count per session, answer ([`respond`], for
//! `AgentClient::respond`) and dismiss (one, a session's, or all of them when the agent exits).
//!
//! A kind of dialog is a type that implements [`Waiting`] (in its handler module): which
//! session it belongs to, which answers it takes, and how the agent is answered. Its handler
//! puts it before the user with [`open`]. Taking a dialog out of the table under the state
//! lock is what makes every answer exactly-once.

use std::any::Any;
use std::sync::Arc;

use agent_client_protocol::JsonRpcResponse;
use agent_client_protocol::v1::Responder;
use tokio::sync::oneshot;

use super::errors::RespondError;
pub(crate) use super::state::{Dialogs, Waiting};
use super::state::{Entry, Shared, State};
use crate::events::{DialogAnswer, DialogId, DialogPrompt, DismissReason, Event};

impl Dialogs {
    /// The dialog `dialog_id` when it is of kind `T`.
    pub(crate) fn get<T: Waiting>(&self, dialog_id: DialogId) -> Option<&T> {
        let dialog: &dyn Any = self.waiting.get(&dialog_id)?.dialog.as_ref();
        dialog.downcast_ref()
    }

    pub(crate) fn get_mut<T: Waiting>(&mut self, dialog_id: DialogId) -> Option<&mut T> {
        let dialog: &mut dyn Any = self.waiting.get_mut(&dialog_id)?.dialog.as_mut();
        dialog.downcast_mut()
    }

    /// The ids of the dialogs of `session` (every dialog with `None`) that `keep` selects.
    fn ids(&self, session: Option<&str>, keep: impl Fn(&dyn Waiting) -> bool) -> Vec<DialogId> {
        self.waiting
            .iter()
            .filter(|(_, e)| {
                (session.is_none() || e.dialog.session_id() == session) && keep(e.dialog.as_ref())
            })
            .map(|(id, _)| *id)
            .collect()
    }

    /// The dialogs of `session` that count against its bound (see `Waiting::bounded`).
    pub(crate) fn bounded_in_session(&self, session_id: &str) -> usize {
        self.waiting
            .values()
            .filter(|e| e.dialog.bounded() && e.dialog.session_id() == Some(session_id))
            .count()
    }
}

/// Put a dialog before the user, the same way for every kind. Under the state lock, `refuse`
/// may turn it away (the agent's exit was handled, so nothing would ever dismiss it; the
/// session holds its bound of waiting dialogs): the agent gets that error and nothing is
/// shown. Otherwise the dialog (`dialog` makes it around the responder) goes in the one table,
/// a watcher dismisses it when the agent withdraws the request before the user answers, and
/// the front end gets `prompt`. The watcher ends when the dialog leaves the table.
pub(crate) async fn open<T: JsonRpcResponse, D: Waiting>(
    shared: &Arc<Shared>,
    dialog_id: DialogId,
    responder: Responder<T>,
    refuse: impl FnOnce(&State) -> Option<agent_client_protocol::Error>,
    dialog: impl FnOnce(Responder<T>) -> D,
    prompt: DialogPrompt,
) {
    let cancellation = responder.cancellation();
    let (left_tx, left_rx) = oneshot::channel::<()>();
    {
        let mut state = shared.lock();
        if let Some(error) = refuse(&state) {
            drop(state);
            let _ = responder.respond_with_error(error);
            return;
        }
        let entry = Entry {
            dialog: Box::new(dialog(responder)),
            _left: left_tx,
        };
        state.dialogs.waiting.insert(dialog_id, entry);
    }
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        tokio::select! {
            _ = cancellation.cancelled() => {
                if let Some(shared) = weak.upgrade() {
                    dismiss(&shared, dialog_id, DismissReason::AgentCancelled);
                }
            }
            // Its sender went with the table's entry: answered or dismissed already.
            _ = left_rx => {}
        }
    });
    shared.emit(Event::Dialog(prompt)).await;
}

/// Put a dialog before the user that no agent request stands behind (an MCP connection's
/// question, asked by the gateway's owner): `refuse` as in [`open`]; there is no request to
/// withdraw it, so its asker dismisses it when it stops waiting (`dismiss`).
pub(crate) async fn open_owned<D: Waiting>(
    shared: &Arc<Shared>,
    dialog_id: DialogId,
    refuse: impl FnOnce(&State) -> Option<String>,
    dialog: D,
    prompt: DialogPrompt,
) -> Result<(), String> {
    {
        let mut state = shared.lock();
        if let Some(error) = refuse(&state) {
            return Err(error);
        }
        let (left_tx, _) = oneshot::channel::<()>();
        let entry = Entry {
            dialog: Box::new(dialog),
            _left: left_tx,
        };
        state.dialogs.waiting.insert(dialog_id, entry);
    }
    shared.emit(Event::Dialog(prompt)).await;
    Ok(())
}

/// Take a dialog out of the table, with its kind's bookkeeping, under the state lock.
fn take(state: &mut State, dialog_id: DialogId, answer: Option<&DialogAnswer>) -> Option<Box<dyn Waiting>> {
    let Entry { dialog, .. } = state.dialogs.waiting.remove(&dialog_id)?;
    dialog.left(state, answer);
    Some(dialog)
}

/// Dismiss one dialog: the agent gets the kind's "no decision" answer, the front end an event.
/// Nothing happens when it was already answered.
pub(crate) fn dismiss(shared: &Shared, dialog_id: DialogId, reason: DismissReason) {
    let Some(dialog) = take(&mut shared.lock(), dialog_id, None) else {
        return;
    };
    if let Err(e) = dialog.reply(None) {
        tracing::debug!(dialog_id, "the agent did not get the dismissal: {e}");
    }
    shared.emit_now(Event::DialogDismissed { dialog_id, reason });
}

/// Dismiss every dialog in `session` (every dialog with `None`) that `keep` selects.
pub(crate) fn dismiss_where(
    shared: &Shared,
    session: Option<&str>,
    reason: DismissReason,
    keep: impl Fn(&dyn Waiting) -> bool,
) {
    let ids = shared.lock().dialogs.ids(session, keep);
    for id in ids {
        dismiss(shared, id, reason);
    }
}

/// Answer a waiting dialog exactly once, with an answer of its kind. An answer it refuses
/// (invalid form content, an unknown option, another kind) leaves it waiting.
pub(crate) fn respond(
    shared: &Shared,
    dialog_id: DialogId,
    answer: DialogAnswer,
) -> Result<(), RespondError> {
    let (dialog, answer) = {
        let mut state = shared.lock();
        let dialog = state
            .dialogs
            .waiting
            .get(&dialog_id)
            .map(|e| &e.dialog)
            .ok_or(RespondError::NoSuchDialog(dialog_id))?;
        let answer = dialog.check(dialog_id, answer, &state)?;
        let dialog =
            take(&mut state, dialog_id, Some(&answer)).ok_or(RespondError::NoSuchDialog(dialog_id))?;
        (dialog, answer)
    };
    dialog.reply(Some(answer))
}

/// The error for an answer of another kind than the dialog's.
pub(crate) fn wrong_kind(dialog_id: DialogId, answer: &DialogAnswer) -> RespondError {
    RespondError::WrongKind {
        dialog_id,
        answer: answer.kind(),
    }
}
