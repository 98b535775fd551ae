//! The link to the app's window (see the module's docs in `mod.rs`).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use super::{Relay, line_of};
use crate::link::{self, Control};
use crate::mcp_hook::{AppLink, BoxFuture};
use crate::peek::peek;
use crate::questions::Kind;
use porthole_framing::{LineReader, Piece};

/// Lines waiting for the app's socket; the live view's copies are dropped beyond it.
const LINK_CAPACITY: usize = 1024;

impl Relay {
    /// Keeps a link to the app while the proxy answers elicitations: looks for a running app
    /// now and then, and starts one when an elicitation waits and none runs.
    pub(super) async fn manage_link(self: Arc<Self>) {
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
                                mcp.answered(id, answer);
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
            mcp.link_lost();
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

/// How the connections' questions reach the app (`mcp_hook.rs`).
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
