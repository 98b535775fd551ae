//! The app model's [`Shell`] in the Tauri app: batches go to the main window over the channel it
//! subscribed with, the waiting count to its title, attention to notifications, URLs to the
//! system opener.

use std::sync::{Arc, Mutex};

use porthole_app::Shell;
use serde_json::value::RawValue;
use tauri::AppHandle;
use tauri::ipc::Channel;

/// The main window's event channel, set by its `subscribe_events` command.
///
/// A channel rather than a Tauri event: an event is delivered by evaluating a script with the
/// batch inline, so the web process parses every batch as JavaScript source, and a streamed 20 MB
/// message left that much garbage behind. A channel hands a batch over 8 KB to the window as a
/// fetch response it reads with `JSON.parse`.
#[derive(Default)]
pub struct WindowChannel(Mutex<Option<Channel<Box<RawValue>>>>);

impl WindowChannel {
    /// The window (re)subscribed: a reloaded page replaces its old channel.
    pub fn set(&self, channel: Channel<Box<RawValue>>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(channel);
    }
}

pub struct TauriShell {
    pub app: AppHandle,
    pub window: Arc<WindowChannel>,
}

impl Shell for TauriShell {
    fn deliver(&self, batch: Box<RawValue>) -> Result<(), String> {
        let channel = self.window.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // Before the window subscribes there is no one to tell: it reads `app_state` next.
        match channel {
            Some(channel) => channel.send(batch).map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    fn set_waiting_count(&self, waiting: usize) {
        crate::notify::set_waiting_count(&self.app, waiting);
    }

    fn dialog_waiting(&self, summary: &str, body: &str) {
        crate::notify::dialog_waiting(&self.app, summary, body);
    }

    fn open_in_browser(&self, url: &str) -> Result<(), String> {
        use tauri_plugin_opener::OpenerExt;
        self.app
            .opener()
            .open_url(url, None::<&str>)
            .map_err(|e| e.to_string())
    }
}
