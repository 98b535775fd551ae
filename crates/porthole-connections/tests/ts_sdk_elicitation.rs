//! The gateway answers a server's questions for an agent that declared no elicitation, against
//! a server nobody here wrote: the official MCP TypeScript SDK's `elicitationFormExample.js`
//! (`@modelcontextprotocol/sdk`, pinned in tests/mcp-ts-sdk/package-lock.json). Its tools ask
//! with `elicitInput` on the session's standalone GET stream, which this "agent" (a plain HTTP
//! client) never opens: the gateway opens its own, takes the questions out, asks the test's
//! `Questions`, and posts the answers; the tool results carry them.
//!
//! Needs the SDK: `./scripts/test-mcp-ts-sdk --install` (npm ci in tests/mcp-ts-sdk).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::McpClient;
use porthole_connections::gateway::{
    Asker, BoxFuture, Gateway, McpCall, NoTokens, PassOwner, Questions, Unanswered, Upstream,
};
use serde_json::{Value, json};
use url::Url;

/// Answers by the question's message, and keeps what it was asked.
#[derive(Default)]
struct Scripted {
    asked: Mutex<Vec<(Asker, Value)>>,
}

impl Questions for Scripted {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            let message = request["params"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            self.asked.lock().unwrap().push((who.clone(), request));
            Ok(if message.starts_with("Step 1") {
                json!({"action": "accept", "content": {"title": "Standup", "description": "daily"}})
            } else if message.starts_with("Booking at Chez Nous") {
                json!({"action": "accept", "content": {"name": "Ada", "size": 4}})
            } else if message.starts_with("Step 2") {
                json!({"action": "accept", "content": {"date": "2026-12-06", "startTime": "09:30", "duration": 30}})
            } else {
                json!({"action": "decline"})
            })
        })
    }
    fn completed(&self, _: &Asker, _: Value) {}
}

/// The example server on a free port, stopped when dropped (the launcher every crate's tests
/// share: porthole-test-mcp's `ts_sdk`).
async fn start_example() -> (porthole_test_mcp::ts_sdk::TsExample, Url) {
    let example =
        tokio::task::spawn_blocking(|| porthole_test_mcp::ts_sdk::start("elicitationFormExample.js"))
            .await
            .unwrap();
    let url = Url::parse(&example.url).unwrap();
    (example, url)
}

#[tokio::test]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
async fn the_gateway_answers_the_ts_sdk_example_servers_questions_for_an_agent_without_elicitation() {
    session(false).await;
}

/// An agent that listens on the standalone stream, as the SDKs' clients do: its GET is served
/// from the gateway's own (the server would answer a second one with 409), without the
/// questions.
#[tokio::test]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
async fn an_agents_own_get_stream_is_served_from_the_gateways_without_the_questions() {
    session(true).await;
}

async fn session(agent_listens: bool) {
    let (_server, mcp) = start_example().await;
    porthole_connections::http::install_crypto_provider();
    let gateway = Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap();
    let questions = Arc::new(Scripted::default());
    let pass = gateway.open(
        vec![(
            "forms".into(),
            Upstream::Remote {
                url: mcp,
                headers: vec![],
            },
        )],
        PassOwner {
            agent: "Test Agent".into(),
            questions: Some(questions.clone()),
            ..PassOwner::default()
        },
    );
    let agent = McpClient::new(pass.url("forms").unwrap());

    // An agent that declares no elicitation, as Gemini CLI or OpenCode.
    let (status, init) = agent
        .send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "plain-agent", "version": "1"}}}),
        )
        .await;
    assert_eq!(status, 200, "{init:?}");
    assert_eq!(
        init[0]["result"]["serverInfo"]["name"],
        "form-elicitation-example-server"
    );
    let (status, _) = agent
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(status, 202);
    // At once, as an agent does: the call waits for the gateway's own standalone stream.
    let listened = if agent_listens {
        let id = agent.session().unwrap();
        let stream = reqwest::Client::new()
            .get(pass.url("forms").unwrap())
            .header("Accept", "text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", id)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), 200);
        assert_eq!(stream.headers()["content-type"], "text/event-stream");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = seen.clone();
        tokio::spawn(async move {
            let mut body = stream.bytes_stream();
            while let Some(Ok(chunk)) = futures::StreamExt::next(&mut body).await {
                kept.lock().unwrap().extend_from_slice(&chunk);
            }
        });
        Some(seen)
    } else {
        None
    };

    let call = |id: u64, tool: &str| {
        agent.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}}))
    };
    let (status, answer) = tokio::time::timeout(Duration::from_secs(30), call(1, "create_event"))
        .await
        .expect("the tool call ends: its questions were answered");
    assert_eq!(status, 200);
    // The agent saw no question, only the result.
    assert_eq!(answer.len(), 1, "{answer:?}");
    let text = answer[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Event created successfully!"), "{text}");
    assert!(text.contains("\"title\": \"Standup\""), "{text}");
    assert!(text.contains("\"startTime\": \"09:30\""), "{text}");
    assert!(text.contains("\"duration\": 30"), "{text}");

    let (_, answer) = tokio::time::timeout(Duration::from_secs(30), call(2, "register_user"))
        .await
        .expect("the tool call ends");
    assert_eq!(
        answer[0]["result"]["content"][0]["text"],
        "Registration cancelled by user."
    );

    if let Some(listened) = listened {
        let listened = String::from_utf8(listened.lock().unwrap().clone()).unwrap();
        assert!(!listened.contains("elicitation"), "{listened}");
    }
    let asked = questions.asked.lock().unwrap();
    let messages: Vec<&str> = asked
        .iter()
        .map(|(_, r)| r["params"]["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "Step 1: Enter basic event information",
            "Step 2: Enter date and time",
            "Please provide your registration information:"
        ]
    );
    // The SDK asks on the standalone GET stream, which does not say which call asks; each
    // question came while one tool call was in flight, so it is that call's.
    let tools = ["create_event", "create_event", "register_user"];
    for ((who, request), tool) in asked.iter().zip(tools) {
        assert_eq!(
            who,
            &Asker {
                connection: "forms".into(),
                agent: "Test Agent".into(),
                pass: pass.id(),
                call: Some(McpCall {
                    tool: tool.into(),
                    arguments: json!({})
                }),
            }
        );
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["mode"], "form");
    }
}

/// A server of the 2026-07-28 revision (the official TypeScript SDK v2, `tests/mcp-ts-sdk/
/// mrtr-server.mjs`) asks in the tool call's result (`input_required`), and checks the
/// capabilities each request declares in `_meta`: an agent of that revision that declares no
/// elicitation (the SDK v2's own client, `modern-client.mjs`) gets the capability added by the
/// gateway, which asks the person and retries with the answers; the agent gets the booking.
#[tokio::test]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
async fn a_2026_07_28_servers_input_required_is_answered_for_an_agent_without_elicitation() {
    let server = tokio::task::spawn_blocking(porthole_test_mcp::ts_sdk::start_mrtr)
        .await
        .unwrap();
    porthole_connections::http::install_crypto_provider();
    let gateway = Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap();
    let questions = Arc::new(Scripted::default());
    let pass = gateway.open(
        vec![(
            "tables".into(),
            Upstream::Remote {
                url: Url::parse(&server.url).unwrap(),
                headers: vec![],
            },
        )],
        PassOwner {
            agent: "Test Agent".into(),
            questions: Some(questions.clone()),
            ..PassOwner::default()
        },
    );
    let url = pass.url("tables").unwrap().to_string();
    let call = |restaurant: &'static str| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || {
            porthole_test_mcp::ts_sdk::call_as_modern_agent(
                &url,
                "book_table",
                &json!({"restaurant": restaurant}),
            )
        })
    };

    let answered = call("Chez Nous").await.unwrap();
    assert_eq!(answered["protocol"], "2026-07-28", "{answered}");
    assert_eq!(
        answered["result"]["content"][0]["text"], "booked Chez Nous for Ada, 4 people",
        "{answered}"
    );
    {
        let asked = questions.asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{asked:?}");
        let (who, request) = &asked[0];
        assert_eq!(who.connection, "tables");
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(
            request["params"]["message"],
            "Booking at Chez Nous: who is it for?"
        );
    }

    // Declined: the server is told so in the retry, and the agent gets the server's own answer.
    let declined = call("Nowhere").await.unwrap();
    assert_eq!(
        declined["result"]["content"][0]["text"], "not booked: decline",
        "{declined}"
    );
    assert_eq!(questions.asked.lock().unwrap().len(), 2);
}
