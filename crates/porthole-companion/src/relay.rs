//! The proxy: an editor runs it instead of the agent; it runs the agent and relays ACP both
//! ways, line by line, in order, ids untouched.
//!
//! What it changes, and only when it answers the agent's questions (the editor advertised no
//! elicitation, the person chose Porthole in Settings, or `--always`):
//! - the editor's `initialize` gains Porthole's capabilities, merged into its own
//!   (`capabilities.rs`: elicitation, and Gemini CLI's host input); that one line is
//!   re-serialized, every other line keeps its bytes;
//! - the agent's questions (`questions.rs`: `elicitation/create`, Gemini's
//!   `gemini/requestUserInput`, Qwen's questions in `session/request_permission`),
//!   `elicitation/complete` notifications and `$/cancel_request` for those requests go to the
//!   app instead of the editor; the app's answers go back to the agent. When no app can be
//!   had, the agent is told nobody answered (each in its own shape) and the proxy says so once
//!   on stderr.
//!
//! Everything else is passed through: other messages, JSON-RPC batch arrays and anything that
//! is not a JSON object, as they came. The agent's `session/update`s are also copied to the
//! app for its live view (dropped, never waited for, when the app falls behind). Lines over the
//! framing limit stream through unread.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{Notify, mpsc};

use crate::mcp_questions::AppLink;
use porthole_connections::gateway::BoxFuture;

use crate::launcher::Launcher;
use crate::link::{self, Control};
use crate::peek::{SESSION_UPDATE_PREFIX, peek};
use crate::questions::Kind;
use porthole_core::framing::{LineReader, Piece};

#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The agent's program and arguments.
    pub agent: Vec<String>,
    /// Answer elicitations even when the editor advertises its own.
    pub always: bool,
    /// The app's settings file, whose `editorQuestions` says who answers when the editor can
    /// (`preference.rs`; `None`: the editor).
    pub settings_file: Option<PathBuf>,
    /// The app's socket.
    pub socket: PathBuf,
    /// How to start the app when it is not running (`None`: never start it).
    pub launcher: Option<Launcher>,
    /// How long to wait for an app the proxy started.
    pub app_wait: Duration,
    /// How often to look for an app while none is connected (it may be opened later).
    pub retry_every: Duration,
    pub max_line: usize,
    /// Add the person's MCP connections to the editor's session requests (`--connections`).
    pub connections: bool,
    /// The connections file (default: `PORTHOLE_CONNECTIONS_FILE`, else the config folder's).
    pub connections_file: Option<PathBuf>,
}

impl ProxyOptions {
    pub fn new(agent: Vec<String>) -> Self {
        Self {
            agent,
            always: false,
            settings_file: crate::preference::settings_path(),
            socket: crate::socket::socket_path(),
            launcher: Launcher::find(),
            app_wait: Duration::from_secs(20),
            retry_every: Duration::from_secs(3),
            max_line: crate::MAX_LINE_BYTES,
            connections: false,
            connections_file: None,
        }
    }
}

/// Questions held while the app is being reached; beyond this the agent gets `cancel` at once.
const MAX_QUEUED: usize = 64;
/// The editor's requests in flight that are tracked (for request-scoped elicitations).
const MAX_TRACKED: usize = 4096;
/// Lines waiting for the app's socket; the live view's copies are dropped beyond it.
const LINK_CAPACITY: usize = 1024;

/// An editor request the relay follows until the agent answers it.
struct EditorRequest {
    method: String,
    session_id: Option<String>,
    /// The params of session requests (their `cwd` and `sessionId`), else nothing.
    params: Option<Value>,
}

#[derive(Default)]
struct State {
    /// Decided by the editor's `initialize`.
    answering: bool,
    /// The editor answers, and the window is to ask who should from the agent's next session
    /// (Settings: ask once per agent): the app is linked as when answering.
    asking: bool,
    editor_info: Option<Value>,
    agent_init: Option<Value>,
    requests: HashMap<String, EditorRequest>,
    /// The editor's sessions, in the order they opened: (id, cwd).
    sessions: Vec<(String, String)>,
    /// The agent's questions that the app holds, by id.
    held: HashMap<String, Kind>,
    /// Questions waiting for an app: (id, kind, line).
    queued: Vec<(String, Kind, Vec<u8>)>,
    link: Option<mpsc::Sender<Vec<u8>>>,
    /// The proxy started the app once already; it does not do so again.
    app_started: bool,
    /// An app was connected and went away (the user closed it): it is not started again.
    link_lost: bool,
    /// "answered cancel" was said on stderr for the current outage.
    said_unavailable: bool,
    /// MCP connections' questions waiting for a link to the app (`mcp_questions.rs`).
    mcp_waiting: usize,
}

enum AgentInput {
    Bytes(Vec<u8>),
    /// The editor's input ended: close the agent's stdin.
    Close,
}

struct Relay {
    opts: ProxyOptions,
    cwd: String,
    state: Mutex<State>,
    to_agent: mpsc::Sender<AgentInput>,
    link_up: AtomicBool,
    /// Asks the link manager to reach the app now (an elicitation waits).
    wanted: Notify,
    /// Set with `--connections`.
    mcp: Option<crate::connections::ProxyConnections>,
}

impl Relay {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn to_agent(&self, line: Vec<u8>) {
        let _ = self.to_agent.send(AgentInput::Bytes(line)).await;
    }

    /// The agent is told nobody answered question `id` (`cancel` for an elicitation).
    async fn cancel(&self, id: &str, kind: Kind) {
        self.to_agent(kind.undecided_line(id)).await;
    }

    fn link(&self) -> Option<mpsc::Sender<Vec<u8>>> {
        if !self.link_up.load(Ordering::Acquire) {
            return None;
        }
        self.state().link.clone()
    }

    /// A control message to the app, in order with everything else sent to it.
    async fn tell_app(&self, message: Control) {
        if let Some(link) = self.link() {
            let _ = link.send(link::control(&message)).await;
        }
    }

    // ----- editor to agent -----

    async fn from_editor(self: &Arc<Self>, line: &[u8]) {
        let mut rewritten = None;
        if let Some(p) = peek(line)
            && p.is_request()
        {
            let id = p.id_key().unwrap_or_default().to_string();
            let method = p.method().to_string();
            if method == "initialize" && self.on_initialize(p.params.map(|r| r.get())) {
                rewritten = crate::capabilities::merge_into_initialize(line);
            }
            if let Some(mcp) = &self.mcp
                && matches!(
                    method.as_str(),
                    "session/new" | "session/load" | "session/resume" | "session/fork"
                )
            {
                let agent_init = self.state().agent_init.clone();
                rewritten = mcp.add_to(line, agent_init.as_ref()).await;
            }
            let params = method
                .starts_with("session/")
                .then(|| p.params.and_then(|r| serde_json::from_str(r.get()).ok()))
                .flatten();
            let session_id = params
                .as_ref()
                .and_then(|p: &Value| p.get("sessionId"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let tracked = {
                let mut state = self.state();
                let room = state.requests.len() < MAX_TRACKED;
                if room {
                    let request = EditorRequest {
                        method: method.clone(),
                        session_id: session_id.clone(),
                        params,
                    };
                    state.requests.insert(id.clone(), request);
                }
                room
            };
            if tracked {
                self.tell_app(Control::Request {
                    id,
                    method,
                    session_id,
                })
                .await;
            }
        }
        self.to_agent(line_of(rewritten.as_deref().unwrap_or(line))).await;
    }

    /// Decides whether the proxy answers the agent's questions; true when the line must gain
    /// Porthole's capabilities.
    fn on_initialize(&self, params: Option<&str>) -> bool {
        use crate::preference::{WhoAnswers, agent_key, read};
        let params: Value = params
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or(Value::Null);
        // The person's choice is read only when it matters: the editor can ask, `--always` is off.
        let who = if self.opts.always || !crate::capabilities::editor_elicits(&params) {
            WhoAnswers::Porthole
        } else {
            read(self.opts.settings_file.as_deref(), &agent_key(&self.opts.agent))
        };
        let answering = who == WhoAnswers::Porthole;
        let mut state = self.state();
        state.answering = answering;
        state.asking = who == WhoAnswers::Ask;
        state.editor_info = params.get("clientInfo").cloned();
        answering
    }

    // ----- agent to editor -----

    /// What to do with one of the agent's lines; `true` when it goes on to the editor.
    async fn from_agent(self: &Arc<Self>, line: &[u8]) -> bool {
        if line.starts_with(SESSION_UPDATE_PREFIX) {
            self.copy_to_view(line);
            return true;
        }
        let Some(p) = peek(line) else { return true };
        if p.is_response() {
            self.on_agent_response(&p).await;
            return true;
        }
        let answering = self.state().answering;
        if !answering {
            return true;
        }
        if let (Some(id), Some(kind)) = (p.id_key(), Kind::of(p.method(), p.params))
            && is_request_id(id)
        {
            self.take_question(id.to_string(), kind, line).await;
            return false;
        }
        match (p.method(), p.id_key()) {
            ("elicitation/create", _) => {
                // No id, `"id": null`, or an object: not a request anyone can answer. The
                // proxy answers the questions here; the editor is not handed this one.
                tracing::warn!("dropped an elicitation/create without a valid id");
                false
            }
            ("elicitation/complete", None) => {
                if let Some(link) = self.link() {
                    let _ = link.send(link::frame(link::ACP, line)).await;
                }
                false
            }
            ("$/cancel_request", None) => {
                let target = p
                    .params
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .and_then(|v| v.get("requestId").map(Value::to_string));
                match target {
                    Some(id) => !self.withdraw(&id, line).await,
                    None => true,
                }
            }
            ("session/update", None) => {
                self.copy_to_view(line);
                true
            }
            _ => true,
        }
    }

    /// The live view's copy: never waited for; dropped when the app falls behind.
    fn copy_to_view(&self, line: &[u8]) {
        if let Some(link) = self.link() {
            let _ = link.try_send(link::frame(link::ACP, line));
        }
    }

    async fn on_agent_response(&self, p: &crate::peek::Peeked<'_>) {
        let Some(id) = p.id_key() else { return };
        let Some(request) = self.state().requests.remove(id) else {
            return;
        };
        let ok = p.result.is_some() && p.error.is_none();
        let result: Value = p
            .result
            .filter(|_| ok)
            .and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or(Value::Null);
        let params = request.params.unwrap_or(Value::Null);
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let mut messages = Vec::new();
        match request.method.as_str() {
            "initialize" if ok => {
                self.state().agent_init = Some(result.clone());
                // A running app can be linked now (one that starts later is found on a retry).
                self.wanted.notify_one();
            }
            "session/new" | "session/fork" if ok => {
                if let (Some(session_id), Some(cwd)) = (text(&result, "sessionId"), text(&params, "cwd")) {
                    messages.push(self.opened(session_id, cwd));
                }
            }
            "session/load" | "session/resume" if ok => {
                if let (Some(session_id), Some(cwd)) = (text(&params, "sessionId"), text(&params, "cwd")) {
                    messages.push(self.opened(session_id, cwd));
                }
            }
            "session/close" | "session/delete" if ok => {
                if let Some(session_id) = text(&params, "sessionId") {
                    self.state().sessions.retain(|(s, _)| *s != session_id);
                    messages.push(Control::SessionClosed { session_id });
                }
            }
            _ => {}
        }
        messages.push(Control::RequestDone { id: id.to_string() });
        for message in messages {
            self.tell_app(message).await;
        }
    }

    fn opened(&self, session_id: String, cwd: String) -> Control {
        let mut state = self.state();
        state.sessions.retain(|(s, _)| *s != session_id);
        state.sessions.push((session_id.clone(), cwd.clone()));
        Control::Session { session_id, cwd }
    }

    /// One of the agent's questions: to the app, or held until one is reached.
    async fn take_question(self: &Arc<Self>, id: String, kind: Kind, line: &[u8]) {
        enum Next {
            Send(mpsc::Sender<Vec<u8>>),
            Wait,
            Refuse,
        }
        let next = {
            let mut state = self.state();
            match state
                .link
                .clone()
                .filter(|_| self.link_up.load(Ordering::Acquire))
            {
                Some(link) => {
                    state.held.insert(id.clone(), kind);
                    Next::Send(link)
                }
                None if state.queued.len() < MAX_QUEUED => {
                    state.queued.push((id.clone(), kind, line.to_vec()));
                    Next::Wait
                }
                None => Next::Refuse,
            }
        };
        let link = match next {
            Next::Send(link) => Some(link),
            Next::Wait => None,
            Next::Refuse => {
                tracing::warn!("{MAX_QUEUED} questions already wait for the app; {id} answered cancel");
                return self.cancel(&id, kind).await;
            }
        };
        match link {
            Some(link) => {
                let lost = link.send(link::frame(link::ACP, line)).await.is_err();
                if lost && self.state().held.remove(&id).is_some() {
                    // The link went between the check and the send; its closing did not see this one.
                    self.cancel(&id, kind).await;
                }
            }
            None => self.wanted.notify_one(),
        }
    }

    /// `$/cancel_request` for request `id`: true when it was one of ours (not for the editor).
    async fn withdraw(&self, id: &str, line: &[u8]) -> bool {
        let (held, queued) = {
            let mut state = self.state();
            let queued = state.queued.iter().position(|(q, ..)| q == id);
            let queued = queued.map(|i| state.queued.remove(i).1);
            (state.held.contains_key(id), queued)
        };
        if let Some(kind) = queued {
            self.cancel(id, kind).await;
            return true;
        }
        if held {
            // The app dismisses its dialog and answers `cancel` itself.
            if let Some(link) = self.link() {
                let _ = link.send(link::frame(link::ACP, line)).await;
            }
            return true;
        }
        false
    }

    // ----- the app -----

    /// Keeps a link to the app while the proxy answers elicitations: looks for a running app
    /// now and then, and starts one when an elicitation waits and none runs.
    async fn manage_link(self: Arc<Self>) {
        loop {
            let wanted = tokio::select! {
                _ = self.wanted.notified() => true,
                _ = tokio::time::sleep(self.opts.retry_every) => false,
            };
            // The app is linked once the agent answered `initialize` (it names the agent), or
            // before when an elicitation waits: the agent may ask during `initialize` and not
            // answer it until it has its answer.
            // An MCP connection's question needs the app whoever answers the agent's own.
            let ready = {
                let state = self.state();
                let mcp = state.mcp_waiting > 0;
                (state.answering || state.asking || mcp)
                    && (state.agent_init.is_some() || !state.queued.is_empty() || mcp)
            };
            if self.link_up.load(Ordering::Acquire) || !ready {
                continue;
            }
            let waiting = {
                let state = self.state();
                !state.queued.is_empty() || state.mcp_waiting > 0
            };
            match self.try_link().await {
                Ok(()) => continue,
                Err(LinkError::Refused(reason)) => {
                    self.unavailable(&reason).await;
                    continue;
                }
                Err(LinkError::NotRunning) if waiting && wanted => {}
                Err(LinkError::NotRunning) => {
                    if waiting {
                        self.wanted.notify_one();
                    }
                    continue;
                }
            }
            // An elicitation waits and no app runs: start one, once.
            let start = {
                let mut state = self.state();
                let allowed = !state.app_started && !state.link_lost;
                state.app_started |= allowed;
                allowed
            };
            let why = match (&self.opts.launcher, start) {
                (_, false) => "Porthole was closed".to_string(),
                (None, true) => "Porthole's app was not found (set PORTHOLE_APP)".to_string(),
                (Some(launcher), true) => match launcher.start() {
                    Err(e) => e,
                    Ok(()) => match self.wait_for_app().await {
                        Ok(()) => continue,
                        Err(e) => e,
                    },
                },
            };
            self.unavailable(&why).await;
        }
    }

    async fn wait_for_app(self: &Arc<Self>) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + self.opts.app_wait;
        loop {
            match self.try_link().await {
                Ok(()) => return Ok(()),
                Err(LinkError::Refused(reason)) => return Err(reason),
                Err(LinkError::NotRunning) if tokio::time::Instant::now() >= deadline => {
                    return Err(format!(
                        "Porthole did not start within {} s",
                        self.opts.app_wait.as_secs()
                    ));
                }
                Err(LinkError::NotRunning) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// No app: every waiting elicitation is answered `cancel`, said once on stderr.
    async fn unavailable(&self, why: &str) {
        let (queued, say) = {
            let mut state = self.state();
            let queued = std::mem::take(&mut state.queued);
            let say = !queued.is_empty() && !state.said_unavailable;
            state.said_unavailable |= say;
            (queued, say)
        };
        if say {
            eprintln!(
                "porthole proxy: {why}; the agent's questions are answered `cancel` until Porthole runs (the session goes on)"
            );
        }
        for (id, kind, _) in queued {
            self.cancel(&id, kind).await;
        }
    }

    /// Connect, shake hands, tell the app what it missed, and hand it what waits.
    async fn try_link(self: &Arc<Self>) -> Result<(), LinkError> {
        let stream = crate::socket::connect(&self.opts.socket)
            .await
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied => LinkError::Refused(e.to_string()),
                _ => LinkError::NotRunning,
            })?;
        let (read, mut write) = stream.into_split();
        let mut reader = LineReader::new(read, self.opts.max_line);
        let hello = serde_json::to_vec(&link::Hello::ours()).unwrap_or_default();
        write
            .write_all(&line_of(&hello))
            .await
            .map_err(|_| LinkError::NotRunning)?;
        let answer = tokio::time::timeout(Duration::from_secs(5), reader.next()).await;
        match answer {
            Ok(Ok(Some(Piece::Line(line)))) => {
                link::check_welcome(line).map_err(LinkError::Refused)?;
            }
            _ => return Err(LinkError::Refused("the app did not answer the handshake".into())),
        }

        let (tx, rx) = mpsc::channel::<Vec<u8>>(LINK_CAPACITY);
        // What the app missed, then the waiting elicitations, in this order, before anything
        // else can be sent on the link (the state lock is held until the link is set).
        let queued = {
            let mut state = self.state();
            let mut first = vec![link::control(&Control::Relay {
                editor: state.editor_info.clone(),
                agent_command: self.opts.agent.clone(),
                cwd: self.cwd.clone(),
                proxy_pid: std::process::id(),
                ask_who_answers: state
                    .asking
                    .then(|| crate::preference::agent_key(&self.opts.agent)),
            })];
            // Before the agent's answer, the app gets a bare one: it then names the agent by
            // its command, and learns no capability it would not see anyway.
            let result = (state.agent_init.clone()).unwrap_or_else(|| json!({"protocolVersion": 1}));
            first.push(link::control(&Control::AgentInitialized { result }));
            for (session_id, cwd) in &state.sessions {
                first.push(link::control(&Control::Session {
                    session_id: session_id.clone(),
                    cwd: cwd.clone(),
                }));
            }
            for (id, r) in &state.requests {
                first.push(link::control(&Control::Request {
                    id: id.clone(),
                    method: r.method.clone(),
                    session_id: r.session_id.clone(),
                }));
            }
            let queued = std::mem::take(&mut state.queued);
            for (id, kind, line) in &queued {
                state.held.insert(id.clone(), *kind);
                first.push(link::frame(link::ACP, line));
            }
            for line in first {
                // The channel is new and empty: these fit unless there are very many.
                if let Err(mpsc::error::TrySendError::Full(line)) = tx.try_send(line) {
                    let tx = tx.clone();
                    tokio::spawn(async move { tx.send(line).await });
                }
            }
            state.link = Some(tx);
            state.said_unavailable = false;
            self.link_up.store(true, Ordering::Release);
            queued.len()
        };
        tracing::info!("linked to the app ({queued} questions were waiting)");
        tokio::spawn(write_link(write, rx));
        let this = self.clone();
        tokio::spawn(async move { this.read_link(reader).await });
        Ok(())
    }

    /// The app's answers go to the agent; when the app goes, what it held is answered `cancel`.
    async fn read_link(self: Arc<Self>, mut reader: LineReader<tokio::net::unix::OwnedReadHalf>) {
        loop {
            match reader.next().await {
                Ok(Some(Piece::Line(line))) if line.first() == Some(&link::ACP) => {
                    let message = &line[1..];
                    let id = peek(message)
                        .filter(|p| p.is_response())
                        .and_then(|p| p.id_key().map(str::to_string));
                    match id {
                        Some(id) if self.state().held.remove(&id).is_some() => {
                            self.to_agent(line_of(message)).await
                        }
                        _ => tracing::debug!("the app sent a line that answers nothing held: dropped"),
                    }
                }
                Ok(Some(Piece::Line(line))) if line.first() == Some(&link::CONTROL) => {
                    match serde_json::from_slice::<link::AppControl>(&line[1..]) {
                        Ok(link::AppControl::McpAnswer { id, result, error }) => {
                            if let Some(mcp) = &self.mcp {
                                let answer = result
                                    .ok_or_else(|| error.unwrap_or_else(|| "Porthole sent no answer".into()));
                                mcp.questions().answered(id, answer);
                            }
                        }
                        Err(e) => tracing::debug!("unknown control message from the app ({e}): dropped"),
                    }
                }
                Ok(Some(_)) => tracing::debug!("unexpected line from the app: dropped"),
                Ok(None) | Err(_) => break,
            }
        }
        if let Some(mcp) = &self.mcp {
            mcp.questions().link_lost();
        }
        let held: Vec<(String, Kind)> = {
            let mut state = self.state();
            self.link_up.store(false, Ordering::Release);
            state.link = None;
            state.link_lost = true;
            // This line announces the outage; the agent's next questions are not announced again.
            state.said_unavailable = true;
            state.held.drain().collect()
        };
        let waiting = match held.len() {
            0 => String::new(),
            n => format!(" ({n} waiting now)"),
        };
        eprintln!(
            "porthole proxy: Porthole closed; the agent's questions are answered `cancel` until Porthole runs{waiting} (the session goes on)"
        );
        for (id, kind) in held {
            self.cancel(&id, kind).await;
        }
    }
}

/// How the connections' questions reach the app (`mcp_questions.rs`).
impl AppLink for Relay {
    fn reach(&self) -> BoxFuture<'_, Result<mpsc::Sender<Vec<u8>>, String>> {
        Box::pin(async move {
            if let Some(link) = self.link() {
                return Ok(link);
            }
            self.state().mcp_waiting += 1;
            self.wanted.notify_one();
            // The app may have to be started: its wait, and a little for the handshake.
            let deadline = tokio::time::Instant::now() + self.opts.app_wait + Duration::from_secs(5);
            let link = loop {
                if let Some(link) = self.link() {
                    break Ok(link);
                }
                if tokio::time::Instant::now() >= deadline {
                    break Err(format!(
                        "no Porthole app answered on {} within {} s",
                        self.opts.socket.display(),
                        (self.opts.app_wait + Duration::from_secs(5)).as_secs()
                    ));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            };
            self.state().mcp_waiting -= 1;
            link
        })
    }

    fn current(&self) -> Option<mpsc::Sender<Vec<u8>>> {
        self.link()
    }

    fn session(&self) -> Option<String> {
        self.state().sessions.last().map(|(id, _)| id.clone())
    }
}

enum LinkError {
    NotRunning,
    Refused(String),
}

async fn write_link(mut write: tokio::net::unix::OwnedWriteHalf, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = rx.recv().await {
        if write.write_all(&line).await.is_err() {
            break;
        }
    }
}

fn line_of(message: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(message.len() + 1);
    line.extend_from_slice(message);
    line.push(b'\n');
    line
}

/// A JSON-RPC request id as the spec allows it: a number or a string (`null` is not one).
fn is_request_id(id: &str) -> bool {
    id.starts_with('"') || id.starts_with(|c: char| c == '-' || c.is_ascii_digit())
}

/// Run the proxy between the editor's streams and the agent. Returns the exit code: the
/// agent's, as the editor would have seen it without the proxy.
pub async fn run_proxy<I, O>(opts: ProxyOptions, editor_in: I, editor_out: O) -> i32
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let Some((program, args)) = opts.agent.split_first() else {
        eprintln!("porthole proxy: no agent command (usage: porthole proxy -- AGENT [ARGS...])");
        return 2;
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Its own group, so its children go with it; and SIGTERM if the proxy is killed (its
    // parent-death signal: this runs on the proxy's one thread, see `cli::main`).
    let mut agent = match porthole_process::spawn(command, Some(porthole_process::Signal::Terminate)) {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("porthole proxy: cannot start the agent `{program}`: {e}");
            return 127;
        }
    };
    let child = agent.child_mut();
    let (Some(agent_in), Some(agent_out)) = (child.stdin.take(), child.stdout.take()) else {
        return 1;
    };

    let (to_agent, agent_rx) = mpsc::channel(256);
    let mcp = opts.connections.then(|| {
        let over_agent = crate::preference::porthole_answers_mcp(opts.settings_file.as_deref());
        crate::connections::ProxyConnections::new(opts.connections_file.clone(), over_agent)
    });
    let relay = Arc::new(Relay {
        cwd: std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        opts,
        state: Mutex::new(State::default()),
        to_agent,
        link_up: AtomicBool::new(false),
        wanted: Notify::new(),
        mcp,
    });
    if let Some(mcp) = &relay.mcp {
        let weak = Arc::downgrade(&relay);
        let link: std::sync::Weak<dyn AppLink> = weak;
        mcp.questions().attach(link);
    }
    let writer = tokio::spawn(write_agent(agent_in, agent_rx));
    let manager = tokio::spawn(relay.clone().manage_link());
    let editor_pump = {
        let relay = relay.clone();
        let max = relay.opts.max_line;
        tokio::spawn(async move {
            let mut reader = LineReader::new(editor_in, max);
            while let Ok(Some(piece)) = reader.next().await {
                match piece {
                    Piece::Line(line) => relay.from_editor(line).await,
                    Piece::Oversized { chunk, end } => {
                        let mut bytes = chunk.to_vec();
                        if end {
                            bytes.push(b'\n');
                        }
                        relay.to_agent(bytes).await;
                    }
                }
            }
            let _ = relay.to_agent.send(AgentInput::Close).await;
        })
    };
    let agent_pump = tokio::spawn(pump_agent(relay.clone(), agent_out, editor_out));

    // The editor went away (its input ended): the agent gets its stdin closed and a moment to
    // exit, then its group is stopped. The agent exiting ends the relay.
    enum End {
        Exited(std::io::Result<std::process::ExitStatus>),
        /// Stop the agent's group, SIGKILL after this long.
        Stop(Duration),
    }
    let end = tokio::select! {
        status = agent.wait() => End::Exited(status),
        _ = async {
            let _ = editor_pump.await;
            tokio::time::sleep(EOF_GRACE).await;
        } => End::Stop(EXIT_GRACE - EOF_GRACE),
        _ = terminated() => End::Stop(EXIT_GRACE),
    };
    let status = match end {
        End::Exited(status) => status,
        // SIGTERM to the agent's group, SIGKILL after `grace`.
        End::Stop(grace) => agent.stop(grace).await,
    };
    // Whatever the agent wrote before it went reaches the editor.
    let _ = tokio::time::timeout(Duration::from_secs(2), agent_pump).await;
    agent.kill();
    let status_text = describe(&status);
    relay.tell_app(Control::AgentExited { status: status_text }).await;
    // Give the link a moment to deliver that before the process ends.
    tokio::time::sleep(Duration::from_millis(50)).await;
    manager.abort();
    writer.abort();
    match status {
        Ok(s) => s
            .code()
            .unwrap_or_else(|| 128 + std::os::unix::process::ExitStatusExt::signal(&s).unwrap_or(0)),
        Err(_) => 1,
    }
}

async fn pump_agent<R, O>(relay: Arc<Relay>, agent_out: R, editor_out: O)
where
    R: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut reader = LineReader::new(agent_out, relay.opts.max_line);
    let mut out = BufWriter::with_capacity(64 * 1024, editor_out);
    // After the editor's stdout fails the agent's output is still read (so it never blocks on
    // its pipe), and dropped.
    let mut editor_gone = false;
    while let Ok(Some(piece)) = reader.next().await {
        let (bytes, newline) = match piece {
            Piece::Line(line) => {
                if !relay.from_agent(line).await {
                    continue;
                }
                (line, true)
            }
            Piece::Oversized { chunk, end } => (chunk, end),
        };
        if !editor_gone {
            editor_gone =
                out.write_all(bytes).await.is_err() || (newline && out.write_all(b"\n").await.is_err());
        }
        if !reader.has_buffered() && !editor_gone {
            editor_gone = out.flush().await.is_err();
        }
    }
    let _ = out.flush().await;
    let _ = out.shutdown().await;
}

async fn write_agent(agent_in: tokio::process::ChildStdin, mut rx: mpsc::Receiver<AgentInput>) {
    let mut agent_in = BufWriter::new(agent_in);
    while let Some(input) = rx.recv().await {
        match input {
            AgentInput::Bytes(bytes) => {
                if agent_in.write_all(&bytes).await.is_err() {
                    break;
                }
                if rx.is_empty() && agent_in.flush().await.is_err() {
                    break;
                }
            }
            AgentInput::Close => break,
        }
    }
    let _ = agent_in.flush().await;
    let _ = agent_in.shutdown().await;
}

async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}

/// How long an agent has to go once it is asked to (the docs' "3 s"): when the editor left,
/// counted from the end of its input, SIGTERM at [`EOF_GRACE`] and SIGKILL at the end; when the
/// proxy is stopped, from SIGTERM. An agent that ignores both is gone in 3 s, not 6.
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// After the editor's input ended: the agent's own time to exit on EOF, before SIGTERM.
const EOF_GRACE: Duration = Duration::from_secs(2);

fn describe(status: &std::io::Result<std::process::ExitStatus>) -> String {
    match status {
        Ok(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(s)) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            _ => "exited".into(),
        },
        Err(e) => format!("could not wait for the agent: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the proxy over in-memory pipes with `script` (sh) as the agent and no app to be
    /// had; the editor writes `editor_lines`, then (`None`) leaves at once or (`Some(())`)
    /// stays until the agent's output ended. Returns what the editor received and how long
    /// the proxy ran.
    async fn proxy_with(script: &str, editor_lines: &[&str], stay: Option<()>) -> (Vec<Value>, Duration) {
        let (lines, took) = proxy_raw(script, editor_lines, stay, None).await;
        let seen = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        (seen, took)
    }

    /// [`proxy_with`], with the editor's lines as the bytes they came in, and the app's
    /// settings file holding `settings` (none: no file).
    async fn proxy_raw(
        script: &str,
        editor_lines: &[&str],
        stay: Option<()>,
        settings: Option<&str>,
    ) -> (Vec<String>, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = ProxyOptions::new(vec!["sh".into(), "-c".into(), script.into()]);
        opts.settings_file = Some(dir.path().join("settings.json"));
        if let Some(settings) = settings {
            std::fs::write(dir.path().join("settings.json"), settings).unwrap();
        }
        opts.socket = dir.path().join("no-app.sock");
        opts.launcher = None;
        opts.retry_every = Duration::from_millis(50);
        let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
        let (proxy_out, mut from_proxy) = tokio::io::duplex(1 << 16);
        for line in editor_lines {
            editor.write_all(line.as_bytes()).await.unwrap();
            editor.write_all(b"\n").await.unwrap();
        }
        let editor = stay.map(|()| editor);
        let t = std::time::Instant::now();
        let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
        let mut out = Vec::new();
        let read = async {
            use tokio::io::AsyncReadExt;
            from_proxy.read_to_end(&mut out).await.unwrap();
        };
        // The editor's input stays open until the agent's output ended (the editor then goes).
        tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .expect("the proxy's output ended within 20 s");
        drop(editor);
        tokio::time::timeout(Duration::from_secs(20), proxy)
            .await
            .unwrap()
            .unwrap();
        let lines = String::from_utf8(out).unwrap();
        (lines.lines().map(str::to_string).collect(), t.elapsed())
    }

    const EDITOR_INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

    /// `--connections`: the editor's `session/new` reaches the agent with the person's
    /// connections beside the editor's own servers (the editor's name wins), a remote one at
    /// the proxy's gateway on loopback.
    #[tokio::test]
    async fn connections_join_the_editors_session_requests() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("connections.json");
        std::fs::write(
            &file,
            r#"{"connections": {"tracker": {"url": "http://127.0.0.1:9/mcp"},
                "files": {"command": "/bin/cat"}, "mine": {"command": "/bin/true"},
                "codex-only": {"command": "/bin/true", "agents": ["codex"]}}}"#,
        )
        .unwrap();
        let seen = dir.path().join("agent-saw.json");
        let script = format!(
            r#"read init; echo '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1,"agentCapabilities":{{"mcpCapabilities":{{"http":true}}}}}}}}'
               read new; printf '%s\n' "$new" > {seen}; echo '{{"jsonrpc":"2.0","id":1,"result":{{"sessionId":"s1"}}}}'"#,
            seen = seen.display()
        );
        let mut opts = ProxyOptions::new(vec!["sh".into(), "-c".into(), script]);
        opts.socket = dir.path().join("no-app.sock");
        opts.launcher = None;
        opts.connections = true;
        opts.connections_file = Some(file);
        let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
        let (proxy_out, from_proxy) = tokio::io::duplex(1 << 16);
        let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
        let mut answers = BufReader::new(from_proxy).lines();
        editor
            .write_all(format!("{EDITOR_INIT}\n").as_bytes())
            .await
            .unwrap();
        answers.next_line().await.unwrap().unwrap();
        let new = r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[{"name":"mine","command":"/usr/bin/editors-own","args":[],"env":[]}]}}"#;
        editor.write_all(format!("{new}\n").as_bytes()).await.unwrap();
        answers.next_line().await.unwrap().unwrap();
        drop(editor);
        let _ = tokio::time::timeout(Duration::from_secs(20), proxy).await;

        let request: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
        let servers = request["params"]["mcpServers"].as_array().unwrap();
        let names: Vec<&str> = servers.iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["mine", "tracker", "files"], "{servers:?}");
        assert_eq!(servers[0]["command"], "/usr/bin/editors-own");
        assert_eq!(servers[1]["type"], "http");
        assert!(
            servers[1]["url"]
                .as_str()
                .unwrap()
                .starts_with("http://127.0.0.1:")
        );
        assert_ne!(
            servers[1]["url"], "http://127.0.0.1:9/mcp",
            "the remote server goes through the gateway"
        );
        assert_eq!(servers[2]["command"], "/bin/cat");
    }

    /// An agent that asks before it answers `initialize` and answers it only then (issue 32:
    /// the question waited for the agent's `initialize` answer, which waited for the question).
    /// With no app to be had it gets `cancel`; the editor gets its answer, and no question.
    #[tokio::test]
    async fn an_elicitation_during_initialize_is_answered_without_the_agents_init() {
        let script = r#"read -r init
printf '%s\n' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}'
read -r answer
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"got":%s}}}\n' "$answer""#;
        let (seen, _) = proxy_with(script, &[EDITOR_INIT], Some(())).await;
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0]["id"], 0);
        assert_eq!(
            seen[0]["result"]["_meta"]["got"]["result"]["action"], "cancel",
            "{seen:?}"
        );
    }

    /// `elicitation/create` with `"id": null`, with no id or with an object id is not a request
    /// anyone can answer: it never reaches the editor, which advertised no elicitation.
    #[tokio::test]
    async fn malformed_elicitation_requests_never_reach_the_editor() {
        let script = r#"read -r init
for id in '"id":null,' '' '"id":{"a":1},'; do
  printf '{"jsonrpc":"2.0",%s"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}\n' "$id"
done
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'"#;
        let (seen, _) = proxy_with(script, &[EDITOR_INIT], Some(())).await;
        assert_eq!(
            seen,
            vec![json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}})]
        );
    }

    /// The editor leaves and the agent ignores both EOF and SIGTERM: it is killed 3 s after
    /// the editor's input ended, as docs/companion.md says (issue 32: 3 s + 3 s).
    #[tokio::test]
    async fn an_agent_that_ignores_eof_and_sigterm_is_gone_in_3_s() {
        let script = "trap '' TERM; while :; do sleep 0.1; done";
        let (_, took) = proxy_with(script, &[], None).await;
        assert!(took >= Duration::from_millis(2900), "{took:?}");
        assert!(took < Duration::from_millis(4500), "{took:?}");
    }

    /// The agent's answer to `initialize` carries what it read (`_meta.got`): the editor's
    /// line with Porthole's capabilities merged in, the editor's own fields kept.
    const ECHO_INIT: &str = r#"read -r init
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"got":%s}}}\n' "$init""#;

    #[tokio::test]
    async fn the_agent_reads_the_editors_capabilities_with_portholes_merged_in() {
        let editor_init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"auth":{"terminal":true},"_meta":{"editor.thing":7},"nextVersionField":[1]}}}"#;
        let (seen, _) = proxy_with(ECHO_INIT, &[editor_init], Some(())).await;
        let caps = &seen[0]["result"]["_meta"]["got"]["params"]["clientCapabilities"];
        assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}), "{caps}");
        assert_eq!(caps["auth"], json!({"terminal": true}));
        assert_eq!(caps["nextVersionField"], json!([1]));
        assert_eq!(caps["_meta"]["editor.thing"], 7);
        assert_eq!(caps["_meta"]["geminiCli.hostInput"]["requestUserInput"], true);
        // An editor with elicitation of its own answers itself: its line reaches the agent as it was.
        let own = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
        let (seen, _) = proxy_with(ECHO_INIT, &[own], Some(())).await;
        assert_eq!(
            seen[0]["result"]["_meta"]["got"],
            serde_json::from_str::<Value>(own).unwrap()
        );
    }

    /// Batch arrays (ACP v2's draft allows them on stdio) and envelopes of no known shape go
    /// both ways byte for byte; the proxy does not look inside a batch.
    #[tokio::test]
    async fn batches_and_unknown_envelopes_pass_untouched_both_ways() {
        let editor_batch = r#"[{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{}} ,{"jsonrpc":"2.0","method":"x/y"}]"#;
        let editor_odd = r#"{"jsonrpc":"3.0","envelope":{"inner":true},"method":7}"#;
        let agent_batch = r#"[{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form"}},{"jsonrpc":"2.0","method":"session/update","params":{}}]"#;
        let agent_odd = r#"{"jsonrpc":"2.0", "id":9, "weird":{"a":[1,2]}, "result":null}"#;
        let script = format!(
            r#"read -r init
read -r batch
read -r odd
printf '%s\n' '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1}}}}'
printf '%s\n' "$batch" "$odd" '{agent_batch}' '{agent_odd}'"#
        );
        let (lines, _) = proxy_raw(&script, &[EDITOR_INIT, editor_batch, editor_odd], Some(()), None).await;
        assert_eq!(lines.len(), 5, "{lines:#?}");
        assert_eq!(lines[1], editor_batch);
        assert_eq!(lines[2], editor_odd);
        assert_eq!(lines[3], agent_batch);
        assert_eq!(lines[4], agent_odd);
    }

    /// With no app to be had, Gemini's host input and Qwen's questions are answered as each
    /// reads "nobody answered", and never reach the editor; a plain permission request does.
    #[tokio::test]
    async fn gemini_and_qwen_questions_are_the_proxys_and_answered_in_their_own_shape() {
        let qwen = porthole_elicitation::form::qwen::example_request(
            "s",
            "c",
            json!([{"question": "Which?", "options": [{"label": "A"}]}]),
        );
        let qwen =
            json!({"jsonrpc": "2.0", "id": "qwen", "method": "session/request_permission", "params": qwen});
        let gemini = porthole_elicitation::form::gemini::example_ask_request("s");
        let gemini =
            json!({"jsonrpc": "2.0", "id": 7, "method": "_gemini/requestUserInput", "params": gemini});
        let permission = r#"{"jsonrpc":"2.0","id":8,"method":"session/request_permission","params":{"sessionId":"s","options":[],"toolCall":{"toolCallId":"t"}}}"#;
        let script = format!(
            r#"read -r init
printf '%s\n' '{qwen}' '{gemini}' '{permission}'
read -r a
read -r b
printf '{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":1,"_meta":{{"got":[%s,%s]}}}}}}\n' "$a" "$b""#
        );
        let (seen, _) = proxy_with(&script, &[EDITOR_INIT], Some(())).await;
        assert_eq!(seen.len(), 2, "{seen:#?}");
        assert_eq!(seen[0]["id"], 8, "the plain permission reaches the editor");
        let got = seen[1]["result"]["_meta"]["got"].as_array().unwrap();
        let by_id = |id: Value| got.iter().find(|a| a["id"] == id).unwrap()["result"].clone();
        assert_eq!(by_id(json!("qwen")), json!({"outcome": {"outcome": "cancelled"}}));
        assert_eq!(by_id(json!(7)), json!({"outcome": "cancelled"}));
    }

    /// An editor that elicits answers the agent's questions itself, unless the person chose
    /// Porthole in Settings: then the question goes to Porthole (here none runs: `cancel`) and
    /// the agent learns of host input too.
    #[tokio::test]
    async fn the_person_chooses_who_answers_when_the_editor_can() {
        let eliciting = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
        let script = r#"read -r init
printf '%s
' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}'
read -r answer
printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"_meta":{"init":%s,"got":%s}}}
' "$init" "$answer""#;
        let porthole = r#"{"editorQuestions": "porthole"}"#;
        let (lines, _) = proxy_raw(script, &[eliciting], Some(()), Some(porthole)).await;
        let seen: Vec<Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(seen.len(), 1, "the editor gets no question: {seen:#?}");
        let meta = &seen[0]["result"]["_meta"];
        assert_eq!(meta["got"]["result"]["action"], "cancel");
        let caps = &meta["init"]["params"]["clientCapabilities"];
        assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
        assert_eq!(caps["_meta"]["geminiCli.hostInput"]["requestUserInput"], true);

        // The editor's choice (and the default, no file): the question is the editor's.
        for settings in [Some(r#"{"editorQuestions": "editor"}"#), None] {
            let editor_answers = r#"read -r init
printf '%s
' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}'"#;
            let (lines, _) = proxy_raw(editor_answers, &[eliciting], Some(()), settings).await;
            assert_eq!(lines.len(), 1, "{settings:?}: {lines:?}");
            assert!(lines[0].contains("elicitation/create"), "{lines:?}");
        }
    }

    /// "Ask once per agent", not yet answered for this agent: the editor answers this session
    /// (the question reaches it), and the proxy links to the app saying whom to ask about.
    #[tokio::test]
    async fn asking_once_per_agent_links_the_app_and_leaves_the_question_to_the_editor() {
        use tokio::io::{AsyncBufReadExt, BufReader};
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        std::fs::write(
            &settings,
            r#"{"editorQuestions": "ask", "editorQuestionsByAgent": {"other": "porthole"}}"#,
        )
        .unwrap();
        let run = dir.path().join("run");
        crate::socket::prepare_dir(&run).unwrap();
        let app = tokio::net::UnixListener::bind(run.join("app.sock")).unwrap();
        let script = r#"read -r init
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'
printf '%s\n' '{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}'
read -r done"#;
        let agent: Vec<String> = vec!["sh".into(), "-c".into(), script.into()];
        let mut opts = ProxyOptions::new(agent.clone());
        opts.socket = run.join("app.sock");
        opts.launcher = None;
        opts.retry_every = Duration::from_millis(50);
        opts.settings_file = Some(settings);
        let (mut editor, proxy_in) = tokio::io::duplex(1 << 16);
        let (proxy_out, from_proxy) = tokio::io::duplex(1 << 16);
        let proxy = tokio::spawn(run_proxy(opts, proxy_in, proxy_out));
        let eliciting = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientCapabilities":{"elicitation":{"form":{}}}}}"#;
        editor
            .write_all(format!("{eliciting}\n").as_bytes())
            .await
            .unwrap();
        let mut seen = BufReader::new(from_proxy).lines();
        assert!(seen.next_line().await.unwrap().unwrap().contains(r#""id":0"#));
        let question = seen.next_line().await.unwrap().unwrap();
        assert!(
            question.contains("elicitation/create"),
            "the editor answers: {question}"
        );

        let (stream, _) = tokio::time::timeout(Duration::from_secs(10), app.accept())
            .await
            .expect("the proxy links to the app to have the person asked")
            .unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        link::check_hello(lines.next_line().await.unwrap().unwrap().as_bytes()).unwrap();
        let mut welcome = serde_json::to_vec(&link::Welcome::ours()).unwrap();
        welcome.push(b'\n');
        write.write_all(&welcome).await.unwrap();
        let relay = lines.next_line().await.unwrap().unwrap();
        let Ok(Control::Relay { ask_who_answers, .. }) = serde_json::from_str(&relay[1..]) else {
            panic!("{relay}")
        };
        assert_eq!(ask_who_answers, Some(crate::preference::agent_key(&agent)));
        drop(editor);
        let _ = tokio::time::timeout(Duration::from_secs(20), proxy).await;
    }

    #[test]
    fn request_ids_are_numbers_or_strings() {
        for id in ["0", "-3", "12.5", r#""abc""#] {
            assert!(is_request_id(id), "{id}");
        }
        for id in ["null", "{}", "[1]", "true"] {
            assert!(!is_request_id(id), "{id}");
        }
    }
}
