//! Printing events: JSON lines (`--json`) or short readable text.

use std::io::Write;

use porthole_core::AgentClient;
use porthole_core::acp::v1::schema::{ContentBlock, SessionUpdate};
use porthole_core::events::{ElicitationKind, Event};
use serde_json::{Value, json};

use crate::policy::Decision;

pub struct Output {
    json: bool,
}

impl Output {
    pub fn new(json: bool) -> Self {
        Self { json }
    }

    fn line(&self, value: Value) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{value}");
        let _ = stdout.flush();
    }

    pub fn initialized(&self, client: &AgentClient) {
        let agent = client.agent();
        if self.json {
            self.line(json!({
                "type": "initialized",
                "agent": agent,
                "agentCapabilities": client.init_response().agent_capabilities,
                "authMethods": client.init_response().auth_methods,
            }));
        } else {
            eprintln!(
                "connected to {} {}",
                agent.display_name(),
                agent.version.as_deref().unwrap_or("")
            );
        }
    }

    pub fn session_listing(&self, page: &porthole_core::SessionListing) {
        for s in &page.sessions {
            if self.json {
                self.line(json!({"type": "listed_session", "session": s}));
            } else {
                println!(
                    "{}\t{}\t{}\t{}",
                    s.session_id.0,
                    s.cwd.display(),
                    s.updated_at.as_deref().unwrap_or("-"),
                    s.title.as_deref().unwrap_or("")
                );
            }
        }
    }

    pub fn session(&self, session_id: &str, models: Option<&porthole_core::models::SessionModels>) {
        if self.json {
            self.line(json!({"type": "session", "sessionId": session_id, "models": models}));
        } else if let Some(models) = models {
            let names: Vec<&str> = models
                .available_models
                .iter()
                .map(|m| m.model_id.as_str())
                .collect();
            eprintln!(
                "[session {session_id}] model {} (offers: {})",
                models.current_model_id,
                names.join(", ")
            );
        }
    }

    /// The session's config options after `--config` set them (the agent's full answer).
    pub fn config_options(
        &self,
        session_id: &str,
        options: &[porthole_core::acp::v1::schema::SessionConfigOption],
    ) {
        if self.json {
            self.line(json!({"type": "config_options", "sessionId": session_id, "configOptions": options}));
        } else {
            for option in options {
                let value = match &option.kind {
                    porthole_core::acp::v1::schema::SessionConfigKind::Select(s) => {
                        s.current_value.0.to_string()
                    }
                    porthole_core::acp::v1::schema::SessionConfigKind::Boolean(b) => {
                        b.current_value.to_string()
                    }
                    _ => "?".to_string(),
                };
                eprintln!(
                    "[session {session_id}] {} ({}) = {value}",
                    option.id.0, option.name
                );
            }
        }
    }

    pub fn event(&self, event: &Event, decision: Option<&Decision>) {
        if self.json {
            self.line(json_event(event, decision));
        } else {
            text_event(event, decision);
        }
    }
}

fn json_event(event: &Event, decision: Option<&Decision>) -> Value {
    match event {
        Event::Elicitation(p) => {
            let (action, content, note) = match decision {
                Some(Decision::Elicitation {
                    action,
                    content,
                    note,
                }) => (json!(action), json!(content), json!(note)),
                _ => (Value::Null, Value::Null, Value::Null),
            };
            let (url, elicitation_id, analysis) = match &p.kind {
                ElicitationKind::Url { elicitation_id, url } => {
                    (json!(url.full), json!(elicitation_id), json!(url))
                }
                ElicitationKind::Form { .. } => (Value::Null, Value::Null, Value::Null),
            };
            let (schema, hints) = match &p.kind {
                ElicitationKind::Form { schema, hints, .. } => (json!(schema), json!(hints)),
                ElicitationKind::Url { .. } => (Value::Null, Value::Null),
            };
            json!({
                "type": "elicitation",
                "mode": p.mode_name(),
                "message": p.message,
                "url": url,
                "urlAnalysis": analysis,
                "elicitationId": elicitation_id,
                "sessionId": p.scope.session_id(),
                "toolCallId": p.scope.tool_call_id(),
                "requestId": p.scope.request_id(),
                "during": p.scope.during(),
                "agent": p.agent,
                "warnings": p.warnings,
                "schema": schema,
                "hints": hints,
                "action": action,
                "content": content,
                "note": note,
                "error": Value::Null,
            })
        }
        Event::ElicitationRejected {
            mode,
            message,
            url,
            elicitation_id,
            session_id,
            tool_call_id,
            error,
        } => json!({
            "type": "elicitation",
            "mode": mode,
            "message": message,
            "url": url,
            "elicitationId": elicitation_id,
            "sessionId": session_id,
            "toolCallId": tool_call_id,
            "warnings": [],
            "action": Value::Null,
            "content": Value::Null,
            "error": {"code": error.code, "message": error.message},
        }),
        Event::ElicitationComplete {
            elicitation_id,
            known,
            ..
        } => {
            json!({"type": "elicitation_complete", "elicitationId": elicitation_id, "known": known})
        }
        Event::TurnEnded {
            session_id,
            stop_reason,
            error,
        } => {
            json!({"type": "turn_end", "sessionId": session_id, "stopReason": stop_reason, "error": error})
        }
        Event::Permission(p) => {
            let selected = match decision {
                Some(Decision::Permission { selected }) => json!(selected),
                _ => Value::Null,
            };
            json!({"type": "permission", "sessionId": p.session_id, "toolCall": p.tool_call, "options": p.options, "warnings": p.warnings, "selected": selected})
        }
        Event::FileAccess(p) => {
            let allowed = matches!(decision, Some(Decision::FileAccess { allowed: true }));
            json!({"type": "file_access", "sessionId": p.session_id, "path": p.path, "operation": p.operation, "allowed": allowed})
        }
        other => {
            serde_json::to_value(other).unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()}))
        }
    }
}

fn text_of(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        other => format!(
            "[{}]",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").cloned())
                .unwrap_or_default()
        ),
    }
}

fn text_event(event: &Event, decision: Option<&Decision>) {
    match event {
        Event::SessionUpdate { update, .. } => match update.as_ref() {
            SessionUpdate::AgentMessageChunk(c) => {
                print!("{}", text_of(&c.content));
                let _ = std::io::stdout().flush();
            }
            SessionUpdate::AgentThoughtChunk(c) => eprintln!("[thought] {}", text_of(&c.content)),
            SessionUpdate::ToolCall(t) => eprintln!("[tool] {} ({:?})", t.title, t.status),
            SessionUpdate::ToolCallUpdate(t) => {
                eprintln!("[tool update] {} {:?}", t.tool_call_id.0, t.fields.status)
            }
            SessionUpdate::Plan(p) => {
                for e in &p.entries {
                    eprintln!("[plan] {:?} {}", e.status, e.content);
                }
            }
            _ => {}
        },
        Event::Elicitation(p) => {
            let action = match decision {
                Some(Decision::Elicitation { action, note, .. }) => {
                    format!(
                        "{action}{}",
                        note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default()
                    )
                }
                _ => "unanswered".into(),
            };
            let url = match &p.kind {
                ElicitationKind::Url { url, .. } => format!(" url={}", url.full),
                _ => String::new(),
            };
            eprintln!(
                "[elicitation {} from {}] {:?}{url} warnings={:?} -> {action}",
                p.mode_name(),
                p.agent.display_name(),
                p.message,
                p.warnings
            );
        }
        Event::ElicitationRejected { mode, error, .. } => {
            eprintln!(
                "[elicitation {} refused] {} (code {})",
                mode.as_deref().unwrap_or("?"),
                error.message,
                error.code
            )
        }
        Event::ElicitationComplete {
            elicitation_id,
            known,
            ..
        } => {
            eprintln!("[elicitation complete] {elicitation_id} known={known}")
        }
        Event::ElicitationDismissed { dialog_id, reason }
        | Event::PermissionDismissed { dialog_id, reason } => {
            eprintln!("[dialog {dialog_id} dismissed] {}", reason.describe())
        }
        Event::Permission(p) => {
            let selected = match decision {
                Some(Decision::Permission { selected }) => {
                    selected.clone().unwrap_or_else(|| "cancelled".into())
                }
                _ => "unanswered".into(),
            };
            let title = p.tool_call.fields.title.as_deref().unwrap_or_default();
            eprintln!(
                "[permission] {} warnings={:?} -> {selected}",
                porthole_core::url_safety::neutralize(title),
                p.warnings
            )
        }
        Event::TurnEnded {
            stop_reason, error, ..
        } => {
            println!();
            match error {
                Some(e) => eprintln!("[turn failed] {}", e.message),
                None => eprintln!(
                    "[turn ended: {}]",
                    serde_json::to_value(stop_reason)
                        .unwrap_or_default()
                        .as_str()
                        .unwrap_or("?")
                ),
            }
        }
        Event::StdoutNoise { line } => eprintln!("[agent stdout, not JSON] {line}"),
        Event::UnknownUpdate { error, .. } => eprintln!("[unknown update] {error}"),
        Event::AgentExited(info) => eprintln!("[agent exited] {}", info.status),
        Event::TerminalCreated {
            terminal_id,
            command,
            args,
            ..
        } => {
            eprintln!("[terminal {terminal_id}] $ {command} {}", args.join(" "))
        }
        Event::TerminalOutput { data, .. } => eprint!("{data}"),
        Event::TerminalExited {
            terminal_id,
            exit_code,
            signal,
        } => eprintln!("[terminal {terminal_id} exited] code={exit_code:?} signal={signal:?}"),
        Event::TerminalReleased { terminal_id } => eprintln!("[terminal {terminal_id} released]"),
        Event::FileAccess(p) => {
            let allowed = matches!(decision, Some(Decision::FileAccess { allowed: true }));
            eprintln!(
                "[file access {:?} outside the workspace] {} -> {}",
                p.operation,
                p.path,
                if allowed { "allowed" } else { "denied" }
            )
        }
        Event::FileAccessDismissed { dialog_id, reason } => {
            eprintln!("[dialog {dialog_id} dismissed] {}", reason.describe())
        }
        Event::PermissionAuto {
            option_name, rule_id, ..
        } => {
            eprintln!("[permission answered by remembered rule {rule_id}] {option_name}")
        }
    }
}
