//! The typed fast path for `session/update` (see `hot_path.rs`) keeps wire order with the
//! requests and notifications the SDK handles, and hands every line it cannot take to the SDK.

use std::time::Duration;

use porthole_core::client::{AgentClient, ClientOptions};
use porthole_core::events::{DialogPrompt, Event};
use porthole_core::transcript::{ItemUpdate, MessageEdit, MessageRole, TranscriptUpdate};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

fn update(seq: u64) -> String {
    json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",
        "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":format!("#{seq}")}}}})
    .to_string()
}

fn updates(range: std::ops::Range<u64>) -> Vec<String> {
    range.map(update).collect()
}

/// What the client saw, in order: `#N` for chunks, a name for everything else.
fn label(event: &Event) -> Option<String> {
    match event {
        Event::SessionUpdate { update, .. } => match &**update {
            TranscriptUpdate::Item(ItemUpdate::Message(m))
                if m.role == MessageRole::Agent && matches!(m.edit, MessageEdit::Append { .. }) =>
            {
                Some(update.agent_text().unwrap_or("other-chunk").to_string())
            }
            TranscriptUpdate::Item(ItemUpdate::Unknown(_)) => Some("unknown-update".into()),
            _ => Some("other-update".into()),
        },
        Event::MalformedUpdate { .. } => Some("malformed-update".into()),
        Event::Dialog(DialogPrompt::Elicitation(_)) => Some("elicitation".into()),
        Event::ElicitationComplete { .. } => Some("elicitation-complete".into()),
        Event::TurnEnded { .. } => Some("turn-ended".into()),
        _ => None,
    }
}

/// Runs a scripted agent over in-memory streams: it answers `initialize` and `session/new`,
/// writes `turn` in answer to `session/prompt`, then ends the turn. Returns the labels of
/// the events up to the end of the turn, and every line the client sent up to then and until
/// the client has answered each of `answered_ids` (the SDK writes its answers on its own
/// schedule, which may come after the turn's end is seen).
async fn run_turn(
    turn: Vec<String>,
    event_capacity: usize,
    slow_reader: bool,
    answered_ids: &[u64],
) -> (Vec<String>, Vec<Value>) {
    let (client_side, agent_side) = tokio::io::duplex(4096);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, mut agent_write) = tokio::io::split(agent_side);
    let (sent_tx, mut sent_rx) = mpsc::unbounded_channel::<Value>();

    let agent = tokio::spawn(async move {
        let mut lines = BufReader::new(agent_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            let _ = sent_tx.send(msg.clone());
            let reply = match msg["method"].as_str() {
                Some("initialize") => {
                    vec![json!({"jsonrpc":"2.0","id":msg["id"],"result":{"protocolVersion":1}}).to_string()]
                }
                Some("session/new") => {
                    vec![json!({"jsonrpc":"2.0","id":msg["id"],"result":{"sessionId":"s"}}).to_string()]
                }
                Some("session/prompt") => {
                    let mut out = turn.clone();
                    out.push(
                        json!({"jsonrpc":"2.0","id":msg["id"],"result":{"stopReason":"end_turn"}})
                            .to_string(),
                    );
                    out
                }
                _ => vec![],
            };
            for line in reply {
                agent_write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .unwrap();
            }
        }
    });

    let opts = ClientOptions {
        event_capacity,
        ..ClientOptions::default()
    };
    let (client, mut events) = AgentClient::connect_streams(client_read, client_write, opts)
        .await
        .expect("initialize");
    let session = client
        .new_session(std::env::temp_dir())
        .await
        .expect("session/new");
    client.prompt_text(&session, "go").unwrap();
    if slow_reader {
        // Let the agent run into the full event stream before anyone reads it.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("events keep coming")
            .expect("stream open");
        if let Some(l) = label(&event) {
            let done = l == "turn-ended";
            seen.push(l);
            if done {
                break;
            }
        }
    }
    let mut sent = Vec::new();
    while let Ok(v) = sent_rx.try_recv() {
        sent.push(v);
    }
    for id in answered_ids {
        while !sent.iter().any(|m| m["id"] == *id && m.get("method").is_none()) {
            let msg = tokio::time::timeout(Duration::from_secs(10), sent_rx.recv())
                .await
                .unwrap_or_else(|_| panic!("the client answered request {id}"))
                .expect("agent still reading");
            sent.push(msg);
        }
    }
    client.shutdown().await;
    agent.abort();
    (seen, sent)
}

fn chunks(range: std::ops::Range<u64>) -> Vec<String> {
    range.map(|i| format!("#{i}")).collect()
}

fn elicitation(id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"sessionId":"s","mode":"form",
        "message":"Pick a name","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_between_fast_path_updates_keep_wire_order() {
    for (capacity, slow) in [(1024, false), (2, false), (2, true)] {
        let mut turn = updates(0..50);
        turn.push(elicitation(900));
        turn.extend(updates(50..100));
        turn.push(
            json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"nope"}})
                .to_string(),
        );
        turn.extend(updates(100..150));
        let (seen, _) = run_turn(turn, capacity, slow, &[]).await;

        let mut expected = chunks(0..50);
        expected.push("elicitation".into());
        expected.extend(chunks(50..100));
        expected.push("elicitation-complete".into());
        expected.extend(chunks(100..150));
        expected.push("turn-ended".into());
        assert_eq!(seen, expected, "capacity {capacity}, slow reader {slow}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_hot_lines_fall_back_to_the_sdk_in_order() {
    let mut turn = updates(0..10);
    // Escaped method: not borrowable, so the SDK parses it; still a typed update.
    turn.push(update(10).replace("session/update", r"session\/update"));
    // An update kind the schema does not know: the SDK path reports it.
    turn.push(update(11).replace("agent_message_chunk", "mystery_kind"));
    turn.extend(updates(12..20));
    // With an id it is a request, which the SDK answers (method not found).
    turn.push(update(20).replace(r#""jsonrpc":"2.0","#, r#""jsonrpc":"2.0","id":77,"#));
    // Not JSON after the start: the SDK drops it; the next update still arrives.
    turn.push(r#"{"jsonrpc":"2.0","method":"session/update","params":"#.to_string());
    turn.extend(updates(21..30));
    let (seen, sent) = run_turn(turn, 4, false, &[77]).await;

    let mut expected = chunks(0..11);
    expected.push("unknown-update".into());
    expected.extend(chunks(12..20));
    expected.extend(chunks(21..30));
    expected.push("turn-ended".into());
    assert_eq!(seen, expected);
    let answer = sent
        .iter()
        .find(|m| m["id"] == 77)
        .expect("the request with an id was answered by the SDK");
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert!(
        sent.iter().all(|m| m["method"] != "_porthole/barrier"),
        "barriers never reach the wire"
    );
}

fn noise(i: u64) -> String {
    // Padded so that a few hundred fill the pipe and the transport's read buffer.
    json!({"jsonrpc":"2.0","method":"_noise/ping","params":{"i":i,"pad":"x".repeat(200)}}).to_string()
}

/// Long runs of lines for the SDK (past its window, several barriers) keep their order
/// with the fast path's updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_runs_of_sdk_lines_keep_wire_order() {
    let mut turn = updates(0..5);
    turn.extend((0..300).map(noise));
    turn.push(elicitation(901));
    turn.extend((300..450).map(noise));
    turn.extend(updates(5..10));
    let (seen, _) = run_turn(turn, 2, true, &[]).await;
    let mut expected = chunks(0..5);
    expected.push("elicitation".into());
    expected.extend(chunks(5..10));
    expected.push("turn-ended".into());
    assert_eq!(seen, expected);
}

/// A flood of notifications other than `session/update` must not pile up in the SDK's
/// unbounded queue while its dispatch loop is busy: the transport stops reading, so the agent
/// blocks on its pipe, as it does for updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_other_notifications_waits_for_the_dispatch_loop() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    const FLOOD: u64 = 10_000;

    let (client_side, agent_side) = tokio::io::duplex(4096);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, mut agent_write) = tokio::io::split(agent_side);
    let written = Arc::new(AtomicU64::new(0));
    let counter = written.clone();
    let agent = tokio::spawn(async move {
        let mut lines = BufReader::new(agent_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            let reply = match msg["method"].as_str() {
                Some("initialize") => json!({"jsonrpc":"2.0","id":msg["id"],"result":{"protocolVersion":1}}),
                Some("session/new") => json!({"jsonrpc":"2.0","id":msg["id"],"result":{"sessionId":"s"}}),
                _ => continue,
            };
            agent_write
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
            if msg["method"] != "session/new" {
                continue;
            }
            // Two updates the SDK reports (unknown kind): with nobody reading the 1-slot event
            // stream, the second one holds the dispatch loop. Then the flood, then a last chunk.
            for i in 0..2 {
                let line = update(i).replace("agent_message_chunk", "mystery_kind");
                agent_write
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .unwrap();
            }
            for i in 0..FLOOD {
                agent_write
                    .write_all(format!("{}\n", noise(i)).as_bytes())
                    .await
                    .unwrap();
                counter.store(i + 1, Ordering::SeqCst);
            }
            agent_write
                .write_all(format!("{}\n", update(7)).as_bytes())
                .await
                .unwrap();
        }
    });

    let opts = ClientOptions {
        event_capacity: 1,
        ..ClientOptions::default()
    };
    let (client, mut events) = AgentClient::connect_streams(client_read, client_write, opts)
        .await
        .expect("initialize");
    client
        .new_session(std::env::temp_dir())
        .await
        .expect("session/new");

    // Wait until the agent's writing stops moving (or the flood is all written).
    let mut last = u64::MAX;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = written.load(Ordering::SeqCst);
        if now == last || now == FLOOD {
            break;
        }
        last = now;
    }
    let stalled_at = written.load(Ordering::SeqCst);
    // The SDK window (64) plus what the pipe (4 KiB) and the framing buffer hold: far below
    // the flood. Without the window the agent writes all 10,000 into the SDK's queue at once.
    assert!(
        stalled_at < 1_000,
        "the agent wrote {stalled_at} of {FLOOD} lines while nothing was dispatched"
    );

    // Once the front end reads again, everything arrives, in order.
    let mut seen = Vec::new();
    while seen.last().map(String::as_str) != Some("#7") {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("events keep coming")
            .expect("stream open");
        seen.extend(label(&event));
    }
    assert_eq!(seen, ["unknown-update", "unknown-update", "#7"]);
    assert_eq!(written.load(Ordering::SeqCst), FLOOD);
    client.shutdown().await;
    agent.abort();
}
