//! A legacy HTTP+SSE MCP server (2024-11-05) reached through the gateway as Streamable HTTP:
//! ACP v2 agents take no SSE servers, and one behind a secret header must not be handed to an
//! agent at all. The server is the official TypeScript SDK's `SSEServerTransport`
//! (`tests/mcp-ts-sdk/sse-server.mjs`, behind `x-api-key`); the "agent" is a plain Streamable
//! HTTP client that declares no elicitation. The hand-off gives such an agent the gateway's
//! address; the gateway carries the header, answers the server's form question itself (the
//! test's `Questions`), and the agent sees only the results.
//!
//! Needs the SDK: `./scripts/test-mcp-ts-sdk --install` (npm ci in tests/mcp-ts-sdk).

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::McpServer;
use common::McpClient;
use porthole_connections::gateway::{
    Asker, BoxFuture, Gateway, NoTokens, PassOwner, Questions, Unanswered, Upstream,
};
use porthole_connections::handoff::{AgentMcp, BridgeCommand, Plan};
use porthole_connections::list::{AgentScope, Connection, EnvValue, RemoteTransport, Server};
use serde_json::{Value, json};
use url::Url;

/// Accepts every question with the name Ada, and keeps what it was asked.
#[derive(Default)]
struct Answers {
    asked: Mutex<Vec<(Asker, Value)>>,
}

impl Questions for Answers {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            self.asked.lock().unwrap().push((who.clone(), request));
            Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
        })
    }
    fn completed(&self, _: &Asker, _: Value) {}
}

fn sse_connection(url: &str, key: &str) -> Connection {
    Connection {
        name: "legacy".into(),
        enabled: true,
        agents: AgentScope::All,
        server: Server::Remote {
            url: Url::parse(url).unwrap(),
            transport: RemoteTransport::Sse,
            headers: BTreeMap::from([("x-api-key".to_string(), EnvValue::Plain(key.into()))]),
        },
    }
}

fn bridge() -> BridgeCommand {
    BridgeCommand {
        program: "/usr/bin/porthole-cli".into(),
        args: vec!["mcp".into(), "bridge".into()],
    }
}

/// Who decides: an agent that takes `sse` and an owner that reads nothing get the server itself;
/// an agent without `sse` (ACP v2) gets the gateway's address.
#[tokio::test]
async fn the_hand_off_serves_a_legacy_sse_server_to_an_agent_without_sse() {
    let connections = [sse_connection("http://127.0.0.1:9/sse", "k")];
    let v1_with_sse = AgentMcp {
        stdio: true,
        http: true,
        sse: true,
    };
    let direct = Plan::new(&connections, None, None, v1_with_sse, false, None).await;
    assert!(direct.upstreams().is_empty());
    assert!(matches!(
        direct.servers(None, &bridge()).as_slice(),
        [McpServer::Sse(_)]
    ));

    let v2 = AgentMcp {
        stdio: true,
        http: true,
        sse: false,
    };
    let served = Plan::new(&connections, None, None, v2, false, None).await;
    assert!(served.skipped.is_empty(), "{:?}", served.skipped);
    let upstreams = served.upstreams();
    let [(name, Upstream::LegacySse { url, headers })] = upstreams.as_slice() else {
        panic!("served by the gateway: {:?}", served.names());
    };
    assert_eq!(name, "legacy");
    assert_eq!(url.as_str(), "http://127.0.0.1:9/sse");
    assert_eq!(headers, &[("x-api-key".to_string(), "k".to_string())]);
}

#[tokio::test]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
async fn a_legacy_sse_server_is_reached_as_streamable_http_with_its_questions_answered() {
    let server = tokio::task::spawn_blocking(porthole_test_mcp::ts_sdk::start_legacy_sse)
        .await
        .unwrap();
    porthole_connections::http::install_crypto_provider();
    let gateway = Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap();
    let v2_agent = AgentMcp {
        stdio: true,
        http: true,
        sse: false,
    };
    let plan = Plan::new(
        &[sse_connection(&server.url, "sse-key")],
        None,
        None,
        v2_agent,
        true,
        None,
    )
    .await;
    let questions = Arc::new(Answers::default());
    let pass = gateway.open(
        plan.upstreams(),
        PassOwner {
            agent: "Test Agent".into(),
            questions: Some(questions.clone()),
            ..PassOwner::default()
        },
    );
    let servers = plan.servers(Some(&pass), &bridge());
    let [McpServer::Http(handed)] = servers.as_slice() else {
        panic!("the gateway's address: {servers:?}");
    };
    assert!(
        handed.headers.is_empty(),
        "the key stays with the gateway: {handed:?}"
    );

    let agent = McpClient::new(Url::parse(&handed.url).unwrap());
    let within = |what| async move { tokio::time::timeout(Duration::from_secs(30), what).await.unwrap() };

    let (status, init) = within(
        agent.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "plain-agent", "version": "1"}}})),
    )
    .await;
    assert_eq!(status, 200, "{init:?}");
    assert_eq!(init[0]["result"]["serverInfo"]["name"], "legacy-sse-example");
    let (status, _) =
        within(agent.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await;
    assert_eq!(status, 202);

    let (_, tools) = within(agent.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))).await;
    let names: Vec<&str> = tools[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["whoami", "book"]);
    let call = |id: u64, tool: &str| {
        agent.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}}))
    };
    let (_, answer) = within(call(2, "whoami")).await;
    assert_eq!(answer[0]["result"]["content"][0]["text"], "the key of Ada");

    // The server asks on its event stream; the gateway answers, the agent sees the result only.
    let (_, answer) = within(call(3, "book")).await;
    assert_eq!(answer.len(), 1, "{answer:?}");
    assert_eq!(answer[0]["result"]["content"][0]["text"], "booked for Ada");
    let asked = questions.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].0.connection, "legacy");
    assert_eq!(asked[0].1["params"]["message"], "Who is the booking for?");
    drop(server);
}
