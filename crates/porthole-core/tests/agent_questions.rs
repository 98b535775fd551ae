//! Agents' own ways of asking questions become the one form dialog, and each agent gets its
//! answer in its own shape: Qwen Code (questions inside `session/request_permission`), Gemini
//! CLI (`gemini/requestUserInput`, asked because `initialize` declared host input), and the
//! "Other" and secret markers of Claude Code's and Codex's standard forms. The test agent's
//! `qwen-question`, `gemini-host-input` and `agent-forms` scenarios speak the agents' shapes.

mod common;

use common::{start, start_with};
use porthole_core::events::{DialogPrompt, DismissReason, ElicitationKind, Event};
use porthole_core::form::{FieldKind, FormSchema, OtherAnswer};
use porthole_core::{AgentClient, Answer, ClientOptions, Modes};
use serde_json::{Map, Value, json};

fn object(v: Value) -> Map<String, Value> {
    v.as_object().expect("an object").clone()
}

/// The form of an elicitation dialog event, with its dialog id and tool call.
fn form_of(e: &Event) -> Option<(porthole_core::events::DialogId, FormSchema, Option<String>, bool)> {
    let Event::Dialog(DialogPrompt::Elicitation(p)) = e else {
        return None;
    };
    let ElicitationKind::Form { schema, secret, .. } = &p.kind else {
        return None;
    };
    Some((
        p.dialog_id,
        schema.clone(),
        p.scope.tool_call_id().map(str::to_owned),
        *secret,
    ))
}

fn is_permission(e: &Event) -> bool {
    matches!(e, Event::Dialog(DialogPrompt::Permission(_)))
}

#[tokio::test]
async fn qwen_questions_are_a_form_and_the_answers_reach_qwen_in_its_answers_field() {
    let mut h = start().await;
    let (events, report) = h
        .turn("qwen-question", |client: &AgentClient, e| {
            if let Some((id, schema, tool_call, _)) = form_of(e) {
                assert_eq!(tool_call.as_deref(), Some("qwen-ask-1"));
                assert_eq!(schema.field("question_0").unwrap().label(), "Color");
                assert_eq!(
                    schema.field("question_1").unwrap().other,
                    Some(OtherAnswer {
                        field: "question_1_custom".into(),
                        choice: None
                    })
                );
                // Core validates it like any form: an option Qwen did not offer is refused.
                assert!(
                    client
                        .respond_elicitation(id, Answer::Accept(object(json!({"question_0": "Pink"}))))
                        .is_err()
                );
                client
                    .respond_elicitation(
                        id,
                        Answer::Accept(object(json!({"question_0": "Teal", "question_1": ["Docs"],
                            "question_1_custom": "a CHANGELOG"}))),
                    )
                    .unwrap();
            }
        })
        .await;
    assert!(
        !events.iter().any(is_permission),
        "shown as a form, not a permission"
    );
    assert!(events.iter().any(|e| form_of(e).is_some()));
    assert_eq!(
        report["results"][0]["result"],
        json!({"outcome": {"outcome": "selected", "optionId": "proceed_once"},
               "answers": {"0": "Teal", "1": "Docs, a CHANGELOG"}})
    );

    // Declining selects Qwen's own cancel option.
    let (_, report) = h
        .turn("qwen-question", |client: &AgentClient, e| {
            if let Some((id, ..)) = form_of(e) {
                client.respond_elicitation(id, Answer::Decline).unwrap();
            }
        })
        .await;
    assert_eq!(
        report["results"][0]["result"],
        json!({"outcome": {"outcome": "selected", "optionId": "cancel"}})
    );
    h.check_schema();
    h.client.shutdown().await;
}

#[tokio::test]
async fn cancelling_the_turn_answers_a_qwen_question_cancelled_as_for_any_permission() {
    let mut h = start().await;
    let (events, report) = h
        .turn("qwen-question", |client: &AgentClient, e| {
            if form_of(e).is_some() {
                client.cancel("test-session-1").unwrap();
            }
        })
        .await;
    assert!(events.iter().any(|e| matches!(
        e,
        Event::DialogDismissed {
            reason: DismissReason::TurnCancelled,
            ..
        }
    )));
    assert_eq!(
        report["results"][0]["result"],
        json!({"outcome": {"outcome": "cancelled"}})
    );
    h.client.shutdown().await;
}

#[tokio::test]
async fn without_form_elicitation_a_qwen_question_stays_a_permission_request() {
    let mut h = start_with(
        ClientOptions {
            modes: Modes {
                form: false,
                url: true,
            },
            ..Default::default()
        },
        vec![],
    )
    .await;
    let (events, report) = h
        .turn("qwen-question", |client: &AgentClient, e| {
            if let Event::Dialog(DialogPrompt::Permission(p)) = e {
                client.respond_permission(p.dialog_id, None).unwrap();
            }
        })
        .await;
    assert!(events.iter().any(is_permission));
    assert_eq!(report["results"][0]["result"]["outcome"]["outcome"], "cancelled");
    h.client.shutdown().await;
}

#[tokio::test]
async fn gemini_host_input_is_declared_and_answered_in_geminis_shape() {
    let mut h = start().await;
    let init = h.v1_initialize();
    assert_eq!(
        init["params"]["clientCapabilities"]["_meta"]["geminiCli.hostInput"],
        json!({"version": 1, "requestUserInput": true, "supportedKinds": ["ask_user", "exit_plan_mode"]})
    );
    let mut asked = 0;
    let (_, report) = h
        .turn("gemini-host-input", |client: &AgentClient, e| {
            let Some((id, schema, tool_call, _)) = form_of(e) else {
                return;
            };
            asked += 1;
            let content = if asked == 1 {
                assert_eq!(tool_call.as_deref(), Some("gemini-ask-1"));
                assert!(matches!(
                    schema.field("question_1").unwrap().kind,
                    FieldKind::Text { .. }
                ));
                // "Another database" typed in the question's Other box.
                json!({"question_0_custom": "DuckDB", "question_1": "billing", "question_2": "Yes"})
            } else {
                json!({"question_0": "Yes, manually accept edits"})
            };
            client
                .respond_elicitation(id, Answer::Accept(object(content)))
                .unwrap();
        })
        .await;
    assert_eq!(asked, 2);
    assert_eq!(
        report["results"][0]["result"],
        json!({"outcome": "submitted", "answers": {"0": "DuckDB", "1": "billing", "2": "Yes"}})
    );
    assert_eq!(
        report["results"][1]["result"],
        json!({"outcome": "submitted", "answers": {"0": "Yes, manually accept edits"}})
    );

    let (_, report) = h
        .turn("gemini-host-input", |client: &AgentClient, e| {
            if let Some((id, ..)) = form_of(e) {
                client.respond_elicitation(id, Answer::Cancel).unwrap();
            }
        })
        .await;
    for i in 0..2 {
        assert_eq!(report["results"][i]["result"], json!({"outcome": "cancelled"}));
    }
    h.check_schema();
    h.client.shutdown().await;
}

#[tokio::test]
async fn without_form_elicitation_gemini_host_input_is_not_declared() {
    let mut h = start_with(
        ClientOptions {
            modes: Modes::NONE,
            ..Default::default()
        },
        vec![],
    )
    .await;
    let init = h.v1_initialize();
    assert_eq!(init["params"]["clientCapabilities"].get("_meta"), None);
    let (_, report) = h.turn("gemini-host-input", |_, _| {}).await;
    assert!(report["results"][0]["skipped"].is_string());
    h.client.shutdown().await;
}

#[tokio::test]
async fn claude_and_codex_other_boxes_and_secrets_are_read_from_their_forms() {
    let mut h = start().await;
    let mut asked = 0;
    let (_, report) = h
        .turn("agent-forms", |client: &AgentClient, e| {
            let Some((id, schema, _, secret)) = form_of(e) else {
                return;
            };
            asked += 1;
            let content = if asked == 1 {
                // Claude Code: `question_0_custom` is question_0's Other box; previews kept.
                let q = schema.field("question_0").unwrap();
                assert_eq!(q.other.as_ref().unwrap().field, "question_0_custom");
                let FieldKind::SingleSelect { options, .. } = &q.kind else {
                    panic!("select")
                };
                assert_eq!(options[0].preview.as_deref(), Some("#008080"));
                assert_eq!(options[1].description.as_deref(), Some("loud"));
                assert!(!secret);
                json!({"question_0_custom": "Magenta"})
            } else {
                // Codex: the note is the Other box, chosen with "None of the above"; the
                // secret answer is masked and the form flagged.
                assert_eq!(
                    schema.field("color").unwrap().other,
                    Some(OtherAnswer {
                        field: "color_note".into(),
                        choice: Some("None of the above".into())
                    })
                );
                assert!(schema.field("passphrase_hint").unwrap().masked);
                assert!(secret);
                json!({"color": "None of the above", "color_note": "Magenta", "passphrase_hint": "x"})
            };
            client
                .respond_elicitation(id, Answer::Accept(object(content)))
                .unwrap();
        })
        .await;
    assert_eq!(asked, 2);
    // Sent in the agents' own properties, as they read them.
    assert_eq!(
        report["results"][0]["result"],
        json!({"action": "accept", "content": {"question_0_custom": "Magenta"}})
    );
    assert_eq!(
        report["results"][1]["result"],
        json!({"action": "accept", "content": {"color": "None of the above", "color_note": "Magenta",
            "passphrase_hint": "x"}})
    );
    h.check_schema();
    h.client.shutdown().await;
}
