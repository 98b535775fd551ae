//! Session lifecycle and settings requests: new, load, resume, list, close, delete, modes,
//! config options, authentication. Each is sent only when the agent advertised it; otherwise
//! the caller gets [`ClientError::Unsupported`] without anything going on the wire.

use std::path::{Path, PathBuf};

use agent_client_protocol::JsonRpcRequest;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthenticateRequest, CloseSessionRequest, DeleteSessionRequest,
    ForkSessionRequest, ForkSessionResponse, ListSessionsRequest, LoadSessionRequest, LogoutRequest,
    McpServer, NewSessionRequest, NewSessionResponse, ResumeSessionRequest, SessionConfigOption,
    SessionConfigOptionValue, SessionId, SessionInfo, SessionModeState, SetSessionConfigOptionRequest,
    SetSessionModeRequest,
};
use agent_client_protocol::v2::schema as v2_schema;
use serde::Serialize;

use crate::client::state::Shared;
use crate::client::{AgentClient, ClientError, SessionState};
use crate::models::{
    ForkSession, LoadSession, NewSession, ResumeSession, SessionModels, SetModelRequest, WithModels,
};

mod v2;

/// Where a session works: `cwd`, the primary folder and the base of relative paths, and the
/// additional folders (`additionalDirectories`) the agent may also work in. fs requests are
/// confined to all of them. A `PathBuf` is a workspace of one folder. `mcp_servers` are the
/// MCP servers handed to the agent for the session (`mcpServers`; none by default).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Workspace {
    pub cwd: PathBuf,
    pub additional: Vec<PathBuf>,
    pub mcp_servers: Vec<McpServer>,
}

impl Workspace {
    pub fn new(cwd: PathBuf, additional: Vec<PathBuf>) -> Self {
        Self {
            cwd,
            additional,
            mcp_servers: Vec::new(),
        }
    }

    /// The same workspace, with these MCP servers for the agent.
    pub fn with_mcp_servers(mut self, servers: Vec<McpServer>) -> Self {
        self.mcp_servers = servers;
        self
    }

    /// Every root, `cwd` first.
    pub fn roots(&self) -> Vec<PathBuf> {
        std::iter::once(self.cwd.clone())
            .chain(self.additional.iter().cloned())
            .collect()
    }
}

impl From<PathBuf> for Workspace {
    fn from(cwd: PathBuf) -> Self {
        Self::new(cwd, Vec::new())
    }
}

impl From<&Path> for Workspace {
    fn from(cwd: &Path) -> Self {
        Self::new(cwd.to_path_buf(), Vec::new())
    }
}

/// How a session is opened ([`AgentClient::open`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open<'a> {
    /// `session/new`.
    New,
    /// A stored session with its history replayed: v1's `session/load`, v2's `session/resume`
    /// with `replayFrom: start` (v2 has no `session/load`).
    Load(&'a str),
    /// A stored session, without its history: `session/resume`.
    Resume(&'a str),
    /// A new session from another's history: `session/fork` (v1, when advertised).
    Fork(&'a str),
}

/// What the agent told us about a session it opened, loaded or resumed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenedSession {
    pub session_id: String,
    pub cwd: PathBuf,
    /// The additional folders sent with the request (empty when none were).
    pub additional_directories: Vec<PathBuf>,
    pub modes: Option<SessionModeState>,
    pub config_options: Vec<SessionConfigOption>,
    /// The models the agent offers (`session/set_model`); `None` when it offers no choice.
    pub models: Option<SessionModels>,
}

/// One page of `session/list`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionListing {
    pub sessions: Vec<SessionInfo>,
    pub next_cursor: Option<String>,
}

/// A value for `session/set_config_option`.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigValue {
    Select(String),
    Boolean(bool),
}

/// The markers of a v2 agent's `capabilities.session` that advertise a method Porthole sends on
/// v2 beyond list, resume and close (which v2 requires of every agent with sessions; v1 names
/// them alike). The v1 view of the agent's answer (`client/negotiate.rs`) carries these and no
/// others, so a method not sent on v2 stays unadvertised there and answers "unsupported"
/// without a send. A method sent on both wires adds its marker here, beside its two requests.
pub(crate) const V2_SESSION_MARKERS: &[&str] = &["additionalDirectories", "delete", "fork"];

/// JSON-RPC code of `auth_required` (ACP error codes).
pub const AUTH_REQUIRED: i32 = -32000;

impl ClientError {
    /// The agent refused because the user must sign in first (`auth_required`).
    pub fn is_auth_required(&self) -> bool {
        matches!(self, ClientError::Rpc { error, .. } if error.code == AUTH_REQUIRED)
    }
}

/// A request counted as in flight (request-scoped elicitations may name it) until dropped.
struct InFlight<'a>(&'a AgentClient, String);

impl<'a> InFlight<'a> {
    fn track(client: &'a AgentClient, id: &impl serde::Serialize, method: &'static str) -> Self {
        let key = serde_json::to_string(id).unwrap_or_default();
        client.shared.lock().in_flight.insert(key.clone(), method);
        InFlight(client, key)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.shared.lock().in_flight.remove(&self.1);
    }
}

impl AgentClient {
    /// What the agent advertised in `initialize`.
    pub fn agent_capabilities(&self) -> &AgentCapabilities {
        &self.init_response().agent_capabilities
    }

    pub fn auth_methods(&self) -> &[AuthMethod] {
        &self.init_response().auth_methods
    }

    /// Send a request, tracking it as in flight (request-scoped elicitations may name it).
    /// Dropping the returned future before the answer sends `$/cancel_request` (the SDK's
    /// drop cancellation), so an abandoned request does not keep the agent busy.
    pub(crate) async fn call<Req: JsonRpcRequest>(
        &self,
        method: &'static str,
        request: Req,
    ) -> Result<Req::Response, ClientError> {
        let prepared = self.cx.prepare_request(request);
        let _in_flight = InFlight::track(self, prepared.raw_id(), method);
        prepared
            .block_task()
            .await
            .map_err(|e| self.rpc_error(method, &e))
    }

    /// [`call`](Self::call), with `answered` run on a successful answer in the connection's
    /// dispatch order: before any message the agent sent after that answer is handled. The
    /// session an answer opens is registered there, so the agent's first requests and updates
    /// for it, which may follow the answer at once, find it (its folders for `fs/*` and
    /// terminals, its tool calls). `answered` must be quick: later messages wait for it.
    async fn call_ordered<Req: JsonRpcRequest>(
        &self,
        method: &'static str,
        request: Req,
        answered: impl FnOnce(&Req::Response) + Send + 'static,
    ) -> Result<Req::Response, ClientError>
    where
        Req::Response: Send + 'static,
    {
        let prepared = self.cx.prepare_request(request);
        let _in_flight = InFlight::track(self, prepared.raw_id(), method);
        // As `call`: dropping the future before the answer sends `$/cancel_request` (a no-op
        // once answered).
        struct CancelUnanswered(agent_client_protocol::RequestCancellationHandle);
        impl Drop for CancelUnanswered {
            fn drop(&mut self) {
                let _ = self.0.cancel();
            }
        }
        let _cancel = CancelUnanswered(prepared.cancellation_handle());
        let (tx, rx) = tokio::sync::oneshot::channel();
        prepared
            .on_receiving_result(move |result| {
                if let Ok(response) = &result {
                    answered(response);
                }
                let _ = tx.send(result);
                std::future::ready(Ok(()))
            })
            .map_err(|e| self.rpc_error(method, &e))?;
        match rx.await {
            Ok(result) => result.map_err(|e| self.rpc_error(method, &e)),
            Err(_) => Err(self.rpc_error(method, &agent_client_protocol::Error::internal_error())),
        }
    }

    pub(super) fn require(&self, supported: bool, method: &'static str) -> Result<(), ClientError> {
        if supported {
            Ok(())
        } else {
            Err(ClientError::Unsupported(method))
        }
    }

    /// The additional folders of `workspace`, checked: sent only to an agent that advertises
    /// `sessionCapabilities.additionalDirectories` (the spec's MUST), and each absolute.
    fn additional(&self, workspace: &Workspace) -> Result<Vec<PathBuf>, ClientError> {
        if workspace.additional.is_empty() {
            return Ok(Vec::new());
        }
        let supported = self
            .agent_capabilities()
            .session_capabilities
            .additional_directories
            .is_some();
        self.require(supported, "additionalDirectories")?;
        if let Some(relative) = workspace.additional.iter().find(|p| !p.is_absolute()) {
            return Err(ClientError::Start(format!(
                "an additional folder must be an absolute path, not `{}`",
                relative.display()
            )));
        }
        Ok(workspace.additional.clone())
    }

    fn register(&self, session_id: &str, workspace: &Workspace, models: Option<&SessionModels>) {
        register(&self.shared, session_id, workspace, models);
    }

    /// A callback for [`call_ordered`](Self::call_ordered) that registers the session an
    /// answer names, in `workspace`.
    fn register_on_answer<R>(
        &self,
        workspace: &Workspace,
        named: impl Fn(&R) -> (&str, Option<&SessionModels>) + Send + 'static,
    ) -> impl FnOnce(&R) + Send + 'static {
        let shared = std::sync::Arc::clone(&self.shared);
        let workspace = workspace.clone();
        move |answer| {
            let (session_id, models) = named(answer);
            register(&shared, session_id, &workspace, models);
        }
    }

    /// Keep what a load or resume answered (the session was registered before the request,
    /// since the agent may send updates or requests for it while answering).
    fn opened(
        &self,
        session_id: &str,
        workspace: Workspace,
        modes: Option<SessionModeState>,
        config: Option<Vec<SessionConfigOption>>,
        models: Option<SessionModels>,
    ) -> OpenedSession {
        if let Some(session) = self.shared.lock().sessions.get_mut(session_id) {
            session.models = models.clone();
        }
        OpenedSession {
            session_id: session_id.to_string(),
            cwd: workspace.cwd,
            additional_directories: workspace.additional,
            modes,
            config_options: config.unwrap_or_default(),
            models,
        }
    }

    /// `session/new` in `workspace` (its folders are the session's roots for fs requests).
    pub async fn new_session(&self, workspace: impl Into<Workspace>) -> Result<String, ClientError> {
        Ok(self.open_session(workspace).await?.session_id)
    }

    /// `session/new`, with the modes, config options and models the agent offers.
    pub async fn open_session(&self, workspace: impl Into<Workspace>) -> Result<OpenedSession, ClientError> {
        self.open(Open::New, workspace).await
    }

    /// Open a session, by the version the connection speaks (v1's requests here, v2's in
    /// `sessions/v2.rs`). The one way sessions open; `open_session`, `load_session`,
    /// `resume_session` and `fork_session` are its shorthands.
    pub async fn open(
        &self,
        how: Open<'_>,
        workspace: impl Into<Workspace>,
    ) -> Result<OpenedSession, ClientError> {
        let workspace = workspace.into();
        if self.speaks_v2() {
            return v2::open(self, how, workspace).await;
        }
        match how {
            Open::New => self.new_v1(workspace).await,
            Open::Load(id) | Open::Resume(id) => self.reopen_v1(how, id, workspace).await,
            Open::Fork(id) => self.fork_v1(id, workspace).await,
        }
    }

    async fn new_v1(&self, workspace: Workspace) -> Result<OpenedSession, ClientError> {
        let request = NewSessionRequest::new(workspace.cwd.clone())
            .additional_directories(self.additional(&workspace)?)
            .mcp_servers(workspace.mcp_servers.clone());
        // Registered as the answer is read: the agent may use the session at once.
        let register = self.register_on_answer(&workspace, |r: &WithModels<NewSessionResponse>| {
            (&r.response.session_id.0, r.models.as_ref())
        });
        let r = self
            .call_ordered("session/new", NewSession(request), register)
            .await?;
        let session_id = r.response.session_id.0.to_string();
        Ok(OpenedSession {
            session_id,
            cwd: workspace.cwd,
            additional_directories: workspace.additional,
            modes: r.response.modes,
            config_options: r.response.config_options.unwrap_or_default(),
            models: r.models,
        })
    }

    /// `session/load`: the agent replays the history as `session/update`s before answering.
    /// The additional folders are sent again in full (the spec: nothing is restored implicitly).
    pub async fn load_session(
        &self,
        session_id: &str,
        workspace: impl Into<Workspace>,
    ) -> Result<OpenedSession, ClientError> {
        self.open(Open::Load(session_id), workspace).await
    }

    /// `session/resume`: reconnect to a session without replaying its history.
    pub async fn resume_session(
        &self,
        session_id: &str,
        workspace: impl Into<Workspace>,
    ) -> Result<OpenedSession, ClientError> {
        self.open(Open::Resume(session_id), workspace).await
    }

    /// `session/load` or `session/resume` of a stored session on v1. Registered first: a
    /// load's replay and any requests while the agent answers name this session.
    async fn reopen_v1(
        &self,
        how: Open<'_>,
        session_id: &str,
        workspace: Workspace,
    ) -> Result<OpenedSession, ClientError> {
        let capabilities = self.agent_capabilities();
        let (method, supported) = match how {
            Open::Load(_) => ("session/load", capabilities.load_session),
            _ => (
                "session/resume",
                capabilities.session_capabilities.resume.is_some(),
            ),
        };
        self.require(supported, method)?;
        let additional = self.additional(&workspace)?;
        self.register(session_id, &workspace, None);
        let id = SessionId::new(session_id.to_string());
        let cwd = workspace.cwd.clone();
        let servers = workspace.mcp_servers.clone();
        // The two answers differ only in type: both carry modes, config options and models.
        let answered = match how {
            Open::Load(_) => {
                let request = LoadSessionRequest::new(id, cwd)
                    .additional_directories(additional)
                    .mcp_servers(servers);
                self.call(method, LoadSession(request))
                    .await
                    .map(|r| (r.response.modes, r.response.config_options, r.models))
            }
            _ => {
                let request = ResumeSessionRequest::new(id, cwd)
                    .additional_directories(additional)
                    .mcp_servers(servers);
                self.call(method, ResumeSession(request))
                    .await
                    .map(|r| (r.response.modes, r.response.config_options, r.models))
            }
        };
        match answered {
            Ok((modes, config, models)) => Ok(self.opened(session_id, workspace, modes, config, models)),
            Err(e) => {
                self.end_session(session_id);
                Err(e)
            }
        }
    }

    /// `session/fork` (when advertised): a new session that starts from `session_id`'s
    /// history, in `cwd`. The source may be open here or one of the agent's stored sessions
    /// (`session/list`); it stays as it is.
    pub async fn fork_session(
        &self,
        session_id: &str,
        workspace: impl Into<Workspace>,
    ) -> Result<OpenedSession, ClientError> {
        self.open(Open::Fork(session_id), workspace).await
    }

    async fn fork_v1(&self, session_id: &str, workspace: Workspace) -> Result<OpenedSession, ClientError> {
        let Workspace { cwd, mcp_servers, .. } = workspace;
        let supported = self.agent_capabilities().session_capabilities.fork.is_some();
        self.require(supported, "session/fork")?;
        let request = ForkSessionRequest::new(SessionId::new(session_id.to_string()), cwd.clone())
            .mcp_servers(mcp_servers);
        let register = self.register_on_answer(
            &Workspace::from(cwd.clone()),
            |r: &WithModels<ForkSessionResponse>| (&r.response.session_id.0, r.models.as_ref()),
        );
        let r = self
            .call_ordered("session/fork", ForkSession(request), register)
            .await?;
        let forked = r.response.session_id.0.to_string();
        Ok(OpenedSession {
            session_id: forked,
            cwd,
            additional_directories: Vec::new(),
            modes: r.response.modes,
            config_options: r.response.config_options.unwrap_or_default(),
            models: r.models,
        })
    }

    /// `session/set_model`, only for a session whose agent offered models, and only one of
    /// them. Returns the session's models with the new current one.
    pub async fn set_model(&self, session_id: &str, model_id: &str) -> Result<SessionModels, ClientError> {
        let models = {
            let state = self.shared.lock();
            let session = state
                .sessions
                .get(session_id)
                .ok_or_else(|| ClientError::UnknownSession(session_id.to_string()))?;
            session.models.clone()
        };
        let Some(mut models) = models else {
            return Err(ClientError::Unsupported("session/set_model"));
        };
        if !models.offers(model_id) {
            return Err(ClientError::UnknownModel(model_id.to_string()));
        }
        let request = SetModelRequest {
            session_id: session_id.to_string(),
            model_id: model_id.to_string(),
        };
        self.call("session/set_model", request).await?;
        models.current_model_id = model_id.to_string();
        if let Some(session) = self.shared.lock().sessions.get_mut(session_id) {
            session.models = Some(models.clone());
        }
        Ok(models)
    }

    /// `session/list`, one page.
    pub async fn list_sessions(
        &self,
        cwd: Option<PathBuf>,
        cursor: Option<String>,
    ) -> Result<SessionListing, ClientError> {
        if self.speaks_v2() {
            let request: v2_schema::ListSessionsRequest =
                v2::from_json(serde_json::json!({"cwd": cwd, "cursor": cursor}))?;
            let r = self.call("session/list", request).await?;
            return Ok(SessionListing {
                sessions: r.sessions.iter().filter_map(v2::as_v1).collect(),
                next_cursor: r.next_cursor.map(|c| c.to_string()),
            });
        }
        let supported = self.agent_capabilities().session_capabilities.list.is_some();
        self.require(supported, "session/list")?;
        let response = self
            .call("session/list", ListSessionsRequest::new().cwd(cwd).cursor(cursor))
            .await?;
        Ok(SessionListing {
            sessions: response.sessions,
            next_cursor: response.next_cursor,
        })
    }

    /// Close a session: `session/close` when the agent supports it, and in any case forget it
    /// here (pending dialogs are cancelled, terminals released).
    pub async fn close_session(&self, session_id: &str) -> Result<(), ClientError> {
        let result = if self.speaks_v2() {
            // Required in v2.
            let request = v2_schema::CloseSessionRequest::new(session_id.to_string());
            self.call("session/close", request).await.map(|_| ())
        } else if self.agent_capabilities().session_capabilities.close.is_some() {
            self.call(
                "session/close",
                CloseSessionRequest::new(SessionId::new(session_id.to_string())),
            )
            .await
            .map(|_| ())
        } else {
            Ok(())
        };
        self.end_session(session_id);
        result
    }

    /// `tool_call/cancel` (ACP v2 only): stop a tool call's work, e.g. one the agent lists as
    /// running in the background. The agent answers whether it could.
    pub async fn cancel_tool_call(&self, session_id: &str, tool_call_id: &str) -> Result<(), ClientError> {
        self.known(session_id)?;
        self.require(self.speaks_v2(), "tool_call/cancel")?;
        let request = v2_schema::CancelToolCallRequest::new(session_id.to_string(), tool_call_id.to_string());
        self.call("tool_call/cancel", request).await.map(|_| ())
    }

    /// `terminal/cancel` (ACP v2 only): stop the command of a terminal the agent runs.
    pub async fn cancel_terminal(&self, session_id: &str, terminal_id: &str) -> Result<(), ClientError> {
        self.known(session_id)?;
        self.require(self.speaks_v2(), "terminal/cancel")?;
        let request = v2_schema::CancelTerminalRequest::new(session_id.to_string(), terminal_id.to_string());
        self.call("terminal/cancel", request).await.map(|_| ())
    }

    /// `session/delete`: remove a stored session from the agent's list.
    pub async fn delete_session(&self, session_id: &str) -> Result<(), ClientError> {
        let supported = self.agent_capabilities().session_capabilities.delete.is_some();
        self.require(supported, "session/delete")?;
        if self.speaks_v2() {
            let request = v2_schema::DeleteSessionRequest::new(session_id.to_string());
            self.call("session/delete", request).await?;
        } else {
            let request = DeleteSessionRequest::new(SessionId::new(session_id.to_string()));
            self.call("session/delete", request).await?;
        }
        self.end_session(session_id);
        Ok(())
    }

    /// `session/set_mode`. The agent confirms with a `current_mode_update`.
    pub async fn set_mode(&self, session_id: &str, mode_id: &str) -> Result<(), ClientError> {
        self.known(session_id)?;
        // v2 has no modes (they are config options there).
        self.require(!self.speaks_v2(), "session/set_mode")?;
        self.call(
            "session/set_mode",
            SetSessionModeRequest::new(SessionId::new(session_id.to_string()), mode_id.to_string()),
        )
        .await
        .map(|_| ())
    }

    /// `session/set_config_option`; returns the agent's full, updated list of options.
    pub async fn set_config_option(
        &self,
        session_id: &str,
        config_id: &str,
        value: ConfigValue,
    ) -> Result<Vec<SessionConfigOption>, ClientError> {
        self.known(session_id)?;
        if self.speaks_v2() {
            // v2 names the value's type (`id` or `boolean`) beside it.
            let (kind, value) = match value {
                ConfigValue::Select(v) => ("id", serde_json::Value::from(v)),
                ConfigValue::Boolean(b) => ("boolean", serde_json::Value::from(b)),
            };
            let request: v2_schema::SetSessionConfigOptionRequest = v2::from_json(serde_json::json!({
                "sessionId": session_id, "configId": config_id, "type": kind, "value": value,
            }))?;
            let r = self.call("session/set_config_option", request).await?;
            return Ok(v2::config(&r.config_options));
        }
        let value = match value {
            ConfigValue::Select(v) => SessionConfigOptionValue::value_id(v),
            ConfigValue::Boolean(b) => SessionConfigOptionValue::boolean(b),
        };
        let request = SetSessionConfigOptionRequest::new(
            SessionId::new(session_id.to_string()),
            config_id.to_string(),
            value,
        );
        Ok(self
            .call("session/set_config_option", request)
            .await?
            .config_options)
    }

    /// `authenticate` with one of the advertised methods (agent-driven flows).
    pub async fn authenticate(&self, method_id: &str) -> Result<(), ClientError> {
        let advertised = self.auth_methods().iter().any(|m| m.id().0.as_ref() == method_id);
        if !advertised {
            return Err(ClientError::UnknownAuthMethod(method_id.to_string()));
        }
        self.sign_in(method_id, None).await
    }

    /// Whether `method_id` is one of the agent's methods that sign in with an API key sent in
    /// `authenticate`'s `_meta["api-key"]` (see [`crate::api_key`]), and in which shape.
    pub fn api_key_method(&self, method_id: &str) -> Option<crate::api_key::ApiKeyShape> {
        let agent = self.agent();
        self.auth_methods()
            .iter()
            .find(|m| m.id().0.as_ref() == method_id)
            .and_then(|m| crate::api_key::api_key_shape(&agent.name, m))
    }

    /// `authenticate` with an API-key method (see [`AgentClient::api_key_method`]), the key in
    /// `_meta["api-key"]` in the shape the agent reads.
    pub async fn authenticate_with_api_key(&self, method_id: &str, key: &str) -> Result<(), ClientError> {
        let shape = self
            .api_key_method(method_id)
            .ok_or_else(|| ClientError::UnknownAuthMethod(method_id.to_string()))?;
        self.sign_in(method_id, Some(crate::api_key::authenticate_meta(shape, key)))
            .await
    }

    /// `authenticate` (v1), `auth/login` (v2), with `_meta` (an API key's, see `api_key`).
    async fn sign_in(
        &self,
        method_id: &str,
        meta: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Result<(), ClientError> {
        if self.speaks_v2() {
            let request = v2_schema::LoginAuthRequest::new(method_id.to_string()).meta(meta);
            return self.call("auth/login", request).await.map(|_| ());
        }
        let request = AuthenticateRequest::new(method_id.to_string()).meta(meta);
        self.call("authenticate", request).await.map(|_| ())
    }

    /// `logout`, when the agent advertises it.
    pub async fn logout(&self) -> Result<(), ClientError> {
        let supported = self.agent_capabilities().auth.logout.is_some();
        self.require(supported, "logout")?;
        if self.speaks_v2() {
            // v2 requires it of an agent that lists sign-in methods.
            return self
                .call("auth/logout", v2_schema::LogoutAuthRequest::new())
                .await
                .map(|_| ());
        }
        self.call("logout", LogoutRequest::new()).await.map(|_| ())
    }

    fn known(&self, session_id: &str) -> Result<(), ClientError> {
        if self.shared.lock().sessions.contains_key(session_id) {
            Ok(())
        } else {
            Err(ClientError::UnknownSession(session_id.to_string()))
        }
    }
}

/// What an observing connection ([`AgentClient::observe_streams`]) learns from the client that
/// drives the agent: its sessions, and its requests in flight (the context a request-scoped
/// elicitation names).
impl AgentClient {
    /// A session the driving client opened (or loaded) in `cwd`.
    pub fn observe_session(&self, session_id: &str, cwd: &std::path::Path) {
        self.register(session_id, &Workspace::from(cwd), None);
    }

    /// The driving client closed a session: its dialogs go, as for a session of our own.
    pub fn observe_session_closed(&self, session_id: &str) {
        self.end_session(session_id);
    }

    /// The driving client sent request `id` (its JSON text) for `method`.
    pub fn observe_request(&self, id: &str, method: &str) {
        self.shared
            .lock()
            .in_flight
            .insert(id.to_string(), known_method(method));
    }

    /// The agent answered the driving client's request `id`.
    pub fn observe_request_done(&self, id: &str) {
        self.shared.lock().in_flight.remove(id);
    }
}

/// The name an elicitation's `during` shows for a request of another client: ACP's methods
/// a client calls, v1's and v2's, by the SDK's own lists (so a method Porthole learns needs no
/// entry here), anything else as an extension request.
fn known_method(method: &str) -> &'static str {
    static KNOWN: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        let names = |list: serde_json::Value| -> Vec<String> {
            let serde_json::Value::Object(list) = list else {
                return Vec::new();
            };
            list.into_values()
                .filter_map(|name| name.as_str().map(str::to_string))
                .collect()
        };
        let mut known = names(
            serde_json::to_value(agent_client_protocol::v1::schema::AGENT_METHOD_NAMES).unwrap_or_default(),
        );
        known.extend(names(
            serde_json::to_value(v2_schema::AGENT_METHOD_NAMES).unwrap_or_default(),
        ));
        // Porthole's own binding of a method the SDK no longer carries (`models.rs`).
        known.push("session/set_model".into());
        known
    });
    KNOWN
        .iter()
        .find(|m| *m == method)
        .map_or("an extension request", String::as_str)
}

/// The session joins the connection's state: its roots for `fs/*` and terminals, its models.
fn register(shared: &Shared, session_id: &str, workspace: &Workspace, models: Option<&SessionModels>) {
    let mut state = SessionState::new(workspace.roots());
    state.models = models.cloned();
    shared.lock().sessions.insert(session_id.to_string(), state);
}

#[cfg(test)]
mod tests {
    use super::known_method;

    #[test]
    fn a_request_of_another_client_is_named_by_acps_method_lists_of_both_versions() {
        for method in [
            "initialize",
            "session/new",
            "session/set_mode",
            "session/set_model",
            "auth/login",
            "tool_call/cancel",
        ] {
            assert_eq!(known_method(method), method);
        }
        assert_eq!(known_method("_vendor/thing"), "an extension request");
        assert_eq!(known_method("session/new "), "an extension request");
    }
}
