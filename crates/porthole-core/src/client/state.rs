//! What one connection holds: its sessions, our requests in flight, the dialogs waiting for the
//! user, and the event stream to the front end. Data only; the handlers and the client act on it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{PermissionOption, RequestPermissionResponse};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use super::ClientOptions;
use crate::broker::{ParsedElicitation, ScopeCheck};
use crate::events::*;
use crate::permission_rules::PermissionRules;
use crate::terminal::Terminals;

pub(crate) struct SessionState {
    pub(crate) roots: Vec<PathBuf>,
    /// The models the agent offers for this session (`None`: it supports no `session/set_model`).
    pub(crate) models: Option<crate::models::SessionModels>,
    /// Tool kinds seen in `tool_call` updates, for permission requests that omit the kind.
    pub(crate) tool_kinds: HashMap<String, String>,
}

impl SessionState {
    /// `roots`: the session's folders, its cwd first.
    pub(crate) fn new(roots: Vec<PathBuf>) -> Self {
        Self {
            roots,
            models: None,
            tool_kinds: HashMap::new(),
        }
    }
}

/// An `elicitation/create` waiting for the user.
pub(crate) struct PendingElicitation {
    pub(crate) responder: Responder<Value>,
    pub(crate) parsed: ParsedElicitation,
    /// What its bound counts against: its session, or all request-scoped elicitations.
    pub(crate) pool: String,
    pub(crate) cancel_watch: oneshot::Sender<()>,
    /// `elicitation/complete` arrived while the user had not answered yet.
    pub(crate) completed: bool,
}

/// A `session/request_permission` waiting for the user.
pub(crate) struct PendingPermission {
    pub(crate) responder: Responder<RequestPermissionResponse>,
    pub(crate) session_id: String,
    pub(crate) tool_kind: String,
    pub(crate) options: Vec<PermissionOption>,
    pub(crate) cancel_watch: oneshot::Sender<()>,
}

/// An `fs/*` request outside the workspace roots, waiting for the user.
pub(crate) struct PendingFileAccess {
    pub(crate) responder: Responder<Value>,
    pub(crate) session_id: String,
    /// The real location the user is shown (symlinks and `..` resolved); the one we touch.
    pub(crate) resolved: PathBuf,
    pub(crate) op: FileOp,
}

pub(crate) enum FileOp {
    Read { line: Option<u32>, limit: Option<u32> },
    Write { content: String },
}

/// An outstanding URL elicitation id: pending the user, or accepted and not yet completed.
pub(crate) struct UrlOutstanding {
    pub(crate) dialog_id: DialogId,
}

/// One kind's waiting dialogs by id. Its methods are in `dialogs`, with the trait they need.
pub(crate) struct Dialogs<T> {
    pub(super) waiting: HashMap<DialogId, T>,
}

impl<T> Default for Dialogs<T> {
    fn default() -> Self {
        Self {
            waiting: HashMap::new(),
        }
    }
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) sessions: HashMap<String, SessionState>,
    /// Our requests to the agent awaiting an answer: JSON id -> method.
    pub(crate) in_flight: HashMap<String, &'static str>,
    pub(crate) elicitations: Dialogs<PendingElicitation>,
    pub(crate) pending_per_pool: HashMap<String, usize>,
    pub(crate) url_ids: HashMap<String, UrlOutstanding>,
    pub(crate) permissions: Dialogs<PendingPermission>,
    pub(crate) file_access: Dialogs<PendingFileAccess>,
    pub(crate) rules: PermissionRules,
    /// The agent's exit was handled: no new dialog may open (nothing would dismiss it).
    pub(crate) closed: bool,
}

pub(crate) struct Shared {
    pub(crate) opts: ClientOptions,
    pub(crate) terminals: Terminals,
    pub(crate) agent: OnceLock<AgentIdentity>,
    events: mpsc::Sender<Event>,
    state: Mutex<State>,
    pub(crate) exit: watch::Sender<Option<ExitInfo>>,
    /// Orders the fast path's updates after the SDK's earlier events (see `hot_path`).
    pub(crate) barrier: super::barrier::Barrier,
}

/// Dialog ids are unique in the process, not per connection: a front end with several agents
/// addresses every dialog by its id alone.
pub(crate) fn next_dialog_id() -> DialogId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
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
            events: events_tx,
            state: Mutex::new(State::default()),
            exit: exit_tx,
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
        // A closed receiver means no front end is listening; nothing to deliver to.
        let _ = self.events.send(event).await;
    }

    pub(crate) fn emit_now(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(event)) = self.events.try_send(event) {
            let events = self.events.clone();
            tokio::spawn(async move {
                let _ = events.send(event).await;
            });
        }
    }
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
