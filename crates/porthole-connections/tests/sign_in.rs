//! Sign-in and the gateway against porthole-test-mcp on 127.0.0.1: the happy path, refresh,
//! sign-out, and every hostile variant refused with a message that says why.

use std::sync::Arc;
use std::time::Duration;

use porthole_connections::gateway::{Gateway, GatewayEvent, PassOwner, StdioServer, Upstream};
use porthole_connections::oauth::{self, ClientChoice, Grant, SignInError};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::{SignInState, Tokens};
use porthole_test_mcp::{Hostile, Options, Server};
use serde_json::{Value, json};
use url::Url;

fn store() -> Arc<SecretStore> {
    Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().expect("in-memory sample store"),
    ))
}

/// A client like an agent's or a browser's (redirects followed).
fn plain_client() -> reqwest::Client {
    porthole_connections::http::install_crypto_provider();
    reqwest::Client::new()
}

/// The person's browser: opens the authorization page and follows its redirect home.
async fn browse(url: &Url) {
    let browser = plain_client();
    let _ = browser.get(url.clone()).send().await;
}

async fn sign_in(server: &Server, choice: &ClientChoice) -> Result<Grant, SignInError> {
    let http = porthole_connections::http::sign_in_client();
    let mcp = Url::parse(&server.mcp_url()).unwrap();
    let pending = oauth::begin(&http, &mcp, choice, None).await?;
    let url = pending.authorization_url.clone();
    let finish = tokio::spawn(async move {
        let http = porthole_connections::http::sign_in_client();
        pending.finish(&http, Duration::from_secs(10)).await
    });
    browse(&url).await;
    finish.await.unwrap()
}

async fn hostile(case: Hostile) -> String {
    let server = porthole_test_mcp::start(Options {
        hostile: Some(case),
        ..Options::default()
    })
    .await;
    match sign_in(&server, &ClientChoice::default()).await {
        Ok(_) => panic!("{}: signed in", case.name()),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn signs_in_with_discovery_registration_pkce_and_resource() {
    let server = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&server, &ClientChoice::default()).await.unwrap();
    assert!(grant.access_token.starts_with("at-"));
    assert!(grant.refresh_token.is_some());
    assert_eq!(grant.resource, server.mcp_url());
    assert_eq!(grant.registration.how, "dynamic");
    assert_eq!(grant.scopes, ["tools:read", "tools:call"]);
    // No secret in the grant's Debug (what a log line would show).
    let shown = format!("{grant:?}");
    assert!(
        !shown.contains(&grant.access_token) && !shown.contains("rt-"),
        "{shown}"
    );

    let refreshed = oauth::refresh(&porthole_connections::http::sign_in_client(), grant.clone())
        .await
        .unwrap();
    assert_ne!(refreshed.access_token, grant.access_token);
    assert_eq!(server.state().refreshes, 1);
    let revoked = oauth::revoke(&porthole_connections::http::sign_in_client(), refreshed.clone())
        .await
        .unwrap();
    assert!(revoked);
    assert!(server.state().revoked.contains(&refreshed.access_token));
}

/// A server that takes client ID metadata documents gets the document's address as the client
/// id, and no dynamic registration happens (the spec's order: entered id, document, dynamic).
/// One that does not take them gets a dynamic registration although a document is published.
#[tokio::test]
async fn a_published_client_metadata_document_is_the_client_id_where_the_server_takes_one() {
    let server = porthole_test_mcp::start(Options {
        client_metadata: true,
        ..Options::default()
    })
    .await;
    let document = Url::parse(&server.client_metadata_url()).unwrap();
    let choice = ClientChoice {
        metadata_document: Some(document.clone()),
        ..ClientChoice::default()
    };
    let grant = sign_in(&server, &choice).await.unwrap();
    assert_eq!(grant.registration.how, "metadata-document");
    assert_eq!(grant.registration.client_id, document.as_str());
    assert_eq!(
        server.state().clients.len(),
        1,
        "nothing was registered dynamically"
    );

    let plain = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&plain, &choice).await.unwrap();
    assert_eq!(grant.registration.how, "dynamic");
}

#[tokio::test]
async fn a_client_id_the_person_entered_is_used_when_nothing_else_is_offered() {
    let server = porthole_test_mcp::start(Options {
        hostile: Some(Hostile::NoRegistration),
        preregistered_client: Some("entered-client".into()),
        ..Options::default()
    })
    .await;
    let e = sign_in(&server, &ClientChoice::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("--client-id"), "{e}");
    let choice = ClientChoice {
        client_id: Some("entered-client".into()),
        ..ClientChoice::default()
    };
    let grant = sign_in(&server, &choice).await.unwrap();
    assert_eq!(grant.registration.how, "entered");
}

#[tokio::test]
async fn every_hostile_server_is_refused_with_a_reason() {
    let expect = [
        (Hostile::ResourceOtherOrigin, "not for"),
        (Hostile::TokenEndpointPlainHttp, "plain http"),
        (Hostile::IssuerMismatch, "issuer mix-up"),
        (Hostile::WrongState, "state"),
        (Hostile::IssuerMixUp, "mix-up"),
        (Hostile::RedirectLoop, "redirect"),
        (Hostile::Oversized, "larger than"),
        (Hostile::Endless, "larger than"),
        (Hostile::NoPkce, "S256"),
    ];
    for (case, words) in expect {
        let said = hostile(case).await;
        assert!(said.contains(words), "{}: {said}", case.name());
    }
}

#[tokio::test]
async fn a_replayed_code_is_refused_by_the_token_endpoint() {
    let server = porthole_test_mcp::start(Options {
        hostile: Some(Hostile::ReplayedCode),
        ..Options::default()
    })
    .await;
    sign_in(&server, &ClientChoice::default()).await.unwrap();
    let e = sign_in(&server, &ClientChoice::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalid_grant"), "{e}");
}

#[tokio::test]
async fn the_loopback_listener_takes_one_answer_only() {
    let server = porthole_test_mcp::start(Options::default()).await;
    let http = porthole_connections::http::sign_in_client();
    let mcp = Url::parse(&server.mcp_url()).unwrap();
    let pending = oauth::begin(&http, &mcp, &ClientChoice::default(), None)
        .await
        .unwrap();
    let redirect = pending.redirect_uri().clone();
    let url = pending.authorization_url.clone();
    let finish = tokio::spawn(async move {
        pending
            .finish(
                &porthole_connections::http::sign_in_client(),
                Duration::from_secs(10),
            )
            .await
    });
    browse(&url).await;
    finish.await.unwrap().unwrap();
    // The same answer again finds nothing listening.
    let again = plain_client()
        .get(format!("{redirect}?code=x&state=y"))
        .send()
        .await;
    assert!(again.is_err(), "the listener still answers after its one answer");
}

/// A JSON-RPC request through the gateway, as an agent's MCP client sends it.
async fn call(
    url: &Url,
    session: Option<&str>,
    body: Value,
) -> (reqwest::StatusCode, Option<String>, String) {
    let client = plain_client();
    let mut request = client
        .post(url.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
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
    (status, session, answer.text().await.unwrap())
}

#[tokio::test]
async fn the_gateway_adds_the_token_refreshes_it_and_asks_for_sign_in_when_refresh_fails() {
    let server = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&server, &ClientChoice::default()).await.unwrap();
    let keyring = store();
    let tokens = Arc::new(Tokens::new(keyring.clone()));
    tokens.store("tracker", grant.clone()).await.unwrap();
    let mcp = Url::parse(&server.mcp_url()).unwrap();
    assert!(matches!(
        tokens.state("tracker", &mcp).await.unwrap(),
        SignInState::SignedIn { .. }
    ));

    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let mut events = gateway.events();
    let pass = gateway.open(
        vec![(
            "tracker".into(),
            Upstream::Remote {
                url: Url::parse(&server.mcp_url()).unwrap(),
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    let url = pass.url("tracker").unwrap();
    assert_eq!(url.host_str(), Some("127.0.0.1"));
    assert!(!url.as_str().contains(&grant.access_token));

    let (status, session, body) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(session.as_deref(), Some("test-session-1"));
    // A streamed answer passes as it came: the progress notification, then the result.
    let (_, _, body) = call(
        &url,
        session.as_deref(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 7}}}),
    )
    .await;
    assert!(
        body.contains("notifications/progress") && body.contains("echo: hi"),
        "{body}"
    );
    assert!(!body.contains(&grant.access_token));
    {
        let state = server.state();
        // Counted, not printed: a token never goes to a test's output.
        let others = state
            .seen_tokens
            .iter()
            .filter(|t| *t != &grant.access_token)
            .count();
        assert_eq!(
            others, 0,
            "the server saw {others} tokens that are not the grant's"
        );
        assert!(!state.seen_tokens.iter().any(|t| t == "agent-made-this-up"));
    }

    // Expired: one refresh, the call still works.
    server.expire_access_tokens();
    let (_, _, body) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "whoami"}}),
    )
    .await;
    assert!(body.contains("signed in"), "{body}");
    assert_eq!(server.state().refreshes, 1);

    // Expired and the refresh token is gone: the agent's model reads why, Porthole is told.
    server.expire_access_tokens();
    server.forget_refresh_tokens();
    let (_, _, body) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "whoami"}}),
    )
    .await;
    assert!(body.contains("Sign in to `tracker` again"), "{body}");
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(event, GatewayEvent::SignInNeeded { ref connection, .. } if connection == "tracker"));
    assert!(matches!(
        tokens.state("tracker", &mcp).await.unwrap(),
        SignInState::Expired { .. }
    ));
    // No refresh storm: the next call does not try again until the person signs in.
    let refreshes = server.state().refreshes;
    call(&url, None, json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
    assert_eq!(server.state().refreshes, refreshes);

    // Signing in again elsewhere (another Porthole process, e.g. `porthole-cli mcp login`, writes
    // the same keyring) is picked up without a restart.
    let again = sign_in(&server, &ClientChoice::default()).await.unwrap();
    Tokens::new(keyring.clone())
        .store("tracker", again)
        .await
        .unwrap();
    let (_, _, body) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "whoami"}}),
    )
    .await;
    assert!(body.contains("signed in"), "{body}");
    assert!(matches!(
        tokens.state("tracker", &mcp).await.unwrap(),
        SignInState::SignedIn { .. }
    ));

    // The pass dies with the session.
    drop(pass);
    assert_eq!(gateway.open_passes(), 0);
    let (status, _, _) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(status, 404);
}

/// A grant is kept under the connection's name. When the name comes to point at another
/// server (connections.json edited by hand), the old server's token must not go there.
#[tokio::test]
async fn a_grant_is_never_sent_to_a_server_it_was_not_made_for() {
    let signed_in_at = porthole_test_mcp::start(Options::default()).await;
    let elsewhere = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&signed_in_at, &ClientChoice::default()).await.unwrap();
    let tokens = Arc::new(Tokens::new(store()));
    tokens.store("tracker", grant.clone()).await.unwrap();
    let old_url = Url::parse(&signed_in_at.mcp_url()).unwrap();
    let new_url = Url::parse(&elsewhere.mcp_url()).unwrap();

    // The window and `mcp list` say so: signed in where it was made, not at the new address.
    assert!(matches!(
        tokens.state("tracker", &old_url).await.unwrap(),
        SignInState::SignedIn { .. }
    ));
    match tokens.state("tracker", &new_url).await.unwrap() {
        SignInState::Expired { reason } => {
            assert!(reason.contains(&new_url.to_string()), "{reason}");
            assert!(!reason.contains(&grant.access_token));
        }
        other => panic!("a grant for {old_url} reads as {other:?} at {new_url}"),
    }

    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let mut events = gateway.events();
    let pass = gateway.open(
        vec![(
            "tracker".into(),
            Upstream::Remote {
                url: new_url.clone(),
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    let url = pass.url("tracker").unwrap();
    let (_, _, body) = call(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami"}}),
    )
    .await;
    assert!(body.contains("Sign in to `tracker` again"), "{body}");
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(event, GatewayEvent::SignInNeeded { ref connection, .. } if connection == "tracker"));
    // Nothing reached the new server, and the old grant was not refreshed for it.
    assert_eq!(elsewhere.state().seen_tokens.len(), 0);
    assert_eq!(signed_in_at.state().refreshes, 0);
}

#[tokio::test]
async fn a_server_that_answers_401_forever_gets_one_refresh_per_request() {
    let server = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&server, &ClientChoice::default()).await.unwrap();
    drop(server);
    // The same grant against a server that refuses every token.
    let hostile = porthole_test_mcp::start(Options {
        hostile: Some(Hostile::Always401),
        ..Options::default()
    })
    .await;
    let tokens = Arc::new(Tokens::new(store()));
    tokens.store("x", grant).await.unwrap();
    let gateway = Gateway::start(tokens).await.unwrap();
    let pass = gateway.open(
        vec![(
            "x".into(),
            Upstream::Remote {
                url: Url::parse(&hostile.mcp_url()).unwrap(),
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    let (_, _, body) = call(
        &pass.url("x").unwrap(),
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    )
    .await;
    assert!(body.contains("Sign in to `x` again"), "{body}");
    // The first attempt and one after the refresh attempt; never more.
    assert!(
        hostile.state().seen_tokens.len() <= 2,
        "{:?}",
        hostile.state().seen_tokens.len()
    );
}

#[tokio::test]
async fn the_bridge_speaks_stdio_to_a_remote_connection_and_pipes_to_a_hosted_stdio_server() {
    let server = porthole_test_mcp::start(Options::default()).await;
    let grant = sign_in(&server, &ClientChoice::default()).await.unwrap();
    let tokens = Arc::new(Tokens::new(store()));
    tokens.store("remote", grant).await.unwrap();
    let gateway = Gateway::start(tokens).await.unwrap();
    let pass = gateway.open(
        vec![
            (
                "remote".into(),
                Upstream::Remote {
                    url: Url::parse(&server.mcp_url()).unwrap(),
                    headers: vec![],
                },
            ),
            (
                "local".into(),
                Upstream::Stdio(StdioServer {
                    command: "sh".into(),
                    // Proves the secret reached the server's environment, without echoing it.
                    args: vec![
                        "-c".into(),
                        "test \"$SECRET_TOKEN\" = s3cret && echo has-secret; cat".into(),
                    ],
                    env: vec![("SECRET_TOKEN".into(), "s3cret".into())],
                    cwd: None,
                }),
            ),
        ],
        PassOwner::default(),
    );

    // HTTP mode: lines in, lines out.
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect::<String>();
    let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
    let url = pass.url("remote").unwrap();
    tokio::spawn(async move { porthole_connections::bridge::http_with(&url, input.as_bytes(), out_w).await });
    use tokio::io::AsyncReadExt;
    let mut text = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), out_r.read_to_string(&mut text)).await;
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[1]["result"]["tools"][0]["name"], "echo");

    // Pipe mode: bytes both ways to a server the gateway started with the secret.
    let (w, mut r) = tokio::io::duplex(1 << 16);
    let url = pass.url("local").unwrap();
    tokio::spawn(async move { porthole_connections::bridge::pipe_with(&url, &b"hello\n"[..], w).await });
    let mut got = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), r.read_to_string(&mut got)).await;
    assert_eq!(got, "has-secret\nhello\n");
}
