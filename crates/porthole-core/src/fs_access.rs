//! `fs/read_text_file` and `fs/write_text_file`, confined to a session's workspace roots.
//!
//! Paths are resolved through symlinks before the check, so a link inside the workspace
//! that points outside it is refused. Writes go to a temporary file that is renamed over
//! the target, so a crash never leaves a half-written file.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FsError {
    #[error("path must be absolute: {0}")]
    NotAbsolute(String),
    #[error("{0} is outside the session's workspace")]
    OutsideWorkspace(String),
    #[error("file not found: {0}")]
    NotFound(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

impl FsError {
    fn io(path: &Path, e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::NotFound {
            return FsError::NotFound(path.display().to_string());
        }
        FsError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}

/// Largest file we read into a response (the agent can page with `line` / `limit`).
pub const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;

fn canonical_roots(roots: &[PathBuf]) -> Vec<PathBuf> {
    roots.iter().filter_map(|r| r.canonicalize().ok()).collect()
}

fn check_absolute(path: &Path) -> Result<(), FsError> {
    if !path.is_absolute() {
        return Err(FsError::NotAbsolute(path.display().to_string()));
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        // Resolved below anyway; `..` in an agent path is refused outright to keep the rule simple to audit.
        return Err(FsError::OutsideWorkspace(path.display().to_string()));
    }
    Ok(())
}

fn inside(resolved: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| resolved.starts_with(root))
}

/// Resolve an existing file for reading.
pub fn resolve_for_read(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, FsError> {
    check_absolute(path)?;
    let resolved = path.canonicalize().map_err(|e| FsError::io(path, e))?;
    if !inside(&resolved, &canonical_roots(roots)) {
        return Err(FsError::OutsideWorkspace(path.display().to_string()));
    }
    Ok(resolved)
}

/// Resolve a file for writing: its directory must exist inside a root; an existing target
/// is resolved through symlinks and must stay inside too.
pub fn resolve_for_write(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, FsError> {
    check_absolute(path)?;
    let roots = canonical_roots(roots);
    let name = path
        .file_name()
        .ok_or_else(|| FsError::OutsideWorkspace(path.display().to_string()))?;
    let parent = path
        .parent()
        .ok_or_else(|| FsError::OutsideWorkspace(path.display().to_string()))?;
    let parent = parent.canonicalize().map_err(|e| FsError::io(parent, e))?;
    let target = parent.join(name);
    let resolved = match target.canonicalize() {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A dangling symlink must not let a write escape.
            if target.symlink_metadata().is_ok() {
                return Err(FsError::OutsideWorkspace(path.display().to_string()));
            }
            target
        }
        Err(e) => return Err(FsError::io(path, e)),
    };
    if !inside(&resolved, &roots) {
        return Err(FsError::OutsideWorkspace(path.display().to_string()));
    }
    Ok(resolved)
}

/// Where an absolute path really leads (symlinks and `..` resolved), with no workspace check:
/// what the user is shown before allowing access outside the workspace. For a write, the file
/// itself may not exist yet, but its directory must.
pub fn resolve_anywhere(path: &Path, for_write: bool) -> Result<PathBuf, FsError> {
    if !path.is_absolute() {
        return Err(FsError::NotAbsolute(path.display().to_string()));
    }
    if !for_write {
        return path.canonicalize().map_err(|e| FsError::io(path, e));
    }
    match path.canonicalize() {
        Ok(p) => Ok(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let name = path
                .file_name()
                .ok_or_else(|| FsError::NotAbsolute(path.display().to_string()))?;
            let parent = path.parent().unwrap_or(Path::new("/"));
            let parent = parent.canonicalize().map_err(|e| FsError::io(parent, e))?;
            Ok(parent.join(name))
        }
        Err(e) => Err(FsError::io(path, e)),
    }
}

/// Read a text file; `line` is 1-based, `limit` a number of lines.
pub fn read_text(
    path: &Path,
    roots: &[PathBuf],
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, FsError> {
    let resolved = resolve_for_read(path, roots)?;
    read_resolved(path, &resolved, line, limit)
}

/// Read an already resolved (and allowed) file. `shown` names it in errors.
pub fn read_resolved(
    shown: &Path,
    resolved: &Path,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, FsError> {
    let path = shown;
    let meta = std::fs::metadata(resolved).map_err(|e| FsError::io(path, e))?;
    if !meta.is_file() {
        return Err(FsError::Io {
            path: path.display().to_string(),
            message: "not a regular file".into(),
        });
    }
    if meta.len() > MAX_READ_BYTES && line.is_none() && limit.is_none() {
        return Err(FsError::Io {
            path: path.display().to_string(),
            message: format!(
                "file is {} bytes; read it in parts with `line` and `limit`",
                meta.len()
            ),
        });
    }
    let bytes = std::fs::read(resolved).map_err(|e| FsError::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|_| FsError::Io {
        path: path.display().to_string(),
        message: "file is not valid UTF-8 text".into(),
    })?;
    if line.is_none() && limit.is_none() {
        return Ok(text);
    }
    let start = line.unwrap_or(1).max(1) as usize - 1;
    let lines = text.split_inclusive('\n').skip(start);
    Ok(match limit {
        Some(n) => lines.take(n as usize).collect(),
        None => lines.collect(),
    })
}

/// Write a text file atomically (temporary file in the same directory, then rename).
pub fn write_text(path: &Path, roots: &[PathBuf], content: &str) -> Result<(), FsError> {
    let resolved = resolve_for_write(path, roots)?;
    write_resolved(path, &resolved, content)
}

/// Write an already resolved (and allowed) file atomically. `shown` names it in errors.
pub fn write_resolved(shown: &Path, resolved: &Path, content: &str) -> Result<(), FsError> {
    let path = shown;
    let dir = resolved.parent().unwrap_or(Path::new("/"));
    let mut tmp = tempfile::Builder::new()
        .prefix(".porthole-write-")
        .tempfile_in(dir)
        .map_err(|e| FsError::io(path, e))?;
    tmp.write_all(content.as_bytes())
        .map_err(|e| FsError::io(path, e))?;
    tmp.as_file().sync_all().map_err(|e| FsError::io(path, e))?;
    if let Ok(meta) = std::fs::metadata(resolved) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    tmp.persist(resolved).map_err(|e| FsError::io(path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Vec<PathBuf>) {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let roots = vec![ws.path().to_path_buf()];
        (ws, outside, roots)
    }

    #[test]
    fn reads_and_pages_within_workspace() {
        let (ws, _o, roots) = setup();
        let f = ws.path().join("a.txt");
        std::fs::write(&f, "one\ntwo\nthree\n").unwrap();
        assert_eq!(read_text(&f, &roots, None, None).unwrap(), "one\ntwo\nthree\n");
        assert_eq!(read_text(&f, &roots, Some(2), Some(1)).unwrap(), "two\n");
        assert_eq!(read_text(&f, &roots, Some(3), None).unwrap(), "three\n");
        assert!(matches!(
            read_text(&ws.path().join("missing"), &roots, None, None),
            Err(FsError::NotFound(_))
        ));
    }

    #[test]
    fn refuses_paths_outside() {
        let (ws, outside, roots) = setup();
        let secret = outside.path().join("secret.txt");
        std::fs::write(&secret, "s").unwrap();
        assert!(matches!(
            read_text(&secret, &roots, None, None),
            Err(FsError::OutsideWorkspace(_))
        ));
        let dotdot = ws
            .path()
            .join("..")
            .join(outside.path().file_name().unwrap())
            .join("secret.txt");
        assert!(matches!(
            read_text(&dotdot, &roots, None, None),
            Err(FsError::OutsideWorkspace(_))
        ));
        assert!(matches!(
            read_text(Path::new("relative.txt"), &roots, None, None),
            Err(FsError::NotAbsolute(_))
        ));
        assert!(matches!(
            write_text(&secret, &roots, "x"),
            Err(FsError::OutsideWorkspace(_))
        ));
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "s");
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_out_of_the_workspace() {
        let (ws, outside, roots) = setup();
        let secret = outside.path().join("secret.txt");
        std::fs::write(&secret, "s").unwrap();
        let link = ws.path().join("link.txt");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        assert!(matches!(
            read_text(&link, &roots, None, None),
            Err(FsError::OutsideWorkspace(_))
        ));
        assert!(matches!(
            write_text(&link, &roots, "x"),
            Err(FsError::OutsideWorkspace(_))
        ));
        let dir_link = ws.path().join("out");
        std::os::unix::fs::symlink(outside.path(), &dir_link).unwrap();
        assert!(matches!(
            write_text(&dir_link.join("new.txt"), &roots, "x"),
            Err(FsError::OutsideWorkspace(_))
        ));
        let dangling = ws.path().join("dangling");
        std::os::unix::fs::symlink(outside.path().join("nope"), &dangling).unwrap();
        assert!(write_text(&dangling, &roots, "x").is_err());
        assert!(!outside.path().join("nope").exists());
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "s");
    }

    #[test]
    fn writes_atomically_and_keeps_no_temp_files() {
        let (ws, _o, roots) = setup();
        let f = ws.path().join("new.txt");
        write_text(&f, &roots, "hello").unwrap();
        write_text(&f, &roots, "hello again").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "hello again");
        let names: Vec<_> = std::fs::read_dir(ws.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
