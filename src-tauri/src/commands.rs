//! Tauri commands: each maps one UI request onto the backend. No logic lives here.

use serde_json::{Map, Value};
use tauri::{Manager, State};

use crate::backend::{AnswerError, Backend, Launch};

type Result<T> = std::result::Result<T, AnswerError>;

#[tauri::command]
async fn app_state(backend: State<'_, Backend>) -> Result<Value> {
    Ok(backend.app_state())
}

#[tauri::command]
async fn send_prompt(backend: State<'_, Backend>, text: String) -> Result<()> {
    backend.send_prompt(&text)
}

#[tauri::command]
async fn cancel_turn(backend: State<'_, Backend>) -> Result<()> {
    backend.cancel_turn()
}

#[tauri::command]
async fn restart_agent(backend: State<'_, Backend>) -> Result<()> {
    backend.restart();
    Ok(())
}

#[tauri::command]
async fn validate_form(
    backend: State<'_, Backend>,
    dialog_id: u64,
    content: Map<String, Value>,
) -> Result<Value> {
    backend.validate_form(dialog_id, &content)
}

#[tauri::command]
async fn answer_elicitation(
    backend: State<'_, Backend>,
    dialog_id: u64,
    action: String,
    content: Option<Map<String, Value>>,
) -> Result<()> {
    backend.answer_elicitation(dialog_id, &action, content)
}

#[tauri::command]
async fn answer_permission(
    backend: State<'_, Backend>,
    dialog_id: u64,
    option_id: Option<String>,
) -> Result<()> {
    backend.answer_permission(dialog_id, option_id)
}

#[tauri::command]
async fn open_url(
    app: tauri::AppHandle,
    backend: State<'_, Backend>,
    dialog_id: u64,
    target: String,
) -> Result<()> {
    backend.open_url(&app, dialog_id, &target)
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

pub fn run(launch: Launch) {
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(tauri::generate_handler![
            app_state,
            send_prompt,
            cancel_turn,
            restart_agent,
            validate_form,
            answer_elicitation,
            answer_permission,
            open_url,
            close_url_view,
            dialog_shown,
        ])
        .setup(move |app| {
            let backend = Backend::new(app.handle().clone(), launch);
            backend.start();
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
