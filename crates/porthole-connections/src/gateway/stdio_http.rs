//! A stdio MCP server (or a legacy SSE server: `sse_upstream`) served as Streamable HTTP
//! (MCP 2025-11-25) on loopback, so the gateway
//! reaches it exactly as it reaches a remote server (`forward`: questions, `-32042`,
//! `input_required`, MCP Apps) and Porthole's own app session can share its process.
//!
//! At `http://127.0.0.1:PORT/mcp`: POST a JSON-RPC message (a request's response comes back as
//! `application/json`; a notification or a response gets 202), GET opens the session's
//! server-to-client event stream (one per session: a second gets 409), DELETE ends a session.
//!
//! Several clients share the one process:
//! - the first `initialize` goes to the server and its result is kept; a later client's
//!   `initialize` is answered from it with a session id of its own, and only the first
//!   `notifications/initialized` is passed on;
//! - request ids are rewritten to unique wire ids and mapped back (`notifications/cancelled`'s
//!   `requestId` too), so two clients' `id: 1` cannot meet;
//! - the server's own requests and notifications go to the session whose request is in flight
//!   (a progress notification to the session whose request named its token), else to the first
//!   session, on its GET stream, held (capped) until one opens; the client's answers to them
//!   pass through as they are (their ids are the server's own).
//!
//! The process is a process group (`porthole-process`), killed whole when the [`Served`] is
//! dropped; its environment may hold secrets and is never logged, and its stderr goes nowhere
//! (a server may echo its environment there). Lines are capped at [`LINE_CAP`]; a line over it
//! or one that is not JSON is skipped, its size logged (never its text). When the process
//! exits, what waits for it fails with an error naming the connection, and every stream ends.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};
use url::Url;

use super::{Body, StdioServer, plain};

mod sse_upstream;

/// The longest line read from the server, and the largest message a client may post (as
/// core's framing caps an agent's lines: images and whole files fit).
pub const LINE_CAP: usize = 16 * 1024 * 1024;
/// Messages of the server held for a session with no GET stream open (or a slow one); the
/// oldest held is dropped past it, with a log line.
pub const HELD_CAP: usize = 256;
/// The 409 text the official TypeScript SDK uses for a second GET stream.
const CONFLICT: &str = "Conflict: Only one SSE stream is allowed per session";

/// A running stdio server and its loopback address. Dropping it kills the process group and
/// stops serving.
pub struct Served {
    url: Url,
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        // The process task owns the group: aborting it drops the group, which kills it.
        for task in &self.tasks {
            task.abort();
        }
        self.shared.gone("the connection was closed".into());
    }
}

impl Served {
    /// Start `server` (for the connection `name`) and serve it. Must be called in a tokio
    /// runtime.
    pub fn start(name: &str, server: &StdioServer) -> std::io::Result<Served> {
        let mut group = porthole_process::spawn(server.command(), None)
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot start `{}`: {e}", server.command)))?;
        let child = group.child_mut();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the server's pipes are missing"));
        };
        Self::serve_pipe(name, |shared, lines| {
            vec![
                tokio::spawn(write_stdin(stdin, lines)),
                tokio::spawn(read_stdout(shared.clone(), stdout)),
                tokio::spawn(wait_exit(shared, group)),
            ]
        })
    }

    /// Serve the legacy HTTP+SSE server at `url` (for the connection `name`) the same way, the
    /// SSE transport in place of the process (`sse_upstream`). Must be called in a tokio
    /// runtime; the server is reached on the first message.
    pub fn start_sse(name: &str, url: &Url, headers: &[(String, String)]) -> std::io::Result<Served> {
        let (url, headers) = (url.clone(), headers.to_vec());
        Self::serve_pipe(name, |shared, lines| {
            vec![tokio::spawn(sse_upstream::run(shared, url, headers, lines))]
        })
    }

    /// The loopback server over a message pipe: `pipe` starts the tasks that write the lines
    /// it is given to the server and hand the server's messages to `Shared::server_line`.
    fn serve_pipe(
        name: &str,
        pipe: impl FnOnce(Arc<Shared>, mpsc::Receiver<String>) -> Vec<tokio::task::JoinHandle<()>>,
    ) -> std::io::Result<Served> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let url =
            Url::parse(&format!("http://{}/mcp", listener.local_addr()?)).expect("a loopback URL parses");

        let (to_server, lines) = mpsc::channel(64);
        let shared = Arc::new(Shared {
            name: name.to_string(),
            to_server,
            state: Mutex::new(State::default()),
            first_init: tokio::sync::Mutex::new(None),
            next_wire: AtomicU64::new(1),
            exit: watch::channel(None).0,
        });
        let mut tasks = pipe(shared.clone(), lines);
        tasks.push(tokio::spawn(serve(listener, Arc::downgrade(&shared))));
        Ok(Served { url, shared, tasks })
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Why the process is gone, once it is.
    pub fn exited(&self) -> Option<String> {
        self.shared.exit.borrow().clone()
    }
}

struct Shared {
    name: String,
    to_server: mpsc::Sender<String>,
    state: Mutex<State>,
    /// The first `initialize`'s result; held locked while it is being asked, so a second
    /// client's `initialize` waits for it rather than reaching the server.
    first_init: tokio::sync::Mutex<Option<Value>>,
    next_wire: AtomicU64,
    /// Why the process is gone, once it is.
    exit: watch::Sender<Option<String>>,
}

#[derive(Default)]
struct State {
    /// In the order they were opened: the first is where unclaimed server messages go.
    sessions: Vec<Session>,
    /// Requests sent to the server, by wire id.
    pending: HashMap<String, Pending>,
    /// Progress tokens of requests in flight (their JSON text) → session.
    progress: HashMap<String, String>,
    initialized_sent: bool,
    next_seq: u64,
}

struct Session {
    id: String,
    stream: Option<mpsc::Sender<Bytes>>,
    held: VecDeque<Bytes>,
}

struct Pending {
    session: String,
    id: Value,
    seq: u64,
    progress: Option<String>,
    answer: oneshot::Sender<Value>,
}

impl State {
    fn session(&mut self, id: &str) -> Option<&mut Session> {
        self.sessions.iter_mut().find(|s| s.id == id)
    }

    /// Where a message of the server's goes: see the module's comment.
    fn target(&self, message: &Value) -> Option<String> {
        let token = message.pointer("/params/progressToken").map(Value::to_string);
        if let Some(session) = token.and_then(|t| self.progress.get(&t)) {
            return Some(session.clone());
        }
        let latest = self.pending.values().max_by_key(|p| p.seq);
        latest
            .map(|p| p.session.clone())
            .or_else(|| self.sessions.first().map(|s| s.id.clone()))
    }
}

impl Shared {
    fn exited(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// The process is gone: what waits fails, streams end, new requests are refused.
    fn gone(&self, reason: String) {
        self.exit.send_if_modified(|exit| {
            if exit.is_some() {
                return false;
            }
            *exit = Some(reason);
            true
        });
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // Dropping the senders wakes each waiter, which then reads `exit`.
        state.pending.clear();
        state.progress.clear();
        for session in &mut state.sessions {
            session.stream = None;
        }
    }

    /// One line of the server's stdout.
    fn server_line(&self, line: &str) {
        let message: Value = match serde_json::from_str(line) {
            Ok(m @ Value::Object(_)) => m,
            _ => {
                // Its text is not logged: a server may print its environment, secrets included.
                tracing::warn!(
                    connection = self.name,
                    bytes = line.len(),
                    "ignoring a line of the stdio server that is not a JSON-RPC message"
                );
                return;
            }
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if message.get("method").is_none() {
            let Some(wire) = message.get("id").and_then(Value::as_str) else {
                tracing::warn!(
                    connection = self.name,
                    "the stdio server answered no request of ours"
                );
                return;
            };
            let Some(pending) = state.pending.remove(wire) else {
                tracing::warn!(
                    connection = self.name,
                    "the stdio server answered an unknown or abandoned request"
                );
                return;
            };
            if let Some(token) = &pending.progress {
                state.progress.remove(token);
            }
            let mut message = message;
            message["id"] = pending.id;
            let _ = pending.answer.send(message);
            return;
        }
        let Some(target) = state.target(&message) else {
            tracing::warn!(
                connection = self.name,
                "a message of the stdio server before any session: dropped"
            );
            return;
        };
        let event = Bytes::from(format!("event: message\ndata: {message}\n\n"));
        let name = &self.name;
        let Some(session) = state.session(&target) else {
            return;
        };
        if let Some(stream) = &session.stream {
            match stream.try_send(event.clone()) {
                Ok(()) => return,
                Err(mpsc::error::TrySendError::Closed(_)) => session.stream = None,
                Err(mpsc::error::TrySendError::Full(_)) => {}
            }
        }
        if session.held.len() >= HELD_CAP {
            session.held.pop_front();
            tracing::warn!(connection = %name, "too many messages of the stdio server wait for a client's stream: the oldest was dropped");
        }
        session.held.push_back(event);
    }

    fn new_session(&self) -> String {
        let id = super::random_key();
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.sessions.push(Session {
            id: id.clone(),
            stream: None,
            held: VecDeque::new(),
        });
        id
    }

    fn has_session(&self, id: &str) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.sessions.iter().any(|s| s.id == id)
    }

    async fn write(&self, message: &Value) -> Result<(), String> {
        if let Some(reason) = self.exited() {
            return Err(reason);
        }
        self.to_server.send(message.to_string()).await.map_err(|_| {
            self.exited()
                .unwrap_or_else(|| "the server's stdin is closed".into())
        })
    }

    /// `request` of `session` to the server, under a wire id of its own; the answer with the
    /// client's id back, or why none came.
    async fn request(&self, session: &str, mut request: Value) -> Result<Value, String> {
        let wire = format!("porthole-{}", self.next_wire.fetch_add(1, Ordering::Relaxed));
        let progress = request
            .pointer("/params/_meta/progressToken")
            .map(Value::to_string);
        let (answer, answered) = oneshot::channel();
        {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(reason) = self.exited() {
                return Err(reason);
            }
            let seq = state.next_seq;
            state.next_seq += 1;
            if let Some(token) = &progress {
                state.progress.insert(token.clone(), session.to_string());
            }
            let id = std::mem::replace(&mut request["id"], json!(wire));
            state.pending.insert(
                wire.clone(),
                Pending {
                    session: session.to_string(),
                    id,
                    seq,
                    progress,
                    answer,
                },
            );
        }
        // A client that goes away before the answer leaves nothing behind.
        let _forget = Forget {
            shared: self,
            wire: &wire,
        };
        self.write(&request).await?;
        answered.await.map_err(|_| {
            self.exited()
                .unwrap_or_else(|| "the request was abandoned".into())
        })
    }

    /// `notifications/cancelled` names the client's id: the server knows the wire id.
    fn wire_id_of(&self, session: &str, id: &Value) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state
            .pending
            .iter()
            .find(|(_, p)| p.session == session && &p.id == id)
            .map(|(wire, _)| wire.clone())
    }
}

struct Forget<'a> {
    shared: &'a Shared,
    wire: &'a str,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = state.pending.remove(self.wire)
            && let Some(token) = p.progress
        {
            state.progress.remove(&token);
        }
    }
}

async fn write_stdin(mut stdin: tokio::process::ChildStdin, mut lines: mpsc::Receiver<String>) {
    while let Some(line) = lines.recv().await {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
}

/// The server's stdout, line by line (capped: `LinesCodec` discards the rest of a line over
/// the cap and goes on with the next). The decoder is driven by hand, not through `FramedRead`,
/// which ends the stream at the first error.
async fn read_stdout(shared: Arc<Shared>, mut stdout: tokio::process::ChildStdout) {
    let mut codec = LinesCodec::new_with_max_length(LINE_CAP);
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut eof = false;
    loop {
        let decoded = match eof {
            false => codec.decode(&mut buf),
            true => codec.decode_eof(&mut buf),
        };
        match decoded {
            Ok(Some(line)) => shared.server_line(&line),
            Ok(None) if eof => break,
            Ok(None) => match stdout.read_buf(&mut buf).await {
                Ok(0) | Err(_) => eof = true,
                Ok(_) => {}
            },
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                tracing::warn!(
                    connection = shared.name,
                    "discarded a line of the stdio server over {LINE_CAP} bytes"
                );
            }
            Err(LinesCodecError::Io(e)) => {
                tracing::warn!(
                    connection = shared.name,
                    "discarded a line of the stdio server: {e}"
                );
                if eof {
                    break;
                }
            }
        }
    }
    shared.gone(format!("the stdio server of `{}` closed its output", shared.name));
}

async fn wait_exit(shared: Arc<Shared>, mut group: porthole_process::Group) {
    let reason = match group.wait().await {
        Ok(status) => format!("the stdio server of `{}` exited ({status})", shared.name),
        Err(e) => format!(
            "the stdio server of `{}` could not be waited for: {e}",
            shared.name
        ),
    };
    // What it started may still run: the group goes with its leader.
    group.kill();
    shared.gone(reason);
}

async fn serve(listener: tokio::net::TcpListener, shared: std::sync::Weak<Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let Some(strong) = shared.upgrade() else { return };
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let shared = strong.clone();
                async move { Ok::<_, Infallible>(handle(&shared, req).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn handle(shared: &Shared, req: Request<Incoming>) -> Response<Body> {
    if req.uri().path() != "/mcp" {
        return plain(StatusCode::NOT_FOUND, "not found");
    }
    let session = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let method = req.method().clone();
    if method == Method::POST {
        return post(shared, session, req.into_body()).await;
    }
    if ![Method::GET, Method::DELETE].contains(&method) {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "MCP uses POST, GET and DELETE");
    }
    let session = match known(shared, session.as_deref()) {
        Ok(s) => s,
        Err((status, why)) => return plain(status, why),
    };
    if method == Method::DELETE {
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        state.sessions.retain(|s| s.id != session);
        return plain(StatusCode::OK, "session ended");
    }
    get(shared, &session)
}

/// The request's session, or the answer the transport gives for a missing (400) or unknown
/// (404) one.
fn known(shared: &Shared, session: Option<&str>) -> Result<String, (StatusCode, &'static str)> {
    let Some(session) = session else {
        return Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    if !shared.has_session(session) {
        return Err((StatusCode::NOT_FOUND, "Session not found"));
    }
    Ok(session.to_string())
}

async fn post(shared: &Shared, session: Option<String>, body: Incoming) -> Response<Body> {
    let body = match Limited::new(body, LINE_CAP).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the message is larger than the server takes",
            );
        }
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(m @ Value::Object(_)) => m,
        Ok(_) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "one JSON-RPC message per POST (MCP 2025-11-25 has no batches)",
            );
        }
        Err(e) => return plain(StatusCode::BAD_REQUEST, &format!("the body is not JSON: {e}")),
    };
    let method = message.get("method").and_then(Value::as_str).map(str::to_string);
    let id = message.get("id").filter(|id| !id.is_null()).cloned();
    if method.as_deref() == Some("initialize") && id.is_some() {
        return initialize(shared, message).await;
    }
    let session = match known(shared, session.as_deref()) {
        Ok(s) => s,
        Err((status, why)) => return plain(status, why),
    };
    match (method.as_deref(), id) {
        (Some(_), Some(id)) => match shared.request(&session, message).await {
            Ok(answer) => json_response(&answer, None),
            Err(reason) => json_response(&exited_error(&id, &reason), None),
        },
        (Some(method), None) => {
            let mut message = message;
            if method == "notifications/initialized" {
                let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
                if std::mem::replace(&mut state.initialized_sent, true) {
                    return accepted();
                }
            }
            if method == "notifications/cancelled"
                && let Some(id) = message.pointer("/params/requestId").cloned()
            {
                // A request already answered (or another session's) has nothing to cancel.
                let Some(wire) = shared.wire_id_of(&session, &id) else {
                    return accepted();
                };
                message["params"]["requestId"] = json!(wire);
            }
            match shared.write(&message).await {
                Ok(()) => accepted(),
                Err(reason) => plain(StatusCode::BAD_GATEWAY, &reason),
            }
        }
        // An answer to the server's own request: its id is the server's, passed as it is.
        (None, Some(_)) if message.get("result").is_some() || message.get("error").is_some() => {
            match shared.write(&message).await {
                Ok(()) => accepted(),
                Err(reason) => plain(StatusCode::BAD_GATEWAY, &reason),
            }
        }
        _ => plain(
            StatusCode::BAD_REQUEST,
            "not a JSON-RPC request, notification or response",
        ),
    }
}

/// The first `initialize` goes to the server; later ones are answered with its result.
async fn initialize(shared: &Shared, message: Value) -> Response<Body> {
    let id = message["id"].clone();
    let mut first = shared.first_init.lock().await;
    if let Some(result) = first.as_ref() {
        let session = shared.new_session();
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        return json_response(&answer, Some(&session));
    }
    let session = shared.new_session();
    let answer = match shared.request(&session, message).await {
        Ok(answer) => answer,
        Err(reason) => {
            forget_session(shared, &session);
            return json_response(&exited_error(&id, &reason), None);
        }
    };
    match answer.get("result") {
        Some(result) => {
            *first = Some(result.clone());
            json_response(&answer, Some(&session))
        }
        None => {
            forget_session(shared, &session);
            json_response(&answer, None)
        }
    }
}

fn forget_session(shared: &Shared, session: &str) {
    let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
    state.sessions.retain(|s| s.id != session);
}

/// The session's server-to-client stream, with what was held for it first.
fn get(shared: &Shared, session: &str) -> Response<Body> {
    let (tx, rx) = mpsc::channel(HELD_CAP);
    {
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if shared.exited().is_some() {
            return plain(StatusCode::BAD_GATEWAY, "the stdio server has exited");
        }
        let Some(s) = state.session(session) else {
            return plain(StatusCode::NOT_FOUND, "Session not found");
        };
        if s.stream.as_ref().is_some_and(|t| !t.is_closed()) {
            return plain(StatusCode::CONFLICT, CONFLICT);
        }
        for event in s.held.drain(..) {
            // The channel holds as many as may be held.
            let _ = tx.try_send(event);
        }
        s.stream = Some(tx);
    }
    let frames = tokio_stream_of(rx).map(|b| Ok::<_, std::io::Error>(Frame::data(b)));
    Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "text/event-stream")
        .header("Cache-Control", "no-cache")
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .expect("an event stream response builds")
}

fn tokio_stream_of(rx: mpsc::Receiver<Bytes>) -> impl futures::Stream<Item = Bytes> + Send + 'static {
    futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) })
}

fn exited_error(id: &Value, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": reason}})
}

fn accepted() -> Response<Body> {
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(BodyExt::boxed(
            http_body_util::Empty::new().map_err(|never: Infallible| match never {}),
        ))
        .expect("a 202 builds")
}

fn json_response(message: &Value, session: Option<&str>) -> Response<Body> {
    let mut response = Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "application/json");
    if let Some(session) = session {
        response = response.header("Mcp-Session-Id", session);
    }
    response
        .body(BodyExt::boxed(
            Full::new(Bytes::from(message.to_string())).map_err(|never| match never {}),
        ))
        .expect("a JSON response builds")
}

#[cfg(test)]
mod tests;
