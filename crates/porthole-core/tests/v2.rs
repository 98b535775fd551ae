//! ACP v2 beside v1 (docs/acp-v2.md), against the scripted test agent: negotiation both ways,
//! and the v2 wire feeding the same events and transcript updates as v1.

mod common;

use common::*;
use porthole_core::acp::schema::ProtocolVersion;
use porthole_core::client::ClientError;
use porthole_core::events::{DialogPrompt, ElicitationKind, Event};
use porthole_core::transcript::{ItemUpdate, MessageEdit, MessageRole, SessionState, TranscriptUpdate};
use porthole_core::transport::Direction;
use porthole_core::{AgentClient, Answer, ClientOptions, ProtocolChoice};
use serde_json::{Value, json};

fn v2_env() -> Vec<(String, String)> {
    vec![("PORTHOLE_TEST_AGENT_V2".into(), "1".into())]
}

fn with(protocol: ProtocolChoice) -> ClientOptions {
    ClientOptions {
        protocol,
        ..ClientOptions::default()
    }
}

fn sent(h: &Harness, method: &str) -> Vec<Value> {
    h.tap
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter(|(d, _)| *d == Direction::Outgoing)
        .filter_map(|(_, l)| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == method)
        .collect()
}

fn updates(events: &[Event]) -> Vec<&TranscriptUpdate> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SessionUpdate { update, .. } => Some(&**update),
            _ => None,
        })
        .collect()
}

fn states(events: &[Event]) -> Vec<(String, bool)> {
    updates(events)
        .into_iter()
        .filter_map(|u| match u {
            TranscriptUpdate::Session(SessionState::State(s)) => Some((s.state.clone(), s.busy)),
            _ => None,
        })
        .collect()
}

/// Auto against a v2 agent: one v2-shaped `initialize` (`capabilities`, `info`), and the
/// connection speaks v2.
#[tokio::test]
async fn auto_speaks_v2_with_an_agent_that_takes_it() {
    let h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    assert_eq!(h.client.protocol_version(), ProtocolVersion::V2);
    assert_eq!(h.client.init_response().protocol_version, ProtocolVersion::V2);
    assert_eq!(h.client.agent().name, "porthole-test-agent");
    let inits = sent(&h, "initialize");
    assert_eq!(inits.len(), 1, "{inits:?}");
    let params = &inits[0]["params"];
    assert_eq!(params["protocolVersion"], 2);
    assert_eq!(
        params["capabilities"]["elicitation"],
        json!({"form": {}, "url": {}})
    );
    assert_eq!(params["info"]["name"], "porthole");
    assert!(params.get("clientCapabilities").is_none(), "{params}");
    // The session was opened with v2's session/new.
    assert_eq!(h.session, "v2-session-1");
    h.client.shutdown().await;
}

/// Auto against a v1 agent: the v2 offer, then a v1-shaped `initialize` on the same process
/// that turns on fs and terminals; the connection speaks v1.
#[tokio::test]
async fn auto_falls_back_to_v1_on_the_same_process() {
    let mut h = start_with(with(ProtocolChoice::Auto), vec![]).await;
    assert_eq!(h.client.protocol_version(), ProtocolVersion::V1);
    let inits = sent(&h, "initialize");
    assert_eq!(inits.len(), 2, "{inits:?}");
    assert_eq!(inits[0]["params"]["protocolVersion"], 2);
    let v1 = &inits[1]["params"];
    assert_eq!(v1["protocolVersion"], 1);
    assert_eq!(
        v1["clientCapabilities"]["fs"],
        json!({"readTextFile": true, "writeTextFile": true})
    );
    assert_eq!(v1["clientCapabilities"]["terminal"], true);
    // The v1 wire works on: a turn with its v1 stop.
    let (events, _) = h.turn("form", decline).await;
    assert!(
        matches!(events.last(), Some(Event::TurnEnded { error: None, .. })),
        "{events:?}"
    );
    h.client.shutdown().await;
}

/// V1 is today's path: one v1 `initialize`, even with an agent that would speak v2.
#[tokio::test]
async fn v1_sends_only_v1() {
    let h = start_with(with(ProtocolChoice::V1), v2_env()).await;
    let inits = sent(&h, "initialize");
    assert_eq!(inits.len(), 1);
    assert_eq!(inits[0]["params"]["protocolVersion"], 1);
    assert_eq!(h.client.protocol_version(), ProtocolVersion::V1);
    // v1 has no way to cancel one tool call: said, not sent.
    assert!(matches!(
        h.client.cancel_tool_call(&h.session, "t").await,
        Err(ClientError::Unsupported("tool_call/cancel"))
    ));
    h.client.shutdown().await;
}

/// V2 with a v1 agent is a clear error, and the agent is stopped.
#[tokio::test]
async fn v2_with_a_v1_agent_is_an_error() {
    let command = porthole_core::AgentCommand {
        program: test_agent().display().to_string(),
        args: vec![],
        env: vec![],
        cwd: None,
    };
    match AgentClient::start(command, with(ProtocolChoice::V2)).await {
        Err(ClientError::NotV2 { selected: 1 }) => {}
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a v1 agent was accepted as v2"),
    }
}

/// Upserts: chunks append, a list replaces, content left out keeps, `null` clears, and an id
/// never seen creates (the model's own edits, which front ends apply as for v1).
#[tokio::test]
async fn message_upserts_map_to_the_models_edits() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (events, report) = h.turn("v2-upserts", |_, _| {}).await;
    assert_eq!(report["scenario"], "v2-upserts");
    let edits: Vec<(MessageRole, String, &MessageEdit)> = updates(&events)
        .into_iter()
        .filter_map(|u| u.message())
        .map(|m| (m.role, m.message_id.as_ref().unwrap().0.to_string(), &m.edit))
        .filter(|(_, id, _)| id != "report")
        .collect();
    let text = |e: &MessageEdit| match e {
        MessageEdit::Append { content } => format!("+{}", serde_json::to_value(content).unwrap()["text"]),
        MessageEdit::Replace { content } => format!(
            "={}",
            content
                .iter()
                .map(|c| serde_json::to_value(c).unwrap()["text"].to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        MessageEdit::Keep => "keep".into(),
    };
    let got: Vec<(MessageRole, String, String)> =
        edits.iter().map(|(r, id, e)| (*r, id.clone(), text(e))).collect();
    assert_eq!(
        got,
        vec![
            (MessageRole::Agent, "m1".into(), "+\"Hel\"".into()),
            (MessageRole::Agent, "m1".into(), "+\"lo\"".into()),
            (MessageRole::Agent, "m1".into(), "=\"Hello, edited\"".into()),
            (MessageRole::Agent, "m1".into(), "keep".into()),
            (MessageRole::Thought, "t1".into(), "=".into()),
            (MessageRole::Agent, "m2".into(), "=\"fresh\"".into()),
        ]
    );
    // The turn ended on idle, after its updates, with v1's stop reason.
    assert!(
        matches!(events.last(), Some(Event::TurnEnded { stop_reason: Some(r), error: None, .. })
            if serde_json::to_value(r).unwrap() == "end_turn"),
        "{:?}",
        events.last()
    );
    assert_eq!(
        states(&events),
        vec![("running".into(), true), ("idle".into(), false)]
    );
    h.client.shutdown().await;
}

/// running -> requires_action (a permission, v2's tool-call subject, through the permission
/// dialog) -> running -> idle ends the turn; tool call content streams in chunks.
#[tokio::test]
async fn a_permission_waits_and_idle_ends_the_turn() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let mut asked = None;
    let (events, report) = h
        .turn("v2-permission", |c, e| {
            if let Event::Dialog(DialogPrompt::Permission(p)) = e {
                asked = Some((p.tool_call.fields.title.clone(), p.tool_kind.clone()));
                c.respond_permission(p.dialog_id, Some("allow".into())).unwrap();
            }
        })
        .await;
    // The request's own title (v2's `title`), the kind from the call's update.
    assert_eq!(asked, Some((Some("Edit a.rs?".into()), "edit".into())));
    assert_eq!(
        report["results"][0]["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "allow"})
    );
    assert_eq!(
        states(&events),
        vec![
            ("running".into(), true),
            ("requires_action".into(), true),
            ("running".into(), true),
            ("idle".into(), false)
        ]
    );
    // The first tool_call_update created the call; the chunks gave its content whole each time.
    let calls: Vec<_> = updates(&events)
        .into_iter()
        .filter_map(|u| u.tool_call())
        .collect();
    assert!(calls[0].opened);
    let texts: Vec<Vec<String>> = calls
        .iter()
        .filter_map(|c| c.fields.content.as_ref())
        .map(|content| {
            content
                .iter()
                .map(|c| {
                    serde_json::to_value(c).unwrap()["content"]["text"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
        .collect();
    assert_eq!(
        texts,
        vec![vec!["one ".to_string()], vec!["one ".into(), "two".into()]]
    );
    assert!(matches!(
        events.last(),
        Some(Event::TurnEnded { error: None, .. })
    ));
    h.client.shutdown().await;
}

/// A command subject is shown as an `execute` call with the command.
#[tokio::test]
async fn a_command_permission_is_a_permission_dialog() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let mut shown = None;
    let (_, report) = h
        .turn("v2-command-permission", |c, e| {
            if let Event::Dialog(DialogPrompt::Permission(p)) = e {
                shown = Some((p.tool_kind.clone(), p.tool_call.fields.raw_input.clone()));
                c.respond_permission(p.dialog_id, Some("no".into())).unwrap();
            }
        })
        .await;
    let (kind, input) = shown.expect("asked");
    assert_eq!(kind, "execute");
    assert_eq!(input.unwrap()["command"], "cargo test");
    assert_eq!(report["results"][0]["result"]["outcome"]["optionId"], "no");
    h.client.shutdown().await;
}

/// v2's form and URL questions go through the existing elicitation dialogs and rules.
#[tokio::test]
async fn form_and_url_questions_use_the_elicitation_dialogs() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (_, report) = h
        .turn("v2-form", |c, e| {
            if let Event::Dialog(DialogPrompt::Elicitation(p)) = e {
                assert!(matches!(p.kind, ElicitationKind::Form { .. }));
                let content = json!({"name": "bob", "port": 80}).as_object().unwrap().clone();
                c.respond_elicitation(p.dialog_id, Answer::Accept(content))
                    .unwrap();
            }
        })
        .await;
    assert_eq!(
        report["results"][0]["result"],
        json!({"action": "accept", "content": {"name": "bob", "port": 80}})
    );
    let (events, report) = h
        .turn("v2-url", |c, e| {
            if let Event::Dialog(DialogPrompt::Elicitation(p)) = e {
                assert!(matches!(p.kind, ElicitationKind::Url { .. }));
                c.respond_elicitation(p.dialog_id, Answer::Decline).unwrap();
            }
        })
        .await;
    assert_eq!(report["results"][0]["result"], json!({"action": "decline"}));
    assert!(matches!(
        events.last(),
        Some(Event::TurnEnded { error: None, .. })
    ));
    // Two scopes at once are refused by the broker's rule, as in v1.
    let (_, report) = h.turn("v2-two-scopes", |_, _| {}).await;
    assert_eq!(report["results"][0]["error"]["code"], -32602, "{report}");
    h.client.shutdown().await;
}

/// An unknown state counts as busy (the turn goes on), and an idle before the work started
/// does not end the turn.
#[tokio::test]
async fn unknown_states_are_busy_and_a_stale_idle_is_not_the_end() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (events, report) = h.turn("v2-unknown-state", |_, _| {}).await;
    assert_eq!(
        report["scenario"], "v2-unknown-state",
        "the turn went on to the report"
    );
    assert_eq!(
        states(&events),
        vec![("_compacting".into(), true), ("idle".into(), false)]
    );
    let (events, report) = h.turn("v2-stale-idle", |_, _| {}).await;
    assert_eq!(
        report["scenario"], "v2-stale-idle",
        "the stale idle did not end the turn"
    );
    assert_eq!(
        states(&events),
        vec![
            ("idle".into(), false),
            ("running".into(), true),
            ("idle".into(), false)
        ]
    );
    h.client.shutdown().await;
}

/// Kinds Porthole does not model are kept as `unknown` (never dropped); the plan and notices
/// keep their v1 kinds, a subagent is a `subagent`; background work comes with the state.
#[tokio::test]
async fn unknown_kinds_are_kept_and_known_ones_keep_their_kinds() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (events, _) = h.turn("v2-unknown-kinds", |_, _| {}).await;
    let kinds: Vec<String> = updates(&events)
        .into_iter()
        .map(|u| match u {
            TranscriptUpdate::Item(ItemUpdate::Unknown(u)) => format!("unknown:{}", u.session_update),
            other => other.kind().to_string(),
        })
        .collect();
    for expected in ["unknown:_porthole_test", "subagent", "plan", "notice"] {
        assert!(kinds.iter().any(|k| k == expected), "{expected} in {kinds:?}");
    }
    let (events, _) = h.turn("v2-background", |_, _| {}).await;
    let background = updates(&events).into_iter().find_map(|u| match u {
        TranscriptUpdate::Session(SessionState::State(s)) => s.background.clone(),
        _ => None,
    });
    let background = background.expect("background work listed");
    assert_eq!(background.len(), 2);
    assert_eq!(background[0]["toolCallId"], "bg-1");
    assert_eq!(background[1]["type"], "_indexing");
    h.client.shutdown().await;
}

/// Malformed updates (null where required, wrong types) are refused as malformed, and the
/// turn goes on.
#[tokio::test]
async fn malformed_updates_are_refused_without_a_crash() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (events, report) = h.turn("v2-malformed", |_, _| {}).await;
    let malformed = events
        .iter()
        .filter(|e| matches!(e, Event::MalformedUpdate { .. }))
        .count();
    assert_eq!(malformed, 4, "{events:?}");
    assert_eq!(report["scenario"], "v2-malformed");
    assert!(matches!(
        events.last(),
        Some(Event::TurnEnded { error: None, .. })
    ));
    h.client.shutdown().await;
}

/// A v2 turn of many updates: every one of them arrives, in order, and the turn ends (all of
/// them take the SDK's path, paced by the fast path's barrier).
#[tokio::test]
async fn a_flood_of_v2_updates_arrives_whole() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let (events, _) = h.turn("v2-flood", |_, _| {}).await;
    let text: String = updates(&events)
        .into_iter()
        .filter(|u| {
            u.message()
                .and_then(|m| m.message_id.as_ref())
                .is_some_and(|id| &*id.0 == "flood")
        })
        .filter_map(|u| u.agent_text())
        .collect();
    let expected: String = (0..500).map(|i| format!("{i} ")).collect();
    assert_eq!(text, expected);
    assert!(matches!(
        events.last(),
        Some(Event::TurnEnded { error: None, .. })
    ));
    h.client.shutdown().await;
}

/// Auto with an agent that refuses the v2 offer with an error: asked again in v1, on the same
/// process.
#[tokio::test]
async fn auto_falls_back_when_the_v2_offer_is_refused_with_an_error() {
    let env = vec![("PORTHOLE_TEST_AGENT_REFUSE_V2".into(), "1".into())];
    let h = start_with(with(ProtocolChoice::Auto), env).await;
    assert_eq!(h.client.protocol_version(), ProtocolVersion::V1);
    assert_eq!(sent(&h, "initialize").len(), 2);
    h.client.shutdown().await;
}

/// Auto with an agent that answers the v2 offer `protocolVersion: 2` in v1's shape (Factory
/// Droid and Goose do): not v2, so v1 is asked next on the same process, which keeps running.
/// (That fallback no longer waits for an exit that never comes: the agents suite's auto column
/// prints the delay for Droid and Goose.)
#[tokio::test]
async fn auto_falls_back_when_the_v2_offer_is_answered_in_v1s_shape() {
    let env = vec![("PORTHOLE_TEST_AGENT_V1_BODY_FOR_V2".into(), "1".into())];
    let mut h = start_with(with(ProtocolChoice::Auto), env).await;
    assert_eq!(h.client.protocol_version(), ProtocolVersion::V1);
    let inits = sent(&h, "initialize");
    assert_eq!(inits.len(), 2, "{inits:?}");
    assert_eq!(inits[1]["params"]["protocolVersion"], 1);
    let (events, _) = h.turn("form", decline).await;
    assert!(
        matches!(events.last(), Some(Event::TurnEnded { error: None, .. })),
        "{events:?}"
    );
    h.client.shutdown().await;
}

/// The session methods on the v2 wire: list, load (resume with replay), config options, fork,
/// delete, close, and sign-in and out (`auth/login`, `auth/logout`); v2 has no modes.
#[tokio::test]
async fn session_methods_speak_v2() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    // v2's required session methods are advertised in the v1 view front ends check.
    let caps = h.client.agent_capabilities();
    assert!(caps.load_session);
    assert!(caps.session_capabilities.list.is_some() && caps.session_capabilities.close.is_some());
    // Delete and fork as the agent declares them; logout because it lists sign-in methods.
    assert!(caps.session_capabilities.delete.is_some() && caps.session_capabilities.fork.is_some());
    assert!(caps.auth.logout.is_some());
    let listing = h.client.list_sessions(None, None).await.expect("session/list");
    assert_eq!(&*listing.sessions[0].session_id.0, "v2-old");
    let options = h
        .client
        .set_config_option(
            &h.session,
            "model",
            porthole_core::sessions::ConfigValue::Select("deep".into()),
        )
        .await
        .expect("session/set_config_option");
    assert_eq!(serde_json::to_value(&options).unwrap()[0]["currentValue"], "deep");
    assert_eq!(sent(&h, "session/set_config_option")[0]["params"]["type"], "id");
    assert!(matches!(
        h.client.set_mode(&h.session, "code").await,
        Err(ClientError::Unsupported("session/set_mode"))
    ));
    h.client.authenticate("agent-login").await.expect("auth/login");
    assert_eq!(sent(&h, "auth/login").len(), 1);
    assert!(sent(&h, "authenticate").is_empty());
    h.client
        .cancel_tool_call(&h.session, "bg-1")
        .await
        .expect("tool_call/cancel");
    assert_eq!(
        sent(&h, "tool_call/cancel")[0]["params"],
        json!({"sessionId": h.session, "toolCallId": "bg-1"})
    );
    h.client
        .cancel_terminal(&h.session, "t-1")
        .await
        .expect("terminal/cancel");
    assert_eq!(sent(&h, "terminal/cancel")[0]["params"]["terminalId"], "t-1");
    let forked = h
        .client
        .fork_session(&h.session, h.dir.path().canonicalize().unwrap())
        .await
        .expect("session/fork");
    assert_eq!(forked.session_id, format!("{}-fork", h.session));
    assert_eq!(forked.config_options.len(), 1);
    let fork = &sent(&h, "session/fork")[0]["params"];
    assert_eq!(fork["sessionId"], json!(h.session));
    assert!(fork["cwd"].is_string(), "{fork}");
    h.client.delete_session("v2-old").await.expect("session/delete");
    assert_eq!(
        sent(&h, "session/delete")[0]["params"],
        json!({"sessionId": "v2-old"})
    );
    h.client.logout().await.expect("auth/logout");
    assert_eq!(sent(&h, "auth/logout").len(), 1);
    assert!(sent(&h, "logout").is_empty());
    h.client.close_session(&h.session).await.expect("session/close");
    // A load is v2's resume with the history replayed first.
    let opened = h
        .client
        .load_session("v2-old", h.dir.path().canonicalize().unwrap())
        .await
        .expect("session/resume");
    assert_eq!(opened.config_options.len(), 1);
    assert_eq!(
        sent(&h, "session/resume")[0]["params"]["replayFrom"],
        json!({"type": "start"})
    );
    let replayed = h.next().await;
    assert!(
        matches!(&replayed, Event::SessionUpdate { session_id, update }
            if session_id == "v2-old" && update.message().is_some_and(|m| m.role == MessageRole::User)),
        "{replayed:?}"
    );
    h.client.shutdown().await;
}

/// `session/cancel` in v2: the agent goes idle with `cancelled`, the turn's end.
#[tokio::test]
async fn cancel_ends_the_turn_with_the_agents_idle() {
    let mut h = start_with(with(ProtocolChoice::Auto), v2_env()).await;
    let session = h.session.clone();
    let (events, _) = h
        .turn("v2-cancel", |c, e| {
            if let Event::SessionUpdate { update, .. } = e
                && update.agent_text() == Some("waiting for a cancel")
            {
                c.cancel(&session).unwrap();
            }
        })
        .await;
    assert!(
        matches!(events.last(), Some(Event::TurnEnded { stop_reason: Some(r), .. })
            if serde_json::to_value(r).unwrap() == "cancelled"),
        "{:?}",
        events.last()
    );
    assert_eq!(
        sent(&h, "session/cancel")[0]["params"],
        json!({"sessionId": session})
    );
    h.client.shutdown().await;
}
