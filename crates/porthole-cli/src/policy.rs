//! The CLI's fixed answers: elicitations by `--elicit`, permissions by `--permission`
//! (reject unless told otherwise), files outside the workspace by `--files-outside` (deny).

use std::path::Path;

use porthole_core::acp::v1::schema::PermissionOptionKind;
use porthole_core::events::{
    DialogAnswer, DialogPrompt, ElicitationKind, ElicitationPrompt, PermissionPrompt,
};
use porthole_core::{AgentClient, Answer, Event};
use serde_json::{Map, Value};

use crate::{ElicitPolicy, PermissionPolicy};

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
            DialogPrompt::Elicitation(prompt) => self.elicitation(client, &prompt),
            DialogPrompt::Permission(prompt) => permission(client, &prompt, self.permission),
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
