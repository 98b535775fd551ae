//! Tauri commands: each maps one UI request onto the app model (porthole-app's `Backend`). No
//! logic lives here.

use serde_json::{Map, Value};
use tauri::{Manager, State};

use porthole_app::{
    AnswerError, Attachment, Backend, HistoryExport, Launch, McpConnectionList, McpImported, McpTool,
    NewServer, PerfStats, ProtocolLog, RegistryListing, SessionList, SessionView, WindowState,
};
use porthole_core::DialogAnswer;
use porthole_core::form::Validation;

type Result<T> = std::result::Result<T, AnswerError>;

/// The window's event stream: every batch of the app model's events from now on.
#[tauri::command]
fn subscribe_events(
    window: State<'_, std::sync::Arc<crate::shell::WindowChannel>>,
    channel: tauri::ipc::Channel<Box<serde_json::value::RawValue>>,
) {
    window.set(channel);
}

#[tauri::command]
async fn app_state(backend: State<'_, Backend>) -> Result<WindowState> {
    Ok(backend.app_state())
}

#[tauri::command]
async fn connect_agent(backend: State<'_, Backend>, agent_id: String) -> Result<()> {
    backend.connect_agent(&agent_id)
}

#[tauri::command]
async fn restart_agent(backend: State<'_, Backend>, agent_id: String) -> Result<()> {
    backend.restart(&agent_id)
}

#[tauri::command]
async fn new_session(
    backend: State<'_, Backend>,
    agent_id: String,
    cwd: String,
    additional_directories: Option<Vec<String>>,
) -> Result<SessionView> {
    let additional = additional_directories.unwrap_or_default();
    backend.new_session_in(&agent_id, &cwd, &additional).await
}

#[tauri::command]
async fn list_sessions(
    backend: State<'_, Backend>,
    agent_id: String,
    cwd: Option<String>,
    cursor: Option<String>,
) -> Result<SessionList> {
    backend.list_sessions(&agent_id, cwd, cursor).await
}

#[tauri::command]
async fn load_session(
    backend: State<'_, Backend>,
    agent_id: String,
    session_id: String,
    cwd: String,
    additional_directories: Option<Vec<String>>,
) -> Result<SessionView> {
    let additional = additional_directories.unwrap_or_default();
    backend
        .load_session(&agent_id, &session_id, &cwd, &additional)
        .await
}

#[tauri::command]
async fn resume_session(
    backend: State<'_, Backend>,
    agent_id: String,
    session_id: String,
    cwd: String,
    additional_directories: Option<Vec<String>>,
) -> Result<SessionView> {
    let additional = additional_directories.unwrap_or_default();
    backend
        .resume_session(&agent_id, &session_id, &cwd, &additional)
        .await
}

#[tauri::command]
async fn delete_session(backend: State<'_, Backend>, agent_id: String, session_id: String) -> Result<()> {
    backend.delete_session(&agent_id, &session_id).await
}

#[tauri::command]
async fn logout(backend: State<'_, Backend>, agent_id: String) -> Result<()> {
    backend.logout(&agent_id).await
}

#[tauri::command]
async fn close_session(backend: State<'_, Backend>, session_id: String) -> Result<()> {
    backend.close_session(&session_id).await
}

#[tauri::command]
async fn authenticate(backend: State<'_, Backend>, agent_id: String, method_id: String) -> Result<()> {
    backend.authenticate(&agent_id, &method_id).await
}

#[tauri::command]
async fn start_terminal_auth(
    backend: State<'_, Backend>,
    agent_id: String,
    method_id: String,
) -> Result<String> {
    backend.start_terminal_auth(&agent_id, &method_id).await
}

#[tauri::command]
async fn terminal_input(backend: State<'_, Backend>, terminal_id: String, text: String) -> Result<()> {
    backend.terminal_input(&terminal_id, &text).await
}

#[tauri::command]
async fn send_prompt(
    backend: State<'_, Backend>,
    session_id: String,
    text: String,
    attachments: Option<Vec<Attachment>>,
) -> Result<()> {
    backend.send_prompt(&session_id, &text, &attachments.unwrap_or_default())
}

#[tauri::command]
async fn cancel_turn(backend: State<'_, Backend>, session_id: String) -> Result<()> {
    backend.cancel_turn(&session_id)
}

#[tauri::command]
async fn set_mode(backend: State<'_, Backend>, session_id: String, mode_id: String) -> Result<()> {
    backend.set_mode(&session_id, &mode_id).await
}

#[tauri::command]
async fn set_model(backend: State<'_, Backend>, session_id: String, model_id: String) -> Result<()> {
    backend.set_model(&session_id, &model_id).await
}

#[tauri::command]
async fn fork_session(backend: State<'_, Backend>, session_id: String) -> Result<SessionView> {
    backend.fork_session(&session_id).await
}

#[tauri::command]
async fn set_config_option(
    backend: State<'_, Backend>,
    session_id: String,
    config_id: String,
    value: Value,
) -> Result<()> {
    backend.set_config_option(&session_id, &config_id, value).await
}

#[tauri::command]
async fn revoke_permission_rule(backend: State<'_, Backend>, rule_id: u64) -> Result<()> {
    backend.revoke_permission_rule(rule_id)
}

#[tauri::command]
async fn save_settings(
    backend: State<'_, Backend>,
    settings: porthole_app::settings::Settings,
) -> Result<()> {
    backend.save_settings(settings)
}

#[tauri::command]
async fn protocol_log(
    backend: State<'_, Backend>,
    agent_id: String,
    since: Option<u64>,
) -> Result<ProtocolLog> {
    backend.protocol_log(&agent_id, since.unwrap_or(0))
}

#[tauri::command]
async fn validate_form(
    backend: State<'_, Backend>,
    dialog_id: u64,
    content: Map<String, Value>,
) -> Result<Validation> {
    backend.validate_form(dialog_id, &content)
}

/// Answer a waiting dialog of any kind (`{"type": "permission", "optionId": ...}`, ...).
#[tauri::command]
async fn answer_dialog(backend: State<'_, Backend>, dialog_id: u64, answer: DialogAnswer) -> Result<()> {
    backend.answer_dialog(dialog_id, answer)
}

#[tauri::command]
async fn open_url(backend: State<'_, Backend>, dialog_id: u64, target: String) -> Result<()> {
    backend.open_url(dialog_id, &target)
}

#[tauri::command]
async fn close_url_view(backend: State<'_, Backend>, dialog_id: u64) -> Result<()> {
    backend.close_url_view(dialog_id);
    Ok(())
}

#[tauri::command]
async fn dialog_shown(backend: State<'_, Backend>, dialog_id: u64) -> Result<()> {
    backend.dialog_shown(dialog_id);
    Ok(())
}

#[tauri::command]
async fn history_list(
    backend: State<'_, Backend>,
    filter: Option<porthole_history::HistoryFilter>,
) -> Result<porthole_history::HistoryPage> {
    backend.history_list(&filter.unwrap_or_default())
}

#[tauri::command]
async fn history_export(backend: State<'_, Backend>) -> Result<HistoryExport> {
    backend.history_export()
}

#[tauri::command]
async fn history_clear(backend: State<'_, Backend>) -> Result<usize> {
    backend.history_clear()
}

#[tauri::command]
async fn domain_marks(backend: State<'_, Backend>) -> Result<Vec<porthole_history::DomainMark>> {
    backend.domain_marks()
}

#[tauri::command]
async fn set_domain_trust(
    backend: State<'_, Backend>,
    agent_id: String,
    agent_name: String,
    domain: String,
    trusted: bool,
) -> Result<()> {
    backend.set_domain_trust(&agent_id, &agent_name, &domain, trusted)
}

/// Benchmark counters (see docs/benchmarks-app.md).
#[tauri::command]
async fn perf_stats(backend: State<'_, Backend>) -> Result<PerfStats> {
    Ok(backend.perf_stats())
}

#[tauri::command]
async fn registry_agents(backend: State<'_, Backend>) -> Result<RegistryListing> {
    backend.registry_agents().await
}

#[tauri::command]
async fn registry_icon(backend: State<'_, Backend>, url: String) -> Result<String> {
    backend.registry_icon(url).await
}

#[tauri::command]
async fn install_agent(backend: State<'_, Backend>, registry_id: String) -> Result<String> {
    backend.install_agent(registry_id).await
}

/// Cancel the install of `registry_id` under way; `false` when there is none.
#[tauri::command]
async fn cancel_install(backend: State<'_, Backend>, registry_id: String) -> Result<bool> {
    Ok(backend.cancel_install(&registry_id))
}

#[tauri::command]
async fn remove_agent(backend: State<'_, Backend>, registry_id: String) -> Result<()> {
    backend.remove_agent(registry_id).await
}

#[tauri::command]
async fn save_sign_in(
    backend: State<'_, Backend>,
    agent_id: String,
    method_id: String,
    values: std::collections::BTreeMap<String, String>,
) -> Result<()> {
    backend.save_sign_in(&agent_id, &method_id, values).await
}

#[tauri::command]
async fn forget_sign_in(backend: State<'_, Backend>, agent_id: String) -> Result<()> {
    backend.forget_sign_in(&agent_id).await
}

/// The person's MCP connections, with their sign-in and the sessions that have them.
#[tauri::command]
async fn mcp_connections(backend: State<'_, Backend>) -> Result<McpConnectionList> {
    Ok(backend.mcp_connections().await)
}

#[tauri::command]
async fn mcp_tools(backend: State<'_, Backend>, name: String) -> Result<Vec<McpTool>> {
    backend.mcp_tools(&name).await
}

#[tauri::command]
async fn mcp_set_enabled(backend: State<'_, Backend>, name: String, on: bool) -> Result<()> {
    backend.mcp_set_enabled(&name, on)
}

#[tauri::command]
async fn mcp_sign_out(backend: State<'_, Backend>, name: String) -> Result<String> {
    backend.mcp_sign_out(&name).await
}

#[tauri::command]
async fn mcp_remove(backend: State<'_, Backend>, name: String) -> Result<String> {
    backend.mcp_remove(&name).await
}

/// Start a sign-in: its consent dialog arrives in the dialog list; returns its id.
#[tauri::command]
async fn mcp_sign_in(backend: State<'_, Backend>, name: String, client_id: Option<String>) -> Result<u64> {
    backend.mcp_sign_in(&name, client_id).await
}

#[tauri::command]
async fn mcp_add(backend: State<'_, Backend>, name: String, server: NewServer) -> Result<()> {
    backend.mcp_add(&name, server)
}

/// Import another client's MCP servers from pasted text.
#[tauri::command]
async fn mcp_import(backend: State<'_, Backend>, text: String) -> Result<Vec<McpImported>> {
    backend.mcp_import(&text)
}

/// Registers the one list of commands (src/command_list.rs) with Tauri.
macro_rules! handler {
    ($($name:ident),* $(,)?) => {
        tauri::generate_handler![$($name),*]
    };
}

pub fn run(launch: Launch, companion_only: bool) {
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(with_app_commands!(handler))
        .setup(move |app| {
            std::thread::spawn(crate::sealed_view::sweep_left_behind);
            let window = std::sync::Arc::new(crate::shell::WindowChannel::default());
            app.manage(window.clone());
            let shell = std::sync::Arc::new(crate::shell::TauriShell {
                app: app.handle().clone(),
                window,
            });
            let runtime = tauri::async_runtime::handle().inner().clone();
            let backend = Backend::new(shell, runtime.clone(), launch);
            if !companion_only {
                backend.start();
            }
            // Editors' proxies (`porthole proxy`) find this app at the companion socket.
            let companion = backend.clone();
            runtime.spawn(async move {
                let path = porthole_companion::socket::socket_path();
                // A refusal is logged and shown in the window by the app model.
                let _ = companion.serve_companion(path).await;
            });
            app.manage(backend);
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"));
    match result {
        Ok(app) => app.run(|handle, event| {
            if let tauri::RunEvent::Exit = event
                && let Some(backend) = handle.try_state::<Backend>()
            {
                backend.stop_blocking();
            }
        }),
        Err(e) => {
            eprintln!("porthole: cannot start the window: {e}");
            std::process::exit(1);
        }
    }
}
