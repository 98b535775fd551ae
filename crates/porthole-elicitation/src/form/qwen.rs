//! Qwen Code's `ask_user_question`, which arrives as a `session/request_permission`.
//!
//! The request (Qwen Code `packages/cli/src/acp-integration/session/permissionUtils.ts`:
//! `interactionMetaFields` and `toPermissionOptions`, case `ask_user_question`; the questions
//! are `AskUserQuestionParams` of `packages/core/src/tools/askUserQuestion.ts`):
//!
//! ```json
//! {"sessionId": "…", "options": [
//!    {"optionId": "proceed_once", "name": "Submit", "kind": "allow_once"},
//!    {"optionId": "cancel", "name": "Cancel", "kind": "reject_once"}],
//!  "toolCall": {"toolCallId": "…", "title": "Ask user 1 question", "kind": "think",
//!    "rawInput": {"questions": [...]},
//!    "_meta": {"toolName": "ask_user_question", "qwenInteractionKind": "user_question",
//!      "qwenQuestions": [{"question": "Which color?", "header": "Color", "multiSelect": false,
//!        "options": [{"label": "Teal", "description": "calm"}, ...]}]}}}
//! ```
//!
//! The answer is the permission response plus a top-level `answers` field, outside ACP's
//! `RequestPermissionResponse`, which Qwen reads as `'answers' in output ? output.answers`
//! (`Record<string, string>` by question index; `session/SubAgentTracker.ts` and `Session.ts`)
//! and hands to the tool's `onConfirm` (`askUserQuestion.ts`), whose answers with no valid
//! index give the model "No valid answers were provided.":
//!
//! ```json
//! {"outcome": {"outcome": "selected", "optionId": "proceed_once"}, "answers": {"0": "Teal"}}
//! ```
//!
//! Decline and cancel select Qwen's own cancel option: Qwen (0.24.4) then fails the tool call
//! without running the tool and ends the turn, and the model gets `Tool "ask_user_question"
//! was canceled by the user.` with the next prompt (tests/agents, "question tool"); a request
//! nobody decided gets ACP's `cancelled` outcome.

use serde_json::{Value, json};

use super::questions::{self, Asked, Decision, Question, QuestionKind};

/// How Qwen is answered: the option ids it offered.
#[derive(Debug, Clone, PartialEq)]
pub struct QwenReply {
    submit: String,
    cancel: Option<String>,
    questions: Vec<Question>,
}

impl QwenReply {
    pub(super) fn response(&self, decision: Decision<'_>) -> Value {
        let selected = |id: &str| json!({"outcome": "selected", "optionId": id});
        match decision {
            Decision::Accept(content) => json!({
                "outcome": selected(&self.submit),
                "answers": questions::answers(&self.questions, content),
            }),
            Decision::Decline | Decision::Cancel => match &self.cancel {
                Some(id) => json!({"outcome": selected(id)}),
                None => undecided(),
            },
            Decision::Undecided => undecided(),
        }
    }
}

/// The answer when nobody decided (the request was withdrawn, the connection ended, or the
/// companion proxy had no app to ask): ACP's `cancelled` outcome, no answers.
pub fn undecided() -> Value {
    json!({"outcome": {"outcome": "cancelled"}})
}

/// True when a `session/request_permission` is Qwen's question dialog.
pub fn is_question(params: &Value) -> bool {
    params["toolCall"]["_meta"]["qwenInteractionKind"] == "user_question"
}

/// Qwen's question dialog as a form; `None` when it is not one, or has no question or no
/// option to submit with (then it is shown as the permission request it is).
pub fn translate(params: &Value) -> Option<Asked<QwenReply>> {
    if !is_question(params) {
        return None;
    }
    let session_id = params["sessionId"].as_str()?.to_owned();
    let tool_call = &params["toolCall"];
    let raw = tool_call["_meta"]["qwenQuestions"]
        .as_array()
        .filter(|q| !q.is_empty())
        .or_else(|| tool_call["rawInput"]["questions"].as_array())?;
    let questions: Vec<Question> = raw.iter().filter_map(question).collect();
    if questions.is_empty() {
        return None;
    }
    let options = params["options"].as_array()?;
    let option_with = |prefix: &str| {
        options
            .iter()
            .find(|o| o["kind"].as_str().is_some_and(|k| k.starts_with(prefix)))
            .and_then(|o| o["optionId"].as_str())
            .map(str::to_owned)
    };
    let submit = option_with("allow")?;
    let cancel = option_with("reject");
    let intro = (questions.len() > 1).then_some("Please answer the following questions.");
    let (message, requested_schema) = questions::form(intro, &questions);
    Some(Asked {
        session_id,
        tool_call_id: tool_call["toolCallId"].as_str().map(str::to_owned),
        message,
        requested_schema,
        reply: QwenReply {
            submit,
            cancel,
            questions,
        },
    })
}

/// One of Qwen's questions. Its options are a choice with a typed "Other" answer (Qwen's own
/// dialog always offers one); a question without options is a typed answer.
fn question(q: &Value) -> Option<Question> {
    let text = q["question"]
        .as_str()
        .filter(|t| !t.trim().is_empty())?
        .to_owned();
    let options: Vec<(String, Option<String>)> = q["options"]
        .as_array()
        .map(|o| o.iter().filter_map(option).collect())
        .unwrap_or_default();
    let kind = if options.is_empty() {
        QuestionKind::Text { placeholder: None }
    } else {
        QuestionKind::Choice {
            options,
            multi: q["multiSelect"] == true,
            other: true,
        }
    };
    Some(Question {
        header: q["header"].as_str().map(str::to_owned),
        text,
        kind,
    })
}

fn option(o: &Value) -> Option<(String, Option<String>)> {
    Some((
        o["label"].as_str()?.to_owned(),
        o["description"].as_str().map(str::to_owned),
    ))
}

/// For tests and the test agent: Qwen's request with these questions.
pub fn example_request(session_id: &str, tool_call_id: &str, questions: Value) -> Value {
    let count = questions.as_array().map_or(0, Vec::len);
    json!({"sessionId": session_id,
        "options": [
            {"optionId": "proceed_once", "name": "Submit", "kind": "allow_once"},
            {"optionId": "cancel", "name": "Cancel", "kind": "reject_once"}],
        "toolCall": {"toolCallId": tool_call_id, "status": "pending",
            "title": format!("Ask user {count} question{}", if count == 1 { "" } else { "s" }),
            "kind": "think", "content": [], "locations": [],
            "rawInput": {"questions": questions},
            "_meta": {"toolName": "ask_user_question", "qwenInteractionKind": "user_question",
                "qwenQuestions": questions}}})
}

#[cfg(test)]
mod tests {
    use super::super::parse_form_schema;
    use super::*;

    fn questions() -> Value {
        json!([
            {"question": "Which color?", "header": "Color", "multiSelect": false,
             "options": [{"label": "Teal", "description": "calm"}, {"label": "Orange", "description": "loud"}]},
            {"question": "Which extras?", "header": "Extras", "multiSelect": true,
             "options": [{"label": "Tests", "description": "unit tests"}, {"label": "Docs", "description": "a README"}]}])
    }

    #[test]
    fn the_questions_become_a_form_and_the_answers_go_back_where_qwen_reads_them() {
        let t = translate(&example_request("s-1", "call-1", questions())).unwrap();
        assert_eq!(t.session_id, "s-1");
        assert_eq!(t.tool_call_id.as_deref(), Some("call-1"));
        assert_eq!(t.message, "Please answer the following questions.");
        let s = parse_form_schema(&t.requested_schema).unwrap();
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "question_0",
                "question_0_custom",
                "question_1",
                "question_1_custom"
            ]
        );
        assert_eq!(s.field("question_0").unwrap().label(), "Color");
        assert_eq!(
            s.field("question_0").unwrap().description.as_deref(),
            Some("Which color?")
        );

        let content = s.validate(
            json!({"question_0": "Teal", "question_1": ["Docs"], "question_1_custom": "a CHANGELOG"})
                .as_object()
                .unwrap(),
        );
        assert!(content.is_valid());
        assert_eq!(
            t.reply.response(Decision::Accept(&content.content)),
            json!({"outcome": {"outcome": "selected", "optionId": "proceed_once"},
                   "answers": {"0": "Teal", "1": "Docs, a CHANGELOG"}})
        );
        let cancel = json!({"outcome": {"outcome": "selected", "optionId": "cancel"}});
        assert_eq!(t.reply.response(Decision::Decline), cancel);
        assert_eq!(t.reply.response(Decision::Cancel), cancel);
        assert_eq!(
            t.reply.response(Decision::Undecided),
            json!({"outcome": {"outcome": "cancelled"}})
        );
        // Nothing answered: Qwen is told so by its own words, as before.
        assert_eq!(
            t.reply.response(Decision::Accept(&serde_json::Map::new()))["answers"],
            json!({})
        );
    }

    #[test]
    fn one_question_is_asked_in_the_message() {
        let t = translate(&example_request("s", "c", json!([questions()[0].clone()]))).unwrap();
        assert_eq!(t.message, "Which color?");
    }

    #[test]
    fn the_questions_in_raw_input_serve_when_meta_has_none() {
        let mut r = example_request("s", "c", questions());
        r["toolCall"]["_meta"]["qwenQuestions"] = json!([]);
        assert!(translate(&r).is_some());
    }

    #[test]
    fn what_is_not_a_question_dialog_stays_a_permission() {
        let mut r = example_request("s", "c", questions());
        r["toolCall"]["_meta"]["qwenInteractionKind"] = json!("tool");
        assert!(translate(&r).is_none());
        let mut r = example_request("s", "c", json!([{"question": " ", "options": []}]));
        assert!(translate(&r).is_none());
        r = example_request("s", "c", questions());
        r["options"] = json!([{"optionId": "cancel", "name": "Cancel", "kind": "reject_once"}]);
        assert!(translate(&r).is_none(), "no option to submit with");
    }
}
