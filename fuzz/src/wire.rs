//! Target (c): the incoming wire path. A fake agent answers `initialize` and `session/new`
//! (session `s`), then writes the fuzzer's bytes as its stdout and closes it; the client runs
//! over in-memory streams (`AgentClient::connect_streams`) with terminals and file access
//! off, so nothing the input asks for touches this machine.
//!
//! Events are drained and every dialog is answered (forms accepted with their initial values,
//! then declined if invalid; URLs declined; permissions get their first option) so the answer
//! paths run too. Each input must end with `AgentExited` within a bounded time.

use std::cell::RefCell;
use std::time::Duration;

use porthole_core::events::{DialogPrompt, Event};
use porthole_core::{AgentClient, Answer, ClientOptions, ProtocolChoice};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// Longer than any input can legitimately take; a hang is reported as a crash.
const BOUND: Duration = Duration::from_secs(20);

thread_local! {
    static RUNTIME: RefCell<tokio::runtime::Runtime> = RefCell::new(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime"),
    );
}

pub fn wire(data: &[u8]) {
    let data = data.to_vec();
    RUNTIME.with(|rt| {
        rt.borrow().block_on(async move {
            tokio::time::timeout(BOUND, run(data))
                .await
                .expect("the connection did not end within the bound after the agent's output closed");
        })
    });
}

fn options() -> ClientOptions {
    ClientOptions {
        fs: false,
        terminals: false,
        init_timeout: Duration::from_secs(10),
        max_pending_per_session: 8,
        event_capacity: 16,
        max_line_bytes: 3000,
        // The fake agent is a v1 agent answering the first two lines (docs/acp-v2.md: auto
        // would offer v2 first); the corpus is v1 wire.
        protocol: ProtocolChoice::V1,
        ..ClientOptions::default()
    }
}

async fn run(data: Vec<u8>) {
    let (client_side, agent_side) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, agent_write) = tokio::io::split(agent_side);
    let (opened_tx, opened_rx) = tokio::sync::oneshot::channel();
    let agent = tokio::spawn(fake_agent(agent_read, agent_write, opened_rx, data));

    let (client, mut events) = AgentClient::connect_streams(client_read, client_write, options())
        .await
        .expect("the fake agent answers initialize");
    let session = client.new_session(std::path::PathBuf::from("/nonexistent-fuzz-root")).await;
    assert_eq!(
        session.map_err(|e| e.to_string()).as_deref(),
        Ok("s"),
        "the fake agent opens session s"
    );
    let _ = opened_tx.send(());

    while let Some(event) = events.recv().await {
        if answer(&client, &event) {
            break;
        }
    }
    assert!(client.exit_info().is_some());
    client.shutdown().await;
    agent.abort();
    let _ = agent.await;
}

/// Answers a dialog; true when the connection is over.
fn answer(client: &AgentClient, event: &Event) -> bool {
    match event {
        Event::Dialog(DialogPrompt::Elicitation(prompt)) => {
            let id = prompt.dialog_id;
            let initial = match &prompt.kind {
                porthole_core::events::ElicitationKind::Form { schema, .. } => {
                    let _ = client.validate_form(id, &schema.initial_values());
                    Some(schema.initial_values())
                }
                _ => None,
            };
            let accepted = initial.is_some_and(|c| client.respond_elicitation(id, Answer::Accept(c)).is_ok());
            if !accepted {
                let _ = client.respond_elicitation(id, Answer::Decline);
            }
            // Answered exactly once: a second answer is refused.
            assert!(client.respond_elicitation(id, Answer::Cancel).is_err());
        }
        Event::Dialog(DialogPrompt::Permission(prompt)) => {
            let option = prompt.options.first().map(|o| o.option_id.0.to_string());
            let _ = client.respond_permission(prompt.dialog_id, option);
            assert!(client.respond_permission(prompt.dialog_id, None).is_err());
        }
        Event::Dialog(DialogPrompt::FileAccess(prompt)) => {
            let _ = client.respond_file_access(prompt.dialog_id, false);
        }
        Event::AgentExited(_) => return true,
        _ => {}
    }
    let _ = serde_json::to_string(event).expect("events serialize for the UI");
    false
}

/// Answers the handshake, writes the input, closes its output, and keeps reading the client's
/// lines so the client's writes never block.
async fn fake_agent(
    read: ReadHalf<DuplexStream>,
    mut write: WriteHalf<DuplexStream>,
    opened: tokio::sync::oneshot::Receiver<()>,
    data: Vec<u8>,
) {
    let mut lines = BufReader::new(read).lines();
    for result in [
        json!({"protocolVersion": 1, "agentInfo": {"name": "fuzz", "version": "1"},
               "agentCapabilities": {"loadSession": true}}),
        json!({"sessionId": "s"}),
    ] {
        let Ok(Some(line)) = lines.next_line().await else {
            return;
        };
        let request: Value = serde_json::from_str(&line).expect("the client writes JSON");
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        if write.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
            return;
        }
    }
    // The input starts once the client has the session (its end must not race the handshake).
    let drain = tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    if opened.await.is_ok() {
        let _ = write.write_all(&data).await;
    }
    let _ = write.shutdown().await;
    drop(write);
    let _ = drain.await;
}
