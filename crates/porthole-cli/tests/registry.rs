//! `porthole-cli agents ...` against a fixture registry on 127.0.0.1: install an agent from a
//! binary archive and take it through a full turn with `--agent ID`, an npx agent through a
//! stand-in npx, updates, removal, offline use, and the refusals.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use porthole_test_registry::{Delivery, Entry, Server, agent_script, binary_agent, sha256_hex, tar_gz};
use serde_json::{Value, json};
use support::workspace_bin;

/// A sandbox: agents, cache and config folders of its own, and the fixture server.
struct Sandbox {
    dir: tempfile::TempDir,
    server: Server,
}

impl Sandbox {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            server: Server::start(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn registry_url(&self) -> String {
        self.server.url("/registry.json")
    }

    /// Publish the registry: the fixture agent at `version` (its archive execs the demo agent),
    /// an npx agent, and an entry this client cannot use.
    fn publish(&self, version: &str, archive: Option<Vec<u8>>) {
        let demo = workspace_bin("porthole-demo-agent");
        let archive = archive.unwrap_or_else(|| {
            let script = agent_script(&format!("exec '{}' \"$@\"", demo.display()));
            tar_gz(&[Entry::File("bin/agent", &script, 0o755)])
        });
        let path = format!("/fixture-{version}.tar.gz");
        let sha = sha256_hex(&archive);
        self.server.serve(&path, archive);
        self.server.serve(
            "/registry.json",
            porthole_test_registry::registry(vec![
                binary_agent("fixture", version, &self.server.url(&path), Some(&sha)),
                json!({"id": "npx-agent", "name": "Npx Agent", "version": "2.0.0",
                       "description": "runs with npx",
                       "distribution": {"npx": {"package": "@fixture/npx-agent@2.0.0", "args": ["--acp"]}}}),
                json!({"id": "broken", "name": "Broken", "version": "1.0.0", "distribution": {}}),
            ]),
        );
    }

    /// Run the CLI in the sandbox, with `env` set over the sandbox's own variables.
    fn cli_env(&self, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args(args)
            .env("PORTHOLE_AGENTS_DIR", self.path("agents"))
            .env("PORTHOLE_CACHE_DIR", self.path("cache"))
            .env("PORTHOLE_REGISTRY_URL", self.registry_url())
            // The default agents.json is looked up under the config dir: an empty one here.
            .env("XDG_CONFIG_HOME", self.path("config"))
            .envs(env.iter().copied())
            .current_dir(self.dir.path())
            .output()
            .unwrap()
    }

    fn cli_with_path(&self, args: &[&str], path: Option<&Path>) -> Output {
        match path {
            Some(path) => self.cli_env(args, &[("PATH", path.as_os_str())]),
            None => self.cli(args),
        }
    }

    fn cli(&self, args: &[&str]) -> Output {
        self.cli_env(args, &[])
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// The line of `id` in a listing, if there is one.
fn line_of_opt(listing: &str, id: &str) -> Option<String> {
    listing
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .map(String::from)
}

/// The line of `id` in a listing.
fn line_of(listing: &str, id: &str) -> String {
    listing
        .lines()
        .find(|l| l.split_whitespace().next() == Some(id))
        .unwrap_or_else(|| panic!("no `{id}` in:\n{listing}"))
        .to_string()
}

/// Run one prompt through `--agent ID` and check the turn went all the way.
fn full_turn(sandbox: &Sandbox, agent: &str, path: Option<&Path>) {
    let out = ok(sandbox.cli_with_path(
        &[
            "--agent",
            agent,
            "--cwd",
            sandbox.dir.path().to_str().unwrap(),
            "--json",
            "hello",
        ],
        path,
    ));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "initialized");
    let text: String = lines
        .iter()
        .filter(|l| l["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["update"]["content"]["text"].as_str())
        .collect();
    assert!(!text.is_empty(), "the agent replied");
    let end = lines.iter().find(|l| l["type"] == "turn_end").expect("turn_end");
    assert_eq!(end["stopReason"], "end_turn");
}

#[test]
fn install_run_update_and_remove_an_agent_from_the_registry() {
    let sandbox = Sandbox::new();
    sandbox.publish("1.0.0", None);

    let out = ok(sandbox.cli(&["agents", "available"]));
    let fixture = line_of(&stdout(&out), "fixture");
    assert!(
        fixture.contains("1.0.0") && fixture.contains("binary") && !fixture.contains("installed"),
        "{fixture}"
    );
    assert!(line_of(&stdout(&out), "npx-agent").contains("npx"));
    assert!(!stdout(&out).contains("broken"));
    assert!(
        stderr(&out).contains("`broken`"),
        "bad entries are reported: {}",
        stderr(&out)
    );

    let out = ok(sandbox.cli(&["agents", "install", "fixture"]));
    assert!(
        stdout(&out).starts_with("installed fixture 1.0.0 (binary)"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("downloading fixture: [####################] 100%"),
        "{}",
        stderr(&out)
    );
    assert!(sandbox.path("agents/fixture/1.0.0/bin/agent").is_file());

    let out = ok(sandbox.cli(&["agents", "list"]));
    assert!(
        line_of(&stdout(&out), "fixture").contains("registry 1.0.0 (binary)"),
        "{}",
        stdout(&out)
    );
    let out = ok(sandbox.cli(&["agents", "list", "--json"]));
    let listed: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(listed["agent"]["registry"]["version"], "1.0.0");
    let out = ok(sandbox.cli(&["agents", "available", "--json"]));
    let first: Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(
        (first["agent"]["id"].as_str(), first["status"]["status"].as_str()),
        (Some("fixture"), Some("installed"))
    );

    // The installed agent by id, through a whole ACP turn.
    full_turn(&sandbox, "fixture", None);
    // Not by its name (it comes from the registry): that is a command line, here of a program
    // that does not exist.
    let out = sandbox.cli(&["--agent", "Fixture fixture", "hello"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("failed to start"), "{}", stderr(&out));

    let out = ok(sandbox.cli(&["agents", "install", "fixture"]));
    assert!(stdout(&out).contains("already installed"), "{}", stdout(&out));

    sandbox.publish("1.1.0", None);
    let out = ok(sandbox.cli(&["agents", "available"]));
    assert!(
        line_of(&stdout(&out), "fixture").contains("update available (1.0.0 installed)"),
        "{}",
        stdout(&out)
    );
    let out = ok(sandbox.cli(&["agents", "update"]));
    assert!(
        stdout(&out).contains("updated fixture from 1.0.0 to 1.1.0"),
        "{}",
        stdout(&out)
    );
    assert!(!sandbox.path("agents/fixture/1.0.0").exists());
    full_turn(&sandbox, "fixture", None);
    let out = ok(sandbox.cli(&["agents", "update", "fixture"]));
    assert!(
        stdout(&out).contains("fixture 1.1.0 is up to date"),
        "{}",
        stdout(&out)
    );
    // The registry goes back to an older version: the listing names the one installed
    // (issue 32: it showed the registry's `1.0` beside a bare "installed").
    sandbox.publish("1.0", None);
    let out = ok(sandbox.cli(&["agents", "available"]));
    let fixture = line_of(&stdout(&out), "fixture");
    assert!(fixture.contains(" 1.1.0 installed "), "{fixture}");

    let out = ok(sandbox.cli(&["agents", "remove", "fixture"]));
    assert_eq!(stdout(&out), "removed fixture 1.1.0\n");
    assert!(!sandbox.path("agents/fixture").exists());
    assert!(!stdout(&ok(sandbox.cli(&["agents", "list"]))).contains("fixture"));
    // Gone for --agent too: `fixture` is now just a program that does not exist.
    let out = sandbox.cli(&["--agent", "fixture", "hello"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = sandbox.cli(&["agents", "remove", "fixture"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`fixture` is not installed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_npx_agent_needs_npx_and_then_runs_through_it() {
    let sandbox = Sandbox::new();
    sandbox.publish("1.0.0", None);
    let bin = sandbox.path("bin");
    std::fs::create_dir(&bin).unwrap();

    let out = sandbox.cli_with_path(&["agents", "install", "npx-agent"], Some(&bin));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("npx") && stderr(&out).contains("install Node.js"),
        "{}",
        stderr(&out)
    );

    // A stand-in npx: checks it was asked for the registry's package, then runs the demo agent.
    let demo = workspace_bin("porthole-demo-agent");
    let npx = format!(
        "#!/bin/sh\n[ \"$*\" = '-y @fixture/npx-agent@2.0.0 --acp' ] || {{ echo \"npx $*\" >&2; exit 5; }}\nexec '{}'\n",
        demo.display()
    );
    std::fs::write(bin.join("npx"), npx).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("npx"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ok(sandbox.cli_with_path(&["agents", "install", "npx-agent"], Some(&bin)));
    assert_eq!(
        stdout(&out),
        "installed npx-agent 2.0.0 (npx): npx -y @fixture/npx-agent@2.0.0 --acp\n"
    );
    full_turn(&sandbox, "npx-agent", Some(&bin));
}

#[test]
fn refusals_are_errors_that_say_why() {
    let sandbox = Sandbox::new();
    let out = sandbox.cli(&["agents", "install", "fixture"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot read") && stderr(&out).contains("127.0.0.1"),
        "{}",
        stderr(&out)
    );

    sandbox.publish("1.0.0", None);
    let out = sandbox.cli(&["agents", "install", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no agent `nope` in the registry"),
        "{}",
        stderr(&out)
    );

    // The archive changed after the registry gave its checksum.
    let script = agent_script("echo tampered");
    sandbox.publish("1.0.0", None);
    sandbox.server.serve(
        "/fixture-1.0.0.tar.gz",
        tar_gz(&[Entry::File("bin/agent", &script, 0o755)]),
    );
    let out = sandbox.cli(&["agents", "install", "fixture"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("SHA-256"), "{}", stderr(&out));

    // A path-traversal archive (listed with its own, matching, checksum).
    let evil = tar_gz(&[
        Entry::File("bin/agent", &script, 0o755),
        Entry::File("../../owned", b"x", 0o644),
    ]);
    sandbox.publish("1.0.0", Some(evil));
    let out = sandbox.cli(&["agents", "install", "fixture"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unsafe") && stderr(&out).contains(".."),
        "{}",
        stderr(&out)
    );
    assert!(!sandbox.path("owned").exists() && !sandbox.path("agents/fixture").exists());

    let out = sandbox.cli(&["agents", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lists_from_the_cache_when_the_registry_is_unreachable() {
    let sandbox = Sandbox::new();
    sandbox.publish("1.0.0", None);
    // --registry wins over PORTHOLE_REGISTRY_URL (here a file that does not exist).
    let url = sandbox.registry_url();
    let missing = sandbox.path("no-registry.json");
    let elsewhere = [("PORTHOLE_REGISTRY_URL", missing.as_os_str())];
    let out = ok(sandbox.cli_env(&["agents", "available", "--registry", &url], &elsewhere));
    assert!(stdout(&out).contains("fixture"));
    let out = sandbox.cli_env(&["agents", "available"], &elsewhere);
    assert_eq!(out.status.code(), Some(1), "nothing cached for that source");
    assert!(stderr(&out).contains("no-registry.json"), "{}", stderr(&out));
    sandbox.server.stop();
    let out = ok(sandbox.cli(&["agents", "available", "--registry", &url]));
    assert!(line_of(&stdout(&out), "fixture").contains("1.0.0"));
    assert!(
        stderr(&out).contains("offline") && stderr(&out).contains("cached"),
        "{}",
        stderr(&out)
    );
    // Installing needs the archive itself: a clear failure, nothing half installed.
    let out = sandbox.cli(&["agents", "install", "fixture", "--registry", &url]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!sandbox.path("agents/fixture").exists());
}

/// Write an executable shell script.
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Nothing a terminal would act on (see tests/cli.rs for the agent's side).
fn assert_inert(what: &str, text: &str) {
    for c in text.chars() {
        assert!(
            matches!(c, '\n' | '\t')
                || !(c.is_control() || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}')),
            "{what} carries U+{:04X} raw:\n{text}",
            c as u32
        );
    }
}

/// A registry with hostile entries, stand-in npx and uvx on a `bin` folder, and the marker file
/// they create when they act on an option (`--call` runs a shell command, `--index-url` and
/// `--with` are the tool's own), logging every run.
struct Hostile {
    sandbox: Sandbox,
    bin: PathBuf,
    marker: PathBuf,
    log: PathBuf,
}

/// The entries whose package, command or environment would reach npx or uvx as an option.
const TOOL_OPTION_IDS: [&str; 5] = ["npx-flag", "npx-cmd", "uvx-index", "uvx-with", "npx-env"];

fn hostile_registry() -> Hostile {
    let sandbox = Sandbox::new();
    let marker = sandbox.path("pwned");
    let touch = format!("--call=touch {}", marker.display());
    let demo = workspace_bin("porthole-demo-agent");
    let archive = tar_gz(&[Entry::File(
        "bin/agent",
        &agent_script(&format!("exec '{}' \"$@\"", demo.display())),
        0o755,
    )]);
    sandbox.server.serve("/evil.tar.gz", archive);
    let mut named = binary_agent("evil-name", "1.0.0", &sandbox.server.url("/evil.tar.gz"), None);
    named["name"] = json!("Evil\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{202E}");
    named["description"] = json!("desc\u{1b}]0;title\u{7}\nfixture  1.0.0  binary  forged line");
    let entries = vec![
        named,
        json!({"id": "npx-flag", "name": "A", "version": "1.0.0",
               "distribution": {"npx": {"package": touch}}}),
        json!({"id": "npx-cmd", "name": "A", "version": "1.0.0",
               "distribution": {"npx": {"package": "left-pad@1.0.0", "cmd": touch}}}),
        json!({"id": "uvx-index", "name": "A", "version": "1.0.0",
               "distribution": {"uvx": {"package": format!("--index-url={}", sandbox.server.url("/simple"))}}}),
        json!({"id": "uvx-with", "name": "A", "version": "1.0.0",
               "distribution": {"uvx": {"package": "--with=evil", "args": ["--acp"]}}}),
        json!({"id": "npx-env", "name": "A", "version": "1.0.0",
               "distribution": {"npx": {"package": "agent", "env": {"npm_config_registry": sandbox.server.url("/npm")}}}}),
        json!({"id": "esc\u{1b}[2J", "name": "A", "version": "1.0.0",
               "distribution": {"npx": {"package": "a"}}}),
    ];
    sandbox
        .server
        .serve("/registry.json", porthole_test_registry::registry(entries));
    let bin = sandbox.path("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = sandbox.path("tool-log");
    for tool in ["npx", "uvx"] {
        script(
            &bin.join(tool),
            &format!(
                "PATH=/usr/bin:/bin:$PATH\necho \"{tool} $*\" >> '{}'\n[ -n \"$npm_config_registry\" ] && touch '{}'\nfor a in \"$@\"; do case \"$a\" in --call=*) sh -c \"${{a#--call=}}\";; --index-url=*|--with=*) touch '{}';; esac; done\nexit 1",
                log.display(),
                marker.display(),
                marker.display()
            ),
        );
    }
    Hostile {
        sandbox,
        bin,
        marker,
        log,
    }
}

#[test]
fn hostile_registry_text_is_shown_inert_in_available_install_list_and_a_start() {
    let Hostile { sandbox, bin, .. } = hostile_registry();
    let out = ok(sandbox.cli_with_path(&["agents", "available"], Some(&bin)));
    assert_inert("stdout", &stdout(&out));
    assert_inert("stderr", &stderr(&out));
    let line = line_of(&stdout(&out), "evil-name");
    assert!(
        line.contains("Evil⟨U+001B⟩]52;c;cHduZWQ=⟨U+0007⟩⟨U+001B⟩[2J⟨U+202E⟩ - desc⟨U+001B⟩]0;title⟨U+0007⟩⟨U+000A⟩fixture"),
        "{line}"
    );
    // The forged line stays inside the real one.
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    // Problems quote registry values; those are shown inert too.
    assert!(stderr(&out).contains("esc⟨U+001B⟩[2J"), "{}", stderr(&out));

    let out = ok(sandbox.cli_with_path(&["agents", "install", "evil-name"], Some(&bin)));
    assert_inert("install", &stdout(&out));
    let out = ok(sandbox.cli(&["agents", "list"]));
    assert_inert("list", &stdout(&out));
    assert!(stdout(&out).contains("Evil⟨U+001B⟩]52"), "{}", stdout(&out));
    let out = ok(sandbox.cli(&[
        "--agent",
        "evil-name",
        "--cwd",
        sandbox.dir.path().to_str().unwrap(),
        "hello",
    ]));
    assert_inert("a start's stderr", &stderr(&out));
    full_turn(&sandbox, "evil-name", None);
}

#[test]
fn registry_packages_that_are_tool_options_are_listed_as_problems_never_installed_or_run() {
    let Hostile {
        sandbox,
        bin,
        marker,
        log,
    } = hostile_registry();
    // The marker, also as `pwned@1.0.0` (the version npx's package gets appended).
    let pwned = || {
        std::fs::read_dir(marker.parent().unwrap())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().starts_with("pwned"))
    };
    for id in TOOL_OPTION_IDS {
        // Install, then start it by id, as a user would; judged after both.
        let install = sandbox.cli_with_path(&["agents", "install", id], Some(&bin));
        let start = sandbox.cli_with_path(&["--agent", id, "hello"], Some(&bin));
        assert!(
            !pwned(),
            "{id}: a registry value ran as a tool option (install: {}, start: {})",
            stdout(&install),
            stderr(&start)
        );
        assert_eq!(install.status.code(), Some(1), "{id}: {}", stdout(&install));
        assert!(
            stderr(&install).contains("in the registry"),
            "{id}: {}",
            stderr(&install)
        );
        // No installed agent by that id: it is taken as a program, which does not exist.
        assert_eq!(start.status.code(), Some(1), "{id}");
    }
    assert!(
        !log.exists(),
        "npx or uvx was run: {:?}",
        std::fs::read_to_string(&log)
    );
    let out = ok(sandbox.cli_with_path(&["agents", "available"], Some(&bin)));
    for id in TOOL_OPTION_IDS {
        assert!(
            stderr(&out).contains(&format!("registry entry skipped: agent `{id}`")),
            "{id}: {}",
            stderr(&out)
        );
        assert!(line_of_opt(&stdout(&out), id).is_none(), "{id} is listed");
    }
}

#[test]
fn an_installed_agent_is_matched_by_id_never_by_its_name() {
    let sandbox = Sandbox::new();
    sandbox.publish("1.0.0", None);
    // The registry names its agent like the user's own command line.
    let registry = sandbox.server.url("/fixture-1.0.0.tar.gz");
    let mut entry = binary_agent("fixture", "1.0.0", &registry, None);
    entry["name"] = json!("my-agent --acp");
    sandbox
        .server
        .serve("/registry.json", porthole_test_registry::registry(vec![entry]));
    ok(sandbox.cli(&["agents", "install", "fixture"]));
    // The user's program `my-agent`: leaves a mark, then runs the demo agent.
    let bin = sandbox.path("bin");
    std::fs::create_dir(&bin).unwrap();
    let mark = sandbox.path("mine-ran");
    let demo = workspace_bin("porthole-demo-agent");
    script(
        &bin.join("my-agent"),
        &format!("touch '{}'\nexec '{}'", mark.display(), demo.display()),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    full_turn(&sandbox, "my-agent --acp", Some(Path::new(&path)));
    assert!(
        mark.exists(),
        "the installed agent ran instead of the user's program"
    );
}

#[test]
fn a_body_longer_than_its_length_fails_cleanly_without_a_panic() {
    let sandbox = Sandbox::new();
    sandbox.publish("1.0.0", None);
    let demo = workspace_bin("porthole-demo-agent");
    let archive = tar_gz(&[Entry::File(
        "bin/agent",
        &agent_script(&format!("exec '{}' \"$@\"", demo.display())),
        0o755,
    )]);
    let declared = archive.len() / 4;
    sandbox.server.serve_as(
        "/fixture-1.0.0.tar.gz",
        archive,
        Delivery::ChunkedWithShortLength { declared },
    );
    let out = sandbox.cli(&["agents", "install", "fixture"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("more than the {declared} bytes its Content-Length says")),
        "{}",
        stderr(&out)
    );
    assert!(!sandbox.path("agents/fixture").exists());
}

#[test]
fn an_older_or_unordered_version_is_never_offered_as_an_update() {
    let sandbox = Sandbox::new();
    sandbox.publish("2.0.0", None);
    ok(sandbox.cli(&["agents", "install", "fixture"]));
    sandbox.publish("1.0", None);
    let out = ok(sandbox.cli(&["agents", "available"]));
    let line = line_of(&stdout(&out), "fixture");
    assert!(line.contains("installed") && !line.contains("update"), "{line}");
    let out = ok(sandbox.cli(&["agents", "update"]));
    assert!(
        stdout(&out).contains("fixture 2.0.0 is up to date"),
        "{}",
        stdout(&out)
    );
    assert!(sandbox.path("agents/fixture/2.0.0").is_dir());
}

/// The names in `<agents dir>/fixture/`.
fn listing(sandbox: &Sandbox) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(sandbox.path("agents/fixture"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Start `agents ARGS` and press Ctrl-C once its download is under way (stalled by the server).
fn interrupt_download(sandbox: &Sandbox, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(args)
        .env("PORTHOLE_AGENTS_DIR", sandbox.path("agents"))
        .env("PORTHOLE_CACHE_DIR", sandbox.path("cache"))
        .env("PORTHOLE_REGISTRY_URL", sandbox.registry_url())
        .env("XDG_CONFIG_HOME", sandbox.path("config"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !listing(sandbox).iter().any(|n| n.starts_with(".download-")) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no download started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Let the first bytes arrive, so the download is blocked in a read of the stalled body.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let pressed = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    // The server would hold the connection for a minute and the idle timeout is 30 s.
    assert!(
        pressed.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        pressed.elapsed()
    );
    out
}

#[test]
fn ctrl_c_during_an_install_leaves_what_was_installed_before() {
    let sandbox = Sandbox::new();
    // A first install, interrupted: no agent, no empty folder.
    sandbox.publish("1.0.0", None);
    let body = tar_gz(&[Entry::File("bin/agent", &agent_script("exec true"), 0o755)]);
    sandbox.server.serve_as(
        "/fixture-1.0.0.tar.gz",
        body.clone(),
        Delivery::Stall { after: 10 },
    );
    let out = interrupt_download(&sandbox, &["agents", "install", "fixture"]);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("cancelled"), "{}", stderr(&out));
    assert!(
        !sandbox.path("agents/fixture").exists(),
        "{:?}",
        listing(&sandbox)
    );

    // An update, interrupted: the installed version stays, and runs.
    sandbox.publish("1.0.0", None);
    ok(sandbox.cli(&["agents", "install", "fixture"]));
    sandbox.publish("1.1.0", None);
    sandbox
        .server
        .serve_as("/fixture-1.1.0.tar.gz", body, Delivery::Stall { after: 10 });
    let out = interrupt_download(&sandbox, &["agents", "update", "fixture"]);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("what was installed before is kept"),
        "{}",
        stderr(&out)
    );
    assert_eq!(listing(&sandbox), ["1.0.0"]);
    full_turn(&sandbox, "fixture", None);
}
