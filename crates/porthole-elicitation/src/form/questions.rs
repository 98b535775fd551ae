//! Question tools that do not arrive as `elicitation/create`, made into one: each agent's
//! module (`qwen.rs`, `gemini.rs`) reads its own wire shape into [`Question`]s, this module
//! writes them as a standard form-mode `requestedSchema` (which then goes through the same
//! parser, validator, secret detection and consent history as any elicitation), and reads the
//! validated content back as the answers by question index both agents expect
//! (`{"0": "Teal", "1": "Tests, Docs"}`).
//!
//! The form has Claude Code's layout (`question_N`, and `question_N_custom` for a question
//! that takes a typed answer), so `markers.rs` shows each typed answer inside its question.

use serde_json::{Map, Value, json};

use super::model::{MAX_OPTIONS, MAX_TEXT_BYTES, MAX_VALUE_CHARS};

/// One question, whatever agent asked it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// A short label (`"Color"`).
    pub header: Option<String>,
    /// The question itself.
    pub text: String,
    pub kind: QuestionKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    /// Options to pick from (`label`, `description`), one or several, and whether a typed
    /// answer may replace (or, for several, join) the picks.
    Choice {
        options: Vec<(String, Option<String>)>,
        multi: bool,
        other: bool,
    },
    /// A typed answer only.
    Text { placeholder: Option<String> },
}

/// What the user did with the form.
#[derive(Debug, Clone, Copy)]
pub enum Decision<'a> {
    /// Sent, with content the form's validator accepted.
    Accept(&'a Map<String, Value>),
    Decline,
    Cancel,
    /// Nobody decided: the agent withdrew it, the session or the connection ended.
    Undecided,
}

/// An agent's question request as a form elicitation; `R` says how that agent is answered
/// (each agent's reply, or any of them: [`super::reply::Translated`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Asked<R> {
    pub session_id: String,
    pub tool_call_id: Option<String>,
    pub message: String,
    pub requested_schema: Value,
    pub reply: R,
}

impl<R> Asked<R> {
    /// The same request with its reply made another type (an agent's into [`super::AgentReply`]).
    pub fn map_reply<S>(self, f: impl FnOnce(R) -> S) -> Asked<S> {
        Asked {
            session_id: self.session_id,
            tool_call_id: self.tool_call_id,
            message: self.message,
            requested_schema: self.requested_schema,
            reply: f(self.reply),
        }
    }

    /// The `elicitation/create` params this request stands for (session scope).
    pub fn elicitation_params(&self) -> Value {
        let mut params = json!({
            "sessionId": self.session_id,
            "mode": "form",
            "message": self.message,
            "requestedSchema": self.requested_schema,
        });
        if let Some(id) = &self.tool_call_id {
            params["toolCallId"] = json!(id);
        }
        params
    }
}

/// The property of question `i`, and of its typed answer.
pub(super) fn question_key(i: usize) -> String {
    format!("question_{i}")
}
pub(super) fn custom_key(i: usize) -> String {
    format!("question_{i}_custom")
}

/// `intro` and the questions as a message and a `requestedSchema`. One question is asked in
/// the message itself; several are each described in their field, unless one is too long for
/// a field's description (a plan to approve), then all of them are in the message.
pub(super) fn form(intro: Option<&str>, questions: &[Question]) -> (String, Value) {
    let in_message = questions.len() == 1 || questions.iter().any(|q| q.text.len() > MAX_TEXT_BYTES);
    let mut message: Vec<String> = intro
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .into_iter()
        .collect();
    let mut properties = Map::new();
    for (i, q) in questions.iter().enumerate() {
        let title = q
            .header
            .as_deref()
            .filter(|h| !h.is_empty())
            .map(|h| clip(h, MAX_TEXT_BYTES))
            .unwrap_or_else(|| format!("Question {}", i + 1));
        if in_message {
            message.push(if questions.len() == 1 {
                q.text.clone()
            } else {
                format!("{}. {}: {}", i + 1, title, q.text)
            });
        }
        let mut prop = match &q.kind {
            QuestionKind::Choice { options, multi, .. } => {
                let options = choices(options);
                if *multi {
                    json!({"type": "array", "items": {"anyOf": options}})
                } else {
                    json!({"type": "string", "oneOf": options})
                }
            }
            QuestionKind::Text { .. } => json!({"type": "string"}),
        };
        prop["title"] = json!(title);
        if !in_message {
            prop["description"] = json!(q.text);
        }
        properties.insert(question_key(i), prop);
        match &q.kind {
            QuestionKind::Choice {
                other: true, multi, ..
            } => {
                let hint = if *multi {
                    "Type your own answer to add to your selection above (optional)."
                } else {
                    "Type your own answer instead of choosing one above (optional)."
                };
                properties.insert(
                    custom_key(i),
                    json!({"type": "string", "title": "Other", "description": hint}),
                );
            }
            QuestionKind::Text { placeholder: Some(p) } if !p.is_empty() => {
                // The placeholder is a hint of what to type: beside the question, or alone
                // when the question is in the message.
                let description = if in_message {
                    clip(p, MAX_TEXT_BYTES)
                } else {
                    clip(&format!("{} ({p})", q.text), MAX_TEXT_BYTES)
                };
                properties[&question_key(i)]["description"] = json!(description);
            }
            _ => {}
        }
    }
    (
        message.join("\n\n"),
        json!({"type": "object", "properties": properties}),
    )
}

/// Options as `oneOf` / `anyOf` entries: distinct labels that fit the limits, in order.
fn choices(options: &[(String, Option<String>)]) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    options
        .iter()
        .filter(|(label, _)| !label.is_empty() && label.chars().count() <= MAX_VALUE_CHARS)
        .filter(|(label, _)| seen.insert(label.clone()))
        .take(MAX_OPTIONS)
        .map(|(label, description)| {
            let mut o = json!({"const": label, "title": label});
            if let Some(d) = description.as_deref().filter(|d| !d.is_empty()) {
                o["description"] = json!(clip(d, MAX_TEXT_BYTES));
            }
            o
        })
        .collect()
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The validated content as answers by question index. A single choice is its pick, else
/// the typed answer; several picks and a typed answer are joined with ", "; unanswered
/// questions are left out.
pub(super) fn answers(questions: &[Question], content: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (i, q) in questions.iter().enumerate() {
        let picks: Vec<String> = match content.get(&question_key(i)) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let picks: Vec<String> = picks.into_iter().filter(|s| !s.trim().is_empty()).collect();
        let typed = content
            .get(&custom_key(i))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let answer = match &q.kind {
            QuestionKind::Choice { multi: true, .. } => {
                let mut all = picks;
                all.extend(typed.map(str::to_owned));
                all.join(", ")
            }
            QuestionKind::Choice { .. } => picks
                .into_iter()
                .next()
                .or_else(|| typed.map(str::to_owned))
                .unwrap_or_default(),
            QuestionKind::Text { .. } => picks.into_iter().next().unwrap_or_default(),
        };
        if !answer.is_empty() {
            out.insert(i.to_string(), Value::String(answer));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::parse_form_schema;
    use super::*;

    fn q(text: &str, kind: QuestionKind) -> Question {
        Question {
            header: Some("H".into()),
            text: text.into(),
            kind,
        }
    }

    fn choice(multi: bool) -> QuestionKind {
        QuestionKind::Choice {
            options: vec![
                ("A".into(), Some("first".into())),
                ("B".into(), None),
                ("A".into(), None),
            ],
            multi,
            other: true,
        }
    }

    #[test]
    fn one_question_is_asked_in_the_message_several_in_their_fields() {
        let (message, schema) = form(Some("Intro"), &[q("Which?", choice(false))]);
        assert_eq!(message, "Intro\n\nWhich?");
        assert_eq!(schema["properties"]["question_0"].get("description"), None);
        // Duplicate labels are dropped: the form stays valid.
        assert_eq!(
            schema["properties"]["question_0"]["oneOf"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        let s = parse_form_schema(&schema).unwrap();
        assert_eq!(
            s.field("question_0").unwrap().other.as_ref().unwrap().field,
            "question_0_custom"
        );

        let (message, schema) = form(None, &[q("One?", choice(false)), q("Two?", choice(true))]);
        assert_eq!(message, "");
        assert_eq!(schema["properties"]["question_1"]["description"], "Two?");
        assert_eq!(schema["properties"]["question_1"]["type"], "array");
        parse_form_schema(&schema).unwrap();
    }

    #[test]
    fn a_question_too_long_for_a_field_moves_them_all_into_the_message() {
        let plan = "x".repeat(MAX_TEXT_BYTES + 1);
        let (message, schema) = form(Some("Plan"), &[q(&plan, choice(false)), q("Two?", choice(false))]);
        assert!(message.contains(&plan) && message.contains("2. H: Two?"));
        parse_form_schema(&schema).unwrap();
    }

    #[test]
    fn answers_by_index() {
        let qs = [
            q("1", choice(false)),
            q("2", choice(true)),
            q("3", choice(false)),
            q("4", QuestionKind::Text { placeholder: None }),
            q("5", choice(false)),
        ];
        let content = json!({"question_0":"A","question_0_custom":"note",
            "question_1":["A","B"],"question_1_custom":" C ",
            "question_2_custom":"typed","question_3":"free"});
        assert_eq!(
            Value::Object(answers(&qs, content.as_object().unwrap())),
            json!({"0":"A","1":"A, B, C","2":"typed","3":"free"})
        );
    }
}
