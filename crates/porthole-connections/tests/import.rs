//! Imports of each client's settings (the fixtures are realistic files with comments, trailing
//! commas and fake tokens), into a list saved to a file and secrets kept in keyring-core's
//! in-memory sample store.

use std::path::Path;

use porthole_connections::import::{self, Format, Outcome};
use porthole_connections::list::{Connections, EnvValue, RemoteTransport, Server};
use porthole_connections::secrets::{SecretStore, env_key, header_key};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Imported {
    list: Connections,
    outcomes: Vec<Outcome>,
    store: SecretStore,
    file: String,
    _dir: tempfile::TempDir,
}

/// Import `fixture` into an empty list, save it, and read the saved file's bytes.
fn import(fixture_name: &str, format: Format) -> Imported {
    let found = import::read(&fixture(fixture_name)).unwrap();
    assert_eq!(found.formats, [format]);
    assert!(found.needs_keyring());
    let store = SecretStore::with_store(keyring_core::sample::Store::new().unwrap());
    let mut list = Connections::new();
    let outcomes = import::merge(found, &mut list, Some(&store));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connections.json");
    list.save(&path).unwrap();
    let file = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        Connections::load(&path).unwrap(),
        list,
        "the saved file reads back"
    );
    Imported {
        list,
        outcomes,
        store,
        file,
        _dir: dir,
    }
}

fn imported<'a>(outcomes: &'a [Outcome], source: &str) -> (&'a str, &'a [String], &'a [String]) {
    outcomes
        .iter()
        .find_map(|o| match o {
            Outcome::Imported {
                source_name,
                name,
                secrets,
                notes,
            } if source_name == source => Some((name.as_str(), secrets.as_slice(), notes.as_slice())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("`{source}` not imported: {outcomes:#?}"))
}

fn skipped<'a>(outcomes: &'a [Outcome], source: &str) -> &'a str {
    outcomes
        .iter()
        .find_map(|o| match o {
            Outcome::Skipped { source_name, reason } if source_name == source => Some(reason.as_str()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("`{source}` not skipped: {outcomes:#?}"))
}

/// The fake value is in the keyring under `connection`/`key`, and nowhere in the file.
fn kept_secret(i: &Imported, connection: &str, key: &str, fake: &str) {
    assert_eq!(
        i.store.get(connection, key).unwrap().as_deref(),
        Some(fake),
        "{connection}/{key}"
    );
    assert!(!i.file.contains(fake), "{fake} reached the file:\n{}", i.file);
}

fn env<'a>(list: &'a Connections, name: &str) -> &'a std::collections::BTreeMap<String, EnvValue> {
    match &list.get(name).unwrap().server {
        Server::Stdio { env, .. } => env,
        other => panic!("{other:?}"),
    }
}

#[test]
fn claude_desktop() {
    let i = import("claude_desktop_config.json", Format::McpServers);
    assert_eq!(i.outcomes.len(), 5, "every entry is reported: {:#?}", i.outcomes);
    let names: Vec<&str> = i.list.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["filesystem", "github", "sqlite", "Brave-Search"],
        "the file's order"
    );

    let (_, secrets, _) = imported(&i.outcomes, "github");
    assert_eq!(secrets, ["GITHUB_PERSONAL_ACCESS_TOKEN"]);
    kept_secret(
        &i,
        "github",
        &env_key("GITHUB_PERSONAL_ACCESS_TOKEN"),
        "fake-claude-github-pat-0001",
    );
    let github = env(&i.list, "github");
    assert_eq!(github["GITHUB_PERSONAL_ACCESS_TOKEN"], EnvValue::Secret);
    assert_eq!(github["GITHUB_TOOLSETS"], EnvValue::Plain("repos,issues".into()));

    let (name, secrets, notes) = imported(&i.outcomes, "Brave Search");
    assert_eq!(name, "Brave-Search");
    assert_eq!(secrets, ["BRAVE_API_KEY"]);
    assert!(notes[0].contains("named `Brave-Search`"), "{notes:?}");
    kept_secret(
        &i,
        "Brave-Search",
        &env_key("BRAVE_API_KEY"),
        "fake-claude-brave-key-0002",
    );
    assert_eq!(
        env(&i.list, "Brave-Search")["PATH"],
        EnvValue::Plain("/usr/local/bin:/usr/bin".into()),
        "PATH is not a PAT"
    );

    let (_, _, notes) = imported(&i.outcomes, "sqlite");
    assert!(!i.list.get("sqlite").unwrap().enabled, "`disabled: true` is kept");
    assert!(
        notes.iter().any(|n| n.contains("`autoApprove` was left out")),
        "{notes:?}"
    );

    assert!(skipped(&i.outcomes, "lan-server").contains("plain http"));
    let Server::Stdio { args, .. } = &i.list.get("filesystem").unwrap().server else {
        panic!()
    };
    assert_eq!(args.len(), 4);
}

#[test]
fn vs_code() {
    let i = import("vscode_mcp.json", Format::VsCode);
    assert_eq!(i.outcomes.len(), 7, "{:#?}", i.outcomes);
    let reason = skipped(&i.outcomes, "github");
    assert!(reason.contains("`${input:github_token}`"), "{reason}");
    assert!(i.list.get("github").is_none());

    let (_, secrets, notes) = imported(&i.outcomes, "perplexity");
    assert_eq!(secrets, ["PERPLEXITY_API_KEY"]);
    assert!(notes.iter().any(|n| n.contains("`envFile`")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("`cwd`")), "{notes:?}");
    kept_secret(
        &i,
        "perplexity",
        &env_key("PERPLEXITY_API_KEY"),
        "fake-vscode-perplexity-0003",
    );
    assert_eq!(
        env(&i.list, "perplexity")["LOG_LEVEL"],
        EnvValue::Plain("info".into())
    );

    let (_, secrets, _) = imported(&i.outcomes, "docs");
    assert_eq!(secrets, ["header X-API-Key"]);
    kept_secret(&i, "docs", &header_key("X-API-Key"), "fake-vscode-docs-key-0004");
    let Server::Remote {
        headers, transport, ..
    } = &i.list.get("docs").unwrap().server
    else {
        panic!()
    };
    assert_eq!(*transport, RemoteTransport::StreamableHttp);
    assert_eq!(headers["Accept-Language"], EnvValue::Plain("en".into()));

    let Server::Remote { transport, url, .. } = &i.list.get("events").unwrap().server else {
        panic!()
    };
    assert_eq!(*transport, RemoteTransport::Sse);
    assert_eq!(
        url.as_str(),
        "http://localhost:3001/sse",
        "plain http to this computer is fine"
    );
    imported(&i.outcomes, "playwright");
    assert!(skipped(&i.outcomes, "socket").contains("`websocket`"));
    assert!(skipped(&i.outcomes, "broken-url").contains("URL is not valid"));
}

#[test]
fn cursor() {
    let i = import("cursor_mcp.json", Format::McpServers);
    assert_eq!(i.outcomes.len(), 4, "{:#?}", i.outcomes);
    let Server::Remote { transport, .. } = &i.list.get("linear").unwrap().server else {
        panic!()
    };
    assert_eq!(*transport, RemoteTransport::Sse);
    let (_, secrets, _) = imported(&i.outcomes, "supabase");
    assert_eq!(secrets, ["header Authorization"]);
    kept_secret(
        &i,
        "supabase",
        &header_key("authorization"),
        "Bearer fake-cursor-supabase-0005",
    );
    let (_, secrets, _) = imported(&i.outcomes, "notes");
    assert_eq!(secrets, ["authToken"]);
    kept_secret(&i, "notes", &env_key("authToken"), "fake-cursor-notes-0006");
    let Server::Stdio { args, .. } = &i.list.get("notes").unwrap().server else {
        panic!()
    };
    assert_eq!(
        args.last().map(String::as_str),
        Some("0"),
        "a number written for a string"
    );
    assert!(skipped(&i.outcomes, "home-env").contains("`${userHome}`"));
}

#[test]
fn zed() {
    let i = import("zed_settings.json", Format::Zed);
    assert_eq!(i.outcomes.len(), 6, "{:#?}", i.outcomes);
    for extension in ["postgres-context-server", "mcp-server-context7"] {
        let reason = skipped(&i.outcomes, extension);
        assert!(reason.contains("Zed extension"), "{reason}");
    }
    let (name, secrets, notes) = imported(&i.outcomes, "my tool");
    assert_eq!(
        name, "my-tool-2",
        "a name made valid does not take a name the text uses"
    );
    assert_eq!(secrets, ["API_TOKEN"]);
    assert!(notes[0].contains("named `my-tool-2`"), "{notes:?}");
    kept_secret(&i, "my-tool-2", &env_key("API_TOKEN"), "fake-zed-tool-token-0007");
    let (name, _, notes) = imported(&i.outcomes, "my-tool");
    assert_eq!(name, "my-tool", "a valid name is kept");
    assert!(notes.is_empty(), "{notes:?}");

    let Server::Stdio { command, args, env } = &i.list.get("old-style").unwrap().server else {
        panic!()
    };
    assert_eq!(command, "/usr/local/bin/mcp-old");
    assert_eq!(args, &["--stdio"]);
    assert_eq!(env["LOG"], EnvValue::Plain("1".into()));
    kept_secret(
        &i,
        "remote",
        &header_key("Authorization"),
        "Bearer fake-zed-remote-token-0008",
    );
    assert!(i.file.contains(r#""Authorization": {"#), "{}", i.file);
}

#[test]
fn importing_into_a_list_skips_names_it_has_and_stores_no_secret_for_them() {
    let mut list = Connections::new();
    let store = SecretStore::with_store(keyring_core::sample::Store::new().unwrap());
    let text = fixture("claude_desktop_config.json");
    let first = import::merge(import::read(&text).unwrap(), &mut list, Some(&store));
    assert_eq!(list.len(), 4);
    store
        .delete("github", &env_key("GITHUB_PERSONAL_ACCESS_TOKEN"))
        .unwrap();
    let again = import::merge(import::read(&text).unwrap(), &mut list, Some(&store));
    assert_eq!(list.len(), 4, "nothing added twice");
    assert_eq!(again.len(), first.len());
    assert!(skipped(&again, "github").contains("exists already"));
    assert_eq!(
        store
            .get("github", &env_key("GITHUB_PERSONAL_ACCESS_TOKEN"))
            .unwrap(),
        None,
        "a skipped server keeps nothing in the keyring"
    );
}

#[test]
fn without_a_keyring_servers_with_secrets_are_skipped_and_the_rest_imported() {
    let mut list = Connections::new();
    let found = import::read(&fixture("claude_desktop_config.json")).unwrap();
    let outcomes = import::merge(found, &mut list, None);
    let reason = skipped(&outcomes, "github");
    assert!(
        reason.contains("GITHUB_PERSONAL_ACCESS_TOKEN") && reason.contains("keyring"),
        "{reason}"
    );
    assert!(!reason.contains("fake-claude"), "{reason}");
    let names: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "sqlite"]);
}

#[test]
fn vs_code_user_settings_hold_servers_under_mcp() {
    let text = r#"{
        "editor.fontSize": 14,
        // VS Code's settings.json
        "mcp": {"servers": {"time": {"command": "uvx", "args": ["mcp-server-time"],},},},
    }"#;
    let found = import::read(text).unwrap();
    assert_eq!(found.formats, [Format::VsCodeSettings]);
    assert!(!found.needs_keyring());
    let mut list = Connections::new();
    let outcomes = import::merge(found, &mut list, None);
    assert_eq!(imported(&outcomes, "time").0, "time");
}

/// An import whose list cannot be written leaves nothing behind: its secret values leave the
/// keyring again, and the error says why. One that can be written keeps both.
#[test]
fn an_import_that_cannot_be_saved_takes_its_secrets_back_out_of_the_keyring() {
    let store = SecretStore::with_store(keyring_core::sample::Store::new().unwrap());
    let dir = tempfile::tempdir().unwrap();
    // A path under a file: no list can be written there.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "").unwrap();
    let found = import::read(&fixture("claude_desktop_config.json")).unwrap();
    let mut list = Connections::new();
    let e = import::merge_and_save(found, &mut list, &blocker.join("connections.json"), Some(&store))
        .unwrap_err();
    assert!(!e.is_empty());
    for c in list.iter() {
        for key in c.secret_keys() {
            assert_eq!(store.get(&c.name, &key).unwrap(), None, "{} {key} stayed", c.name);
        }
    }
    assert!(
        list.iter().any(|c| !c.secret_keys().is_empty()),
        "the fixture has secrets"
    );

    let found = import::read(&fixture("claude_desktop_config.json")).unwrap();
    let mut list = Connections::new();
    let path = dir.path().join("connections.json");
    let outcomes = import::merge_and_save(found, &mut list, &path, Some(&store)).unwrap();
    assert!(outcomes.iter().any(|o| matches!(o, Outcome::Imported { .. })));
    assert_eq!(Connections::load(&path).unwrap(), list);
    let kept = list.iter().find(|c| !c.secret_keys().is_empty()).unwrap();
    let key = &kept.secret_keys()[0];
    assert!(store.get(&kept.name, key).unwrap().is_some());
}
