//! The CLI's dialogs: its fixed answer to each (elicitations by `--elicit`, permissions by
//! `--permission`, reject unless told otherwise, files outside the workspace by
//! `--files-outside`, deny; any other kind the answer that decides nothing, as core describes
//! it) and how it is shown: the kind's record as a JSON line, or its summary and outcome as a
//! readable one, both from core's description of the kind (`DialogPrompt::record`,
//! `summary`, `DialogAnswer::outcome`), so a new kind needs nothing here.

use std::path::Path;

use porthole_core::acp::v1::schema::PermissionOptionKind;
use porthole_core::events::{
    DialogAnswer, DialogPrompt, ElicitationKind, ElicitationPrompt, PermissionPrompt,
};
use porthole_core::form::{EnumChoice, FieldKind, FormSchema};
use porthole_core::{AgentClient, Answer, Event};
use serde_json::{Map, Value};

use crate::args::{ElicitPolicy, PermissionPolicy};
use crate::term::{self, note};

#[derive(Clone)]
pub struct Policy {
    pub elicit: ElicitPolicy,
    pub permission: PermissionPolicy,
    pub files_outside: bool,
    pub answers: Map<String, Value>,
}

/// What the CLI answered, for the output line: the answer as shown (a form's content as core
/// validated it) and why, when it was not what the flag asked for.
pub struct Decision {
    pub answer: DialogAnswer,
    pub note: Option<String>,
}

/// The answer to send, what the line shows of it, and why.
struct Fixed {
    send: DialogAnswer,
    shown: DialogAnswer,
    note: Option<String>,
}

impl Fixed {
    fn plain(answer: DialogAnswer) -> Self {
        Fixed {
            shown: answer.clone(),
            send: answer,
            note: None,
        }
    }
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
    /// Answer the event if it is a dialog. A kind without a flag of its own gets the answer
    /// that decides nothing; an answer core refuses falls back to it too.
    pub fn decide(&self, client: &AgentClient, event: &Event) -> Option<Decision> {
        let prompt = event.dialog()?;
        let fixed = match prompt {
            DialogPrompt::Elicitation(p) => self.elicitation(p),
            DialogPrompt::Permission(p) => Fixed::plain(permission(p, self.permission)),
            DialogPrompt::FileAccess(_) if self.files_outside => {
                Fixed::plain(DialogAnswer::FileAccess { allow: true })
            }
            other => Fixed::plain(other.undecided()),
        };
        Some(match client.respond(prompt.dialog_id(), fixed.send) {
            Ok(()) => Decision {
                answer: fixed.shown,
                note: fixed.note,
            },
            Err(e) => {
                // Never send what core refused (invalid content): fall back to no decision.
                let undecided = prompt.undecided();
                let _ = client.respond(prompt.dialog_id(), undecided.clone());
                Decision {
                    note: Some(format!("{e}; answered {}", undecided.outcome())),
                    answer: undecided,
                }
            }
        })
    }

    /// An MCP connection's question, which the gateway answers (not core): what it answers,
    /// as the line shows it (a form's content as validated).
    pub fn mcp_elicitation(&self, prompt: &ElicitationPrompt) -> Decision {
        let fixed = self.elicitation(prompt);
        Decision {
            answer: fixed.shown,
            note: fixed.note,
        }
    }

    fn elicitation(&self, prompt: &ElicitationPrompt) -> Fixed {
        let (answer, content, note) = match (self.elicit, &prompt.kind) {
            (ElicitPolicy::Decline, _) => (Answer::Decline, None, None),
            (ElicitPolicy::Cancel, _) => (Answer::Cancel, None, None),
            (ElicitPolicy::Accept, ElicitationKind::Url { .. }) => (
                Answer::Accept(Map::new()),
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
                    (Answer::Cancel, None, Some(why))
                } else if !schema.can_accept() {
                    let why = schema.blocking_reason().unwrap_or_default();
                    (
                        Answer::Cancel,
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
                        (Answer::Accept(values), Some(content), None)
                    } else {
                        let problems: Vec<String> = validation
                            .errors
                            .iter()
                            .map(|e| format!("{}: {}", e.field, e.message))
                            .collect::<Vec<String>>();
                        (
                            Answer::Cancel,
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
        let send = DialogAnswer::from(answer);
        let shown = match &send {
            DialogAnswer::Elicitation { action, .. } => DialogAnswer::Elicitation {
                action: *action,
                content,
            },
            other => other.clone(),
        };
        Fixed { send, shown, note }
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

/// The option the `--permission` policy picks: reject is the fallback whenever the preferred
/// kind is missing; no option at all cancels.
fn permission(prompt: &PermissionPrompt, policy: PermissionPolicy) -> DialogAnswer {
    use PermissionOptionKind::*;
    // In order of preference.
    let preference: &[PermissionOptionKind] = match policy {
        PermissionPolicy::Reject => &[RejectOnce, RejectAlways],
        PermissionPolicy::AllowOnce => &[AllowOnce, RejectOnce, RejectAlways],
        PermissionPolicy::AllowAlways => &[AllowAlways, AllowOnce, RejectOnce, RejectAlways],
    };
    let option_id = preference
        .iter()
        .find_map(|kind| prompt.options.iter().find(|o| o.kind == *kind))
        .map(|o| o.option_id.0.to_string());
    DialogAnswer::Permission { option_id }
}

/// A dialog as a JSON line (`--json`): the kind's record, with what the CLI answered.
pub fn dialog_json(prompt: &DialogPrompt, decision: Option<&Decision>) -> Value {
    let mut record = prompt.record(decision.map(|d| &d.answer));
    if let Some(note) = decision.and_then(|d| d.note.as_ref()) {
        record.insert("note".into(), Value::String(note.clone()));
    }
    Value::Object(record)
}

/// A dialog as a readable line, with what the CLI answered (see `output::text_event`).
pub fn dialog_text(prompt: &DialogPrompt, decision: Option<&Decision>) {
    let outcome = match decision {
        Some(Decision { answer, note }) => format!(
            "{}{}",
            answer.outcome(),
            note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default()
        ),
        None => "unanswered".into(),
    };
    note!("{} -> {}", term::line(&prompt.summary()), term::line(&outcome))
}
