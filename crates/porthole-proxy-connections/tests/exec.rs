//! The slim `porthole-proxy` runs this crate's program in its own place for `--connections` and
//! `mcp-bridge`: the same process (the editor's child), the same stdin and stdout.

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use porthole_test_bins::workspace_bin;

/// The slim proxy with `args`, its stdin closed at once, in a home of its own with no app.
fn slim(home: &Path, args: &[&str]) -> (u32, Output) {
    let proxy = workspace_bin("porthole-companion", "porthole-proxy");
    let helper = Path::new(env!("CARGO_BIN_EXE_porthole-proxy-connections"));
    assert_eq!(
        proxy.parent(),
        helper.parent(),
        "the helper is built beside the proxy"
    );
    let child = Command::new(proxy)
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PORTHOLE_COMPANION_DIR", home.join("run"))
        .env("PORTHOLE_CONNECTIONS_FILE", home.join("connections.json"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    (pid, child.wait_with_output().unwrap())
}

/// The agent says who its parent is: its pid and its program.
const WHO_IS_MY_PARENT: &str = r#"echo "$PPID $(readlink /proc/$PPID/exe)"; exit 3"#;

fn parent(out: &Output) -> (u32, String) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().next().unwrap_or_else(|| {
        panic!(
            "the agent's line did not reach the editor; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let (pid, exe) = line.split_once(' ').unwrap();
    let name = Path::new(exe).file_name().unwrap().to_string_lossy().into_owned();
    (pid.parse().unwrap(), name)
}

#[test]
fn with_connections_the_helper_runs_in_the_proxys_own_process() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("connections.json"), r#"{"connections": {}}"#).unwrap();
    let (pid, out) = slim(
        home.path(),
        &["--connections", "--", "sh", "-c", WHO_IS_MY_PARENT],
    );
    assert_eq!(parent(&out), (pid, "porthole-proxy-connections".to_string()));
    assert_eq!(
        out.status.code(),
        Some(3),
        "the agent's exit status is the editor's"
    );

    let (pid, out) = slim(home.path(), &["--", "sh", "-c", WHO_IS_MY_PARENT]);
    assert_eq!(
        parent(&out),
        (pid, "porthole-proxy".to_string()),
        "without --connections the slim proxy relays itself"
    );
    assert_eq!(out.status.code(), Some(3));
}

/// `porthole-proxy mcp-bridge` is answered by the helper (its usage names it).
#[test]
fn the_mcp_bridge_is_the_helpers() {
    let home = tempfile::tempdir().unwrap();
    let (_, out) = slim(home.path(), &["mcp-bridge"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("usage: porthole-proxy-connections mcp-bridge [--pipe] URL"),
        "{stderr}"
    );
}
