//! An OAuth-protected MCP server for tests, all on one loopback port:
//!
//! - the resource server at `/mcp` (MCP streamable HTTP: `initialize`, `tools/list`,
//!   `tools/call` of `echo` (answered as an event stream with a progress notification first)
//!   and `whoami`), which answers 401 with a `resource_metadata` challenge without a valid token;
//! - its protected resource metadata (RFC 9728) and an authorization server under `/auth`
//!   (RFC 8414 metadata, RFC 7591 registration, an authorize endpoint that approves at once by
//!   redirecting, the token endpoint with PKCE S256 and single-use codes, refresh, RFC 7009
//!   revocation);
//! - `Hostile` variants, one per attack sign-in must refuse.
//!
//! What it saw (the bearer tokens the resource server received) is kept for the tests.

pub mod apps;
mod auth;
pub mod mcp;
pub mod mcp_apps;
pub mod ts_sdk;

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

/// One way a server can misbehave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hostile {
    /// The protected resource metadata names a resource on another origin.
    ResourceOtherOrigin,
    /// The authorization server's token endpoint is plain http on another machine.
    TokenEndpointPlainHttp,
    /// The authorization server's metadata claims another issuer.
    IssuerMismatch,
    /// The authorization answer carries a `state` that is not the client's.
    WrongState,
    /// The authorization answer names another issuer in `iss` (RFC 9207 mix-up).
    IssuerMixUp,
    /// The authorize endpoint hands out a code that was already redeemed.
    ReplayedCode,
    /// The resource metadata address redirects to itself.
    RedirectLoop,
    /// The authorization server metadata is 8 MiB.
    Oversized,
    /// The authorization server metadata never ends.
    Endless,
    /// The resource server answers 401 to every token.
    Always401,
    /// No `S256` in `code_challenge_methods_supported`.
    NoPkce,
    /// No registration endpoint (a client id must be entered).
    NoRegistration,
}

impl Hostile {
    pub const ALL: [Hostile; 12] = [
        Hostile::ResourceOtherOrigin,
        Hostile::TokenEndpointPlainHttp,
        Hostile::IssuerMismatch,
        Hostile::WrongState,
        Hostile::IssuerMixUp,
        Hostile::ReplayedCode,
        Hostile::RedirectLoop,
        Hostile::Oversized,
        Hostile::Endless,
        Hostile::Always401,
        Hostile::NoPkce,
        Hostile::NoRegistration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Hostile::ResourceOtherOrigin => "resource-other-origin",
            Hostile::TokenEndpointPlainHttp => "token-endpoint-plain-http",
            Hostile::IssuerMismatch => "issuer-mismatch",
            Hostile::WrongState => "wrong-state",
            Hostile::IssuerMixUp => "issuer-mix-up",
            Hostile::ReplayedCode => "replayed-code",
            Hostile::RedirectLoop => "redirect-loop",
            Hostile::Oversized => "oversized",
            Hostile::Endless => "endless",
            Hostile::Always401 => "always-401",
            Hostile::NoPkce => "no-pkce",
            Hostile::NoRegistration => "no-registration",
        }
    }

    pub fn parse(s: &str) -> Option<Hostile> {
        Hostile::ALL.into_iter().find(|h| h.name() == s)
    }
}

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct Options {
    pub hostile: Option<Hostile>,
    /// Lifetime of access tokens, in seconds.
    pub token_lifetime: u64,
    /// A client id registered by hand (accepted besides dynamically registered ones).
    pub preregistered_client: Option<String>,
    /// The MCP server answers without a token (a server that needs no sign-in).
    pub open: bool,
    /// Offers the `stream` tool too (for benchmarks): `tools/call` of `stream` with
    /// `{"count": N}` answers an event stream of N progress notifications, then the result.
    pub stream_tool: bool,
    /// The authorization server takes client ID metadata documents (its metadata says so), and
    /// this server publishes one at [`Server::client_metadata_url`] (a loopback redirect, any
    /// port), standing in for the https address a client publishes it at.
    pub client_metadata: bool,
    /// The token endpoint takes only `client_secret_post` (its metadata says so): dynamic
    /// registration hands out a client secret, and a token request must carry it in the form;
    /// an `Authorization: Basic` header is refused (`invalid_client`).
    pub client_secret_post: bool,
    /// The MCP server lets `initialize` and notifications through without a token and answers
    /// 401 (with its challenge) only to the requests after them.
    pub late_401: bool,
    /// `tools/call` needs this scope besides the usual ones: a token without it gets 403
    /// `insufficient_scope` naming it (a step-up). Tokens carry the scopes asked at
    /// `/auth/authorize` (the usual ones when none were asked).
    pub step_up_scope: Option<String>,
    /// `tools/call` is refused with 403 `insufficient_scope` naming `tools:call`, whatever
    /// the token holds (a step-up that can never succeed).
    pub always_403: bool,
    /// A server of the 2025-03-26 revision: no protected resource metadata (404, and no
    /// `resource_metadata` in the 401); its authorization server metadata at the root.
    pub legacy: bool,
    /// Everything but `tools/call` passes without a token; `tools/call` gets 401 with this
    /// `scope` in its challenge (more than the resource metadata's `scopes_supported`).
    pub call_401_scope: Option<String>,
    /// MCP Apps (`apps.rs`): UI tools in `tools/list`, their calls, `resources/read` of their
    /// `ui://` resources; sessions of their own (a new id per `initialize`, 404 for an id
    /// forgotten with [`Server::forget_sessions`]). Every `initialize`'s params are kept.
    pub apps: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            hostile: None,
            token_lifetime: 3600,
            preregistered_client: None,
            open: false,
            stream_tool: false,
            client_metadata: false,
            client_secret_post: false,
            late_401: false,
            step_up_scope: None,
            always_403: false,
            legacy: false,
            call_401_scope: None,
            apps: false,
        }
    }
}

/// What the server holds and saw.
#[derive(Default)]
pub struct State {
    /// Client ids and their redirect addresses: registered, entered by hand or published.
    pub clients: HashMap<String, Vec<String>>,
    /// Client secrets handed out by registration (with `client_secret_post`).
    pub(crate) secrets: HashMap<String, String>,
    /// How each token request authenticated the client: `basic`, `post` or `none`.
    pub token_auth: Vec<String>,
    /// code → (client id, redirect uri, PKCE challenge, resource, used)
    pub(crate) codes: HashMap<String, Code>,
    pub(crate) access: HashMap<String, u64>,
    /// The scopes each access token was issued for.
    pub(crate) scopes: HashMap<String, Vec<String>>,
    /// The `scope` of each authorization request, in order.
    pub authorized_scopes: Vec<String>,
    pub(crate) refresh: HashSet<String>,
    pub revoked: Vec<String>,
    /// Every bearer token the resource server was sent, valid or not.
    pub seen_tokens: Vec<String>,
    /// Requests the resource server answered with a result.
    pub served: Vec<String>,
    pub(crate) last_code: Option<String>,
    pub refreshes: usize,
    /// Every access and refresh token issued, in order.
    pub issued: Vec<String>,
    /// The `params` of every `initialize` received, in order.
    pub initialized: Vec<serde_json::Value>,
    /// With `apps`: every request's method and `mcp-session-id`, in order.
    pub requests: Vec<(String, Option<String>)>,
    /// With `apps`: the session ids handed out by `initialize` and not forgotten.
    pub sessions: HashSet<String>,
}

pub(crate) struct Code {
    pub client_id: String,
    pub redirect_uri: String,
    pub challenge: String,
    pub resource: String,
    pub scope: String,
    pub used: bool,
}

pub struct Server {
    pub addr: SocketAddr,
    pub state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The MCP server's address.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base())
    }

    /// Where the client ID metadata document is published (with `client_metadata`): also the
    /// client id it names.
    pub fn client_metadata_url(&self) -> String {
        format!("{}{CLIENT_METADATA_PATH}", self.base())
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("test server state")
    }

    /// Make every access token expire now (the next request must refresh). Another process
    /// does the same with `POST /_test/expire`.
    pub fn expire_access_tokens(&self) {
        self.state().access.values_mut().for_each(|exp| *exp = 0);
    }

    /// Forget every MCP session (with `apps`: their next requests get 404).
    pub fn forget_sessions(&self) {
        self.state().sessions.clear();
    }

    /// Forget every refresh token (a refresh now fails); `POST /_test/forget-refresh`.
    pub fn forget_refresh_tokens(&self) {
        self.state().refresh.clear();
    }
}

/// The path of the client ID metadata document this server publishes.
pub const CLIENT_METADATA_PATH: &str = "/_test/client-metadata.json";

/// The redirect address the published document allows (RFC 8252: any loopback port).
const CLIENT_METADATA_REDIRECT: &str = "http://127.0.0.1/callback";

pub(crate) struct Ctx {
    pub base: String,
    pub options: Options,
    pub state: Arc<Mutex<State>>,
}

pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// Serve on `listener` until dropped.
pub async fn serve(listener: TcpListener, options: Options) -> Server {
    let addr = listener.local_addr().expect("a bound listener has an address");
    let state = Arc::new(Mutex::new(State::default()));
    if let Some(id) = &options.preregistered_client {
        state
            .lock()
            .expect("state")
            .clients
            .insert(id.clone(), Vec::new());
    }
    if options.client_metadata {
        // The document's address is its client id; the server knows what it says (a real
        // authorization server fetches it over https and caches it).
        state.lock().expect("state").clients.insert(
            format!("http://{addr}{CLIENT_METADATA_PATH}"),
            vec![CLIENT_METADATA_REDIRECT.to_string()],
        );
    }
    let ctx = Arc::new(Ctx {
        base: format!("http://{addr}"),
        options,
        state: state.clone(),
    });
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let ctx = ctx.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let ctx = ctx.clone();
                    async move { Ok::<_, Infallible>(route(&ctx, req).await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Server { addr, state, task }
}

/// Serve on a new loopback port.
pub async fn start(options: Options) -> Server {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind 127.0.0.1");
    serve(listener, options).await
}

async fn route(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    match path.as_str() {
        "/mcp" => mcp::handle(ctx, req).await,
        p if p.starts_with("/.well-known/oauth-protected-resource") && !ctx.options.legacy => {
            auth::resource_metadata(ctx, p)
        }
        p if p.starts_with("/.well-known/oauth-authorization-server") => auth::server_metadata(ctx).await,
        "/auth/register" => auth::register(ctx, req).await,
        "/auth/authorize" => auth::authorize(ctx, req),
        "/auth/token" => auth::token(ctx, req).await,
        "/auth/revoke" => auth::revoke(ctx, req).await,
        CLIENT_METADATA_PATH if ctx.options.client_metadata => json(
            StatusCode::OK,
            &serde_json::json!({
                "client_id": format!("{}{CLIENT_METADATA_PATH}", ctx.base),
                "client_name": "Porthole (test)",
                "redirect_uris": [CLIENT_METADATA_REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }),
        ),
        // For tests that look for leaked tokens: every token this server issued.
        "/_test/issued" => {
            let state = ctx.state.lock().expect("state");
            json(
                StatusCode::OK,
                &serde_json::json!({"tokens": state.issued, "seen": state.seen_tokens, "refreshes": state.refreshes}),
            )
        }
        // For tests of another process (the window's): what `expire_access_tokens` and
        // `forget_refresh_tokens` do in-process.
        "/_test/expire" if req.method() == hyper::Method::POST => {
            ctx.state
                .lock()
                .expect("state")
                .access
                .values_mut()
                .for_each(|exp| *exp = 0);
            text(StatusCode::OK, "access tokens expired")
        }
        "/_test/forget-refresh" if req.method() == hyper::Method::POST => {
            ctx.state.lock().expect("state").refresh.clear();
            text(StatusCode::OK, "refresh tokens forgotten")
        }
        _ => text(StatusCode::NOT_FOUND, "not found"),
    }
}

pub(crate) fn text(status: StatusCode, body: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("Content-Type", "text/plain")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("response")
}

pub(crate) fn json(status: StatusCode, value: &serde_json::Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("Content-Type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())).boxed())
        .expect("response")
}

pub(crate) async fn read_body(req: Request<Incoming>) -> Bytes {
    req.into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default()
}

pub(crate) fn random_token(prefix: &str) -> String {
    use base64::Engine;
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("random bytes");
    format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The test server as a process (`porthole-test-mcp ARGS`, the binary at `binary`), for tests
/// of other crates; killed when dropped.
pub struct Spawned {
    child: std::process::Child,
    /// The MCP server's address (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
}

impl Spawned {
    pub fn start(binary: &std::path::Path, args: &[&str]) -> Spawned {
        use std::io::BufRead;
        let mut child = std::process::Command::new(binary)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("porthole-test-mcp's ready line");
        let url = line
            .trim()
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("porthole-test-mcp said {line:?}, not `ready URL`"))
            .to_string();
        Spawned { child, url }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
