//! The app's state over one agent connection: it owns the AgentClient, keeps the snapshot
//! and the pending dialogs, and forwards core events to the webview in coalesced batches.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use porthole_core::events::{ElicitationKind, ElicitationPrompt, Event, PermissionPrompt};
use porthole_core::{AgentClient, AgentCommand, Answer, ClientError, ClientOptions, RespondError};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tauri::{AppHandle, Emitter};

use crate::sealed::{self, Opened, SealedViews};

/// The Tauri event that carries `{ events: [...] }` to the main window.
pub const BATCH_EVENT: &str = "porthole://events";
/// How often queued events are flushed to the webview: one IPC message per frame at most.
const FLUSH_EVERY: Duration = Duration::from_millis(16);

/// What to launch and where.
#[derive(Clone, Debug)]
pub struct Launch {
    pub command: AgentCommand,
    /// What the header shows: the command line, or "built-in demo agent".
    pub label: String,
    pub cwd: PathBuf,
}

impl Launch {
    /// `--agent` wins, then `PORTHOLE_AGENT`, then the demo agent embedded in this binary.
    pub fn from_args(agent: Option<&str>, cwd: Option<PathBuf>) -> Result<Self, String> {
        let cwd = match cwd {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        let cwd = cwd
            .canonicalize()
            .map_err(|e| format!("--cwd {}: {e}", cwd.display()))?;
        if !cwd.is_dir() {
            return Err(format!("--cwd {} is not a directory", cwd.display()));
        }
        let from_env = std::env::var("PORTHOLE_AGENT")
            .ok()
            .filter(|s| !s.trim().is_empty());
        let (mut command, label) = match agent.map(str::to_string).or(from_env) {
            Some(line) => (AgentCommand::parse(&line)?, line),
            None => {
                let exe =
                    std::env::current_exe().map_err(|e| format!("cannot find the porthole binary: {e}"))?;
                (
                    AgentCommand {
                        program: exe.display().to_string(),
                        args: vec!["demo-agent".into()],
                        env: vec![],
                        cwd: None,
                    },
                    "built-in demo agent".to_string(),
                )
            }
        };
        command.cwd = Some(cwd.clone());
        Ok(Self { command, label, cwd })
    }
}

/// Errors returned to the UI: `{ kind: "invalid", validation }` or `{ kind: "error", message }`.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AnswerError {
    Invalid { validation: Value },
    Error { message: String },
}

impl AnswerError {
    fn msg(message: impl Into<String>) -> Self {
        AnswerError::Error {
            message: message.into(),
        }
    }
}

impl From<RespondError> for AnswerError {
    fn from(e: RespondError) -> Self {
        match e {
            RespondError::Invalid(v) => AnswerError::Invalid {
                validation: serde_json::to_value(v).unwrap_or(Value::Null),
            },
            other => AnswerError::msg(other.to_string()),
        }
    }
}

impl From<ClientError> for AnswerError {
    fn from(e: ClientError) -> Self {
        AnswerError::msg(e.to_string())
    }
}

#[derive(Clone)]
enum Pending {
    Elicitation(Box<ElicitationPrompt>),
    Permission(Box<PermissionPrompt>),
}

#[derive(Default)]
struct AppState {
    connection: &'static str,
    agent: Option<porthole_core::events::AgentIdentity>,
    error: Option<(String, String)>,
    session_id: Option<String>,
    turn_running: bool,
    client: Option<AgentClient>,
    /// Bumped on every (re)start so events of an old connection are ignored.
    generation: u64,
    pending: IndexMap<u64, Pending>,
    /// URLs the user consented to, kept for Reopen.
    accepted_urls: HashMap<u64, String>,
    /// When each elicitation arrived, for the latency figure logged on `dialog_shown`.
    arrived: HashMap<u64, Instant>,
}

struct Inner {
    app: AppHandle,
    launch: Launch,
    state: Mutex<AppState>,
    queue: Mutex<Vec<Value>>,
    /// Sealed URL windows (separate processes), by dialog id.
    sealed: SealedViews,
}

/// Managed Tauri state. Cheap to clone.
#[derive(Clone)]
pub struct Backend(Arc<Inner>);

impl Backend {
    pub fn new(app: AppHandle, launch: Launch) -> Self {
        let backend = Backend(Arc::new_cyclic(|weak: &std::sync::Weak<Inner>| {
            let weak = weak.clone();
            let on_event: sealed::OnEvent = Arc::new(move |dialog_id, state, detail| {
                if let Some(inner) = weak.upgrade() {
                    Backend(inner).push(json!({
                        "type": "url_view",
                        "dialogId": dialog_id,
                        "state": state,
                        "detail": detail,
                    }));
                }
            });
            Inner {
                app,
                launch,
                state: Mutex::new(AppState {
                    connection: "starting",
                    ..Default::default()
                }),
                queue: Mutex::new(Vec::new()),
                sealed: SealedViews::new(on_event),
            }
        }));
        backend.spawn_flusher();
        backend
    }

    fn state(&self) -> std::sync::MutexGuard<'_, AppState> {
        self.0.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, event: Value) {
        self.0.queue.lock().unwrap_or_else(|p| p.into_inner()).push(event);
    }

    /// Coalesce queued events into one IPC message per frame.
    fn spawn_flusher(&self) {
        let weak = Arc::downgrade(&self.0);
        tauri::async_runtime::spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { break };
                let events = std::mem::take(&mut *inner.queue.lock().unwrap_or_else(|p| p.into_inner()));
                if !events.is_empty()
                    && let Err(e) = inner
                        .app
                        .emit_to("main", BATCH_EVENT, json!({ "events": events }))
                {
                    tracing::warn!("cannot deliver events to the window: {e}");
                }
            }
        });
    }

    fn snapshot(&self, state: &AppState) -> Value {
        json!({
            "connection": state.connection,
            "agent": state.agent,
            "agentCommand": self.0.launch.label,
            "cwd": self.0.launch.cwd.display().to_string(),
            "sessionId": state.session_id,
            "error": state.error.as_ref().map(|(m, t)| json!({"message": m, "stderrTail": t})),
            "turnRunning": state.turn_running,
            "sealedViewAvailable": cfg!(target_os = "linux"),
        })
    }

    fn push_snapshot(&self) {
        let snapshot = {
            let state = self.state();
            self.snapshot(&state)
        };
        self.push(json!({"type": "connection", "snapshot": snapshot}));
    }

    pub fn app_state(&self) -> Value {
        let state = self.state();
        let pending: Vec<Value> = state
            .pending
            .values()
            .map(|p| match p {
                Pending::Elicitation(e) => event_json(&Event::Elicitation(e.clone())),
                Pending::Permission(p) => event_json(&Event::Permission(p.clone())),
            })
            .collect();
        json!({"snapshot": self.snapshot(&state), "pending": pending})
    }

    /// Launch the agent and create a session, reporting progress as connection events.
    pub fn start(&self) {
        let generation = {
            let mut state = self.state();
            state.generation += 1;
            state.connection = "starting";
            state.error = None;
            state.agent = None;
            state.session_id = None;
            state.turn_running = false;
            state.pending.clear();
            state.accepted_urls.clear();
            state.generation
        };
        // Dialogs of the old connection are gone: so are their sealed windows.
        self.0.sealed.close_all_in_background();
        self.push_snapshot();
        let this = self.clone();
        tauri::async_runtime::spawn(async move {
            let launch = this.0.launch.clone();
            let started = AgentClient::start(launch.command.clone(), ClientOptions::default()).await;
            let (client, mut events) = match started {
                Ok(started) => started,
                Err(e) => {
                    this.fail(generation, &e, String::new());
                    return;
                }
            };
            let session = client.new_session(launch.cwd.clone()).await;
            let stale = {
                let mut state = this.state();
                if state.generation != generation {
                    true
                } else {
                    state.agent = Some(client.agent());
                    state.client = Some(client.clone());
                    match &session {
                        Ok(id) => {
                            state.connection = "connected";
                            state.session_id = Some(id.clone());
                        }
                        Err(e) => {
                            state.connection = "failed";
                            state.error = Some((format!("session/new failed: {e}"), client.stderr_tail()));
                        }
                    }
                    false
                }
            };
            if stale {
                client.shutdown().await;
                return;
            }
            this.push_snapshot();
            while let Some(event) = events.recv().await {
                if !this.apply(generation, &event) {
                    break;
                }
            }
        });
    }

    fn fail(&self, generation: u64, error: &ClientError, tail: String) {
        {
            let mut state = self.state();
            if state.generation != generation {
                return;
            }
            state.connection = "failed";
            let tail = match error {
                ClientError::Exited(info) => info.stderr_tail.clone(),
                _ => tail,
            };
            state.error = Some((error.to_string(), tail));
        }
        self.push_snapshot();
    }

    /// Track the event in the app state and queue it for the window. False once stale.
    fn apply(&self, generation: u64, event: &Event) -> bool {
        let mut snapshot_changed = false;
        {
            let mut state = self.state();
            if state.generation != generation {
                return false;
            }
            match event {
                Event::Elicitation(p) => {
                    state.arrived.insert(p.dialog_id, Instant::now());
                    state.pending.insert(p.dialog_id, Pending::Elicitation(p.clone()));
                }
                Event::Permission(p) => {
                    state.pending.insert(p.dialog_id, Pending::Permission(p.clone()));
                }
                Event::ElicitationDismissed { dialog_id, .. }
                | Event::PermissionDismissed { dialog_id, .. } => {
                    state.pending.shift_remove(dialog_id);
                }
                Event::TurnEnded { .. } => {
                    state.turn_running = false;
                    snapshot_changed = true;
                }
                Event::FileAccess(p) => {
                    // This window has no file-access dialog yet (it comes with the multi-session
                    // UI): refuse, as before, rather than leave the agent waiting.
                    tracing::info!(path = %p.path, "file access outside the workspace refused");
                    if let Some(client) = &state.client {
                        let _ = client.respond_file_access(p.dialog_id, false);
                    }
                }
                Event::AgentExited(info) => {
                    state.connection = if info.requested { "exited" } else { "failed" };
                    state.error = Some((
                        format!("The agent stopped: {}", info.status),
                        info.stderr_tail.clone(),
                    ));
                    state.turn_running = false;
                    state.pending.clear();
                    snapshot_changed = true;
                    self.0.sealed.close_all_in_background();
                }
                _ => {}
            }
        }
        self.push(event_json(event));
        if snapshot_changed {
            self.push_snapshot();
        }
        true
    }

    fn client(&self) -> Result<(AgentClient, String), AnswerError> {
        let state = self.state();
        match (&state.client, &state.session_id, state.connection) {
            (Some(c), Some(s), "connected") => Ok((c.clone(), s.clone())),
            _ => Err(AnswerError::msg("the agent is not connected")),
        }
    }

    pub fn send_prompt(&self, text: &str) -> Result<(), AnswerError> {
        let text = text.trim_end();
        if text.trim().is_empty() {
            return Err(AnswerError::msg("the prompt is empty"));
        }
        let (client, session) = self.client()?;
        client.prompt_text(&session, text)?;
        self.state().turn_running = true;
        self.push(json!({"type": "user_prompt", "sessionId": session, "text": text}));
        self.push_snapshot();
        Ok(())
    }

    pub fn cancel_turn(&self) -> Result<(), AnswerError> {
        let (client, session) = self.client()?;
        client.cancel(&session)?;
        Ok(())
    }

    pub fn restart(&self) {
        let old = self.state().client.take();
        let this = self.clone();
        tauri::async_runtime::spawn(async move {
            if let Some(old) = old {
                old.shutdown().await;
            }
            this.start();
        });
    }

    pub fn validate_form(&self, dialog_id: u64, content: &Map<String, Value>) -> Result<Value, AnswerError> {
        let (client, _) = self.client()?;
        let validation = client.validate_form(dialog_id, content)?;
        Ok(serde_json::to_value(validation).unwrap_or(Value::Null))
    }

    pub fn answer_elicitation(
        &self,
        dialog_id: u64,
        action: &str,
        content: Option<Map<String, Value>>,
    ) -> Result<(), AnswerError> {
        let (client, _) = self.client()?;
        let answer = match action {
            "accept" => Answer::Accept(content.unwrap_or_default()),
            "decline" => Answer::Decline,
            "cancel" => Answer::Cancel,
            other => return Err(AnswerError::msg(format!("unknown action `{other}`"))),
        };
        let accepted_url = match self.state().pending.get(&dialog_id) {
            Some(Pending::Elicitation(p)) => match (&p.kind, &answer) {
                (ElicitationKind::Url { url, .. }, Answer::Accept(_)) => Some(url.full.clone()),
                _ => None,
            },
            _ => None,
        };
        client.respond_elicitation(dialog_id, answer)?;
        let mut state = self.state();
        state.pending.shift_remove(&dialog_id);
        if let Some(url) = accepted_url {
            state.accepted_urls.insert(dialog_id, url);
        }
        Ok(())
    }

    pub fn answer_permission(&self, dialog_id: u64, option_id: Option<String>) -> Result<(), AnswerError> {
        let (client, _) = self.client()?;
        client.respond_permission(dialog_id, option_id)?;
        self.state().pending.shift_remove(&dialog_id);
        Ok(())
    }

    /// Open a URL the user already consented to. The URL comes from core, never from the UI.
    pub fn open_url(&self, app: &AppHandle, dialog_id: u64, target: &str) -> Result<(), AnswerError> {
        let url = self
            .state()
            .accepted_urls
            .get(&dialog_id)
            .cloned()
            .ok_or_else(|| AnswerError::msg("this URL was not consented to"))?;
        match target {
            "system" => {
                use tauri_plugin_opener::OpenerExt;
                app.opener()
                    .open_url(url, None::<&str>)
                    .map_err(|e| AnswerError::msg(format!("cannot open the system browser: {e}")))
            }
            "sealed" => {
                let agent = self
                    .state()
                    .agent
                    .as_ref()
                    .map(|a| a.display_name())
                    .unwrap_or_else(|| "the agent".to_string());
                match self.0.sealed.open(dialog_id, &url, &agent) {
                    Ok(Opened::New) => Ok(()),
                    Ok(Opened::AlreadyOpen) => {
                        tracing::info!(dialog_id, "sealed window already open");
                        Ok(())
                    }
                    Err(e) => Err(AnswerError::msg(e)),
                }
            }
            other => Err(AnswerError::msg(format!("unknown target `{other}`"))),
        }
    }

    /// The user closed a URL dialog: its sealed window, if any, closes with it.
    pub fn close_url_view(&self, dialog_id: u64) {
        self.0.sealed.close(dialog_id);
        self.state().accepted_urls.remove(&dialog_id);
    }

    pub fn dialog_shown(&self, dialog_id: u64) {
        if let Some(arrived) = self.state().arrived.remove(&dialog_id) {
            tracing::info!(target: "porthole::latency", dialog_id, ms = arrived.elapsed().as_secs_f64() * 1e3, "dialog interactive");
        }
    }

    /// Stop the agent before the process exits, so no agent is left running.
    pub fn stop_blocking(&self) {
        self.0.sealed.close_all(Duration::from_secs(1));
        if let Some(client) = self.state().client.take() {
            tauri::async_runtime::block_on(async move {
                let _ = tokio::time::timeout(Duration::from_secs(5), client.shutdown()).await;
            });
        }
    }
}

/// Core events serialize to exactly the UI's `UiEvent` shapes.
fn event_json(event: &Event) -> Value {
    serde_json::to_value(event).unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()}))
}
