//! What gets recorded: one [`NewEntry`] per user decision (or dismissal), built from the
//! prompt the user saw. Form values pass through the secret detector here, so no caller can
//! store a secret field by mistake.

use agent_client_protocol::v1::schema::{PermissionOption, PermissionOptionKind, ToolCallUpdate};
use rusqlite::params;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{HistoryStore, Result, domain_of, now_ms};
use porthole_core::events::{DismissReason, ElicitationKind, ElicitationPrompt, Event, PermissionPrompt};
use porthole_core::form::{FormSchema, secret_fields, secret_outside_fields};
use porthole_core::inspector::redact_url_queries;

/// How an elicitation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElicitationOutcome {
    Accept,
    Decline,
    Cancel,
    /// It went away without the user (the agent withdrew it, the agent exited, ...).
    Dismissed(DismissReason),
}

/// How a permission request ended.
#[derive(Debug, Clone, Copy)]
pub enum PermissionOutcome<'a> {
    Selected(&'a PermissionOption),
    /// The user closed the dialog without choosing (answered `cancelled`).
    Cancelled,
    Dismissed(&'a DismissReason),
}

/// One row to insert. Built only through the constructors.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub(super) time_ms: i64,
    pub(super) agent_id: String,
    pub(super) agent_name: String,
    pub(super) session_id: Option<String>,
    pub(super) tool_call_id: Option<String>,
    pub(super) kind: &'static str,
    pub(super) message: String,
    pub(super) url: Option<String>,
    pub(super) domain: Option<String>,
    pub(super) warnings: Vec<String>,
    pub(super) action: &'static str,
    pub(super) detail: Option<String>,
    pub(super) values: Option<Value>,
    pub(super) tool_title: Option<String>,
    pub(super) tool_kind: Option<String>,
    pub(super) option_id: Option<String>,
    pub(super) option_name: Option<String>,
    pub(super) option_kind: Option<String>,
}

/// The snake_case name serde gives an enum value (`agent_exited`, `allow_once`).
fn wire_name(value: &impl Serialize) -> Option<String> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
}

impl NewEntry {
    fn blank(agent_id: &str, agent_name: String, kind: &'static str, action: &'static str) -> Self {
        NewEntry {
            time_ms: now_ms(),
            agent_id: agent_id.to_string(),
            agent_name,
            session_id: None,
            tool_call_id: None,
            kind,
            message: String::new(),
            url: None,
            domain: None,
            warnings: Vec::new(),
            action,
            detail: None,
            values: None,
            tool_title: None,
            tool_kind: None,
            option_id: None,
            option_name: None,
            option_kind: None,
        }
    }

    /// An elicitation's outcome (kept under [`asker`]). `values` are the submitted form values, passed only when the
    /// user chose to keep them; fields the secret detector flags are dropped, and so is
    /// everything when the message or form itself asks for a secret.
    pub fn elicitation(
        agent_id: &str,
        prompt: &ElicitationPrompt,
        outcome: &ElicitationOutcome,
        values: Option<&Map<String, Value>>,
    ) -> Self {
        let action = match outcome {
            ElicitationOutcome::Accept => "accept",
            ElicitationOutcome::Decline => "decline",
            ElicitationOutcome::Cancel => "cancel",
            ElicitationOutcome::Dismissed(_) => "dismissed",
        };
        let (agent_id, agent_name) = asker(agent_id, prompt);
        let mut entry = Self::blank(&agent_id, agent_name, prompt.mode_name(), action);
        entry.session_id = prompt.scope.session_id().map(str::to_string);
        entry.tool_call_id = prompt.scope.tool_call_id().map(str::to_string);
        // Query values and fragments (OAuth `code`, `state`, tokens) are not kept at rest,
        // in the URL nor in a message that repeats it; the keys and the domain are.
        entry.message = redact_url_queries(&prompt.message);
        entry.warnings = prompt.warnings.clone();
        if let ElicitationOutcome::Dismissed(reason) = outcome {
            entry.detail = wire_name(reason);
        }
        match &prompt.kind {
            ElicitationKind::Url { url, .. } => {
                entry.url = Some(redact_url_queries(&url.full));
                entry.domain = Some(domain_of(url));
            }
            ElicitationKind::Form { schema, .. } => {
                if *outcome == ElicitationOutcome::Accept {
                    entry.values = values.and_then(|v| storable_values(&prompt.message, schema, v));
                }
            }
        }
        entry
    }

    /// A permission request answered (or not) by the user.
    pub fn permission(agent_id: &str, prompt: &PermissionPrompt, outcome: PermissionOutcome<'_>) -> Self {
        let action = match outcome {
            PermissionOutcome::Selected(_) => "selected",
            PermissionOutcome::Cancelled => "cancel",
            PermissionOutcome::Dismissed(_) => "dismissed",
        };
        let (agent_id, agent_name) = asker_of(agent_id, &prompt.agent, prompt.mcp.as_ref());
        let mut entry = Self::blank(&agent_id, agent_name, "permission", action);
        entry.warnings = prompt.warnings.clone();
        entry.set_tool_call(&prompt.session_id, &prompt.tool_call, &prompt.tool_kind);
        match outcome {
            PermissionOutcome::Selected(option) => {
                entry.set_option(&option.option_id.0, &option.name, &option.kind);
            }
            PermissionOutcome::Cancelled => {}
            PermissionOutcome::Dismissed(reason) => entry.detail = wire_name(reason),
        }
        entry
    }

    /// A permission request answered by a remembered "always" decision: built from
    /// `Event::PermissionAuto` (`None` for any other event).
    pub fn permission_auto(agent_id: &str, agent_name: &str, event: &Event) -> Option<Self> {
        let Event::PermissionAuto {
            session_id,
            tool_call,
            option_id,
            option_name,
            option_kind,
            tool_kind,
            ..
        } = event
        else {
            return None;
        };
        let mut entry = Self::blank(agent_id, agent_name.to_string(), "permission", "auto");
        entry.set_tool_call(session_id, tool_call, tool_kind);
        entry.set_option(option_id, option_name, option_kind);
        Some(entry)
    }

    fn set_tool_call(&mut self, session_id: &str, tool_call: &ToolCallUpdate, tool_kind: &str) {
        self.session_id = Some(session_id.to_string());
        self.tool_call_id = Some(tool_call.tool_call_id.0.to_string());
        self.tool_title = tool_call.fields.title.clone();
        self.tool_kind = Some(tool_kind.to_string());
        // The title is what the user read in the dialog: it is the entry's message.
        self.message = tool_call.fields.title.clone().unwrap_or_default();
    }

    fn set_option(&mut self, id: &str, name: &str, kind: &PermissionOptionKind) {
        self.option_id = Some(id.to_string());
        self.option_name = Some(name.to_string());
        self.option_kind = wire_name(kind);
        self.detail = Some(name.to_string());
    }
}

/// The submitted values minus secrets, or `None` when no value can be kept safely.
fn storable_values(message: &str, schema: &FormSchema, values: &Map<String, Value>) -> Option<Value> {
    if secret_outside_fields(message, schema) {
        return None;
    }
    let secret = secret_fields(schema);
    let kept: Map<String, Value> = values
        .iter()
        .filter(|(name, _)| schema.field(name).is_some() && !secret.contains(&name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    Some(Value::Object(kept))
}

impl HistoryStore {
    /// Insert one entry; returns its id.
    pub fn record(&self, e: &NewEntry) -> Result<i64> {
        let warnings = serde_json::to_string(&e.warnings).unwrap_or_else(|_| "[]".into());
        let values = e.values.as_ref().map(Value::to_string);
        let conn = self.conn();
        conn.execute(
            "INSERT INTO entries (time_ms, agent_id, agent_name, session_id, tool_call_id, kind,
                 message, url, domain, warnings, action, detail, form_values,
                 tool_title, tool_kind, option_id, option_name, option_kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
            params![
                e.time_ms,
                e.agent_id,
                e.agent_name,
                e.session_id,
                e.tool_call_id,
                e.kind,
                e.message,
                e.url,
                e.domain,
                warnings,
                e.action,
                e.detail,
                values,
                e.tool_title,
                e.tool_kind,
                e.option_id,
                e.option_name,
                e.option_kind,
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }
}

/// Who a question is kept under: the agent, or for an MCP connection's question (asked
/// through Porthole's gateway in the agent's session) the connection, as `mcp/NAME`, so its
/// consents, domain counts and trusted domains are the server's own, never the agent's.
pub fn asker(agent_id: &str, prompt: &ElicitationPrompt) -> (String, String) {
    asker_of(agent_id, &prompt.agent, prompt.mcp.as_ref())
}

/// [`asker`] for any dialog: an MCP App's tool call (a permission dialog with `mcp`) is kept
/// under its connection too.
fn asker_of(
    agent_id: &str,
    agent: &porthole_core::events::AgentIdentity,
    mcp: Option<&porthole_core::events::McpAsker>,
) -> (String, String) {
    match mcp {
        Some(mcp) => (
            format!("mcp/{}", mcp.connection),
            format!(
                "the MCP server {} (through {}'s session)",
                mcp.connection,
                agent.display_name()
            ),
        ),
        None => (agent_id.to_string(), agent.display_name()),
    }
}
