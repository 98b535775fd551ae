//! The demo agent's v2, driven by the SDK's own v2 client (`Client.v2()`, as the SDK's
//! `v2_one_shot_client` example does) against the agent's binary: version negotiation, and each
//! v2 scenario's update kinds in order, ending with the state `idle`.

use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v2::{ConnectionTo, InitializeOutcome, Responder, schema};
use agent_client_protocol::{AcpAgent, Agent, Client, Error};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

fn agent() -> AcpAgent {
    AcpAgent::from_str(env!("CARGO_BIN_EXE_porthole-demo-agent")).expect("the agent's command")
}

/// A fresh empty workspace, removed when dropped.
fn workspace() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("porthole-demo-v2-")
        .tempdir()
        .unwrap()
}

/// How the test's person answers: elicitations with `elicit` (`null`: decline), permissions
/// with the option `permission`.
#[derive(Clone)]
struct Person {
    elicit: Value,
    permission: &'static str,
}

impl Default for Person {
    fn default() -> Self {
        Self {
            elicit: Value::Null,
            permission: "allow_once",
        }
    }
}

/// One step of a conversation in one session.
enum Step {
    /// A prompt, until its turn is idle with a stop reason.
    Prompt(&'static str),
    /// A prompt cancelled (`session/cancel`) at its first agent message chunk.
    CancelMidTurn(&'static str),
    /// `tool_call/cancel` for the background work the last state listed, until the state lists none.
    CancelBackground,
    /// Waits until a state lists no background work.
    AwaitNoBackground,
    /// A prompt whose terminal is stopped (`terminal/cancel`) at its first output.
    CancelTerminal(&'static str),
}

/// What a conversation produced: every update of the connection and every request from the
/// agent, as JSON.
#[derive(Default)]
struct Seen {
    session: String,
    updates: Vec<Value>,
    requests: Vec<Value>,
}

impl Seen {
    /// The update kinds of `session` (a state as `state_update:STATE`), repeats folded.
    fn kinds(&self, session: &str) -> Vec<String> {
        let mut kinds: Vec<String> = Vec::new();
        for n in self.updates.iter().filter(|n| n["sessionId"] == session) {
            let u = &n["update"];
            let kind = match u["sessionUpdate"].as_str().unwrap() {
                "state_update" => format!("state_update:{}", u["state"].as_str().unwrap()),
                other => other.to_owned(),
            };
            if kinds.last() != Some(&kind) {
                kinds.push(kind);
            }
        }
        kinds
    }

    /// The updates of this conversation's session with kind `kind`.
    fn of(&self, kind: &str) -> Vec<&Value> {
        self.updates
            .iter()
            .filter(|n| n["sessionId"] == *self.session && n["update"]["sessionUpdate"] == kind)
            .map(|n| &n["update"])
            .collect()
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Waits for the next update of `session` that `test` accepts, keeping every update.
async fn until(
    rx: &mut UnboundedReceiver<Value>,
    seen: &Mutex<Seen>,
    test: impl Fn(&Value) -> bool,
) -> Result<Value, Error> {
    loop {
        let n = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .map_err(|_| Error::internal_error().data("no update in 20 s"))?
            .ok_or_else(|| Error::internal_error().data("the agent went away"))?;
        seen.lock().unwrap().updates.push(n.clone());
        if test(&n) {
            return Ok(n);
        }
    }
}

fn idle_with_stop(session: &str) -> impl Fn(&Value) -> bool + '_ {
    move |n| {
        n["sessionId"] == session && n["update"]["state"] == "idle" && n["update"].get("stopReason").is_some()
    }
}

/// A v2 connection to the agent in which `steps` run in one new session (cwd `ws`).
async fn converse(person: Person, ws: &std::path::Path, steps: Vec<Step>) -> Seen {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (tx, mut rx) = unbounded_channel::<Value>();
    let (on_permission, on_elicit) = (seen.clone(), seen.clone());
    let elicit = person.elicit.clone();
    let ws = ws.to_path_buf();
    let result = Client
        .v2()
        .name("porthole-demo-agent-v2-test")
        .on_receive_notification(
            async move |n: schema::UpdateSessionNotification, _cx: ConnectionTo<Agent>| {
                tx.send(to_json(&n)).map_err(Error::into_internal_error)
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |r: schema::RequestPermissionRequest,
                        responder: Responder<schema::RequestPermissionResponse>,
                        _cx: ConnectionTo<Agent>| {
                on_permission
                    .lock()
                    .unwrap()
                    .requests
                    .push(json!({ "method": "session/request_permission", "params": to_json(&r) }));
                responder.respond(schema::RequestPermissionResponse::new(
                    schema::RequestPermissionOutcome::Selected(schema::SelectedPermissionOutcome::new(
                        person.permission,
                    )),
                ))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: schema::CreateElicitationRequest,
                        responder: Responder<schema::CreateElicitationResponse>,
                        _cx: ConnectionTo<Agent>| {
                on_elicit
                    .lock()
                    .unwrap()
                    .requests
                    .push(json!({ "method": "elicitation/create", "params": to_json(&r) }));
                let answer = if elicit.is_null() {
                    json!({ "action": "decline" })
                } else {
                    json!({ "action": "accept", "content": elicit })
                };
                responder.respond(serde_json::from_value(answer).map_err(Error::into_internal_error)?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(agent(), {
            let seen = seen.clone();
            async move |cx: ConnectionTo<Agent>| {
                let InitializeOutcome::Initialized(_) = cx
                    .send_initialize(
                        schema::InitializeRequest::new(
                            ProtocolVersion::V2,
                            schema::Implementation::new("test", "1"),
                        )
                        .capabilities(
                            serde_json::from_value(json!({ "elicitation": { "form": {}, "url": {} } }))
                                .unwrap(),
                        ),
                    )
                    .block_task()
                    .await?
                else {
                    return Err(Error::internal_error().data("the agent did not answer v2"));
                };
                let created = cx
                    .send_request(schema::NewSessionRequest::new(ws.clone()))
                    .block_task()
                    .await?;
                let session = created.session_id.to_string();
                seen.lock().unwrap().session = session.clone();
                until(&mut rx, &seen, |n| n["update"]["state"] == "idle").await?;
                for step in steps {
                    match step {
                        Step::Prompt(text) => {
                            cx.send_request(schema::PromptRequest::new(session.clone(), vec![text.into()]))
                                .block_task()
                                .await?;
                            until(&mut rx, &seen, idle_with_stop(&session)).await?;
                        }
                        Step::CancelMidTurn(text) => {
                            cx.send_request(schema::PromptRequest::new(session.clone(), vec![text.into()]))
                                .block_task()
                                .await?;
                            until(&mut rx, &seen, |n| {
                                n["update"]["sessionUpdate"] == "agent_message_chunk"
                            })
                            .await?;
                            cx.send_notification(schema::CancelSessionNotification::new(session.clone()))?;
                            until(&mut rx, &seen, idle_with_stop(&session)).await?;
                        }
                        Step::CancelBackground => {
                            let listed = seen.lock().unwrap().updates.iter().rev().find_map(|n| {
                                n["update"]["background"][0]["toolCallId"]
                                    .as_str()
                                    .map(str::to_owned)
                            });
                            let call = listed
                                .ok_or_else(|| Error::internal_error().data("no background work listed"))?;
                            cx.send_request(schema::CancelToolCallRequest::new(session.clone(), call))
                                .block_task()
                                .await?;
                            until(&mut rx, &seen, |n| n["update"]["background"] == json!([])).await?;
                        }
                        Step::CancelTerminal(text) => {
                            cx.send_request(schema::PromptRequest::new(session.clone(), vec![text.into()]))
                                .block_task()
                                .await?;
                            let output = until(&mut rx, &seen, |n| {
                                n["update"]["sessionUpdate"] == "terminal_output_chunk"
                            })
                            .await?;
                            let terminal = output["update"]["terminalId"].as_str().unwrap().to_owned();
                            cx.send_request(schema::CancelTerminalRequest::new(session.clone(), terminal))
                                .block_task()
                                .await?;
                            until(&mut rx, &seen, idle_with_stop(&session)).await?;
                        }
                        Step::AwaitNoBackground => {
                            until(&mut rx, &seen, |n| n["update"]["background"] == json!([])).await?;
                        }
                    }
                }
                Ok(())
            }
        })
        .await;
    result.expect("the conversation");
    Arc::try_unwrap(seen)
        .ok()
        .expect("the conversation is over")
        .into_inner()
        .unwrap()
}

fn kinds(list: &[&str]) -> Vec<String> {
    list.iter().map(|k| k.to_string()).collect()
}

/// Every turn: the prompt as a user message upsert, running, ..., idle.
fn turn(middle: &[&str]) -> Vec<String> {
    let mut all = vec!["user_message", "state_update:running"];
    all.extend_from_slice(middle);
    all.push("state_update:idle");
    kinds(&all)
}

/// What a new session sends before any prompt.
const OPENING: [&str; 2] = ["available_commands_update", "state_update:idle"];

fn with_opening(turns: Vec<String>) -> Vec<String> {
    let mut all = kinds(&OPENING);
    all.extend(turns);
    all
}

fn last_stop(seen: &Seen) -> Value {
    seen.of("state_update").last().unwrap()["stopReason"].clone()
}

#[tokio::test]
async fn initialize_answers_2_to_a_v2_client() {
    let response = Client
        .v2()
        .connect_with(agent(), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await
        })
        .await
        .unwrap();
    let InitializeOutcome::Initialized(response) = response else {
        panic!("the agent selected a lower version: {response:?}");
    };
    assert_eq!(response.protocol_version, ProtocolVersion::V2);
    assert_eq!(response.info.name, "porthole-demo-agent");
    let capabilities = to_json(&response.capabilities);
    assert_eq!(
        capabilities["session"]["mcp"],
        json!({ "stdio": {} }),
        "its MCP client reaches stdio servers only: {capabilities}"
    );
}

#[tokio::test]
async fn initialize_answers_1_to_a_v1_client() {
    use agent_client_protocol::v1::schema as v1;
    let response = Client
        .v1()
        .connect_with(
            agent(),
            async |cx: agent_client_protocol::v1::ConnectionTo<Agent>| {
                cx.send_request(v1::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await
            },
        )
        .await
        .unwrap();
    assert_eq!(response.protocol_version, ProtocolVersion::V1);
    assert_eq!(response.agent_info.unwrap().name, "porthole-demo-agent");
    // Today's v1 agent: `loadSession: false`, as before v2.
    assert!(!response.agent_capabilities.load_session);
}

#[tokio::test]
async fn free_text_streams_one_message_with_a_thought_and_a_plan() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("hello v2")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "agent_thought_chunk",
            "plan_update",
            "agent_message_chunk",
            "plan_update"
        ]))
    );
    let chunks = seen.of("agent_message_chunk");
    assert_eq!(chunks.len(), 8);
    assert!(
        chunks.iter().all(|c| c["messageId"] == chunks[0]["messageId"]),
        "one message, one id"
    );
    assert!(
        chunks[1]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("> hello v2")
    );
    let plans = seen.of("plan_update");
    assert_eq!(
        plans[1]["plan"]["planId"], plans[0]["plan"]["planId"],
        "the plan is updated in place"
    );
    assert_eq!(last_stop(&seen), "end_turn");
}

#[tokio::test]
async fn slow_is_cancelled_mid_turn() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::CancelMidTurn("/slow")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&["agent_message_chunk"]))
    );
    assert!(
        seen.of("agent_message_chunk").len() < 40,
        "stopped before the end"
    );
    assert_eq!(last_stop(&seen), "cancelled");
}

#[tokio::test]
async fn configure_asks_a_form_scoped_to_the_session_and_its_tool_call() {
    let person = Person {
        elicit: json!({ "projectName": "demo" }),
        ..Person::default()
    };
    let seen = converse(person, workspace().path(), vec![Step::Prompt("/configure")]).await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "tool_call_update",
            "state_update:requires_action",
            "state_update:running",
            "agent_message_chunk",
            "tool_call_update"
        ]))
    );
    let asked = &seen.requests[0]["params"];
    assert_eq!(asked["mode"], "form");
    assert_eq!(asked["sessionId"], *seen.session);
    assert_eq!(asked["toolCallId"], seen.of("tool_call_update")[0]["toolCallId"]);
    assert!(asked.get("requestId").is_none(), "exactly one scope");
    let text = seen.of("agent_message_chunk")[0]["content"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("`projectName`: `\"demo\"`"), "{text}");
}

#[tokio::test]
async fn connect_asks_a_url_in_the_session_scope() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/connect")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "tool_call_update",
            "state_update:requires_action",
            "state_update:running",
            "agent_message_chunk",
            "tool_call_update"
        ]))
    );
    let asked = &seen.requests[0]["params"];
    assert_eq!(asked["mode"], "url");
    assert_eq!(asked["sessionId"], *seen.session);
    assert!(asked["url"].as_str().unwrap().starts_with("http://127.0.0.1:"));
    assert_eq!(
        seen.of("tool_call_update").last().unwrap()["status"],
        "failed",
        "declined"
    );
}

#[tokio::test]
async fn ask_asks_twice_in_the_session_scope() {
    let person = Person {
        elicit: json!({ "workspaceName": "porthole" }),
        ..Person::default()
    };
    let seen = converse(person, workspace().path(), vec![Step::Prompt("/ask")]).await;
    let ask = [
        "state_update:requires_action",
        "state_update:running",
        "agent_message_chunk",
    ];
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[ask, ask].concat()))
    );
    assert_eq!(seen.requests.len(), 2);
    assert!(
        seen.requests
            .iter()
            .all(|r| r["params"]["sessionId"] == *seen.session)
    );
    let messages: Vec<&Value> = seen
        .of("agent_message_chunk")
        .iter()
        .map(|c| &c["messageId"])
        .collect();
    assert_ne!(
        messages[0], messages[1],
        "what follows an answer is a new message"
    );
}

#[tokio::test]
async fn edit_asks_permission_for_the_tool_call_then_writes_itself() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let seen = converse(Person::default(), &ws, vec![Step::Prompt("/edit")]).await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "tool_call_update",
            "state_update:requires_action",
            "state_update:running",
            "tool_call_update",
            "agent_message_chunk"
        ]))
    );
    let asked = &seen.requests[0]["params"];
    assert_eq!(asked["subject"]["type"], "tool_call");
    assert_eq!(asked["subject"]["toolCall"]["content"][0]["type"], "diff");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "Edited by the Porthole demo agent.\n"
    );
    assert_eq!(seen.of("tool_call_update").last().unwrap()["status"], "completed");
}

#[tokio::test]
async fn edit_rejected_leaves_the_file_alone() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let person = Person {
        permission: "reject_once",
        ..Person::default()
    };
    let seen = converse(person, &ws, vec![Step::Prompt("/edit")]).await;
    assert!(!ws.join("notes.txt").exists());
    assert_eq!(seen.of("tool_call_update").last().unwrap()["status"], "failed");
    assert_eq!(last_stop(&seen), "end_turn");
}

#[tokio::test]
async fn test_asks_for_the_command_and_runs_it_in_its_own_terminal() {
    let seen = converse(Person::default(), workspace().path(), vec![Step::Prompt("/test")]).await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "tool_call_update",
            "state_update:requires_action",
            "state_update:running",
            "terminal_update",
            "tool_call_update",
            "terminal_output_chunk",
            "terminal_update",
            "tool_call_update",
            "agent_message_chunk"
        ]))
    );
    assert_eq!(seen.requests[0]["params"]["subject"]["type"], "command");
    use base64::Engine as _;
    let output: String = seen
        .of("terminal_output_chunk")
        .iter()
        .map(|c| {
            String::from_utf8(
                base64::engine::general_purpose::STANDARD
                    .decode(c["data"].as_str().unwrap())
                    .unwrap(),
            )
            .unwrap()
        })
        .collect();
    assert_eq!(
        output,
        "test parser ... ok\ntest lexer ... ok\ntest printer ... ok\n3 passed\n"
    );
    assert_eq!(
        seen.of("terminal_update").last().unwrap()["exitStatus"]["exitCode"],
        0
    );
}

#[tokio::test]
async fn subagent_runs_in_a_child_session_under_the_tool_call() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/subagent")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "tool_call_update",
            "subagent_update",
            "session_message",
            "subagent_update",
            "tool_call_update",
            "agent_message_chunk"
        ]))
    );
    let child = seen.of("subagent_update")[0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        seen.of("tool_call_update")[0]["content"][0],
        json!({ "type": "session", "sessionId": child })
    );
    assert_eq!(
        seen.kinds(&child),
        kinds(&[
            "session_message",
            "state_update:running",
            "agent_message_chunk",
            "state_update:idle"
        ])
    );
    let sent = seen.of("session_message");
    assert_eq!(
        (
            sent[0]["senderSessionId"].as_str(),
            sent[0]["recipientSessionId"].as_str()
        ),
        (Some(&*seen.session), Some(&*child))
    );
    assert_eq!(
        (
            sent[1]["senderSessionId"].as_str(),
            sent[1]["recipientSessionId"].as_str()
        ),
        (Some(&*child), Some(&*seen.session))
    );
    assert_eq!(
        seen.of("subagent_update")[1]["state"],
        json!({ "state": "idle", "stopReason": "end_turn" })
    );
}

#[tokio::test]
async fn background_work_outlives_the_turn_and_is_listed_until_it_ends() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/background"), Step::AwaitNoBackground],
    )
    .await;
    let mut expected = turn(&["tool_call_update", "agent_message_chunk"]);
    expected.extend(kinds(&[
        "tool_call_content_chunk",
        "tool_call_update",
        "state_update:idle",
    ]));
    assert_eq!(seen.kinds(&seen.session), with_opening(expected));
    let states = seen.of("state_update");
    let idle = states.iter().find(|s| s.get("stopReason").is_some()).unwrap();
    assert_eq!(idle["background"][0]["type"], "tool_call");
    assert_eq!(seen.of("tool_call_content_chunk").len(), 10);
    assert_eq!(seen.of("tool_call_update").last().unwrap()["status"], "completed");
}

#[tokio::test]
async fn background_work_is_cancelled_with_tool_call_cancel() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/background"), Step::CancelBackground],
    )
    .await;
    assert!(seen.of("tool_call_content_chunk").len() < 10, "stopped early");
    assert_eq!(seen.of("tool_call_update").last().unwrap()["status"], "failed");
    assert_eq!(seen.of("state_update").last().unwrap()["state"], "idle");
}

#[tokio::test]
async fn compact_reports_progress_then_a_summary() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/compact")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&[
            "compaction_update",
            "compaction_summary_chunk",
            "compaction_update",
            "usage_update",
            "agent_message_chunk"
        ]))
    );
    let statuses: Vec<&Value> = seen
        .of("compaction_update")
        .iter()
        .map(|c| &c["status"])
        .collect();
    assert_eq!(statuses, [&json!("in_progress"), &json!("completed")]);
}

#[tokio::test]
async fn notices_come_in_each_severity() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/notices")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&["notice", "agent_message_chunk"]))
    );
    let severities: Vec<&Value> = seen.of("notice").iter().map(|n| &n["severity"]).collect();
    assert_eq!(severities, [&json!("info"), &json!("warning"), &json!("error")]);
}

#[tokio::test]
async fn cost_reports_usage_and_cost() {
    let seen = converse(Person::default(), workspace().path(), vec![Step::Prompt("/cost")]).await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&["usage_update", "agent_message_chunk"]))
    );
    assert_eq!(
        seen.of("usage_update")[0]["cost"],
        json!({ "amount": 0.0123, "currency": "USD" })
    );
}

#[tokio::test]
async fn retract_replaces_a_message_then_clears_it() {
    let seen = converse(
        Person::default(),
        workspace().path(),
        vec![Step::Prompt("/retract")],
    )
    .await;
    assert_eq!(
        seen.kinds(&seen.session),
        with_opening(turn(&["agent_message", "agent_message_chunk"]))
    );
    let upserts = seen.of("agent_message");
    assert_eq!(upserts.len(), 3);
    assert!(upserts.iter().all(|u| u["messageId"] == upserts[0]["messageId"]));
    assert_eq!(upserts[1]["content"][0]["text"], "Edited: the answer is 42.");
    assert_eq!(upserts[2]["content"], Value::Null, "null clears the message");
    assert!(
        upserts[2].as_object().unwrap().contains_key("content"),
        "cleared, not left unchanged"
    );
}

#[tokio::test]
async fn sessions_are_listed_resumed_with_their_history_and_closed() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let (tx, mut rx) = unbounded_channel::<Value>();
    Client
        .v2()
        .on_receive_notification(
            async move |n: schema::UpdateSessionNotification, _cx: ConnectionTo<Agent>| {
                tx.send(to_json(&n)).map_err(Error::into_internal_error)
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent(), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await?;
            let seen = Mutex::new(Seen::default());
            let session = cx
                .send_request(schema::NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?
                .session_id;
            let id = session.to_string();
            cx.send_request(schema::PromptRequest::new(
                session.clone(),
                vec!["remember porthole".into()],
            ))
            .block_task()
            .await?;
            until(&mut rx, &seen, idle_with_stop(&id)).await?;
            let listed = cx
                .send_request(schema::ListSessionsRequest::new())
                .block_task()
                .await?;
            assert_eq!(
                listed
                    .sessions
                    .iter()
                    .map(|s| s.session_id.to_string())
                    .collect::<Vec<_>>(),
                std::slice::from_ref(&id)
            );
            cx.send_request(schema::CloseSessionRequest::new(session.clone()))
                .block_task()
                .await?;
            let refused = cx
                .send_request(schema::PromptRequest::new(
                    session.clone(),
                    vec!["after close".into()],
                ))
                .block_task()
                .await;
            assert!(refused.is_err(), "a closed session takes no prompt");
            let before = seen.lock().unwrap().updates.len();
            let resume = schema::ResumeSessionRequest::new(session.clone(), ws.clone())
                .replay_from(schema::ReplayFrom::Start(schema::ReplayFromStart::new()));
            let resumed = cx.send_request(resume).block_task().await?;
            assert_eq!(to_json(&resumed.config_options)[0]["configId"], "mode");
            // The replay came before the answer, then the state.
            let replay = until(&mut rx, &seen, |n| n["update"]["state"] == "idle").await?;
            assert!(replay["update"].get("stopReason").is_none());
            let seen = seen.into_inner().unwrap();
            let replayed: Vec<&str> = seen.updates[before..]
                .iter()
                .map(|n| n["update"]["sessionUpdate"].as_str().unwrap())
                .collect();
            assert_eq!(replayed.first(), Some(&"available_commands_update"));
            assert!(
                replayed.contains(&"user_message") && replayed.contains(&"agent_message_chunk"),
                "{replayed:?}"
            );
            let seen = Mutex::new(seen);
            cx.send_request(schema::PromptRequest::new(session.clone(), vec!["again".into()]))
                .block_task()
                .await?;
            until(&mut rx, &seen, idle_with_stop(&id)).await?;
            Ok(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn mode_auto_is_a_config_option_that_skips_the_permission() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let (tx, mut rx) = unbounded_channel::<Value>();
    let asked = Arc::new(Mutex::new(0));
    let counter = asked.clone();
    Client
        .v2()
        .on_receive_notification(
            async move |n: schema::UpdateSessionNotification, _cx: ConnectionTo<Agent>| {
                tx.send(to_json(&n)).map_err(Error::into_internal_error)
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |_r: schema::RequestPermissionRequest,
                        responder: Responder<schema::RequestPermissionResponse>,
                        _cx: ConnectionTo<Agent>| {
                *counter.lock().unwrap() += 1;
                responder.respond(schema::RequestPermissionResponse::new(
                    schema::CancelledPermissionOutcome::new().into(),
                ))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(agent(), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await?;
            let seen = Mutex::new(Seen::default());
            let created = cx
                .send_request(schema::NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?;
            let options = to_json(&created.config_options);
            assert_eq!(
                (
                    options[0]["configId"].clone(),
                    options[0]["category"].clone(),
                    options[0]["currentValue"].clone()
                ),
                (json!("mode"), json!("mode"), json!("ask"))
            );
            let set: schema::SetSessionConfigOptionRequest = serde_json::from_value(
                json!({ "sessionId": created.session_id, "configId": "mode", "type": "id", "value": "auto" }),
            )
            .unwrap();
            let answered = cx.send_request(set).block_task().await?;
            assert_eq!(to_json(&answered.config_options)[0]["currentValue"], "auto");
            let wrong: schema::SetSessionConfigOptionRequest = serde_json::from_value(
                json!({ "sessionId": created.session_id, "configId": "mode", "type": "id", "value": "yolo" }),
            )
            .unwrap();
            assert!(
                cx.send_request(wrong).block_task().await.is_err(),
                "an unknown value is refused"
            );
            let id = created.session_id.to_string();
            cx.send_request(schema::PromptRequest::new(
                created.session_id.clone(),
                vec!["/edit".into()],
            ))
            .block_task()
            .await?;
            until(&mut rx, &seen, idle_with_stop(&id)).await?;
            let seen = seen.into_inner().unwrap();
            assert!(
                seen.updates
                    .iter()
                    .any(|n| n["update"]["sessionUpdate"] == "config_option_update")
            );
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(*asked.lock().unwrap(), 0, "auto edits without asking");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "Edited by the Porthole demo agent.\n"
    );
}

/// The agent limited to `protocols` ([`porthole_demo_agent::PROTOCOLS_ENV`]).
fn agent_speaking(protocols: &str) -> AcpAgent {
    AcpAgent::new(
        agent_client_protocol::AcpAgentConfig::new(env!("CARGO_BIN_EXE_porthole-demo-agent"))
            .env(porthole_demo_agent::PROTOCOLS_ENV, protocols),
    )
}

#[tokio::test]
async fn limited_to_v1_it_answers_1_to_a_v2_client() {
    let outcome = Client
        .v2()
        .connect_with(agent_speaking("1"), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await
        })
        .await
        .unwrap();
    let InitializeOutcome::LowerVersion(mismatch) = outcome else {
        panic!("a v1-only agent answered v2: {outcome:?}");
    };
    assert_eq!(mismatch.selected(), ProtocolVersion::V1);
}

#[tokio::test]
async fn limited_to_v2_it_refuses_a_v1_client() {
    use agent_client_protocol::v1::schema as v1;
    let refused = Client
        .v1()
        .connect_with(
            agent_speaking("2"),
            async |cx: agent_client_protocol::v1::ConnectionTo<Agent>| {
                cx.send_request(v1::InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await
            },
        )
        .await
        .unwrap_err();
    assert_eq!(i32::from(refused.code), -32022, "{refused:?}");
}

#[tokio::test]
async fn a_prompt_with_an_image_is_refused_with_a_clear_error() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let refused = Client
        .v2()
        .connect_with(agent(), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await?;
            let session = cx
                .send_request(schema::NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?
                .session_id;
            let image = schema::ContentBlock::Image(schema::ImageContent::new("aGk=", "image/png"));
            Ok(cx
                .send_request(schema::PromptRequest::new(session, vec![image]))
                .block_task()
                .await
                .unwrap_err())
        })
        .await
        .unwrap();
    assert_eq!(i32::from(refused.code), -32602);
    let said = format!("{refused:?}");
    assert!(said.contains("not") && said.contains("image"), "{said}");
}

#[tokio::test]
async fn a_prompt_sent_during_a_turn_is_held_and_cancelled_with_it() {
    let dir = workspace();
    let ws = dir.path().to_path_buf();
    let (tx, mut rx) = unbounded_channel::<Value>();
    Client
        .v2()
        .on_receive_notification(
            async move |n: schema::UpdateSessionNotification, _cx: ConnectionTo<Agent>| {
                tx.send(to_json(&n)).map_err(Error::into_internal_error)
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(agent(), async |cx: ConnectionTo<Agent>| {
            cx.send_initialize(schema::InitializeRequest::new(
                ProtocolVersion::V2,
                schema::Implementation::new("test", "1"),
            ))
            .block_task()
            .await?;
            let seen = Mutex::new(Seen::default());
            let session = cx
                .send_request(schema::NewSessionRequest::new(ws.clone()))
                .block_task()
                .await?
                .session_id;
            let id = session.to_string();
            cx.send_request(schema::PromptRequest::new(session.clone(), vec!["/slow".into()]))
                .block_task()
                .await?;
            until(&mut rx, &seen, |n| {
                n["update"]["sessionUpdate"] == "agent_message_chunk"
            })
            .await?;
            // Held: not answered while /slow runs.
            let held = cx.send_request(schema::PromptRequest::new(session.clone(), vec!["held".into()]));
            let held = tokio::spawn(held.block_task());
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert!(!held.is_finished(), "a prompt during a turn waits for it");
            cx.send_notification(schema::CancelSessionNotification::new(session.clone()))?;
            let idle = until(&mut rx, &seen, idle_with_stop(&id)).await?;
            assert_eq!(idle["update"]["stopReason"], "cancelled");
            let refused = held.await.unwrap().unwrap_err();
            assert_eq!(i32::from(refused.code), -32800, "{refused:?}");
            // The session goes on: the next prompt runs.
            cx.send_request(schema::PromptRequest::new(session.clone(), vec!["after".into()]))
                .block_task()
                .await?;
            let idle = until(&mut rx, &seen, idle_with_stop(&id)).await?;
            assert_eq!(idle["update"]["stopReason"], "end_turn");
            Ok(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn test_is_stopped_with_terminal_cancel() {
    let dir = workspace();
    let seen = converse(Person::default(), dir.path(), vec![Step::CancelTerminal("/test")]).await;
    let outputs = seen.of("terminal_output_chunk").len();
    assert!(outputs < 4, "stopped before the last line ({outputs} chunks)");
    assert_eq!(
        seen.of("terminal_update").last().unwrap()["exitStatus"],
        json!({ "signal": "SIGKILL" })
    );
    assert_eq!(seen.of("tool_call_update").last().unwrap()["status"], "failed");
    let said = seen.of("agent_message_chunk").last().unwrap()["content"]["text"].clone();
    assert_eq!(said, "You stopped the tests (`terminal/cancel`).\n");
    assert_eq!(last_stop(&seen), "end_turn", "the turn itself went on");
}
