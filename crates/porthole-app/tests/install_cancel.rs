//! The window's Cancel for a registry install: an install whose download stalls (the server
//! sends its headers and a few bytes, then nothing) is cancelled through the app model; the
//! waiting `install_agent` call returns at once and nothing of the install is left.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::FakeShell;
use porthole_app::{Backend, Launch};
use serde_json::json;

mod common;

/// Serves `/registry.json` (one binary agent, `slow`) and its archive, which stalls after 10 of
/// its 100,000 bytes.
fn serve_stalling_registry() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let target = porthole_registry::current_target().expect("a known platform");
    let registry = json!({"version": "1.0.0", "agents": [{
        "id": "slow", "name": "Slow", "version": "1.0.0",
        "distribution": {"binary": {target: {"archive": format!("{base}/slow.tar.gz"), "cmd": "./agent"}}}
    }]})
    .to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let registry = registry.clone();
            std::thread::spawn(move || {
                let mut first = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let _ = reader.read_line(&mut first);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                if first.contains("/registry.json") {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{registry}",
                        registry.len()
                    );
                } else {
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n");
                    let _ = stream.write_all(&[0x1f, 0x8b, 0, 0, 0, 0, 0, 0, 0, 0]);
                    let _ = stream.flush();
                    std::thread::sleep(Duration::from_secs(120));
                }
            });
        }
    });
    format!("{base}/registry.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_stalled_install_returns_at_once_and_leaves_nothing() {
    let home = tempfile::tempdir().unwrap();
    let agents = home.path().join("agents");
    // SAFETY: set before any other thread of this test process reads the environment.
    unsafe {
        std::env::set_var("HOME", home.path());
        std::env::set_var("XDG_CONFIG_HOME", home.path().join(".config"));
        std::env::set_var("XDG_DATA_HOME", home.path().join(".local/share"));
        std::env::set_var("XDG_CACHE_HOME", home.path().join(".cache"));
        std::env::set_var("PORTHOLE_AGENTS_DIR", &agents);
        std::env::set_var("PORTHOLE_REGISTRY_URL", serve_stalling_registry());
    }
    let launch = Launch::from_args(None, Some(home.path().to_path_buf())).expect("launch");
    let shell = Arc::new(FakeShell::default());
    let backend = Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);

    assert!(!backend.cancel_install("slow"), "nothing to cancel yet");
    let install = tokio::spawn({
        let backend = backend.clone();
        async move { backend.install_agent("slow".into()).await }
    });
    // The download is under way (its temporary file is in the agent's folder).
    let started = Instant::now();
    while !std::fs::read_dir(agents.join("slow")).is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with(".download-")))
    }) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the download never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The window sees how far it got: the first bytes, of how many.
    let progress = shell
        .wait_for("the install's progress", |e| e["type"] == "install_progress")
        .await;
    assert_eq!(progress["registryId"], "slow");
    assert_eq!(progress["phase"], "downloading");
    // A second install of the same agent meanwhile is refused, not run twice.
    let twice = backend.install_agent("slow".into()).await.unwrap_err();
    assert!(
        format!("{twice:?}").contains("being installed already"),
        "{twice:?}"
    );

    let pressed = Instant::now();
    assert!(backend.cancel_install("slow"));
    let err = tokio::time::timeout(Duration::from_secs(5), install)
        .await
        .expect("install_agent returned at once, not after the idle timeout")
        .unwrap()
        .unwrap_err();
    assert!(pressed.elapsed() < Duration::from_secs(5));
    assert!(format!("{err:?}").contains("cancelled"), "{err:?}");
    assert!(!agents.join("slow").exists(), "what the install made is gone");
    assert!(!backend.cancel_install("slow"), "the install is over");
    backend.stop().await;
    let run = shell.events.lock().unwrap().clone();
    common::golden_stream("install-cancel", home.path(), &run);
}
