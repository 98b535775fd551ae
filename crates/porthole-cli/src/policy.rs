//! The CLI's dialogs, every kind in this one file: its fixed answer (elicitations by `--elicit`,
//! permissions by `--permission`, reject unless told otherwise, files outside the workspace by
//! `--files-outside`, deny) and how it is shown (a JSON line, or a readable one).

use std::path::Path;

use porthole_core::acp::v1::schema::PermissionOptionKind;
use porthole_core::events::{
    DialogAnswer, DialogPrompt, ElicitationKind, ElicitationPrompt, PermissionPrompt,
};
use porthole_core::form::{EnumChoice, FieldKind, FormSchema};
use porthole_core::{AgentClient, Answer, Event};
use serde_json::{Map, Value, json};

use crate::args::{ElicitPolicy, PermissionPolicy};
use crate::term::{self, note};

pub struct Policy {
    pub elicit: ElicitPolicy,
    pub permission: PermissionPolicy,
    pub files_outside: bool,
    pub answers: Map<String, Value>,
}

/// What the CLI answered, for the output line.
pub enum Decision {
    Elicitation {
        action: &'static str,
        content: Option<Map<String, Value>>,
        note: Option<String>,
    },
    Permission {
        selected: Option<String>,
    },
    FileAccess {
        allowed: bool,
    },
}

pub fn load_answers(path: Option<&Path>) -> Result<Map<String, Value>, String> {
    let Some(path) = path else {
        return Ok(Map::new());
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--answers {}: {e}", path.display()))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!(
            "--answers {}: expected a JSON object of property -> value",
            path.display()
        )),
        Err(e) => Err(format!("--answers {}: invalid JSON: {e}", path.display())),
    }
}

impl Policy {
    /// Answer the event if it is a dialog. Every kind is listed: a new one is a compile error
    /// here until the CLI has a fixed answer for it.
    pub fn decide(&self, client: &AgentClient, event: &Event) -> Option<Decision> {
        Some(match event.dialog()? {
            DialogPrompt::Elicitation(prompt) => self.elicitation(client, prompt),
            DialogPrompt::Permission(prompt) => permission(client, prompt, self.permission),
            DialogPrompt::FileAccess(prompt) => {
                let answer = |allow| client.respond(prompt.dialog_id, DialogAnswer::FileAccess { allow });
                let allowed = self.files_outside && answer(true).is_ok();
                if !allowed {
                    let _ = answer(false);
                }
                Decision::FileAccess { allowed }
            }
        })
    }

    fn elicitation(&self, client: &AgentClient, prompt: &ElicitationPrompt) -> Decision {
        let (answer, action, content, note) = match (self.elicit, &prompt.kind) {
            (ElicitPolicy::Decline, _) => (Answer::Decline, "decline", None, None),
            (ElicitPolicy::Cancel, _) => (Answer::Cancel, "cancel", None, None),
            (ElicitPolicy::Accept, ElicitationKind::Url { .. }) => (
                Answer::Accept(Map::new()),
                "accept",
                None,
                Some("consent given; the URL was not opened".to_string()),
            ),
            (
                ElicitPolicy::Accept,
                ElicitationKind::Form {
                    schema,
                    initial_values,
                    secret_indicators,
                    ..
                },
            ) => {
                if !secret_indicators.is_empty() {
                    let why = format!(
                        "form asks for a secret ({}); answered cancel",
                        secret_indicators.join(", ")
                    );
                    (Answer::Cancel, "cancel", None, Some(why))
                } else if !schema.can_accept() {
                    let why = schema.blocking_reason().unwrap_or_default();
                    (
                        Answer::Cancel,
                        "cancel",
                        None,
                        Some(format!("form cannot be accepted: {why}; answered cancel")),
                    )
                } else {
                    let mut values = initial_values.clone();
                    // One answers file serves every form of a run: each form takes its own keys.
                    for (k, v) in &self.answers {
                        if schema.field(k).is_some() {
                            values.insert(k.clone(), v.clone());
                        }
                    }
                    other_answers(schema, &mut values);
                    let validation = schema.validate(&values);
                    if validation.is_valid() {
                        let content = validation.content.clone();
                        (Answer::Accept(values), "accept", Some(content), None)
                    } else {
                        let problems: Vec<String> = validation
                            .errors
                            .iter()
                            .map(|e| format!("{}: {}", e.field, e.message))
                            .collect::<Vec<String>>();
                        (
                            Answer::Cancel,
                            "cancel",
                            None,
                            Some(format!(
                                "content invalid ({}); answered cancel",
                                problems.join("; ")
                            )),
                        )
                    }
                }
            }
        };
        match client.respond_elicitation(prompt.dialog_id, answer) {
            Ok(()) => Decision::Elicitation {
                action,
                content,
                note,
            },
            Err(e) => {
                // Never send invalid content: fall back to cancel.
                let _ = client.respond_elicitation(prompt.dialog_id, Answer::Cancel);
                Decision::Elicitation {
                    action: "cancel",
                    content: None,
                    note: Some(format!("{e}; answered cancel")),
                }
            }
        }
    }
}

/// An answer to a question that is none of its options goes to the question's "Other" box
/// (core's `Field::other`: Claude's `question_N_custom`, Codex's note, Qwen's and Gemini's
/// typed answers), as a person would type it there: `{"question_0": "Magenta"}` sends
/// `question_0_custom: "Magenta"`, with the agent's own "Other" option when it has one. Picks
/// of a multi-select that are no option are joined into its box.
fn other_answers(schema: &FormSchema, values: &mut Map<String, Value>) {
    for field in &schema.fields {
        let (Some(other), FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. }) =
            (&field.other, &field.kind)
        else {
            continue;
        };
        let typed = |v| typed_answer(v, options);
        let (pick, text) = match values.get(&field.name) {
            Some(v @ Value::String(_)) => match typed(v) {
                Some(text) => (other.choice.clone().map(Value::String), text.to_owned()),
                None => continue,
            },
            Some(Value::Array(items)) if items.iter().any(|v| typed(v).is_some()) => {
                let mut picks: Vec<Value> = items.iter().filter(|v| typed(v).is_none()).cloned().collect();
                picks.extend(other.choice.clone().map(Value::String));
                let text: Vec<&str> = items.iter().filter_map(typed).collect();
                (Some(Value::Array(picks)), text.join(", "))
            }
            _ => continue,
        };
        match pick {
            Some(pick) => values.insert(field.name.clone(), pick),
            None => values.remove(&field.name),
        };
        values.insert(other.field.clone(), Value::String(text));
    }
}

/// `v` when it is a string that is none of `options`.
fn typed_answer<'a>(v: &'a Value, options: &[EnumChoice]) -> Option<&'a str> {
    v.as_str().filter(|s| !options.iter().any(|o| o.value == *s))
}

fn permission(client: &AgentClient, prompt: &PermissionPrompt, policy: PermissionPolicy) -> Decision {
    use PermissionOptionKind::*;
    // In order of preference; reject is the fallback whenever the preferred kind is missing.
    let preference: &[PermissionOptionKind] = match policy {
        PermissionPolicy::Reject => &[RejectOnce, RejectAlways],
        PermissionPolicy::AllowOnce => &[AllowOnce, RejectOnce, RejectAlways],
        PermissionPolicy::AllowAlways => &[AllowAlways, AllowOnce, RejectOnce, RejectAlways],
    };
    let choice = preference
        .iter()
        .find_map(|kind| prompt.options.iter().find(|o| o.kind == *kind))
        .map(|o| o.option_id.0.to_string());
    let selected = match client.respond_permission(prompt.dialog_id, choice.clone()) {
        Ok(()) => choice,
        Err(_) => None,
    };
    Decision::Permission { selected }
}

/// A dialog as a JSON line (`--json`), with what the CLI answered.
pub fn dialog_json(prompt: &DialogPrompt, decision: Option<&Decision>) -> Value {
    match prompt {
        DialogPrompt::Elicitation(p) => {
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
        DialogPrompt::Permission(p) => {
            let selected = match decision {
                Some(Decision::Permission { selected }) => json!(selected),
                _ => Value::Null,
            };
            json!({"type": "permission", "sessionId": p.session_id, "toolCall": p.tool_call, "options": p.options, "warnings": p.warnings, "selected": selected})
        }
        DialogPrompt::FileAccess(p) => {
            let allowed = matches!(decision, Some(Decision::FileAccess { allowed: true }));
            json!({"type": "file_access", "sessionId": p.session_id, "path": p.path, "operation": p.operation, "allowed": allowed})
        }
    }
}

/// A dialog as a readable line, with what the CLI answered (see `output::text_event`).
pub fn dialog_text(prompt: &DialogPrompt, decision: Option<&Decision>) {
    match prompt {
        DialogPrompt::Elicitation(p) => {
            let action = match decision {
                Some(Decision::Elicitation { action, note, .. }) => {
                    format!(
                        "{action}{}",
                        note.as_ref()
                            .map(|n| format!(" ({})", term::line(n)))
                            .unwrap_or_default()
                    )
                }
                _ => "unanswered".into(),
            };
            let url = match &p.kind {
                ElicitationKind::Url { url, .. } => format!(" url={}", term::line(&url.full)),
                _ => String::new(),
            };
            note!(
                "[elicitation {} from {}] \"{}\"{url}{} -> {action}",
                p.mode_name(),
                term::line(&p.agent.display_name()),
                term::line(&p.message),
                warnings(&p.warnings)
            );
        }
        DialogPrompt::Permission(p) => {
            let selected = match decision {
                Some(Decision::Permission { selected }) => {
                    selected.clone().unwrap_or_else(|| "cancelled".into())
                }
                _ => "unanswered".into(),
            };
            let title = p.tool_call.fields.title.as_deref().unwrap_or_default();
            let options: Vec<String> = p
                .options
                .iter()
                .map(|o| format!("{}={}", term::line(&o.option_id.0), term::line(&o.name)))
                .collect();
            note!(
                "[permission] {} options=[{}]{} -> {}",
                term::line(title),
                options.join(", "),
                warnings(&p.warnings),
                term::line(&selected)
            )
        }
        DialogPrompt::FileAccess(p) => {
            let allowed = matches!(decision, Some(Decision::FileAccess { allowed: true }));
            note!(
                "[file access: {} outside the workspace] {} -> {}",
                term::name(&p.operation),
                term::line(&p.path),
                if allowed { "allowed" } else { "denied" }
            )
        }
    }
}

/// A dialog's warning codes for its line: ` warnings: a, b`, nothing when there are none.
fn warnings(codes: &[String]) -> String {
    if codes.is_empty() {
        return String::new();
    }
    let codes: Vec<String> = codes.iter().map(|c| term::line(c)).collect();
    format!(" warnings: {}", codes.join(", "))
}
