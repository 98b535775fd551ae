//! The types the window's commands take and return, under the names `command_list.rs` uses:
//! the functions in commands.rs and the test that writes their TypeScript both read them here.

pub(crate) use std::collections::BTreeMap;

pub(crate) use porthole_app::settings::Settings;
pub(crate) use porthole_app::{
    Attachment, DomainMark, HistoryExport, HistoryFilter, HistoryPage, McpAppPermissions, McpConnectionList,
    McpImported, McpRegistryAdded, McpRegistryCheck, McpRegistryChoice, McpRegistryForm, McpRegistryResults,
    McpTool, McpToolResult, NewServer, PerfStats, ProtocolLog, RegistryListing, SessionList, SessionView,
    WindowState,
};
pub(crate) use porthole_core::DialogAnswer;
pub(crate) use porthole_core::form::Validation;
pub(crate) use serde_json::Value;

/// A form's values by field name, as the window sends them (`FormContent` in TypeScript).
pub(crate) type FormValues = serde_json::Map<String, Value>;

/// The channel the window's event batches arrive on (each batch serialized once).
pub(crate) type EventChannel = tauri::ipc::Channel<Box<serde_json::value::RawValue>>;
