//! What a v2 session keeps beyond v1's [`Session`]: its history (replayed by `session/resume`),
//! its config options (v2 has no modes), whether it is still open, the one turn it runs at a
//! time, and its background work.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::Error;
use agent_client_protocol::v2::schema;
use serde_json::json;
use tokio::sync::watch;

use crate::state::Session;
use crate::v2::typed;

/// The session's `mode` config option: whether `/edit` and `/test` ask first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Ask,
    Auto,
}

impl Mode {
    pub fn id(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Auto => "auto",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        match id {
            "ask" => Some(Mode::Ask),
            "auto" => Some(Mode::Auto),
            _ => None,
        }
    }
}

/// Work a session keeps doing after its turn ended (`/background`), by tool call id: sending
/// `true` stops it (`tool_call/cancel`).
pub type Background = BTreeMap<String, watch::Sender<bool>>;

pub struct V2Session {
    pub base: Arc<Session>,
    /// The session that started this one (`/subagent`'s child); such a session is not listed.
    pub parent: Option<String>,
    pub history: Mutex<Vec<schema::SessionUpdate>>,
    pub mode: Mutex<Mode>,
    pub title: Mutex<Option<String>>,
    open: AtomicBool,
    /// Held by the running turn: a prompt sent meanwhile waits for it (v2 holds, never refuses).
    pub turn: tokio::sync::Mutex<()>,
    pub background: Mutex<Background>,
    /// The terminals the agent runs (`/test`), by terminal id: sending `true` stops one
    /// (`terminal/cancel`).
    pub terminals: Mutex<Background>,
}

impl V2Session {
    pub fn new(base: Arc<Session>, parent: Option<String>) -> Self {
        Self {
            base,
            parent,
            history: Mutex::new(Vec::new()),
            mode: Mutex::new(Mode::Ask),
            title: Mutex::new(None),
            open: AtomicBool::new(true),
            turn: tokio::sync::Mutex::new(()),
            background: Mutex::new(Background::new()),
            terminals: Mutex::new(Background::new()),
        }
    }

    pub fn id(&self) -> &str {
        &self.base.id
    }

    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst)
    }

    pub fn set_open(&self, open: bool) {
        self.open.store(open, Ordering::SeqCst);
    }

    pub fn record(&self, update: schema::SessionUpdate) {
        self.history.lock().unwrap().push(update);
    }

    /// The background work to list in a `state_update`.
    pub fn background_work(&self) -> Vec<schema::BackgroundWork> {
        self.background
            .lock()
            .unwrap()
            .keys()
            .map(|id| schema::BackgroundWork::ToolCall(schema::BackgroundToolCall::new(id.clone())))
            .collect()
    }

    /// The session's config options as v2 sends them.
    pub fn config_options(&self) -> Result<Vec<schema::SessionConfigOption>, Error> {
        let current = self.mode.lock().unwrap().id();
        typed(json!([{
            "configId": "mode",
            "name": "Mode",
            "description": "Whether /edit and /test ask before they write or run",
            "category": "mode",
            "type": "select",
            "currentValue": current,
            "options": [
                { "value": "ask", "name": "Ask", "description": "Ask before editing a file or running a command" },
                { "value": "auto", "name": "Auto", "description": "Edit and run without asking" }
            ]
        }]))
    }
}
