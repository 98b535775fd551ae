//! What one connection holds: its sessions, our requests in flight, the dialogs waiting for the
//! user, and the event stream to the front end. Data only; the handlers and the client act on it.

use std::any::Any;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use agent_client_protocol::v1::schema::ToolKind;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::errors::RespondError;
use super::options::ClientOptions;
use crate::broker::ScopeCheck;
use crate::events::*;
use crate::permission_rules::PermissionRules;
use crate::terminal::Terminals;

pub(crate) struct SessionState {
    pub(crate) roots: Vec<PathBuf>,
    /// The models the agent offers for this session (`None`: it supports no `session/set_model`).
    pub(crate) models: Option<crate::models::SessionModels>,
    /// What `tool_call` updates said about each tool call, for permission requests that name
    /// the tool call by its id alone (Mistral Vibe's do).
    pub(crate) tool_calls: HashMap<String, KnownToolCall>,
    /// A v2 prompt in flight: its end is the `idle` state that follows it (`updates_v2`).
    pub(crate) v2_turn: Option<V2Turn>,
    /// The session's cost as v2's `usage_update`s last set it: one that leaves `cost` out
    /// keeps it (`transcript::v2::keep_cost`).
    pub(crate) v2_cost: Option<agent_client_protocol::v2::schema::Cost>,
}

/// What a v2 turn has seen so far. An `idle` ends it once the agent was seen busy since the
/// prompt went out (a repeated or stale `idle` before that is not its end), or, for an agent
/// that never reports running, once the prompt was acknowledged and the `idle` gives a
/// `stopReason`.
#[derive(Default)]
pub(crate) struct V2Turn {
    pub(crate) busy_seen: bool,
    pub(crate) acknowledged: bool,
}

/// Which ACP version the connection speaks, once `initialize` settled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wire {
    V1,
    V2,
}

/// A tool call's kind and title, as its `tool_call` update (and later updates) gave them.
pub(crate) struct KnownToolCall {
    pub(crate) kind: ToolKind,
    pub(crate) title: String,
    /// v2 streams a call's content in `tool_call_content_chunk`s: what came so far, sent whole
    /// with each chunk (the model's tool call content is a whole list, as v1's updates give it).
    pub(crate) streamed: Vec<agent_client_protocol::v1::schema::ToolCallContent>,
}

impl SessionState {
    /// `roots`: the session's folders, its cwd first.
    pub(crate) fn new(roots: Vec<PathBuf>) -> Self {
        Self {
            roots,
            models: None,
            tool_calls: HashMap::new(),
            v2_turn: None,
            v2_cost: None,
        }
    }
}

/// An outstanding URL elicitation id: pending the user, or accepted and not yet completed.
pub(crate) struct UrlOutstanding {
    pub(crate) dialog_id: DialogId,
}

/// A dialog waiting for the user, of any kind: what the one table ([`Dialogs`]) holds. Each
/// kind implements it in its handler module; taking a dialog out of the table under the state
/// lock is what makes every answer exactly-once (`dialogs` does that, for every kind).
pub(crate) trait Waiting: Any + Send {
    /// The session it belongs to (`None`: outside any session).
    fn session_id(&self) -> Option<&str>;
    /// Counts against the per-session bound of waiting dialogs in `refuse_new_dialog`
    /// (elicitations have their own bound).
    fn bounded(&self) -> bool {
        true
    }
    /// Resolved by `session/cancel` (the spec says so for permission requests).
    fn ends_with_turn(&self) -> bool {
        false
    }
    /// Under the state lock, before it leaves the table: is `answer` one this dialog takes?
    /// Returns the answer to send (normalized: a form's content as validated). An error leaves
    /// the dialog waiting, so the user can fix the answer.
    fn check(
        &self,
        dialog_id: DialogId,
        answer: DialogAnswer,
        state: &State,
    ) -> Result<DialogAnswer, RespondError>;
    /// Under the state lock, just after it left the table: the kind's own bookkeeping (bounds,
    /// URL ids, remembered rules). `answer` is `None` when it went away without a decision.
    fn left(&self, _state: &mut State, _answer: Option<&DialogAnswer>) {}
    /// With the lock released: answer the agent (`None`: the kind's "no decision" answer).
    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError>;
}

/// The one table of waiting dialogs, by id. Its methods are in `dialogs`.
#[derive(Default)]
pub(crate) struct Dialogs {
    pub(super) waiting: HashMap<DialogId, Entry>,
}

/// A dialog in the table, with what ends its cancellation watcher: dropped when the dialog
/// leaves the table, however it leaves (see `dialogs::open`).
pub(super) struct Entry {
    pub(super) dialog: Box<dyn Waiting>,
    pub(super) _left: tokio::sync::oneshot::Sender<()>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) sessions: HashMap<String, SessionState>,
    /// Our requests to the agent awaiting an answer: JSON id -> method.
    pub(crate) in_flight: HashMap<String, &'static str>,
    /// Every dialog waiting for the user, of every kind.
    pub(crate) dialogs: Dialogs,
    /// Waiting elicitations per pool (a session, or all request-scoped ones).
    pub(crate) pending_per_pool: HashMap<String, usize>,
    pub(crate) url_ids: HashMap<String, UrlOutstanding>,
    pub(crate) rules: PermissionRules,
    /// The agent's exit was handled: no new dialog may open (nothing would dismiss it).
    pub(crate) closed: bool,
}

pub(crate) struct Shared {
    pub(crate) opts: ClientOptions,
    pub(crate) terminals: Terminals,
    pub(crate) agent: OnceLock<AgentIdentity>,
    /// The ACP version spoken, once negotiated (the fast path serves v1 only).
    pub(crate) wire: OnceLock<Wire>,
    events: mpsc::Sender<Event>,
    notices: super::notices::Notices,
    state: Mutex<State>,
    pub(crate) exit: watch::Sender<Option<ExitInfo>>,
    /// The agent's output was read to its end (what it wrote last is framed, noted and
    /// handed on): the exit is reported after it, so nothing of it is lost.
    pub(crate) output_ended: watch::Sender<bool>,
    /// Orders the fast path's updates after the SDK's earlier events (see `hot_path`).
    pub(crate) barrier: super::barrier::Barrier,
}

/// See [`crate::events::new_dialog_id`].
pub(crate) fn next_dialog_id() -> DialogId {
    crate::events::new_dialog_id()
}

impl Shared {
    pub(crate) fn new(
        opts: &ClientOptions,
    ) -> (
        std::sync::Arc<Shared>,
        mpsc::Receiver<Event>,
        watch::Receiver<Option<ExitInfo>>,
    ) {
        let (events_tx, events_rx) = mpsc::channel(opts.event_capacity.max(1));
        let (exit_tx, exit_rx) = watch::channel(None);
        let shared = std::sync::Arc::new(Shared {
            opts: opts.clone(),
            terminals: Terminals::new(events_tx.clone()),
            agent: OnceLock::new(),
            wire: OnceLock::new(),
            events: events_tx,
            notices: Default::default(),
            state: Mutex::new(State::default()),
            exit: exit_tx,
            output_ended: watch::channel(false).0,
            barrier: super::barrier::Barrier::new(),
        });
        (shared, events_rx, exit_rx)
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn agent(&self) -> AgentIdentity {
        self.agent.get().cloned().unwrap_or(AgentIdentity {
            name: "agent".into(),
            title: None,
            version: None,
        })
    }

    pub(crate) async fn emit(&self, event: Event) {
        // Held notices first: they came earlier, and here there is time to wait for room.
        self.emit_held_notices().await;
        // A closed receiver means no front end is listening; nothing to deliver to.
        let Err(mpsc::error::TrySendError::Full(event)) = self.events.try_send(event) else {
            return;
        };
        // The stream is full: wait until a batch of slots is free, not one. The front end then
        // takes that many events without waking this task (a thread switch each) for every
        // one it takes, which was a third of the CLI's time in a flood. The rest of the batch
        // goes back to the stream when `room` is dropped.
        if let Ok(mut room) = self.events.reserve_many(refill_batch(&self.events)).await
            && let Some(slot) = room.next()
        {
            slot.send(event);
        }
    }

    /// Deliver without waiting, from code that cannot wait for the front end. Only for events
    /// whose number is bounded by other means (a dismissal: by the table of waiting dialogs);
    /// a full stream costs a task each. The transport's notices, which an agent can make as
    /// many of as it likes, go through [`Shared::notice`].
    pub(crate) fn emit_now(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(event)) = self.events.try_send(event) {
            let events = self.events.clone();
            tokio::spawn(async move {
                let _ = events.send(event).await;
            });
        }
    }

    /// A transport notice (a non-JSON line, a line over the cap): never waits, never queues
    /// without bound (see `notices`).
    pub(crate) fn notice(&self, event: Event) {
        self.notices.notice(&self.events, event);
    }

    /// Deliver held notices when the stream has room again (called for every line read).
    pub(crate) fn flush_notices(&self) {
        self.notices.flush(&self.events);
    }

    /// Deliver every held notice, waiting for room (before any event that may wait).
    pub(crate) async fn emit_held_notices(&self) {
        for event in self.notices.take_all() {
            let _ = self.events.send(event).await;
        }
    }
}

/// How many free slots a full event stream waits for: a quarter of it (at least one).
fn refill_batch(events: &mpsc::Sender<Event>) -> usize {
    (events.max_capacity() / 4).max(1)
}

/// The broker's view of the connection when it checks an elicitation's scope.
pub(crate) struct ScopeView<'a>(pub(crate) &'a State);

impl ScopeCheck for ScopeView<'_> {
    fn session_known(&self, session_id: &str) -> bool {
        self.0.sessions.contains_key(session_id)
    }
    fn request_in_flight(&self, request_id: &Value) -> Option<&'static str> {
        self.0.in_flight.get(&request_id.to_string()).copied()
    }
}
