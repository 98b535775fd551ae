//! MCP Apps with `--mcp` connections: the gateway declares the UI extension to the servers,
//! notes their UI tools and tells this owner of each call of one. The CLI renders nothing; for
//! each UI tool call that finished it prints (`--json`) `{"type": "mcp_app", "mcpConnection",
//! "tool", "resourceUri", "toolCallId", "sessionId", "ok"}`, `toolCallId` being the agent's ACP
//! tool call it matched (`porthole_connections::tool_match`, the rule the window uses too), `null`
//! when none did. A finished call is printed once it matched (ACP events are read as they come,
//! and the agent may report its tool call's input after the MCP call), or at the end of the
//! turn with `null`. `--mcp-apps off`: no apps, and the gateway declares nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use porthole_connections::gateway::{AppCall, Apps};
use porthole_connections::tool_match::{self, AgentToolCall};
use porthole_core::acp::v1::schema::ToolCall;
use porthole_core::transcript::TranscriptUpdate;
use serde_json::json;

/// The calls the gateway saw finish, waiting to be printed.
#[derive(Default)]
pub struct CliApps {
    finished: Mutex<Vec<(AppCall, bool)>>,
}

impl Apps for CliApps {
    fn started(&self, _: &AppCall) {}
    fn finished(&self, call: &AppCall, outcome: Result<serde_json::Value, serde_json::Value>) {
        let ok = outcome.is_ok_and(|r| r.get("isError") != Some(&json!(true)));
        self.finished
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((call.clone(), ok));
    }
}

/// A session's tool calls as the agent reported them, and the app calls matched to them.
#[derive(Default)]
pub struct Matcher {
    tool_calls: HashMap<String, Vec<ToolCall>>,
    taken: Vec<String>,
}

/// Keep a `tool_call` in `calls` and fold a `tool_call_update` in (one the agent sends first,
/// Gemini CLI after its permission request, starts the call).
pub fn fold(calls: &mut Vec<ToolCall>, update: &TranscriptUpdate) {
    let Some(change) = update.tool_call() else {
        return;
    };
    let known = calls.iter_mut().find(|c| c.tool_call_id == change.tool_call_id);
    match known {
        // A call announced again is the whole call.
        Some(known) if change.opened => {
            if let Ok(call) = ToolCall::try_from(change.to_update()) {
                *known = call;
            }
        }
        Some(known) => known.update(change.fields.clone()),
        None => {
            if let Ok(call) = ToolCall::try_from(change.to_update()) {
                calls.push(call);
            }
        }
    }
}

/// The agent's tool call among `calls` that made the gateway's tools/call `tool` with
/// `arguments` (`tool_match`), `taken` ones left out.
pub fn matching(
    calls: &[ToolCall],
    tool: &str,
    arguments: &serde_json::Value,
    taken: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let recent = calls.iter().map(|c| AgentToolCall {
        id: &c.tool_call_id.0,
        title: Some(c.title.as_str()).filter(|t| !t.is_empty()),
        raw_input: c.raw_input.as_ref(),
    });
    tool_match::matching(recent, tool, arguments, taken)
}

/// One `mcp_app` line's content.
pub struct Line {
    pub call: AppCall,
    pub ok: bool,
    pub session_id: Option<String>,
    pub tool_call_id: Option<String>,
}

impl Matcher {
    /// Keep a session's `tool_call` and fold its `tool_call_update`s in.
    pub fn update(&mut self, session_id: &str, update: &TranscriptUpdate) {
        fold(self.tool_calls.entry(session_id.to_string()).or_default(), update);
    }

    /// The finished calls of `apps` that can be printed now: those that matched a tool call of
    /// `session_id`, or every one when `all` (the turn ended).
    pub fn ready(&mut self, apps: &CliApps, session_id: Option<&str>, all: bool) -> Vec<Line> {
        let mut finished = apps.finished.lock().unwrap_or_else(|p| p.into_inner());
        let empty = Vec::new();
        let calls = session_id.and_then(|s| self.tool_calls.get(s)).unwrap_or(&empty);
        let mut out = Vec::new();
        let mut kept = Vec::new();
        for (call, ok) in finished.drain(..) {
            let taken = |id: &str| self.taken.iter().any(|t| t == id);
            let matched = matching(calls, &call.tool, &call.arguments, &taken);
            if let Some(id) = &matched {
                self.taken.push(id.clone());
            }
            if matched.is_some() || all {
                out.push(Line {
                    call,
                    ok,
                    session_id: session_id.map(str::to_string),
                    tool_call_id: matched,
                });
            } else {
                kept.push((call, ok));
            }
        }
        *finished = kept;
        out
    }
}

impl Line {
    pub fn json(&self) -> serde_json::Value {
        json!({
            "type": "mcp_app",
            "mcpConnection": self.call.who.connection,
            "tool": self.call.tool,
            "resourceUri": self.call.resource_uri,
            "toolCallId": self.tool_call_id,
            "sessionId": self.session_id,
            "ok": self.ok,
        })
    }
}

/// Shared by the gateway (which fills it) and the reader (which prints).
pub type Shared = Arc<CliApps>;
