//! The stdio servers the gateway hosts for the bridge's pipe: when the connection ends, the
//! server goes with everything it started (its process group), not only its own process.

#![cfg(target_os = "linux")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use porthole_connections::gateway::{Gateway, NoTokens, PassOwner, StdioServer, Upstream};
use tokio::io::AsyncReadExt;

/// Whether `pid` still runs (a zombie no longer does: it waits for a parent that may never reap).
fn runs(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn a_hosted_server_and_what_it_started_end_with_the_connection() {
    let gateway = Gateway::start(Arc::new(NoTokens("no sign-in here".into())))
        .await
        .unwrap();
    let pass = gateway.open(
        vec![(
            "local".into(),
            Upstream::Stdio(StdioServer {
                command: "sh".into(),
                // A child of its own (as `npx` starts node), its pid said first; then an echo
                // of the bridge's bytes until their end.
                args: vec!["-c".into(), "sleep 300 & echo $!; cat".into()],
                env: vec![],
                cwd: None,
            }),
        )],
        PassOwner::default(),
    );
    let (w, mut r) = tokio::io::duplex(1 << 16);
    let url = pass.url("local").unwrap();
    let bridge =
        tokio::spawn(async move { porthole_connections::bridge::pipe_with(&url, &b"hello\n"[..], w).await });
    let mut got = String::new();
    tokio::time::timeout(Duration::from_secs(10), r.read_to_string(&mut got))
        .await
        .expect("the connection ended")
        .unwrap();
    let _ = bridge.await;
    let (pid, rest) = got.split_once('\n').unwrap();
    assert_eq!(rest, "hello\n");
    let sleeper: u32 = pid.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while runs(sleeper) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left = runs(sleeper);
    if left {
        // Not left behind by the test either.
        let _ = std::process::Command::new("kill").arg("-9").arg(pid).status();
    }
    assert!(!left, "the server's child {sleeper} outlived its connection");
}
