//! An MCP connection's questions (`elicitation/create`, taken out of the server's stream by
//! the gateway when the agent declared no elicitation), answered by the same `--elicit` /
//! `--answers` policy as an agent's, and printed as an agent's are with the connection named:
//! `"mcpConnection": NAME` on the JSON line, "The MCP server NAME asks (through AGENT's
//! session)" in text. The request goes through core's broker rules first (form schema, secret
//! detection, URL analysis), so a form asking for a password is cancelled under
//! `--elicit accept` here too, and a URL is only consented to, never opened.

use std::sync::{Arc, Mutex};

use porthole_connections::gateway::{Asker, BoxFuture, Questions, Unanswered};
use porthole_core::AgentClient;
use porthole_core::broker::{self, Modes, ScopeCheck};
use porthole_core::events::{DialogAnswer, DialogPrompt, ElicitationPrompt, new_dialog_id};
use serde_json::{Value, json};

use crate::policy::{self, Policy};
use crate::term::{self, note};

pub struct CliQuestions {
    policy: Policy,
    json: bool,
    agent: porthole_core::events::AgentIdentity,
    /// The ACP session the connections were handed to, once it is open.
    session: Mutex<Option<String>>,
    /// That session's tool calls as the agent reported them: a question tied to a tools/call
    /// names the agent's tool call it came with (`toolCallId`).
    tool_calls: Mutex<Vec<porthole_core::acp::v1::schema::ToolCall>>,
}

impl CliQuestions {
    pub fn new(policy: Policy, json: bool, client: &AgentClient) -> Arc<Self> {
        Arc::new(Self {
            policy,
            json,
            agent: client.agent(),
            session: Mutex::new(None),
            tool_calls: Mutex::new(Vec::new()),
        })
    }

    /// A session update the run read: its tool calls are kept.
    pub fn seen(&self, session_id: &str, update: &porthole_core::transcript::TranscriptUpdate) {
        if self.session.lock().unwrap_or_else(|p| p.into_inner()).as_deref() == Some(session_id) {
            crate::mcp_apps::fold(
                &mut self.tool_calls.lock().unwrap_or_else(|p| p.into_inner()),
                update,
            );
        }
    }

    /// The agent's tool call the question of `who` came with, if the gateway could tell.
    fn tool_call(&self, who: &Asker) -> Option<String> {
        let call = who.call.as_ref()?;
        let calls = self.tool_calls.lock().unwrap_or_else(|p| p.into_inner());
        crate::mcp_apps::matching(&calls, &call.tool, &call.arguments, &|_| false)
    }

    pub fn session_opened(&self, session_id: &str) {
        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(session_id.to_string());
    }

    /// The request as core's broker reads an agent's, scoped to the ACP session it comes
    /// through (an MCP request has no ACP scope; one the server wrote is not kept).
    fn prompt(&self, request: &Value, tool_call: Option<String>) -> Result<ElicitationPrompt, String> {
        let mut params = request["params"].clone();
        let Some(fields) = params.as_object_mut() else {
            return Err("elicitation/create params must be an object".into());
        };
        for scope in ["sessionId", "requestId", "toolCallId"] {
            fields.remove(scope);
        }
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match &session {
            Some(id) => fields.insert("sessionId".into(), json!(id)),
            None => fields.insert("requestId".into(), request["id"].clone()),
        };
        if let (Some(_), Some(id)) = (&session, tool_call) {
            fields.insert("toolCallId".into(), json!(id));
        }
        let parsed = broker::parse_request(&params, Modes::ALL, &Known(session))
            .map_err(|rejection| rejection.error.message)?;
        Ok(ElicitationPrompt {
            dialog_id: new_dialog_id(),
            agent: self.agent.clone(),
            scope: parsed.scope,
            message: parsed.message,
            kind: parsed.kind,
            warnings: parsed.warnings,
            mcp: None,
        })
    }
}

struct Known(Option<String>);

impl ScopeCheck for Known {
    fn session_known(&self, session_id: &str) -> bool {
        self.0.as_deref() == Some(session_id)
    }
    fn request_in_flight(&self, _: &Value) -> Option<&'static str> {
        None
    }
}

impl Questions for CliQuestions {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            let prompt = match self.prompt(&request, self.tool_call(who)) {
                Ok(p) => p,
                Err(e) => {
                    note!(
                        "porthole-cli: the MCP server {} asked a question Porthole refuses: {}",
                        term::line(&who.connection),
                        term::line(&e)
                    );
                    return Err(Unanswered(e));
                }
            };
            let decision = self.policy.mcp_elicitation(&prompt);
            let dialog = DialogPrompt::Elicitation(Box::new(prompt));
            if self.json {
                let mut line = policy::dialog_json(&dialog, Some(&decision));
                line["mcpConnection"] = json!(who.connection);
                print_line(&line);
            } else {
                note!(
                    "The MCP server {} asks (through {}'s session):",
                    term::line(&who.connection),
                    term::line(&self.agent.display_name())
                );
                policy::dialog_text(&dialog, Some(&decision));
            }
            Ok(match decision.answer {
                DialogAnswer::Elicitation {
                    action,
                    content: Some(content),
                } => json!({"action": action.name(), "content": content}),
                DialogAnswer::Elicitation { action, .. } => json!({"action": action.name()}),
                _ => json!({"action": "cancel"}),
            })
        })
    }

    fn completed(&self, who: &Asker, notification: Value) {
        let id = notification["params"]["elicitationId"]
            .as_str()
            .unwrap_or_default();
        if self.json {
            print_line(
                &json!({"type": "elicitation_complete", "elicitationId": id, "known": true,
                "mcpConnection": who.connection}),
            );
        } else {
            note!(
                "[elicitation complete] {} known=true (the MCP server {})",
                term::line(id),
                term::line(&who.connection)
            );
        }
    }
}

/// One JSON line, written at once: questions come from the gateway's tasks, beside the run's
/// own `Output`, whose lines are whole writes too.
fn print_line(value: &Value) {
    use std::io::Write;
    let mut line = crate::json_line::to_line(value);
    line.push('\n');
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(line.as_bytes());
    let _ = stdout.flush();
}
