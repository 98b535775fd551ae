//! MCP Apps at the gateway against servers nobody here wrote: the official examples
//! `@modelcontextprotocol/server-basic-vanillajs` and `@modelcontextprotocol/server-budget-allocator`
//! (pinned in tests/mcp-apps/package-lock.json, run on 127.0.0.1 only by porthole-test-mcp's
//! `mcp_apps`). A plain HTTP client plays an agent that declares nothing of MCP Apps; a recording
//! hop between the gateway and the server keeps what the server was sent.
//!
//! Needs the examples: `./scripts/test-mcp-apps --install` (npm ci in tests/mcp-apps).

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use common::McpClient;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use porthole_connections::gateway::{
    APP_MIME_TYPE, APPS_EXTENSION, AppCall, AppRequestError, Apps, Gateway, NoTokens, PassOwner, Upstream,
};
use serde_json::{Value, json};
use url::Url;

#[derive(Default)]
struct Seen {
    started: Mutex<Vec<AppCall>>,
    finished: Mutex<Vec<(AppCall, Result<Value, Value>)>>,
}

impl Apps for Seen {
    fn started(&self, call: &AppCall) {
        self.started.lock().unwrap().push(call.clone());
    }
    fn finished(&self, call: &AppCall, outcome: Result<Value, Value>) {
        self.finished.lock().unwrap().push((call.clone(), outcome));
    }
}

/// A loopback hop in front of `upstream` that keeps every request body it passes on.
struct Recorder {
    url: Url,
    bodies: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn recorder(upstream: Url) -> Recorder {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let url = Url::parse(&format!("http://{}/mcp", listener.local_addr().unwrap())).unwrap();
    let bodies: Arc<Mutex<Vec<Value>>> = Arc::default();
    let kept = bodies.clone();
    let client = reqwest::Client::new();
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (kept, client, upstream) = (kept.clone(), client.clone(), upstream.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let (kept, client, upstream) = (kept.clone(), client.clone(), upstream.clone());
                    async move {
                        let (parts, body) = req.into_parts();
                        let body = body.collect().await.unwrap().to_bytes();
                        if let Ok(v) = serde_json::from_slice(&body) {
                            kept.lock().unwrap().push(v);
                        }
                        let mut request = client.request(parts.method, upstream).body(body);
                        for (name, value) in &parts.headers {
                            if name != "host" && name != "content-length" {
                                request = request.header(name, value);
                            }
                        }
                        let answer = request.send().await.unwrap();
                        let mut response = hyper::Response::builder().status(answer.status().as_u16());
                        for (name, value) in answer.headers() {
                            if name != "content-length" && name != "transfer-encoding" {
                                response = response.header(name, value);
                            }
                        }
                        let bytes = answer.bytes().await.unwrap_or_default();
                        Ok::<_, Infallible>(response.body(Full::new(bytes)).unwrap())
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Recorder { url, bodies, task }
}

/// Through a pass: an agent without the extension initializes, lists and calls the UI tool;
/// then the gateway's own requests for the app.
async fn through_the_gateway(
    package: &str,
    tool: &str,
    resource: &str,
) -> (Vec<AppCall>, Vec<Result<Value, Value>>) {
    let example = tokio::task::spawn_blocking({
        let package = package.to_string();
        move || porthole_test_mcp::mcp_apps::start(&package)
    })
    .await
    .unwrap();
    porthole_connections::http::install_crypto_provider();
    let hop = recorder(Url::parse(&example.url).unwrap()).await;
    let gateway = Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap();
    let seen = Arc::new(Seen::default());
    let pass = gateway.open(
        vec![(
            "apps".into(),
            Upstream::Remote {
                url: hop.url.clone(),
                headers: vec![],
            },
        )],
        PassOwner {
            agent: "Plain Agent".into(),
            apps: Some(seen.clone()),
            ..PassOwner::default()
        },
    );
    let agent = McpClient::new(pass.url("apps").unwrap());
    let (status, init) = agent
        .send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "plain-agent", "version": "1"}}}),
        )
        .await;
    assert_eq!(status, 200, "{init:?}");
    let (status, _) = agent
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(status, 202);
    // The server was told the extension, the agent having declared nothing.
    let sent_init = hop.bodies.lock().unwrap()[0].clone();
    assert_eq!(sent_init["method"], "initialize");
    assert_eq!(
        sent_init["params"]["capabilities"]["extensions"][APPS_EXTENSION],
        json!({"mimeTypes": [APP_MIME_TYPE]})
    );
    assert_eq!(sent_init["params"]["clientInfo"]["name"], "plain-agent");

    let (_, listed) = agent
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let tools = listed[0]["result"]["tools"].as_array().unwrap();
    let listed_tool = tools.iter().find(|t| t["name"] == tool).unwrap().clone();
    assert_eq!(listed_tool["_meta"]["ui"]["resourceUri"], resource);
    let (status, called) = agent.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}}),
    )
    .await;
    assert_eq!(status, 200);
    let agents_result = called.last().unwrap()["result"].clone();
    assert!(agents_result.is_object(), "{called:?}");

    let started = seen.started.lock().unwrap().clone();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].tool, tool);
    assert_eq!(started[0].resource_uri, resource);
    assert_eq!(started[0].arguments, json!({}));
    assert_eq!(started[0].tool_definition, listed_tool);
    assert_eq!(started[0].who.pass, pass.id());
    let finished = seen.finished.lock().unwrap().clone();
    assert_eq!(finished.len(), 1);
    // What the owner got is what the agent got.
    assert_eq!(finished[0].1.as_ref().unwrap(), &agents_result);

    // The gateway's own requests: the HTML, a tool call.
    let read = gateway
        .app_request(pass.id(), "apps", "resources/read", json!({"uri": resource}))
        .await
        .unwrap();
    let content = &read["contents"][0];
    assert_eq!(content["uri"], resource);
    assert_eq!(content["mimeType"], APP_MIME_TYPE);
    assert!(
        content["text"].as_str().unwrap().starts_with("<!DOCTYPE html>"),
        "not the app's HTML"
    );
    let own_call = gateway
        .app_request(
            pass.id(),
            "apps",
            "tools/call",
            json!({"name": tool, "arguments": {}}),
        )
        .await
        .unwrap();
    assert!(own_call["content"].is_array(), "{own_call}");
    // Porthole's own `initialize` declared the extension too.
    let bodies = hop.bodies.lock().unwrap().clone();
    let own_init = bodies
        .iter()
        .find(|b| b["method"] == "initialize" && b["params"]["clientInfo"]["name"] == "Porthole")
        .expect("the gateway's own initialize");
    assert_eq!(
        own_init["params"]["capabilities"]["extensions"][APPS_EXTENSION],
        json!({"mimeTypes": [APP_MIME_TYPE]})
    );
    // Refused: another method; then a closed pass, with nothing sent.
    assert_eq!(
        gateway
            .app_request(pass.id(), "apps", "tools/list", json!({}))
            .await
            .unwrap_err(),
        AppRequestError::NotAllowed("tools/list".into())
    );
    let id = pass.id();
    drop(pass);
    let before = hop.bodies.lock().unwrap().len();
    assert_eq!(
        gateway
            .app_request(id, "apps", "resources/read", json!({"uri": resource}))
            .await
            .unwrap_err(),
        AppRequestError::PassClosed
    );
    assert_eq!(hop.bodies.lock().unwrap().len(), before);
    (started, finished.into_iter().map(|(_, o)| o).collect())
}

#[tokio::test]
#[ignore = "needs the MCP Apps examples from npm: run via scripts/test-mcp-apps or scripts/test"]
async fn basic_vanillajs_get_time_through_the_gateway() {
    let (_, outcomes) = through_the_gateway(
        porthole_test_mcp::mcp_apps::BASIC,
        "get-time",
        "ui://get-time/mcp-app.html",
    )
    .await;
    let time = outcomes[0].as_ref().unwrap()["structuredContent"]["time"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(time.contains('T') && time.ends_with('Z'), "{time}");
}

#[tokio::test]
#[ignore = "needs the MCP Apps examples from npm: run via scripts/test-mcp-apps or scripts/test"]
async fn budget_allocator_get_budget_data_through_the_gateway() {
    let (_, outcomes) = through_the_gateway(
        porthole_test_mcp::mcp_apps::BUDGET,
        "get-budget-data",
        "ui://budget-allocator/mcp-app.html",
    )
    .await;
    let data = &outcomes[0].as_ref().unwrap()["structuredContent"];
    assert_eq!(data["config"]["currency"], "USD");
    assert!(data["analytics"]["history"].as_array().unwrap().len() >= 12);
}
