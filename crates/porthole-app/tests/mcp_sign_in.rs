//! Signing in to an MCP connection from the window, as the app model does it: the sign-in page
//! comes as a URL consent dialog (Porthole's own, under every URL-mode rule), a "browser" opens
//! the accepted address, the tokens go to the keyring (an in-memory one here), the connection
//! shows as signed in and the demo agent's tool call reaches the server signed in. Then an
//! expired token is refreshed without the person, a failed refresh asks for sign-in again,
//! sign-out revokes, and a declined sign-in leaves nothing listening.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{FakeShell, workspace_bin};
use porthole_app::McpConnectionList;
use porthole_connections::secrets::SecretStore;
use serde_json::Value;

fn connection(list: &McpConnectionList, name: &str) -> serde_json::Value {
    let c = list
        .connections
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no `{name}` in the list"));
    serde_json::to_value(c).unwrap()
}

/// What the demo agent said in the session since `from` events.
fn said_since(shell: &FakeShell, from: usize) -> String {
    shell.events.lock().unwrap()[from..]
        .iter()
        .filter(|e| e["type"] == "session_update")
        .filter_map(|e| e["update"]["content"]["text"].as_str().map(str::to_string))
        .collect()
}

/// A turn with `/tools guarded whoami`; returns what the agent said in it.
async fn call_whoami(backend: &porthole_app::Backend, shell: &FakeShell, session: &str) -> String {
    let from = shell.events.lock().unwrap().len();
    backend
        .send_prompt(session, "/tools guarded whoami", &[])
        .unwrap();
    shell
        .wait(&format!("the end of the turn after event {from}"), |events| {
            events[from..]
                .iter()
                .find(|e| e["type"] == "turn_ended" && e["sessionId"] == session)
                .cloned()
        })
        .await;
    said_since(shell, from)
}

/// The person's browser: follows the sign-in page's redirects back to Porthole's listener.
fn browse(url: &str) {
    let test_mcp = workspace_bin("porthole-test-mcp", "porthole-test-mcp");
    let status = std::process::Command::new(test_mcp)
        .args(["--browse", url])
        .status()
        .unwrap();
    assert!(status.success(), "the browser did not get through");
}

/// The sign-in dialog the window lists for `dialog_id`.
async fn listed_dialog(shell: &FakeShell, dialog_id: u64) -> Value {
    shell
        .wait_for_dialog("the sign-in's consent dialog", |d| d["dialogId"] == dialog_id)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_is_signed_in_through_the_url_consent_dialog() {
    let home = tempfile::tempdir().unwrap();
    let server = porthole_test_mcp::start(porthole_test_mcp::Options::default()).await;
    let file = home.path().join("connections.json");
    std::fs::write(
        &file,
        serde_json::json!({"connections": {"guarded": {"url": server.mcp_url()}}}).to_string(),
    )
    .unwrap();
    let (backend, shell) = common::mcp::demo_app(home.path(), &file);
    let keyring = Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().unwrap(),
    ));
    backend.keep_mcp_secrets_in(keyring.clone()).unwrap();
    let session = common::mcp::start(&backend, &shell).await;

    let before = backend.mcp_connections().await;
    assert_eq!(connection(&before, "guarded")["signIn"]["state"], "signedOut");
    let refused = call_whoami(&backend, &shell, &session).await;
    assert!(refused.contains("`guarded` needs sign-in"), "{refused}");

    // The consent dialog: Porthole's own, the full address, its domain, Porthole's scope.
    let dialog_id = backend.mcp_sign_in("guarded", None).await.unwrap();
    let dialog = listed_dialog(&shell, dialog_id).await;
    assert_eq!(dialog["type"], "elicitation");
    assert_eq!(dialog["mode"], "url");
    assert_eq!(dialog["agent"]["title"], "Porthole");
    assert_eq!(dialog["scope"]["kind"], "request");
    assert_eq!(dialog["scope"]["during"], "porthole/mcp-sign-in");
    let address = dialog["url"]["full"].as_str().unwrap().to_string();
    assert!(
        address.starts_with(&format!("{}/auth/authorize?", server.base())),
        "{address}"
    );
    assert!(address.contains("code_challenge_method=S256"), "{address}");
    assert_eq!(dialog["url"]["hostAscii"], "127.0.0.1");
    let message = dialog["message"].as_str().unwrap();
    assert!(message.contains("“guarded”"), "{message}");
    assert!(message.contains("no agent sees it"), "{message}");
    assert!(
        backend.open_url(dialog_id, "system").is_err(),
        "nothing opens before consent"
    );

    // Consent, then the browser: the dialog completes and the view says signed in.
    backend.answer_elicitation(dialog_id, "accept", None).unwrap();
    let waiting = common::app_state(&backend)["dialogs"].clone();
    assert!(
        waiting
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["dialogId"] != dialog_id),
        "an answered dialog leaves the list: {waiting}"
    );
    // Opened in the isolated window (a stand-in here: no display), which closes on success.
    backend.open_url(dialog_id, "sealed").unwrap();
    shell
        .wait_for("the isolated window's opening", |e| {
            e["type"] == "url_view" && e["dialogId"] == dialog_id && e["state"] == "opened"
        })
        .await;
    browse(&address);
    let ended = shell
        .wait_for("the sign-in's end", |e| {
            e["type"] == "mcp_sign_in_ended" && e["dialogId"] == dialog_id
        })
        .await;
    assert_eq!(ended["error"], Value::Null, "{ended}");
    shell
        .wait_for("the dialog's completion", |e| {
            e["type"] == "elicitation_complete" && e["dialogId"] == dialog_id
        })
        .await;
    shell
        .wait_for("the isolated window's closing", |e| {
            e["type"] == "url_view" && e["dialogId"] == dialog_id && e["state"] == "closed"
        })
        .await;
    let after = backend.mcp_connections().await;
    assert_eq!(connection(&after, "guarded")["signIn"]["state"], "signedIn");
    let tools = backend.mcp_tools("guarded").await.unwrap();
    assert!(tools.iter().any(|t| t.name == "whoami"), "{tools:?}");

    // The agent's tool call is signed in; the server got a token the window never saw.
    let answered = call_whoami(&backend, &shell, &session).await;
    assert!(answered.contains("signed in"), "{answered}");
    let issued = server.state().issued.clone();
    assert!(!issued.is_empty());
    let window: String = shell
        .events
        .lock()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    for token in &issued {
        assert!(!window.contains(token.as_str()), "a token reached the window");
    }

    // An expired token is refreshed without the person.
    let refreshes = server.state().refreshes;
    server.expire_access_tokens();
    let refreshed = call_whoami(&backend, &shell, &session).await;
    assert!(refreshed.contains("signed in"), "{refreshed}");
    assert_eq!(server.state().refreshes, refreshes + 1);

    // A refresh that fails asks for sign-in again, in the session and in the view.
    server.expire_access_tokens();
    server.forget_refresh_tokens();
    let failed = call_whoami(&backend, &shell, &session).await;
    assert!(failed.contains("Sign in to `guarded` again"), "{failed}");
    let problem = shell
        .wait_for_latest("the connection's problem", |e| {
            e["type"] == "mcp_connection_problem" && e["needsSignIn"] == true
        })
        .await;
    assert_eq!(problem["sessions"], serde_json::json!([session]));
    let expired = backend.mcp_connections().await;
    assert_eq!(connection(&expired, "guarded")["signIn"]["state"], "expired");

    // Signed in again, then out: the server revokes.
    let again = backend.mcp_sign_in("guarded", None).await.unwrap();
    let address = listed_dialog(&shell, again).await["url"]["full"]
        .as_str()
        .unwrap()
        .to_string();
    backend.answer_elicitation(again, "accept", None).unwrap();
    browse(&address);
    shell
        .wait_for("the second sign-in's end", |e| {
            e["type"] == "mcp_sign_in_ended" && e["dialogId"] == again && e["error"].is_null()
        })
        .await;
    assert!(
        call_whoami(&backend, &shell, &session)
            .await
            .contains("signed in")
    );
    let said = backend.mcp_sign_out("guarded").await.unwrap();
    assert!(said.contains("guarded"), "{said}");
    assert!(!server.state().revoked.is_empty(), "sign-out revoked");
    assert_eq!(
        connection(&backend.mcp_connections().await, "guarded")["signIn"]["state"],
        "signedOut"
    );

    // Declined: the dialog goes, nothing is kept, and the listener is gone.
    let declined = backend.mcp_sign_in("guarded", None).await.unwrap();
    let address = listed_dialog(&shell, declined).await["url"]["full"]
        .as_str()
        .unwrap()
        .to_string();
    let redirect = url::Url::parse(&address)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    backend.answer_elicitation(declined, "decline", None).unwrap();
    let port = url::Url::parse(&redirect).unwrap().port().unwrap();
    let mut closed = false;
    for _ in 0..50 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(closed, "a declined sign-in still listens on {redirect}");
    assert!(backend.open_url(declined, "system").is_err());
    assert_eq!(
        connection(&backend.mcp_connections().await, "guarded")["signIn"]["state"],
        "signedOut"
    );

    // A stdio connection or an unknown name is refused with why.
    let unknown = backend.mcp_sign_in("nope", None).await.unwrap_err();
    assert!(format!("{unknown:?}").contains("no connection named `nope`"));
    backend.stop().await;
    let run = shell.events.lock().unwrap().clone();
    common::golden_stream("mcp-sign-in", home.path(), &run);
}
