//! The dialogs waiting for the user: one table for every kind ([`Dialogs`]), and what is done
//! to any of them, written once: insert, look up, count per session, answer ([`AgentClient::respond`])
//! and dismiss (one, a session's, or all of them when the agent exits).
//!
//! A kind of dialog is a type that implements [`Waiting`] (in its handler module): which
//! session it belongs to, which answers it takes, and how the agent is answered. Taking a
//! dialog out of the table under the state lock is what makes every answer exactly-once.

use std::any::Any;

pub(crate) use super::state::{Dialogs, Waiting};
use super::state::{Shared, State};
use super::{AgentClient, RespondError};
use crate::events::{DialogAnswer, DialogId, DismissReason, Event};

impl Dialogs {
    pub(crate) fn insert(&mut self, dialog_id: DialogId, dialog: impl Waiting) {
        self.waiting.insert(dialog_id, Box::new(dialog));
    }

    /// The dialog `dialog_id` when it is of kind `T`.
    pub(crate) fn get<T: Waiting>(&self, dialog_id: DialogId) -> Option<&T> {
        let dialog: &dyn Any = self.waiting.get(&dialog_id)?.as_ref();
        dialog.downcast_ref()
    }

    pub(crate) fn get_mut<T: Waiting>(&mut self, dialog_id: DialogId) -> Option<&mut T> {
        let dialog: &mut dyn Any = self.waiting.get_mut(&dialog_id)?.as_mut();
        dialog.downcast_mut()
    }

    /// The ids of the dialogs of `session` (every dialog with `None`) that `keep` selects.
    fn ids(&self, session: Option<&str>, keep: impl Fn(&dyn Waiting) -> bool) -> Vec<DialogId> {
        self.waiting
            .iter()
            .filter(|(_, d)| (session.is_none() || d.session_id() == session) && keep(d.as_ref()))
            .map(|(id, _)| *id)
            .collect()
    }

    /// The dialogs of `session` that count against its bound (see `Waiting::bounded`).
    pub(crate) fn bounded_in_session(&self, session_id: &str) -> usize {
        self.waiting
            .values()
            .filter(|d| d.bounded() && d.session_id() == Some(session_id))
            .count()
    }
}

/// Take a dialog out of the table, with its kind's bookkeeping, under the state lock.
fn take(state: &mut State, dialog_id: DialogId, answer: Option<&DialogAnswer>) -> Option<Box<dyn Waiting>> {
    let dialog = state.dialogs.waiting.remove(&dialog_id)?;
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

impl AgentClient {
    /// Answer a waiting dialog exactly once, with an answer of its kind. An answer it refuses
    /// (invalid form content, an unknown option, another kind) leaves it waiting.
    pub fn respond(&self, dialog_id: DialogId, answer: DialogAnswer) -> Result<(), RespondError> {
        let (dialog, answer) = {
            let mut state = self.shared.lock();
            let dialog = state
                .dialogs
                .waiting
                .get(&dialog_id)
                .ok_or(RespondError::NoSuchDialog(dialog_id))?;
            let answer = dialog.check(dialog_id, answer, &state)?;
            let dialog =
                take(&mut state, dialog_id, Some(&answer)).ok_or(RespondError::NoSuchDialog(dialog_id))?;
            (dialog, answer)
        };
        dialog.reply(Some(answer))
    }
}

/// The error for an answer of another kind than the dialog's.
pub(crate) fn wrong_kind(dialog_id: DialogId, answer: &DialogAnswer) -> RespondError {
    RespondError::WrongKind {
        dialog_id,
        answer: answer.kind(),
    }
}
