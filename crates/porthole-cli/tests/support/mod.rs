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
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|p| p.into_inner());
    if !bin.exists() {
        let target_dir = profile_dir.parent().expect("target dir");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "-p", package, "--target-dir"])
            .arg(target_dir)
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p {package} failed");
    }
    bin
}
