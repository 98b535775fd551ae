//! `porthole-cli mcp search` and `mcp add NAME --from-registry SERVER` against the fake MCP
//! Registry on 127.0.0.1 (`porthole-test-mcp-registry`: the registry documentation's
//! server.json examples and the hostile entries). No OS keyring here (the D-Bus address points
//! nowhere): a secret value is refused, never written to the file; tests/keyring.rs stores one.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use porthole_test_mcp_registry as fake;
use serde_json::Value;
use support::workspace_bin;

struct Env {
    dir: tempfile::TempDir,
    registry: fake::Server,
}

impl Env {
    fn new() -> Self {
        let registry = fake::Server::with_fixtures();
        for (_, v) in fake::hostile_fixtures() {
            registry.add(v);
        }
        Self {
            dir: tempfile::tempdir().unwrap(),
            registry,
        }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("connections.json")
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .arg("mcp")
            .arg("--connections-file")
            .arg(self.file())
            .args(args)
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("PORTHOLE_CACHE_DIR", self.dir.path().join("cache"))
            .env("PORTHOLE_MCP_REGISTRY_URL", self.registry.url())
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/porthole-test-bus",
            )
            .env_remove("PORTHOLE_CONNECTIONS_FILE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, "")
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    fn text(&self) -> String {
        std::fs::read_to_string(self.file()).unwrap_or_default()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn search_finds_titles_and_descriptions_and_marks_what_is_not_offered() {
    let env = Env::new();
    // In a description only: the registry itself searches names.
    let out = env.ok(&["search", "data access"]);
    assert!(
        out.starts_with("io.github.example/weather-mcp 0.5.0  uvx"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    let lines: Vec<Value> = env
        .ok(&["search", "weather", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = lines.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"io.github.user/remote-weather"), "{names:?}");
    let remote = lines
        .iter()
        .find(|l| l["name"] == "io.github.user/remote-weather")
        .unwrap();
    assert_eq!(remote["offered"], true);
    assert_eq!(remote["registry"], env.registry.url());
    // Hostile: shown with the reason, not offered; hidden characters shown as code points.
    let out = env.ok(&["search", "ld_preload"]);
    assert!(
        out.contains("[nothing Porthole can add]") && out.contains("`LD_PRELOAD` would configure"),
        "{out}"
    );
    let out = env.ok(&["search", "innocent"]);
    assert!(
        out.contains("Innocent⟨U+202E⟩gnp.exe") && !out.contains('\u{202e}'),
        "{out}"
    );
    // The second search refreshes with updated_since, from the cache.
    assert!(
        env.registry
            .requests()
            .iter()
            .any(|r| r.contains("updated_since=")),
        "{:?}",
        env.registry.requests()
    );
}

#[test]
fn search_lists_a_servers_versions() {
    let env = Env::new();
    let mut newer = fake::server_everything();
    newer["version"] = "2026.9.1".into();
    newer["packages"][0]["version"] = "2026.9.1".into();
    env.registry.add(newer);
    let out = env.ok(&[
        "search",
        "--versions",
        "io.github.modelcontextprotocol/server-everything",
    ]);
    let versions: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(versions, ["2026.8.31", "2026.9.1"]);
}

#[test]
fn add_from_the_registry_pins_the_version_and_shows_the_command() {
    let env = Env::new();
    let out = env.ok(&[
        "add",
        "everything",
        "--from-registry",
        "io.github.modelcontextprotocol/server-everything",
        "--version",
        "2026.8.31",
        "--agent",
        "claude-code",
    ]);
    assert!(
        out.contains("  npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"),
        "{out}"
    );
    let file: Value = serde_json::from_str(&env.text()).unwrap();
    assert_eq!(
        file["connections"]["everything"],
        serde_json::json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"], "agents": ["claude-code"]})
    );
}

#[test]
fn values_are_set_checked_and_usage_errors_name_them() {
    let env = Env::new();
    let add = |extra: &[&str], stdin: &str| {
        let mut args = vec![
            "add",
            "db",
            "--from-registry",
            "io.github.example/database-manager",
        ];
        args.extend_from_slice(extra);
        env.run_with_stdin(&args, stdin)
    };
    // A secret on the command line: refused before anything else.
    let out = add(&["--set", "DB_PASSWORD=hunter2"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`DB_PASSWORD` is secret"),
        "{}",
        stderr(&out)
    );
    // A missing required value is a usage error naming it.
    let out = add(
        &["--set", "DB_USERNAME=app", "--set", "db_type=postgres"],
        "pw-from-stdin\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("database_name: This field is required"),
        "{}",
        stderr(&out)
    );
    // Not one of the choices.
    let out = add(
        &[
            "--set",
            "DB_USERNAME=app",
            "--set",
            "db_type=oracle",
            "--set",
            "database_name=x",
        ],
        "pw-from-stdin\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("db_type"), "{}", stderr(&out));
    // An unknown key lists the real ones.
    let out = add(&["--set", "NOPE=1"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("DB_USERNAME, DB_PASSWORD, SSL_MODE"),
        "{}",
        stderr(&out)
    );
    // All good, but the password needs the keyring, and there is none: refused, nothing written.
    let out = add(
        &[
            "--set",
            "DB_USERNAME=app",
            "--set",
            "db_type=postgres",
            "--set",
            "database_name=orders",
        ],
        "pw-from-stdin\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no OS keyring"), "{}", stderr(&out));
    assert!(!env.file().exists());
    let all = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
    assert!(!all.contains("pw-from-stdin"));
}

#[test]
fn hostile_and_deprecated_entries_are_not_added() {
    let env = Env::new();
    for (server, why) in [
        ("io.github.hostile/npm-option", "not a package name"),
        (
            "io.github.hostile/remote-http",
            "plain http is only for a server on this computer",
        ),
        (
            "io.github.hostile/env-node-options",
            "`NODE_OPTIONS` would configure",
        ),
    ] {
        let out = env.run(&["add", "x", "--from-registry", server]);
        assert_eq!(out.status.code(), Some(1), "{server}");
        assert!(stderr(&out).contains(why), "{server}: {}", stderr(&out));
    }
    env.registry.set_status(
        "io.github.user/local-weather",
        "deprecated",
        "2099-01-01T00:00:00Z",
    );
    let out = env.run(&["add", "x", "--from-registry", "io.github.user/local-weather"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("deprecated"), "{}", stderr(&out));
    assert!(!env.file().exists());
}

/// The agent's message text of a `--json` run.
fn said(stdout: &str) -> String {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["update"]["content"]["text"].as_str().map(str::to_string))
        .collect()
}

fn cli(home: &Path, registry: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PORTHOLE_CONNECTIONS_FILE", home.join("connections.json"))
        .env("PORTHOLE_CACHE_DIR", home.join("cache"))
        .env("PORTHOLE_MCP_REGISTRY_URL", registry)
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        )
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// End to end with a package nobody here wrote: `@modelcontextprotocol/server-everything`
/// from npm, added from the fake registry, and an agent calling its `echo` tool in a turn.
#[test]
#[ignore = "needs npx and the npm registry: cargo test -p porthole-cli --test mcp_registry -- --ignored (scripts/test runs it)"]
fn server_everything_from_the_registry_answers_an_agents_tool_call() {
    let registry = fake::Server::with_fixtures();
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let out = cli(
        home,
        &registry.url(),
        &[
            "mcp",
            "add",
            "everything",
            "--from-registry",
            "io.github.modelcontextprotocol/server-everything",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let agent = workspace_bin("porthole-demo-agent");
    let out = cli(
        home,
        &registry.url(),
        &[
            "--agent",
            agent.to_str().unwrap(),
            "--cwd",
            home.to_str().unwrap(),
            "--json",
            "--mcp",
            "everything",
            r#"/tools everything echo {"message": "added from the registry"}"#,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        said(&stdout).contains("everything answered: Echo: added from the registry"),
        "{stdout}\n{}",
        stderr(&out)
    );
}

#[test]
fn search_uses_the_kept_copy_when_the_registry_is_unreachable() {
    let env = Env::new();
    env.ok(&["search", "weather"]);
    let registry_url = env.registry.url();
    let Env { dir, registry } = env;
    drop(registry);
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["mcp", "search", "data access", "--registry", &registry_url])
        .env("PORTHOLE_CACHE_DIR", dir.path().join("cache"))
        .env("PORTHOLE_CONNECTIONS_FILE", dir.path().join("connections.json"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/porthole-test-bus",
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("using the copy kept from before"),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("io.github.example/weather-mcp"));
}

#[test]
fn a_remote_that_asks_for_sign_in_says_so_when_added_without_a_terminal() {
    let env = Env::new();
    // One asks for OAuth sign-in; one answers without a token and publishes no OAuth metadata.
    let oauth = porthole_test_mcp::Spawned::start(&workspace_bin("porthole-test-mcp"), &[]);
    let open =
        porthole_test_mcp::Spawned::start(&workspace_bin("porthole-test-mcp"), &["--open", "--legacy"]);
    env.registry.add(fake::remote_entry(
        "io.github.porthole-test/oauth-remote",
        &oauth.url,
    ));
    env.registry.add(fake::remote_entry(
        "io.github.porthole-test/open-remote",
        &open.url,
    ));
    // No terminal here (stdin and stdout are pipes) and no --browser: the command is printed.
    let out = env.ok(&[
        "add",
        "tracker",
        "--from-registry",
        "io.github.porthole-test/oauth-remote",
    ]);
    assert!(
        out.contains("  its server asks you to sign in: porthole-cli mcp login tracker"),
        "{out}"
    );
    let out = env.ok(&[
        "add",
        "plain",
        "--from-registry",
        "io.github.porthole-test/open-remote",
    ]);
    assert!(out.contains("  its server asks for no sign-in"), "{out}");
    assert!(!out.contains("mcp login"), "{out}");
}

/// An MCP bundle from the registry (the workspace's test MCP server as a binary bundle):
/// downloaded and checked against its SHA-256, unpacked under the data folder when saved, the
/// exact command shown, then its tools listed through the gateway.
#[test]
fn a_bundle_from_the_registry_is_unpacked_and_its_tools_are_listed() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let registry = fake::Server::start();
    let bytes = fake::binary_bundle(&std::fs::read(workspace_bin("porthole-test-mcp")).unwrap());
    let sha = fake::sha256_hex(&bytes);
    let url = registry.serve_file("bundled.mcpb", bytes);
    registry.add(fake::bundle_entry("io.github.test/bundled", "1.0.0", &url, &sha));
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args(args)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env_remove("PORTHOLE_MCP_BUNDLES_DIR")
            .env("PORTHOLE_CONNECTIONS_FILE", home.join("connections.json"))
            .env("PORTHOLE_CACHE_DIR", home.join("cache"))
            .env("PORTHOLE_MCP_REGISTRY_URL", registry.url())
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/porthole-test-bus",
            )
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[
        "mcp",
        "add",
        "bundled",
        "--from-registry",
        "io.github.test/bundled",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let dir = home
        .join("data/porthole/mcp-bundles/io.github.test/bundled")
        .join(format!("1.0.0-{}", &sha[..16]));
    assert!(
        stdout.contains(&format!(
            "\n  {}/server/porthole-test-mcp --stdio\n",
            dir.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("(SHA-256 {sha}) is unpacked in {}", dir.display())),
        "{stdout}"
    );
    assert!(dir.join("server/porthole-test-mcp").is_file());
    let out = run(&["mcp", "tools", "bundled"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools = String::from_utf8(out.stdout).unwrap();
    assert!(
        tools.contains("echo  Echoes its text back.") && tools.contains("env"),
        "{tools}"
    );
}

/// A repeated argument (`isRepeated`) from the CLI: one value per `--set`, each one argument,
/// and each checked by the form's validator.
#[test]
fn a_repeated_argument_takes_one_value_per_set() {
    let env = Env::new();
    let fs = "io.github.modelcontextprotocol/filesystem";
    let out = env.ok(&[
        "add",
        "fs",
        "--from-registry",
        fs,
        "--set",
        "target_dir=/srv/a",
        "--set",
        "target_dir=/srv/b c",
    ]);
    assert!(
        out.contains(
            "  LOG_LEVEL=info npx -y @modelcontextprotocol/server-filesystem@1.0.2 /srv/a '/srv/b c'\n"
        ),
        "{out}"
    );
    let file: Value = serde_json::from_str(&env.text()).unwrap();
    assert_eq!(
        file["connections"]["fs"]["args"],
        serde_json::json!([
            "-y",
            "@modelcontextprotocol/server-filesystem@1.0.2",
            "/srv/a",
            "/srv/b c"
        ])
    );
}
