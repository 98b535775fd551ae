//! The v2 wire against an agent written with the SDK's own `Agent.v2()` and its v2 types (not
//! the scripted agent's hand-written JSON): negotiation, a session, a prompt acknowledged,
//! upserts, a permission with a tool-call subject, and the turn's end on `idle`.

use agent_client_protocol::v2::{ConnectionTo, Responder, schema};
use agent_client_protocol::{Agent as AgentRole, Client, Lines};
use futures::StreamExt;
use porthole_core::acp::schema::ProtocolVersion;
use porthole_core::events::{DialogPrompt, Event};
use porthole_core::transcript::{MessageEdit, SessionState, TranscriptUpdate};
use porthole_core::{AgentClient, ClientOptions};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn update(cx: &ConnectionTo<Client>, session: &schema::SessionId, update: schema::SessionUpdate) {
    cx.send_notification(schema::UpdateSessionNotification::new(session.clone(), update))
        .expect("update sent");
}

/// The agent's turn: running, a streamed message edited by an upsert, a permission, idle.
async fn turn(cx: ConnectionTo<Client>, session: schema::SessionId) -> agent_client_protocol::Result<()> {
    update(&cx, &session, schema::SessionUpdate::StateUpdate(schema::StateUpdate::Running(schema::RunningStateUpdate::new())));
    update(
        &cx,
        &session,
        schema::SessionUpdate::AgentMessageChunk(schema::ContentChunk::new("draft".into(), "a-1")),
    );
    update(
        &cx,
        &session,
        schema::SessionUpdate::AgentMessage(schema::AgentMessage::new("a-1").content(vec!["final".into()])),
    );
    update(
        &cx,
        &session,
        schema::SessionUpdate::ToolCallUpdate(schema::ToolCallUpdate::new("tc-1").title("Write notes.md")),
    );
    update(
        &cx,
        &session,
        schema::SessionUpdate::StateUpdate(schema::StateUpdate::RequiresAction(schema::RequiresActionStateUpdate::new())),
    );
    let request = schema::RequestPermissionRequest::new(
        session.clone(),
        "Write notes.md?",
        vec![
            schema::PermissionOption::new("ok", "Allow", schema::PermissionOptionKind::AllowOnce),
            schema::PermissionOption::new("no", "Reject", schema::PermissionOptionKind::RejectOnce),
        ],
    )
    .subject(schema::RequestPermissionSubject::from(schema::ToolCallUpdate::new("tc-1")));
    let answer = cx.send_request(request).block_task().await?;
    let chosen = match answer.outcome {
        schema::RequestPermissionOutcome::Selected(s) => s.option_id.to_string(),
        _ => "cancelled".into(),
    };
    update(
        &cx,
        &session,
        schema::SessionUpdate::AgentMessageChunk(schema::ContentChunk::new(format!("chose {chosen}").into(), "a-2")),
    );
    update(
        &cx,
        &session,
        schema::SessionUpdate::StateUpdate(schema::StateUpdate::Idle(
            schema::IdleStateUpdate::new().stop_reason(schema::StopReason::EndTurn),
        )),
    );
    Ok(())
}

/// An SDK v2 agent over in-memory pipes; returns the client's ends.
fn sdk_agent() -> (
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    let (client_side, agent_side) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, agent_write) = tokio::io::split(agent_side);
    let incoming = futures::stream::unfold(BufReader::new(agent_read).lines(), |mut lines| async move {
        match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(e) => Some((Err(e), lines)),
        }
    });
    let outgoing = futures::sink::unfold(agent_write, |mut w, line: String| async move {
        w.write_all(format!("{line}\n").as_bytes()).await?;
        Ok::<_, std::io::Error>(w)
    });
    tokio::spawn(async move {
        let _ = AgentRole
            .v2()
            .name("sdk-v2-test-agent")
            .on_receive_request(
                async |request: schema::InitializeRequest,
                       responder: Responder<schema::InitializeResponse>,
                       _cx: ConnectionTo<Client>| {
                    responder.respond(
                        schema::InitializeResponse::new(
                            request.protocol_version,
                            schema::Implementation::new("sdk-v2-test-agent", "1.0.0"),
                        )
                        .capabilities(schema::AgentCapabilities::new().session(schema::SessionCapabilities::new())),
                    )
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async |_request: schema::NewSessionRequest,
                       responder: Responder<schema::NewSessionResponse>,
                       _cx: ConnectionTo<Client>| {
                    responder.respond(schema::NewSessionResponse::new("sdk-session"))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async |request: schema::PromptRequest,
                       responder: Responder<schema::PromptResponse>,
                       cx: ConnectionTo<Client>| {
                    responder.respond(schema::PromptResponse::new("u-1"))?;
                    // The turn runs beside the dispatch loop: it waits for the permission.
                    let session = request.session_id.clone();
                    cx.spawn(turn(cx.clone(), session))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_to(Lines::new(Box::pin(outgoing), incoming.boxed()))
            .await;
    });
    (client_read, client_write)
}

#[tokio::test]
async fn an_sdk_v2_agent_runs_a_turn_through_the_same_model() {
    let (read, write) = sdk_agent();
    let (client, mut events) = AgentClient::connect_streams(read, write, ClientOptions::default())
        .await
        .expect("initialized");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2);
    assert_eq!(client.agent().name, "sdk-v2-test-agent");
    let session = client.new_session(std::env::temp_dir()).await.expect("session/new");
    assert_eq!(session, "sdk-session");
    client.prompt_text(&session, "hello").unwrap();
    let mut seen = Vec::new();
    let stop = loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv())
            .await
            .expect("an event in time")
            .expect("events go on");
        match event {
            Event::Dialog(DialogPrompt::Permission(p)) => {
                assert_eq!(p.tool_call.fields.title.as_deref(), Some("Write notes.md?"));
                client.respond_permission(p.dialog_id, Some("ok".into())).unwrap();
            }
            Event::SessionUpdate { update, .. } => seen.push(*update),
            Event::TurnEnded { stop_reason, error, .. } => break (stop_reason, error),
            Event::MalformedUpdate { raw, error, .. } => panic!("malformed: {error}: {raw}"),
            _ => {}
        }
    };
    assert!(stop.1.is_none(), "{:?}", stop.1);
    assert_eq!(serde_json::to_value(stop.0).unwrap(), "end_turn");
    let replaced = seen.iter().any(|u| {
        matches!(u.message().map(|m| &m.edit), Some(MessageEdit::Replace { content })
            if serde_json::to_value(content).unwrap()[0]["text"] == "final")
    });
    assert!(replaced, "{seen:?}");
    assert!(seen.iter().any(|u| u.agent_text() == Some("chose ok")), "{seen:?}");
    let states: Vec<String> = seen
        .iter()
        .filter_map(|u| match u {
            TranscriptUpdate::Session(SessionState::State(s)) => Some(s.state.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(states, ["running", "requires_action", "idle"]);
    client.shutdown().await;
}
