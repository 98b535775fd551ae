//! Sessions an editor drives through `porthole proxy`: the app listens on the companion
//! socket, and each proxy's link becomes one more connection in the app's one list of
//! connections. Core observes it (`AgentClient::observe_streams`) over the agent's messages the
//! proxy relays, so a proxied elicitation meets the same rules, dialogs, consent history and
//! domain memory as one of the app's own agents; the window shows its sessions read-only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use porthole_companion::link::{self, AppControl, Control, Welcome};
use porthole_core::acp::v1::schema::InitializeResponse;
use porthole_core::events::{Event, McpAsker};
use porthole_core::framing::{LineReader, Piece};
use porthole_core::{AgentClient, ClientOptions};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;

use super::{Backend, Conn, SessionView};

/// Connection ids of proxied agents start with this; the rest (before `#`) names the agent in
/// the consent history, so domain memory carries over from one editor session to the next.
pub(crate) const PREFIX: &str = "proxied:";

/// What the window shows of a proxied connection.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct ProxyView {
    /// The editor's `clientInfo` name (title if it gave one), or "your editor".
    pub editor: String,
    pub editor_version: Option<String>,
    pub agent_command: Vec<String>,
    /// Where the proxy runs (the editor's project, usually).
    pub cwd: String,
    pub proxy_pid: u32,
    /// The window is to ask who answers this agent's questions from its next session (the
    /// person chose "ask once per agent" and has not answered for it): the agent's key in the
    /// settings' `editorQuestionsByAgent`.
    pub ask_who_answers: Option<String>,
}

/// The id the consent history knows a connection's agent by.
pub(crate) fn history_agent_id(agent_id: &str) -> &str {
    match agent_id.strip_prefix(PREFIX) {
        Some(_) => agent_id.split('#').next().unwrap_or(agent_id),
        None => agent_id,
    }
}

impl Backend {
    /// Take proxies on the companion socket at `path`. `Ok(false)`: another running Porthole
    /// of this user takes them.
    /// A socket that cannot be used (a directory of another user, a symlink) is an `Err`, also
    /// shown in the window (the snapshot's `companionError`): editors' proxies cannot reach it.
    pub async fn serve_companion(&self, path: PathBuf) -> Result<bool, String> {
        let listener = match porthole_companion::socket::listen(&path).await {
            Ok(listener) => listener,
            Err(e) => {
                let problem = format!("companion socket {}: {e}", path.display());
                tracing::warn!("{problem}: proxied sessions are off");
                let shown = porthole_core::logging::with_log_hint(format!(
                    "Editors cannot reach Porthole through `porthole proxy`: {problem}"
                ));
                *self.0.companion_problem.lock().unwrap_or_else(|p| p.into_inner()) = Some(shown);
                self.push_snapshot();
                return Err(problem);
            }
        };
        let Some(listener) = listener else {
            tracing::info!("another Porthole takes the proxies at {}", path.display());
            return Ok(false);
        };
        tracing::info!("taking proxies at {}", path.display());
        let this = self.clone();
        self.spawn(async move {
            let _remove_on_exit = RemoveOnDrop(path);
            let mut closing = this.0.closing.subscribe();
            loop {
                let accepted = tokio::select! {
                    accepted = listener.accept() => accepted,
                    _ = closing.wait_for(|c| *c) => break,
                };
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!("companion socket: {e}");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
                match porthole_companion::socket::peer_is_same_user(&stream) {
                    Ok(true) => {
                        let this = this.clone();
                        tokio::spawn(async move { this.take_link(stream).await });
                    }
                    _ => tracing::warn!("companion socket: a process of another user was refused"),
                }
            }
        });
        Ok(true)
    }

    /// One proxy: the handshake, then its relay until the link closes.
    async fn take_link(&self, stream: UnixStream) {
        let (read, mut write) = stream.into_split();
        let mut reader = LineReader::new(read, porthole_companion::MAX_LINE_BYTES);
        let hello = match tokio::time::timeout(Duration::from_secs(5), reader.next()).await {
            Ok(Ok(Some(Piece::Line(line)))) => link::check_hello(line),
            _ => Err("no handshake".to_string()),
        };
        let welcome = match &hello {
            Ok(_) => Welcome::ours(),
            Err(reason) => Welcome {
                refused: Some(reason.clone()),
                ..Welcome::ours()
            },
        };
        let mut answer = serde_json::to_vec(&welcome).unwrap_or_default();
        answer.push(b'\n');
        if write.write_all(&answer).await.is_err() {
            return;
        }
        if let Err(reason) = hello {
            tracing::warn!("refused a proxy: {reason}");
            return;
        }
        // The relay (who drives), then the agent's initialize answer, come first.
        let Some(Control::Relay {
            editor,
            agent_command,
            cwd,
            proxy_pid,
            ask_who_answers,
        }) = next_control(&mut reader).await
        else {
            return tracing::warn!("a proxy did not describe its relay: link closed");
        };
        let Some(Control::AgentInitialized { result }) = next_control(&mut reader).await else {
            return tracing::warn!("a proxy did not pass on the agent's initialize answer: link closed");
        };
        let proxy = ProxyView {
            editor: editor_name(editor.as_ref()),
            editor_version: editor
                .as_ref()
                .and_then(|e| e.get("version"))
                .and_then(Value::as_str)
                .map(str::to_string),
            agent_command,
            cwd,
            proxy_pid,
            ask_who_answers,
        };
        self.relay(proxy, result, reader, write).await;
    }

    /// Observe the agent through core over an in-memory pipe, register the connection, and
    /// carry lines both ways until the proxy goes.
    async fn relay(
        &self,
        proxy: ProxyView,
        init: Value,
        mut reader: LineReader<tokio::net::unix::OwnedReadHalf>,
        write: OwnedWriteHalf,
    ) {
        let init: InitializeResponse = serde_json::from_value(init).unwrap_or_else(|e| {
            tracing::warn!(
                "a proxied agent's initialize answer did not parse ({e}); shown without its details"
            );
            InitializeResponse::new(porthole_core::acp::schema::ProtocolVersion::V1)
        });
        let (ours, core_side) = tokio::io::duplex(1 << 20);
        let (core_read, core_write) = tokio::io::split(core_side);
        let program = proxy.agent_command.first().cloned().unwrap_or_default();
        let opts = ClientOptions {
            modes: self.settings().modes(),
            // Files and terminals are the editor's: only the user's questions come here.
            fs: false,
            terminals: false,
            agent_name: Some(
                Path::new(&program)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or(program),
            ),
            ..ClientOptions::default()
        };
        let (client, mut events) = match AgentClient::observe_streams(core_read, core_write, opts, init).await
        {
            Ok(observed) => observed,
            Err(e) => return tracing::warn!("cannot observe a proxied agent: {e}"),
        };
        let agent = client.agent();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let agent_id = format!("{PREFIX}{}#{}", agent.name, NEXT.fetch_add(1, Ordering::Relaxed));
        let generation = {
            let mut state = self.state();
            state.generations += 1;
            let generation = state.generations;
            let mut conn = Conn::new(
                crate::snapshot::ConnectionState::Connected,
                generation,
                porthole_core::inspector::Inspector::new(64 * 1024),
            );
            conn.agent = Some(agent);
            conn.client = Some(client.clone());
            conn.proxy = Some(proxy);
            state.conns.insert(agent_id.clone(), conn);
            generation
        };
        self.push_snapshot();

        let (ours_read, mut ours_write) = tokio::io::split(ours);
        // Core's answers go back to the proxy, which passes them to the agent; the answers to
        // the MCP connections' questions go with them.
        let (to_proxy, from_app) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
        let answers = tokio::spawn(forward_answers(ours_read, from_app, write));
        let mut mcp = McpAsked {
            to_proxy,
            open: HashMap::new(),
        };
        let follow = {
            let this = self.clone();
            let agent_id = agent_id.clone();
            tokio::spawn(async move {
                while let Some(event) = events.recv().await {
                    let exited = matches!(event, Event::AgentExited(_));
                    if !this.apply(&agent_id, generation, &event) || exited {
                        break;
                    }
                }
                // The proxy went: its connection leaves the list with its sessions.
                // (Its dialogs are recorded as dismissed, as when an agent exits.)
                let _client = this.forget_agent(&agent_id, crate::connections::Ending::Removed);
                this.push_snapshot();
            })
        };
        // The editor's `session/prompt` requests in flight: request id -> session.
        let mut prompts = HashMap::new();
        let mut closing = self.0.closing.subscribe();
        loop {
            let piece = tokio::select! {
                piece = reader.next() => piece,
                // The app stops: the proxy sees its link close and answers what waits `cancel`.
                _ = closing.wait_for(|c| *c) => break,
            };
            let line = match piece {
                Ok(Some(Piece::Line(line))) => line,
                Ok(Some(Piece::Oversized { .. })) => continue,
                Ok(None) | Err(_) => break,
            };
            match line.split_first() {
                Some((&link::ACP, message)) => {
                    let ok = ours_write.write_all(message).await.is_ok()
                        && ours_write.write_all(b"\n").await.is_ok();
                    if !ok {
                        break;
                    }
                }
                Some((&link::CONTROL, message)) => match serde_json::from_slice::<Control>(message) {
                    Ok(control) => self.on_control(&agent_id, &client, control, &mut prompts, &mut mcp),
                    Err(e) => tracing::debug!("unknown control message from a proxy ({e}): ignored"),
                },
                _ => tracing::debug!("a line of no channel from a proxy: ignored"),
            }
        }
        // The end of the proxy's lines ends core's observation: its dialogs are dismissed.
        for (_, task) in mcp.open.drain() {
            task.abort();
        }
        let _ = ours_write.shutdown().await;
        drop(ours_write);
        let _ = follow.await;
        answers.abort();
    }

    fn on_control(
        &self,
        agent_id: &str,
        client: &AgentClient,
        control: Control,
        prompts: &mut HashMap<String, String>,
        mcp: &mut McpAsked,
    ) {
        match control {
            Control::McpQuestion {
                id,
                connection,
                host,
                session_id,
                params,
            } => {
                let client = client.clone();
                let to_proxy = mcp.to_proxy.clone();
                mcp.open.retain(|_, task| !task.is_finished());
                let task = self.0.runtime.spawn(async move {
                    let asker = McpAsker { connection, host };
                    let answer = client.ask_for_connection(asker, &session_id, None, &params).await;
                    let (result, error) = match answer {
                        Ok(result) => (Some(result), None),
                        Err(e) => (None, Some(e.message)),
                    };
                    let line = link::app_control(&AppControl::McpAnswer { id, result, error });
                    let _ = to_proxy.send(line).await;
                });
                mcp.open.insert(id, task.abort_handle());
            }
            Control::McpQuestionEnded { id } => {
                // Dropping the question's future dismisses its dialog (core).
                if let Some(task) = mcp.open.remove(&id) {
                    task.abort();
                }
            }
            Control::McpCompleted {
                connection,
                elicitation_id,
            } => {
                let client = client.clone();
                self.0.runtime.spawn(async move {
                    client.connection_completed(&connection, &elicitation_id).await;
                });
            }
            Control::Session { session_id, cwd } => {
                client.observe_session(&session_id, Path::new(&cwd));
                let view = SessionView {
                    session_id: session_id.clone(),
                    agent_id: agent_id.to_string(),
                    cwd,
                    // Shown for the app's own sessions; an editor's extra folders are its own.
                    additional_directories: Vec::new(),
                    title: None,
                    modes: None,
                    models: None,
                    config_options: Vec::new(),
                    available_commands: Vec::new(),
                    turn_running: false,
                    run_state: None,
                    usage: None,
                };
                if let Some(conn) = self.state().conns.get_mut(agent_id) {
                    conn.sessions.insert(session_id, view);
                }
                self.push_snapshot();
            }
            Control::SessionClosed { session_id } => {
                client.observe_session_closed(&session_id);
                let let_go = self
                    .state()
                    .conns
                    .get_mut(agent_id)
                    .map(|conn| conn.close_session(&session_id));
                drop(let_go);
                self.push_snapshot();
            }
            Control::Request {
                id,
                method,
                session_id,
            } => {
                client.observe_request(&id, &method);
                if let (true, Some(session_id)) = (method == "session/prompt", session_id) {
                    self.set_turn_running(&session_id, true);
                    prompts.insert(id, session_id);
                }
            }
            Control::RequestDone { id } => {
                client.observe_request_done(&id);
                if let Some(session_id) = prompts.remove(&id) {
                    self.set_turn_running(&session_id, false);
                }
            }
            Control::AgentExited { status } => {
                if let Some(conn) = self.state().conns.get_mut(agent_id) {
                    conn.error = Some((format!("The agent stopped: {status}"), String::new()));
                }
            }
            Control::Relay { .. } | Control::AgentInitialized { .. } => {
                tracing::debug!("a proxy repeated its relay description: ignored");
            }
        }
    }

    /// A proxied turn runs from the editor's `session/prompt` to the agent's answer.
    fn set_turn_running(&self, session_id: &str, running: bool) {
        if let Some(session) = self.state().session_mut(session_id) {
            session.turn_running = running;
        }
        self.push_snapshot();
    }
}

/// The next control line, skipping nothing: `None` if the proxy sent something else first.
async fn next_control(reader: &mut LineReader<tokio::net::unix::OwnedReadHalf>) -> Option<Control> {
    match tokio::time::timeout(Duration::from_secs(10), reader.next()).await {
        Ok(Ok(Some(Piece::Line(line)))) => match line.split_first() {
            Some((&link::CONTROL, message)) => serde_json::from_slice(message).ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The MCP connections' questions a proxy handed over (`Control::McpQuestion`), being asked.
struct McpAsked {
    /// Lines to the proxy, beside core's answers (`forward_answers`).
    to_proxy: tokio::sync::mpsc::Sender<Vec<u8>>,
    open: HashMap<u64, tokio::task::AbortHandle>,
}

async fn forward_answers(
    read: tokio::io::ReadHalf<DuplexStream>,
    mut from_app: tokio::sync::mpsc::Receiver<Vec<u8>>,
    mut write: OwnedWriteHalf,
) {
    let mut reader = LineReader::new(read, porthole_companion::MAX_LINE_BYTES);
    loop {
        let line = tokio::select! {
            piece = reader.next() => match piece {
                Ok(Some(Piece::Line(line))) => link::frame(link::ACP, line),
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => break,
            },
            Some(line) = from_app.recv() => line,
        };
        if write.write_all(&line).await.is_err() {
            break;
        }
    }
}

fn editor_name(info: Option<&Value>) -> String {
    let field = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    field("title")
        .or_else(|| field("name"))
        .unwrap_or_else(|| "your editor".into())
}

/// The socket file goes with the app.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
