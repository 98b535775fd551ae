//! An agent that drops a tool call's stream and comes back with `Last-Event-ID` (MCP streamable
//! HTTP, "Resumability and Redelivery") while the gateway answers the server's questions and a
//! -32042 for it. The server, played by this test, keeps every event of the call's stream and
//! replays those after the agent's last id, as the official TypeScript SDK's event store does.
//! The replay must ask the person nothing twice, answer the server nothing twice, and give the
//! agent the retry's answer in place of the -32042 the gateway resolved (or the original error,
//! once, when the person declined).

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use porthole_connections::gateway::{
    Asker, BoxFuture, Gateway, NoTokens, PassOwner, Questions, Unanswered, Upstream,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use url::Url;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The server: the first `pay` call's stream, kept for replays; its standalone stream.
#[derive(Default)]
struct Server {
    /// The first call's events so far, with their ids.
    events: Mutex<Vec<(String, Bytes)>>,
    live: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    standalone: Mutex<Option<mpsc::UnboundedSender<Bytes>>>,
    /// JSON-RPC responses posted to it (the gateway's answers to its questions).
    answers: Mutex<Vec<Value>>,
    pay_calls: AtomicUsize,
    /// The `Last-Event-ID` of each replay asked for.
    replays: Mutex<Vec<String>>,
}

impl Server {
    /// An event of the first call's stream: kept, and sent if the stream is still open.
    fn push(&self, id: &str, message: Option<Value>) {
        let data = message.map(|m| m.to_string()).unwrap_or_default();
        let event = Bytes::from(format!("id: {id}\nevent: message\ndata: {data}\n\n"));
        self.events.lock().unwrap().push((id.to_string(), event.clone()));
        if let Some(live) = self.live.lock().unwrap().as_ref() {
            let _ = live.send(event);
        }
    }

    fn end_stream(&self) {
        self.live.lock().unwrap().take();
    }

    fn complete(&self, elicitation_id: &str) {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": elicitation_id}});
        let standalone = self.standalone.lock().unwrap();
        let _ = standalone
            .as_ref()
            .unwrap()
            .send(Bytes::from(format!("data: {note}\n\n")));
    }

    fn answers_to(&self, id: &str) -> usize {
        self.answers
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a["id"] == id)
            .count()
    }
}

fn json_response(status: u16, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("mcp-session-id", "s1")
        .body(Full::new(Bytes::from(body)).boxed())
        .unwrap()
}

fn sse(mut rx: mpsc::UnboundedReceiver<Bytes>) -> Response<Body> {
    let frames = futures::stream::poll_fn(move |cx| rx.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b)))));
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("mcp-session-id", "s1")
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap()
}

async fn handle(server: Arc<Server>, req: Request<hyper::body::Incoming>) -> Response<Body> {
    if req.method() == hyper::Method::GET {
        let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
        match req.headers().get("last-event-id").and_then(|v| v.to_str().ok()) {
            Some(last) => {
                server.replays.lock().unwrap().push(last.to_string());
                let events = server.events.lock().unwrap();
                let after = events.iter().skip_while(|(id, _)| id != last).skip(1);
                for (_, event) in after {
                    let _ = tx.send(event.clone());
                }
                // The replay ends here (dropping `tx`): the call's stream had ended.
            }
            None => *server.standalone.lock().unwrap() = Some(tx),
        }
        return sse(rx);
    }
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let message: Value = serde_json::from_slice(&body).unwrap();
    match message["method"].as_str() {
        Some("initialize") => json_response(
            200,
            json!({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "resumable", "version": "1"}}})
            .to_string(),
        ),
        Some("tools/call") => {
            if server.pay_calls.fetch_add(1, Ordering::SeqCst) > 0 {
                let paid = json!({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"content": [{"type": "text", "text": "paid"}]}});
                return json_response(200, paid.to_string());
            }
            let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
            *server.live.lock().unwrap() = Some(tx);
            // The priming event a resumable server starts a stream with.
            server.push("c1", None);
            sse(rx)
        }
        Some(_) => json_response(202, String::new()),
        None => {
            server.answers.lock().unwrap().push(message);
            json_response(202, String::new())
        }
    }
}

async fn start_server() -> (Arc<Server>, Url) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/mcp", listener.local_addr().unwrap())).unwrap();
    let server = Arc::new(Server::default());
    let shared = server.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let server = shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let server = server.clone();
                    async move { Ok::<_, Infallible>(handle(server, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (server, url)
}

/// The person: accepts forms; accepts a URL unless it says "decline".
#[derive(Default)]
struct Person {
    forms: AtomicUsize,
    urls: AtomicUsize,
}

impl Questions for Person {
    fn ask<'a>(&'a self, _: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            if request["params"]["mode"] == "url" {
                self.urls.fetch_add(1, Ordering::SeqCst);
                let declined = request["params"]["url"].as_str().unwrap().contains("decline");
                return Ok(json!({"action": if declined { "decline" } else { "accept" }}));
            }
            self.forms.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"action": "accept", "content": {"name": "x"}}))
        })
    }
    fn completed(&self, _: &Asker, _: Value) {}
}

async fn eventually(what: &str, check: impl Fn() -> bool) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !check() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} within 10 s"));
}

/// The agent (no elicitation of its own) calls `pay` and drops the call's stream after its
/// first event.
async fn call_and_leave(client: &reqwest::Client, gateway: &Url, confirm_url: &str) {
    let post = |body: Value| {
        client
            .post(gateway.clone())
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
        "params": {"name": "pay", "arguments": {"url": confirm_url}}});
    let answer = post(call).await.unwrap();
    let mut body = answer.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), body.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(String::from_utf8_lossy(&first).contains("id: c1"));
    // Gone: the connection drops with the stream.
}

/// The agent comes back: GET with `Last-Event-ID: c1`; what it reads.
async fn resume(client: &reqwest::Client, gateway: &Url) -> String {
    let replay = client
        .get(gateway.clone())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "s1")
        .header("last-event-id", "c1")
        .send()
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), replay.text())
        .await
        .expect("the replay ends")
        .unwrap()
}

fn form_question() -> Value {
    json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create", "params": {"mode": "form",
        "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

fn url_required(confirm_url: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32042, "message": "URL elicitation required",
        "data": {"elicitations": [{"mode": "url", "elicitationId": "p1", "url": confirm_url,
        "message": "Confirm the payment"}]}}})
}

/// The agent leaves after the first event; the server asks a form question, then answers
/// -32042; the person answers both. `back_early`: the agent resumes while the gateway still
/// waits for the server's completion, else after the retry. What the agent's replay read.
async fn left_and_resumed(confirm_url: &str, back_early: bool) -> (Arc<Server>, Arc<Person>, String) {
    porthole_connections::http::install_crypto_provider();
    let (server, url) = start_server().await;
    let gateway = Gateway::start(Arc::new(NoTokens("none".into()))).await.unwrap();
    let person = Arc::new(Person::default());
    let pass = gateway.open(
        vec![("pay".into(), Upstream::Remote { url, headers: vec![] })],
        PassOwner {
            agent: "Agent".into(),
            questions: Some(person.clone()),
            url_wait: Duration::from_secs(10),
            over_agent: true,
            apps: None,
            cwd: None,
        },
    );
    let gateway_url = pass.url("pay").unwrap();
    let client = reqwest::Client::new();
    call_and_leave(&client, &gateway_url, confirm_url).await;

    // The gateway keeps reading the call's stream for the agent that left.
    server.push("c2", Some(form_question()));
    eventually("the form answered", || server.answers_to("q1") == 1).await;
    server.push("c3", Some(url_required(confirm_url)));
    server.end_stream();
    eventually("the URL asked", || person.urls.load(Ordering::SeqCst) == 1).await;

    let declined = confirm_url.contains("decline");
    let read = if back_early && !declined {
        let replay = tokio::spawn({
            let gateway_url = gateway_url.clone();
            async move { resume(&client, &gateway_url).await }
        });
        eventually("the replay asked for", || {
            server.replays.lock().unwrap().len() == 1
        })
        .await;
        server.complete("p1");
        replay.await.unwrap()
    } else {
        if !declined {
            server.complete("p1");
            eventually("the retry", || server.pay_calls.load(Ordering::SeqCst) == 2).await;
        }
        resume(&client, &gateway_url).await
    };
    drop(pass);
    (server, person, read)
}

#[tokio::test]
async fn an_agent_back_with_last_event_id_gets_the_retrys_answer_and_nothing_is_asked_twice() {
    for back_early in [false, true] {
        let (server, person, read) = left_and_resumed("https://pay.example.com/confirm", back_early).await;
        assert!(
            read.contains(r#""text":"paid""#),
            "back early {back_early}: {read}"
        );
        // In the -32042's place, under its id: an agent that reads it resumes after it.
        assert!(read.contains("id: c3\n"), "{read}");
        assert!(!read.contains("-32042"), "{read}");
        assert!(!read.contains("elicitation/create"), "{read}");
        assert_eq!(person.forms.load(Ordering::SeqCst), 1, "the form asked once");
        assert_eq!(person.urls.load(Ordering::SeqCst), 1, "the URL asked once");
        assert_eq!(server.answers_to("q1"), 1, "the server answered once");
        assert_eq!(server.pay_calls.load(Ordering::SeqCst), 2, "one retry");
    }
}

#[tokio::test]
async fn an_agent_back_after_a_declined_url_gets_the_original_error_once() {
    let (server, person, read) = left_and_resumed("https://pay.example.com/decline", false).await;
    assert_eq!(read.matches("-32042").count(), 1, "{read}");
    assert!(!read.contains("elicitation/create"), "{read}");
    assert_eq!(person.forms.load(Ordering::SeqCst), 1);
    assert_eq!(server.answers_to("q1"), 1);
    assert_eq!(server.pay_calls.load(Ordering::SeqCst), 1, "no retry");
}
