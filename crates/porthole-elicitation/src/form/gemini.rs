//! Gemini CLI's host input: `ask_user` and `exit_plan_mode` asked of the client with its own
//! request, `gemini/requestUserInput` (gemini-cli `packages/cli/src/acp/hostInput.ts`).
//!
//! Gemini sends it only to a client that declares, in `initialize`,
//! `clientCapabilities._meta["geminiCli.hostInput"]` (one key with a dot, read as
//! `clientCapabilities?._meta?.[ACP_HOST_INPUT_CAPABILITY_KEY]`) = [`capability`]. The request
//! goes out through the TypeScript SDK's `extMethod`, which puts `_` before the method name on
//! the wire (`_gemini/requestUserInput`, [`METHODS`]); its params are `HostInputRequest`:
//!
//! ```json
//! {"sessionId": "…", "requestId": "…", "kind": "ask_user" | "exit_plan_mode",
//!  "title": "…", "questions": [Question], "extraParts": ["…"],
//!  "toolCall": {"toolCallId": "…", "title": "…", "kind": "…"}, "_meta": {}}
//! ```
//!
//! with `Question` from `packages/core/src/confirmation-bus/types.ts`: `{question, header,
//! type: "choice" | "text" | "yesno", options?: [{label, description}], multiSelect?,
//! placeholder?}` ("choice" and "yesno" have an "Other" box, whose hint the placeholder is).
//! `exit_plan_mode` is one choice question whose text is the plan and whose options are "Yes,
//! automatically accept edits" / "Yes, manually accept edits"; any other answer is feedback
//! (`mapExitPlanModeAnswers`). The answer must parse as `HostInputResponseSchema`:
//!
//! ```json
//! {"outcome": "submitted", "answers": {"0": "…"}}   or   {"outcome": "cancelled"}
//! ```

use serde_json::{Value, json};

use super::questions::{self, Asked, Decision, Question, QuestionKind};

/// The request's method names: as the SDK sends it (`_` prefix), and as `hostInput.ts` names it.
pub const METHODS: [&str; 2] = ["_gemini/requestUserInput", "gemini/requestUserInput"];
/// The key of [`capability`] in `clientCapabilities._meta`.
pub const CAPABILITY_KEY: &str = "geminiCli.hostInput";
/// The kinds of request Porthole answers.
pub const KINDS: [&str; 2] = ["ask_user", "exit_plan_mode"];

/// What a client declares to be asked: `HostInputCapabilitySchema`.
pub fn capability() -> Value {
    json!({"version": 1, "requestUserInput": true, "supportedKinds": KINDS})
}

/// How Gemini is answered.
#[derive(Debug, Clone, PartialEq)]
pub struct GeminiReply {
    questions: Vec<Question>,
}

impl GeminiReply {
    pub(super) fn response(&self, decision: Decision<'_>) -> Value {
        match decision {
            Decision::Accept(content) => json!({
                "outcome": "submitted",
                "answers": questions::answers(&self.questions, content),
            }),
            Decision::Decline | Decision::Cancel | Decision::Undecided => undecided(),
        }
    }
}

/// The answer when nobody could ask the user (also what the companion proxy sends when no app
/// can be had): `cancelled`.
pub fn undecided() -> Value {
    json!({"outcome": "cancelled"})
}

/// A `gemini/requestUserInput` as a form, or why it cannot be one.
pub fn translate(params: &Value) -> Result<Asked<GeminiReply>, String> {
    let session_id = params["sessionId"]
        .as_str()
        .ok_or("`sessionId` must be a string")?
        .to_owned();
    let kind = params["kind"].as_str().unwrap_or_default();
    if !KINDS.contains(&kind) {
        return Err(format!("unsupported `kind` (supported: {})", KINDS.join(", ")));
    }
    let raw = params["questions"]
        .as_array()
        .ok_or("`questions` must be an array")?;
    let questions: Vec<Question> = raw.iter().filter_map(question).collect();
    if questions.is_empty() || questions.len() != raw.len() {
        return Err("every question needs a non-empty `question` string".into());
    }
    let mut intro: Vec<&str> = params["title"].as_str().into_iter().collect();
    if let Some(parts) = params["extraParts"].as_array() {
        intro.extend(parts.iter().filter_map(Value::as_str));
    }
    let intro = intro.join("\n\n");
    let (message, requested_schema) = questions::form(Some(&intro), &questions);
    Ok(Asked {
        session_id,
        tool_call_id: params["toolCall"]["toolCallId"].as_str().map(str::to_owned),
        message,
        requested_schema,
        reply: GeminiReply { questions },
    })
}

fn question(q: &Value) -> Option<Question> {
    let text = q["question"]
        .as_str()
        .filter(|t| !t.trim().is_empty())?
        .to_owned();
    let placeholder = q["placeholder"].as_str().map(str::to_owned);
    let options: Vec<(String, Option<String>)> = q["options"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter_map(|o| {
                    Some((
                        o["label"].as_str()?.to_owned(),
                        o["description"].as_str().map(str::to_owned),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let kind = match q["type"].as_str() {
        Some("yesno") => QuestionKind::Choice {
            options: vec![("Yes".into(), None), ("No".into(), None)],
            multi: false,
            other: true,
        },
        Some("choice") if !options.is_empty() => QuestionKind::Choice {
            options,
            multi: q["multiSelect"] == true,
            other: true,
        },
        // "text", a choice without options, a type this client does not know.
        _ => QuestionKind::Text { placeholder },
    };
    Some(Question {
        header: q["header"].as_str().map(str::to_owned),
        text,
        kind,
    })
}

/// For tests and the test agent: an `exit_plan_mode` request as `buildExitPlanModeQuestions`
/// makes it.
pub fn example_plan_request(session_id: &str, plan: &str) -> Value {
    json!({"sessionId": session_id, "requestId": "host-input-1", "kind": "exit_plan_mode",
        "title": "Ready to start implementing?",
        "questions": [{"type": "choice", "header": "Approval", "question": plan,
            "options": [
                {"label": "Yes, automatically accept edits",
                 "description": "Approves plan and allows tools to run automatically"},
                {"label": "Yes, manually accept edits",
                 "description": "Approves plan but requires confirmation for each tool"}],
            "placeholder": "Type your feedback...", "multiSelect": false, "unconstrainedHeight": false}],
        "toolCall": {"toolCallId": "exit-plan-1", "title": "Exit plan mode", "kind": "think"}})
}

/// For tests and the test agent: an `ask_user` request with one question of each type.
pub fn example_ask_request(session_id: &str) -> Value {
    json!({"sessionId": session_id, "requestId": "host-input-2", "kind": "ask_user",
        "title": "Gemini has questions",
        "questions": [
            {"type": "choice", "header": "Database", "question": "Which database?",
             "options": [{"label": "Postgres", "description": "relational"},
                         {"label": "SQLite", "description": "a file"}],
             "multiSelect": false, "placeholder": "Another database"},
            {"type": "text", "header": "Name", "question": "What should the service be called?",
             "placeholder": "e.g. billing"},
            {"type": "yesno", "header": "Tests", "question": "Write tests first?"}],
        "toolCall": {"toolCallId": "ask-user-1", "title": "Ask User", "kind": "other"}})
}

#[cfg(test)]
mod tests {
    use super::super::{FieldKind, parse_form_schema};
    use super::*;

    #[test]
    fn ask_user_becomes_a_form_and_answers_by_index() {
        let t = translate(&example_ask_request("s-1")).unwrap();
        assert_eq!(t.tool_call_id.as_deref(), Some("ask-user-1"));
        assert_eq!(t.message, "Gemini has questions");
        let s = parse_form_schema(&t.requested_schema).unwrap();
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "question_0",
                "question_0_custom",
                "question_1",
                "question_2",
                "question_2_custom"
            ]
        );
        assert!(matches!(
            s.field("question_1").unwrap().kind,
            FieldKind::Text { .. }
        ));
        assert_eq!(
            s.field("question_1").unwrap().description.as_deref(),
            Some("What should the service be called? (e.g. billing)")
        );
        let FieldKind::SingleSelect { options, .. } = &s.field("question_2").unwrap().kind else {
            panic!("yes/no is a choice")
        };
        assert_eq!(options.len(), 2);
        let v = s.validate(
            json!({"question_0_custom": "DuckDB", "question_1": "billing", "question_2": "Yes"})
                .as_object()
                .unwrap(),
        );
        assert!(v.is_valid());
        assert_eq!(
            t.reply.response(Decision::Accept(&v.content)),
            json!({"outcome": "submitted", "answers": {"0": "DuckDB", "1": "billing", "2": "Yes"}})
        );
        for d in [Decision::Decline, Decision::Cancel, Decision::Undecided] {
            assert_eq!(t.reply.response(d), json!({"outcome": "cancelled"}));
        }
    }

    #[test]
    fn exit_plan_mode_shows_the_plan_and_sends_the_chosen_label_or_the_feedback() {
        let t = translate(&example_plan_request("s-1", "1. Add tests\n2. Fix the bug")).unwrap();
        assert_eq!(
            t.message,
            "Ready to start implementing?\n\n1. Add tests\n2. Fix the bug"
        );
        let s = parse_form_schema(&t.requested_schema).unwrap();
        let content = json!({"question_0": "Yes, manually accept edits"});
        let v = s.validate(content.as_object().unwrap());
        assert_eq!(
            t.reply.response(Decision::Accept(&v.content)),
            json!({"outcome": "submitted", "answers": {"0": "Yes, manually accept edits"}})
        );
        let feedback = json!({"question_0_custom": "Do step 2 first"});
        assert_eq!(
            t.reply.response(Decision::Accept(feedback.as_object().unwrap()))["answers"]["0"],
            "Do step 2 first"
        );
    }

    #[test]
    fn malformed_requests_are_refused() {
        let mut r = example_ask_request("s");
        r["kind"] = json!("pick_file");
        assert!(translate(&r).is_err());
        let mut r = example_ask_request("s");
        r["questions"][1]["question"] = json!(3);
        assert!(translate(&r).is_err());
        let mut r = example_ask_request("s");
        r.as_object_mut().unwrap().remove("sessionId");
        assert!(translate(&r).is_err());
    }
}
