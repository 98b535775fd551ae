//! The MCP bridge an agent starts as a stdio server (`porthole-cli mcp bridge URL`, or the
//! app's `porthole mcp-bridge URL`) for agents that take only stdio servers, and for stdio
//! servers the gateway hosts. It holds no secret: only the gateway address of its session.
//!
//! - HTTP mode: each line on stdin is POSTed to the gateway (MCP streamable HTTP) in stdin's
//!   order; JSON and Server-Sent Event answers come back as lines on stdout, and server
//!   messages outside a request arrive on the GET stream. An event stream that ends before
//!   its request's answer is resumed (`Last-Event-ID`, after the server's `retry`).
//! - Pipe mode (`--pipe`): an HTTP upgrade to the gateway's stdio host, then bytes both ways.
//!
//! Event streams are parsed by `eventsource-stream` (see `Resumption`). rmcp's streamable HTTP
//! client transport was the other candidate; it does not fit a bridge: it parses every message
//! into its own JSON-RPC types (an extension's or a newer revision's message would be changed
//! or refused, where the bridge passes lines through as they are) and expects to be the MCP
//! client itself, while here the agent is.

use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use eventsource_stream::{Event, Eventsource};
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use url::Url;

use crate::http::is_loopback;

/// A line the bridge takes from its client; longer ones are refused with an error line.
const LINE_CAP: usize = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("the bridge only connects to Porthole's gateway on loopback, not {0}")]
    NotLoopback(Url),
    #[error("cannot reach Porthole's gateway at {0}: {1}")]
    Connect(Url, String),
    #[error("Porthole's gateway refused the pipe: {0}")]
    Refused(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The whole bridge command, blocking: what each front end's `mcp-bridge` runs, on this
/// process's stdin and stdout.
pub fn run_blocking(url: &str, pipe: bool) -> Result<(), String> {
    let url = Url::parse(url).map_err(|e| format!("{url} is not a URL: {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let result = runtime.block_on(async {
        if pipe {
            self::pipe(&url).await
        } else {
            http(&url).await
        }
    });
    // The read of stdin may block a thread until the agent writes or closes it.
    runtime.shutdown_background();
    result.map_err(|e| e.to_string())
}

/// Pipe mode over the process's stdin and stdout.
pub async fn pipe(url: &Url) -> Result<(), BridgeError> {
    pipe_with(url, tokio::io::stdin(), tokio::io::stdout()).await
}

pub async fn pipe_with<R, W>(url: &Url, mut input: R, mut output: W) -> Result<(), BridgeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let addr = loopback_addr(url)?;
    let mut stream = TcpStream::connect(&addr)
        .await
        .map_err(|e| BridgeError::Connect(url.clone(), e.to_string()))?;
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {addr}\r\nConnection: upgrade\r\nUpgrade: {}\r\n\r\n",
        url.path(),
        crate::gateway::UPGRADE
    );
    stream.write_all(request.as_bytes()).await?;
    // Read the answer's head; whatever follows it is the server's first output.
    let mut head = BytesMut::new();
    let end = loop {
        if head.len() > 64 * 1024 {
            return Err(BridgeError::Refused("an endless answer".into()));
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(BridgeError::Refused("the gateway closed the connection".into()));
        }
        head.extend_from_slice(&chunk[..n]);
        if let Some(at) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let text = String::from_utf8_lossy(&head[..end]);
    let status = text.lines().next().unwrap_or("");
    if !status.contains(" 101 ") {
        let body = String::from_utf8_lossy(&head[end..]);
        return Err(BridgeError::Refused(
            format!("{status} {body}").trim().to_string(),
        ));
    }
    output.write_all(&head[end..]).await?;
    output.flush().await?;
    let (mut from_gateway, mut to_gateway) = stream.into_split();
    let up = async {
        tokio::io::copy(&mut input, &mut to_gateway).await?;
        to_gateway.shutdown().await
    };
    let down = async {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = from_gateway.read(&mut buf).await?;
            if n == 0 {
                return Ok::<_, std::io::Error>(());
            }
            output.write_all(&buf[..n]).await?;
            output.flush().await?;
        }
    };
    // Our stdin's end only closes the way up; the server's output is read to its end.
    tokio::pin!(down);
    tokio::select! {
        r = &mut down => r?,
        r = up => {
            r?;
            down.await?;
        }
    }
    Ok(())
}

fn loopback_addr(url: &Url) -> Result<String, BridgeError> {
    if url.scheme() != "http" || !is_loopback(url) {
        return Err(BridgeError::NotLoopback(url.clone()));
    }
    let host = url.host_str().unwrap_or("127.0.0.1");
    let port = url.port_or_known_default().unwrap_or(80);
    Ok(format!("{host}:{port}"))
}

/// HTTP mode over the process's stdin and stdout.
pub async fn http(url: &Url) -> Result<(), BridgeError> {
    http_with(url, tokio::io::stdin(), tokio::io::stdout()).await
}

#[derive(Default)]
struct Session {
    id: Option<String>,
    protocol: Option<String>,
    listening: bool,
}

pub async fn http_with<R, W>(url: &Url, input: R, output: W) -> Result<(), BridgeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    loopback_addr(url)?;
    let client = crate::http::gateway_client();
    let session = Arc::new(Mutex::new(Session::default()));
    let (lines, mut to_write) = mpsc::channel::<String>(256);
    // Set once the client closed its stdin: from then on only answers to its requests are
    // written. A client that closed is done reading the server's notifications and requests,
    // and one more line can break it (the Python SDK's stdio client fails its whole session
    // with `BrokenResourceError` on a line read after it closed: Mistral Vibe did, with
    // server-everything's log notifications).
    let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer_closed = closed.clone();
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = to_write.recv().await {
            if writer_closed.load(std::sync::atomic::Ordering::SeqCst) && !is_answer(&line) {
                continue;
            }
            if output.write_all(line.as_bytes()).await.is_err() || output.write_all(b"\n").await.is_err() {
                break;
            }
            let _ = output.flush().await;
        }
    });
    let mut input = BufReader::new(input);
    let mut in_flight = tokio::task::JoinSet::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut input)
            .take(LINE_CAP as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
            break;
        }
        if line.len() > LINE_CAP {
            // Skip the rest of this line; the client gets nothing for it (no id to answer).
            let mut rest = Vec::new();
            input.read_until(b'\n', &mut rest).await?;
            continue;
        }
        let text = String::from_utf8_lossy(&line).trim().to_string();
        if text.is_empty() {
            continue;
        }
        // One ordered sender: the next line is posted once this one has reached the server
        // (its answer's head is back), so the server gets them in stdin's order: `initialize`
        // before anything, `notifications/initialized` before any request. Other messages
        // wait at most ORDER_WAIT, so a server that answers a request only when it is done
        // (a JSON answer) cannot hold a cancellation back.
        let handshake = is_handshake(&text);
        let (reached, reached_rx) = tokio::sync::oneshot::channel();
        let (client, url, session, lines) = (client.clone(), url.clone(), session.clone(), lines.clone());
        in_flight.spawn(async move { post(&client, &url, &session, text, &lines, reached).await });
        if handshake {
            let _ = reached_rx.await;
        } else {
            let _ = tokio::time::timeout(ORDER_WAIT, reached_rx).await;
        }
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
    let id = session.lock().expect("bridge session").id.clone();
    if let Some(id) = id {
        let _ = client
            .delete(url.clone())
            .header("mcp-session-id", id)
            .send()
            .await;
    }
    drop(lines);
    let _ = writer.await;
    Ok(())
}

/// How long the next line waits for the one before it to reach the server (after the
/// handshake, which always waits).
const ORDER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// A JSON-RPC answer (an id and a result or an error, no method): what the client still waits
/// for after it closed its stdin.
fn is_answer(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok_and(|m| {
        m.get("method").is_none()
            && m.get("id").is_some()
            && (m.get("result").is_some() || m.get("error").is_some())
    })
}

/// `initialize` or `notifications/initialized`: the session's handshake.
fn is_handshake(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok_and(|m| {
        matches!(
            m.get("method").and_then(|m| m.as_str()),
            Some("initialize" | "notifications/initialized")
        )
    })
}

/// Post one message; `reached` is told (or dropped) once the server's answer head is back.
async fn post(
    client: &reqwest::Client,
    url: &Url,
    session: &Mutex<Session>,
    body: String,
    lines: &mpsc::Sender<String>,
    reached: tokio::sync::oneshot::Sender<()>,
) {
    let message: Option<serde_json::Value> = serde_json::from_str(&body).ok();
    let id = message
        .as_ref()
        .filter(|m| m.get("method").is_some())
        .and_then(|m| m.get("id").cloned());
    let method = message.as_ref().and_then(|m| m.get("method"));
    let is_initialized = method.is_some_and(|m| m == "notifications/initialized");
    let is_initialize = method.is_some_and(|m| m == "initialize");
    let mut request = client
        .post(url.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body);
    {
        let s = session.lock().expect("bridge session");
        if let Some(sid) = &s.id {
            request = request.header("mcp-session-id", sid);
        }
        if let Some(v) = &s.protocol {
            request = request.header("mcp-protocol-version", v);
        }
    }
    let answer = match request.send().await {
        Ok(a) => a,
        Err(e) => return fail(lines, id, format!("Porthole's gateway is unreachable: {e}")).await,
    };
    if let Some(sid) = answer
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        session.lock().expect("bridge session").id = Some(sid.to_string());
    }
    // `initialize` reaches the server with its whole answer: the next message carries the
    // protocol version it chose.
    let reached = match is_initialize {
        true => Some(reached),
        false => {
            let _ = reached.send(());
            None
        }
    };
    let status = answer.status();
    if !status.is_success() {
        let text = answer.text().await.unwrap_or_default();
        let text: String = text.chars().take(500).collect();
        return fail(
            lines,
            id,
            format!("the connection answered HTTP {status}: {text}"),
        )
        .await;
    }
    if is_initialized {
        start_listening(client, url, session, lines);
    }
    let mut resumption = Resumption::default();
    let answered = pump(answer, session, lines, &mut resumption, id.as_ref()).await;
    drop(reached);
    if let Some(id) = id.filter(|_| !answered) {
        resume(client, url, session, lines, resumption, &id).await;
    }
}

/// At most this many reconnections for one request's answer.
const RESUMPTIONS: usize = 5;
/// The wait before reconnecting when the server gave no `retry`.
const DEFAULT_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// MCP 2025-11-25 "Resumability and Redelivery": an event stream that ended before the answer
/// to its request is taken up again with a GET carrying `Last-Event-ID`, after the server's
/// `retry` wait, until the answer comes (a few times at most). A stream that gave no event id
/// cannot be resumed; the client is told its request got no answer.
async fn resume(
    client: &reqwest::Client,
    url: &Url,
    session: &Mutex<Session>,
    lines: &mpsc::Sender<String>,
    mut resumption: Resumption,
    id: &serde_json::Value,
) {
    for _ in 0..RESUMPTIONS {
        let Some(last) = resumption.last_id.clone() else {
            break;
        };
        tokio::time::sleep(resumption.retry.unwrap_or(DEFAULT_RETRY)).await;
        let mut request = client
            .get(url.clone())
            .header("Accept", "text/event-stream")
            .header("Last-Event-ID", last);
        {
            let s = session.lock().expect("bridge session");
            if let Some(sid) = &s.id {
                request = request.header("mcp-session-id", sid);
            }
            if let Some(v) = &s.protocol {
                request = request.header("mcp-protocol-version", v);
            }
        }
        match request.send().await {
            Ok(answer) if answer.status().is_success() => {
                if pump(answer, session, lines, &mut resumption, Some(id)).await {
                    return;
                }
            }
            _ => break,
        }
    }
    fail(
        lines,
        Some(id.clone()),
        "the server's answer stream ended before its answer".into(),
    )
    .await;
}

/// Once the session is initialized, its server may speak first: the GET stream (a 405 means
/// the server has none, which is fine).
fn start_listening(
    client: &reqwest::Client,
    url: &Url,
    session: &Mutex<Session>,
    lines: &mpsc::Sender<String>,
) {
    let mut request = client.get(url.clone()).header("Accept", "text/event-stream");
    {
        let mut s = session.lock().expect("bridge session");
        if s.listening {
            return;
        }
        s.listening = true;
        if let Some(sid) = &s.id {
            request = request.header("mcp-session-id", sid);
        }
        if let Some(v) = &s.protocol {
            request = request.header("mcp-protocol-version", v);
        }
    }
    let lines = lines.clone();
    tokio::spawn(async move {
        if let Ok(answer) = request.send().await
            && answer.status().is_success()
        {
            let session = Mutex::new(Session::default());
            pump(answer, &session, &lines, &mut Resumption::default(), None).await;
        }
    });
}

/// Pass an answer's messages on as lines: a JSON body whole, an event stream event by event.
/// True when the answer to `request` (a response with its id) was among them.
async fn pump(
    answer: reqwest::Response,
    session: &Mutex<Session>,
    lines: &mpsc::Sender<String>,
    resumption: &mut Resumption,
    request: Option<&serde_json::Value>,
) -> bool {
    let is_stream = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_stream {
        // A JSON body (or 202 with none) is the whole answer: nothing to resume.
        if let Ok(bytes) = answer.bytes().await
            && !bytes.is_empty()
        {
            emit(&bytes, session, lines).await;
        }
        return true;
    }
    let mut answered = false;
    let mut events = answer.bytes_stream().eventsource();
    // A transport error or a stream that is not UTF-8 ends it, as its end would.
    while let Some(Ok(event)) = events.next().await {
        if let Some(data) = resumption.note(&event)
            && let Some(value) = emit(data.as_bytes(), session, lines).await
            && request.is_some_and(|id| is_answer_to(&value, id))
        {
            answered = true;
        }
    }
    answered
}

/// A JSON-RPC response (not a request) with this id.
fn is_answer_to(value: &serde_json::Value, id: &serde_json::Value) -> bool {
    value.get("method").is_none()
        && value.get("id") == Some(id)
        && (value.get("result").is_some() || value.get("error").is_some())
}

async fn emit(
    json: &[u8],
    session: &Mutex<Session>,
    lines: &mpsc::Sender<String>,
) -> Option<serde_json::Value> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(json) else {
        tracing::warn!("the MCP bridge dropped a message that is not JSON");
        return None;
    };
    if let Some(v) = value.pointer("/result/protocolVersion").and_then(|v| v.as_str()) {
        session.lock().expect("bridge session").protocol = Some(v.to_string());
    }
    let _ = lines.send(value.to_string()).await;
    Some(value)
}

async fn fail(lines: &mpsc::Sender<String>, id: Option<serde_json::Value>, message: String) {
    if let Some(id) = id {
        let error =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": message}});
        let _ = lines.send(error.to_string()).await;
    } else {
        tracing::warn!(%message, "MCP bridge");
    }
}

/// What an event stream said for taking it up again: its last event id and its `retry` wait.
/// The events themselves are read by `eventsource-stream` (the SSE parsing of the HTML spec:
/// fields, comments, CR/LF/CRLF line ends, multi-line data, a BOM, chunks split anywhere).
#[derive(Default)]
struct Resumption {
    last_id: Option<String>,
    retry: Option<std::time::Duration>,
}

impl Resumption {
    /// Notes `event`'s id and `retry`; its data, unless empty (MCP's priming event, an id and
    /// empty data, that a stream can be resumed from).
    fn note<'e>(&mut self, event: &'e Event) -> Option<&'e str> {
        // The parser carries the last id from event to event within one stream. Across a
        // resumption the new stream starts without one, so an empty id keeps the one before
        // (the spec's reset by an empty `id:` is not followed: no MCP server sends it).
        if !event.id.is_empty() {
            self.last_id = Some(event.id.clone());
        }
        if let Some(retry) = event.retry {
            self.retry = Some(retry.min(std::time::Duration::from_secs(60)));
        }
        Some(event.data.as_str()).filter(|d| !d.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After the client closed its stdin, only answers to its requests are still written.
    #[test]
    fn answers_are_told_from_the_servers_own_messages() {
        assert!(is_answer(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#));
        assert!(is_answer(
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}"#
        ));
        assert!(!is_answer(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#
        ));
        assert!(!is_answer(
            r#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}"#
        ));
        assert!(!is_answer("not json"));
    }

    /// The data of each event of `chunks` (as they came off the wire), and what was noted.
    async fn read(chunks: &[&'static [u8]], resumption: &mut Resumption) -> Vec<String> {
        let wire = futures::stream::iter(chunks.iter().map(|c| Ok::<_, std::convert::Infallible>(*c)));
        let mut events = wire.eventsource();
        let mut data = Vec::new();
        while let Some(Ok(event)) = events.next().await {
            data.extend(resumption.note(&event).map(str::to_string));
        }
        data
    }

    #[tokio::test]
    async fn events_are_joined_across_chunks_and_lines() {
        let mut resumption = Resumption::default();
        let data = read(
            &[
                b"event: message\ndata: {\"a\":",
                b"1}\n\n: comment\n\ndata: [1,\r\ndata: 2]\r\n\r\n",
            ],
            &mut resumption,
        )
        .await;
        assert_eq!(data, ["{\"a\":1}", "[1,\n2]"]);
        assert_eq!(resumption.last_id, None);
        // A priming event: an id and empty data, nothing to pass on.
        let data = read(&[b"id: e-1\nretry: 500\ndata: \n\n"], &mut resumption).await;
        assert!(data.is_empty(), "{data:?}");
        assert_eq!(resumption.last_id.as_deref(), Some("e-1"));
        assert_eq!(resumption.retry, Some(std::time::Duration::from_millis(500)));
        // The resumed stream: its events without an id keep the last one; a new id replaces it.
        let data = read(&[b"data: 3\n\n"], &mut resumption).await;
        assert_eq!(data, ["3"]);
        assert_eq!(resumption.last_id.as_deref(), Some("e-1"));
        read(
            &[b"id: e-2\ndata: 4\n\nretry: 999999\ndata: 5\n\n"],
            &mut resumption,
        )
        .await;
        assert_eq!(resumption.last_id.as_deref(), Some("e-2"));
        assert_eq!(resumption.retry, Some(std::time::Duration::from_secs(60)));
    }

    #[test]
    fn only_loopback_gateways() {
        assert!(loopback_addr(&Url::parse("http://127.0.0.1:9/x").unwrap()).is_ok());
        assert!(loopback_addr(&Url::parse("http://example.com/x").unwrap()).is_err());
        assert!(loopback_addr(&Url::parse("https://127.0.0.1/x").unwrap()).is_err());
    }
}
