//! The app model's [`Shell`] in the Tauri app: batches go to the main window as one Tauri event,
//! the waiting count to its title, attention to notifications, URLs to the system opener.

use porthole_app::{BATCH_EVENT, Shell};
use serde_json::value::RawValue;
use tauri::{AppHandle, Emitter};

pub struct TauriShell(pub AppHandle);

impl Shell for TauriShell {
    fn deliver(&self, batch: Box<RawValue>) -> Result<(), String> {
        self.0
            .emit_to("main", BATCH_EVENT, batch)
            .map_err(|e| e.to_string())
    }

    fn set_waiting_count(&self, waiting: usize) {
        crate::notify::set_waiting_count(&self.0, waiting);
    }

    fn dialog_waiting(&self, summary: &str, body: &str) {
        crate::notify::dialog_waiting(&self.0, summary, body);
    }

    fn open_in_browser(&self, url: &str) -> Result<(), String> {
        use tauri_plugin_opener::OpenerExt;
        self.0
            .opener()
            .open_url(url, None::<&str>)
            .map_err(|e| e.to_string())
    }
}
