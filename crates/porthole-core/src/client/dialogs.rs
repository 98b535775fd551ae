//! The dialogs waiting for the user, one table per kind, written once for every kind: insert,
//! look up, count per session, and dismiss (one session's, or all of them when the agent exits).
//!
//! A kind of dialog is a type that implements [`Waiting`]: where its table is, which session it
//! belongs to, and how the agent is answered when it goes away without a decision. Taking a
//! dialog out of its table under the state lock is what makes every answer exactly-once.
//! The tables themselves ([`Dialogs`]) are data in the connection's state; their methods are
//! here, with the trait they need.

pub(crate) use super::state::Dialogs;
use super::state::{Shared, State};
use crate::events::{DialogId, DismissReason, Event};

/// A kind of dialog that waits for the user.
pub(crate) trait Waiting: Sized {
    /// This kind's table in the connection's state.
    fn table(state: &mut State) -> &mut Dialogs<Self>;
    /// The session it belongs to (`None`: outside any session).
    fn session_id(&self) -> Option<&str>;
    /// Take it out of the state. Kinds with more bookkeeping (bounds, ids) extend this.
    fn take(state: &mut State, dialog_id: DialogId) -> Option<Self> {
        Self::table(state).remove(dialog_id)
    }
    /// Answer the agent for a dialog that went away without a decision; the event that tells
    /// the front end.
    fn dismissed(self, dialog_id: DialogId, reason: DismissReason) -> Event;
}

impl<T: Waiting> Dialogs<T> {
    pub(crate) fn insert(&mut self, dialog_id: DialogId, dialog: T) {
        self.waiting.insert(dialog_id, dialog);
    }

    pub(crate) fn get(&self, dialog_id: DialogId) -> Option<&T> {
        self.waiting.get(&dialog_id)
    }

    pub(crate) fn get_mut(&mut self, dialog_id: DialogId) -> Option<&mut T> {
        self.waiting.get_mut(&dialog_id)
    }

    pub(crate) fn remove(&mut self, dialog_id: DialogId) -> Option<T> {
        self.waiting.remove(&dialog_id)
    }

    /// The ids of the dialogs of `session` (every dialog with `None`).
    pub(crate) fn ids(&self, session: Option<&str>) -> Vec<DialogId> {
        self.waiting
            .iter()
            .filter(|(_, d)| session.is_none() || d.session_id() == session)
            .map(|(id, _)| *id)
            .collect()
    }

    pub(crate) fn count_in_session(&self, session_id: &str) -> usize {
        self.waiting
            .values()
            .filter(|d| d.session_id() == Some(session_id))
            .count()
    }
}

/// Dismiss one dialog: the agent gets the kind's "no decision" answer, the front end an event.
/// Nothing happens when it was already answered.
pub(crate) fn dismiss<T: Waiting>(shared: &Shared, dialog_id: DialogId, reason: DismissReason) {
    let Some(dialog) = T::take(&mut shared.lock(), dialog_id) else {
        return;
    };
    shared.emit_now(dialog.dismissed(dialog_id, reason));
}

/// Dismiss every dialog of one kind in `session` (every dialog of that kind with `None`).
pub(crate) fn dismiss_kind<T: Waiting>(shared: &Shared, session: Option<&str>, reason: DismissReason) {
    let ids = T::table(&mut shared.lock()).ids(session);
    for id in ids {
        dismiss::<T>(shared, id, reason);
    }
}
