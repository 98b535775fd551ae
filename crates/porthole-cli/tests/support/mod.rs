//! Helpers shared by the CLI's integration tests.

use std::path::PathBuf;

/// Path of a workspace binary next to this test's target dir, built on demand: `cargo test`
/// builds only the binaries of the packages under test, and these belong to other packages.
pub fn workspace_bin(package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // <target>/debug/deps/<test> -> <target>/debug/<package>
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target dir")
        .to_path_buf();
    let bin = profile_dir.join(package);
    // Build once per test process (a no-op when up to date), so a stale binary never runs.
    static BUILT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !built.iter().any(|p| p == package) {
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
    bin
}
