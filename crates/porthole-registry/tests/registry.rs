//! The ACP registry: reading it (with the offline cache), and installing, updating and
//! removing agents, against a fixture registry served on 127.0.0.1 with archives built here.

use std::path::Path;
use std::process::Command;

use porthole_registry as registry;
use porthole_registry::{DistributionKind, InstallOutcome, Installer, Progress, RegistryError, Status};
use porthole_test_registry::{Entry, Server, agent_script, binary_agent, sha256_hex, tar_gz};
use serde_json::json;

const ECHO: &str = "echo \"agent ran: $*\"";

fn installer(dir: &Path) -> Installer {
    Installer::new(dir.join("agents"))
}

/// Serve `archive` at `path` and a registry listing it as agent `id` at `/registry.json`.
fn publish(server: &Server, id: &str, version: &str, path: &str, archive: Vec<u8>, sha: Option<&str>) {
    server.serve(path, archive);
    server.serve(
        "/registry.json",
        porthole_test_registry::registry(vec![binary_agent(id, version, &server.url(path), sha)]),
    );
}

fn fetch_agent(server: &Server, cache: &Path, id: &str) -> registry::RegistryAgent {
    let fetched = registry::load_registry(&server.url("/registry.json"), Some(cache)).unwrap();
    assert!(fetched.offline.is_none(), "{:?}", fetched.offline);
    fetched
        .registry
        .agent(id)
        .cloned()
        .expect("agent in the registry")
}

fn no_progress() -> impl FnMut(Progress) {
    |_| {}
}

/// Run an installed agent's command as a front end would and return its stdout.
fn run_installed(agent: &registry::InstalledAgent) -> String {
    let out = Command::new(&agent.command)
        .args(&agent.args)
        .args(["hello"])
        .envs(&agent.env)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn agent_archive(exec_line: &str) -> Vec<u8> {
    let script = agent_script(exec_line);
    tar_gz(&[
        Entry::Dir("./bin/"),
        // Mode 0644 on purpose: the installer makes the command executable.
        Entry::File("./bin/agent", &script, 0o644),
        Entry::File("./share/README", b"docs", 0o644),
        Entry::Symlink("./bin/readme", "../share/README"),
        Entry::HardLink("./share/README.copy", "./share/README"),
    ])
}

#[test]
fn installs_a_binary_agent_that_then_runs_from_the_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let archive = agent_archive(ECHO);
    let size = archive.len() as u64;
    let sha = sha256_hex(&archive);
    publish(
        &server,
        "fixture",
        "1.0.0",
        "/fixture-1.0.0.tar.gz",
        archive,
        Some(&sha),
    );
    let agent = fetch_agent(&server, &dir.path().join("cache"), "fixture");
    let installer = installer(dir.path());
    assert_eq!(
        Status::of(&agent, &installer.installed().unwrap()),
        Status::NotInstalled
    );

    let mut seen = Vec::new();
    let outcome = installer.install(&agent, &mut |p| seen.push(p)).unwrap();
    let InstallOutcome::Installed { agent: installed } = &outcome else {
        panic!("{outcome:?}")
    };
    let home = dir.path().join("agents/fixture/1.0.0");
    assert_eq!(installed.path.as_deref(), Some(home.as_path()));
    assert_eq!(Path::new(&installed.command), home.join("bin/agent"));
    assert_eq!(installed.kind, DistributionKind::Binary);
    assert_eq!(run_installed(installed), "agent ran: hello\n");
    assert_eq!(std::fs::read(home.join("bin/readme")).unwrap(), b"docs");
    assert_eq!(std::fs::read(home.join("share/README.copy")).unwrap(), b"docs");
    // Progress: starts at zero, ends at the full size with the total known, then extraction.
    assert_eq!(
        seen.first(),
        Some(&Progress::Downloading {
            done: 0,
            total: Some(size)
        })
    );
    assert!(seen.contains(&Progress::Downloading {
        done: size,
        total: Some(size)
    }));
    assert_eq!(seen.last(), Some(&Progress::Extracting));
    // No temporary files left beside the version folder.
    let names: Vec<String> = std::fs::read_dir(dir.path().join("agents/fixture"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["1.0.0"]);

    // Recorded, and offered as a profile marked as from the registry.
    assert_eq!(installer.installed().unwrap(), vec![installed.clone()]);
    assert_eq!(
        Status::of(&agent, &installer.installed().unwrap()),
        Status::Installed {
            installed: "1.0.0".into()
        }
    );
    let profiles = registry::installed_profiles(&dir.path().join("agents")).unwrap();
    assert_eq!(profiles.len(), 1);
    assert_eq!(profiles[0].id, "fixture");
    assert_eq!(profiles[0].name, "Fixture fixture");
    assert_eq!(profiles[0].registry.as_ref().unwrap().version, "1.0.0");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("agents/installed.json")).unwrap()).unwrap();
    assert_eq!(record["agents"][0]["env"]["FIXTURE_FLAG"], "from-registry");

    // Installing again downloads nothing.
    let downloads = server
        .requests()
        .iter()
        .filter(|r| r.ends_with(".tar.gz"))
        .count();
    let again = installer.install(&agent, &mut no_progress()).unwrap();
    assert!(
        matches!(again, InstallOutcome::AlreadyInstalled { .. }),
        "{again:?}"
    );
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.ends_with(".tar.gz"))
            .count(),
        downloads
    );
}

#[test]
fn tar_bz2_zip_and_raw_programs_install_too() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let script = agent_script(ECHO);
    let entries = [Entry::File("bin/agent", &script, 0o755)];
    for (path, archive) in [
        ("/a.tar.bz2", porthole_test_registry::tar_bz2(&entries)),
        ("/a.tbz2", porthole_test_registry::tar_bz2(&entries)),
        ("/a.zip", porthole_test_registry::zip(&entries)),
        ("/a.tgz", tar_gz(&entries)),
    ] {
        let id = format!("fmt-{}", path.rsplit('.').next().unwrap().replace('2', "two"));
        publish(&server, &id, "1.0.0", path, archive, None);
        let agent = fetch_agent(&server, &dir.path().join("cache"), &id);
        let outcome = installer(dir.path()).install(&agent, &mut no_progress()).unwrap();
        assert_eq!(run_installed(outcome.agent()), "agent ran: hello\n", "{path}");
    }
    // A raw program: the download is the command itself.
    server.serve("/agent-linux", script.clone());
    let target = registry::current_target().unwrap();
    server.serve(
        "/registry.json",
        porthole_test_registry::registry(vec![json!({
            "id": "raw", "name": "Raw", "version": "0.1.0", "description": "d",
            "distribution": {"binary": {target: {
                "archive": server.url("/agent-linux"), "cmd": "./raw-agent",
                "args": ["--from-registry"], "env": {"FIXTURE_FLAG": "from-registry"}}}}
        })]),
    );
    let agent = fetch_agent(&server, &dir.path().join("cache"), "raw");
    let outcome = installer(dir.path()).install(&agent, &mut no_progress()).unwrap();
    assert!(outcome.agent().command.ends_with("raw/0.1.0/raw-agent"));
    assert_eq!(run_installed(outcome.agent()), "agent ran: hello\n");
}

/// Install `archive` as agent `id` and return the error; nothing may be left behind.
fn refused(archive: Vec<u8>, path: &str, sha: Option<&str>) -> (RegistryError, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    publish(&server, "bad", "1.0.0", path, archive, sha);
    let agent = fetch_agent(&server, &dir.path().join("cache"), "bad");
    let installer = installer(dir.path());
    let err = installer.install(&agent, &mut no_progress()).unwrap_err();
    assert!(installer.installed().unwrap().is_empty());
    assert!(
        !dir.path().join("agents/bad").exists(),
        "{err}: files left behind"
    );
    (err, dir)
}

#[test]
fn corrupt_archives_are_refused_and_leave_nothing() {
    let (err, _) = refused(b"this is not gzip at all".to_vec(), "/bad.tar.gz", None);
    assert!(matches!(err, RegistryError::CorruptArchive(_)), "{err}");
    assert!(err.to_string().contains(".tar.gz"), "{err}");

    let mut truncated = agent_archive(ECHO);
    truncated.truncate(truncated.len() / 2);
    let (err, _) = refused(truncated, "/bad.tar.gz", None);
    assert!(matches!(err, RegistryError::CorruptArchive(_)), "{err}");

    let zip = porthole_test_registry::zip(&[Entry::File("bin/agent", b"x", 0o755)]);
    let (err, _) = refused(zip[..zip.len() - 30].to_vec(), "/bad.zip", None);
    assert!(matches!(err, RegistryError::CorruptArchive(_)), "{err}");

    // A sound archive without the registry's `cmd` in it.
    let (err, _) = refused(tar_gz(&[Entry::File("other", b"x", 0o755)]), "/bad.tar.gz", None);
    assert!(err.to_string().contains("./bin/agent"), "{err}");
}

#[test]
fn entries_that_escape_the_install_folder_are_refused() {
    let script = agent_script(ECHO);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dot-dot",
            tar_gz(&[
                Entry::File("bin/agent", &script, 0o755),
                Entry::File("../../escaped", b"x", 0o644),
            ]),
            "..",
        ),
        (
            "absolute",
            tar_gz(&[Entry::File("/tmp/porthole-escaped", b"x", 0o644)]),
            "absolute",
        ),
        (
            "symlink out",
            tar_gz(&[Entry::Symlink("bin/agent", "../../../../../../bin/sh")]),
            "outside",
        ),
        (
            "symlink absolute",
            tar_gz(&[Entry::Symlink("bin/agent", "/bin/sh")]),
            "outside",
        ),
        (
            // Each link alone stays inside; followed together they lead out.
            "symlink chain",
            tar_gz(&[
                Entry::File("bin/agent", &script, 0o755),
                Entry::Symlink("here", "."),
                Entry::Symlink("up", "here/.."),
            ]),
            "leads outside",
        ),
        (
            "write through a symlink",
            tar_gz(&[
                Entry::Symlink("lib", "bin"),
                Entry::File("lib/agent", &script, 0o755),
            ]),
            "below the symlink",
        ),
        (
            "hard link out",
            tar_gz(&[Entry::HardLink("bin/agent", "../../../../etc/passwd")]),
            "hard link",
        ),
    ];
    for (what, archive, says) in cases {
        let (err, dir) = refused(archive, "/bad.tar.gz", None);
        assert!(matches!(err, RegistryError::UnsafeArchive(_)), "{what}: {err}");
        assert!(err.to_string().contains(says), "{what}: {err}");
        assert!(
            !dir.path().join("escaped").exists() && !dir.path().parent().unwrap().join("escaped").exists()
        );
    }
    assert!(!Path::new("/tmp/porthole-escaped").exists());

    let zip = porthole_test_registry::zip(&[Entry::File("../zip-escaped", b"x", 0o644)]);
    let (err, _) = refused(zip, "/bad.zip", None);
    assert!(err.to_string().contains(".."), "{err}");
    let zip = porthole_test_registry::zip(&[Entry::Symlink("bin/agent", "/etc/passwd")]);
    let (err, _) = refused(zip, "/bad.zip", None);
    assert!(err.to_string().contains("outside"), "{err}");
}

#[test]
fn a_wrong_checksum_is_refused() {
    let archive = agent_archive(ECHO);
    let wrong = sha256_hex(b"something else");
    let (err, _) = refused(archive, "/agent.tar.gz", Some(&wrong));
    assert!(
        err.to_string().contains("SHA-256") && err.to_string().contains(&wrong),
        "{err}"
    );
}

#[test]
fn oversized_downloads_and_archive_bombs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let archive = agent_archive(ECHO);
    let mut installer = installer(dir.path());
    installer.limits.max_download_bytes = archive.len() as u64 - 1;
    for without_length in [false, true] {
        // Without Content-Length only counting the bytes catches it.
        if without_length {
            server.serve_unsized("/big.tar.gz", archive.clone());
        } else {
            server.serve("/big.tar.gz", archive.clone());
        }
        server.serve(
            "/registry.json",
            porthole_test_registry::registry(vec![binary_agent(
                "big",
                "1.0.0",
                &server.url("/big.tar.gz"),
                None,
            )]),
        );
        let agent = fetch_agent(&server, &dir.path().join("cache"), "big");
        let err = installer.install(&agent, &mut no_progress()).unwrap_err();
        assert!(err.to_string().contains("limit"), "{err}");
        assert!(!dir.path().join("agents/big").exists());
    }

    // 8 MiB of zeros compress to a few KiB; the unpacked limit stops them.
    let zeros = vec![0u8; 8 << 20];
    let bomb = tar_gz(&[Entry::File("bin/agent", &zeros, 0o755)]);
    assert!(bomb.len() < 100_000);
    publish(&server, "bomb", "1.0.0", "/bomb.tar.gz", bomb, None);
    let agent = fetch_agent(&server, &dir.path().join("cache"), "bomb");
    let mut installer = self::installer(dir.path());
    installer.limits.max_unpacked_bytes = 1 << 20;
    let err = installer.install(&agent, &mut no_progress()).unwrap_err();
    assert!(
        matches!(err, RegistryError::UnsafeArchive(_)) && err.to_string().contains("unpacks"),
        "{err}"
    );
}

fn package_registry(server: &Server) {
    server.serve(
        "/registry.json",
        porthole_test_registry::registry(vec![
            json!({"id": "npx-agent", "name": "Npx Agent", "version": "2.0.0", "description": "d",
                   "distribution": {"npx": {"package": "@fixture/npx-agent@2.0.0", "args": ["--acp"],
                                            "env": {"A": "1"}}}}),
            json!({"id": "uvx-agent", "name": "Uvx Agent", "version": "0.3.0", "description": "d",
                   "distribution": {"uvx": {"package": "uvx-agent", "cmd": "uvx-agent-acp"}}}),
        ]),
    );
}

#[test]
fn npx_and_uvx_agents_become_commands_when_the_tool_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    package_registry(&server);
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let mut installer = installer(dir.path());
    installer.path_env = Some(bin.clone().into_os_string());

    // Missing tools: a clear message naming what to install, and nothing recorded.
    let npx = fetch_agent(&server, &dir.path().join("cache"), "npx-agent");
    let uvx = fetch_agent(&server, &dir.path().join("cache"), "uvx-agent");
    let err = installer.install(&npx, &mut no_progress()).unwrap_err();
    assert!(matches!(err, RegistryError::MissingTool(_)), "{err}");
    assert!(
        err.to_string().contains("npx") && err.to_string().contains("Node.js"),
        "{err}"
    );
    let err = installer.install(&uvx, &mut no_progress()).unwrap_err();
    assert!(err.to_string().contains("install uv"), "{err}");
    assert!(installer.installed().unwrap().is_empty());

    for tool in ["npx", "uvx"] {
        std::fs::write(bin.join(tool), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join(tool), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let npx = installer.install(&npx, &mut no_progress()).unwrap();
    let npx = npx.agent();
    assert_eq!((npx.command.as_str(), npx.kind), ("npx", DistributionKind::Npx));
    assert_eq!(npx.args, ["-y", "@fixture/npx-agent@2.0.0", "--acp"]);
    assert_eq!(npx.env.get("A").map(String::as_str), Some("1"));
    assert_eq!(npx.path, None);
    let uvx = installer.install(&uvx, &mut no_progress()).unwrap();
    assert_eq!(uvx.agent().command, "uvx");
    assert_eq!(uvx.agent().args, ["--from", "uvx-agent==0.3.0", "uvx-agent-acp"]);
    assert_eq!(installer.installed().unwrap().len(), 2);
    // Removing a package agent only forgets it.
    installer.remove("npx-agent").unwrap();
    assert_eq!(installer.installed().unwrap().len(), 1);
}

#[test]
fn updates_to_a_newer_version_and_removes_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let cache = dir.path().join("cache");
    let installer = installer(dir.path());
    publish(
        &server,
        "fixture",
        "1.0.0",
        "/v1.tar.gz",
        agent_archive("echo v1"),
        None,
    );
    installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap();

    // A broken newer version fails and leaves the installed one as it was.
    publish(
        &server,
        "fixture",
        "1.1.0",
        "/v1.1.tar.gz",
        b"garbage".to_vec(),
        None,
    );
    let broken = fetch_agent(&server, &cache, "fixture");
    assert!(installer.install(&broken, &mut no_progress()).is_err());
    let installed = installer.installed().unwrap();
    assert_eq!(installed[0].version, "1.0.0");
    assert_eq!(run_installed(&installed[0]), "v1\n");
    assert!(!dir.path().join("agents/fixture/1.1.0").exists());

    publish(
        &server,
        "fixture",
        "1.10.0",
        "/v1.10.tar.gz",
        agent_archive("echo v1.10"),
        None,
    );
    let newer = fetch_agent(&server, &cache, "fixture");
    assert_eq!(
        Status::of(&newer, &installer.installed().unwrap()),
        Status::UpdateAvailable {
            installed: "1.0.0".into()
        }
    );
    let outcome = installer.install(&newer, &mut no_progress()).unwrap();
    let InstallOutcome::Updated { from, agent } = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!((from.as_str(), agent.version.as_str()), ("1.0.0", "1.10.0"));
    assert_eq!(run_installed(agent), "v1.10\n");
    assert!(
        !dir.path().join("agents/fixture/1.0.0").exists(),
        "the old version is deleted"
    );

    let gone = installer.remove("fixture").unwrap();
    assert_eq!(gone.version, "1.10.0");
    assert!(!dir.path().join("agents/fixture").exists());
    assert!(installer.installed().unwrap().is_empty());
    assert!(matches!(
        installer.remove("fixture"),
        Err(RegistryError::NotInstalled(_))
    ));
}

#[test]
fn works_offline_from_the_last_good_copy() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let server = Server::start();
    publish(
        &server,
        "fixture",
        "1.0.0",
        "/a.tar.gz",
        agent_archive(ECHO),
        None,
    );
    let url = server.url("/registry.json");
    let online = registry::load_registry(&url, Some(&cache)).unwrap();
    assert!(online.offline.is_none());

    // A broken answer does not replace the good copy.
    server.serve("/registry.json", "<html>maintenance</html>");
    let broken = registry::load_registry(&url, Some(&cache)).unwrap();
    assert!(
        broken.offline.as_deref().unwrap().contains("not JSON"),
        "{:?}",
        broken.offline
    );
    assert_eq!(broken.registry, online.registry);

    server.stop();
    let offline = registry::load_registry(&url, Some(&cache)).unwrap();
    let note = offline.offline.expect("says it is offline");
    assert!(note.contains("cached") && note.contains("127.0.0.1"), "{note}");
    assert_eq!(offline.registry, online.registry);
    // With nothing cached, offline is an error that names the source.
    let err = registry::load_registry(&url, Some(&dir.path().join("empty"))).unwrap_err();
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
    assert!(registry::load_registry(&url, None).is_err());
}

#[test]
fn reads_files_and_reports_bad_entries_without_failing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("registry.json");
    std::fs::write(
        &file,
        porthole_test_registry::registry(vec![
            json!({"id": "good", "name": "Good", "version": "1.0.0", "description": "d",
                   "distribution": {"npx": {"package": "good@1.0.0"}}, "preview": {"version": "2"}}),
            json!({"id": "no-name", "version": "1.0.0", "distribution": {"npx": {"package": "x"}}}),
            json!({"id": "../../etc", "name": "Evil", "version": "1.0.0", "distribution": {"npx": {"package": "x"}}}),
            json!({"id": "dots", "name": "Dots", "version": "../1", "distribution": {"npx": {"package": "x"}}}),
            json!({"id": "future", "name": "Future", "version": "1.0.0", "distribution": {"flatpak": {}}}),
            json!({"id": "good", "name": "Again", "version": "1.0.0", "distribution": {"npx": {"package": "x"}}}),
            json!("not an object"),
        ]),
    )
    .unwrap();
    for source in [file.display().to_string(), format!("file://{}", file.display())] {
        let fetched = registry::load_registry(&source, None).unwrap();
        let ids: Vec<&str> = fetched.registry.agents.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["good"]);
        let problems = fetched.registry.problems.join("\n");
        assert_eq!(fetched.registry.problems.len(), 6, "{problems}");
        for id in ["no-name", "../../etc", "dots", "future", "listed twice", "#7"] {
            assert!(problems.contains(id), "{id} in {problems}");
        }
    }
    std::fs::write(&file, r#"{"version": "1.0.0"}"#).unwrap();
    let err = registry::load_registry(&file.display().to_string(), None).unwrap_err();
    assert!(err.to_string().contains("agents"), "{err}");
}

/// An installer with short download limits, for the tests of misbehaving servers.
fn impatient_installer(dir: &Path) -> Installer {
    let mut installer = installer(dir);
    installer.limits.idle_timeout = std::time::Duration::from_secs(1);
    installer.limits.rate_window = std::time::Duration::from_secs(1);
    installer
}

/// Serve `archive` at `/a.tar.gz` the way `how` says, listed as agent `id`.
fn publish_as(
    server: &Server,
    id: &str,
    version: &str,
    archive: Vec<u8>,
    how: porthole_test_registry::Delivery,
) {
    publish(server, id, version, "/a.tar.gz", Vec::new(), None);
    server.serve_as("/a.tar.gz", archive, how);
}

#[test]
fn a_stalled_download_ends_at_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let archive = agent_archive(ECHO);
    publish_as(
        &server,
        "stall",
        "1.0.0",
        archive,
        porthole_test_registry::Delivery::Stall { after: 100 },
    );
    let agent = fetch_agent(&server, &dir.path().join("cache"), "stall");
    let started = std::time::Instant::now();
    let err = impatient_installer(dir.path())
        .install(&agent, &mut no_progress())
        .unwrap_err();
    assert!(err.to_string().contains("nothing arrived for 1 s"), "{err}");
    // The server holds the connection for a minute; the idle timeout is 1 s.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(!dir.path().join("agents/stall").exists());
}

#[test]
fn a_trickle_below_the_minimum_rate_ends_the_download() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    // A byte every 100 ms: never idle for 1 s, but 10 bytes/s against a minimum of 1024.
    let every = std::time::Duration::from_millis(100);
    publish_as(
        &server,
        "drip",
        "1.0.0",
        agent_archive(ECHO),
        porthole_test_registry::Delivery::Drip { every },
    );
    let agent = fetch_agent(&server, &dir.path().join("cache"), "drip");
    let started = std::time::Instant::now();
    let err = impatient_installer(dir.path())
        .install(&agent, &mut no_progress())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("slower than the minimum of 1024 bytes/s"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(!dir.path().join("agents/drip").exists());
}

#[test]
fn a_body_longer_than_its_declared_length_is_refused_and_progress_stays_in_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let archive = agent_archive(ECHO);
    let declared = archive.len() / 3;
    publish_as(
        &server,
        "chunked",
        "1.0.0",
        archive,
        porthole_test_registry::Delivery::ChunkedWithShortLength { declared },
    );
    let agent = fetch_agent(&server, &dir.path().join("cache"), "chunked");
    let mut seen = Vec::new();
    let err = installer(dir.path())
        .install(&agent, &mut |p| seen.push(p))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("more than the {declared} bytes its Content-Length says")),
        "{err}"
    );
    for p in seen {
        if let Progress::Downloading {
            done,
            total: Some(total),
        } = p
        {
            assert!(done <= total, "progress past its total: {done} of {total}");
        }
    }
    assert!(!dir.path().join("agents/chunked").exists());
}

#[test]
fn a_cancelled_update_keeps_the_installed_version_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let cache = dir.path().join("cache");
    // The read the cancel interrupts ends within a second, so the join below is quick.
    let installer = impatient_installer(dir.path());
    publish(
        &server,
        "fixture",
        "1.0.0",
        "/v1.tar.gz",
        agent_archive("echo v1"),
        None,
    );
    installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(dir.path().join("agents/fixture"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(listing(), ["1.0.0"]);

    // 1.1.0 stalls half way; the front end cancels, and (like a CLI about to exit) does not
    // wait for the blocked read: `clean_up` deletes what the install made at once.
    publish_as(
        &server,
        "fixture",
        "1.1.0",
        agent_archive("echo v1.1"),
        porthole_test_registry::Delivery::Stall { after: 100 },
    );
    let newer = fetch_agent(&server, &cache, "fixture");
    let cancel = registry::Cancel::new();
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = {
        let (installer, cancel) = (installer.clone(), cancel.clone());
        std::thread::spawn(move || {
            installer.install_cancellable(
                &newer,
                &mut |p| {
                    let _ = tx.send(p);
                },
                &cancel,
            )
        })
    };
    // Wait until bytes arrived (the temporary download exists).
    loop {
        if let Progress::Downloading { done, .. } = rx.recv().unwrap()
            && done > 0
        {
            break;
        }
    }
    assert_eq!(
        listing().len(),
        2,
        "the download is in the agent's folder: {:?}",
        listing()
    );
    cancel.clean_up();
    assert_eq!(listing(), ["1.0.0"], "cleaned up while the read still waits");
    let err = worker.join().unwrap().unwrap_err();
    assert!(matches!(err, RegistryError::Cancelled), "{err}");
    let installed = installer.installed().unwrap();
    assert_eq!(installed[0].version, "1.0.0");
    assert_eq!(run_installed(&installed[0]), "v1\n");
    assert_eq!(listing(), ["1.0.0"]);
}

#[test]
fn only_what_porthole_installed_is_ever_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let cache = dir.path().join("cache");
    let installer = installer(dir.path());
    // A folder of the user's named like the agent, under a shared agents dir.
    let folder = dir.path().join("agents/fixture");
    std::fs::create_dir_all(folder.join("notes")).unwrap();
    std::fs::write(folder.join("notes/keep.txt"), "mine").unwrap();
    std::fs::write(folder.join("README"), "mine too").unwrap();
    // And one named like a version the registry will offer.
    std::fs::create_dir_all(folder.join("3.0.0")).unwrap();
    std::fs::write(folder.join("3.0.0/data"), "mine").unwrap();
    let survives = || {
        assert_eq!(
            std::fs::read_to_string(folder.join("notes/keep.txt")).unwrap(),
            "mine"
        );
        assert_eq!(
            std::fs::read_to_string(folder.join("README")).unwrap(),
            "mine too"
        );
        assert_eq!(
            std::fs::read_to_string(folder.join("3.0.0/data")).unwrap(),
            "mine"
        );
    };

    publish(
        &server,
        "fixture",
        "1.0.0",
        "/v1.tar.gz",
        agent_archive("echo v1"),
        None,
    );
    installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap();
    survives();
    publish(
        &server,
        "fixture",
        "2.0.0",
        "/v2.tar.gz",
        agent_archive("echo v2"),
        None,
    );
    installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap();
    survives();
    assert!(!folder.join("1.0.0").exists(), "the recorded old version goes");

    // The user's `3.0.0` is not replaced by an update to 3.0.0.
    publish(
        &server,
        "fixture",
        "3.0.0",
        "/v3.tar.gz",
        agent_archive("echo v3"),
        None,
    );
    let err = installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap_err();
    assert!(err.to_string().contains("was not installed by Porthole"), "{err}");
    survives();
    assert_eq!(installer.installed().unwrap()[0].version, "2.0.0");

    installer.remove("fixture").unwrap();
    survives();
    assert!(!folder.join("2.0.0").exists());
}

#[test]
fn a_version_that_is_not_clearly_newer_is_not_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let cache = dir.path().join("cache");
    let installer = installer(dir.path());
    publish(
        &server,
        "fixture",
        "2.0.0",
        "/v2.tar.gz",
        agent_archive("echo v2"),
        None,
    );
    installer
        .install(&fetch_agent(&server, &cache, "fixture"), &mut no_progress())
        .unwrap();
    // `1.0` is not semver; it is still not newer than 2.0.0.
    publish(
        &server,
        "fixture",
        "1.0",
        "/v1.tar.gz",
        agent_archive("echo v1"),
        None,
    );
    let older = fetch_agent(&server, &cache, "fixture");
    assert_eq!(
        Status::of(&older, &installer.installed().unwrap()),
        Status::Installed {
            installed: "2.0.0".into()
        }
    );
    let outcome = installer.install(&older, &mut no_progress()).unwrap();
    assert!(
        matches!(outcome, InstallOutcome::AlreadyInstalled { .. }),
        "{outcome:?}"
    );
    assert_eq!(run_installed(&installer.installed().unwrap()[0]), "v2\n");
}
