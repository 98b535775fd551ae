//! Stdio connections through the gateway, served as Streamable HTTP (`Upstream::Served`): a
//! server's question reaches the owner for an agent that declared no elicitation, an MCP App
//! of a stdio server is noted and its page read by Porthole's own request, and the hand-off
//! gives such a connection to the agent as the gateway's address, started in the session's
//! working directory.
//!
//! Servers: tests/fixtures/scripted-stdio-server.mjs (node, no packages) and the official
//! `@modelcontextprotocol/server-basic-vanillajs` in its `--stdio` mode (needs
//! `./scripts/test-mcp-apps --install`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::McpServer;
use porthole_connections::gateway::{
    AppCall, Apps, Asker, BoxFuture, Gateway, NoTokens, Pass, PassOwner, Questions, StdioServer, Unanswered,
    Upstream,
};
use porthole_connections::handoff::{AgentMcp, BridgeCommand, Plan};
use porthole_connections::list::{AgentScope, Connection, Server};
use serde_json::{Value, json};
use url::Url;

fn scripted() -> StdioServer {
    StdioServer {
        command: "node".into(),
        args: vec![
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/scripted-stdio-server.mjs"
            )
            .into(),
        ],
        env: vec![],
        cwd: None,
    }
}

#[derive(Default)]
struct Owner {
    asked: Mutex<Vec<(Asker, Value)>>,
    started: Mutex<Vec<AppCall>>,
    finished: Mutex<Vec<Result<Value, Value>>>,
}

impl Questions for Owner {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        self.asked.lock().unwrap().push((who.clone(), request));
        Box::pin(async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) })
    }
    fn completed(&self, _: &Asker, _: Value) {}
}

impl Apps for Owner {
    fn started(&self, call: &AppCall) {
        self.started.lock().unwrap().push(call.clone());
    }
    fn finished(&self, _: &AppCall, outcome: Result<Value, Value>) {
        self.finished.lock().unwrap().push(outcome);
    }
}

/// A plain agent's MCP session (no elicitation, nothing of MCP Apps declared).
struct Agent {
    http: reqwest::Client,
    url: Url,
    session: Option<String>,
    /// Every message the agent read.
    read: Vec<Value>,
}

impl Agent {
    fn new(url: Url) -> Agent {
        porthole_connections::http::install_crypto_provider();
        Agent {
            http: reqwest::Client::new(),
            url,
            session: None,
            read: Vec::new(),
        }
    }

    async fn post(&mut self, message: Value) -> (u16, Option<Value>) {
        let mut req = self
            .http
            .post(self.url.clone())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .timeout(std::time::Duration::from_secs(30))
            .body(message.to_string());
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let answer = req.send().await.unwrap();
        if let Some(s) = answer.headers().get("mcp-session-id") {
            self.session = Some(s.to_str().unwrap().to_string());
        }
        let status = answer.status().as_u16();
        let text = answer.text().await.unwrap();
        // JSON, or an event stream: every message it carried.
        let messages: Vec<Value> = match serde_json::from_str(&text) {
            Ok(v) => vec![v],
            Err(_) => text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str(d.trim()).ok())
                .collect(),
        };
        self.read.extend(messages.iter().cloned());
        let answer = messages
            .into_iter()
            .find(|m| m.get("id") == message.get("id") && message.get("id").is_some());
        (status, answer)
    }

    async fn open(&mut self) -> Value {
        let (status, init) = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "plain-agent", "version": "1"}}}),
            )
            .await;
        assert_eq!(status, 200, "{init:?}");
        let (status, _) = self
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(status, 202);
        init.unwrap()
    }

    async fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let (status, answer) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}))
            .await;
        assert_eq!(status, 200);
        answer.unwrap()
    }
}

fn text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn gateway() -> Gateway {
    Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_stdio_servers_question_reaches_the_owner_for_an_agent_without_elicitation() {
    let gateway = gateway().await;
    let owner = Arc::new(Owner::default());
    let pass = gateway.open(
        vec![("scripted".into(), Upstream::Served(scripted()))],
        PassOwner {
            agent: "Plain Agent".into(),
            questions: Some(owner.clone()),
            ..PassOwner::default()
        },
    );
    let mut agent = Agent::new(pass.url("scripted").unwrap());
    agent.open().await;
    let answer = agent.call(1, "ask", json!({})).await;
    assert!(
        text(&answer).contains("Ada"),
        "the server got the owner's answer: {answer}"
    );
    let asked = owner.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0.connection, "scripted");
    assert_eq!(asked[0].0.agent, "Plain Agent");
    assert_eq!(asked[0].0.pass, pass.id());
    assert_eq!(asked[0].1["params"]["message"], "Your name?");
    assert!(
        !agent.read.iter().any(|m| m["method"] == "elicitation/create"),
        "the agent never sees the question: {:?}",
        agent.read
    );
}

#[tokio::test]
async fn an_mcp_app_of_a_stdio_server_is_noted_and_its_page_read() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script =
        root.join("tests/mcp-apps/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: install the MCP Apps examples with `./scripts/test-mcp-apps --install`",
        script.display()
    );
    let server = StdioServer {
        command: "node".into(),
        args: vec![script.display().to_string(), "--stdio".into()],
        env: vec![],
        cwd: None,
    };
    let gateway = gateway().await;
    let owner = Arc::new(Owner::default());
    let pass = gateway.open(
        vec![("basic".into(), Upstream::Served(server))],
        PassOwner {
            agent: "Plain Agent".into(),
            apps: Some(owner.clone()),
            ..PassOwner::default()
        },
    );
    let mut agent = Agent::new(pass.url("basic").unwrap());
    agent.open().await;
    let (_, tools) = agent
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let tools = tools.unwrap();
    assert!(
        tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "get-time"),
        "{tools}"
    );
    let answer = agent.call(2, "get-time", json!({})).await;
    assert!(answer.get("result").is_some(), "{answer}");
    let started = owner.started.lock().unwrap().clone();
    assert_eq!(started.len(), 1, "the UI tool call is noted");
    assert_eq!(started[0].who.connection, "basic");
    assert_eq!(started[0].resource_uri, "ui://get-time/mcp-app.html");

    let page = gateway
        .app_request(
            pass.id(),
            "basic",
            "resources/read",
            json!({"uri": "ui://get-time/mcp-app.html"}),
        )
        .await
        .unwrap();
    let content = &page["contents"][0];
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    assert!(content["text"].as_str().unwrap().contains("<html"), "{content}");
    // Porthole's own session shares the process with the agent's: the agent still works.
    let again = agent.call(3, "get-time", json!({})).await;
    assert!(again.get("result").is_some(), "{again}");
}

fn stdio_connection(name: &str) -> Connection {
    let server = scripted();
    Connection {
        name: name.into(),
        enabled: true,
        agents: AgentScope::All,
        server: Server::Stdio {
            command: server.command,
            args: server.args,
            env: BTreeMap::new(),
        },
    }
}

fn bridge() -> BridgeCommand {
    BridgeCommand {
        program: "/usr/bin/porthole-cli".into(),
        args: vec!["mcp".into(), "bridge".into()],
    }
}

#[tokio::test]
async fn the_hand_off_gives_a_stdio_connection_through_the_gateway_in_the_sessions_directory() {
    let dir = tempfile::tempdir().unwrap();
    let connections = [stdio_connection("scripted")];
    let http = AgentMcp {
        stdio: true,
        http: true,
        sse: false,
    };
    let plan = Plan::new(&connections, None, None, http, true, Some(dir.path())).await;
    let gateway = gateway().await;
    let pass: Pass = gateway.open(plan.upstreams(), PassOwner::default());
    let servers = plan.servers(Some(&pass), &bridge());
    let [McpServer::Http(server)] = servers.as_slice() else {
        panic!("the gateway's address: {servers:?}");
    };
    let url = Url::parse(&server.url).unwrap();
    assert_eq!(Some(url.clone()), pass.url("scripted"));
    let mut agent = Agent::new(url);
    agent.open().await;
    let cwd = text(&agent.call(1, "cwd", json!({})).await);
    assert_eq!(
        std::fs::canonicalize(cwd).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );

    // An agent that takes only stdio gets the bridge in HTTP mode (no pipe).
    let stdio_only = Plan::new(&connections, None, None, AgentMcp::default(), true, None).await;
    let servers = stdio_only.servers(Some(&pass), &bridge());
    let [McpServer::Stdio(bridged)] = servers.as_slice() else {
        panic!("the bridge: {servers:?}");
    };
    assert!(!bridged.args.iter().any(|a| a == "--pipe"), "{bridged:?}");
    assert!(!stdio_only.is_piped("scripted"));

    // An owner that takes neither questions nor apps: the agent starts the server itself.
    let direct = Plan::new(&connections, None, None, http, false, None).await;
    assert!(direct.upstreams().is_empty());
    assert!(matches!(
        direct.servers(None, &bridge()).as_slice(),
        [McpServer::Stdio(_)]
    ));
}

/// ACP v2 makes stdio a capability: an agent that takes only HTTP is never handed a stdio server
/// (nor the bridge, itself one): the gateway serves the server as HTTP, even for an owner that
/// would otherwise let the agent start it; an agent that takes neither gets it skipped, said why.
#[tokio::test]
async fn an_agent_without_stdio_gets_a_stdio_connection_served_as_http() {
    let dir = tempfile::tempdir().unwrap();
    let connections = [stdio_connection("scripted")];
    let http_only = AgentMcp {
        stdio: false,
        http: true,
        sse: false,
    };
    let plan = Plan::new(&connections, None, None, http_only, false, Some(dir.path())).await;
    assert!(plan.skipped.is_empty(), "{:?}", plan.skipped);
    let gateway = gateway().await;
    let pass: Pass = gateway.open(plan.upstreams(), PassOwner::default());
    let servers = plan.servers(Some(&pass), &bridge());
    let [McpServer::Http(server)] = servers.as_slice() else {
        panic!("the gateway's address, not a stdio server: {servers:?}");
    };
    let mut agent = Agent::new(Url::parse(&server.url).unwrap());
    agent.open().await;
    let cwd = text(&agent.call(1, "cwd", json!({})).await);
    assert_eq!(
        std::fs::canonicalize(cwd).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );

    let neither = AgentMcp {
        stdio: false,
        http: false,
        sse: false,
    };
    let plan = Plan::new(&connections, None, None, neither, true, None).await;
    assert!(plan.names().is_empty());
    assert_eq!(plan.skipped.len(), 1);
    assert!(
        plan.skipped[0].1.contains("neither stdio nor HTTP"),
        "{:?}",
        plan.skipped
    );
}

#[tokio::test]
async fn the_connector_serves_stdio_connections_when_the_owner_answers_questions_and_for_porthole() {
    let connections = [stdio_connection("scripted")];
    let connector = porthole_connections::connector::Connector::new(bridge(), Arc::new(|_| {}));
    let http = AgentMcp {
        stdio: true,
        http: true,
        sse: false,
    };
    let owner = PassOwner {
        questions: Some(Arc::new(Owner::default())),
        ..PassOwner::default()
    };
    let handed = connector.hand(&connections, Some(http), owner).await;
    assert!(
        matches!(handed.servers.as_slice(), [McpServer::Http(_)]),
        "{:?}",
        handed.servers
    );

    // Porthole's own listing reaches it over HTTP too, never through the pipe.
    let own = connector.hand(&connections, None, PassOwner::default()).await;
    assert!(own.piped.is_empty(), "{:?}", own.piped);
    let mut client = Agent::new(own.pass.as_ref().unwrap().url("scripted").unwrap());
    client.open().await;
    let (_, tools) = client
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert!(
        tools.unwrap()["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
}

/// Records every token lookup: a served stdio server must cause none.
#[derive(Default)]
struct CountingTokens(Mutex<Vec<String>>);

impl porthole_connections::gateway::TokenSource for CountingTokens {
    fn token<'a>(
        &'a self,
        connection: &'a str,
        _: &'a Url,
    ) -> BoxFuture<'a, Result<Option<String>, porthole_connections::gateway::SignInLost>> {
        self.0.lock().unwrap().push(connection.to_string());
        Box::pin(async { Ok(Some("a-token-for-remote-servers".into())) })
    }
    fn refreshed<'a>(
        &'a self,
        _: &'a str,
        _: &'a Url,
        _: &'a str,
    ) -> BoxFuture<'a, Result<String, porthole_connections::gateway::SignInLost>> {
        Box::pin(async { Err(porthole_connections::gateway::SignInLost("none".into())) })
    }
}

#[tokio::test]
async fn no_token_is_looked_up_for_a_stdio_server() {
    let tokens = Arc::new(CountingTokens::default());
    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let owner = Arc::new(Owner::default());
    let pass = gateway.open(
        vec![("scripted".into(), Upstream::Served(scripted()))],
        PassOwner {
            questions: Some(owner.clone()),
            apps: Some(owner),
            ..PassOwner::default()
        },
    );
    let mut agent = Agent::new(pass.url("scripted").unwrap());
    agent.open().await;
    assert!(text(&agent.call(1, "echo", json!({"text": "hi"})).await).starts_with("echo: hi"));
    assert!(
        tokens.0.lock().unwrap().is_empty(),
        "{:?}",
        tokens.0.lock().unwrap()
    );
}
