//! The loopback gateway agents reach the person's connections through.
//!
//! Each session gets a *pass*: a random 256-bit path prefix under which its connections are
//! served (`http://127.0.0.1:PORT/<pass>/<connection>`). The address is useless outside this
//! machine and dies with the pass (dropped when the session or its agent ends). No token is in
//! it: the gateway adds each connection's `Authorization` itself (`forward`), refreshing it as
//! needed, and starts stdio servers itself: served as Streamable HTTP (`stdio_http`), so their
//! traffic is read as a remote server's, or piped to a bridge as bytes (`stdio_host`); either way
//! a secret in a server's environment never passes through the agent, which holds only the
//! address.
//!
//! MCP passes through as it comes: request and response bodies are streamed (Server-Sent
//! Events included), so server requests (sampling, roots), progress and cancellation reach the
//! agent as the server sent them. The one exception: where the pass's owner answers questions
//! ([`PassOwner::questions`]) and the agent declared no elicitation, the gateway answers the
//! server's `elicitation/create` itself (`questions`, `sse`, `standalone`). And where the owner
//! takes MCP Apps ([`PassOwner::apps`]), the gateway declares the UI extension to the servers,
//! reads the agent's tool lists and UI tool calls as they pass (`apps`), and has an MCP session
//! of its own with a connection's server for the app's requests ([`Gateway::app_request`]).

mod app_request;
mod apps;
mod forward;
mod input_required;
mod questions;
mod resume;
mod sse;
mod standalone;
mod stdio_host;
mod stdio_http;
mod url_required;

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{broadcast, watch};
use url::Url;

pub use app_request::AppRequestError;
pub use apps::{
    AppCall, Apps, EXTENSION as APPS_EXTENSION, MIME_TYPE as APP_MIME_TYPE, NOTE_CAP as APP_NOTE_CAP,
    TOOLS_CAP as APP_TOOLS_CAP, UNSEEN as APP_ANSWER_UNSEEN, ui_resource,
};
pub use futures::future::BoxFuture;
pub use questions::{Asker, McpCall, PassOwner, Questions, Unanswered};
pub use stdio_host::{StdioServer, UPGRADE};

/// Where a connection's requests go.
#[derive(Clone)]
pub enum Upstream {
    /// A remote MCP server (streamable HTTP): requests are forwarded with its headers and,
    /// when the connection is signed in at the time of the request, a bearer token from the
    /// [`TokenSource`] (so a session opened before the person signed in gets the sign-in too).
    Remote {
        url: Url,
        /// Header values the person configured (secret ones read from the keyring by the caller).
        headers: Vec<(String, String)>,
    },
    /// A stdio server the gateway starts for each bridge that connects, piped to it as raw
    /// bytes (its environment may hold secrets, which must not pass through the agent). The
    /// gateway cannot read that traffic: kept only where nothing else works (see `handoff`).
    Stdio(StdioServer),
    /// A stdio server the gateway starts on the pass's first request to it (one process per
    /// pass and connection, shared by the agent's session and the gateway's own) and serves as
    /// Streamable HTTP on loopback (`stdio_http`), so it is forwarded to as a remote server is:
    /// its questions and MCP Apps reach the owner. Never with a token. Killed when the pass
    /// closes.
    Served(StdioServer),
    /// A remote server of MCP's legacy HTTP+SSE transport, served as Streamable HTTP on
    /// loopback the way `Served` is (`stdio_http`, its SSE pipe): for agents that take no SSE
    /// (ACP v2), and so its secret headers and its questions stay with the gateway. Never with
    /// a token. Disconnected when the pass closes.
    LegacySse {
        url: Url,
        /// Header values the person configured (secret ones read from the keyring by the caller).
        headers: Vec<(String, String)>,
    },
}

/// Where the gateway sends a connection's requests.
#[derive(Clone)]
pub(crate) struct Endpoint {
    url: Url,
    /// Header values the person configured (secret ones included).
    headers: Vec<(String, String)>,
    /// Whether a bearer token is looked up for it: never for a served stdio server.
    signs_in: bool,
}

/// Why a connection's token could not be had: the person must sign in again.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SignInLost(pub String);

/// The tokens of signed-in connections. `token` is `None` for a connection with no sign-in
/// kept (its requests go without one); `server` is where the request goes, so a sign-in made
/// for another address is refused rather than sent there. `refreshed` is called after the
/// server answered 401 to `failed`: it returns a newer token (refreshing once, however many
/// requests failed).
pub trait TokenSource: Send + Sync + 'static {
    fn token<'a>(
        &'a self,
        connection: &'a str,
        server: &'a Url,
    ) -> BoxFuture<'a, Result<Option<String>, SignInLost>>;
    fn refreshed<'a>(
        &'a self,
        connection: &'a str,
        server: &'a Url,
        failed: &'a str,
    ) -> BoxFuture<'a, Result<String, SignInLost>>;
    /// The server answered 403 `insufficient_scope` naming `scopes` to a request sent with
    /// the connection's token: keep them for the next sign-in and return every scope it will ask for (the
    /// granted ones and these); `None` when a new sign-in cannot help (the sign-in already
    /// asked for all of them, or step-ups ran out), so the request is refused instead.
    fn step_up<'a>(
        &'a self,
        connection: &'a str,
        scopes: &'a [String],
    ) -> BoxFuture<'a, Option<Vec<String>>> {
        let _ = (connection, scopes);
        Box::pin(async { None })
    }
    /// The server answered 401 with `challenge` to a request sent without a token: keep it
    /// for the next sign-in (a server may ask only at a tool call, which sign-in's own probe
    /// does not send).
    fn challenged(&self, connection: &str, challenge: &crate::oauth::Challenge) {
        let _ = (connection, challenge);
    }
}

/// The token source of a Porthole with no keyring: no connection has a sign-in, and one whose
/// server asks for it is told to sign in again, with `.0` as the reason.
pub struct NoTokens(pub String);

impl TokenSource for NoTokens {
    fn token<'a>(&'a self, _: &'a str, _: &'a Url) -> BoxFuture<'a, Result<Option<String>, SignInLost>> {
        Box::pin(async { Ok(None) })
    }
    fn refreshed<'a>(
        &'a self,
        _: &'a str,
        _: &'a Url,
        _: &'a str,
    ) -> BoxFuture<'a, Result<String, SignInLost>> {
        Box::pin(async { Err(SignInLost(self.0.clone())) })
    }
}

/// What the gateway tells its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GatewayEvent {
    /// A request failed because sign-in expired and refresh did not help: ask the person to
    /// sign in to this connection again.
    SignInNeeded { connection: String, reason: String },
    /// A stdio server could not be started (for a bridge, or to be served).
    StdioFailed { connection: String, reason: String },
}

pub(crate) type Body = BoxBody<Bytes, std::io::Error>;

struct Inner {
    passes: Mutex<HashMap<String, Arc<PassState>>>,
    client: reqwest::Client,
    tokens: Arc<dyn TokenSource>,
    events: broadcast::Sender<GatewayEvent>,
    next_pass: AtomicU64,
    /// MCP Apps: the number of the next UI tool call ([`AppCall::call`]).
    next_call: AtomicU64,
    rates: questions::Rates,
}

impl Inner {
    /// The pass still serves (its session has not closed).
    fn is_open(&self, pass: &PassState) -> bool {
        !*pass.closed.borrow()
    }
}

/// What the gateway keeps for one open pass.
struct PassState {
    id: u64,
    upstreams: HashMap<String, Upstream>,
    owner: PassOwner,
    conns: Mutex<HashMap<String, Arc<questions::ConnState>>>,
    /// The stdio servers of `Upstream::Served` started so far (killed when dropped).
    served: Mutex<HashMap<String, Arc<stdio_http::Served>>>,
    /// Set when the pass is dropped: the gateway's own streams for it end.
    closed: watch::Sender<bool>,
}

impl PassState {
    fn conn(&self, name: &str) -> Arc<questions::ConnState> {
        self.conns
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(name.to_string())
            .or_default()
            .clone()
    }

    /// Where `name`'s requests go over HTTP, its stdio server started when it is served and
    /// not running (first use, or it exited: a new process, whose sessions the clients open
    /// again after the 404 to their old one). `Err` says why there is none.
    fn endpoint(&self, name: &str) -> Result<Endpoint, String> {
        match self.upstreams.get(name) {
            Some(Upstream::Remote { url, headers }) => Ok(Endpoint {
                url: url.clone(),
                headers: headers.clone(),
                signs_in: true,
            }),
            Some(Upstream::Served(server)) => {
                self.served_endpoint(name, || stdio_http::Served::start(name, server))
            }
            Some(Upstream::LegacySse { url, headers }) => {
                self.served_endpoint(name, || stdio_http::Served::start_sse(name, url, headers))
            }
            Some(Upstream::Stdio(_)) => Err(format!("`{name}` is piped to a bridge")),
            None => Err(format!("no connection `{name}`")),
        }
    }

    /// The loopback endpoint of a connection the gateway serves (a stdio server, or a legacy
    /// SSE server), started by `start` when it is not running.
    fn served_endpoint(
        &self,
        name: &str,
        start: impl FnOnce() -> std::io::Result<stdio_http::Served>,
    ) -> Result<Endpoint, String> {
        let mut served = self.served.lock().unwrap_or_else(|p| p.into_inner());
        if *self.closed.borrow() {
            return Err("the session's pass is closed".into());
        }
        let running = served.get(name).filter(|s| s.exited().is_none()).cloned();
        let running = match running {
            Some(s) => s,
            None => {
                let s = Arc::new(start().map_err(|e| e.to_string())?);
                served.insert(name.to_string(), s.clone());
                s
            }
        };
        Ok(Endpoint {
            url: running.url().clone(),
            headers: Vec::new(),
            signs_in: false,
        })
    }

    /// The endpoint of a connection already in use (for the gateway's answers and streams).
    fn remote(&self, name: &str) -> Option<Endpoint> {
        self.endpoint(name).ok()
    }

    /// The pass closed: its stdio servers are killed.
    fn close(&self) {
        self.closed.send_replace(true);
        let served = std::mem::take(&mut *self.served.lock().unwrap_or_else(|p| p.into_inner()));
        drop(served);
    }

    fn closed(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }
}

/// The running gateway. Dropping it stops the server.
pub struct Gateway {
    addr: SocketAddr,
    inner: Arc<Inner>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A session's access to its connections. Dropping it closes every address it gave out.
pub struct Pass {
    id: u64,
    key: String,
    base: Url,
    names: Vec<String>,
    inner: std::sync::Weak<Inner>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade()
            && let Some(pass) = inner.passes.lock().expect("gateway passes").remove(&self.key)
        {
            pass.close();
        }
    }
}

impl Pass {
    /// The address a connection is reached at: streamable HTTP for a remote connection and a
    /// served stdio server; for a piped one, the address a bridge connects its pipe to.
    pub fn url(&self, connection: &str) -> Option<Url> {
        self.names.iter().any(|n| n == connection).then(|| {
            self.base
                .join(&encode_segment(connection))
                .expect("a path segment joins")
        })
    }

    pub fn connections(&self) -> &[String] {
        &self.names
    }

    /// The pass's number, unique in its gateway: [`Asker::pass`] of the questions it brings.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Gateway {
    /// Listen on 127.0.0.1 (any free port).
    pub async fn start(tokens: Arc<dyn TokenSource>) -> std::io::Result<Gateway> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let (events, _) = broadcast::channel(64);
        let inner = Arc::new(Inner {
            passes: Mutex::new(HashMap::new()),
            client: crate::http::gateway_client(),
            tokens,
            events,
            next_pass: AtomicU64::new(1),
            next_call: AtomicU64::new(1),
            rates: questions::Rates::default(),
        });
        let server = tokio::spawn(serve(listener, Arc::downgrade(&inner)));
        Ok(Gateway { addr, inner, server })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn events(&self) -> broadcast::Receiver<GatewayEvent> {
        self.inner.events.subscribe()
    }

    /// A pass for one session over `upstreams` (connection name → where it goes), owned by
    /// `owner` (who answers the connections' questions, see [`PassOwner`]).
    pub fn open(&self, upstreams: Vec<(String, Upstream)>, owner: PassOwner) -> Pass {
        let key = random_key();
        let names = upstreams.iter().map(|(n, _)| n.clone()).collect();
        let id = self.inner.next_pass.fetch_add(1, Ordering::Relaxed);
        let state = PassState {
            id,
            upstreams: upstreams.into_iter().collect(),
            owner,
            conns: Mutex::new(HashMap::new()),
            served: Mutex::new(HashMap::new()),
            closed: watch::channel(false).0,
        };
        self.inner
            .passes
            .lock()
            .expect("gateway passes")
            .insert(key.clone(), Arc::new(state));
        let base = Url::parse(&format!("http://{}/{key}/", self.addr)).expect("a loopback URL parses");
        Pass {
            id,
            key,
            base,
            names,
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// Porthole's own request to the server of `connection`, for an MCP App shown in the
    /// session of `pass` ([`Pass::id`], [`Asker::pass`]): `method` is `resources/read` or
    /// `tools/call` (anything else is refused), sent while the pass is open, in an MCP session
    /// of the gateway's own with that server (never the agent's), with the connection's headers
    /// and token as forwarding sends them. Returns the JSON-RPC result; the server's JSON-RPC
    /// error is [`AppRequestError::Rpc`]. Remote connections and served stdio servers (the same
    /// process as the agent's session); a stdio server piped to a bridge is
    /// [`AppRequestError::Stdio`]. See `app_request`.
    pub async fn app_request(
        &self,
        pass: u64,
        connection: &str,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, AppRequestError> {
        app_request::request(&self.inner, pass, connection, method, params).await
    }

    /// How many passes are open (for tests and the window's figures).
    pub fn open_passes(&self) -> usize {
        self.inner.passes.lock().expect("gateway passes").len()
    }
}

fn random_key() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS gives random bytes");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Connection names are restricted by the list; this keeps a path segment safe anyway.
fn encode_segment(name: &str) -> String {
    url::form_urlencoded::byte_serialize(name.as_bytes()).collect()
}

async fn serve(listener: TcpListener, inner: std::sync::Weak<Inner>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let Some(strong) = inner.upgrade() else { return };
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let inner = strong.clone();
                async move { Ok::<_, Infallible>(route(inner, req).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}

async fn route(inner: Arc<Inner>, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let mut segments = path.trim_start_matches('/').splitn(2, '/');
    let key = segments.next().unwrap_or("");
    let name = segments
        .next()
        .map(|s| {
            url::form_urlencoded::parse(format!("n={s}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
        })
        .unwrap_or_default()
        .unwrap_or_default();
    let pass = inner.passes.lock().expect("gateway passes").get(key).cloned();
    // An unknown pass and an unknown connection look the same: nothing to learn by probing.
    let Some((pass, upstream)) = pass.and_then(|p| Some((p.clone(), p.upstreams.get(&name)?.clone()))) else {
        return plain(StatusCode::NOT_FOUND, "no such connection");
    };
    match upstream {
        Upstream::Stdio(server) => stdio_host::attach(&inner, &name, server, req),
        Upstream::Remote { .. } | Upstream::Served(_) | Upstream::LegacySse { .. } => {
            match pass.endpoint(&name) {
                Ok(endpoint) => forward::forward(&inner, &pass, &name, &endpoint, req).await,
                Err(reason) => {
                    tracing::warn!(connection = name, %reason, "MCP stdio server");
                    let _ = inner.events.send(GatewayEvent::StdioFailed {
                        connection: name.to_string(),
                        reason: reason.clone(),
                    });
                    plain(StatusCode::BAD_GATEWAY, &reason)
                }
            }
        }
    }
}

pub(crate) fn plain(status: StatusCode, text: &str) -> Response<Body> {
    use http_body_util::BodyExt;
    Response::builder()
        .status(status)
        .header("Content-Type", "text/plain; charset=utf-8")
        .body(
            http_body_util::Full::new(Bytes::from(text.to_string()))
                .map_err(|never| match never {})
                .boxed(),
        )
        .expect("a static response builds")
}
