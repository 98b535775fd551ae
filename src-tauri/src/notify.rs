//! Telling the user that a dialog waits while the window is in the background: the window's
//! attention request, an OS notification whose click brings the window (and so the dialog)
//! forward, and the number of waiting dialogs in the window title.

use tauri::{AppHandle, Manager, UserAttentionType};

/// The window title: "Porthole" or "Porthole (2 waiting)". Posted to the main thread, never
/// waited for: the caller is the event flusher, which must not stop while the main thread is busy.
pub fn set_waiting_count(app: &AppHandle, waiting: usize) {
    let title = match waiting {
        0 => "Porthole".to_string(),
        n => format!("Porthole ({n} waiting)"),
    };
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        if let Some(window) = handle.get_webview_window("main") {
            let _ = window.set_title(&title);
        }
    });
}

/// Ask for attention if the window is not focused. `body` must already be plain
/// (`porthole_app::plain`).
pub fn dialog_waiting(app: &AppHandle, summary: &str, body: &str) {
    let summary = summary.to_string();
    let body = body.to_string();
    let app = app.clone();
    // Asking the window whether it has focus waits for the main thread, and showing the
    // notification and waiting for its click block on D-Bus: all of it off the async runtime,
    // so the events of the agent that asked keep flowing meanwhile.
    std::thread::spawn(move || {
        let Some(window) = app.get_webview_window("main") else {
            return;
        };
        if window.is_focused().unwrap_or(false) {
            return;
        }
        let _ = window.request_user_attention(Some(UserAttentionType::Informational));
        let shown = notify_rust::Notification::new()
            .appname("Porthole")
            .summary(&summary)
            .body(&body)
            .action("default", "Show")
            .show();
        match shown {
            Ok(handle) => handle.wait_for_action(|action| {
                if action == "default"
                    && let Some(window) = app.get_webview_window("main")
                {
                    let _ = window.unminimize();
                    let _ = window.show();
                    let _ = window.set_focus();
                }
            }),
            // No notification daemon (a bare X session, CI): the attention request remains.
            Err(e) => tracing::info!("no OS notification: {e}"),
        }
    });
}
