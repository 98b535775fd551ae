use super::*;

const EXAMPLE: &str = r#"{
    // Written by hand: comments and trailing commas are fine.
    "connections": {
        "zeta-files": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me",],
            "env": {"ROOT": "/home/me", "TOKEN": {"secret": true},},
        },
        "github": {
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": {"Authorization": {"secret": true}},
            "agents": ["claude-code", "codex"],
        },
        "alpha-docs": {"url": "http://127.0.0.1:8931/sse", "transport": "sse", "enabled": false},
    },
}"#;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn stdio(name: &str, command: &str) -> Connection {
    Connection::new(
        name,
        Server::Stdio {
            command: command.into(),
            args: vec![],
            env: BTreeMap::new(),
        },
    )
}

fn remote(name: &str, u: &str) -> Connection {
    Connection::new(
        name,
        Server::Remote {
            url: url(u),
            transport: RemoteTransport::default(),
            headers: BTreeMap::new(),
        },
    )
}

#[test]
fn reads_the_documented_shape_in_file_order() {
    let list = Connections::parse(EXAMPLE, "connections.json").unwrap();
    let names: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["zeta-files", "github", "alpha-docs"],
        "file order, not sorted"
    );
    let files = list.get("zeta-files").unwrap();
    assert!(files.enabled);
    assert_eq!(files.agents, AgentScope::All);
    let Server::Stdio { command, args, env } = &files.server else {
        panic!("{files:?}")
    };
    assert_eq!(command, "npx");
    assert_eq!(args.len(), 3);
    assert_eq!(env["ROOT"], EnvValue::Plain("/home/me".into()));
    assert_eq!(env["TOKEN"], EnvValue::Secret);
    assert_eq!(files.secret_keys(), ["env:TOKEN"]);
    let github = list.get("github").unwrap();
    assert_eq!(
        github.agents,
        AgentScope::Only(vec!["claude-code".into(), "codex".into()])
    );
    assert_eq!(github.secret_keys(), ["header:authorization"]);
    let docs = list.get("alpha-docs").unwrap();
    assert!(!docs.enabled);
    assert!(matches!(
        docs.server,
        Server::Remote {
            transport: RemoteTransport::Sse,
            ..
        }
    ));
}

#[test]
fn written_text_reads_back_the_same_and_leaves_defaults_out() {
    let list = Connections::parse(EXAMPLE, "f").unwrap();
    let text = list.to_text();
    assert_eq!(Connections::parse(&text, "f").unwrap(), list);
    let json: Value = serde_json::from_str(&text).unwrap();
    let files = &json["connections"]["zeta-files"];
    assert!(
        files.get("enabled").is_none() && files.get("agents").is_none(),
        "{text}"
    );
    assert_eq!(files["env"]["TOKEN"], serde_json::json!({"secret": true}));
    assert_eq!(json["connections"]["alpha-docs"]["enabled"], false);
    assert!(json["connections"]["github"].get("transport").is_none());
    assert_eq!(Connections::new().to_text(), "{\n  \"connections\": {}\n}\n");
    assert!(Connections::parse("{}", "f").unwrap().is_empty());
}

#[test]
fn for_agent_gives_the_enabled_connections_in_scope() {
    let list = Connections::parse(EXAMPLE, "f").unwrap();
    let names = |agent| list.for_agent(agent).map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names("codex"), ["zeta-files", "github"]);
    assert_eq!(
        names("gemini"),
        ["zeta-files"],
        "github is for two agents; alpha-docs is off"
    );
}

#[test]
fn edits_keep_names_unique_and_say_what_is_wrong() {
    let mut list = Connections::new();
    list.add(stdio("files", "npx")).unwrap();
    list.add(remote("github", "https://example.com/mcp")).unwrap();
    let err = list
        .add(remote("files", "https://example.com/other"))
        .unwrap_err();
    assert_eq!(err.to_string(), "a connection named `files` exists already");
    assert_eq!(list.len(), 2);
    list.set_enabled("github", false).unwrap();
    assert_eq!(list.for_agent("a").count(), 1);
    assert!(matches!(
        list.set_enabled("nope", true),
        Err(ListError::NotFound(_))
    ));
    assert_eq!(list.remove("files").unwrap().name, "files");
    assert_eq!(
        list.remove("files").unwrap_err().to_string(),
        "no connection named `files`"
    );
    assert_eq!(list.len(), 1);
}

#[test]
fn names_are_short_and_plain() {
    for good in ["github", "my_server-2", "A", &"x".repeat(MAX_NAME_CHARS)] {
        assert!(valid_name(good), "{good}");
    }
    for bad in [
        "",
        "-x",
        "_x",
        "has space",
        "a/b",
        "a.b",
        "ünï",
        "a\u{202e}",
        &"x".repeat(MAX_NAME_CHARS + 1),
    ] {
        assert!(!valid_name(bad), "{bad}");
        let err = Connections::new().add(stdio(bad, "npx")).unwrap_err().to_string();
        assert!(err.contains("a name is"), "{err}");
    }
}

#[test]
fn remote_urls_are_https_or_http_on_this_computer() {
    for fine in [
        "https://example.com/mcp",
        "http://localhost:3000/mcp",
        "http://LOCALHOST/mcp",
        "http://127.0.0.1:8931/sse",
        "http://127.5.6.7/",
        "http://[::1]:9000/mcp",
    ] {
        assert_eq!(check_url(&url(fine)), Ok(()), "{fine}");
    }
    for (bad, says) in [
        ("http://example.com/mcp", "plain http"),
        ("http://192.168.1.10/mcp", "plain http"),
        ("http://localhost.example.com/", "plain http"),
        ("http://10.0.0.1/", "plain http"),
        ("http://[::ffff:127.0.0.1]/mcp", "plain http"),
        ("http://app.localhost/mcp", "plain http"),
        ("ftp://example.com/", "`ftp:`"),
        ("file:///etc/passwd", "no host"),
        ("https://user:fake-password@example.com/", "user name or password"),
    ] {
        let err = check_url(&url(bad)).unwrap_err();
        assert!(err.contains(says), "{bad}: {err}");
        assert!(!err.contains("fake-password"), "{err}");
        let err = Connections::new().add(remote("x", bad)).unwrap_err().to_string();
        assert!(err.starts_with("connection `x`: "), "{err}");
    }
}

#[test]
fn the_list_and_sign_in_agree_on_what_is_this_computer() {
    // One loopback rule (porthole_elicitation::loopback): a URL the list takes as plain http on
    // this computer is one sign-in talks to, and one it refuses sign-in refuses too.
    for address in [
        "http://localhost:3000/mcp",
        "http://127.0.0.1/mcp",
        "http://[::1]:9000/mcp",
        "http://[::ffff:127.0.0.1]/mcp",
        "http://app.localhost/mcp",
        "http://192.168.1.10/mcp",
    ] {
        let list = check_url(&url(address)).is_ok();
        let sign_in = crate::http::check_endpoint("endpoint", &url(address)).is_ok();
        assert_eq!(list, sign_in, "{address}");
    }
}

#[test]
fn bad_entries_are_errors_naming_the_file_and_the_connection() {
    for (text, says) in [
        (r#"{"connections": {"a": {"command": ""}}}"#, "command is empty"),
        (
            r#"{"connections": {"a": {"command": "x", "url": "https://e.com"}}}"#,
            "both",
        ),
        (r#"{"connections": {"a": {}}}"#, "neither"),
        (
            r#"{"connections": {"a": {"command": "x", "headers": {}}}}"#,
            "`headers` does not go with a command",
        ),
        (
            r#"{"connections": {"a": {"command": "x", "evn": {}}}}"#,
            "unknown field `evn`",
        ),
        (
            r#"{"connections": {"a": {"url": "not a url"}}}"#,
            "`url` is not a URL",
        ),
        (
            r#"{"connections": {"a": {"url": "http://example.com"}}}"#,
            "plain http",
        ),
        (
            r#"{"connections": {"a": {"url": "https://e.com", "transport": "ws"}}}"#,
            "transport",
        ),
        (
            r#"{"connections": {"a": {"command": "x", "env": {"K": 1}}}}"#,
            "`env.K`",
        ),
        (
            r#"{"connections": {"a": {"command": "x", "env": {"K": {"secret": false}}}}}"#,
            "`env.K`",
        ),
        (
            r#"{"connections": {"a": {"command": "x", "agents": []}}}"#,
            "list of agents is empty",
        ),
        (
            r#"{"connections": {"a": {"command": "x", "enabled": "no"}}}"#,
            "`enabled`",
        ),
        (r#"{"connections": {"a b": {"command": "x"}}}"#, "a name is"),
        (
            r#"{"connections": {"a": {"command": "x"}, "a": {"command": "y"}}}"#,
            "exists already",
        ),
    ] {
        let err = Connections::parse(text, "/home/me/connections.json")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/home/me/connections.json: "), "{err}");
        assert!(err.contains(says), "{text}: {err}");
    }
    for text in [
        "{ connections: [ }",
        r#"{"connections": []}"#,
        r#"{"servers": {}}"#,
        "[]",
    ] {
        let err = Connections::parse(text, "/c.json")
            .map(|_| text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("/c.json is not valid JSON"), "{text}: {err}");
    }
}

#[test]
fn saving_is_atomic_private_and_never_replaces_an_unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("connections.json");
    assert!(
        Connections::load(&path).unwrap().is_empty(),
        "no file, no connections"
    );
    let list = Connections::parse(EXAMPLE, "f").unwrap();
    list.save(&path).unwrap();
    assert_eq!(Connections::load(&path).unwrap(), list);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["connections.json"], "no temp file is left");

    let broken = "{ \"connections\": { \"a\": { \"command\": \"x\", } // half an edit";
    std::fs::write(&path, broken).unwrap();
    let err = Connections::load(&path).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    let err = Connections::new().save(&path).unwrap_err().to_string();
    assert!(err.contains("left as it is"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken, "nothing lost");
}

#[cfg(unix)]
#[test]
fn saving_through_a_symlink_replaces_the_file_it_points_at() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles-connections.json");
    std::fs::write(&real, "{}").unwrap();
    let link = dir.path().join("connections.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut list = Connections::load(&link).unwrap();
    list.add(stdio("files", "npx")).unwrap();
    list.save(&link).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(Connections::load(&real).unwrap(), list);
}

#[test]
fn an_oversized_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connections.json");
    std::fs::write(&path, " ".repeat(MAX_FILE_BYTES as usize + 1)).unwrap();
    let err = Connections::load(&path).unwrap_err().to_string();
    assert!(err.contains("bigger than"), "{err}");
}

#[test]
fn list_json_spells_out_every_default() {
    let list = Connections::parse(EXAMPLE, "f").unwrap();
    let github = connection_json(list.get("github").unwrap());
    assert_eq!(github["name"], "github");
    assert_eq!(github["enabled"], true);
    assert_eq!(github["transport"], "http");
    assert_eq!(github["agents"], serde_json::json!(["claude-code", "codex"]));
    let files = connection_json(list.get("zeta-files").unwrap());
    assert_eq!(files["agents"], "all");
    assert_eq!(files["command"], "npx");
}
