//! `porthole-proxy --connections` and `porthole-proxy mcp-bridge`: the slim proxy replaces
//! itself with `porthole-proxy-connections` (the same proxy with the connections stack linked
//! in, `mcp_hook.rs`). On Unix that is `exec`: the same process id, the same stdin, stdout and
//! stderr, the same arguments, so the editor still has one child whose exit status is the
//! agent's.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The helper's program name.
pub const HELPER: &str = "porthole-proxy-connections";

/// Where the helper is for the program at `exe`: beside it (a build tree, `target/debug/`),
/// else in `../lib/porthole/` (the packages: `/usr/bin/porthole-proxy` and
/// `/usr/lib/porthole/porthole-proxy-connections`). `Err` names the places looked at.
pub fn helper_path(exe: &Path) -> Result<PathBuf, String> {
    let dir = exe.parent().unwrap_or(Path::new("."));
    let places = [dir.join(HELPER), dir.join("../lib/porthole").join(HELPER)];
    places.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        format!(
            "{HELPER} is not installed (looked at {} and {})",
            places[0].display(),
            places[1].display()
        )
    })
}

/// Runs the helper with `args` in place of this process; returns only when it cannot (with the
/// exit code, having said why on stderr).
pub fn exec(args: &[String]) -> i32 {
    let helper = match std::env::current_exe()
        .map_err(|e| format!("cannot find this program: {e}"))
        .and_then(|exe| helper_path(&exe))
    {
        Ok(path) => path,
        Err(why) => {
            eprintln!("porthole-proxy: --connections and mcp-bridge need {HELPER}: {why}");
            return 1;
        }
    };
    let mut command = Command::new(&helper);
    command.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let err = command.exec();
        eprintln!("porthole-proxy: cannot run {}: {err}", helper.display());
        1
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(err) => {
            eprintln!("porthole-proxy: cannot run {}: {err}", helper.display());
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_is_found_beside_the_program_else_in_lib_porthole() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let lib = dir.path().join("lib/porthole");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        let exe = bin.join("porthole-proxy");
        let missing = helper_path(&exe).unwrap_err();
        assert!(missing.contains("is not installed"), "{missing}");
        std::fs::write(lib.join(HELPER), "").unwrap();
        assert_eq!(
            helper_path(&exe).unwrap(),
            bin.join("../lib/porthole").join(HELPER)
        );
        std::fs::write(bin.join(HELPER), "").unwrap();
        assert_eq!(helper_path(&exe).unwrap(), bin.join(HELPER));
    }
}
