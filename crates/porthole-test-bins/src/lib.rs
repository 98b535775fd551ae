//! Where an integration test finds a binary of another workspace package (the demo agent, the
//! scripted test agent, the MCP test server, the CLI, the proxy): `cargo test -p X` builds only
//! X's own binaries, so the others are built here on first use.
//!
//! `scripts/test` builds every binary of the workspace once, with the feature set of
//! `cargo test --workspace` (`cargo build --workspace --bins --tests`), and says so in
//! `PORTHOLE_TEST_BINS`. Then nothing is built here: a `cargo build -p X` resolves features for
//! X alone, so shared dependencies (tokio, hyper, the ACP SDK) would compile again under another
//! feature set, minutes of a cold run.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Set by `scripts/test` once every workspace binary is built (the file it names lists the test
/// binaries, for `scripts/test-bin`).
const BUILT_BY_SCRIPT: &str = "PORTHOLE_TEST_BINS";

/// Path of binary `bin` of workspace package `package`, built on first use by this process.
pub fn workspace_bin(package: &str, bin: &str) -> PathBuf {
    let profile_dir = profile_dir();
    let path = profile_dir.join(bin);
    if std::env::var_os(BUILT_BY_SCRIPT).is_some() {
        assert!(
            path.is_file(),
            "{} is missing although {BUILT_BY_SCRIPT} says the workspace was built",
            path.display()
        );
        return path;
    }
    build_once(package, &profile_dir);
    path
}

/// Path of the binary named as its package (`porthole-demo-agent`, `porthole-test-agent`, ...).
pub fn package_bin(package: &str) -> PathBuf {
    workspace_bin(package, package)
}

/// `<target>/debug`, from this test's own path `<target>/debug/deps/<test>`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("a test binary lives in <target>/<profile>/deps")
        .to_path_buf()
}

/// Builds `package` once per test process (a no-op when up to date), so a stale binary never runs.
fn build_once(package: &str, profile_dir: &Path) {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built.iter().any(|p| p == package) {
        return;
    }
    let target_dir = profile_dir.parent().expect("target dir");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--target-dir"])
        .arg(target_dir)
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build -p {package} failed");
    built.push(package.to_string());
}
