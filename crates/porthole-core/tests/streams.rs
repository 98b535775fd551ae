//! A connection over in-memory streams (what the wire fuzzer drives): initialize, an update,
//! a garbage line, then the peer closes and the client reports it like an exit.

use porthole_core::client::{AgentClient, ClientOptions};
use porthole_core::events::Event;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn stream_connection_initializes_delivers_and_reports_close() {
    let (client_side, agent_side) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, mut agent_write) = tokio::io::split(agent_side);

    let (seen_tx, seen_rx) = tokio::sync::oneshot::channel::<()>();
    let agent = tokio::spawn(async move {
        let mut lines = BufReader::new(agent_read).lines();
        // A v1 agent answers 1 to the client's v2 offer, and again to its v1 `initialize`.
        let mut init: serde_json::Value = serde_json::Value::Null;
        for _ in 0..2 {
            init = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(init["method"], "initialize");
            if init["params"]["protocolVersion"] == 1 {
                break;
            }
            let v1 = serde_json::json!({"jsonrpc":"2.0","id":init["id"],"result":{"protocolVersion":1}});
            agent_write.write_all(format!("{v1}\n").as_bytes()).await.unwrap();
        }
        let reply = serde_json::json!({"jsonrpc":"2.0","id":init["id"],"result":{"protocolVersion":1,
            "agentInfo":{"name":"in-memory","version":"1"}}});
        let update = serde_json::json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",
            "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}});
        for line in [reply.to_string(), "{not json".into(), update.to_string()] {
            agent_write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
        // Close only once the client has seen the update: the end of output is its "exit".
        let _ = seen_rx.await;
        agent_write.shutdown().await.unwrap();
        drop(agent_write);
        // Keep reading until the client goes away so its writes never fail early.
        while let Ok(Some(_)) = lines.next_line().await {}
    });

    let (client, mut events) =
        AgentClient::connect_streams(client_read, client_write, ClientOptions::default())
            .await
            .expect("initialize over streams");
    assert_eq!(client.agent().name, "in-memory");

    let mut saw_update = false;
    let mut seen_tx = Some(seen_tx);
    let exit = loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), events.recv()).await {
            Ok(Some(Event::SessionUpdate { .. })) => {
                saw_update = true;
                seen_tx.take().map(|tx| tx.send(()));
            }
            Ok(Some(Event::AgentExited(info))) => break info,
            Ok(Some(_)) => {}
            Ok(None) => panic!("event stream ended without an exit"),
            Err(_) => panic!("no exit reported after the peer closed"),
        }
    };
    assert!(saw_update, "the update after the garbage line was delivered");
    assert!(exit.status.contains("closed"), "{}", exit.status);
    assert!(client.exit_info().is_some());
    client.shutdown().await;
    agent.abort();
}

/// A minimal agent over in-memory streams: answers `initialize` with `{"protocolVersion": 1}`
/// (no `agentInfo`) and reads until the client goes away. Returns the client's ends.
fn bare_agent() -> (
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
    tokio::task::JoinHandle<()>,
) {
    let (client_side, agent_side) = tokio::io::duplex(64 * 1024);
    let (client_read, client_write) = tokio::io::split(client_side);
    let (agent_read, mut agent_write) = tokio::io::split(agent_side);
    let agent = tokio::spawn(async move {
        let mut lines = BufReader::new(agent_read).lines();
        // Every `initialize` (the v2 offer, then v1's) is answered with 1.
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: serde_json::Value = serde_json::from_str(&line).unwrap();
            if msg["method"] == "initialize" {
                let reply = serde_json::json!({"jsonrpc":"2.0","id":msg["id"],"result":{"protocolVersion":1}});
                agent_write
                    .write_all(format!("{reply}\n").as_bytes())
                    .await
                    .unwrap();
            }
        }
        drop(agent_write);
    });
    (client_read, client_write, agent)
}

#[tokio::test]
async fn shutdown_ends_a_stream_connection() {
    let (client_read, client_write, agent) = bare_agent();
    let (client, _events) = AgentClient::connect_streams(client_read, client_write, ClientOptions::default())
        .await
        .unwrap();
    let exit = tokio::time::timeout(std::time::Duration::from_secs(10), client.shutdown())
        .await
        .expect("shutdown returns");
    assert!(exit.is_some());
    agent.abort();
}

/// An agent whose `initialize` answer has no `agentInfo` is called by the name the front end
/// configured, never "unnamed agent" when one is known.
#[tokio::test]
async fn an_agent_without_agent_info_takes_the_configured_name() {
    for (configured, expected) in [(Some("My agent"), "My agent"), (None, "unnamed agent")] {
        let (client_read, client_write, agent) = bare_agent();
        let opts = ClientOptions {
            agent_name: configured.map(str::to_string),
            ..ClientOptions::default()
        };
        let (client, _events) = AgentClient::connect_streams(client_read, client_write, opts)
            .await
            .expect("initialize over streams");
        assert_eq!(client.agent().name, expected);
        client.shutdown().await;
        agent.abort();
    }
}
