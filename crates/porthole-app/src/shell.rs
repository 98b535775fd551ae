//! What the app model asks of the program around it (the Tauri window, or a test): deliver
//! event batches to the window, tell the user a dialog waits, open a URL in the system browser.
//! Everything else (connections, sessions, dialogs, history) lives in this crate.

use serde_json::value::RawValue;

pub trait Shell: Send + Sync + 'static {
    /// One coalesced batch `{ events: [...] }` for the main window.
    fn deliver(&self, batch: Box<RawValue>) -> Result<(), String>;
    /// The number of dialogs waiting, for the window title. Must not block.
    fn set_waiting_count(&self, waiting: usize);
    /// A dialog arrived: get the user's attention if the window is in the background. `body`
    /// is already plain text (see [`crate::plain`]). Must not block.
    fn dialog_waiting(&self, summary: &str, body: &str);
    /// Open a consented URL in the system browser.
    fn open_in_browser(&self, url: &str) -> Result<(), String>;
}
