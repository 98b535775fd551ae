//! Starting the app when a proxy needs it and none is running. The app is started detached
//! (its own process group, no stdio of ours: the editor's pipe must not stay open in it) and the
//! proxy then waits for its socket.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Names the app's program (tests, unusual installs).
pub const APP_ENV: &str = "PORTHOLE_APP";

#[derive(Debug, Clone)]
pub struct Launcher {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl Launcher {
    /// `$PORTHOLE_APP`, else `porthole` beside this program (or in `../../bin/` from it: the
    /// packages' `/usr/lib/porthole/porthole-proxy-connections`), else `porthole` on the PATH.
    /// The app starts as a companion: its window, no agent of its own.
    pub fn find() -> Option<Launcher> {
        let args = vec!["--companion".to_string()];
        if let Some(app) = std::env::var_os(APP_ENV).filter(|a| !a.is_empty()) {
            return Some(Launcher {
                program: PathBuf::from(app),
                args,
            });
        }
        let beside = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().and_then(installed_beside));
        let on_path = || {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|d| d.join("porthole"))
                    .find(|p| p.is_file())
            })
        };
        beside.or_else(on_path).map(|program| Launcher { program, args })
    }

    /// This program itself (the proxy is `porthole proxy`).
    pub fn this_program() -> Option<Launcher> {
        Some(Launcher {
            program: std::env::current_exe().ok()?,
            args: vec!["--companion".into()],
        })
    }

    /// Start the app, detached. `Err` says why it cannot be (no display, no program).
    pub fn start(&self) -> Result<(), String> {
        if !display_available() {
            return Err("there is no display to show Porthole's window on".into());
        }
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Its own process group: the app outlives this proxy and the editor's signals to it.
        porthole_process::spawn_detached(command)
            .map_err(|e| format!("could not start {}: {e}", self.program.display()))
    }
}

/// The app installed with the program in `dir`: beside it, or in `../../bin/` (a helper in
/// `/usr/lib/porthole/`, the app in `/usr/bin/`).
fn installed_beside(dir: &std::path::Path) -> Option<PathBuf> {
    [dir.join("porthole"), dir.join("../../bin/porthole")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Whether a window can be shown: an X11 or Wayland display is set.
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_is_found_beside_the_program_or_in_bin_from_lib_porthole() {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("usr/bin");
        let lib = root.path().join("usr/lib/porthole");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        assert_eq!(installed_beside(&lib), None);
        std::fs::write(bin.join("porthole"), "").unwrap();
        assert_eq!(installed_beside(&bin), Some(bin.join("porthole")));
        assert_eq!(installed_beside(&lib), Some(lib.join("../../bin/porthole")));
    }
}
