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
//!
//! In three parts:
//! - `routing.rs`: what each line is and where it goes: the editor's lines to the agent
//!   (`initialize` and session requests looked at on the way), the agent's to the editor or to
//!   the app, and the agent's questions the proxy holds until the app answers them.
//! - `app_link.rs`: the link to the app's window: looking for a running app, starting one
//!   when a question waits, the handshake and what the app missed, the app's answers, and the
//!   questions answered `cancel` when it goes.
//! - `agent.rs`: the agent's process (through `porthole-process`): its own process group,
//!   tied to the proxy by the parent-death signal; its stdin; when and how it is stopped (the
//!   editor left, the proxy was signalled), and its exit status as the editor's.
//!
//! This file holds the options, the state routing and the link share (one lock, so what the app
//! is sent keeps the agent's order), and [`run_proxy`], which wires the three together.

mod agent;
mod app_link;
mod routing;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, mpsc};

use crate::launcher::Launcher;
use crate::link::{self, Control};
use crate::mcp_hook::{AppLink, ConnectionsHook, McpConnections};
use crate::questions::Kind;
use agent::AgentInput;

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
    /// Add the person's MCP connections to the editor's session requests (`--connections`):
    /// how they are made (`porthole-proxy-connections`; this crate does not link them).
    pub connections: Option<ConnectionsHook>,
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
            connections: None,
        }
    }
}

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
    /// MCP connections' questions waiting for a link to the app (`mcp_hook.rs`).
    mcp_waiting: usize,
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
    mcp: Option<Arc<dyn McpConnections>>,
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
}

/// Run the proxy between the editor's streams and the agent. Returns the exit code: the
/// agent's, as the editor would have seen it without the proxy.
pub async fn run_proxy<I, O>(opts: ProxyOptions, editor_in: I, editor_out: O) -> i32
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (mut agent, agent_in, agent_out) = match agent::start(&opts.agent) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let (to_agent, agent_rx) = mpsc::channel(256);
    let mcp = opts.connections.as_ref().map(|hook| hook.make(&opts));
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
        mcp.attach(link);
    }
    let writer = tokio::spawn(agent::write_agent(agent_in, agent_rx));
    let manager = tokio::spawn(relay.clone().manage_link());
    let editor_pump = tokio::spawn(routing::pump_editor(relay.clone(), editor_in));
    let agent_pump = tokio::spawn(routing::pump_agent(relay.clone(), agent_out, editor_out));

    let status = agent::until_end(&mut agent, async {
        let _ = editor_pump.await;
    })
    .await;
    // Whatever the agent wrote before it went reaches the editor.
    let _ = tokio::time::timeout(Duration::from_secs(2), agent_pump).await;
    // What the agent started and left running goes with its group.
    agent.kill();
    relay
        .tell_app(Control::AgentExited {
            status: agent::describe(&status),
        })
        .await;
    // Give the link a moment to deliver that before the process ends.
    tokio::time::sleep(Duration::from_millis(50)).await;
    manager.abort();
    writer.abort();
    agent::exit_code(&status)
}

fn line_of(message: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(message.len() + 1);
    line.extend_from_slice(message);
    line.push(b'\n');
    line
}
