//! MCP Apps at the gateway, against porthole-test-mcp's UI tools (`Options::apps`): the UI
//! extension declared in the agent's `initialize`, UI tools noted from `tools/list`, their calls
//! told to the pass's owner with arguments and outcome (JSON and event-stream answers, errors,
//! an answer too large to note), and Porthole's own session for the app's requests
//! (`Gateway::app_request`). The npm servers' tests are `mcp_apps_servers.rs`.

mod common;

use std::sync::{Arc, Mutex};

use common::McpClient;
use porthole_connections::gateway::{
    APP_MIME_TYPE, APPS_EXTENSION, AppCall, AppRequestError, Apps, Asker, BoxFuture, Gateway, NoTokens,
    PassOwner, Questions, SignInLost, StdioServer, TokenSource, Unanswered, Upstream,
};
use porthole_test_mcp::Options;
use porthole_test_mcp::apps::{CHART_HTML, CHART_URI, LEGACY_URI};
use serde_json::{Value, json};
use url::Url;

/// What the owner was told.
#[derive(Default)]
struct Seen {
    started: Mutex<Vec<AppCall>>,
    finished: Mutex<Vec<(AppCall, Result<Value, Value>)>>,
    /// Connections whose apps the person turned off.
    off: Mutex<Vec<String>>,
}

impl Apps for Seen {
    fn started(&self, call: &AppCall) {
        self.started.lock().unwrap().push(call.clone());
    }
    fn finished(&self, call: &AppCall, outcome: Result<Value, Value>) {
        self.finished.lock().unwrap().push((call.clone(), outcome));
    }
    fn wanted(&self, connection: &str) -> bool {
        !self.off.lock().unwrap().iter().any(|c| c == connection)
    }
}

/// A connection "signed in" with a token the test knows (the open server records every bearer).
struct FixedToken;

const TOKEN: &str = "tok-apps-7f3a";

impl TokenSource for FixedToken {
    fn token<'a>(&'a self, _: &'a str, _: &'a Url) -> BoxFuture<'a, Result<Option<String>, SignInLost>> {
        Box::pin(async { Ok(Some(TOKEN.to_string())) })
    }
    fn refreshed<'a>(
        &'a self,
        _: &'a str,
        _: &'a Url,
        _: &'a str,
    ) -> BoxFuture<'a, Result<String, SignInLost>> {
        Box::pin(async { Ok(TOKEN.to_string()) })
    }
}

/// An agent's side of one MCP session through the gateway.
struct Agent {
    mcp: McpClient,
}

impl Agent {
    async fn initialize(&self, capabilities: Value) {
        let (status, init, _) = self
            .mcp
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": {"name": "plain-agent", "version": "1"}}}),
                false,
            )
            .await;
        assert_eq!(status, 200, "{init:?}");
        let (status, _, _) = self
            .mcp
            .post(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                false,
            )
            .await;
        assert_eq!(status, 202);
    }

    async fn call(&self, id: u64, tool: &str, arguments: Value, stream: bool) -> (Vec<Value>, String) {
        let (status, messages, text) = self
            .mcp
            .post(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}}),
                stream,
            )
            .await;
        assert_eq!(status, 200, "{text}");
        (messages, text)
    }
}

struct Setup {
    server: porthole_test_mcp::Server,
    gateway: Gateway,
    pass: porthole_connections::gateway::Pass,
    seen: Arc<Seen>,
    agent: Agent,
}

async fn setup(apps: bool, tokens: Arc<dyn TokenSource>) -> Setup {
    setup_with(apps, tokens, None).await
}

async fn setup_with(
    apps: bool,
    tokens: Arc<dyn TokenSource>,
    questions: Option<Arc<dyn Questions>>,
) -> Setup {
    porthole_connections::http::install_crypto_provider();
    let server = porthole_test_mcp::start(Options {
        open: true,
        apps: true,
        ..Options::default()
    })
    .await;
    let gateway = Gateway::start(tokens).await.unwrap();
    let seen = Arc::new(Seen::default());
    let pass = gateway.open(
        vec![
            (
                "charts".into(),
                Upstream::Remote {
                    url: Url::parse(&server.mcp_url()).unwrap(),
                    headers: vec![("X-Team".into(), "blue".into())],
                },
            ),
            (
                "local".into(),
                Upstream::Stdio(StdioServer {
                    command: "true".into(),
                    args: vec![],
                    env: vec![],
                    cwd: None,
                }),
            ),
        ],
        PassOwner {
            agent: "Test Agent".into(),
            apps: apps.then(|| seen.clone() as Arc<dyn Apps>),
            questions,
            ..PassOwner::default()
        },
    );
    let agent = Agent {
        mcp: McpClient::new(pass.url("charts").unwrap()),
    };
    Setup {
        server,
        gateway,
        pass,
        seen,
        agent,
    }
}

fn no_tokens() -> Arc<dyn TokenSource> {
    Arc::new(NoTokens("no sign-in here".into()))
}

#[tokio::test]
async fn ui_tools_are_noted_from_the_listing_and_their_calls_told_with_arguments_and_outcome() {
    let s = setup(true, no_tokens()).await;
    s.agent.initialize(json!({"roots": {"listChanged": true}})).await;
    // The server was told the extension; the agent's own capabilities kept.
    let init = s.server.state().initialized[0].clone();
    assert_eq!(
        init["capabilities"],
        json!({"roots": {"listChanged": true},
            "extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}})
    );
    assert!(init["capabilities"].get("elicitation").is_none());

    let (_, listed, listed_text) = s
        .agent
        .mcp
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), true)
        .await;
    // Read, not changed.
    assert_eq!(listed[0]["result"]["tools"].as_array().unwrap().len(), 6);
    assert!(listed_text.contains("\"_meta\""));

    // An event-stream answer.
    let (messages, _) = s
        .agent
        .call(2, "show_chart", json!({"data": [3, 1, 4]}), true)
        .await;
    assert_eq!(messages[0]["method"], "notifications/message");
    assert_eq!(messages[1]["result"]["structuredContent"], json!({"points": 3}));
    // A JSON answer, the deprecated flat key, a tool only the app may call, an error.
    s.agent.call(3, "legacy_ui", json!({}), false).await;
    s.agent.call(4, "app_only", json!({}), false).await;
    let (messages, _) = s.agent.call(5, "fail_ui", json!({}), true).await;
    assert_eq!(messages[1]["error"]["code"], -32000);
    // Not UI tools: nothing told.
    s.agent.call(6, "web_ui", json!({}), false).await;
    s.agent.call(7, "echo", json!({"text": "hi"}), false).await;

    let started = s.seen.started.lock().unwrap().clone();
    let finished = s.seen.finished.lock().unwrap().clone();
    let tools: Vec<&str> = started.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, ["show_chart", "legacy_ui", "app_only", "fail_ui"]);
    assert_eq!(finished.len(), 4);
    let chart = &started[0];
    assert_eq!(chart.who.connection, "charts");
    assert_eq!(chart.who.agent, "Test Agent");
    assert_eq!(chart.who.pass, s.pass.id());
    assert_eq!(chart.resource_uri, CHART_URI);
    assert_eq!(chart.arguments, json!({"data": [3, 1, 4]}));
    assert_eq!(chart.tool_definition["title"], "Show a chart");
    assert_eq!(started[1].resource_uri, LEGACY_URI);
    // Call numbers are unique.
    let mut numbers: Vec<u64> = started.iter().map(|c| c.call).collect();
    numbers.dedup();
    assert_eq!(numbers.len(), 4);
    for (call, outcome) in &finished {
        assert!(started.contains(call));
        match call.tool.as_str() {
            "show_chart" => assert_eq!(
                outcome.as_ref().unwrap()["content"][0]["text"],
                "a chart of 3 points"
            ),
            "legacy_ui" | "app_only" => assert_eq!(outcome.as_ref().unwrap()["content"][0]["text"], "done"),
            "fail_ui" => assert_eq!(
                outcome.as_ref().unwrap_err(),
                &json!({"code": -32000, "message": "the chart failed"})
            ),
            other => panic!("{other}"),
        }
    }
}

#[tokio::test]
async fn an_answer_too_large_to_note_passes_whole_and_is_told_as_not_seen() {
    let s = setup(true, no_tokens()).await;
    s.agent.initialize(json!({})).await;
    s.agent
        .mcp
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), false)
        .await;
    let size = porthole_connections::gateway::APP_NOTE_CAP + 10;
    for (id, stream) in [(2, false), (3, true)] {
        let (messages, _) = s
            .agent
            .call(id, "show_chart", json!({"size": size}), stream)
            .await;
        let answer = messages.last().unwrap();
        assert_eq!(
            answer["result"]["content"][0]["text"].as_str().unwrap().len(),
            size
        );
    }
    let finished = s.seen.finished.lock().unwrap().clone();
    assert_eq!(finished.len(), 2);
    for (_, outcome) in finished {
        // (Not printed: the result is 4 MiB.)
        let Err(error) = outcome else {
            panic!("a result over the cap was noted")
        };
        assert_eq!(error["code"], porthole_connections::gateway::APP_ANSWER_UNSEEN);
        assert_eq!(error["data"]["porthole"], "too-large");
    }
}

#[tokio::test]
async fn with_apps_off_the_gateway_declares_nothing() {
    let s = setup(false, no_tokens()).await;
    s.agent.initialize(json!({"roots": {}})).await;
    assert_eq!(
        s.server.state().initialized[0]["capabilities"],
        json!({"roots": {}})
    );
    // The agent's own declaration goes as it was when apps are on.
    let s = setup(true, no_tokens()).await;
    let own = json!({"extensions": {APPS_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"], "x": 1}}});
    s.agent.initialize(own.clone()).await;
    assert_eq!(s.server.state().initialized[0]["capabilities"], own);
}

#[tokio::test]
async fn a_connection_whose_apps_are_turned_off_is_told_nothing_and_its_calls_are_not_noted() {
    let s = setup(true, no_tokens()).await;
    s.seen.off.lock().unwrap().push("charts".into());
    s.agent.initialize(json!({"roots": {}})).await;
    assert_eq!(
        s.server.state().initialized[0]["capabilities"],
        json!({"roots": {}})
    );
    s.agent
        .mcp
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), false)
        .await;
    let (messages, _) = s.agent.call(2, "show_chart", json!({"data": [1]}), false).await;
    assert_eq!(messages[0]["result"]["structuredContent"], json!({"points": 1}));
    assert!(s.seen.started.lock().unwrap().is_empty());
    assert!(s.seen.finished.lock().unwrap().is_empty());
}

#[tokio::test]
async fn app_requests_go_in_the_gateways_own_session_with_the_connections_headers_and_token() {
    let s = setup(true, Arc::new(FixedToken)).await;
    let pass = s.pass.id();
    // No agent session needed: the gateway opens its own.
    let read = s
        .gateway
        .app_request(pass, "charts", "resources/read", json!({"uri": CHART_URI}))
        .await
        .unwrap();
    let content = &read["contents"][0];
    assert_eq!(content["mimeType"], APP_MIME_TYPE);
    assert_eq!(content["text"], CHART_HTML);
    assert_eq!(
        content["_meta"]["ui"]["csp"]["connectDomains"],
        json!(["https://api.example.com"])
    );
    let called = s
        .gateway
        .app_request(
            pass,
            "charts",
            "tools/call",
            json!({"name": "show_chart", "arguments": {"data": [1, 2]}}),
        )
        .await
        .unwrap();
    assert_eq!(called["structuredContent"], json!({"points": 2}));
    // The server's JSON-RPC error, as it sent it.
    let error = s
        .gateway
        .app_request(pass, "charts", "tools/call", json!({"name": "fail_ui"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        AppRequestError::Rpc(json!({"code": -32000, "message": "the chart failed"}))
    );

    {
        let state = s.server.state();
        let init = &state.initialized[0];
        assert_eq!(init["clientInfo"]["name"], "Porthole");
        assert_eq!(
            init["capabilities"]["extensions"][APPS_EXTENSION],
            json!({"mimeTypes": [APP_MIME_TYPE]})
        );
        let methods: Vec<&str> = state.requests.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "resources/read",
                "tools/call",
                "tools/call"
            ]
        );
        // One session, its id on every request after `initialize`.
        let session = state.requests[1].1.clone().unwrap();
        assert!(
            state.requests[1..]
                .iter()
                .all(|(_, id)| id.as_ref() == Some(&session))
        );
        // The token went upstream with each.
        assert_eq!(state.seen_tokens.len(), 5);
        assert!(state.seen_tokens.iter().all(|t| t == TOKEN));
    }

    // The server forgets the session: a new `initialize`, then the request.
    s.server.forget_sessions();
    let read = s
        .gateway
        .app_request(pass, "charts", "resources/read", json!({"uri": LEGACY_URI}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["uri"], LEGACY_URI);
    let methods: Vec<String> = s.server.state().requests[5..]
        .iter()
        .map(|(m, _)| m.clone())
        .collect();
    assert_eq!(
        methods,
        [
            "resources/read",
            "initialize",
            "notifications/initialized",
            "resources/read"
        ]
    );

    // Refused: another method, an unknown connection, a stdio connection; the token in none.
    for (connection, method, want) in [
        (
            "charts",
            "tools/list",
            AppRequestError::NotAllowed("tools/list".into()),
        ),
        (
            "charts",
            "sampling/createMessage",
            AppRequestError::NotAllowed("sampling/createMessage".into()),
        ),
        (
            "other",
            "resources/read",
            AppRequestError::NoSuchConnection("other".into()),
        ),
        ("local", "resources/read", AppRequestError::Stdio("local".into())),
    ] {
        let error = s
            .gateway
            .app_request(pass, connection, method, json!({}))
            .await
            .unwrap_err();
        assert_eq!(error, want);
        assert!(!error.to_string().contains(TOKEN));
    }
    let before = s.server.state().requests.len();
    // A closed pass refuses, and nothing goes upstream.
    let gateway = s.gateway;
    drop(s.pass);
    let error = gateway
        .app_request(pass, "charts", "resources/read", json!({"uri": CHART_URI}))
        .await
        .unwrap_err();
    assert_eq!(error, AppRequestError::PassClosed);
    assert_eq!(s.server.state().requests.len(), before);
}

/// Declines every question (none comes here: the server asks none).
struct Declines;

impl Questions for Declines {
    fn ask<'a>(&'a self, _: &'a Asker, _: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async { Ok(json!({"action": "decline"})) })
    }
    fn completed(&self, _: &Asker, _: Value) {}
}

#[tokio::test]
async fn with_questions_answered_too_one_rewrite_declares_both_and_calls_are_still_told() {
    let s = setup_with(true, no_tokens(), Some(Arc::new(Declines))).await;
    s.agent.initialize(json!({})).await;
    assert_eq!(
        s.server.state().initialized[0]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}},
            "extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}})
    );
    s.agent
        .mcp
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), true)
        .await;
    // Through the question filter and the -32042 path (a tools/call the gateway may retry).
    let (messages, _) = s.agent.call(2, "show_chart", json!({"data": [5]}), true).await;
    assert_eq!(messages[1]["result"]["structuredContent"], json!({"points": 1}));
    let (messages, _) = s
        .agent
        .call(3, "show_chart", json!({"data": [5, 6]}), false)
        .await;
    assert_eq!(messages[0]["result"]["structuredContent"], json!({"points": 2}));
    let finished = s.seen.finished.lock().unwrap().clone();
    assert_eq!(finished.len(), 2);
    assert_eq!(finished[0].0.arguments, json!({"data": [5]}));
    assert_eq!(
        finished[0].1.as_ref().unwrap()["structuredContent"],
        json!({"points": 1})
    );
    assert_eq!(
        finished[1].1.as_ref().unwrap()["structuredContent"],
        json!({"points": 2})
    );
}

#[tokio::test]
async fn the_agent_gets_the_same_bytes_with_apps_on_and_off() {
    let mut seen = Vec::new();
    for apps in [false, true] {
        let s = setup(apps, no_tokens()).await;
        s.agent.initialize(json!({})).await;
        let (_, _, listed) = s
            .agent
            .mcp
            .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), true)
            .await;
        let (_, streamed) = s
            .agent
            .call(2, "show_chart", json!({"data": [1, 2, 3]}), true)
            .await;
        let (_, plain) = s.agent.call(3, "fail_ui", json!({}), false).await;
        seen.push((listed, streamed, plain));
        assert_eq!(s.seen.finished.lock().unwrap().len(), if apps { 2 } else { 0 });
    }
    assert_eq!(seen[0], seen[1]);
}
