//! The "Add from the registry" view's commands against the fake MCP Registry on 127.0.0.1
//! (`porthole-test-mcp-registry`: the official documentation's entries and the hostile ones):
//! the first search waits for the registry, a later run opens from the disk copy at once and
//! refreshes it behind (`updated_since`), search covers titles and descriptions, pages follow
//! the cursor, deprecated and deleted entries are not offered, the form is the elicitation
//! validator's, the command is shown before saving, and saving writes one connection with its
//! secret in the keyring (an in-memory one here) and not in the file.

mod common;

use std::sync::Arc;

use common::FakeShell;
use porthole_app::{Backend, McpRegistryChoice, McpRegistrySignIn};
use porthole_connections::secrets::SecretStore;
use porthole_test_mcp_registry as fake;
use serde_json::{Map, Value, json};

const BRAVE: &str = "io.modelcontextprotocol.anonymous/brave-search";
const REMOTE: &str = "io.github.user/remote-weather";
const PACKAGE: McpRegistryChoice = McpRegistryChoice {
    remote: false,
    index: 0,
};

fn app(home: &std::path::Path, keyring: &Arc<SecretStore>) -> (Backend, Arc<FakeShell>) {
    let launch = porthole_app::Launch::from_args(None, Some(home.to_path_buf())).unwrap();
    let shell = Arc::new(FakeShell::default());
    let backend = Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    backend.keep_mcp_secrets_in(keyring.clone()).unwrap();
    (backend, shell)
}

const OAUTH: &str = "io.github.porthole-test/oauth-remote";
const OPEN: &str = "io.github.porthole-test/open-remote";

fn message(e: porthole_app::AnswerError) -> String {
    serde_json::to_string(&e).unwrap()
}

fn values(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_open_fill_and_save_an_entry_of_the_registry() {
    let home = tempfile::tempdir().unwrap();
    let registry = fake::Server::with_fixtures();
    for (_, v) in fake::hostile_fixtures() {
        registry.add(v);
    }
    // Two remotes on 127.0.0.1 that send no key: one asks for OAuth sign-in; one answers
    // without a token and publishes no protected resource metadata (no OAuth at all).
    let oauth_server = porthole_test_mcp::start(porthole_test_mcp::Options::default()).await;
    let open_server = porthole_test_mcp::start(porthole_test_mcp::Options {
        open: true,
        legacy: true,
        ..Default::default()
    })
    .await;
    registry.add(fake::remote_entry(OAUTH, &oauth_server.mcp_url()));
    registry.add(fake::remote_entry(OPEN, &open_server.mcp_url()));
    let file = home.path().join("connections.json");
    common::set_home(home.path());
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_CONNECTIONS_FILE", &file);
        std::env::set_var("PORTHOLE_CACHE_DIR", home.path().join("cache"));
        std::env::set_var("PORTHOLE_MCP_REGISTRY_URL", registry.url());
    }
    let keyring = Arc::new(SecretStore::with_store(
        keyring_core::sample::Store::new().unwrap(),
    ));
    let (backend, shell) = app(home.path(), &keyring);
    let base = registry.url();

    // No copy yet: the first search answers with the registry's first page (here the whole of
    // it) and the copy is complete when the window is told so (mcp_registry_first_open.rs has
    // a registry of several pages).
    backend.mcp_registry_search("", None).await.unwrap();
    shell
        .wait_for("the registry read whole", |e| {
            e["type"] == "mcp_registry_refreshed"
        })
        .await;
    let all = backend.mcp_registry_search("", None).await.unwrap();
    assert!(!all.registries[0].filling);
    assert_eq!(all.registries.len(), 1);
    assert_eq!(all.registries[0].base, base);
    assert_eq!(all.registries[0].problem, None);
    assert!(all.registries[0].updated_since.is_some());
    assert!(all.total > 10, "{}", all.total);
    // The hostile entries whose names are refused are left out, and said.
    assert!(!all.registries[0].left_out.is_empty());
    // Paged with the cursor: the pages together are the whole result, each entry once.
    let mut seen: Vec<String> = all.entries.iter().map(|e| e.name.clone()).collect();
    let mut cursor = all.next_cursor.clone();
    while let Some(c) = cursor {
        let page = backend.mcp_registry_search("", Some(&c)).await.unwrap();
        seen.extend(page.entries.iter().map(|e| e.name.clone()));
        cursor = page.next_cursor;
    }
    assert_eq!(seen.len(), all.total);
    let unique: std::collections::BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len());

    // Search as you type: the name, the title, the description's words.
    let by_name = backend.mcp_registry_search("brave", None).await.unwrap();
    assert_eq!(by_name.entries[0].name, BRAVE);
    let by_title = backend.mcp_registry_search("Remote Weather", None).await.unwrap();
    assert_eq!(by_title.entries[0].name, REMOTE);
    let by_description = backend
        .mcp_registry_search("search api integration", None)
        .await
        .unwrap();
    let names: Vec<&str> = by_description.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, [BRAVE]);

    // The details: publisher, version, runtime and whether it is here, repository as text.
    let brave = &by_name.entries[0];
    assert_eq!(brave.namespace, "io.modelcontextprotocol.anonymous");
    assert_eq!(
        (brave.version.as_str(), brave.status.as_str()),
        ("1.0.2", "active")
    );
    assert!(brave.offered);
    assert_eq!(
        brave.repository.as_deref(),
        Some("https://github.com/modelcontextprotocol/servers")
    );
    assert_eq!(brave.ways.len(), 1);
    assert_eq!(brave.ways[0].runtime.as_deref(), Some("npx"));
    assert_eq!(
        brave.ways[0].what,
        "@modelcontextprotocol/server-brave-search@1.0.2"
    );
    let npx_here =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).any(|d| d.join("npx").is_file());
    assert_eq!(brave.ways[0].runtime_found, npx_here);

    // The form: the elicitation engine's, the API key a required, masked field.
    let form = backend
        .mcp_registry_form(&base, BRAVE, "1.0.2", PACKAGE)
        .await
        .unwrap();
    assert_eq!(form.suggested_name, "brave-search");
    let key = form
        .schema
        .fields
        .iter()
        .find(|f| f.name == "BRAVE_API_KEY")
        .expect("the key's field");
    assert!(key.required && key.masked);

    // Checked by the validator: missing, then filled and shown without the secret.
    let empty = backend
        .mcp_registry_check(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", Map::new())
        .await
        .unwrap();
    assert_eq!(empty.validation.errors[0].field, "BRAVE_API_KEY");
    assert_eq!(empty.shown, None);
    let secret_value = "brave-test-key-not-real";
    let filled = values(json!({"BRAVE_API_KEY": secret_value}));
    let checked = backend
        .mcp_registry_check(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", filled.clone())
        .await
        .unwrap();
    assert!(checked.validation.is_valid());
    assert_eq!(
        checked.shown.as_deref(),
        Some("BRAVE_API_KEY=<in the OS keyring> npx -y @modelcontextprotocol/server-brave-search@1.0.2")
    );
    assert_eq!(checked.secrets, ["env:BRAVE_API_KEY"]);
    assert!(!file.exists(), "checking saves nothing");

    // Saved: one connection, the version pinned, the key in the keyring, not in the file.
    let invalid = backend
        .mcp_registry_add(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", Map::new())
        .await
        .unwrap_err();
    assert!(message(invalid).contains("\"invalid\""));
    let added = backend
        .mcp_registry_add(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", filled.clone())
        .await
        .unwrap();
    assert_eq!(added.name, "brave-search");
    assert!(!added.remote);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(secret_value), "{text}");
    let saved: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        saved["connections"]["brave-search"],
        json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search@1.0.2"],
               "env": {"BRAVE_API_KEY": {"secret": true}}})
    );
    assert_eq!(
        keyring
            .get("brave-search", "env:BRAVE_API_KEY")
            .unwrap()
            .as_deref(),
        Some(secret_value)
    );
    let listed = backend.mcp_connections().await;
    assert!(listed.connections.iter().any(|c| c.name == "brave-search"));
    // The name is taken now: said before saving, refused when saving; the next suggestion is free.
    let again = backend
        .mcp_registry_check(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", filled.clone())
        .await
        .unwrap();
    assert!(
        again.problems[0].contains("exists already"),
        "{:?}",
        again.problems
    );
    assert!(
        message(
            backend
                .mcp_registry_add(&base, BRAVE, "1.0.2", PACKAGE, "brave-search", filled)
                .await
                .unwrap_err()
        )
        .contains("exists already")
    );
    let form = backend
        .mcp_registry_form(&base, BRAVE, "1.0.2", PACKAGE)
        .await
        .unwrap();
    assert_eq!(form.suggested_name, "brave-search-2");

    // A remote: its URL variable filled (the default), its secret header to the keyring.
    let remote = McpRegistryChoice {
        remote: true,
        index: 0,
    };
    let header = values(json!({"Authorization": "Bearer not-real"}));
    let added = backend
        .mcp_registry_add(&base, REMOTE, "2.1.0", remote, "weather", header)
        .await
        .unwrap();
    assert!(added.remote);
    assert_eq!(
        added.shown,
        "https://api.example.com/mcp\nAuthorization: <in the OS keyring>"
    );
    // Its key is how it signs in: no OAuth sign-in is started (nothing contacts it).
    assert_eq!(added.sign_in, McpRegistrySignIn::ByHeader);

    // A remote that asks for OAuth goes straight to its sign-in: the connections view's own
    // consent dialog, Porthole's, with the server's sign-in page.
    let added = backend
        .mcp_registry_add(&base, OAUTH, "1.0.0", remote, "tracker", Map::new())
        .await
        .unwrap();
    let McpRegistrySignIn::Asked { dialog_id } = added.sign_in else {
        panic!("no sign-in started: {:?}", added.sign_in);
    };
    let dialog = shell
        .wait_for_dialog("the sign-in's consent dialog", |d| d["dialogId"] == dialog_id)
        .await;
    assert_eq!(dialog["scope"]["during"], "porthole/mcp-sign-in");
    assert!(
        dialog["url"]["full"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/auth/authorize?", oauth_server.base())),
        "{dialog}"
    );
    assert!(dialog["message"].as_str().unwrap().contains("“tracker”"));
    backend.answer_elicitation(dialog_id, "decline", None).unwrap();
    // One that answers without a token is saved and asks nothing.
    let added = backend
        .mcp_registry_add(&base, OPEN, "1.0.0", remote, "open-remote", Map::new())
        .await
        .unwrap();
    assert_eq!(added.sign_in, McpRegistrySignIn::NotAsked);
    assert!(
        !common::app_state(&backend)["dialogs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["scope"]["during"] == "porthole/mcp-sign-in"),
        "no sign-in dialog for a server that asks for none"
    );

    // A registry that is not in the settings is not asked.
    let elsewhere = backend
        .mcp_registry_form("https://registry.example.com", BRAVE, "1.0.2", PACKAGE)
        .await
        .unwrap_err();
    assert!(message(elsewhere).contains("not one of the registries"));

    // The repository link opens only through Porthole's URL consent dialog, its address from
    // the registry's copy (the window names the entry, never a URL).
    let dialog_id = backend
        .mcp_registry_link(&base, BRAVE, "1.0.2", false)
        .await
        .unwrap();
    let dialog = shell
        .wait_for_dialog("the link's consent dialog", |d| d["dialogId"] == dialog_id)
        .await;
    assert_eq!(
        (dialog["mode"].as_str(), dialog["agent"]["title"].as_str()),
        (Some("url"), Some("Porthole"))
    );
    assert_eq!(
        dialog["url"]["full"],
        "https://github.com/modelcontextprotocol/servers"
    );
    backend
        .answer_dialog(
            dialog_id,
            porthole_core::DialogAnswer::Elicitation {
                action: porthole_core::events::Action::Decline,
                content: None,
            },
        )
        .unwrap();
    let refused = message(backend.open_url(dialog_id, "system").unwrap_err());
    assert!(refused.contains("not consented"), "{refused}");
    // Accepted: the page goes to the browser (the fake shell has none, and says so).
    let dialog_id = backend
        .mcp_registry_link(&base, REMOTE, "2.1.0", true)
        .await
        .unwrap();
    backend
        .answer_dialog(
            dialog_id,
            porthole_core::DialogAnswer::Elicitation {
                action: porthole_core::events::Action::Accept,
                content: None,
            },
        )
        .unwrap();
    let opened = message(backend.open_url(dialog_id, "system").unwrap_err());
    assert!(opened.contains("no browser in tests"), "{opened}");
    let none = message(
        backend
            .mcp_registry_link(&base, "io.github.user/weather", "1.0.2", false)
            .await
            .unwrap_err(),
    );
    assert!(none.contains("names no repository"), "{none}");

    // The registry changes: brave-search deprecated, remote-weather deleted.
    registry.set_status(BRAVE, "deprecated", "2030-01-01T00:00:00Z");
    registry.set_status(REMOTE, "deleted", "2030-01-01T00:00:00Z");
    let asked_before = registry.requests().len();

    // A new run opens from the disk copy at once (the old state), then refreshes behind it
    // with `updated_since` and tells the window.
    let (backend, shell) = app(home.path(), &keyring);
    let instant = backend.mcp_registry_search("brave", None).await.unwrap();
    assert_eq!(instant.entries[0].status, "active", "the copy from before");
    shell
        .wait_for("the registry's copy refreshed", |e| {
            e["type"] == "mcp_registry_refreshed" && e["registry"] == base.as_str()
        })
        .await;
    let asked: Vec<String> = registry.requests()[asked_before..].to_vec();
    assert!(asked.iter().any(|r| r.contains("updated_since=")), "{asked:?}");
    let fresh = backend.mcp_registry_search("brave", None).await.unwrap();
    assert_eq!(fresh.entries[0].status, "deprecated");
    assert!(!fresh.entries[0].offered);
    let gone = backend.mcp_registry_search("Remote Weather", None).await.unwrap();
    assert_eq!(gone.total, 0, "a deleted entry leaves the copy");
    let refused = backend
        .mcp_registry_form(&base, BRAVE, "1.0.2", PACKAGE)
        .await
        .unwrap_err();
    assert!(message(refused).contains("deprecated and not offered"));

    let run = shell.events.lock().unwrap().clone();
    common::golden_stream("mcp-registry", home.path(), &run);
}
