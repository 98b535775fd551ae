//! One ACP connection to one agent process: initialize, sessions, turns, and every request
//! the agent makes of the user, delivered as [`Event`]s in wire order.
//!
//! Handlers never wait for a person: a request that needs a decision stores its responder in
//! [`State`] and returns, so the SDK's dispatch loop keeps reading. The front end answers later
//! through [`AgentClient::respond_elicitation`] / [`AgentClient::respond_permission`]; taking
//! the responder out of the map under the lock is what makes every answer exactly-once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthCapabilities, CancelNotification, ClientCapabilities, ContentBlock, CreateElicitationResponse,
    ElicitationAcceptAction, ElicitationAction, ElicitationCapabilities, ElicitationContentValue,
    ElicitationFormCapabilities, ElicitationUrlCapabilities, FileSystemCapabilities, Implementation,
    InitializeRequest, InitializeResponse, PermissionOption, PromptRequest, ReadTextFileRequest,
    ReadTextFileResponse, RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionId, SessionNotification, SessionUpdate, ToolKind, WriteTextFileRequest,
    WriteTextFileResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines, UntypedMessage};
use futures::StreamExt;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use crate::broker::{self, Modes, ParsedElicitation, ScopeCheck};
use crate::events::*;
use crate::form::Validation;
use crate::permission_rules::PermissionRules;
use crate::process::{self, AgentCommand, StderrTail};
use crate::terminal::Terminals;
use crate::transport::{self, Direction, NoTap, TransportNote, WireTap};

/// How the client presents itself and what it supports.
#[derive(Clone)]
pub struct ClientOptions {
    pub modes: Modes,
    /// Serve `fs/read_text_file` and `fs/write_text_file` within session roots.
    pub fs: bool,
    pub client_name: String,
    pub client_version: String,
    pub max_line_bytes: usize,
    pub init_timeout: Duration,
    /// Pending elicitations allowed per session (or per connection for request scope), and
    /// separately pending permission and file-access dialogs per session; beyond it requests
    /// are refused with an error instead of queueing without bound.
    pub max_pending_per_session: usize,
    /// Capacity of the event stream: when the front end falls behind, reading from the agent
    /// pauses (backpressure) instead of buffering without limit.
    pub event_capacity: usize,
    pub tap: Option<Arc<dyn WireTap>>,
    /// Serve `terminal/*` with real processes.
    pub terminals: bool,
    /// Advertise `auth.terminal`: the front end can run the agent's login command in a terminal.
    pub terminal_auth: bool,
    /// What to call the agent when its `initialize` answer has no `agentInfo`: the name it is
    /// configured under. `start` falls back to the command's file name.
    pub agent_name: Option<String>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            modes: Modes::ALL,
            fs: true,
            client_name: "porthole".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            max_line_bytes: transport::DEFAULT_MAX_LINE_BYTES,
            init_timeout: Duration::from_secs(30),
            max_pending_per_session: 64,
            event_capacity: 1024,
            tap: None,
            terminals: true,
            terminal_auth: false,
            agent_name: None,
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Form: submit this content (validated by core first). URL: consent to open (content ignored).
    Accept(serde_json::Map<String, Value>),
    Decline,
    Cancel,
}

#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    #[error("no pending dialog {0} (already answered, withdrawn, or unknown)")]
    NoSuchDialog(DialogId),
    #[error("the form content is invalid")]
    Invalid(Validation),
    #[error("this form cannot be accepted: {0}")]
    CannotAccept(String),
    #[error("no such option `{0}` in this permission request")]
    NoSuchOption(String),
    #[error("could not send the answer: {0}")]
    Send(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Start(String),
    #[error("the agent did not answer `initialize` within {0:?}")]
    InitTimeout(Duration),
    #[error("the agent exited: {}", describe_exit(.0))]
    Exited(ExitInfo),
    #[error("{method} failed: {} (code {})", .error.message, .error.code)]
    Rpc { method: &'static str, error: RpcError },
    #[error("unknown session `{0}`")]
    UnknownSession(String),
    #[error("the agent does not support `{0}`")]
    Unsupported(&'static str),
    #[error("the agent did not advertise the authentication method `{0}`")]
    UnknownAuthMethod(String),
}

/// "exit status 3; stderr: ..." for error messages.
pub fn describe_exit(exit: &ExitInfo) -> String {
    let tail = exit.stderr_tail.trim();
    let lines: Vec<&str> = tail.lines().collect();
    let short = lines[lines.len().saturating_sub(12)..].join("\n");
    if short.is_empty() {
        exit.status.clone()
    } else {
        format!("{}; last stderr lines:\n{short}", exit.status)
    }
}

struct PendingElicitation {
    responder: Responder<Value>,
    parsed: ParsedElicitation,
    pool: String,
    cancel_watch: oneshot::Sender<()>,
    /// `elicitation/complete` arrived while the user had not answered yet.
    completed: bool,
}

struct PendingPermission {
    responder: Responder<RequestPermissionResponse>,
    session_id: String,
    tool_kind: String,
    options: Vec<PermissionOption>,
    cancel_watch: oneshot::Sender<()>,
}

pub(crate) struct SessionState {
    pub(crate) roots: Vec<PathBuf>,
    /// Tool kinds seen in `tool_call` updates, for permission requests that omit the kind.
    pub(crate) tool_kinds: HashMap<String, String>,
}

impl SessionState {
    pub(crate) fn new(cwd: PathBuf) -> Self {
        Self {
            roots: vec![cwd],
            tool_kinds: HashMap::new(),
        }
    }
}

/// An `fs/*` request outside the workspace roots, waiting for the user.
struct PendingFileAccess {
    responder: Responder<Value>,
    session_id: String,
    /// The real location the user is shown (symlinks and `..` resolved); the one we touch.
    resolved: PathBuf,
    op: FileOp,
}

enum FileOp {
    Read { line: Option<u32>, limit: Option<u32> },
    Write { content: String },
}

/// An outstanding URL elicitation id: pending the user, or accepted and not yet completed.
struct UrlOutstanding {
    dialog_id: DialogId,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) sessions: HashMap<String, SessionState>,
    /// Our requests to the agent awaiting an answer: JSON id -> method.
    pub(crate) in_flight: HashMap<String, &'static str>,
    elicitations: HashMap<DialogId, PendingElicitation>,
    pending_per_pool: HashMap<String, usize>,
    url_ids: HashMap<String, UrlOutstanding>,
    permissions: HashMap<DialogId, PendingPermission>,
    file_access: HashMap<DialogId, PendingFileAccess>,
    rules: PermissionRules,
    closed: bool,
}

pub(crate) struct Shared {
    pub(crate) opts: ClientOptions,
    terminals: Terminals,
    agent: OnceLock<AgentIdentity>,
    events: mpsc::Sender<Event>,
    state: Mutex<State>,
    exit: watch::Sender<Option<ExitInfo>>,
    /// Orders the fast path's updates after the SDK's earlier events (see `hot_path`).
    pub(crate) barrier: crate::hot_path::Barrier,
}

/// Dialog ids are unique in the process, not per connection: a front end with several agents
/// addresses every dialog by its id alone.
fn next_dialog_id() -> DialogId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The byte streams of a connection and how to stop the peer.
struct Io {
    reader: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
    writer: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
    stderr: StderrTail,
    /// Asks the process watcher to stop the agent; `None` for stream connections.
    stop: Option<oneshot::Sender<()>>,
}

impl Shared {
    pub(crate) fn new(
        opts: &ClientOptions,
    ) -> (
        Arc<Shared>,
        mpsc::Receiver<Event>,
        watch::Receiver<Option<ExitInfo>>,
    ) {
        let (events_tx, events_rx) = mpsc::channel(opts.event_capacity.max(1));
        let (exit_tx, exit_rx) = watch::channel(None);
        let shared = Arc::new(Shared {
            opts: opts.clone(),
            terminals: Terminals::new(events_tx.clone()),
            agent: OnceLock::new(),
            events: events_tx,
            state: Mutex::new(State::default()),
            exit: exit_tx,
            barrier: crate::hot_path::Barrier::new(),
        });
        (shared, events_rx, exit_rx)
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn agent(&self) -> AgentIdentity {
        self.agent.get().cloned().unwrap_or(AgentIdentity {
            name: "agent".into(),
            title: None,
            version: None,
        })
    }

    async fn emit(&self, event: Event) {
        // A closed receiver means no front end is listening; nothing to deliver to.
        let _ = self.events.send(event).await;
    }

    fn emit_now(&self, event: Event) {
        if let Err(mpsc::error::TrySendError::Full(event)) = self.events.try_send(event) {
            let events = self.events.clone();
            tokio::spawn(async move {
                let _ = events.send(event).await;
            });
        }
    }
}

struct ScopeView<'a>(&'a State);
impl ScopeCheck for ScopeView<'_> {
    fn session_known(&self, session_id: &str) -> bool {
        self.0.sessions.contains_key(session_id)
    }
    fn request_in_flight(&self, request_id: &Value) -> Option<&'static str> {
        self.0.in_flight.get(&request_id.to_string()).copied()
    }
}

/// A live connection to an agent. Cheap to clone.
#[derive(Clone)]
pub struct AgentClient {
    pub(crate) shared: Arc<Shared>,
    pub(crate) cx: ConnectionTo<Agent>,
    init: Arc<InitializeResponse>,
    stderr: StderrTail,
    stop: Arc<Mutex<Option<oneshot::Sender<()>>>>,
    exit_rx: watch::Receiver<Option<ExitInfo>>,
}

impl AgentClient {
    /// Spawn the agent, connect and initialize. Events start flowing on the returned receiver.
    pub async fn start(
        command: AgentCommand,
        opts: ClientOptions,
    ) -> Result<(AgentClient, mpsc::Receiver<Event>), ClientError> {
        let mut opts = opts;
        if opts.agent_name.is_none() {
            opts.agent_name = Some(command.file_name());
        }
        let proc = process::spawn(&command).map_err(ClientError::Start)?;
        let (shared, events_rx, exit_rx) = Shared::new(&opts);

        // Watch the process: report its exit once, with the complete stderr tail.
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let requested = Arc::new(std::sync::atomic::AtomicBool::new(false));
        {
            let shared = shared.clone();
            let tail = proc.stderr_tail.clone();
            let mut stderr_done = proc.stderr_done.clone();
            let requested = requested.clone();
            let mut child = proc.child;
            tokio::spawn(async move {
                let pid = child.id();
                let status = tokio::select! {
                    status = child.wait() => status,
                    _ = stop_rx => {
                        requested.store(true, Ordering::SeqCst);
                        if let Some(pid) = pid { process::signal_group(pid, false); }
                        match tokio::time::timeout(Duration::from_secs(3), child.wait()).await {
                            Ok(status) => status,
                            Err(_) => {
                                if let Some(pid) = pid { process::signal_group(pid, true); }
                                child.wait().await
                            }
                        }
                    }
                };
                // Children of the agent that kept running die with its group.
                if let Some(pid) = pid {
                    process::signal_group(pid, true);
                }
                let _ = tokio::time::timeout(Duration::from_secs(1), stderr_done.wait_for(|d| *d)).await;
                let info = exit_info(status, tail.text(), requested.load(Ordering::SeqCst));
                on_agent_exit(&shared, info).await;
            });
        }
        let io = Io {
            reader: Box::new(proc.stdout),
            writer: Box::new(proc.stdin),
            stderr: proc.stderr_tail,
            stop: Some(stop_tx),
        };
        Self::connect(shared, events_rx, exit_rx, io, false).await
    }

    /// Connect over in-memory (or any) streams instead of a child process: used by fuzzing and
    /// tests. The "agent" has exited when its output stream ends.
    pub async fn connect_streams<R, W>(
        reader: R,
        writer: W,
        opts: ClientOptions,
    ) -> Result<(AgentClient, mpsc::Receiver<Event>), ClientError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let (shared, events_rx, exit_rx) = Shared::new(&opts);
        let io = Io {
            reader: Box::new(reader),
            writer: Box::new(writer),
            stderr: StderrTail::default(),
            stop: None,
        };
        Self::connect(shared, events_rx, exit_rx, io, true).await
    }

    async fn connect(
        shared: Arc<Shared>,
        events_rx: mpsc::Receiver<Event>,
        exit_rx: watch::Receiver<Option<ExitInfo>>,
        io: Io,
        exit_on_close: bool,
    ) -> Result<(AgentClient, mpsc::Receiver<Event>), ClientError> {
        let opts = shared.opts.clone();
        let tap: Arc<dyn WireTap> = Arc::new(EventTap {
            inner: opts.tap.clone().unwrap_or_else(|| Arc::new(NoTap)),
            shared: Arc::downgrade(&shared),
        });
        // The end of the agent's output ends a stream connection (a process has its watcher).
        let (eof_tx, eof_rx) = oneshot::channel::<()>();
        let framed = Box::pin(transport::incoming_lines(
            io.reader,
            opts.max_line_bytes,
            tap.clone(),
        ));
        let incoming = crate::hot_path::split(framed, shared.clone()).chain(
            futures::stream::once(async move {
                let _ = eof_tx.send(());
            })
            .filter_map(|()| async { None }),
        );
        let lines = Lines::new(transport::outgoing_lines(io.writer, tap), incoming);

        // Run the SDK connection on its own task; hand its context back here.
        let (cx_tx, cx_rx) = oneshot::channel::<ConnectionTo<Agent>>();
        let (hold_tx, hold_rx) = oneshot::channel::<()>();
        {
            let s_req = shared.clone();
            let s_note = shared.clone();
            let s_exit = shared.clone();
            tokio::spawn(async move {
                let result = Client
                    .v1()
                    .name("porthole")
                    .on_receive_request(
                        async move |req: UntypedMessage,
                                    responder: Responder<Value>,
                                    cx: ConnectionTo<Agent>| {
                            handle_request(&s_req, req, responder, cx).await;
                            Ok(())
                        },
                        agent_client_protocol::on_receive_request!(),
                    )
                    .on_receive_notification(
                        async move |note: UntypedMessage, _cx: ConnectionTo<Agent>| {
                            handle_notification(&s_note, note).await;
                            Ok(())
                        },
                        agent_client_protocol::on_receive_notification!(),
                    )
                    .connect_with(lines, async move |cx: ConnectionTo<Agent>| {
                        let _ = cx_tx.send(cx.clone());
                        // Keep the connection open until the client is dropped or shut down
                        // (or, for a stream connection, the agent's output ends).
                        if exit_on_close {
                            tokio::select! {
                                _ = hold_rx => {}
                                _ = eof_rx => {}
                            }
                        } else {
                            let _ = hold_rx.await;
                        }
                        Ok(())
                    })
                    .await;
                if let Err(e) = &result {
                    tracing::info!("ACP connection ended: {}", e.message);
                }
                if exit_on_close {
                    let status = match result {
                        Ok(()) => "the connection closed".to_string(),
                        Err(e) => format!("the connection closed: {}", e.message),
                    };
                    let info = ExitInfo {
                        code: None,
                        signal: None,
                        status,
                        stderr_tail: String::new(),
                        requested: false,
                    };
                    on_agent_exit(&s_exit, info).await;
                }
            });
        }
        let cx = cx_rx
            .await
            .map_err(|_| ClientError::Start("the ACP connection failed to start".into()))?;

        // A process connection stays open until the process watcher reports the exit; a stream
        // connection is stopped by ending its main future (the hold), which reports the close.
        let stop = match io.stop {
            Some(stop) => {
                let mut exit = exit_rx.clone();
                tokio::spawn(async move {
                    let _ = exit.wait_for(|e| e.is_some()).await;
                    drop(hold_tx);
                });
                stop
            }
            None => hold_tx,
        };
        let client = AgentClient {
            shared: shared.clone(),
            cx,
            init: Arc::new(InitializeResponse::new(ProtocolVersion::V1)),
            stderr: io.stderr,
            stop: Arc::new(Mutex::new(Some(stop))),
            exit_rx,
        };

        let init = client.initialize().await;
        match init {
            Ok(init) => {
                let client = AgentClient {
                    init: Arc::new(init),
                    ..client
                };
                Ok((client, events_rx))
            }
            Err(e) => {
                client.shutdown().await;
                Err(e)
            }
        }
    }

    fn capabilities(&self) -> ClientCapabilities {
        let modes = self.shared.opts.modes;
        let mut elicitation = ElicitationCapabilities::new();
        if modes.form {
            elicitation = elicitation.form(ElicitationFormCapabilities::new());
        }
        if modes.url {
            elicitation = elicitation.url(ElicitationUrlCapabilities::new());
        }
        let fs = self.shared.opts.fs;
        ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(fs)
                .write_text_file(fs))
            .terminal(self.shared.opts.terminals)
            .auth(AuthCapabilities::new().terminal(self.shared.opts.terminal_auth))
            .elicitation(elicitation)
    }

    async fn initialize(&self) -> Result<InitializeResponse, ClientError> {
        let request = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(self.capabilities())
            .client_info(
                Implementation::new(
                    self.shared.opts.client_name.clone(),
                    self.shared.opts.client_version.clone(),
                )
                .title("Porthole".to_string()),
            );
        let timeout = self.shared.opts.init_timeout;
        let sent = self.cx.send_request(request).block_task();
        let mut exit = self.exit_rx.clone();
        let response = tokio::select! {
            r = tokio::time::timeout(timeout, sent) => match r {
                Err(_) => return Err(ClientError::InitTimeout(timeout)),
                Ok(r) => r,
            },
            e = exit.wait_for(|e| e.is_some()) => {
                let info = e.ok().and_then(|e| e.clone());
                return Err(info.map(ClientError::Exited).unwrap_or_else(|| ClientError::Start("agent exited".into())));
            }
        };
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                // The pipe usually closes just before the exit is observed: wait for it briefly
                // so the error names the exit status and stderr instead of "transport closed".
                let mut exit = self.exit_rx.clone();
                let _ = tokio::time::timeout(Duration::from_secs(2), exit.wait_for(|e| e.is_some())).await;
                return Err(self.rpc_error("initialize", &e));
            }
        };
        let identity = match &response.agent_info {
            Some(info) => AgentIdentity {
                name: info.name.clone(),
                title: info.title.clone(),
                version: Some(info.version.clone()),
            },
            None => AgentIdentity {
                name: (self.shared.opts.agent_name.clone())
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| "unnamed agent".into()),
                title: None,
                version: None,
            },
        };
        let _ = self.shared.agent.set(identity);
        Ok(response)
    }

    /// Prefer the exit reason over a generic "connection closed" error.
    pub(crate) fn rpc_error(&self, method: &'static str, e: &agent_client_protocol::Error) -> ClientError {
        if let Some(info) = self.exit_rx.borrow().clone() {
            return ClientError::Exited(info);
        }
        ClientError::Rpc {
            method,
            error: RpcError::from(e),
        }
    }

    pub fn agent(&self) -> AgentIdentity {
        self.shared.agent()
    }

    pub fn init_response(&self) -> &InitializeResponse {
        &self.init
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// The exit, once the agent is gone.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.exit_rx.borrow().clone()
    }

    /// Start a turn. Its end arrives as [`Event::TurnEnded`] after all of its updates.
    pub fn prompt(&self, session_id: &str, blocks: Vec<ContentBlock>) -> Result<(), ClientError> {
        if !self.shared.lock().sessions.contains_key(session_id) {
            return Err(ClientError::UnknownSession(session_id.into()));
        }
        let prepared = self
            .cx
            .prepare_request(PromptRequest::new(SessionId::new(session_id.to_string()), blocks));
        let key = prepared.raw_id().to_string_json();
        self.shared.lock().in_flight.insert(key.clone(), "session/prompt");
        let client = self.clone();
        let session_id = session_id.to_string();
        tokio::spawn(async move {
            let result = prepared.block_task().await;
            client.shared.lock().in_flight.remove(&key);
            let event = match result {
                Ok(r) => Event::TurnEnded {
                    session_id,
                    stop_reason: Some(r.stop_reason),
                    error: None,
                },
                Err(e) => {
                    // Give the exit watcher a moment so the error names the real cause.
                    let mut exit = client.exit_rx.clone();
                    let _ = tokio::time::timeout(Duration::from_millis(500), exit.wait_for(|e| e.is_some()))
                        .await;
                    let error = match client.exit_info() {
                        Some(info) => RpcError {
                            code: e.code.value(),
                            message: format!("the agent exited during the turn: {}", describe_exit(&info)),
                        },
                        None => RpcError::from(&e),
                    };
                    Event::TurnEnded {
                        session_id,
                        stop_reason: None,
                        error: Some(error),
                    }
                }
            };
            client.shared.emit(event).await;
        });
        Ok(())
    }

    /// Convenience: a text prompt.
    pub fn prompt_text(&self, session_id: &str, text: &str) -> Result<(), ClientError> {
        self.prompt(session_id, vec![ContentBlock::from(text.to_string())])
    }

    /// `session/cancel`: the spec requires pending permission requests of the turn to be
    /// answered `cancelled`.
    pub fn cancel(&self, session_id: &str) -> Result<(), ClientError> {
        let pending: Vec<DialogId> = {
            let state = self.shared.lock();
            state
                .permissions
                .iter()
                .filter(|(_, p)| p.session_id == session_id)
                .map(|(id, _)| *id)
                .collect()
        };
        for id in pending {
            dismiss_permission(&self.shared, id, DismissReason::TurnCancelled);
        }
        self.cx
            .send_notification(CancelNotification::new(SessionId::new(session_id.to_string())))
            .map_err(|e| self.rpc_error("session/cancel", &e))
    }

    /// Validate form content for a pending form elicitation (the UI's one source of truth).
    pub fn validate_form(
        &self,
        dialog_id: DialogId,
        content: &serde_json::Map<String, Value>,
    ) -> Result<Validation, RespondError> {
        let state = self.shared.lock();
        let pending = state
            .elicitations
            .get(&dialog_id)
            .ok_or(RespondError::NoSuchDialog(dialog_id))?;
        match pending.parsed.form() {
            Some(schema) => Ok(schema.validate(content)),
            None => Ok(Validation {
                content: serde_json::Map::new(),
                errors: Vec::new(),
            }),
        }
    }

    /// Answer a pending elicitation exactly once. Invalid form content is refused and the
    /// dialog stays pending so the user can fix it.
    pub fn respond_elicitation(&self, dialog_id: DialogId, answer: Answer) -> Result<(), RespondError> {
        let (pending, action) = {
            let mut state = self.shared.lock();
            let pending = state
                .elicitations
                .get(&dialog_id)
                .ok_or(RespondError::NoSuchDialog(dialog_id))?;
            let action = match (&answer, pending.parsed.form()) {
                (Answer::Accept(content), Some(schema)) => {
                    if !schema.can_accept() {
                        return Err(RespondError::CannotAccept(
                            schema.blocking_reason().unwrap_or_default(),
                        ));
                    }
                    let validation = schema.validate(content);
                    if !validation.is_valid() {
                        return Err(RespondError::Invalid(validation));
                    }
                    // Validated content holds only strings, numbers, booleans and string arrays.
                    let content: std::collections::BTreeMap<String, ElicitationContentValue> = validation
                        .content
                        .into_iter()
                        .filter_map(|(k, v)| {
                            serde_json::from_value::<ElicitationContentValue>(v)
                                .ok()
                                .map(|v| (k, v))
                        })
                        .collect();
                    ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
                }
                (Answer::Accept(_), None) => ElicitationAction::Accept(ElicitationAcceptAction::new()),
                (Answer::Decline, _) => ElicitationAction::Decline,
                (Answer::Cancel, _) => ElicitationAction::Cancel,
            };
            let pending =
                take_elicitation(&mut state, dialog_id).ok_or(RespondError::NoSuchDialog(dialog_id))?;
            // An accepted URL elicitation stays outstanding until `elicitation/complete`.
            if let (Some(url_id), Answer::Accept(_), false) =
                (pending.parsed.url_id(), &answer, pending.completed)
            {
                state
                    .url_ids
                    .insert(url_id.to_string(), UrlOutstanding { dialog_id });
            }
            (pending, action)
        };
        let _ = pending.cancel_watch.send(());
        let value = serde_json::to_value(CreateElicitationResponse::new(action))
            .map_err(|e| RespondError::Send(e.to_string()))?;
        pending
            .responder
            .respond(value)
            .map_err(|e| RespondError::Send(e.message))
    }

    /// Answer a pending permission request: `Some(option_id)` selects, `None` cancels.
    pub fn respond_permission(
        &self,
        dialog_id: DialogId,
        option_id: Option<String>,
    ) -> Result<(), RespondError> {
        let pending = {
            let mut state = self.shared.lock();
            let pending = state
                .permissions
                .get(&dialog_id)
                .ok_or(RespondError::NoSuchDialog(dialog_id))?;
            let chosen = match &option_id {
                Some(id) => Some(
                    pending
                        .options
                        .iter()
                        .find(|o| o.option_id.0.as_ref() == id)
                        .cloned()
                        .ok_or_else(|| RespondError::NoSuchOption(id.clone()))?,
                ),
                None => None,
            };
            let pending = state
                .permissions
                .remove(&dialog_id)
                .ok_or(RespondError::NoSuchDialog(dialog_id))?;
            if let Some(chosen) = &chosen {
                state
                    .rules
                    .remember(&pending.session_id, &pending.tool_kind, chosen);
            }
            pending
        };
        let _ = pending.cancel_watch.send(());
        let outcome = match option_id {
            Some(id) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id)),
            None => RequestPermissionOutcome::Cancelled,
        };
        pending
            .responder
            .respond(RequestPermissionResponse::new(outcome))
            .map_err(|e| RespondError::Send(e.message))
    }

    /// Answer a file-access dialog: `allow` performs the read or write on the path shown.
    pub fn respond_file_access(&self, dialog_id: DialogId, allow: bool) -> Result<(), RespondError> {
        let pending = self
            .shared
            .lock()
            .file_access
            .remove(&dialog_id)
            .ok_or(RespondError::NoSuchDialog(dialog_id))?;
        let shown = pending.resolved.clone();
        let denied = || {
            agent_client_protocol::Error::invalid_params().data(Value::String(format!(
                "the user did not allow access to {} (outside the session's workspace)",
                shown.display()
            )))
        };
        let sent = match pending.op {
            FileOp::Read { line, limit } => {
                let result = if allow {
                    crate::fs_access::read_resolved(&shown, &pending.resolved, line, limit)
                        .map(ReadTextFileResponse::new)
                        .map_err(fs_error)
                } else {
                    Err(denied())
                };
                pending
                    .responder
                    .cast::<ReadTextFileResponse>()
                    .respond_with_result(result)
            }
            FileOp::Write { content } => {
                let result = if allow {
                    crate::fs_access::write_resolved(&shown, &pending.resolved, &content)
                        .map(|()| WriteTextFileResponse::new())
                        .map_err(fs_error)
                } else {
                    Err(denied())
                };
                pending
                    .responder
                    .cast::<WriteTextFileResponse>()
                    .respond_with_result(result)
            }
        };
        sent.map_err(|e| RespondError::Send(e.message))
    }

    /// The remembered "always" permission decisions of this connection.
    pub fn permission_rules(&self) -> Vec<crate::permission_rules::PermissionRule> {
        self.shared.lock().rules.list()
    }

    /// Forget a remembered decision; the next such request asks the user again.
    pub fn revoke_permission_rule(&self, rule_id: u64) -> bool {
        self.shared.lock().rules.revoke(rule_id)
    }

    /// The connection's terminals (the front end runs terminal-auth login commands here too).
    pub fn terminals(&self) -> &Terminals {
        &self.shared.terminals
    }

    /// Forget a session: everything pending for it is cancelled, its terminals are released.
    pub fn end_session(&self, session_id: &str) {
        let (elicitations, permissions, files) = {
            let mut state = self.shared.lock();
            state.sessions.remove(session_id);
            state.rules.forget_session(session_id);
            let files: Vec<_> = state
                .file_access
                .iter()
                .filter(|(_, p)| p.session_id == session_id)
                .map(|(id, _)| *id)
                .collect();
            let e: Vec<_> = state
                .elicitations
                .iter()
                .filter(|(_, p)| p.parsed.scope.session_id() == Some(session_id))
                .map(|(id, _)| *id)
                .collect();
            let p: Vec<_> = state
                .permissions
                .iter()
                .filter(|(_, p)| p.session_id == session_id)
                .map(|(id, _)| *id)
                .collect();
            (e, p, files)
        };
        for id in elicitations {
            dismiss_elicitation(&self.shared, id, DismissReason::SessionEnded);
        }
        for id in permissions {
            dismiss_permission(&self.shared, id, DismissReason::SessionEnded);
        }
        for id in files {
            dismiss_file_access(&self.shared, id, DismissReason::SessionEnded);
        }
        let terminals = self.shared.terminals.clone();
        let session_id = session_id.to_string();
        tokio::spawn(async move { terminals.release_all(Some(&session_id)).await });
    }

    /// Stop the agent (SIGTERM to its process group, then SIGKILL) and wait for its exit.
    pub async fn shutdown(&self) -> Option<ExitInfo> {
        if let Some(stop) = self.stop.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = stop.send(());
        }
        let mut exit = self.exit_rx.clone();
        let _ = exit.wait_for(|e| e.is_some()).await;
        self.exit_info()
    }
}

trait IdKey {
    fn to_string_json(&self) -> String;
}
impl IdKey for agent_client_protocol::RawJsonRpcId {
    fn to_string_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

fn take_elicitation(state: &mut State, dialog_id: DialogId) -> Option<PendingElicitation> {
    let pending = state.elicitations.remove(&dialog_id)?;
    if let Some(count) = state.pending_per_pool.get_mut(&pending.pool) {
        *count = count.saturating_sub(1);
    }
    if let Some(url_id) = pending.parsed.url_id() {
        state.url_ids.remove(url_id);
    }
    Some(pending)
}

/// Answer `cancel` for a pending elicitation that went away without a user decision.
fn dismiss_elicitation(shared: &Shared, dialog_id: DialogId, reason: DismissReason) {
    let Some(pending) = take_elicitation(&mut shared.lock(), dialog_id) else {
        return;
    };
    let _ = pending.cancel_watch.send(());
    if let Ok(value) = serde_json::to_value(CreateElicitationResponse::new(ElicitationAction::Cancel)) {
        let _ = pending.responder.respond(value);
    }
    shared.emit_now(Event::ElicitationDismissed { dialog_id, reason });
}

fn dismiss_permission(shared: &Shared, dialog_id: DialogId, reason: DismissReason) {
    let Some(pending) = shared.lock().permissions.remove(&dialog_id) else {
        return;
    };
    let _ = pending.cancel_watch.send(());
    let _ = pending.responder.respond(RequestPermissionResponse::new(
        RequestPermissionOutcome::Cancelled,
    ));
    shared.emit_now(Event::PermissionDismissed { dialog_id, reason });
}

async fn on_agent_exit(shared: &Arc<Shared>, info: ExitInfo) {
    let (elicitations, permissions, files) = {
        let mut state = shared.lock();
        state.closed = true;
        state.url_ids.clear();
        (
            state.elicitations.keys().copied().collect::<Vec<_>>(),
            state.permissions.keys().copied().collect::<Vec<_>>(),
            state.file_access.keys().copied().collect::<Vec<_>>(),
        )
    };
    for id in elicitations {
        dismiss_elicitation(shared, id, DismissReason::AgentExited);
    }
    for id in permissions {
        dismiss_permission(shared, id, DismissReason::AgentExited);
    }
    for id in files {
        dismiss_file_access(shared, id, DismissReason::AgentExited);
    }
    shared.terminals.release_all(None).await;
    let _ = shared.exit.send(Some(info.clone()));
    shared.emit(Event::AgentExited(info)).await;
}

fn exit_info(
    status: std::io::Result<std::process::ExitStatus>,
    stderr_tail: String,
    requested: bool,
) -> ExitInfo {
    match status {
        Ok(status) => {
            #[cfg(unix)]
            let signal = std::os::unix::process::ExitStatusExt::signal(&status);
            #[cfg(not(unix))]
            let signal = None;
            let text = match (status.code(), signal) {
                (Some(c), _) => format!("exit status {c}"),
                (None, Some(s)) => format!("killed by signal {s}"),
                _ => "exited".into(),
            };
            ExitInfo {
                code: status.code(),
                signal,
                status: text,
                stderr_tail,
                requested,
            }
        }
        Err(e) => ExitInfo {
            code: None,
            signal: None,
            status: format!("could not wait for the agent: {e}"),
            stderr_tail,
            requested,
        },
    }
}

/// Forwards wire lines to the user's tap and turns transport notes into events.
struct EventTap {
    inner: Arc<dyn WireTap>,
    shared: std::sync::Weak<Shared>,
}

impl WireTap for EventTap {
    fn line(&self, direction: Direction, line: &str) {
        self.inner.line(direction, line);
    }
    fn note(&self, note: TransportNote) {
        if let (TransportNote::Banner(line), Some(shared)) = (&note, self.shared.upgrade()) {
            shared.emit_now(Event::StdoutNoise { line: line.clone() });
        }
        self.inner.note(note);
    }
}

async fn handle_request(
    shared: &Arc<Shared>,
    req: UntypedMessage,
    responder: Responder<Value>,
    cx: ConnectionTo<Agent>,
) {
    let (method, params) = req.into_parts();
    match method.as_str() {
        "elicitation/create" => handle_elicitation(shared, params, responder).await,
        "session/request_permission" => match serde_json::from_value::<RequestPermissionRequest>(params) {
            Ok(request) => handle_permission(shared, request, responder.cast()).await,
            Err(e) => reply_error(
                responder,
                agent_client_protocol::Error::invalid_params().data(e.to_string()),
            ),
        },
        "fs/read_text_file" if shared.opts.fs => {
            let request = match serde_json::from_value::<ReadTextFileRequest>(params) {
                Ok(r) => r,
                Err(e) => return reply_error(responder, invalid_params(e)),
            };
            let session_id = request.session_id.0.to_string();
            let roots = match session_roots(shared, &session_id) {
                Ok(r) => r,
                Err(e) => return reply_error(responder, e),
            };
            match crate::fs_access::read_text(&request.path, &roots, request.line, request.limit) {
                Err(crate::fs_access::FsError::OutsideWorkspace(_)) => {
                    let op = FileOp::Read {
                        line: request.line,
                        limit: request.limit,
                    };
                    ask_file_access(shared, session_id, &request.path, op, responder).await
                }
                result => {
                    let _ = responder
                        .cast::<ReadTextFileResponse>()
                        .respond_with_result(result.map(ReadTextFileResponse::new).map_err(fs_error));
                }
            }
        }
        "fs/write_text_file" if shared.opts.fs => {
            let request = match serde_json::from_value::<WriteTextFileRequest>(params) {
                Ok(r) => r,
                Err(e) => return reply_error(responder, invalid_params(e)),
            };
            let session_id = request.session_id.0.to_string();
            let roots = match session_roots(shared, &session_id) {
                Ok(r) => r,
                Err(e) => return reply_error(responder, e),
            };
            match crate::fs_access::write_text(&request.path, &roots, &request.content) {
                Err(crate::fs_access::FsError::OutsideWorkspace(_)) => {
                    let op = FileOp::Write {
                        content: request.content,
                    };
                    ask_file_access(shared, session_id, &request.path, op, responder).await
                }
                result => {
                    let _ = responder
                        .cast::<WriteTextFileResponse>()
                        .respond_with_result(result.map(|()| WriteTextFileResponse::new()).map_err(fs_error));
                }
            }
        }
        method if shared.opts.terminals && method.starts_with("terminal/") => {
            crate::terminal_requests::handle(shared, &shared.terminals, method, params, responder).await
        }
        transport::OVERSIZED_METHOD => {
            let original = params
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("request")
                .to_string();
            let bytes = params.get("bytes").and_then(Value::as_u64).unwrap_or(0);
            let limit = params.get("limit").and_then(Value::as_u64).unwrap_or(0);
            reply_error(
                responder,
                agent_client_protocol::Error::invalid_request().data(Value::String(format!(
                    "{original}: message of {bytes} bytes exceeds this client's limit of {limit} bytes per line"
                ))),
            );
        }
        _ => {
            let _ = cx;
            reply_error(
                responder,
                agent_client_protocol::Error::method_not_found()
                    .data(Value::String(format!("porthole does not implement `{method}`"))),
            );
        }
    }
}

/// For a request that arrives after the agent's exit was handled (still in the pipe).
fn closing_error() -> agent_client_protocol::Error {
    agent_client_protocol::Error::internal_error().data(Value::String("the connection is closing".into()))
}

fn invalid_params(e: impl std::fmt::Display) -> agent_client_protocol::Error {
    agent_client_protocol::Error::invalid_params().data(Value::String(e.to_string()))
}

/// The ACP name of a tool kind (`edit`, `execute`, ...), the key of remembered decisions.
fn tool_kind_name(kind: &ToolKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".to_string())
}

/// A path outside the workspace: show the user where it really leads and wait for a decision.
async fn ask_file_access(
    shared: &Arc<Shared>,
    session_id: String,
    path: &std::path::Path,
    op: FileOp,
    responder: Responder<Value>,
) {
    let resolved = match crate::fs_access::resolve_anywhere(path, matches!(op, FileOp::Write { .. })) {
        Ok(p) => p,
        Err(e) => return reply_error(responder, fs_error(e)),
    };
    let dialog_id = next_dialog_id();
    let (operation, verb) = match op {
        FileOp::Read { .. } => (FileOperation::Read, "read"),
        FileOp::Write { .. } => (FileOperation::Write, "write"),
    };
    let shown = resolved.display().to_string();
    let reason = if shown == path.display().to_string() {
        format!("The agent wants to {verb} a file outside this session's workspace.")
    } else {
        format!(
            "The agent wants to {verb} {}, which leads outside this session's workspace to the path shown.",
            path.display()
        )
    };
    let prompt = FileAccessPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.clone(),
        path: shown,
        operation,
        reason,
    };
    let cancellation = responder.cancellation();
    {
        let mut state = shared.lock();
        // Checked under the same lock as the insert, so an exit handled meanwhile is seen.
        if let Some(error) = refuse_new_dialog(shared, &state, &session_id, "file access request") {
            drop(state);
            return reply_error(responder, error);
        }
        state.file_access.insert(
            dialog_id,
            PendingFileAccess {
                responder,
                session_id,
                resolved,
                op,
            },
        );
    }
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        cancellation.cancelled().await;
        if let Some(shared) = weak.upgrade() {
            dismiss_file_access(&shared, dialog_id, DismissReason::AgentCancelled);
        }
    });
    shared.emit(Event::FileAccess(Box::new(prompt))).await;
}

fn dismiss_file_access(shared: &Shared, dialog_id: DialogId, reason: DismissReason) {
    let Some(pending) = shared.lock().file_access.remove(&dialog_id) else {
        return;
    };
    let _ = pending
        .responder
        .respond_with_error(
            agent_client_protocol::Error::invalid_params().data(Value::String(format!(
                "{}: the request went away before the user decided",
                pending.resolved.display()
            ))),
        );
    shared.emit_now(Event::FileAccessDismissed { dialog_id, reason });
}

fn reply_error<T: agent_client_protocol::JsonRpcResponse>(
    responder: Responder<T>,
    error: agent_client_protocol::Error,
) {
    let _ = responder.respond_with_error(error);
}

fn fs_error(e: crate::fs_access::FsError) -> agent_client_protocol::Error {
    use crate::fs_access::FsError;
    match &e {
        FsError::NotFound(path) => {
            agent_client_protocol::v1::schema::Error::resource_not_found(Some(path.clone())).into()
        }
        FsError::Io { .. } => {
            agent_client_protocol::Error::internal_error().data(Value::String(e.to_string()))
        }
        _ => agent_client_protocol::Error::invalid_params().data(Value::String(e.to_string())),
    }
}

fn session_roots(shared: &Shared, session_id: &str) -> Result<Vec<PathBuf>, agent_client_protocol::Error> {
    shared
        .lock()
        .sessions
        .get(session_id)
        .map(|s| s.roots.clone())
        .ok_or_else(|| {
            agent_client_protocol::v1::schema::Error::session_not_found(SessionId::new(
                session_id.to_string(),
            ))
            .into()
        })
}

async fn handle_elicitation(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    let dialog_id = next_dialog_id();
    let admitted = {
        let mut state = shared.lock();
        let admitted = broker::parse_request(&params, shared.opts.modes, &ScopeView(&state))
            .and_then(|parsed| admit(shared, &state, parsed));
        admitted.map(|(parsed, pool)| {
            *state.pending_per_pool.entry(pool.clone()).or_default() += 1;
            if let Some(url_id) = parsed.url_id() {
                state
                    .url_ids
                    .insert(url_id.to_string(), UrlOutstanding { dialog_id });
            }
            (parsed, pool)
        })
    };
    let (parsed, pool) = match admitted {
        Ok(admitted) => admitted,
        Err(rejection) => {
            let rejection = *rejection;
            let error =
                agent_client_protocol::Error::new(rejection.error.code, rejection.error.message.clone());
            let _ = responder.respond_with_error(error);
            shared
                .emit(Event::ElicitationRejected {
                    mode: rejection.mode,
                    message: rejection.message,
                    url: rejection.url,
                    elicitation_id: rejection.elicitation_id,
                    session_id: rejection.session_id,
                    tool_call_id: rejection.tool_call_id,
                    error: rejection.error,
                })
                .await;
            return;
        }
    };
    let prompt = ElicitationPrompt {
        dialog_id,
        agent: shared.agent(),
        scope: parsed.scope.clone(),
        message: parsed.message.clone(),
        kind: parsed.kind.clone(),
        warnings: parsed.warnings.clone(),
    };
    // Dismiss if the agent withdraws the request before the user answers.
    let cancellation = responder.cancellation();
    let (watch_tx, watch_rx) = oneshot::channel();
    {
        let mut state = shared.lock();
        // The exit was handled since admission: nothing would ever dismiss the dialog.
        if state.closed {
            drop(state);
            return reply_error(responder, closing_error());
        }
        state.elicitations.insert(
            dialog_id,
            PendingElicitation {
                responder,
                parsed,
                pool,
                cancel_watch: watch_tx,
                completed: false,
            },
        );
    }
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        tokio::select! {
            _ = cancellation.cancelled() => {
                if let Some(shared) = weak.upgrade() {
                    dismiss_elicitation(&shared, dialog_id, DismissReason::AgentCancelled);
                }
            }
            _ = watch_rx => {}
        }
    });
    shared.emit(Event::Elicitation(Box::new(prompt))).await;
}

/// The rules that depend on what else is pending: unique URL ids, the per-session bound.
fn admit(
    shared: &Shared,
    state: &State,
    parsed: ParsedElicitation,
) -> Result<(ParsedElicitation, String), Box<broker::Rejection>> {
    let reject = |code: i32, message: String| {
        let mut r = rejection_from(&parsed);
        r.error.code = code;
        r.error.message = message;
        Err(Box::new(r))
    };
    if state.closed {
        return reject(broker::INVALID_PARAMS, "the connection is closing".into());
    }
    if let Some(url_id) = parsed.url_id()
        && state.url_ids.contains_key(url_id)
    {
        return reject(
            broker::INVALID_PARAMS,
            format!(
                "elicitationId `{url_id}` is already outstanding on this connection; ids must be unique among outstanding URL elicitations"
            ),
        );
    }
    let pool = parsed.scope.session_id().unwrap_or("(request scope)").to_string();
    let count = state.pending_per_pool.get(&pool).copied().unwrap_or(0);
    let limit = shared.opts.max_pending_per_session;
    if count >= limit {
        return reject(
            -32603,
            format!(
                "too many pending elicitations: {count} are already waiting for the user in this session (limit {limit})"
            ),
        );
    }
    Ok((parsed, pool))
}

/// Why a permission or file-access dialog must not open: the agent's exit was already handled
/// (nothing would ever dismiss it), or the session holds its bound of waiting dialogs, which
/// keeps an agent from holding an unlimited number open (elicitations have their own count, in
/// [`admit`]).
fn refuse_new_dialog(
    shared: &Shared,
    state: &State,
    session_id: &str,
    what: &str,
) -> Option<agent_client_protocol::Error> {
    if state.closed {
        return Some(closing_error());
    }
    let waiting = state
        .permissions
        .values()
        .filter(|p| p.session_id == session_id)
        .count()
        + state
            .file_access
            .values()
            .filter(|f| f.session_id == session_id)
            .count();
    let limit = shared.opts.max_pending_per_session;
    (waiting >= limit).then(|| {
        tracing::warn!("refused a {what} in session {session_id}: {waiting} dialogs already waiting");
        agent_client_protocol::Error::new(
            -32603,
            format!(
                "too many pending dialogs: {waiting} permission and file access requests are already waiting for the user in this session (limit {limit}); this {what} was refused"
            ),
        )
    })
}

fn rejection_from(parsed: &ParsedElicitation) -> broker::Rejection {
    broker::Rejection {
        error: RpcError {
            code: broker::INVALID_PARAMS,
            message: String::new(),
        },
        mode: Some(
            match parsed.kind {
                ElicitationKind::Form { .. } => "form",
                ElicitationKind::Url { .. } => "url",
            }
            .into(),
        ),
        message: Some(parsed.message.clone()),
        url: match &parsed.kind {
            ElicitationKind::Url { url, .. } => Some(url.full.clone()),
            _ => None,
        },
        elicitation_id: parsed.url_id().map(str::to_string),
        session_id: parsed.scope.session_id().map(str::to_string),
        tool_call_id: parsed.scope.tool_call_id().map(str::to_string),
    }
}

async fn handle_permission(
    shared: &Arc<Shared>,
    request: RequestPermissionRequest,
    responder: Responder<RequestPermissionResponse>,
) {
    let session_id = request.session_id.0.to_string();
    if !shared.lock().sessions.contains_key(&session_id) {
        let _ = responder.respond_with_error(
            agent_client_protocol::v1::schema::Error::session_not_found(request.session_id.clone()).into(),
        );
        return;
    }
    let tool_call_id = request.tool_call.tool_call_id.0.to_string();
    let (tool_kind, auto) = {
        let state = shared.lock();
        let tool_kind = request
            .tool_call
            .fields
            .kind
            .as_ref()
            .map(tool_kind_name)
            .or_else(|| {
                state
                    .sessions
                    .get(&session_id)
                    .and_then(|s| s.tool_kinds.get(&tool_call_id).cloned())
            })
            .unwrap_or_else(|| "other".to_string());
        let auto = state
            .rules
            .answer(&session_id, &tool_kind, &request.options)
            .map(|(rule, option)| (rule.rule_id, option.clone()));
        (tool_kind, auto)
    };
    if let Some((rule_id, option)) = auto {
        let _ = responder.respond(RequestPermissionResponse::new(
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.option_id.clone())),
        ));
        shared
            .emit(Event::PermissionAuto {
                session_id,
                tool_call: Box::new(request.tool_call),
                option_id: option.option_id.0.to_string(),
                option_name: option.name,
                option_kind: option.kind,
                tool_kind,
                rule_id,
            })
            .await;
        return;
    }
    let dialog_id = next_dialog_id();
    let cancellation = responder.cancellation();
    let (watch_tx, watch_rx) = oneshot::channel();
    let prompt = PermissionPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.clone(),
        tool_call: request.tool_call.clone(),
        tool_kind: tool_kind.clone(),
        options: request.options.clone(),
        warnings: PermissionPrompt::text_warnings(&request.tool_call, &request.options),
    };
    {
        let mut state = shared.lock();
        // Checked under the same lock as the insert, so an exit handled meanwhile is seen.
        if let Some(error) = refuse_new_dialog(shared, &state, &session_id, "permission request") {
            drop(state);
            return reply_error(responder, error);
        }
        state.permissions.insert(
            dialog_id,
            PendingPermission {
                responder,
                session_id,
                tool_kind,
                options: request.options,
                cancel_watch: watch_tx,
            },
        );
    }
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        tokio::select! {
            _ = cancellation.cancelled() => {
                if let Some(shared) = weak.upgrade() {
                    dismiss_permission(&shared, dialog_id, DismissReason::AgentCancelled);
                }
            }
            _ = watch_rx => {}
        }
    });
    shared.emit(Event::Permission(Box::new(prompt))).await;
}

async fn handle_notification(shared: &Arc<Shared>, note: UntypedMessage) {
    let (method, params) = note.into_parts();
    match method.as_str() {
        "session/update" => {
            let session_id = params
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string);
            match serde_json::from_value::<SessionNotification>(params.clone()) {
                Ok(n) => deliver_update(shared, n.session_id.0.to_string(), Box::new(n.update)).await,
                Err(e) => {
                    tracing::warn!("unrecognised session/update: {e}");
                    shared
                        .emit(Event::UnknownUpdate {
                            session_id,
                            raw: params,
                            error: e.to_string(),
                        })
                        .await
                }
            }
        }
        "elicitation/complete" => {
            let Some(id) = params.get("elicitationId").and_then(Value::as_str) else {
                tracing::warn!("elicitation/complete without an elicitationId: ignored");
                return;
            };
            let found = {
                let mut state = shared.lock();
                let found = state.url_ids.remove(id);
                if let Some(f) = &found
                    && let Some(pending) = state.elicitations.get_mut(&f.dialog_id)
                {
                    pending.completed = true;
                }
                found
            };
            shared
                .emit(Event::ElicitationComplete {
                    elicitation_id: id.to_string(),
                    known: found.is_some(),
                    dialog_id: found.map(|f| f.dialog_id),
                })
                .await;
        }
        crate::hot_path::BARRIER_METHOD => shared.barrier.ack(&params),
        "$/cancel_request" => {} // recorded on the responder by the SDK before we see it
        other => tracing::debug!("ignoring notification `{other}`"),
    }
}

/// A typed `session/update`, from the SDK's path or the transport's fast path.
pub(crate) async fn deliver_update(shared: &Shared, session_id: String, update: Box<SessionUpdate>) {
    if let SessionUpdate::ToolCall(call) = &*update {
        let mut state = shared.lock();
        if let Some(session) = state.sessions.get_mut(&session_id) {
            session
                .tool_kinds
                .insert(call.tool_call_id.0.to_string(), tool_kind_name(&call.kind));
        }
    }
    shared.emit(Event::SessionUpdate { session_id, update }).await
}
