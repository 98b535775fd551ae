//! One ACP connection to one agent process: spawn, initialize, turns and shutdown here; every
//! request the agent makes of the user is in `handlers`, delivered as [`Event`]s in wire order.
//!
//! - `options` and `errors`: what a front end configures and the errors it gets back; leaves
//!   that this module and its children import alike (children never import this module).
//! - `state`: what the connection holds (sessions, requests in flight, waiting dialogs).
//! - `dialogs`: the one table of waiting dialogs, and answering or dismissing any of them,
//!   written once for every kind.
//! - `handlers`: the routing table and one module per kind of request (elicitation,
//!   permission, fs, terminal, session updates); a kind that waits for the user implements
//!   `dialogs::Waiting` there.
//! - `hot_path`: the transport's fast path for `session/update`, ordered with the SDK's events.
//!
//! Handlers never wait for a person: a request that needs a decision stores its responder in
//! the table of waiting dialogs and returns, so the SDK's dispatch loop keeps reading. The front
//! end answers later through [`AgentClient::respond`] (or a kind's `respond_*` shorthand);
//! taking the dialog out of the table under the lock is what makes every answer exactly-once.

mod barrier;
mod dialogs;
pub(crate) mod errors;
pub(crate) mod handlers;
mod hot_path;
mod negotiate;
mod notices;
mod options;
mod pipes;
mod sdk;
pub(crate) mod state;
mod turns_v2;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, Implementation, InitializeRequest, InitializeResponse, PromptRequest,
    SessionId,
};
use agent_client_protocol::v2::InitializeOutcome;
use agent_client_protocol::{Agent, ConnectionTo, Lines};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};

use self::dialogs::dismiss_where;
use self::sdk::{Ends, settle_init};
pub(crate) use self::state::SessionState;
use self::state::{Shared, Wire};
use crate::events::*;
use crate::process::{self, AgentCommand, StderrTail};
use crate::terminal::Terminals;
use crate::transport::{Direction, NoTap, TransportNote, WireTap};

pub use self::errors::{ClientError, RespondError, describe_exit};
pub use self::options::{ClientOptions, ProtocolChoice};
pub use crate::events::{Action, Answer, DialogAnswer};

/// Answers to the dialogs waiting for the user; `dialogs` and each kind's handler do the work.
impl AgentClient {
    /// Answer a waiting dialog exactly once, with an answer of its kind. An answer it refuses
    /// (invalid form content, an unknown option, another kind) leaves it waiting.
    pub fn respond(&self, dialog_id: DialogId, answer: DialogAnswer) -> Result<(), RespondError> {
        dialogs::respond(&self.shared, dialog_id, answer)
    }

    /// Ask the user a question an MCP connection sent through Porthole's gateway in
    /// `session_id` (its `elicitation/create` params): the same rules, dialog and answer
    /// checks as the agent's own elicitation, with the dialog naming the connection
    /// ([`McpAsker`]). `tool_call_id`: the agent's ACP tool call the question came with, when
    /// the front end could tell (the dialog is then that tool call's). Resolves to the
    /// `ElicitResult` to send the server; dropping the future dismisses the dialog.
    pub async fn ask_for_connection(
        &self,
        asker: McpAsker,
        session_id: &str,
        tool_call_id: Option<&str>,
        params: &Value,
    ) -> Result<Value, RpcError> {
        handlers::elicitation::ask_for_connection(&self.shared, asker, session_id, tool_call_id, params).await
    }

    /// Ask the user whether an MCP App of `asker`'s connection, shown in `session_id`, may call
    /// `tool` of its server with `arguments`: a permission dialog naming the server, in the one
    /// list of dialogs. Returns the option chosen (`APP_ALLOW_ONCE`, `APP_ALLOW_ALWAYS`,
    /// `APP_REJECT` in [`crate::app_permission`]) or `None` when dismissed; `Err` when it could
    /// not be asked. Dropping the future dismisses the dialog.
    pub async fn ask_app_permission(
        &self,
        asker: McpAsker,
        session_id: &str,
        tool: &str,
        arguments: &Value,
    ) -> Result<Option<String>, String> {
        handlers::permission::ask_app_permission(&self.shared, asker, session_id, tool, arguments).await
    }

    /// The server's `notifications/elicitation/complete` for a URL question `connection` asked
    /// through [`Self::ask_for_connection`] (an unknown id is reported as such, as an agent's).
    pub async fn connection_completed(&self, connection: &str, elicitation_id: &str) {
        handlers::elicitation::connection_completed(&self.shared, connection, elicitation_id).await
    }

    /// Answer a pending elicitation exactly once. Invalid form content is refused and the
    /// dialog stays pending so the user can fix it.
    pub fn respond_elicitation(&self, dialog_id: DialogId, answer: Answer) -> Result<(), RespondError> {
        self.respond(dialog_id, answer.into())
    }

    /// Validate form content for a pending form elicitation (the UI's one source of truth).
    pub fn validate_form(
        &self,
        dialog_id: DialogId,
        content: &serde_json::Map<String, Value>,
    ) -> Result<crate::form::Validation, RespondError> {
        handlers::elicitation::validate_form(&self.shared, dialog_id, content)
    }

    /// Answer a pending permission request: `Some(option_id)` selects, `None` cancels.
    pub fn respond_permission(
        &self,
        dialog_id: DialogId,
        option_id: Option<String>,
    ) -> Result<(), RespondError> {
        self.respond(dialog_id, DialogAnswer::Permission { option_id })
    }

    /// The remembered "always" permission decisions of this connection.
    pub fn permission_rules(&self) -> Vec<crate::permission_rules::PermissionRule> {
        self.shared.lock().rules.list()
    }

    /// Forget a remembered decision; the next such request asks the user again.
    pub fn revoke_permission_rule(&self, rule_id: u64) -> bool {
        self.shared.lock().rules.revoke(rule_id)
    }

    /// Answer a file-access dialog: `allow` performs the read or write on the path shown.
    pub fn respond_file_access(&self, dialog_id: DialogId, allow: bool) -> Result<(), RespondError> {
        self.respond(dialog_id, DialogAnswer::FileAccess { allow })
    }
}

/// The byte streams of a connection and how to stop the peer.
struct Io {
    reader: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
    writer: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
    stderr: StderrTail,
    /// Asks the process watcher to stop the agent; `None` for stream connections.
    stop: Option<oneshot::Sender<()>>,
    /// Set when we close the connection ourselves (the outgoing bound).
    fault: Arc<crate::outgoing::Fault>,
}

/// The MCP server transports an agent takes in `mcpServers`. v1 agents always take stdio and
/// declare http and sse as booleans; v2 makes stdio a capability too (`{}` markers) and has no
/// SSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct McpTransports {
    pub stdio: bool,
    pub http: bool,
    pub sse: bool,
}

impl McpTransports {
    pub fn of_v1(declared: &agent_client_protocol::v1::schema::McpCapabilities) -> Self {
        McpTransports {
            stdio: true,
            http: declared.http,
            sse: declared.sse,
        }
    }
}

impl Io {
    /// The ends of a stream connection: no process to stop, no stderr.
    fn streams(
        reader: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        writer: impl tokio::io::AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        Io {
            reader: Box::new(reader),
            writer: Box::new(writer),
            stderr: StderrTail::default(),
            stop: None,
            fault: Arc::default(),
        }
    }
}

/// A live connection to an agent. Cheap to clone.
#[derive(Clone)]
pub struct AgentClient {
    pub(crate) shared: Arc<Shared>,
    /// Version-neutral: v1's or v2's types are sent through it, by the version spoken.
    pub(crate) cx: ConnectionTo<Agent>,
    init: Arc<InitializeResponse>,
    /// The `authMethods` of the raw `initialize` answer (see `initialize`).
    raw_auth_methods: Arc<serde_json::Value>,
    /// The MCP transports the agent takes (v2's stdio marker has no place in v1's view).
    mcp: McpTransports,
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
        let fault = Arc::new(crate::outgoing::Fault::default());
        {
            let shared = shared.clone();
            let fault = fault.clone();
            let tail = proc.stderr_tail.clone();
            let mut stderr_done = proc.stderr_done.clone();
            let requested = requested.clone();
            let mut agent = proc.group;
            tokio::spawn(async move {
                let status = tokio::select! {
                    status = agent.wait() => status,
                    _ = stop_rx => {
                        requested.store(true, Ordering::SeqCst);
                        // SIGTERM to its group, SIGKILL to its group after 3 s.
                        agent.stop(Duration::from_secs(3)).await
                    }
                    // An agent that does not read its input gets no grace period.
                    _ = fault.raised() => agent.stop(Duration::ZERO).await,
                };
                // Children of the agent that kept running die with its group.
                agent.kill();
                let _ = tokio::time::timeout(Duration::from_secs(1), stderr_done.wait_for(|d| *d)).await;
                // What it wrote last (a line over the cap without a newline, say) is read and
                // reported before its exit; the pipe ends with the group, so this is short.
                let mut output_ended = shared.output_ended.subscribe();
                let _ = tokio::time::timeout(Duration::from_secs(2), output_ended.wait_for(|d| *d)).await;
                let mut info = exit_info(status, tail.text(), requested.load(Ordering::SeqCst));
                if let Some(reason) = fault.reason() {
                    info.status = format!("{reason} ({})", info.status);
                }
                on_agent_exit(&shared, info).await;
            });
        }
        let io = Io {
            reader: Box::new(proc.stdout),
            writer: Box::new(proc.stdin),
            stderr: proc.stderr_tail,
            stop: Some(stop_tx),
            fault,
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
        let io = Io::streams(reader, writer);
        Self::connect(shared, events_rx, exit_rx, io, true).await
    }

    /// Observe an agent that another client drives (the companion proxy relays its requests
    /// for the user): the same handlers, rules and dialogs as a connection of our own, but no
    /// `initialize` is sent; the caller passes the agent's answer to the driver's, and reports
    /// the driver's sessions ([`AgentClient::observe_session`]) and requests in flight
    /// ([`AgentClient::observe_request`]). Ends when `reader` ends.
    pub async fn observe_streams<R, W>(
        reader: R,
        writer: W,
        opts: ClientOptions,
        init: InitializeResponse,
    ) -> Result<(AgentClient, mpsc::Receiver<Event>), ClientError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let (shared, events_rx, exit_rx) = Shared::new(&opts);
        let _ = shared.agent.set(identity_of(&init, &opts));
        let io = Io::streams(reader, writer);
        let client = Self::observe(shared, exit_rx, io, true).await?;
        let client = AgentClient {
            mcp: McpTransports::of_v1(&init.agent_capabilities.mcp_capabilities),
            init: Arc::new(init),
            ..client
        };
        Ok((client, events_rx))
    }

    async fn connect(
        shared: Arc<Shared>,
        events_rx: mpsc::Receiver<Event>,
        exit_rx: watch::Receiver<Option<ExitInfo>>,
        io: Io,
        exit_on_close: bool,
    ) -> Result<(AgentClient, mpsc::Receiver<Event>), ClientError> {
        let (pipes, mut ends) = Self::pipes_and_ends(shared.clone(), exit_rx.clone(), io, exit_on_close);
        let choice = shared.opts.protocol;
        if choice != ProtocolChoice::V1 {
            // Offer v2 on a connection that may be retired; see `pipes`.
            let (retire, retired) = watch::channel(false);
            let (outgoing, incoming) = pipes.for_attempt(retired.clone());
            let run = ends
                .run(Wire::V2, Lines::new(outgoing, incoming), Some(retired))
                .await?;
            let v2_cx = run.v2.clone().expect("a v2 run has its v2 connection");
            let sent = v2_cx
                .send_initialize(negotiate::request(&shared.opts))
                .block_task();
            let outcome = settle_init(&shared, &exit_rx, sent).await;
            let refused = match outcome {
                Ok(InitializeOutcome::Initialized(response)) => {
                    let _ = shared.wire.set(Wire::V2);
                    let (init, raw_auth_methods) = negotiate::v1_view(&response);
                    let _ = shared.agent.set(identity_of(&init, &shared.opts));
                    drop(pipes);
                    let client = AgentClient {
                        mcp: negotiate::mcp_transports(&response),
                        init: Arc::new(init),
                        raw_auth_methods: Arc::new(raw_auth_methods),
                        ..ends.keep(run)
                    };
                    return Ok((client, events_rx));
                }
                Ok(InitializeOutcome::LowerVersion(lower)) => match lower.selected().as_u16() {
                    1 if choice == ProtocolChoice::Auto => "it answered version 1".to_string(),
                    selected => return Err(ends.fail(run, ClientError::NotV2 { selected }).await),
                },
                // An agent that refuses the v2 offer with an error (an unsupported version, say)
                // may still speak v1: auto asks it that next.
                Err(ClientError::Rpc { error, .. }) if choice == ProtocolChoice::Auto => {
                    format!("it refused version 2 ({}: {})", error.code, error.message)
                }
                Ok(other) => {
                    let error = ClientError::Start(format!("unexpected initialize outcome: {other:?}"));
                    return Err(ends.fail(run, error).await);
                }
                Err(e) => return Err(ends.fail(run, e).await),
            };
            // A v1 agent: end the v2 attempt (it reads nothing more) and speak v1 on the same
            // process, with the v1-shaped `initialize` that turns on fs and terminals.
            tracing::info!("offered ACP v2, {refused}: speaking v1");
            retire.send_replace(true);
            drop(run);
        }
        let _ = shared.wire.set(Wire::V1);
        let (outgoing, incoming) = pipes.into_final();
        let run = ends.run(Wire::V1, Lines::new(outgoing, incoming), None).await?;
        let client = ends.keep(run);
        match client.initialize().await {
            Ok((init, raw_auth_methods)) => {
                let client = AgentClient {
                    mcp: McpTransports::of_v1(&init.agent_capabilities.mcp_capabilities),
                    init: Arc::new(init),
                    raw_auth_methods: Arc::new(raw_auth_methods),
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

    /// Run a v1 SDK connection over `io` with no `initialize` of its own (`observe_streams`).
    async fn observe(
        shared: Arc<Shared>,
        exit_rx: watch::Receiver<Option<ExitInfo>>,
        io: Io,
        exit_on_close: bool,
    ) -> Result<AgentClient, ClientError> {
        let _ = shared.wire.set(Wire::V1);
        let (pipes, mut ends) = Self::pipes_and_ends(shared, exit_rx, io, exit_on_close);
        let (outgoing, incoming) = pipes.into_final();
        let run = ends.run(Wire::V1, Lines::new(outgoing, incoming), None).await?;
        Ok(ends.keep(run))
    }

    /// The agent's lines (`pipes`) and what the SDK connections run over them share (`Ends`).
    fn pipes_and_ends(
        shared: Arc<Shared>,
        exit_rx: watch::Receiver<Option<ExitInfo>>,
        io: Io,
        exit_on_close: bool,
    ) -> (pipes::Pipes, Ends) {
        let Io {
            reader,
            writer,
            stderr,
            stop,
            fault,
        } = io;
        let pipes = pipes::Pipes::new(&shared, reader, writer, Self::event_tap(&shared), fault.clone());
        let ends = Ends {
            shared,
            exit_rx,
            stderr,
            stop,
            fault,
            exit_on_close,
        };
        (pipes, ends)
    }

    fn event_tap(shared: &Arc<Shared>) -> Arc<dyn WireTap> {
        Arc::new(EventTap {
            inner: shared.opts.tap.clone().unwrap_or_else(|| Arc::new(NoTap)),
            shared: Arc::downgrade(shared),
        })
    }

    async fn initialize(&self) -> Result<(InitializeResponse, serde_json::Value), ClientError> {
        let request = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(handlers::advertised_v1(&self.shared.opts))
            .client_info(
                Implementation::new(
                    self.shared.opts.client_name.clone(),
                    self.shared.opts.client_version.clone(),
                )
                .title("Porthole".to_string()),
            );
        let sent = self
            .cx
            .send_request(crate::initialize::Initialize(request))
            .block_task();
        let response = sdk::settle_init(&self.shared, &self.exit_rx, sent).await?;
        let _ = self
            .shared
            .agent
            .set(identity_of(&response.response, &self.shared.opts));
        Ok((response.response, response.raw_auth_methods))
    }

    /// Prefer the exit reason over a generic "connection closed" error.
    pub(crate) fn rpc_error(&self, method: &'static str, e: &agent_client_protocol::Error) -> ClientError {
        rpc_error_with(&self.exit_rx, method, e)
    }

    /// The ACP version the connection speaks: 1, or 2 when the agent took the v2 offer
    /// (`ClientOptions::protocol`). The same as `init_response().protocol_version`.
    pub fn protocol_version(&self) -> ProtocolVersion {
        match self.shared.wire.get() {
            Some(Wire::V2) => ProtocolVersion::V2,
            _ => ProtocolVersion::V1,
        }
    }

    pub(crate) fn speaks_v2(&self) -> bool {
        self.shared.wire.get() == Some(&Wire::V2)
    }

    pub fn agent(&self) -> AgentIdentity {
        self.shared.agent()
    }

    pub fn init_response(&self) -> &InitializeResponse {
        &self.init
    }

    /// The MCP transports the agent takes in a session's `mcpServers`.
    pub fn mcp_transports(&self) -> McpTransports {
        self.mcp
    }

    /// The `authMethods` of the agent's `initialize` answer as sent, for the kinds the SDK's
    /// typed [`Self::auth_methods`] reads as plain agent methods (`env_var` methods and their
    /// variables: `porthole_profiles::sign_in::env_var_methods`).
    pub fn raw_auth_methods(&self) -> &serde_json::Value {
        &self.raw_auth_methods
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
        if self.speaks_v2() {
            return self.prompt_v2(session_id, blocks);
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
                    // Give the exit watcher a moment so the error names the real cause. When the
                    // connection itself ended, the watcher first reads the agent's output to its
                    // end (up to 2 s) before it reports the exit: wait for that.
                    let terminated = e.message.starts_with("Connection terminated")
                        || e.data.as_ref().is_some_and(|d| {
                            d.get("reason").and_then(|r| r.as_str()) == Some("connection_terminated")
                        });
                    let wait = if terminated {
                        Duration::from_secs(4)
                    } else {
                        Duration::from_millis(500)
                    };
                    let mut exit = client.exit_rx.clone();
                    let _ = tokio::time::timeout(wait, exit.wait_for(|e| e.is_some())).await;
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
        dismiss_where(
            &self.shared,
            Some(session_id),
            DismissReason::TurnCancelled,
            |d| d.ends_with_turn(),
        );
        if self.speaks_v2() {
            return self.cancel_v2(session_id);
        }
        self.cx
            .send_notification(CancelNotification::new(SessionId::new(session_id.to_string())))
            .map_err(|e| self.rpc_error("session/cancel", &e))
    }

    /// The connection's terminals (the front end runs terminal-auth login commands here too).
    pub fn terminals(&self) -> &Terminals {
        &self.shared.terminals
    }

    /// Forget a session: everything pending for it is cancelled, its terminals are released.
    pub fn end_session(&self, session_id: &str) {
        {
            let mut state = self.shared.lock();
            state.sessions.remove(session_id);
            state.rules.forget_session(session_id);
        }
        dismiss_all(&self.shared, Some(session_id), DismissReason::SessionEnded);
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

/// Prefer the exit reason over a generic "connection closed" error.
fn rpc_error_with(
    exit_rx: &watch::Receiver<Option<ExitInfo>>,
    method: &'static str,
    e: &agent_client_protocol::Error,
) -> ClientError {
    if let Some(info) = exit_rx.borrow().clone() {
        return ClientError::Exited(info);
    }
    ClientError::Rpc {
        method,
        error: RpcError::from(e),
    }
}

/// The agent's name from its `initialize` answer, else the name it is configured under.
fn identity_of(response: &InitializeResponse, opts: &ClientOptions) -> AgentIdentity {
    match &response.agent_info {
        Some(info) => AgentIdentity {
            name: info.name.clone(),
            title: info.title.clone(),
            version: Some(info.version.clone()),
        },
        None => AgentIdentity {
            name: (opts.agent_name.clone())
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| "unnamed agent".into()),
            title: None,
            version: None,
        },
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

/// Every waiting dialog of every kind in `session` (all of them with `None`) goes away with
/// `reason`; the agent gets each kind's "no decision" answer.
fn dismiss_all(shared: &Shared, session: Option<&str>, reason: DismissReason) {
    dismiss_where(shared, session, reason, |_| true);
}

async fn on_agent_exit(shared: &Arc<Shared>, info: ExitInfo) {
    {
        // Closed first, under the lock every handler checks before it opens a dialog: after
        // this, nothing new can wait, so what is dismissed below is everything.
        let mut state = shared.lock();
        state.closed = true;
        state.url_ids.clear();
    }
    dismiss_all(shared, None, DismissReason::AgentExited);
    shared.terminals.release_all(None).await;
    let _ = shared.exit.send(Some(info.clone()));
    // Held notices go out before this (`emit` sends them first).
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
        if let (Direction::Incoming, Some(shared)) = (direction, self.shared.upgrade()) {
            shared.flush_notices();
        }
        self.inner.line(direction, line);
    }
    fn note(&self, note: TransportNote) {
        if let Some(shared) = self.shared.upgrade() {
            let event = match &note {
                TransportNote::Banner(line) => Event::StdoutNoise { line: line.clone() },
                TransportNote::Oversized { bytes, .. } => Event::LineTooLong {
                    bytes: *bytes as u64,
                    limit: shared.opts.max_line_bytes as u64,
                },
            };
            shared.notice(event);
        }
        self.inner.note(note);
    }
}
