//! A long streamed answer passes the gateway whole and in order: porthole-test-mcp's `stream`
//! tool (the one scripts/bench-gateway measures) through the gateway, every event checked.

use std::sync::Arc;

use futures::StreamExt;
use porthole_connections::gateway::{Gateway, PassOwner, Upstream};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::Tokens;
use porthole_test_mcp::Options;
use serde_json::{Value, json};
use url::Url;

const EVENTS: u64 = 20_000;

#[tokio::test]
async fn twenty_thousand_streamed_events_pass_the_gateway_whole_and_in_order() {
    let server = porthole_test_mcp::start(Options {
        open: true,
        stream_tool: true,
        ..Options::default()
    })
    .await;
    let tokens = Arc::new(Tokens::new(Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().expect("in-memory sample store"),
    ))));
    let gateway = Gateway::start(tokens).await.unwrap();
    let pass = gateway.open(
        vec![(
            "open".into(),
            Upstream::Remote {
                url: Url::parse(&server.mcp_url()).unwrap(),
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    porthole_connections::http::install_crypto_provider();
    let client = reqwest::Client::new();
    let post = |body: Value| {
        client
            .post(pass.url("open").unwrap())
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string())
    };

    let listed: Value = serde_json::from_str(
        &post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(listed["result"]["tools"][3]["name"], "stream", "{listed}");

    let answer = post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "stream", "arguments": {"count": EVENTS}, "_meta": {"progressToken": 5}}}))
    .send()
    .await
    .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers().get("content-type").unwrap(), "text/event-stream");
    let mut body = answer.bytes_stream();
    let mut text = Vec::new();
    let mut chunks = 0;
    while let Some(chunk) = body.next().await {
        text.extend_from_slice(&chunk.unwrap());
        chunks += 1;
    }
    // Passed on as it came, not gathered into one answer.
    assert!(chunks > 1, "{chunks} chunk");
    let messages: Vec<Value> = String::from_utf8(text)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(messages.len() as u64, EVENTS + 1);
    for (i, m) in messages[..EVENTS as usize].iter().enumerate() {
        assert_eq!(m["method"], "notifications/progress");
        assert_eq!(m["params"]["progressToken"], 5);
        assert_eq!(m["params"]["progress"], i as u64 + 1, "{m}");
    }
    let last = &messages[EVENTS as usize];
    assert_eq!(last["id"], 2);
    assert_eq!(
        last["result"]["content"][0]["text"],
        format!("streamed {EVENTS} events")
    );
}
