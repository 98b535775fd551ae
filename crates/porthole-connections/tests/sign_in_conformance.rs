//! What the MCP conformance suite's client scenarios found (issue 40 item 5), each against
//! porthole-test-mcp on 127.0.0.1: a token endpoint that takes only `client_secret_post`, a
//! server that lets `initialize` through and asks for sign-in later, a 403
//! `insufficient_scope` step-up (asked once, for the granted and the challenged scopes) and
//! one that can never succeed (not asked again), a server of the 2025-03-26 revision.

use std::sync::Arc;
use std::time::Duration;

use porthole_connections::gateway::{Gateway, GatewayEvent, PassOwner, Upstream};
use porthole_connections::oauth::{self, ClientChoice, Grant, SignInError};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::Tokens;
use porthole_test_mcp::{Options, Server};
use serde_json::{Value, json};
use url::Url;

fn store() -> Arc<SecretStore> {
    Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().expect("in-memory sample store"),
    ))
}

async fn browse(url: &Url) {
    porthole_connections::http::install_crypto_provider();
    let _ = reqwest::Client::new().get(url.clone()).send().await;
}

async fn sign_in_to(url: &Url, more_scopes: &[String]) -> Result<(Grant, Url), SignInError> {
    let http = porthole_connections::http::sign_in_client();
    let hints = oauth::Hints {
        more_scopes,
        ..oauth::Hints::default()
    };
    let pending = oauth::begin_with(&http, url, &ClientChoice::default(), &hints).await?;
    let authorization = pending.authorization_url.clone();
    let finish = tokio::spawn(async move {
        let http = porthole_connections::http::sign_in_client();
        pending.finish(&http, Duration::from_secs(10)).await
    });
    browse(&authorization).await;
    Ok((finish.await.unwrap()?, authorization))
}

async fn sign_in(server: &Server, more_scopes: &[String]) -> Result<(Grant, Url), SignInError> {
    sign_in_to(&Url::parse(&server.mcp_url()).unwrap(), more_scopes).await
}

async fn call(url: &Url, body: Value) -> String {
    porthole_connections::http::install_crypto_provider();
    reqwest::Client::new()
        .post(url.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

fn whoami() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}})
}

fn gateway_pass(gateway: &Gateway, server: &Server) -> Url {
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
    std::mem::forget(pass);
    url
}

#[tokio::test]
async fn a_token_endpoint_that_takes_only_client_secret_post_gets_the_secret_in_the_form() {
    let server = porthole_test_mcp::start(Options {
        client_secret_post: true,
        ..Options::default()
    })
    .await;
    let (grant, _) = sign_in(&server, &[]).await.unwrap();
    assert_eq!(
        grant.registration.token_endpoint_auth_method.as_deref(),
        Some("client_secret_post")
    );
    let refreshed = oauth::refresh(&porthole_connections::http::sign_in_client(), grant)
        .await
        .unwrap();
    assert!(refreshed.access_token.starts_with("at-"));
    assert_eq!(server.state().token_auth, ["post", "post"]);
    // The secret is in no Debug output.
    let secret = refreshed.registration.client_secret.clone().unwrap();
    assert!(!format!("{refreshed:?}").contains(&secret));
}

#[tokio::test]
async fn a_server_that_asks_for_sign_in_only_after_initialize_can_be_signed_in_to() {
    let server = porthole_test_mcp::start(Options {
        late_401: true,
        ..Options::default()
    })
    .await;
    // Through the gateway with no sign-in: the agent is told it needs one, not that it expired.
    let gateway = Gateway::start(Arc::new(Tokens::new(store()))).await.unwrap();
    let mut events = gateway.events();
    let url = gateway_pass(&gateway, &server);
    let body = call(&url, whoami()).await;
    assert!(body.contains("`tracker` needs sign-in"), "{body}");
    assert!(!body.contains("expired"), "{body}");
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(event, GatewayEvent::SignInNeeded { .. }));

    let (grant, authorization) = sign_in(&server, &[]).await.unwrap();
    assert!(grant.access_token.starts_with("at-"));
    // The scopes of the later 401's challenge.
    assert!(
        authorization.as_str().contains("scope=tools%3Aread+tools%3Acall"),
        "{authorization}"
    );
}

#[tokio::test]
async fn a_403_insufficient_scope_asks_once_for_the_granted_and_the_challenged_scopes() {
    let server = porthole_test_mcp::start(Options {
        step_up_scope: Some("tools:admin".into()),
        ..Options::default()
    })
    .await;
    let tokens = Arc::new(Tokens::new(store()));
    let (grant, _) = sign_in(&server, &[]).await.unwrap();
    tokens.store("tracker", grant).await.unwrap();
    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let mut events = gateway.events();
    let url = gateway_pass(&gateway, &server);

    let body = call(&url, whoami()).await;
    assert!(body.contains("needs a sign-in with more scopes"), "{body}");
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(&event, GatewayEvent::SignInNeeded { reason, .. } if reason.contains("tools:admin")),
        "{event:?}"
    );
    let wanted = tokens.step_up_scopes("tracker");
    assert_eq!(wanted, ["tools:read", "tools:call", "tools:admin"]);

    // The next sign-in asks for all of them, and the call goes through.
    let (grant, _) = sign_in(&server, &wanted).await.unwrap();
    assert_eq!(
        server.state().authorized_scopes.last().unwrap(),
        "tools:read tools:call tools:admin"
    );
    tokens.store("tracker", grant).await.unwrap();
    let body = call(&url, whoami()).await;
    assert!(body.contains("signed in"), "{body}");
}

#[tokio::test]
async fn a_403_for_scopes_already_granted_is_refused_without_asking_again() {
    let server = porthole_test_mcp::start(Options {
        always_403: true,
        ..Options::default()
    })
    .await;
    let tokens = Arc::new(Tokens::new(store()));
    let (grant, _) = sign_in(&server, &[]).await.unwrap();
    tokens.store("tracker", grant).await.unwrap();
    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let mut events = gateway.events();
    let url = gateway_pass(&gateway, &server);
    for _ in 0..3 {
        let body = call(&url, whoami()).await;
        assert!(body.contains("does not ask again"), "{body}");
    }
    assert!(tokens.step_up_scopes("tracker").is_empty());
    assert!(
        tokio::time::timeout(Duration::from_millis(300), events.recv())
            .await
            .is_err(),
        "no sign-in asked"
    );
    assert_eq!(server.state().authorized_scopes.len(), 1);
}

#[tokio::test]
async fn a_server_of_the_2025_03_26_revision_without_resource_metadata_can_be_signed_in_to() {
    let server = porthole_test_mcp::start(Options {
        legacy: true,
        ..Options::default()
    })
    .await;
    let (grant, authorization) = sign_in(&server, &[]).await.unwrap();
    assert!(grant.access_token.starts_with("at-"));
    assert_eq!(grant.resource, server.mcp_url());
    // Found at the origin's root well-known address, as that revision says.
    assert!(
        authorization
            .as_str()
            .starts_with(&format!("{}/auth/authorize?", server.base())),
        "{authorization}"
    );
}

/// A connection whose server moves to another authorization server signs in there (a new
/// registration); the first one's registration is kept, so moving back reuses it.
#[tokio::test]
async fn registrations_are_kept_per_issuer() {
    let first = porthole_test_mcp::start(Options::default()).await;
    let second = porthole_test_mcp::start(Options::default()).await;
    let tokens = Tokens::new(store());
    let (grant, _) = sign_in(&first, &[]).await.unwrap();
    tokens.store("tracker", grant).await.unwrap();
    let (grant, _) = sign_in(&second, &[]).await.unwrap();
    tokens.store("tracker", grant).await.unwrap();
    let kept = tokens.registrations("tracker");
    let issuers: Vec<&str> = kept.iter().map(|r| r.issuer.as_str()).collect();
    assert_eq!(
        issuers,
        [
            format!("{}/auth", first.base()),
            format!("{}/auth", second.base())
        ]
    );

    // Back to the first: its registration is used, nothing is registered again.
    let http = porthole_connections::http::sign_in_client();
    let url = Url::parse(&first.mcp_url()).unwrap();
    let hints = oauth::Hints {
        known: &kept,
        ..oauth::Hints::default()
    };
    let pending = oauth::begin_with(&http, &url, &ClientChoice::default(), &hints)
        .await
        .unwrap();
    assert_eq!(pending.registration.client_id, kept[0].client_id);
    assert_eq!(first.state().clients.len(), 1);
}

/// A server that asks for sign-in only at a tool call (which sign-in's own probe does not
/// send): the gateway keeps its 401's challenge, and the sign-in asks for its scope.
#[tokio::test]
async fn the_challenge_of_a_401_the_gateway_saw_is_kept_for_the_sign_in() {
    let server = porthole_test_mcp::start(Options {
        call_401_scope: Some("tools:read tools:call tools:admin".into()),
        ..Options::default()
    })
    .await;
    let tokens = Arc::new(Tokens::new(store()));
    let gateway = Gateway::start(tokens.clone()).await.unwrap();
    let url = gateway_pass(&gateway, &server);
    let body = call(&url, whoami()).await;
    assert!(body.contains("`tracker` needs sign-in"), "{body}");
    let kept = tokens.challenge("tracker").expect("the 401's challenge kept");
    assert_eq!(kept.scope.as_deref(), Some("tools:read tools:call tools:admin"));

    let http = porthole_connections::http::sign_in_client();
    let hints = oauth::Hints {
        challenge: Some(&kept),
        ..oauth::Hints::default()
    };
    let mcp = Url::parse(&server.mcp_url()).unwrap();
    let pending = oauth::begin_with(&http, &mcp, &ClientChoice::default(), &hints)
        .await
        .unwrap();
    assert!(
        pending.scopes.contains(&"tools:admin".to_string()),
        "{:?}",
        pending.scopes
    );
    let authorization = pending.authorization_url.clone();
    let finish = tokio::spawn(async move {
        let http = porthole_connections::http::sign_in_client();
        pending.finish(&http, Duration::from_secs(10)).await
    });
    browse(&authorization).await;
    tokens
        .store("tracker", finish.await.unwrap().unwrap())
        .await
        .unwrap();
    let body = call(&url, whoami()).await;
    assert!(body.contains("signed in"), "{body}");
}
