//! What agents say about a standard `elicitation/create` form beyond JSON Schema, read in
//! this one place into the form model (so validation, secret detection and the history see
//! the same fields as always; only how a UI lays them out changes):
//!
//! - **A question's free-text "Other" answer** is a text property of its own beside a select
//!   property. [`apply`] links the two ([`Field::other`], [`Field::other_of`]); the text field
//!   stays a field, validated and sent under its own name, which is what the agent reads.
//!   - Claude Code (`claude-agent-acp`, `src/elicitation.ts`, `askUserQuestionsToCreateRequest`):
//!     `question_N` (a `oneOf` select, or an array with `items.anyOf`) and `question_N_custom`
//!     (`{"type":"string","title":"Other"}`); with nothing picked the text is the answer.
//!   - JetBrains AIR's marker, which the same function adds for AIR clients:
//!     `_meta.jetbrains.air.customAnswer` (and the older root key
//!     `_meta._askUserQuestionCustomAnswer`) = `{"questionId":"question_N","isCustomAnswer":true}`
//!     on the text property (`src/air-extension.ts`).
//!   - Codex (`@agentclientprotocol/codex-acp`, `src/CodexElicitationHandler.ts`,
//!     `buildUserInputRequest`): a question `ID` with `_meta.codex.isOther: true` lists a
//!     "None of the above" option, and its note `ID_note` carries
//!     `_meta.codex = {"questionId":"ID","role":"user_note","isSecret":...}`. The "Other…"
//!     choice is then that option, with the note as its text.
//! - **A secret answer**: `_meta.codex.isSecret: true` on a property (same Codex function):
//!   [`Field::masked`], and the form counts as asking for a secret (`secrets.rs`).
//! - **Option previews**: Claude's `_meta["_claude/askUserQuestionOption"].preview` on a `oneOf`
//!   / `anyOf` option ([`EnumChoice::preview`]); option descriptions are standard already.
//!
//! Every marker is advisory: a marker that does not fit (a missing question, a question that is
//! not a select, a required or non-text "Other" field, two answers for one question) is ignored
//! and the fields are shown as they are.

use serde_json::{Map, Value};

use super::model::*;

/// The `_meta` key of Claude's option extras.
const CLAUDE_OPTION_META: &str = "_claude/askUserQuestionOption";
/// Claude's suffix for a question's own "Other" field.
const CLAUDE_CUSTOM_SUFFIX: &str = "_custom";
/// The option Codex adds to a question that takes another answer.
const CODEX_OTHER_OPTION: &str = "None of the above";

/// An option's preview text, when it has one that fits the text limit.
pub(super) fn option_preview(option: &Map<String, Value>) -> Option<String> {
    let preview = option
        .get("_meta")?
        .get(CLAUDE_OPTION_META)?
        .get("preview")?
        .as_str()?;
    (!preview.is_empty() && preview.len() <= MAX_TEXT_BYTES).then(|| preview.to_owned())
}

/// Read the property markers into `fields` (parsed from `properties`, in the same order).
pub(super) fn apply(fields: &mut [Field], properties: &Map<String, Value>) {
    let meta = |name: &str| properties.get(name).and_then(|p| p.get("_meta"));
    for field in fields.iter_mut() {
        if meta(&field.name)
            .and_then(|m| m.get("codex"))
            .and_then(|c| c.get("isSecret"))
            == Some(&Value::Bool(true))
        {
            field.masked = true;
        }
    }
    for i in 0..fields.len() {
        let companion = &fields[i];
        if companion.required || !matches!(companion.kind, FieldKind::Text { .. }) {
            continue;
        }
        let Some((question, codex)) = question_of(&companion.name, meta(&companion.name)) else {
            continue;
        };
        let Some(q) = fields.iter().position(|f| f.name == question) else {
            continue;
        };
        let target = &fields[q];
        let options = match &target.kind {
            FieldKind::SingleSelect { options, .. } | FieldKind::MultiSelect { options, .. } => options,
            _ => continue,
        };
        if q == i || target.other.is_some() || target.other_of.is_some() {
            continue;
        }
        let codex_other = codex
            && meta(&target.name)
                .and_then(|m| m.get("codex"))
                .and_then(|c| c.get("isOther"))
                == Some(&Value::Bool(true));
        let choice = (codex_other && options.iter().any(|o| o.value == CODEX_OTHER_OPTION))
            .then(|| CODEX_OTHER_OPTION.to_owned());
        let companion_name = fields[i].name.clone();
        fields[q].other = Some(OtherAnswer {
            field: companion_name,
            choice,
        });
        fields[i].other_of = Some(question);
    }
}

/// The question a text property answers as its "Other", and whether Codex said so.
fn question_of(name: &str, meta: Option<&Value>) -> Option<(String, bool)> {
    let custom_answer = |marker: Option<&Value>| {
        let marker = marker?;
        (marker.get("isCustomAnswer") == Some(&Value::Bool(true)))
            .then(|| marker.get("questionId")?.as_str().map(str::to_owned))
            .flatten()
    };
    if let Some(meta) = meta {
        let air = meta.get("jetbrains").and_then(|j| j.get("air"));
        if let Some(q) = custom_answer(air.and_then(|a| a.get("customAnswer")))
            .or_else(|| custom_answer(meta.get("_askUserQuestionCustomAnswer")))
        {
            return Some((q, false));
        }
        let codex = meta.get("codex");
        if codex.and_then(|c| c.get("role")).and_then(Value::as_str) == Some("user_note")
            && let Some(q) = codex.and_then(|c| c.get("questionId")).and_then(Value::as_str)
        {
            return Some((q.to_owned(), true));
        }
    }
    let question = name.strip_suffix(CLAUDE_CUSTOM_SUFFIX)?;
    (!question.is_empty()).then(|| (question.to_owned(), false))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::parse_form_schema;
    use super::*;

    /// Claude Code's AskUserQuestion form, as `askUserQuestionsToCreateRequest` builds it
    /// (claude-agent-acp `src/elicitation.ts`): two questions, the second multi-select, one
    /// option with a preview.
    fn claude() -> Value {
        json!({"type":"object","properties":{
            "question_0":{"type":"string","title":"Color","description":"Which color?","oneOf":[
                {"const":"Teal","title":"Teal","description":"calm",
                 "_meta":{"_claude/askUserQuestionOption":{"preview":"#008080 ███"}}},
                {"const":"Orange","title":"Orange"}]},
            "question_0_custom":{"type":"string","title":"Other",
                "description":"Type your own answer, or add a note to the option you chose above (optional)."},
            "question_1":{"type":"array","title":"Extras","description":"Which extras?",
                "items":{"anyOf":[{"const":"Tests","title":"Tests"},{"const":"Docs","title":"Docs"}]}},
            "question_1_custom":{"type":"string","title":"Other",
                "description":"Type your own answer to add to your selection above (optional)."}}})
    }

    #[test]
    fn claude_custom_fields_become_the_other_answer_of_their_question() {
        let s = parse_form_schema(&claude()).unwrap();
        let q0 = s.field("question_0").unwrap();
        assert_eq!(
            q0.other,
            Some(OtherAnswer {
                field: "question_0_custom".into(),
                choice: None
            })
        );
        assert_eq!(
            s.field("question_0_custom").unwrap().other_of.as_deref(),
            Some("question_0")
        );
        assert_eq!(
            s.field("question_1").unwrap().other.as_ref().unwrap().field,
            "question_1_custom"
        );
        let FieldKind::SingleSelect { options, .. } = &q0.kind else {
            panic!("select")
        };
        assert_eq!(options[0].description.as_deref(), Some("calm"));
        assert_eq!(options[0].preview.as_deref(), Some("#008080 ███"));
        assert_eq!(options[1].preview, None);
        // Still two fields each, validated and sent under their own names.
        let v = s.validate(
            json!({"question_0_custom":"Magenta","question_1":["Docs"]})
                .as_object()
                .unwrap(),
        );
        assert!(v.is_valid(), "{v:?}");
        assert_eq!(v.content["question_0_custom"], "Magenta");
        assert!(!v.content.contains_key("question_0"));
    }

    /// JetBrains AIR's marker, as claude-agent-acp adds it for AIR (`withAirMeta`): the text
    /// field names its question, whatever it is called.
    #[test]
    fn air_custom_answer_marker_names_the_question() {
        let marker = json!({"questionId":"pick","isCustomAnswer":true});
        for meta in [
            json!({"jetbrains":{"air":{"version":1,"customAnswer":marker}}}),
            json!({"_askUserQuestionCustomAnswer":marker}),
        ] {
            let s = parse_form_schema(&json!({"properties":{
                "pick":{"type":"string","enum":["a","b"]},
                "typed":{"type":"string","title":"Other","_meta":meta}}}))
            .unwrap();
            assert_eq!(s.field("pick").unwrap().other.as_ref().unwrap().field, "typed");
            assert_eq!(s.field("typed").unwrap().other_of.as_deref(), Some("pick"));
        }
    }

    /// Codex's `request_user_input` form, as codex-acp's `buildUserInputRequest` builds it
    /// (`src/CodexElicitationHandler.ts`): a question that takes another answer lists "None of
    /// the above", and its note field names it; a secret question is marked.
    #[test]
    fn codex_notes_and_secrets() {
        let s = parse_form_schema(&json!({"type":"object","properties":{
            "color":{"title":"Which color?","description":"Color","type":"string",
                "_meta":{"codex":{"isOther":true,"isSecret":false}},
                "oneOf":[{"const":"Teal","title":"Teal","description":"calm"},
                         {"const":"None of the above","title":"None of the above",
                          "description":"Provide a different answer in the note field."}]},
            "color_note":{"type":"string","title":"Additional answer or note",
                "_meta":{"codex":{"questionId":"color","role":"user_note","isSecret":false}}},
            "token":{"title":"Deploy token","type":"string","_meta":{"codex":{"isOther":false,"isSecret":true}}}},
            "required":["color","token"]}))
        .unwrap();
        assert_eq!(
            s.field("color").unwrap().other,
            Some(OtherAnswer {
                field: "color_note".into(),
                choice: Some("None of the above".into())
            })
        );
        assert!(s.field("token").unwrap().masked);
        assert!(!s.field("color").unwrap().masked);
    }

    #[test]
    fn markers_that_do_not_fit_are_ignored() {
        let s = parse_form_schema(&json!({"properties":{
            // No such question; a question that is no select; a required "Other".
            "ghost_custom":{"type":"string"},
            "name":{"type":"string"},
            "name_custom":{"type":"string"},
            "pick":{"type":"string","enum":["a"]},
            "pick_custom":{"type":"integer"},
            "two":{"type":"string","enum":["a"]},
            "two_custom":{"type":"string"},
            "also":{"type":"string","_meta":{"codex":{"questionId":"two","role":"user_note"}}},
            "req":{"type":"string","enum":["a"]},
            "req_custom":{"type":"string"},
            "_custom":{"type":"string"},
            // isSecret must be `true` itself.
            "s":{"type":"string","_meta":{"codex":{"isSecret":"yes"}}}},
            "required":["req_custom"]}))
        .unwrap();
        for f in &s.fields {
            let expect_other = f.name == "two";
            assert_eq!(f.other.is_some(), expect_other, "{}", f.name);
            assert!(!f.masked);
        }
        // The first text field naming `two` wins; the second stays a field of its own.
        assert_eq!(
            s.field("two").unwrap().other.as_ref().unwrap().field,
            "two_custom"
        );
        assert_eq!(s.field("also").unwrap().other_of, None);
    }
}
