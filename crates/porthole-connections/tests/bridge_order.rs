//! The stdio bridge (`porthole-cli mcp bridge`) against a server that, like the official
//! Python SDK's, refuses a request that arrives before its session's
//! `notifications/initialized` has been handled; the bridge posts in stdin's order. And a
//! tool call whose event stream ends before its answer (the conformance suite's `sse-retry`):
//! the bridge waits the server's `retry` and resumes with `Last-Event-ID`.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use url::Url;

#[derive(Default)]
struct Seen {
    initialized: bool,
    /// What the server did with each message, in order.
    log: Vec<String>,
    /// The tool call whose stream ended early, and when.
    pending: Option<(Value, std::time::Instant)>,
}

async fn handle(seen: Arc<Mutex<Seen>>, req: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let reply = |status: u16, body: String| {
        Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .header("mcp-session-id", "s1")
            .body(Full::new(Bytes::from(body)))
            .unwrap()
    };
    let sse = |body: String| {
        Response::builder()
            .status(200)
            .header("content-type", "text/event-stream")
            .header("mcp-session-id", "s1")
            .body(Full::new(Bytes::from(body)))
            .unwrap()
    };
    if req.method() == hyper::Method::GET {
        let last = req
            .headers()
            .get("last-event-id")
            .map(|v| v.to_str().unwrap().to_string());
        let mut s = seen.lock().unwrap();
        // The standalone stream (no Last-Event-ID): this server has none.
        let Some((id, ended)) = s.pending.take_if(|_| last.is_some()) else {
            return reply(405, String::new());
        };
        let waited = ended.elapsed().as_millis();
        s.log.push(format!(
            "GET after {} Last-Event-ID {last:?}",
            if waited >= 200 { "retry" } else { "too soon" }
        ));
        let answer =
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "resumed"}]}});
        return sse(format!("id: e2\ndata: {answer}\n\n"));
    }
    if req.method() != hyper::Method::POST {
        return reply(405, String::new());
    }
    let body = req.into_body().collect().await.unwrap().to_bytes();
    let message: Value = serde_json::from_slice(&body).unwrap();
    let method = message["method"].as_str().unwrap_or("").to_string();
    match method.as_str() {
        "initialize" => {
            seen.lock().unwrap().log.push(method);
            reply(
                200,
                json!({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}}, "serverInfo": {"name": "strict", "version": "1"}}})
                .to_string(),
            )
        }
        "notifications/initialized" => {
            // Handled slowly: a request posted meanwhile finds the session not initialized.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let mut s = seen.lock().unwrap();
            s.initialized = true;
            s.log.push(method);
            reply(202, String::new())
        }
        "tools/call" => {
            // A priming event with an id and a retry wait, then the stream ends unanswered.
            let mut s = seen.lock().unwrap();
            s.log.push(method);
            s.pending = Some((message["id"].clone(), std::time::Instant::now()));
            sse("id: e1\nretry: 200\ndata: \n\n".into())
        }
        _ => {
            let mut s = seen.lock().unwrap();
            if !s.initialized {
                s.log.push(format!("refused {method}"));
                return reply(
                    400,
                    json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32602, "message": "Received request before initialization was complete"}}).to_string(),
                );
            }
            s.log.push(method);
            reply(
                200,
                json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}).to_string(),
            )
        }
    }
}

async fn serve() -> (Arc<Mutex<Seen>>, Url) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let served = seen.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let seen = served.clone();
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
    (seen, Url::parse(&format!("http://{addr}/mcp")).unwrap())
}

fn handshake() -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

/// The bridge over `messages` as its stdin; what it wrote on stdout.
async fn bridge(url: &Url, messages: &[Value]) -> String {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let (output, mut read_output) = tokio::io::duplex(1 << 16);
    let bridge = porthole_connections::bridge::http_with(url, input.as_bytes(), output);
    tokio::time::timeout(Duration::from_secs(10), bridge)
        .await
        .unwrap()
        .unwrap();
    let mut out = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut read_output, &mut out)
        .await
        .unwrap();
    out
}

#[tokio::test]
async fn requests_reach_the_server_after_notifications_initialized_in_stdin_order() {
    let (seen, url) = serve().await;
    let input = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    let out = bridge(&url, &input).await;
    assert_eq!(
        seen.lock().unwrap().log,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list"
        ]
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("error"), "{out}");
}

#[tokio::test]
async fn a_stream_that_ends_before_its_answer_is_resumed_after_retry_with_last_event_id() {
    let (seen, url) = serve().await;
    let [init, initialized] = handshake();
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t"}});
    let out = bridge(&url, &[init, initialized, call]).await;
    assert!(
        out.lines()
            .any(|l| l.contains(r#""id":7"#) && l.contains("resumed")),
        "{out}"
    );
    assert_eq!(
        seen.lock().unwrap().log,
        [
            "initialize",
            "notifications/initialized",
            "tools/call",
            r#"GET after retry Last-Event-ID Some("e1")"#
        ]
    );
}
