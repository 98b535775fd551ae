//! The gateway's bounds on a server's questions, against a hostile server played by this test
//! (a few lines of streamable HTTP on 127.0.0.1 whose tool-call stream the test writes event
//! by event): malformed and oversized questions get a JSON-RPC error upstream, a completion
//! for an id never asked is ignored, one question is open at a time with a capped queue, and a
//! connection asks at most 10 a minute. The agent sees none of it.

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use porthole_connections::gateway::{
    Asker, BoxFuture, Gateway, McpCall, NoTokens, PassOwner, Questions, Unanswered, Upstream,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use url::Url;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// What the fake server saw, and the sender of its tool-call stream.
#[derive(Default)]
struct Seen {
    initialize: Mutex<Option<Value>>,
    /// The JSON-RPC responses posted to it (the gateway's answers).
    answers: Mutex<Vec<Value>>,
    stream: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    answered: tokio::sync::Notify,
    /// Serve a standalone GET stream (`send_standalone`) instead of 405.
    standalone: std::sync::atomic::AtomicBool,
    get: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    /// Tool calls of the `pay` tools so far.
    pay_calls: AtomicUsize,
    /// The `tools/call` requests of the `ask` tools (MCP 2026-07-28 `input_required`).
    ask_calls: Mutex<Vec<Value>>,
}

impl Seen {
    fn send(&self, message: Value) {
        let event = Bytes::from(format!("event: message\ndata: {message}\n\n"));
        let _ = self.stream.lock().unwrap().as_ref().unwrap().send(event);
    }
    fn send_standalone(&self, message: Value) {
        let event = Bytes::from(format!("data: {message}\n\n"));
        let _ = self.get.lock().unwrap().as_ref().unwrap().send(event);
    }
    fn close(&self) {
        self.stream.lock().unwrap().take();
    }
    fn answer(&self, id: &str) -> Option<Value> {
        self.answers
            .lock()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
    }
    async fn wait_answers(&self, n: usize) {
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let notified = self.answered.notified();
                if self.answers.lock().unwrap().len() >= n {
                    return;
                }
                notified.await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{n} answers within 10 s: {:?}", self.answers.lock().unwrap()));
    }
}

fn full(status: u16, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("mcp-session-id", "s1")
        .body(Full::new(Bytes::from(body)).boxed())
        .unwrap()
}

async fn handle(seen: Arc<Seen>, req: Request<hyper::body::Incoming>) -> Response<Body> {
    if req.method() == hyper::Method::GET {
        if !seen.standalone.load(Ordering::SeqCst) {
            // No standalone stream: the questions come on the tool call's stream.
            return full(405, String::new());
        }
        let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
        *seen.get.lock().unwrap() = Some(tx);
        return sse(rx);
    }
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let message: Value = serde_json::from_slice(&body).unwrap();
    match message["method"].as_str() {
        Some("initialize") => {
            *seen.initialize.lock().unwrap() = Some(message.clone());
            full(
                200,
                json!({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}})
                .to_string(),
            )
        }
        Some("tools/call")
            if message["params"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("pay")) =>
        {
            let id = &message["id"];
            if seen.pay_calls.fetch_add(1, Ordering::SeqCst) > 0 {
                let paid = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "paid"}]}});
                return full(200, paid.to_string());
            }
            let required = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32042,
                "message": "URL elicitation required", "data": {"elicitations": [{"mode": "url",
                "elicitationId": "p1", "url": message["params"]["arguments"]["url"],
                "message": "Confirm the payment"}]}}});
            if message["params"]["name"] == "pay-json" {
                return full(200, required.to_string());
            }
            let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
            let _ = tx.send(Bytes::from(format!("id: 1\ndata: {required}\n\n")));
            sse(rx)
        }
        Some("tools/call")
            if message["params"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("ask")) =>
        {
            seen.ask_calls.lock().unwrap().push(message.clone());
            let answer =
                json!({"jsonrpc": "2.0", "id": message["id"], "result": input_round(&message["params"])});
            if message["params"]["name"] == "ask-sse" {
                let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
                let _ = tx.send(Bytes::from(format!("data: {answer}\n\n")));
                return sse(rx);
            }
            full(200, answer.to_string())
        }
        Some("tools/call") if message["params"]["name"] == "big" => {
            let text = "x".repeat(3 * 1024 * 1024);
            let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}});
            full(200, result.to_string())
        }
        Some("tools/call") => {
            let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
            *seen.stream.lock().unwrap() = Some(tx);
            sse(rx)
        }
        Some(_) => full(202, String::new()),
        None => {
            seen.answers.lock().unwrap().push(message);
            seen.answered.notify_waiters();
            full(202, String::new())
        }
    }
}

/// The `ask` tools' result for a call with `params`, in the shapes of MCP 2026-07-28's
/// multi round-trip requests (modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr;
/// `InputRequiredResult` in `@modelcontextprotocol/server` 2.4.0: `resultType: "input_required"`,
/// `inputRequests` keyed by the server, `requestState` echoed on the retry beside
/// `inputResponses`, each a bare `ElicitResult`). `ask-json` / `ask-sse` ask a form, then a URL
/// (2026-07-28 URL requests carry no `elicitationId`), then answer; `ask-forever` always asks;
/// `ask-sampling` asks what the gateway cannot answer.
fn input_round(params: &Value) -> Value {
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let url = json!({"method": "elicitation/create", "params": {"mode": "url",
        "message": "Sign in", "url": "https://id.example.com/sign-in"}});
    let responses = &params["inputResponses"];
    match (params["name"].as_str().unwrap(), params["requestState"].as_str()) {
        ("ask-sampling", _) => json!({"resultType": "input_required", "inputRequests": {"s": {
            "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}}}}),
        ("ask-forever", _) => json!({"resultType": "input_required", "inputRequests": {"name": form}}),
        (_, None) => json!({"resultType": "input_required", "requestState": "round-1",
            "inputRequests": {"name": form}}),
        (_, Some("round-1")) if responses["name"]["action"] == "accept" => {
            json!({"resultType": "input_required", "requestState": "round-2", "inputRequests": {"site": url}})
        }
        (_, Some("round-2")) if responses["site"]["action"] == "accept" => {
            json!({"resultType": "complete", "content": [{"type": "text", "text": "signed in as x"}]})
        }
        (_, state) => {
            json!({"content": [{"type": "text", "text": format!("unexpected {state:?} {responses}")}], "isError": true})
        }
    }
}

fn sse(mut rx: mpsc::UnboundedReceiver<Bytes>) -> Response<Body> {
    let frames = futures::stream::poll_fn(move |cx| rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b)))));
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(StreamBody::new(frames).boxed())
        .unwrap()
}

async fn start_server() -> (Arc<Seen>, Url) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/mcp", listener.local_addr().unwrap())).unwrap();
    let seen = Arc::new(Seen::default());
    let shared = seen.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let seen = shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let seen = seen.clone();
                    async move { Ok::<_, Infallible>(handle(seen, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (seen, url)
}

/// Accepts every question after `delay`, counting them and how many were open at once.
#[derive(Default)]
struct Slow {
    asked: AtomicUsize,
    open: AtomicUsize,
    most_open: AtomicUsize,
    completed: Mutex<Vec<Value>>,
    urls: Mutex<Vec<String>>,
    /// The `mode` of each question, as the owner got it.
    modes: Mutex<Vec<Value>>,
    /// The tool call each question was tied to.
    calls: Mutex<Vec<Option<McpCall>>>,
}

impl Questions for Slow {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            self.asked.fetch_add(1, Ordering::SeqCst);
            self.calls.lock().unwrap().push(who.call.clone());
            self.modes.lock().unwrap().push(request["params"]["mode"].clone());
            if request["params"]["mode"] == "url" {
                let url = request["params"]["url"].as_str().unwrap().to_string();
                let declined = url.contains("decline");
                self.urls.lock().unwrap().push(url);
                return Ok(json!({"action": if declined { "decline" } else { "accept" }}));
            }
            let open = self.open.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_open.fetch_max(open, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(150)).await;
            self.open.fetch_sub(1, Ordering::SeqCst);
            Ok(json!({"action": "accept", "content": {"name": "x"}}))
        })
    }
    fn completed(&self, _: &Asker, notification: Value) {
        self.completed.lock().unwrap().push(notification);
    }
}

fn question(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {"mode": "form",
        "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

/// An agent with no elicitation: initialize, initialized, then a tool call whose stream the
/// test drives. Returns the tool call's answer body as the agent reads it, when it ends.
async fn agent_session(gateway_url: Url) -> tokio::task::JoinHandle<String> {
    agent_session_with(gateway_url, json!({"roots": {}})).await
}

/// The server answers the agent's tool call (id 1) and closes its streams: the agent's
/// session ends; what it read.
async fn end_tool_call(seen: &Seen, agent: tokio::task::JoinHandle<String>) -> String {
    seen.send(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
    seen.close();
    tokio::time::timeout(Duration::from_secs(10), agent)
        .await
        .unwrap()
        .unwrap()
}

/// `agent_session` for an agent that declares `capabilities`.
async fn agent_session_with(gateway_url: Url, capabilities: Value) -> tokio::task::JoinHandle<String> {
    let client = reqwest::Client::new();
    let post = |body: Value| {
        client
            .post(gateway_url.clone())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-session-id", "s1")
            .body(body.to_string())
            .send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "a", "version": "1"}}});
    assert_eq!(post(init).await.unwrap().status(), 200);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(initialized).await.unwrap().status(), 202);
    let call = post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}));
    let answer = call.await.unwrap();
    tokio::spawn(async move { answer.text().await.unwrap() })
}

async fn setup() -> (Arc<Seen>, Arc<Slow>, Gateway, porthole_connections::gateway::Pass) {
    setup_with(false, Duration::from_secs(120)).await
}

async fn setup_with(
    standalone: bool,
    url_wait: Duration,
) -> (Arc<Seen>, Arc<Slow>, Gateway, porthole_connections::gateway::Pass) {
    setup_owner(standalone, url_wait, true).await
}

async fn setup_owner(
    standalone: bool,
    url_wait: Duration,
    over_agent: bool,
) -> (Arc<Seen>, Arc<Slow>, Gateway, porthole_connections::gateway::Pass) {
    porthole_connections::http::install_crypto_provider();
    let (seen, url) = start_server().await;
    seen.standalone.store(standalone, Ordering::SeqCst);
    let gateway = Gateway::start(Arc::new(NoTokens("none".into()))).await.unwrap();
    let questions = Arc::new(Slow::default());
    let pass = gateway.open(
        vec![("hostile".into(), Upstream::Remote { url, headers: vec![] })],
        PassOwner {
            agent: "Agent".into(),
            questions: Some(questions.clone()),
            url_wait,
            over_agent,
            apps: None,
            cwd: None,
        },
    );
    (seen, questions, gateway, pass)
}

#[tokio::test]
async fn malformed_oversized_and_unknown_completions_are_refused_and_the_agent_sees_none() {
    let (seen, questions, _gateway, pass) = setup().await;
    let agent = agent_session(pass.url("hostile").unwrap()).await;
    // The agent's capabilities kept, elicitation added.
    assert_eq!(
        seen.initialize.lock().unwrap().as_ref().unwrap()["params"]["capabilities"],
        json!({"roots": {}, "elicitation": {"form": {}, "url": {}}})
    );

    seen.send(
        json!({"jsonrpc": "2.0", "id": "bad", "method": "elicitation/create", "params": {"mode": "form"}}),
    );
    let mut big = question("big");
    big["params"]["message"] = json!("x".repeat(70 * 1024));
    seen.send(big);
    seen.send(
        json!({"jsonrpc": "2.0", "id": "url", "method": "elicitation/create", "params": {"mode": "url",
        "message": "Sign in", "url": "https://example.com/login", "elicitationId": "e1"}}),
    );
    seen.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}));
    seen.wait_answers(3).await;
    assert_eq!(seen.answer("bad").unwrap()["error"]["code"], -32602);
    assert_eq!(seen.answer("big").unwrap()["error"]["code"], -32602);
    assert_eq!(seen.answer("url").unwrap()["result"]["action"], "accept");

    let complete = |id: &str| json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": id}});
    seen.send(complete("never-asked"));
    seen.send(complete("e1"));
    // A second completion of the same id is unknown by then.
    seen.send(complete("e1"));
    let body = end_tool_call(&seen, agent).await;
    assert!(!body.contains("elicitation"), "{body}");
    assert!(body.contains("notifications/progress"), "{body}");
    assert!(body.contains(r#""result":{"content":[]}"#), "{body}");
    assert_eq!(questions.asked.load(Ordering::SeqCst), 1);
    assert_eq!(*questions.completed.lock().unwrap(), vec![complete("e1")]);
}

/// An agent that declared elicitation itself: by default Porthole answers anyway (its dialog
/// names the server, and the server is told both modes); with `over_agent: false` (the setting "agent") the agent gets the
/// question as the server sent it, and Porthole none.
#[tokio::test]
async fn who_answers_when_the_agent_declared_elicitation_follows_the_owners_choice() {
    for over_agent in [true, false] {
        let (seen, questions, _gateway, pass) =
            setup_owner(false, Duration::from_secs(120), over_agent).await;
        let declared = json!({"elicitation": {"form": {}}});
        let agent = agent_session_with(pass.url("hostile").unwrap(), declared.clone()).await;
        // The agent's own declaration goes upstream as it was when the agent answers; when
        // Porthole answers over it, URL mode is added (Porthole answers both modes).
        let sent = if over_agent {
            json!({"elicitation": {"form": {}, "url": {}}})
        } else {
            declared
        };
        assert_eq!(
            seen.initialize.lock().unwrap().as_ref().unwrap()["params"]["capabilities"],
            sent
        );
        seen.send(question("q"));
        if over_agent {
            seen.wait_answers(1).await;
            assert_eq!(seen.answer("q").unwrap()["result"]["action"], "accept");
        }
        let body = end_tool_call(&seen, agent).await;
        let asked = questions.asked.load(Ordering::SeqCst);
        if over_agent {
            assert_eq!(asked, 1);
            assert!(!body.contains("elicitation/create"), "{body}");
        } else {
            assert_eq!(asked, 0);
            assert!(
                body.contains("elicitation/create"),
                "the agent did not get its question: {body}"
            );
        }
    }
}

#[tokio::test]
async fn one_question_open_at_a_time_a_capped_queue_and_ten_a_minute() {
    let (seen, questions, _gateway, pass) = setup().await;
    let agent = agent_session(pass.url("hostile").unwrap()).await;
    // Eight at once: one asked, four waiting, three declined at once.
    for i in 0..8 {
        seen.send(question(&format!("q{i}")));
    }
    seen.wait_answers(8).await;
    assert_eq!(questions.asked.load(Ordering::SeqCst), 5);
    assert_eq!(questions.most_open.load(Ordering::SeqCst), 1);
    let declined = seen
        .answers
        .lock()
        .unwrap()
        .iter()
        .filter(|a| a["result"]["action"] == "decline")
        .count();
    assert_eq!(declined, 3);
    // Eight asked this minute: two more may be, the rest are declined.
    for i in 8..12 {
        seen.send(question(&format!("q{i}")));
        seen.wait_answers(i + 1).await;
    }
    assert_eq!(questions.asked.load(Ordering::SeqCst), 7);
    for id in ["q10", "q11"] {
        assert_eq!(seen.answer(id).unwrap()["result"], json!({"action": "decline"}));
    }
    seen.close();
    let body = tokio::time::timeout(Duration::from_secs(10), agent)
        .await
        .unwrap()
        .unwrap();
    assert!(!body.contains("elicitation"), "{body}");
}

/// A tool call as the agent makes it, after initialize: its answer's body.
async fn call_tool(gateway_url: &Url, tool: &str, url: &str) -> String {
    let client = reqwest::Client::new();
    let post = |body: Value| {
        client
            .post(gateway_url.clone())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-session-id", "s1")
            .body(body.to_string())
            .send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}});
    post(init).await.unwrap();
    post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": {"url": url}}});
    post(call).await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn a_url_required_tool_call_is_asked_completed_and_retried_once_json_and_stream() {
    for tool in ["pay-json", "pay-sse"] {
        let (seen, questions, _gateway, pass) = setup_with(true, Duration::from_secs(10)).await;
        let url = pass.url("hostile").unwrap();
        let call =
            tokio::spawn(async move { call_tool(&url, tool, "https://pay.example.com/confirm").await });
        // The server completes once the person consented, on the gateway's own stream.
        tokio::time::timeout(Duration::from_secs(10), async {
            while questions.urls.lock().unwrap().is_empty() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap();
        seen.send_standalone(
            json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": "p1"}}),
        );
        let body = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .unwrap()
            .unwrap();
        assert!(body.contains(r#""text":"paid""#), "{tool}: {body}");
        assert!(!body.contains("-32042"), "{tool}: {body}");
        assert_eq!(seen.pay_calls.load(Ordering::SeqCst), 2, "{tool}: one retry");
        assert_eq!(
            *questions.urls.lock().unwrap(),
            ["https://pay.example.com/confirm"]
        );
        assert_eq!(questions.completed.lock().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn a_declined_or_never_completed_url_gives_the_agent_the_original_error_once() {
    for (tool, url) in [
        ("pay-json", "https://pay.example.com/decline"),
        ("pay-sse", "https://pay.example.com/decline"),
        ("pay-sse", "https://pay.example.com/never-completed"),
    ] {
        let (seen, questions, _gateway, pass) = setup_with(true, Duration::from_millis(500)).await;
        let body = tokio::time::timeout(
            Duration::from_secs(10),
            call_tool(&pass.url("hostile").unwrap(), tool, url),
        )
        .await
        .unwrap();
        assert_eq!(body.matches("-32042").count(), 1, "{tool} {url}: {body}");
        assert!(!body.contains("paid"), "{body}");
        assert_eq!(seen.pay_calls.load(Ordering::SeqCst), 1, "no retry");
        assert_eq!(questions.urls.lock().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn a_large_json_tool_result_passes_whole() {
    let (seen, _questions, _gateway, pass) = setup().await;
    let body = call_tool(&pass.url("hostile").unwrap(), "big", "").await;
    let message: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        message["result"]["content"][0]["text"].as_str().unwrap().len(),
        3 * 1024 * 1024
    );
    assert_eq!(seen.pay_calls.load(Ordering::SeqCst), 0);
}

/// MCP 2025-11-25 lets a form question leave `mode` out (the conformance suite's
/// `elicitation-sep1034-client-defaults` does): the owner gets it as a form question.
#[tokio::test]
async fn a_question_without_a_mode_is_a_form_question() {
    let (seen, questions, _gateway, pass) = setup().await;
    let agent = agent_session(pass.url("hostile").unwrap()).await;
    let mut q = question("no-mode");
    q["params"].as_object_mut().unwrap().remove("mode");
    seen.send(q);
    seen.wait_answers(1).await;
    assert_eq!(seen.answer("no-mode").unwrap()["result"]["action"], "accept");
    assert_eq!(*questions.modes.lock().unwrap(), vec![json!("form")]);
    end_tool_call(&seen, agent).await;
}

/// A question on the standalone stream while a tool call is in flight is asked; one after every
/// request of the session had its answer (the tool call that asked has ended) is declined
/// without asking the person.
#[tokio::test]
async fn a_question_after_the_tool_call_ended_is_declined_without_asking() {
    let (seen, questions, _gateway, pass) = setup_with(true, Duration::from_secs(120)).await;
    let url = pass.url("hostile").unwrap();
    let body = tokio::time::timeout(Duration::from_secs(10), call_tool(&url, "big", ""))
        .await
        .unwrap();
    assert!(body.len() > 3 * 1024 * 1024, "the call's answer came whole");
    // The gateway's own standalone stream is open by now (since `initialized`).
    tokio::time::timeout(Duration::from_secs(10), async {
        while seen.get.lock().unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    seen.send_standalone(question("late"));
    seen.wait_answers(1).await;
    assert_eq!(
        seen.answer("late").unwrap()["result"],
        json!({"action": "decline"})
    );
    assert_eq!(questions.asked.load(Ordering::SeqCst), 0, "the person was asked");

    // The same stream while a call is in flight: asked.
    let agent = agent_session(url).await;
    seen.send_standalone(question("during"));
    seen.wait_answers(2).await;
    assert_eq!(seen.answer("during").unwrap()["result"]["action"], "accept");
    assert_eq!(questions.asked.load(Ordering::SeqCst), 1);
    seen.close();
    let _ = tokio::time::timeout(Duration::from_secs(10), agent).await;
}

/// MCP 2026-07-28: a tool call answered `input_required` is asked through the owner's dialogs
/// (a form, then a URL in a second round) and retried with the same arguments plus
/// `inputResponses` and the echoed `requestState`; the agent gets the last answer only.
#[tokio::test]
async fn an_input_required_result_is_asked_and_retried_with_the_answers_json_and_stream() {
    for tool in ["ask-json", "ask-sse"] {
        let (seen, questions, _gateway, pass) = setup().await;
        let body = tokio::time::timeout(
            Duration::from_secs(10),
            call_tool(&pass.url("hostile").unwrap(), tool, "kept"),
        )
        .await
        .unwrap();
        assert!(body.contains("signed in as x"), "{tool}: {body}");
        assert!(!body.contains("input_required"), "{tool}: {body}");
        let calls = seen.ask_calls.lock().unwrap().clone();
        assert_eq!(calls.len(), 3, "{tool}: the call and two rounds");
        for call in &calls {
            assert_eq!(call["params"]["arguments"], json!({"url": "kept"}), "{tool}");
            assert_eq!(call["id"], 7, "{tool}");
        }
        assert_eq!(calls[1]["params"]["requestState"], "round-1");
        assert_eq!(
            calls[1]["params"]["inputResponses"],
            json!({"name": {"action": "accept", "content": {"name": "x"}}})
        );
        assert_eq!(calls[2]["params"]["requestState"], "round-2");
        assert_eq!(
            calls[2]["params"]["inputResponses"],
            json!({"site": {"action": "accept"}})
        );
        assert_eq!(questions.asked.load(Ordering::SeqCst), 2);
        assert_eq!(
            *questions.urls.lock().unwrap(),
            ["https://id.example.com/sign-in"]
        );
    }
}

/// A server that keeps asking gets at most `ROUNDS` (4) retries, then the agent its last
/// result; one asking what Porthole cannot answer (sampling) is passed on untouched.
#[tokio::test]
async fn input_required_rounds_are_capped_and_unanswerable_requests_pass_through() {
    let (seen, questions, _gateway, pass) = setup().await;
    let body = call_tool(&pass.url("hostile").unwrap(), "ask-forever", "").await;
    assert!(body.contains("input_required"), "{body}");
    assert_eq!(seen.ask_calls.lock().unwrap().len(), 5, "the call and 4 rounds");
    assert_eq!(questions.asked.load(Ordering::SeqCst), 4);

    let (seen, questions, _gateway, pass) = setup().await;
    let body = call_tool(&pass.url("hostile").unwrap(), "ask-sampling", "").await;
    assert!(body.contains("sampling/createMessage"), "{body}");
    assert_eq!(seen.ask_calls.lock().unwrap().len(), 1);
    assert_eq!(questions.asked.load(Ordering::SeqCst), 0);
}

/// A question that comes on a tool call's own stream is that call's: the owner is told which
/// call (the tool and its arguments), to show it under the agent's ACP tool call.
#[tokio::test]
async fn a_question_on_a_tool_calls_stream_names_that_call() {
    let (seen, questions, _gateway, pass) = setup().await;
    let agent = agent_session(pass.url("hostile").unwrap()).await;
    seen.send(question("q"));
    seen.wait_answers(1).await;
    end_tool_call(&seen, agent).await;
    assert_eq!(
        *questions.calls.lock().unwrap(),
        [Some(McpCall {
            tool: "t".into(),
            arguments: Value::Null
        })]
    );
}
