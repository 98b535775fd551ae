//! Sign-in and the gateway against a server nobody here wrote: tests/mcp-sdk/oauth_server.py,
//! built on the official MCP Python SDK (`mcp` on PyPI, the version pinned in
//! tests/mcp-sdk/requirements.txt). The SDK serves the protected resource metadata, the 401,
//! RFC 8414 metadata, registration, /authorize, /token and /revoke, and checks the bearer token
//! (its scope, and the RFC 8707 resource it was issued for) on /mcp. Porthole's real code does
//! the rest: discovery from the 401, dynamic registration, PKCE, `resource`, the loopback answer,
//! the keyring-backed `Tokens`, the gateway, refresh and revocation.
//!
//! Needs the SDK in a venv: `./scripts/test-mcp-sdk --install` (or `./scripts/test-mcp-sdk`,
//! which installs and runs this test). `PORTHOLE_MCP_SDK_PYTHON` names another interpreter.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use porthole_connections::gateway::{Gateway, PassOwner, Upstream};
use porthole_connections::oauth::{self, ClientChoice, Grant};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::{GRANT_KEY, SignInState, Tokens};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use url::Url;

const DEFAULT_PYTHON: &str = "/var/tmp/porthole-mcp-sdk/venv/bin/python";
const INSTALL: &str = "install it with `./scripts/test-mcp-sdk --install` (a venv under /var/tmp/porthole-mcp-sdk \
     with the pinned `mcp` from tests/mcp-sdk/requirements.txt; needs Python 3.10+ with venv and pip), \
     or point PORTHOLE_MCP_SDK_PYTHON at an interpreter that has it";

/// The SDK's server, stopped when dropped.
struct SdkServer {
    _child: tokio::process::Child,
    mcp: Url,
}

impl SdkServer {
    fn base(&self) -> Url {
        self.mcp.join("/").unwrap()
    }

    /// What its authorization server was sent (the test-only route of oauth_server.py).
    async fn seen(&self) -> Value {
        plain_client()
            .get(self.base().join("/test/seen").unwrap())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap()
    }
}

async fn start_sdk_server() -> SdkServer {
    let python = std::env::var_os("PORTHOLE_MCP_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PYTHON));
    assert!(
        python.exists(),
        "the MCP Python SDK's interpreter {} is missing: {INSTALL}",
        python.display()
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp-sdk/oauth_server.py");
    let mut child = tokio::process::Command::new(&python)
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {} {}: {e}; {INSTALL}",
                python.display(),
                script.display()
            )
        });
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    // A generous bound for a cold Python start on a loaded machine; not a speed check.
    let line = tokio::time::timeout(Duration::from_secs(120), out.next_line())
        .await
        .expect("oauth_server.py printed nothing in 120 s");
    let Some(line) = line.unwrap() else {
        let mut said = String::new();
        let _ = tokio::io::AsyncReadExt::read_to_string(&mut err, &mut said).await;
        panic!("oauth_server.py stopped before it was ready: {said}\n{INSTALL}");
    };
    let mcp = line
        .strip_prefix("ready ")
        .unwrap_or_else(|| panic!("oauth_server.py said `{line}`, not `ready URL`"));
    // Its warnings go to the test's output.
    tokio::spawn(async move {
        let mut lines = err.lines();
        while let Ok(Some(l)) = lines.next_line().await {
            eprintln!("oauth_server.py: {l}");
        }
    });
    SdkServer {
        mcp: Url::parse(mcp).unwrap(),
        _child: child,
    }
}

fn plain_client() -> reqwest::Client {
    porthole_connections::http::install_crypto_provider();
    reqwest::Client::new()
}

/// The person's browser: the SDK's /authorize approves at once and redirects to the loopback.
async fn sign_in(server: &SdkServer) -> Grant {
    let http = porthole_connections::http::sign_in_client();
    let pending = oauth::begin(&http, &server.mcp, &ClientChoice::default(), None)
        .await
        .unwrap();
    assert_eq!(pending.scopes, ["mcp:tools"]);
    let url = pending.authorization_url.clone();
    let finish = tokio::spawn(async move {
        pending
            .finish(
                &porthole_connections::http::sign_in_client(),
                Duration::from_secs(30),
            )
            .await
    });
    let page = plain_client().get(url).send().await.unwrap();
    assert!(
        page.status().is_success(),
        "the browser ended on {}",
        page.status()
    );
    finish.await.unwrap().unwrap()
}

/// One JSON-RPC message as an agent's MCP client sends it; the answer's messages (a JSON body
/// or the `data:` lines of an event stream).
async fn call(
    url: &Url,
    session: Option<&str>,
    body: Value,
) -> (reqwest::StatusCode, Option<String>, Vec<Value>) {
    let mut request = plain_client()
        .post(url.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        // An agent's own Authorization never reaches the server.
        .header("Authorization", "Bearer agent-made-this-up")
        .body(body.to_string());
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status();
    let session = answer
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = answer.text().await.unwrap();
    let messages = if text.trim_start().starts_with('{') {
        vec![serde_json::from_str(&text).unwrap()]
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter(|d| !d.trim().is_empty())
            .map(|d| serde_json::from_str(d.trim()).unwrap_or_else(|e| panic!("{e}: {d}")))
            .collect()
    };
    (status, session, messages)
}

/// The text of a tools/call result.
fn tool_text(messages: &[Value], id: u64) -> String {
    let answer = messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id} in {messages:?}"));
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {answer}"))
        .to_string()
}

#[tokio::test]
async fn signs_in_to_the_mcp_python_sdk_calls_through_the_gateway_refreshes_and_revokes() {
    let server = start_sdk_server().await;
    let mcp = server.mcp.as_str().to_string();

    // Sign-in: discovery from the SDK's 401, registration, PKCE and resource, the loopback.
    let grant = sign_in(&server).await;
    assert_eq!(grant.resource, mcp);
    assert_eq!(grant.registration.how, "dynamic");
    assert_eq!(grant.scopes, ["mcp:tools"]);
    assert!(grant.refresh_token.is_some());
    assert!(grant.revocation_endpoint.is_some());
    let seen = server.seen().await;
    assert_eq!(seen["registrations"], 1, "{seen}");
    assert_eq!(seen["exchanges"], 1, "{seen}");
    let authorize = &seen["authorize"][0];
    assert_eq!(authorize["resource"], mcp.as_str(), "{seen}");
    assert_eq!(authorize["scopes"], json!(["mcp:tools"]), "{seen}");
    assert_eq!(authorize["has_code_challenge"], true, "{seen}");
    assert_eq!(authorize["client_id"], grant.registration.client_id.as_str());
    assert!(
        authorize["redirect_uri"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"),
        "{seen}"
    );

    // The grant in the keyring-backed Tokens, the SDK's server behind the gateway.
    let secrets = Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().expect("in-memory sample store"),
    ));
    let tokens = Arc::new(Tokens::new(secrets.clone()));
    tokens.store("sdk", grant.clone()).await.unwrap();
    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let pass = gateway.open(
        vec![(
            "sdk".into(),
            Upstream::Remote {
                url: server.mcp.clone(),
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    let url = pass.url("sdk").unwrap();

    let (status, session, messages) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200, "{messages:?}");
    let session = session.expect("the SDK names a session");
    assert_eq!(messages[0]["result"]["serverInfo"]["name"], "porthole-sdk-test");
    let (status, _, _) = call(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(status, 202);
    let (_, _, messages) = call(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    let mut names: Vec<&str> = messages[0]["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{messages:?}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["echo", "whoami"]);
    let (_, _, messages) = call(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}),
    )
    .await;
    assert_eq!(tool_text(&messages, 3), "echo: hi");
    // The SDK saw Porthole's token, issued for this resource, not the agent's.
    let (_, _, messages) = call(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}),
    )
    .await;
    assert_eq!(
        tool_text(&messages, 4),
        format!(
            "client={} resource={mcp} scopes=mcp:tools",
            grant.registration.client_id
        )
    );

    // The SDK forgets every access token: the gateway's call gets a 401, refreshes at the
    // SDK's /token with the refresh token and resource, and the call goes through.
    let expired = plain_client()
        .post(server.base().join("/test/expire").unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(expired.status(), 204);
    let (_, _, messages) = call(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "again"}}}),
    )
    .await;
    assert_eq!(tool_text(&messages, 5), "echo: again");
    assert_eq!(server.seen().await["refreshes"], 1);
    let kept: Grant = serde_json::from_str(&secrets.get("sdk", GRANT_KEY).unwrap().unwrap()).unwrap();
    assert_ne!(kept.access_token, grant.access_token);
    assert_ne!(kept.refresh_token, grant.refresh_token);
    assert_eq!(kept.resource, mcp);
    assert!(matches!(
        tokens.state("sdk", &server.mcp).await.unwrap(),
        SignInState::SignedIn { .. }
    ));
    // The old token is refused by the SDK itself.
    let old = plain_client()
        .post(server.mcp.clone())
        .bearer_auth(&grant.access_token)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 401);

    // Sign-out revokes at the SDK's /revoke (RFC 7009); the tokens are gone there and here.
    let (revoked, error) = tokens.sign_out("sdk").await.unwrap();
    assert!(revoked, "{error:?}");
    assert!(server.seen().await["revoked"].as_u64().unwrap() >= 1);
    let after = plain_client()
        .post(server.mcp.clone())
        .bearer_auth(&kept.access_token)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 401);
    let refused = oauth::refresh(&porthole_connections::http::sign_in_client(), kept)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("invalid_grant"), "{refused}");
    assert!(matches!(
        tokens.state("sdk", &server.mcp).await.unwrap(),
        SignInState::SignedOut
    ));
}
