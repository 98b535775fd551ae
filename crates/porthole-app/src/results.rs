//! What the window's commands return besides the snapshot's types: typed here, their
//! TypeScript generated (`ui_contract.rs`), so `protocol.ts`'s `Commands` names them.

use porthole_core::inspector::Entry;
use porthole_registry::Status;
use serde::Serialize;

/// One page of the agent's stored sessions (`session/list`).
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct SessionList {
    pub sessions: Vec<StoredSession>,
    pub next_cursor: Option<String>,
}

/// A session the agent keeps, as `session/list` reports it.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct StoredSession {
    pub session_id: String,
    pub cwd: String,
    pub additional_directories: Vec<String>,
    pub title: Option<String>,
    pub updated_at: Option<String>,
}

/// The protocol inspector's view of an agent: redacted wire lines, and the agent's stderr tail.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct ProtocolLog {
    pub entries: Vec<InspectorEntry>,
    pub stderr_tail: String,
}

/// One wire line, redacted (URL query values and fragments).
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct InspectorEntry {
    /// Position since the connection started: ask for what came after it.
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    pub seq: u64,
    /// Which way the line went (agent -> client is "incoming").
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"incoming\" | \"outgoing\""))]
    pub direction: porthole_core::transport::Direction,
    /// Milliseconds since the epoch.
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    pub at_ms: u64,
    pub text: String,
    /// The line was too long and was cut.
    pub cut: bool,
    /// Porthole's own note about the traffic (a line it discarded), not a wire line.
    pub note: bool,
}

impl From<Entry> for InspectorEntry {
    fn from(e: Entry) -> Self {
        Self {
            seq: e.seq,
            direction: e.direction,
            at_ms: e.at_ms,
            text: e.text,
            cut: e.cut,
            note: e.note,
        }
    }
}

/// Where the consent history was exported, and how many entries.
#[derive(Clone, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct HistoryExport {
    pub path: String,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    pub count: usize,
}

/// The ACP registry's agents, with what is installed here ("Add agent").
#[derive(Clone, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct RegistryListing {
    pub source: String,
    /// Set when the registry could not be read and the cached copy is shown: why, and its age.
    pub offline: Option<String>,
    pub problems: Vec<String>,
    pub agents: Vec<RegistryAgentView>,
}

/// One agent of the registry.
#[derive(Clone, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct RegistryAgentView {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    /// URL of an SVG/PNG; shown only through `registry_icon` (a data: URL), never loaded by the page.
    pub icon: Option<String>,
    pub website: Option<String>,
    pub license: Option<String>,
    /// How it installs here ("binary", "npx", "uvx"); null when it has no build for this platform.
    pub kind: Option<String>,
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(
            type = "{ status: \"notInstalled\" } | { status: \"installed\"; installed: string } | { status: \"updateAvailable\"; installed: string }"
        )
    )]
    pub status: Status,
}
