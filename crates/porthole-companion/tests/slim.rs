//! `porthole-proxy`, which an editor starts for every agent, stays a line relay: its crate links
//! neither the engine (porthole-core and the ACP SDK) nor the connections stack (HTTP, TLS,
//! OAuth, the keyring over D-Bus). `--connections` brings those by running
//! `porthole-proxy-connections` (`src/helper.rs`); a dependency added here by mistake would
//! bring them back into every editor's proxy, and this test names it.

use std::process::Command;

/// Crates the slim proxy must not link, and why each is heavy.
const NOT_LINKED: &[(&str, &str)] = &[
    ("porthole-core", "the engine"),
    ("porthole-connections", "the connections stack"),
    ("agent-client-protocol", "the ACP SDK"),
    ("reqwest", "an HTTP client"),
    ("hyper", "HTTP"),
    ("rustls", "TLS"),
    ("secret-service", "the keyring over D-Bus"),
    ("zbus", "D-Bus"),
];

#[test]
fn the_proxy_links_no_acp_sdk_and_no_http_stack() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "porthole-companion",
            "-e",
            "normal",
        ])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"porthole-framing"), "{tree}");
    let linked: Vec<String> = NOT_LINKED
        .iter()
        .filter(|(name, _)| names.contains(name))
        .map(|(name, why)| format!("{name} ({why})"))
        .collect();
    assert!(linked.is_empty(), "porthole-proxy links {}", linked.join(", "));
}
