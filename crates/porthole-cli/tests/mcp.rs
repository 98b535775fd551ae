//! `porthole-cli mcp ...`: the connections file edited headless, imports, and the errors with
//! their exit codes (2 for usage errors, 1 for failures). No OS keyring is reachable here (the
//! D-Bus address points nowhere), so a value that must go to the keyring is refused or skipped,
//! and never written to the file instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("connections.json")
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_porthole-cli"));
        cmd.arg("mcp")
            .arg("--connections-file")
            .arg(self.file())
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env(
                "DBUS_SESSION_BUS_ADDRESS",
                "unix:path=/nonexistent/porthole-test-bus",
            )
            .env_remove("PORTHOLE_CONNECTIONS_FILE");
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn list_json(&self) -> Vec<Value> {
        self.ok(&["list", "--json"])
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn text(&self) -> String {
        std::fs::read_to_string(self.file()).unwrap_or_default()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../porthole-connections/tests/fixtures")
        .join(name)
}

#[test]
fn add_list_disable_enable_remove() {
    let env = Env::new();
    let out = env.ok(&[
        "add",
        "docs",
        "--url",
        "https://docs.example.com/mcp",
        "--transport",
        "sse",
        "--header",
        "Accept-Language: en",
        "--agent",
        "claude-code",
        "--agent",
        "codex",
    ]);
    assert!(
        out.contains("added `docs`: https://docs.example.com/mcp (sse)"),
        "{out}"
    );
    env.ok(&[
        "add",
        "files",
        "--env",
        "ROOT=/home/me",
        "--",
        "npx",
        "-y",
        "server-fs",
        "--root",
        "/home/me",
    ]);
    env.ok(&["add", "local", "--url", "http://127.0.0.1:8931/mcp"]);

    let list = env.list_json();
    let names: Vec<&str> = list.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["docs", "files", "local"], "in the order added");
    assert_eq!(list[0]["transport"], "sse");
    assert_eq!(list[0]["agents"], serde_json::json!(["claude-code", "codex"]));
    assert_eq!(list[0]["headers"]["Accept-Language"], "en");
    assert_eq!(
        list[1]["args"],
        serde_json::json!(["-y", "server-fs", "--root", "/home/me"])
    );
    assert_eq!(list[1]["env"]["ROOT"], "/home/me");
    assert_eq!(list[1]["agents"], "all");

    let text = env.ok(&["list"]);
    assert!(
        text.lines()
            .any(|l| l.starts_with("files") && l.contains(" on ") && l.contains("npx -y server-fs")),
        "{text}"
    );

    env.ok(&["disable", "files"]);
    assert_eq!(env.list_json()[1]["enabled"], false);
    assert!(env.text().contains("\"enabled\": false"), "{}", env.text());
    assert!(
        env.ok(&["list"])
            .lines()
            .any(|l| l.starts_with("files") && l.contains(" off "))
    );
    env.ok(&["enable", "files"]);
    assert_eq!(env.list_json()[1]["enabled"], true);

    assert!(env.ok(&["remove", "docs"]).contains("removed `docs`"));
    let names: Vec<String> = env
        .list_json()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["files", "local"]);
}

#[test]
fn the_file_comes_from_the_environment_without_the_flag() {
    let env = Env::new();
    let elsewhere = env.dir.path().join("other.json");
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["mcp", "add", "files", "--", "npx", "server-fs"])
        .env("PORTHOLE_CONNECTIONS_FILE", &elsewhere)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", env.dir.path().join("config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&elsewhere).unwrap().contains("server-fs"));
    assert!(!env.dir.path().join("config/porthole/connections.json").exists());
}

#[test]
fn usage_errors_exit_2_and_change_nothing() {
    let env = Env::new();
    env.ok(&["add", "files", "--", "npx"]);
    let before = env.text();
    for (args, says) in [
        (&["add", "x", "--url", "not a url"][..], "--url is not a URL"),
        (
            &["add", "x", "--url", "http://mcp.example.com/mcp"],
            "plain http is only for a server on this computer",
        ),
        (
            &["add", "x", "--url", "http://192.168.1.5:8080/mcp"],
            "plain http",
        ),
        (&["add", "x", "--url", "ftp://example.com/"], "https"),
        (&["add", "bad name", "--", "npx"], "a name is"),
        (&["add", "x"], "give the server's URL"),
        (&["add", "x", "--env", "NOVALUE", "--", "npx"], "NAME=VALUE"),
        (
            &["add", "x", "--url", "https://e.com", "--header", "no colon"],
            "'Name: value'",
        ),
        (
            &["add", "x", "--url", "https://e.com", "--", "npx"],
            "cannot be used with",
        ),
        (&["add", "x", "--transport", "sse", "--", "npx"], "go with --url"),
        (
            &["add", "x", "--url", "https://x.example/mcp", "--transport", "ws"],
            "\"http\" or \"sse\"",
        ),
        (&["add", "x", "--header", "A: b", "--", "npx"], "go with --url"),
        (
            &["add", "x", "--url", "https://e.com", "--env", "A=b"],
            "cannot be used with",
        ),
        (&["add", "x", "--", ""], "command is empty"),
        (
            &["import", "/nonexistent/claude_desktop_config.json"],
            "cannot read /nonexistent",
        ),
        (&["frobnicate"], "unrecognized subcommand"),
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(env.text(), before);
}

#[test]
fn failures_exit_1_and_change_nothing() {
    let env = Env::new();
    env.ok(&["add", "files", "--", "npx"]);
    let before = env.text();
    let out = env.run(&["add", "files", "--url", "https://example.com/mcp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a connection named `files` exists already"),
        "{}",
        stderr(&out)
    );
    for args in [["remove", "nope"], ["enable", "nope"], ["disable", "nope"]] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains("no connection named `nope`"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(env.text(), before);

    let garbage = env.dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"theme\": \"One Dark\"}").unwrap();
    let out = env.run(&["import", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no MCP servers found"), "{}", stderr(&out));
}

#[test]
fn an_unreadable_connections_file_is_an_error_and_kept() {
    let env = Env::new();
    let broken = "{\"connections\": {\"files\": {\"command\": \"npx\",}, // half an edit\n";
    std::fs::write(env.file(), broken).unwrap();
    for args in [
        &["list"][..],
        &["add", "x", "--", "npx"],
        &["remove", "files"],
        &["disable", "files"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&env.file().display().to_string()) && err.contains("not valid JSON"),
            "{err}"
        );
    }
    assert_eq!(env.text(), broken, "nothing lost");
}

#[test]
fn a_secret_value_without_a_keyring_is_refused_not_written() {
    let env = Env::new();
    for args in [
        &[
            "add",
            "gh",
            "--env",
            "GITHUB_TOKEN=fake-cli-token-0009",
            "--",
            "npx",
            "server-github",
        ][..],
        &[
            "add",
            "gh",
            "--url",
            "https://api.example.com/mcp",
            "--header",
            "Authorization: Bearer fake-cli-token-0009",
        ],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("no OS keyring"), "{}", stderr(&out));
        assert!(!stderr(&out).contains("fake-cli-token"), "{}", stderr(&out));
    }
    assert!(!env.file().exists());
    // PATH is not a PAT: a plain value.
    env.ok(&["add", "gh", "--env", "PATH=/usr/bin", "--", "npx"]);
    // A secret the server reads from its command line cannot move: it is added, with a warning.
    let out = env.run(&["add", "cli-token", "--", "srv", "--api-key=fake-cli-arg-0010"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("option `--api-key` looks like it passes a secret"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("fake-cli-arg"), "{}", stderr(&out));
}

#[test]
fn import_reports_every_entry_and_keeps_secrets_out_of_the_file() {
    let env = Env::new();
    let vscode = fixture("vscode_mcp.json");
    let out = env.ok(&["import", vscode.to_str().unwrap()]);
    for line in [
        "imported `playwright`: npx @playwright/mcp@latest",
        "imported `events`: http://localhost:3001/sse (sse)",
        "skipped `github`: uses `${input:github_token}`",
        "skipped `perplexity`: its secret values (PERPLEXITY_API_KEY) need the OS keyring",
        "skipped `docs`: its secret values (header X-API-Key) need the OS keyring",
        "skipped `socket`: its type `websocket`",
        "skipped `broken-url`: its URL is not valid",
        "2 imported, 5 skipped",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    let text = env.text();
    assert!(!text.contains("fake-vscode"), "{text}");
    let names: Vec<String> = env
        .list_json()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["playwright", "events"]);

    // Again: nothing is added twice.
    let out = env.ok(&["import", vscode.to_str().unwrap()]);
    assert!(
        out.contains("skipped `playwright`: a connection named `playwright` exists already"),
        "{out}"
    );
    assert!(out.contains("0 imported, 7 skipped"), "{out}");
    assert_eq!(env.text(), text);
}

#[test]
fn import_reads_pasted_text_from_stdin() {
    let env = Env::new();
    let mut child = env
        .command()
        .args(["import", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            br#"{
              // pasted from Zed
              "context_servers": {
                "Time \u001b[2J": {"command": {"path": "uvx", "args": ["mcp-server-time"]}},
                "ext": {"source": "extension", "settings": {}},
              },
            }"#,
        )
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("stdin: `context_servers` (Zed settings)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("imported `Time ⟨U+001B⟩[2J` as `Time-2J`: uvx mcp-server-time"),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "escapes are shown, not sent");
    assert!(
        stdout.contains("skipped `ext`: managed by a Zed extension"),
        "{stdout}"
    );
    assert_eq!(env.list_json()[0]["command"], "uvx");
}
