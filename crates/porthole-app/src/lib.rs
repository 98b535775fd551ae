//! Porthole's app model, without a GUI: the state over its agent connections (one connection
//! per agent, sessions of several agents open at once), the dialogs waiting for the user, the
//! consent history, installed agents and sign-in values. Core events are tracked here and
//! forwarded to the window in coalesced batches through a [`Shell`] (the Tauri app, or a test).
//!
//! Split by what each part holds: `launch` (which agents exist), `conn` (one agent's
//! connection, the owner of its sessions), `connections` (starting, stopping and following an
//! agent), `sessions` (session requests and prompts), `dialogs`
//! (answers, URLs, remembered decisions), `history` (the consent history and domain memory),
//! `agents` (the registry and sign-in values), `sealed` (the sealed URL view processes),
//! `settings` (settings.json).

mod agents;
mod app_event;
mod apply;
mod coalesce;
mod conn;
mod connections;
mod dialog_view;
mod dialogs;
#[cfg(test)]
mod generated_file;
mod history;
mod launch;
mod mcp;
pub use mcp::mcp_bridge;
mod mcp_apps;
mod mcp_edit;
pub use mcp_apps::{
    AppPermission as McpAppPermission, McpAppPermissions, McpAppView, McpToolResult,
    PAGE_SCHEME as MCP_APP_SCHEME, Page as McpAppPage,
};
mod mcp_questions;
mod mcp_registry;
mod mcp_registry_link;
mod mcp_registry_view;
pub use mcp_edit::{McpImported, NewServer};
pub use mcp_registry_view::{
    McpRegistryAdded, McpRegistryCheck, McpRegistryChoice, McpRegistryEntryView, McpRegistryForm,
    McpRegistryResults, McpRegistrySignIn, McpRegistryState, McpRegistryWay,
};
mod mcp_sign_in;
mod mcp_view;
pub use mcp_view::{McpConnectionList, McpTool};
mod metrics;
#[cfg(test)]
mod mock_dialogs;
mod proxied;
mod results;
pub mod sealed;
mod sessions;
pub mod settings;
mod shell;
mod snapshot;
mod tool_calls;
#[cfg(test)]
mod ui_contract;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::sealed::SealedViews;
use crate::settings::{self as app_settings, Settings};
use app_event::AppEvent;
pub use app_event::Attachment;
use conn::Conn;
use dialog_view::{DialogView, Origin};
use indexmap::IndexMap;
pub use launch::{DEMO_ID, Launch, Profile};
pub use metrics::PerfStats;
use porthole_core::acp::v1::schema::{AvailableCommand, SessionConfigOption, SessionModeState, UsageUpdate};
use porthole_core::events::{DialogPrompt, Event};
use porthole_core::{AgentClient, ClientError, RespondError};
/// The window's view of the consent history (its rows, filter and domain marks) is the
/// history's own wire types, already shaped for it: the window reaches them only through this
/// crate (`Backend::history_list`, `Backend::domain_marks`), never from porthole-history.
pub use porthole_history::{DomainMark, HistoryEntry, HistoryFilter, HistoryPage};
pub use proxied::ProxyView;
pub use results::{HistoryExport, ProtocolLog, RegistryListing, SessionList};
use serde::Serialize;
use serde_json::{Value, json};
pub use shell::Shell;
pub use snapshot::{AppSnapshot, AuthMethodView, ConnectionView, PermissionRuleView};

/// Agent-chosen text in a notification is plain text: some notification daemons read a
/// subset of HTML in the body, so markup characters are escaped and bidi controls shown.
pub fn plain(text: &str) -> String {
    porthole_core::hidden_chars::neutralize(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// How often queued events are flushed to the webview while they keep coming: one IPC message
/// per frame at most. With nothing queued the flusher sleeps until something is.
const FLUSH_EVERY: Duration = Duration::from_millis(16);

/// Errors returned to the UI: `{ kind: "invalid", validation }` or `{ kind: "error", message }`
/// (the window's `CommandError`, generated).
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "CommandError"))]
pub enum AnswerError {
    /// A form's content failed core's validation: what is wrong with each field.
    Invalid {
        #[cfg_attr(any(test, feature = "ts"), ts(type = "Validation"))]
        validation: Value,
    },
    Error {
        message: String,
    },
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

/// A dialog waiting for the user (of any kind), with the agent that asked.
#[derive(Clone)]
struct Pending {
    agent_id: String,
    prompt: DialogPrompt,
    /// When an agent's elicitation arrived, until the window shows it: the start of the
    /// latency figure logged on `dialog_shown`.
    arrived: Option<Instant>,
}

impl Pending {
    fn agent_id(&self) -> &str {
        &self.agent_id
    }

    /// The dialog as the window shows it; `through` names the editor of a proxied connection.
    /// `domain_memory` is filled in later, with the state lock released.
    fn view(&self, through: Option<String>) -> DialogView {
        DialogView {
            prompt: self.prompt.clone(),
            origin: Origin {
                agent_id: self.agent_id.clone(),
                through,
            },
            domain_memory: None,
        }
    }
}

/// A URL the user consented to open.
#[derive(Clone)]
struct AcceptedUrl {
    url: String,
    /// Shown in the sealed window's title.
    agent_name: String,
    agent_id: String,
}

/// What the window shows about an open session; updated from the agent's updates. The ACP
/// shapes it carries (modes, config options, commands, usage) are the SDK's own typed structs,
/// folded from core's typed `SessionState` (`apply::session_update`) without a JSON round trip;
/// the window names them from the official TypeScript SDK's types through `ui/src/lib/acp.ts`.
/// What the SDK's parse keeps, they keep (`_meta` included); a field the schema does not know
/// was already dropped by that parse in core, before any of it reached the app model.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct SessionView {
    session_id: String,
    agent_id: String,
    cwd: String,
    /// The session's other folders (`additionalDirectories`), empty when it has none.
    additional_directories: Vec<String>,
    title: Option<String>,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "SessionModeState | null"))]
    modes: Option<SessionModeState>,
    /// The models the agent offers (`session/set_model`), `null` when it offers no choice.
    models: Option<porthole_core::models::SessionModels>,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "ConfigOption[]"))]
    config_options: Vec<SessionConfigOption>,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Array<AvailableCommand>"))]
    available_commands: Vec<AvailableCommand>,
    turn_running: bool,
    /// ACP v2's running state (the last `state_update`); `null` on a v1 connection, or before
    /// the agent reported one.
    run_state: Option<porthole_core::transcript::RunState>,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "SessionUsage | null"))]
    usage: Option<UsageUpdate>,
}

/// What the window asks for after a (re)load (`app_state`).
#[derive(Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct WindowState {
    snapshot: AppSnapshot,
    /// The dialogs waiting for the user, in arrival order.
    dialogs: Vec<DialogView>,
}

/// The app model's state: each agent connection, owning its sessions and waiting dialogs
/// (`conn::Conn`), and Porthole's own dialogs; the window gets all waiting dialogs as one list,
/// in the order they arrived (`AppState::waiting`).
#[derive(Default)]
struct AppState {
    /// The agent connections, by agent id, in the order they first started.
    conns: IndexMap<String, Conn>,
    /// Porthole's own dialogs (an MCP sign-in's or a registry link's URL consent), by dialog
    /// id; an agent's are its connection's (`Conn::dialogs`).
    own_dialogs: IndexMap<u64, Pending>,
    /// URLs the user consented to, for Reopen, and to close their windows with their agent.
    accepted_urls: HashMap<u64, AcceptedUrl>,
    generations: u64,
}

struct Inner {
    shell: Arc<dyn Shell>,
    /// The async runtime every task of the app runs on (the shell's).
    runtime: tokio::runtime::Handle,
    launch: Launch,
    /// The agents the user can connect to: the launch's, then those installed since.
    profiles: Mutex<Vec<launch::Profile>>,
    settings: Mutex<Settings>,
    settings_path: Option<std::path::PathBuf>,
    settings_problem: Mutex<Option<String>>,
    state: Mutex<AppState>,
    queue: Mutex<Vec<coalesce::Queued>>,
    /// Wakes the flusher before its next tick: a dialog should not wait for it.
    flush_now: Arc<tokio::sync::Notify>,
    /// Wakes the idle flusher: the queue was empty and no longer is (or the app model is gone).
    queued: Arc<tokio::sync::Notify>,
    /// The count of waiting dialogs the title shows; held while a batch is delivered.
    waiting_shown: Mutex<usize>,
    /// Counters for `perf_stats` (benchmarks).
    metrics: metrics::Metrics,
    /// Registry installs under way, by registry id: how to cancel each (`cancel_install`).
    installs: Mutex<HashMap<String, agents::InstallHandle>>,
    /// Sealed URL windows (separate processes), by dialog id.
    sealed: SealedViews,
    /// MCP sign-ins started from the window (`mcp_sign_in`).
    sign_ins: mcp_sign_in::SignIns,
    /// The consent history; `None` when it could not be opened (`history_problem` says why).
    history: Option<porthole_history::HistoryStore>,
    /// Shown as the snapshot's `historyError`: why history is off, or that a damaged file
    /// was replaced.
    history_problem: Option<String>,
    /// Why the companion socket could not be used (`serve_companion`), for the window.
    companion_problem: Mutex<Option<String>>,
    /// Held while a dialog's outcome is decided and recorded (an answer: record, send, drop
    /// the dialog; a dismissal, or a connection ending in `forget_agent`: drop the dialog,
    /// record), so a dialog gets one entry. Not the state lock: the history writes to disk
    /// and the answer goes to the agent meanwhile, and the window's commands and the event
    /// loops must not wait for that.
    decisions: Mutex<()>,
    /// Set when the app stops: the companion socket and every proxy's link close.
    closing: tokio::sync::watch::Sender<bool>,
    /// The MCP connections handed to sessions: the gateway and each session's pass.
    mcp: mcp::AppConnections,
    /// The MCP Apps the sessions' tool calls brought (`mcp_apps`).
    apps: mcp_apps::AppsTable,
    /// The MCP Registries' copies (the "Add from the registry" view).
    mcp_registry: mcp_registry::Copies,
    /// Registry entries' links waiting in their URL consent dialog.
    registry_links: mcp_registry_link::Links,
    /// How many agent connections are applying their events (see `connections::EventLoop`):
    /// `stop` waits for them, so an agent's exit is applied, recorded and delivered before
    /// it returns.
    event_loops: tokio::sync::watch::Sender<usize>,
}

impl Drop for Inner {
    /// An idle flusher waits for `queued`: wake it, so that it sees the model gone and ends.
    fn drop(&mut self) {
        self.queued.notify_one();
    }
}

/// The app model. Cheap to clone.
#[derive(Clone)]
pub struct Backend(Arc<Inner>);

impl Backend {
    /// `runtime` runs the app's tasks; events go out through `shell`.
    pub fn new(shell: Arc<dyn Shell>, runtime: tokio::runtime::Handle, launch: Launch) -> Self {
        let (history, history_problem) = history::open();
        let backend = Backend(Arc::new_cyclic(|weak: &std::sync::Weak<Inner>| {
            let weak = weak.clone();
            let on_event: sealed::OnEvent = Arc::new(move |dialog_id, state, detail| {
                if let Some(inner) = weak.upgrade() {
                    Backend(inner).push_app(AppEvent::UrlView {
                        dialog_id,
                        state: state.to_string(),
                        detail,
                    });
                }
            });
            let settings_path = app_settings::default_path();
            let (settings, settings_problem) = match &settings_path {
                Some(path) => app_settings::load(path),
                None => (
                    Settings::default(),
                    Some("no config directory: settings are not saved".into()),
                ),
            };
            let sealed = match &launch.sealed_view {
                Some((program, args)) => SealedViews::with_command(program.clone(), args.clone(), on_event),
                None => SealedViews::new(on_event),
            };
            Inner {
                shell,
                runtime,
                profiles: Mutex::new(launch.profiles.clone()),
                launch,
                settings: Mutex::new(settings),
                settings_path,
                settings_problem: Mutex::new(settings_problem),
                state: Mutex::new(AppState::default()),
                queue: Mutex::new(Vec::new()),
                flush_now: Arc::new(tokio::sync::Notify::new()),
                queued: Arc::new(tokio::sync::Notify::new()),
                waiting_shown: Mutex::new(0),
                metrics: metrics::Metrics::default(),
                installs: Mutex::new(HashMap::new()),
                sealed,
                sign_ins: mcp_sign_in::SignIns::default(),
                history,
                history_problem,
                companion_problem: Mutex::new(None),
                decisions: Mutex::new(()),
                closing: tokio::sync::watch::channel(false).0,
                mcp: mcp::AppConnections::default(),
                apps: mcp_apps::AppsTable::default(),
                mcp_registry: mcp_registry::Copies::default(),
                registry_links: mcp_registry_link::Links::default(),
                event_loops: tokio::sync::watch::channel(0).0,
            }
        }));
        backend.spawn_flusher();
        backend
    }

    /// Run a task on the app's runtime.
    fn spawn<F>(&self, task: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.0.runtime.spawn(task)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, AppState> {
        self.0.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The agent profile `id`, from the launch or installed since.
    fn profile(&self, id: &str) -> Option<launch::Profile> {
        self.profiles().into_iter().find(|p| p.id == id)
    }

    fn profiles(&self) -> Vec<launch::Profile> {
        self.0.profiles.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn push(&self, event: Value) {
        let mut queue = self.queue();
        let was_empty = queue.is_empty();
        queue.push(coalesce::Queued::Event(event));
        drop(queue);
        self.wake_flusher(was_empty);
    }

    /// Call after queueing: wakes the flusher when the queue was empty (it may be idle).
    fn wake_flusher(&self, was_empty: bool) {
        if was_empty {
            self.0.queued.notify_one();
        }
    }

    /// Queue one of the app model's own events for the window.
    fn push_app(&self, event: AppEvent) {
        self.push(
            serde_json::to_value(&event)
                .unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()})),
        );
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Vec<coalesce::Queued>> {
        self.0.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn settings(&self) -> Settings {
        self.0.settings.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Save new settings; mode changes apply when an agent next connects.
    pub fn save_settings(&self, settings: Settings) -> Result<(), AnswerError> {
        settings.check().map_err(AnswerError::msg)?;
        if let Some(path) = &self.0.settings_path {
            app_settings::save(path, &settings).map_err(AnswerError::msg)?;
        }
        *self.0.settings.lock().unwrap_or_else(|p| p.into_inner()) = settings;
        *self.0.settings_problem.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.push_snapshot();
        Ok(())
    }

    /// The ACP version agent `agent_id` is spoken to in from its next start: "auto" (the
    /// default: v2 offered, v1 when the agent answers 1), "1" or "2". Saved with the settings;
    /// the running connection keeps its version until the agent restarts.
    pub fn set_agent_protocol(&self, agent_id: &str, protocol: &str) -> Result<(), AnswerError> {
        if self.profile(agent_id).is_none() {
            return Err(AnswerError::msg(format!("unknown agent `{agent_id}`")));
        }
        app_settings::protocol_choice(protocol).map_err(AnswerError::msg)?;
        let mut settings = self.settings();
        if protocol == "auto" {
            settings.agent_protocols.remove(agent_id);
        } else {
            settings
                .agent_protocols
                .insert(agent_id.to_string(), protocol.to_string());
        }
        self.save_settings(settings)
    }

    /// Coalesce queued events into one IPC message per frame (and send a new dialog at once);
    /// keep the title's count of waiting dialogs current. Idle, it waits for the queue to fill
    /// instead of ticking: a 16 ms timer woke the main process 62 times a second while nothing
    /// happened (issue 34). The first event after a quiet spell goes out at once.
    fn spawn_flusher(&self) {
        let weak = Arc::downgrade(&self.0);
        let flush_now = self.0.flush_now.clone();
        let queued = self.0.queued.clone();
        self.spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut busy = true;
            loop {
                if busy {
                    tokio::select! {
                        _ = tick.tick() => {}
                        _ = flush_now.notified() => {}
                    }
                } else {
                    tokio::select! {
                        _ = queued.notified() => {}
                        _ = flush_now.notified() => {}
                    }
                    tick.reset();
                }
                let Some(inner) = weak.upgrade() else { break };
                busy = Backend(inner).flush();
            }
        });
    }

    /// Send the window what is queued, as one batch, and the title's count of waiting dialogs
    /// when it changed; false when there was nothing to send. The flusher calls it every frame
    /// while events come, `stop` once more at the end.
    fn flush(&self) -> bool {
        let inner = &self.0;
        // One flush at a time: batches keep their order, and the count its last value.
        let mut waiting_shown = inner.waiting_shown.lock().unwrap_or_else(|p| p.into_inner());
        let waiting = self.state().waiting_count();
        let count_changed = waiting != *waiting_shown;
        if count_changed {
            inner.shell.set_waiting_count(waiting);
            *waiting_shown = waiting;
        }
        let events = std::mem::take(&mut *inner.queue.lock().unwrap_or_else(|p| p.into_inner()));
        let queued = events.iter().map(coalesce::Queued::count).sum();
        let events: Vec<Value> = events.into_iter().map(coalesce::Queued::into_value).collect();
        if queued > 0
            && let Err(e) = inner
                .shell
                .deliver(inner.metrics.encode_batch(queued, coalesce::chunks(events)))
        {
            tracing::warn!("cannot deliver events to the window: {e}");
        }
        queued > 0 || count_changed
    }

    fn snapshot(&self, state: &AppState) -> AppSnapshot {
        let launch = &self.0.launch;
        let mut permission_rules = Vec::new();
        for (agent_id, c) in &state.conns {
            let Some(client) = &c.client else { continue };
            let agent_name = c.agent.as_ref().map(|a| a.display_name()).unwrap_or_default();
            for rule in client.permission_rules() {
                permission_rules.push(PermissionRuleView {
                    rule_id: rule.rule_id,
                    session_id: rule.session_id,
                    tool_kind: rule.tool_kind,
                    decision: rule.decision,
                    option_name: rule.option_name,
                    agent_id: agent_id.clone(),
                    agent_name: agent_name.clone(),
                });
            }
        }
        let agents = self.profiles();
        AppSnapshot {
            stored_sign_in: agents::stored_names(&agents),
            agents,
            connections: state
                .conns
                .iter()
                .map(|(agent_id, c)| ConnectionView::of(agent_id, c))
                .collect(),
            sessions: state.sessions().cloned().collect(),
            settings_path: launch
                .settings_path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            settings_error: launch.settings_error.clone(),
            permission_rules,
            sealed_view_available: cfg!(target_os = "linux"),
            default_cwd: launch.cwd.display().to_string(),
            app_settings: self.settings(),
            app_settings_path: self.0.settings_path.as_ref().map(|p| p.display().to_string()),
            app_settings_error: self
                .0
                .settings_problem
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
            history_error: self.0.history_problem.clone(),
            log_dir: porthole_core::logging::log_dir().map(|d| d.display().to_string()),
            companion_error: self
                .0
                .companion_problem
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        }
    }

    fn push_snapshot(&self) {
        let snapshot = {
            let state = self.state();
            self.snapshot(&state)
        };
        self.push_app(AppEvent::Connection {
            snapshot: Box::new(snapshot),
        });
    }

    /// Everything the window needs after a (re)load: the snapshot and the waiting dialogs.
    pub fn app_state(&self) -> WindowState {
        let snapshot = {
            let state = self.state();
            self.snapshot(&state)
        };
        WindowState {
            snapshot,
            dialogs: self.dialogs(),
        }
    }

    /// The waiting dialogs, in arrival order, as the window shows them.
    fn dialogs(&self) -> Vec<DialogView> {
        let mut views: Vec<DialogView> = {
            let state = self.state();
            state
                .waiting()
                .into_iter()
                .map(|p| {
                    let through = state
                        .conns
                        .get(p.agent_id())
                        .and_then(|c| c.proxy.as_ref())
                        .map(|proxy| proxy.editor.clone());
                    p.view(through)
                })
                .collect()
        };
        // Domain memory is read from the history with the state lock released.
        for view in &mut views {
            if let DialogPrompt::Elicitation(prompt) = &view.prompt {
                view.domain_memory = self.domain_memory(&view.origin.agent_id, prompt);
            }
        }
        views
    }

    /// Send the window the list of waiting dialogs (after it changed).
    fn push_dialogs(&self) {
        self.push_app(AppEvent::Dialogs {
            dialogs: self.dialogs(),
        });
    }

    /// Connect the start-up agent and open a session in the start-up directory.
    pub fn start(&self) {
        let agent_id = self.0.launch.default_agent.clone();
        self.connect(&agent_id, Some(self.0.launch.cwd.clone()));
    }

    fn client_of_agent(&self, agent_id: &str) -> Result<AgentClient, AnswerError> {
        let state = self.state();
        match state.conns.get(agent_id) {
            Some(Conn {
                client: Some(c),
                state: snapshot::ConnectionState::Connected,
                ..
            }) => Ok(c.clone()),
            Some(_) => Err(AnswerError::msg("this agent is not connected")),
            None => Err(AnswerError::msg(format!("unknown agent `{agent_id}`"))),
        }
    }

    fn client_of_session(&self, session_id: &str) -> Result<AgentClient, AnswerError> {
        let agent_id = self
            .state()
            .session(session_id)
            .map(|s| s.agent_id.clone())
            .ok_or_else(|| AnswerError::msg(format!("no open session `{session_id}`")))?;
        self.client_of_agent(&agent_id)
    }

    fn client_of_dialog(&self, dialog_id: u64) -> Result<AgentClient, AnswerError> {
        let agent_id = self
            .state()
            .dialog(dialog_id)
            .map(|p| p.agent_id().to_string())
            .ok_or_else(|| AnswerError::msg(format!("no pending dialog {dialog_id}")))?;
        self.client_of_agent(&agent_id)
    }

    /// The protocol inspector's view of an agent: redacted wire lines after `since`, and the
    /// agent's stderr tail.
    pub fn protocol_log(&self, agent_id: &str, since: u64) -> Result<ProtocolLog, AnswerError> {
        let state = self.state();
        let conn = state
            .conns
            .get(agent_id)
            .ok_or_else(|| AnswerError::msg(format!("agent `{agent_id}` has not been started")))?;
        let stderr = conn.client.as_ref().map(|c| c.stderr_tail()).unwrap_or_default();
        Ok(ProtocolLog {
            entries: conn.inspector.since(since).into_iter().map(Into::into).collect(),
            stderr_tail: stderr,
        })
    }

    pub fn dialog_shown(&self, dialog_id: u64) {
        let arrived = self
            .state()
            .conns
            .values_mut()
            .find_map(|c| c.dialogs.get_mut(&dialog_id))
            .and_then(|p| p.arrived.take());
        if let Some(arrived) = arrived {
            self.0.metrics.dialog_shown(dialog_id, arrived);
            tracing::info!(target: "porthole::latency", dialog_id, ms = arrived.elapsed().as_secs_f64() * 1e3, "dialog interactive");
        }
    }

    /// The benchmark counters (IPC batches, dialog and answer latencies).
    pub fn perf_stats(&self) -> metrics::PerfStats {
        self.0.metrics.snapshot()
    }

    /// Stop every agent before the process exits, so none is left running.
    /// Called from outside the runtime (the app's exit).
    pub fn stop_blocking(&self) {
        let runtime = self.0.runtime.clone();
        runtime.block_on(self.stop());
    }

    /// Stop every agent (and close the sealed views).
    pub async fn stop(&self) {
        self.0.closing.send_replace(true);
        self.0.sealed.close_all(Duration::from_secs(1));
        let clients: Vec<AgentClient> = self
            .state()
            .conns
            .values_mut()
            .filter_map(|c| c.client.take())
            .collect();
        for client in clients {
            let _ = tokio::time::timeout(Duration::from_secs(5), client.shutdown()).await;
        }
        // The exits are reported once the agents are gone; wait until each connection applied
        // its own (waiting dialogs recorded as dismissed in the history) and send the window
        // the last batch, so what it and the history get does not depend on timing.
        let mut running = self.0.event_loops.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(5), running.wait_for(|n| *n == 0)).await;
        self.flush();
    }
}

/// Core events serialize to exactly the UI's `UiEvent` shapes.
fn event_json(event: &Event) -> Value {
    serde_json::to_value(event).unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()}))
}
