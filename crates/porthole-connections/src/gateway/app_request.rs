//! Porthole's own requests to a connection's server, for the MCP Apps it shows
//! ([`Gateway::app_request`](super::Gateway::app_request)): the app's HTML (`resources/read`)
//! and the app's tool calls (`tools/call`), nothing else.
//!
//! They go in an MCP session of the gateway's own with the server (one per pass and
//! connection), never in the agent's: its own `initialize` declaring the UI extension, the
//! server's `Mcp-Session-Id` kept, `notifications/initialized`, and a new `initialize` when the
//! server forgot the session (404). Each request is sent as forwarding sends the agent's (the
//! connection's headers and token from the `TokenSource`, a refresh and one retry on 401), so
//! the token never leaves the gateway. Answers may be JSON or an event stream; they are capped
//! in size ([`ANSWER_CAP`]) and time ([`TIMEOUT`]). A served stdio server (`stdio_http`) is
//! reached the same way, on the process the agent's session uses; one piped to a bridge is not:
//! that process belongs to the bridge's pipe.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use hyper::{Method, StatusCode};
use serde_json::{Value, json};

use super::forward::{self, Failure};
use super::questions::{ConnState, SessionHeaders};
use super::sse::{SseFilter, Taken};
use super::{Endpoint, Inner, Upstream};

/// The methods an app's requests may use.
pub const ALLOWED: [&str; 2] = ["resources/read", "tools/call"];
/// The largest answer read (an app's HTML with its scripts inlined is often a few hundred KiB).
pub const ANSWER_CAP: usize = 16 * 1024 * 1024;
/// The longest one request takes, a new `initialize` included.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Why an app's request got no result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AppRequestError {
    #[error("`{0}` is not a request Porthole sends for an app (only resources/read and tools/call)")]
    NotAllowed(String),
    #[error("the session's pass is closed")]
    PassClosed,
    #[error("the session has no MCP connection `{0}`")]
    NoSuchConnection(String),
    #[error("requests for MCP Apps are not supported for stdio connections piped to a bridge (`{0}`)")]
    Stdio(String),
    /// The server could not be reached (the words of the forwarding's error).
    #[error("{0}")]
    Unreachable(String),
    /// The connection needs sign-in (again, or with more scopes); already said to the owner.
    #[error("{0}")]
    SignIn(String),
    /// The server refused the request for its scope, and asking again would loop.
    #[error("{0}")]
    Refused(String),
    #[error("the server answered HTTP {0}")]
    Status(u16),
    #[error("the server's answer is larger than {} bytes", ANSWER_CAP)]
    TooLarge,
    #[error("the server did not answer within {} s", TIMEOUT.as_secs())]
    Timeout,
    #[error("the server's answer is not a JSON-RPC answer to the request: {0}")]
    Invalid(String),
    /// The server's JSON-RPC error object, as it sent it (server text: untrusted).
    #[error("the server answered with JSON-RPC error {}", .0.get("code").map(Value::to_string).unwrap_or_default())]
    Rpc(Value),
}

/// The gateway's own MCP session with one connection's server.
#[derive(Debug, Clone)]
pub(crate) struct OwnSession {
    headers: SessionHeaders,
}

/// Request ids of the gateway's own session (`porthole-app-N`).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn next_id() -> Value {
    json!(format!(
        "porthole-app-{}",
        NEXT_ID.fetch_add(1, Ordering::Relaxed)
    ))
}

pub(crate) async fn request(
    inner: &Arc<Inner>,
    pass: u64,
    connection: &str,
    method: &str,
    params: Value,
) -> Result<Value, AppRequestError> {
    if !ALLOWED.contains(&method) {
        return Err(AppRequestError::NotAllowed(method.to_string()));
    }
    let state = inner
        .passes
        .lock()
        .expect("gateway passes")
        .values()
        .find(|p| p.id == pass)
        .cloned()
        .ok_or(AppRequestError::PassClosed)?;
    let endpoint = match state.upstreams.get(connection) {
        Some(Upstream::Stdio(_)) => return Err(AppRequestError::Stdio(connection.to_string())),
        None => return Err(AppRequestError::NoSuchConnection(connection.to_string())),
        Some(Upstream::Remote { .. } | Upstream::Served(_) | Upstream::LegacySse { .. }) => {
            state.endpoint(connection).map_err(AppRequestError::Unreachable)?
        }
    };
    let mut closed = state.closed();
    let server = Server {
        inner,
        conn: state.conn(connection),
        name: connection,
        endpoint: &endpoint,
    };
    let work = tokio::time::timeout(TIMEOUT, server.call(method, params));
    tokio::select! {
        answer = work => answer.unwrap_or(Err(AppRequestError::Timeout)),
        _ = closed.wait_for(|c| *c) => Err(AppRequestError::PassClosed),
    }
}

/// One connection's server, as the gateway's own session reaches it.
struct Server<'a> {
    inner: &'a Inner,
    conn: Arc<ConnState>,
    name: &'a str,
    endpoint: &'a Endpoint,
}

/// An answer that did not come.
enum Missed {
    /// The server forgot the session (404 to a request that carried its id).
    Expired,
    Error(AppRequestError),
}

impl From<AppRequestError> for Missed {
    fn from(e: AppRequestError) -> Self {
        Missed::Error(e)
    }
}

impl Server<'_> {
    /// `method` in the gateway's session (opened first when there is none); once more in a
    /// new session when the server forgot the old one.
    async fn call(&self, method: &str, params: Value) -> Result<Value, AppRequestError> {
        let request = |id: &Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        for _ in 0..2 {
            let session = self.session().await?;
            let id = next_id();
            match self.send(&session.headers, &request(&id), &id).await {
                Ok(message) => return result_of(message),
                Err(Missed::Expired) => {
                    // Forget it (unless another request already opened a newer one) and retry.
                    let mut own = self.conn.own_session.lock().await;
                    if own.as_ref().is_some_and(|o| o.headers.id == session.headers.id) {
                        *own = None;
                    }
                }
                Err(Missed::Error(e)) => return Err(e),
            }
        }
        Err(AppRequestError::Status(404))
    }

    /// The gateway's session with the server, opened when there is none.
    async fn session(&self) -> Result<OwnSession, AppRequestError> {
        let mut own = self.conn.own_session.lock().await;
        if let Some(session) = own.as_ref() {
            return Ok(session.clone());
        }
        let id = next_id();
        let initialize = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": crate::MCP_PROTOCOL_VERSION,
            "capabilities": {"extensions": {super::apps::EXTENSION: {"mimeTypes": [super::apps::MIME_TYPE]}}},
            "clientInfo": {"name": "Porthole", "version": env!("CARGO_PKG_VERSION")},
        }});
        let answer = self.post(&SessionHeaders::default(), &initialize).await?;
        let session_id = answer
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let message = match read(answer, &id, false).await {
            Ok(m) => m,
            Err(Missed::Expired) => return Err(AppRequestError::Status(404)),
            Err(Missed::Error(e)) => return Err(e),
        };
        let result = result_of(message)?;
        let protocol = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(crate::MCP_PROTOCOL_VERSION)
            .to_string();
        let headers = SessionHeaders {
            id: session_id,
            protocol: Some(protocol),
        };
        let initialized = self
            .post(
                &headers,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await?;
        if !initialized.status().is_success() {
            return Err(AppRequestError::Status(initialized.status().as_u16()));
        }
        let session = OwnSession { headers };
        *own = Some(session.clone());
        Ok(session)
    }

    async fn send(&self, headers: &SessionHeaders, message: &Value, id: &Value) -> Result<Value, Missed> {
        let answer = self.post(headers, message).await?;
        read(answer, id, headers.id.is_some()).await
    }

    async fn post(
        &self,
        headers: &SessionHeaders,
        message: &Value,
    ) -> Result<reqwest::Response, AppRequestError> {
        forward::send(
            self.inner,
            self.name,
            self.endpoint,
            Method::POST,
            &headers.headers(),
            Bytes::from(message.to_string()),
        )
        .await
        .map_err(|failure| match failure {
            Failure::Unreachable(e) => AppRequestError::Unreachable(e),
            Failure::Refused(e) => AppRequestError::Refused(e),
            Failure::SignIn(reason) => AppRequestError::SignIn(format!(
                "the sign-in to `{}` has expired ({reason}); sign in again in Porthole's Connections",
                self.name
            )),
            Failure::NotSignedIn(reason) | Failure::MoreScopes(reason) => AppRequestError::SignIn(format!(
                "`{}` needs sign-in ({reason}); sign in in Porthole's Connections",
                self.name
            )),
        })
    }
}

/// The JSON-RPC answer to `id` in the server's answer, JSON or an event stream.
async fn read(answer: reqwest::Response, id: &Value, with_session: bool) -> Result<Value, Missed> {
    let status = answer.status();
    if status == StatusCode::NOT_FOUND && with_session {
        return Err(Missed::Expired);
    }
    if !status.is_success() {
        return Err(AppRequestError::Status(status.as_u16()).into());
    }
    let content_type = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let is_sse = content_type.starts_with("text/event-stream");
    if !is_sse && !content_type.starts_with("application/json") {
        return Err(AppRequestError::Invalid(format!("content type {content_type:?}")).into());
    }
    let mut filter = SseFilter::watching_up_to(id.clone(), ANSWER_CAP);
    let mut json = BytesMut::new();
    let mut read = 0usize;
    let mut body = answer.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk =
            chunk.map_err(|e| AppRequestError::Unreachable(format!("the server's answer broke off: {e}")))?;
        read += chunk.len();
        if read > ANSWER_CAP {
            return Err(AppRequestError::TooLarge.into());
        }
        if !is_sse {
            json.extend_from_slice(&chunk);
            continue;
        }
        // The filter holds at most one event (up to its cap); what it passes on is dropped.
        let (_, taken) = filter.push(&chunk);
        if let Some(Taken::Answer(message)) = taken.into_iter().find(|t| matches!(t, Taken::Answer(_))) {
            return Ok(message);
        }
    }
    if is_sse {
        let rest = filter.finish();
        return match super::sse::answer_to(&rest, id) {
            Some(message) => Ok(message),
            None if filter.overflowed => Err(AppRequestError::TooLarge.into()),
            None => Err(AppRequestError::Invalid("the event stream ended without it".into()).into()),
        };
    }
    let message: Value =
        serde_json::from_slice(&json).map_err(|e| AppRequestError::Invalid(format!("not JSON ({e})")))?;
    if message.get("id") != Some(id) {
        return Err(AppRequestError::Invalid("it answers another request".into()).into());
    }
    Ok(message)
}

fn result_of(message: Value) -> Result<Value, AppRequestError> {
    if let Some(result) = message.get("result") {
        return Ok(result.clone());
    }
    match message.get("error") {
        Some(error) => Err(AppRequestError::Rpc(error.clone())),
        None => Err(AppRequestError::Invalid("neither a result nor an error".into())),
    }
}
