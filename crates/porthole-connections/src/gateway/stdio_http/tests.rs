//! The adapter alone, against tests/fixtures/scripted-stdio-server.mjs (node, no packages).

use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};

use super::Served;
use crate::gateway::StdioServer;

fn script() -> StdioServer {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/scripted-stdio-server.mjs"
    );
    StdioServer {
        command: "node".into(),
        args: vec![path.into()],
        env: vec![("SCRIPTED_SECRET".into(), "not-for-logs".into())],
        cwd: None,
    }
}

fn client() -> reqwest::Client {
    crate::http::install_crypto_provider();
    reqwest::Client::new()
}

/// `.json()` without reqwest's `json` feature.
trait JsonBody {
    fn json_body(self, body: &Value) -> Self;
}

impl JsonBody for reqwest::RequestBuilder {
    fn json_body(self, body: &Value) -> Self {
        self.header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string())
    }
}

/// One MCP client of the served address.
struct Client {
    http: reqwest::Client,
    url: url::Url,
    session: Option<String>,
}

impl Client {
    fn new(served: &Served) -> Client {
        Client {
            http: client(),
            url: served.url().clone(),
            session: None,
        }
    }

    async fn post(&self, body: Value) -> (u16, Option<Value>, reqwest::header::HeaderMap) {
        // A request the adapter loses fails the test rather than hanging it.
        let mut req = self
            .http
            .post(self.url.clone())
            .json_body(&body)
            .timeout(Duration::from_secs(15));
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let answer = req.send().await.unwrap();
        let (status, headers) = (answer.status().as_u16(), answer.headers().clone());
        let text = answer.text().await.unwrap();
        (status, serde_json::from_str(&text).ok(), headers)
    }

    async fn initialize(&mut self, id: Value) -> Value {
        let (status, answer, headers) = self
            .post(
                json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
            )
            .await;
        assert_eq!(status, 200, "{answer:?}");
        self.session = Some(headers["mcp-session-id"].to_str().unwrap().to_string());
        let (status, _, _) = self
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(status, 202);
        answer.unwrap()
    }

    async fn call(&self, id: Value, tool: &str, arguments: Value) -> Value {
        let (status, answer, headers) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}))
            .await;
        assert_eq!(status, 200);
        assert_eq!(headers["content-type"], "application/json");
        answer.unwrap()
    }

    async fn get(&self) -> reqwest::Response {
        self.http
            .get(self.url.clone())
            .header("accept", "text/event-stream")
            .header("mcp-session-id", self.session.as_deref().unwrap())
            .send()
            .await
            .unwrap()
    }
}

fn text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The messages of an event stream, read until `n` came (10 s at most).
async fn events(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    n: usize,
) -> Vec<Value> {
    let mut buf = String::new();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        while out.len() < n {
            let chunk = stream.next().await.expect("the stream goes on").unwrap();
            buf.push_str(std::str::from_utf8(&chunk).unwrap());
            while let Some(end) = buf.find("\n\n") {
                let event: String = buf.drain(..end + 2).collect();
                let data = event.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
                out.push(serde_json::from_str(data).unwrap());
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{n} events within 10 s; had {out:?}"));
    out
}

#[tokio::test]
async fn two_clients_share_one_process_each_with_its_own_session_and_ids() {
    let served = Served::start("scripted", &script()).unwrap();
    let (mut a, mut b) = (Client::new(&served), Client::new(&served));
    let first = a.initialize(json!(0)).await;
    let second = b.initialize(json!("init-b")).await;
    assert_ne!(a.session, b.session);
    assert_eq!(second["id"], "init-b");
    // B's initialize was answered from A's: the server saw one.
    assert_eq!(first["result"], second["result"]);
    assert_eq!(first["result"]["instructions"], "initialize number 1");

    // The same id from both, at once: each gets its own answer under its own id.
    let (from_a, from_b) = tokio::join!(
        a.call(json!(1), "echo", json!({"text": "a"})),
        b.call(json!(1), "echo", json!({"text": "b"})),
    );
    assert_eq!(from_a["id"], 1);
    assert_eq!(from_b["id"], 1);
    let (ta, tb) = (text(&from_a), text(&from_b));
    assert!(ta.starts_with("echo: a (sent as \"porthole-"), "{ta}");
    assert!(tb.starts_with("echo: b (sent as \"porthole-"), "{tb}");
    assert_ne!(ta.split("sent as").nth(1), tb.split("sent as").nth(1));

    let stats = text(&a.call(json!(2), "stats", json!({})).await);
    let stats: Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["initialize"], 1, "{stats}");
    assert_eq!(
        stats["initialized"], 1,
        "only the first notifications/initialized: {stats}"
    );
}

#[tokio::test]
async fn a_server_request_goes_to_the_stream_of_the_session_whose_call_is_in_flight() {
    let served = Served::start("scripted", &script()).unwrap();
    let (mut a, mut b) = (Client::new(&served), Client::new(&served));
    a.initialize(json!(0)).await;
    b.initialize(json!(0)).await;
    let mut a_stream = a.get().await.bytes_stream();
    let b_get = b.get().await;
    assert_eq!(b_get.status(), 200);
    assert_eq!(b_get.headers()["content-type"], "text/event-stream");
    let mut b_stream = b_get.bytes_stream();
    // One GET stream per session.
    assert_eq!(b.get().await.status(), 409);

    let b_session = b.session.clone().unwrap();
    let call = tokio::spawn(async move {
        let answer = b.call(json!(5), "ask", json!({})).await;
        (b, answer)
    });
    let got = events(&mut b_stream, 2).await;
    assert_eq!(got[0]["method"], "notifications/message");
    assert_eq!(got[1]["method"], "elicitation/create");
    assert_eq!(got[1]["id"], "question-1", "the server's own id, as it sent it");
    // B answers on a POST of its own; the answer passes through as it is.
    let http = client();
    let posted = http
        .post(served.url().clone())
        .header("mcp-session-id", &b_session)
        .json_body(&json!({"jsonrpc": "2.0", "id": "question-1", "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 202);
    let (_b, answer) = call.await.unwrap();
    assert_eq!(answer["id"], 5);
    assert!(text(&answer).contains("Ada"), "{answer}");
    // A's stream got none of it.
    let quiet = tokio::time::timeout(Duration::from_millis(300), a_stream.next()).await;
    assert!(quiet.is_err(), "A's stream stays quiet: {quiet:?}");
}

#[tokio::test]
async fn what_the_server_sends_before_a_stream_opens_is_held_for_it() {
    let served = Served::start("scripted", &script()).unwrap();
    let mut a = Client::new(&served);
    a.initialize(json!(0)).await;
    let url = served.url().clone();
    let session = a.session.clone().unwrap();
    let call = tokio::spawn(async move { a.call(json!(1), "ask", json!({})).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut stream = client()
        .get(url.clone())
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap()
        .bytes_stream();
    let got = events(&mut stream, 2).await;
    assert_eq!(got[0]["params"]["data"], "asking");
    assert_eq!(got[1]["method"], "elicitation/create");
    client()
        .post(url)
        .header("mcp-session-id", &session)
        .json_body(&json!({"jsonrpc": "2.0", "id": "question-1", "result": {"action": "decline"}}))
        .send()
        .await
        .unwrap();
    let answer = call.await.unwrap();
    assert!(text(&answer).contains("decline"), "{answer}");
}

#[tokio::test]
async fn a_cancellation_names_the_request_as_the_server_knows_it() {
    let served = Served::start("scripted", &script()).unwrap();
    let mut a = Client::new(&served);
    a.initialize(json!(0)).await;
    let (url, session) = (served.url().clone(), a.session.clone().unwrap());
    let waiting = tokio::spawn(async move {
        client()
            .post(url)
            .header("mcp-session-id", session)
            .json_body(
                &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "wait"}}),
            )
            .send()
            .await
            .unwrap()
            .text()
            .await
            .map(|t| serde_json::from_str::<Value>(&t).unwrap())
            .unwrap()
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, _, _) = a
        .post(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}))
        .await;
    assert_eq!(status, 202);
    a.call(json!(8), "release", json!({})).await;
    assert_eq!(waiting.await.unwrap()["id"], 7);
    let stats: Value = serde_json::from_str(&text(&a.call(json!(9), "stats", json!({})).await)).unwrap();
    let cancelled = stats["cancelled"].as_array().unwrap();
    assert_eq!(cancelled.len(), 1, "{stats}");
    assert!(cancelled[0].as_str().unwrap().starts_with("porthole-"), "{stats}");
}

#[tokio::test]
async fn sessions_are_asked_for_and_checked() {
    let served = Served::start("scripted", &script()).unwrap();
    let mut a = Client::new(&served);
    let (status, _, _) = a
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert_eq!(status, 400, "no session id");
    a.session = Some("made-up".into());
    let (status, _, _) = a
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert_eq!(status, 404, "an unknown session");
    let (status, _, _) = a
        .post(json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .await;
    assert_eq!(status, 400, "no batches");
}

#[tokio::test]
async fn the_process_exit_fails_what_waits_with_a_clear_error() {
    let served = Served::start("scripted", &script()).unwrap();
    let mut a = Client::new(&served);
    a.initialize(json!(0)).await;
    let mut stream = a.get().await.bytes_stream();
    let (url, session) = (served.url().clone(), a.session.clone().unwrap());
    let waiting = tokio::spawn(async move {
        client()
            .post(url)
            .header("mcp-session-id", session)
            .json_body(
                &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "wait"}}),
            )
            .send()
            .await
            .unwrap()
            .text()
            .await
            .map(|t| serde_json::from_str::<Value>(&t).unwrap())
            .unwrap()
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let exit = a.call(json!(8), "exit", json!({})).await;
    for answer in [exit, waiting.await.unwrap()] {
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("stdio server of `scripted`")
                && (message.contains("exited") || message.contains("closed its output")),
            "{answer}"
        );
    }
    let ended = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .unwrap();
    assert!(ended.is_none(), "the stream ends: {ended:?}");
    let again = a.call(json!(9), "echo", json!({"text": "x"})).await;
    assert!(again["error"]["message"].as_str().is_some(), "{again}");
    assert!(served.exited().is_some());
}

#[tokio::test]
async fn the_server_starts_in_the_directory_asked() {
    let dir = tempfile::tempdir().unwrap();
    let server = StdioServer {
        cwd: Some(dir.path().to_path_buf()),
        ..script()
    };
    let served = Served::start("scripted", &server).unwrap();
    let mut a = Client::new(&served);
    a.initialize(json!(0)).await;
    let cwd = text(&a.call(json!(1), "cwd", json!({})).await);
    assert_eq!(
        std::fs::canonicalize(cwd).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );
}
