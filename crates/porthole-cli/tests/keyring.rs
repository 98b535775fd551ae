//! `--agent ID` starts a configured agent with the sign-in values the window saved for it in the
//! OS keyring (a GNOME Keyring of scripts/with-keyring; ignored by a plain `cargo test`).

mod support;

use std::process::Command;

use porthole_profiles::secrets::AgentSecrets;
use support::workspace_bin;

#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn a_configured_agent_starts_with_its_saved_sign_in_values() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config");
    std::fs::create_dir_all(config.join("porthole")).unwrap();
    let agent_id = format!("keyring-cli-{}", std::process::id());
    // The test agent refuses a session until signed in; its env_var method's variable signs it in.
    std::fs::write(
        config.join("porthole/agents.json"),
        serde_json::json!({"agent_servers": {agent_id.clone(): {
            "command": workspace_bin("porthole-test-agent"),
            "env": {"PORTHOLE_TEST_AGENT_AUTH": "1"}}}})
        .to_string(),
    )
    .unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args([
                "--cwd",
                home.path().to_str().unwrap(),
                "--agent",
                &agent_id,
                "--json",
                "hello",
            ])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", &config)
            .env_remove("PORTHOLE_TEST_API_KEY")
            .output()
            .unwrap()
    };

    let before = run();
    assert!(!before.status.success(), "refused before signing in");
    assert!(String::from_utf8_lossy(&before.stderr).contains("PORTHOLE_TEST_API_KEY"));

    let secrets = AgentSecrets::os(config.join("porthole/secret-names.json")).expect("a Secret Service");
    secrets
        .set(&agent_id, &[("PORTHOLE_TEST_API_KEY".into(), "sk-cli".into())])
        .unwrap();
    let after = run();
    let _ = secrets.forget(&agent_id);
    assert!(
        after.status.success(),
        "signed in from the keyring: {}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert!(String::from_utf8_lossy(&after.stdout).contains("unknown scenario hello"));
}

/// A GET of `url` on loopback, its body (no HTTP client crate in these tests).
fn loopback_get(url: &str) -> String {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://127.0.0.1:").expect("a loopback url");
    let (port, path) = rest.split_once('/').unwrap();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn an_mcp_connection_signs_in_once_and_its_token_reaches_only_the_server() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let server = porthole_test_mcp::Spawned::start(&workspace_bin("porthole-test-mcp"), &[]);
    let url = server.url.clone();
    let name = format!("tracker-{}", std::process::id());
    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args(args)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("PORTHOLE_CONNECTIONS_FILE", home.join("connections.json"))
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let mut seen = String::new();
    let mut step = |args: &[&str]| {
        let out = cli(args);
        seen.push_str(&text(&out));
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        text(&out)
    };
    step(&["mcp", "add", &name, "--url", &url]);
    let browser = format!("{} --browse", workspace_bin("porthole-test-mcp").display());
    let login = step(&["mcp", "login", &name, "--browser", &browser]);
    assert!(
        login.contains("domain: 127.0.0.1") || login.contains("domain:"),
        "{login}"
    );
    assert!(login.contains("asks for: tools:read, tools:call"), "{login}");
    assert!(login.contains(&format!("Signed in to `{name}`")), "{login}");
    // `mcp list --json` says the sign-in (no token in it: the whole output is checked below).
    let listed: serde_json::Value = serde_json::from_str(step(&["mcp", "list", "--json"]).trim()).unwrap();
    assert_eq!(listed["signIn"]["state"], "signedIn", "{listed}");
    assert_eq!(
        listed["signIn"]["scopes"],
        serde_json::json!(["tools:read", "tools:call"])
    );

    let agent = workspace_bin("porthole-demo-agent");
    let prompt = format!("/tools {name} whoami");
    let run = step(&[
        "--agent",
        agent.to_str().unwrap(),
        "--cwd",
        home.to_str().unwrap(),
        "--json",
        "--mcp",
        &name,
        &prompt,
    ]);
    assert!(run.contains(&format!("{name} answered: signed in")), "{run}");
    assert!(step(&["mcp", "tools", &name]).contains("whoami"));

    let logout = step(&["mcp", "logout", &name]);
    assert!(logout.contains("the server revoked the tokens"), "{logout}");
    let listed: serde_json::Value = serde_json::from_str(step(&["mcp", "list", "--json"]).trim()).unwrap();
    assert_eq!(listed["signIn"]["state"], "signedOut", "{listed}");
    let after = step(&[
        "--agent",
        agent.to_str().unwrap(),
        "--cwd",
        home.to_str().unwrap(),
        "--json",
        "--mcp",
        &name,
        &prompt,
    ]);
    assert!(after.contains("Sign in to"), "{after}");

    // The tokens the server issued reached it, and nothing else: not any output, not any file.
    let issued: serde_json::Value =
        serde_json::from_str(&loopback_get(&url.replace("/mcp", "/_test/issued"))).unwrap();
    let tokens: Vec<String> = issued["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    assert!(tokens.len() >= 2);
    assert!(
        issued["seen"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| tokens.contains(&t.as_str().unwrap().to_string()))
    );
    for token in &tokens {
        assert!(!seen.contains(token.as_str()), "a token in the CLI's output");
    }
    let mut files = vec![home.to_path_buf()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if let Ok(bytes) = std::fs::read(&path) {
            let content = String::from_utf8_lossy(&bytes);
            for token in &tokens {
                assert!(!content.contains(token.as_str()), "a token in {}", path.display());
            }
        }
    }
    drop(server);
}

/// `mcp add --from-registry`: a secret value read from stdin goes to the keyring, the file
/// keeps `{"secret": true}`, and the value is in no output.
#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn a_registry_servers_secret_value_goes_to_the_keyring() {
    use std::io::Write;
    let registry = porthole_test_mcp_registry::Server::with_fixtures();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("connections.json");
    let name = format!("weather-{}", std::process::id());
    let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args([
            "mcp",
            "add",
            &name,
            "--from-registry",
            "io.github.user/local-weather",
        ])
        .args(["--registry", &registry.url(), "--set", "config_path=/tmp/w.toml"])
        .env("PORTHOLE_CONNECTIONS_FILE", &file)
        .env("PORTHOLE_CACHE_DIR", home.path().join("cache"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-registry-secret-42\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{printed}");
    assert!(
        printed.contains("API_KEY=<in the OS keyring> npx -y @modelcontextprotocol/server-weather@1.0.0"),
        "{printed}"
    );
    assert!(!printed.contains("sk-registry-secret-42"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("sk-registry-secret-42"), "{text}");
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        saved["connections"][&name]["env"]["API_KEY"],
        serde_json::json!({"secret": true})
    );
    let store = porthole_connections::secrets::SecretStore::os().expect("a Secret Service");
    assert_eq!(
        store.get(&name, "env:API_KEY").unwrap().as_deref(),
        Some("sk-registry-secret-42")
    );
    store.delete(&name, "env:API_KEY").unwrap();
}

/// An organisation's MCP Registry behind a bearer token: `mcp registry-token URL` keeps it in
/// the keyring (read from stdin), and `mcp search --registry URL` sends it.
#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn an_organisations_registry_is_read_with_its_token_from_the_keyring() {
    use std::io::Write;
    let registry = porthole_test_mcp_registry::Server::with_fixtures();
    let token = format!("org-token-{}", std::process::id());
    registry.require_token(&token);
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str], stdin: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .arg("mcp")
            .args(args)
            .env("PORTHOLE_CONNECTIONS_FILE", home.path().join("connections.json"))
            .env("PORTHOLE_CACHE_DIR", home.path().join("cache"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let url = registry.url();
    let before = run(&["search", "weather", "--registry", &url], "");
    assert!(!before.status.success(), "read without a token");
    let kept = run(&["registry-token", &url], &format!("{token}\n"));
    assert!(kept.status.success(), "{}", String::from_utf8_lossy(&kept.stderr));
    let after = run(&["search", "weather", "--registry", &url], "");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&after.stdout),
        String::from_utf8_lossy(&after.stderr)
    );
    assert!(after.status.success(), "{printed}");
    assert!(printed.contains("io.github.user/remote-weather"), "{printed}");
    assert!(!printed.contains(&token));
    assert_eq!(
        registry.authorizations().last().unwrap().as_deref(),
        Some(format!("Bearer {token}").as_str())
    );
    let store = porthole_connections::secrets::SecretStore::os().expect("a Secret Service");
    let normalized = porthole_mcp_registry::Registry::new(&url, None).unwrap();
    store
        .delete(
            porthole_mcp_registry::TOKEN_OWNER,
            &porthole_mcp_registry::token_key(normalized.base()),
        )
        .unwrap();
}

/// A remote of the MCP Registry that asks for OAuth goes straight to its sign-in when added
/// (`mcp login`'s, the browser command given), and the tokens land in the keyring.
#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn a_registry_remote_that_asks_for_oauth_is_signed_in_when_added() {
    let server = porthole_test_mcp::Spawned::start(&workspace_bin("porthole-test-mcp"), &[]);
    let registry = porthole_test_mcp_registry::Server::start();
    registry.add(porthole_test_mcp_registry::remote_entry(
        "io.github.porthole-test/oauth-remote",
        &server.url,
    ));
    let home = tempfile::tempdir().unwrap();
    let name = format!("tracker-reg-{}", std::process::id());
    let browser = format!("{} --browse", workspace_bin("porthole-test-mcp").display());
    let cli = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args(args)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("PORTHOLE_CACHE_DIR", home.path().join("cache"))
            .env("PORTHOLE_CONNECTIONS_FILE", home.path().join("connections.json"))
            .output()
            .unwrap()
    };
    let out = cli(&[
        "mcp",
        "add",
        &name,
        "--from-registry",
        "io.github.porthole-test/oauth-remote",
        "--registry",
        &registry.url(),
        "--browser",
        &browser,
    ]);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{printed}");
    assert!(printed.contains(&format!("Sign in to `{name}` at:")), "{printed}");
    assert!(printed.contains(&format!("Signed in to `{name}`")), "{printed}");
    let out = cli(&["mcp", "list", "--json"]);
    let listed: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(listed["signIn"]["state"], "signedIn", "{listed}");
    assert_eq!(cli(&["mcp", "logout", &name]).status.code(), Some(0));
}
