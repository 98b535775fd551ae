//! `fs/read_text_file` and `fs/write_text_file`, confined to a session's workspace roots.
//!
//! Paths are resolved through symlinks before the check, so a link inside the workspace
//! that points outside it is refused, and a link that stays inside is followed. The file is
//! then opened *beneath* its root by the kernel (cap-std: `openat2` with `RESOLVE_BENEATH` on
//! Linux), relative to a handle on the root folder, so a folder on the path swapped for a
//! symlink to outside between the check and the open cannot lead the open out: it fails. Writes
//! go to an unnamed temporary file in the target's folder (through the same handle) that is
//! renamed over the target, so a crash never leaves a half-written file and a swapped folder
//! never receives a stray temporary file.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

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
///
/// A file that does not exist is [`FsError::NotFound`] only when it would be inside the
/// workspace (its nearest existing folder, resolved, is inside a root); otherwise it is
/// [`FsError::OutsideWorkspace`] like any other path outside, so the agent learns nothing
/// about what exists outside the workspace without the user's consent.
pub fn resolve_for_read(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, FsError> {
    check_absolute(path)?;
    let roots = canonical_roots(roots);
    let resolved = match path.canonicalize() {
        Ok(resolved) => resolved,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let would_be = resolve_missing(path).map_err(|e| FsError::io(path, e))?;
            return Err(if inside(&would_be, &roots) {
                FsError::NotFound(path.display().to_string())
            } else {
                FsError::OutsideWorkspace(path.display().to_string())
            });
        }
        Err(e) => return Err(FsError::io(path, e)),
    };
    if !inside(&resolved, &roots) {
        return Err(FsError::OutsideWorkspace(path.display().to_string()));
    }
    Ok(resolved)
}

/// Where a path that does not exist would be: its nearest existing ancestor resolved through
/// symlinks, with the missing components after it. A dangling symlink on the way leads
/// nowhere that can be checked, so it is refused (`NotFound` would call it inside).
fn resolve_missing(path: &Path) -> std::io::Result<PathBuf> {
    let mut missing = Vec::new();
    let mut current = path;
    loop {
        if current.symlink_metadata().is_ok() {
            let base = current.canonicalize().map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a symbolic link on the way leads nowhere",
                )
            })?;
            return Ok(missing.iter().rev().fold(base, |p, name| p.join(name)));
        }
        match (current.file_name(), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name.to_os_string());
                current = parent;
            }
            _ => return Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        }
    }
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
        return match path.canonicalize() {
            Ok(p) => Ok(p),
            // Shown to the user before anything is read: where it would be.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                resolve_missing(path).map_err(|e| FsError::io(path, e))
            }
            Err(e) => Err(FsError::io(path, e)),
        };
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
    let (root, relative) = beneath(&resolved, roots, path)?;
    let root = open_root(&root, path)?;
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        // A FIFO swapped in would block the open until someone writes to it.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = root
        .open_with(&relative, &options)
        .map_err(|e| confined_error(path, e))?;
    read_open(path, file.into_std(), line, limit)
}

/// The root `resolved` lies in (canonical) and the path relative to it.
fn beneath(resolved: &Path, roots: &[PathBuf], shown: &Path) -> Result<(PathBuf, PathBuf), FsError> {
    canonical_roots(roots)
        .into_iter()
        .find_map(|root| {
            let relative = resolved.strip_prefix(&root).ok()?.to_path_buf();
            Some((root, relative))
        })
        .ok_or_else(|| FsError::OutsideWorkspace(shown.display().to_string()))
}

fn open_root(root: &Path, shown: &Path) -> Result<Dir, FsError> {
    Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|e| FsError::io(shown, e))
}

/// An error of an open beneath a root. cap-std reports a path that would lead out of the root
/// (a symlink swapped in since the check) as `PermissionDenied` with no OS error code; the
/// kernel's own `EACCES` has one.
fn confined_error(shown: &Path, e: std::io::Error) -> FsError {
    if e.kind() == std::io::ErrorKind::PermissionDenied && e.raw_os_error().is_none() {
        return FsError::OutsideWorkspace(shown.display().to_string());
    }
    FsError::io(shown, e)
}

/// Read an already resolved (and allowed) file: one outside the workspace that the user
/// allowed after seeing this very path. `shown` names it in errors.
pub fn read_resolved(
    shown: &Path,
    resolved: &Path,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, FsError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO would block until someone writes to it.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(resolved).map_err(|e| FsError::io(shown, e))?;
    read_open(shown, file, line, limit)
}

/// Read an opened file, which must be a regular file.
///
/// The file is read once, as a stream: lines before `line` are skipped without being kept, and
/// at most [`MAX_READ_BYTES`] are ever held, whatever the file's size (or growth while it is
/// read) and whatever `line` / `limit` ask for.
fn read_open(
    path: &Path,
    file: std::fs::File,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, FsError> {
    let meta = file.metadata().map_err(|e| FsError::io(path, e))?;
    if !meta.is_file() {
        return Err(FsError::Io {
            path: path.display().to_string(),
            message: "not a regular file".into(),
        });
    }
    let whole = line.is_none() && limit.is_none();
    let start = line.unwrap_or(1).max(1) as usize - 1;
    let limit = limit.map(|n| n as usize);
    let bytes = read_lines(std::io::BufReader::new(file), start, limit, MAX_READ_BYTES)
        .map_err(|e| FsError::io(path, e))?
        .ok_or_else(|| FsError::Io {
            path: path.display().to_string(),
            message: if whole {
                format!(
                    "file is {} bytes, more than the limit of {MAX_READ_BYTES}; read it in parts with `line` and `limit`",
                    meta.len()
                )
            } else {
                format!("the requested lines are more than {MAX_READ_BYTES} bytes; ask for fewer with `limit`")
            },
        })?;
    String::from_utf8(bytes).map_err(|_| FsError::Io {
        path: path.display().to_string(),
        message: "file is not valid UTF-8 text".into(),
    })
}

/// Lines `start..start + limit` (0-based; all the rest when `limit` is `None`) of `reader`,
/// with their newlines. `None` when they are more than `max_bytes`: nothing beyond that is
/// read into memory, and skipped lines are never stored.
fn read_lines<R: std::io::BufRead>(
    mut reader: R,
    start: usize,
    limit: Option<usize>,
    max_bytes: u64,
) -> std::io::Result<Option<Vec<u8>>> {
    let end = limit.map(|n| start.saturating_add(n));
    let mut line = 0usize;
    let mut out = Vec::new();
    while end.is_none_or(|end| line < end) {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let (len, ends_line) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line >= start {
            if (out.len() + len) as u64 > max_bytes {
                return Ok(None);
            }
            out.extend_from_slice(&buf[..len]);
        }
        reader.consume(len);
        line += usize::from(ends_line);
    }
    Ok(Some(out))
}

/// Write a text file atomically (temporary file in the same directory, then rename), in a
/// folder opened beneath its workspace root.
pub fn write_text(path: &Path, roots: &[PathBuf], content: &str) -> Result<(), FsError> {
    let resolved = resolve_for_write(path, roots)?;
    let (root, relative) = beneath(&resolved, roots, path)?;
    let name = relative
        .file_name()
        .ok_or_else(|| FsError::OutsideWorkspace(path.display().to_string()))?;
    let root = open_root(&root, path)?;
    let folder = match relative.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            root.open_dir(parent).map_err(|e| confined_error(path, e))?
        }
        _ => root,
    };
    write_in(path, &folder, name.as_ref(), content)
}

/// Write an already resolved (and allowed) file atomically: one outside the workspace that
/// the user allowed after seeing this very path. `shown` names it in errors.
pub fn write_resolved(shown: &Path, resolved: &Path, content: &str) -> Result<(), FsError> {
    let (Some(parent), Some(name)) = (resolved.parent(), resolved.file_name()) else {
        return Err(FsError::NotAbsolute(shown.display().to_string()));
    };
    let folder =
        Dir::open_ambient_dir(parent, cap_std::ambient_authority()).map_err(|e| FsError::io(shown, e))?;
    write_in(shown, &folder, name.as_ref(), content)
}

/// Replace `name` in `folder` with `content`: an unnamed temporary file in the folder, synced,
/// given the old file's permissions, then renamed over it. Nothing is left behind on failure.
fn write_in(shown: &Path, folder: &Dir, name: &Path, content: &str) -> Result<(), FsError> {
    let io = |e| FsError::io(shown, e);
    let mut tmp = cap_tempfile::TempFile::new(folder).map_err(io)?;
    tmp.write_all(content.as_bytes()).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    if let Ok(meta) = folder.metadata(name) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.replace(name).map_err(|e| confined_error(shown, e))
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

    #[test]
    fn a_missing_file_is_not_found_inside_and_outside_the_workspace_otherwise() {
        let (ws, outside, roots) = setup();
        for missing in [ws.path().join("new.txt"), ws.path().join("new/dir/new.txt")] {
            assert!(
                matches!(read_text(&missing, &roots, None, None), Err(FsError::NotFound(_))),
                "{}",
                missing.display()
            );
        }
        let real_outside = outside.path().canonicalize().unwrap();
        for (missing, would_be) in [
            (outside.path().join("new.txt"), real_outside.join("new.txt")),
            (
                outside.path().join("no/such/dir.txt"),
                real_outside.join("no/such/dir.txt"),
            ),
            (
                PathBuf::from("/porthole-no-such-dir/x.txt"),
                PathBuf::from("/porthole-no-such-dir/x.txt"),
            ),
        ] {
            assert!(
                matches!(
                    read_text(&missing, &roots, None, None),
                    Err(FsError::OutsideWorkspace(_))
                ),
                "{}",
                missing.display()
            );
            // What the user is shown: where it would be.
            assert_eq!(resolve_anywhere(&missing, false).unwrap(), would_be);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_file_behind_a_link_out_of_the_workspace_is_outside() {
        let (ws, outside, roots) = setup();
        let dir_link = ws.path().join("out");
        std::os::unix::fs::symlink(outside.path(), &dir_link).unwrap();
        assert!(matches!(
            read_text(&dir_link.join("new.txt"), &roots, None, None),
            Err(FsError::OutsideWorkspace(_))
        ));
        // A dangling link is not taken as a missing file inside.
        let dangling = ws.path().join("dangling");
        std::os::unix::fs::symlink(outside.path().join("nope"), &dangling).unwrap();
        assert!(!matches!(
            read_text(&dangling.join("x.txt"), &roots, None, None),
            Err(FsError::NotFound(_))
        ));
        assert!(!matches!(
            read_text(&dangling, &roots, None, None),
            Err(FsError::NotFound(_))
        ));
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

    #[test]
    fn reads_hold_at_most_the_limit_whatever_the_input() {
        // An endless input (a file that keeps growing): the read stops at the limit.
        let endless = std::io::BufReader::new(std::io::repeat(b'a'));
        assert_eq!(read_lines(endless, 0, Some(1), 1 << 20).unwrap(), None);
        // Skipped lines are not kept: a million of them, then the two lines asked for.
        let many = std::io::Cursor::new(format!("{}wanted\nalso\nnot\n", "skip\n".repeat(1_000_000)));
        assert_eq!(
            read_lines(many, 1_000_000, Some(2), 64).unwrap().as_deref(),
            Some(&b"wanted\nalso\n"[..])
        );
        let text = std::io::Cursor::new("one\ntwo");
        assert_eq!(
            read_lines(text, 1, None, 64).unwrap().as_deref(),
            Some(&b"two"[..])
        );
    }

    #[test]
    fn a_huge_file_is_refused_even_for_a_range_of_lines() {
        let (ws, _o, roots) = setup();
        let f = ws.path().join("huge.log");
        // Sparse: 4 × the limit of NUL bytes and no newline, so "line 1" is the whole file.
        std::fs::File::create(&f)
            .unwrap()
            .set_len(4 * MAX_READ_BYTES)
            .unwrap();
        for (line, limit) in [(None, None), (Some(1), Some(1)), (Some(1), None)] {
            match read_text(&f, &roots, line, limit) {
                Err(FsError::Io { message, .. }) => assert!(message.contains("more than"), "{message}"),
                other => panic!("{line:?}/{limit:?}: {other:?}"),
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_not_read() {
        let (ws, _o, roots) = setup();
        let fifo = ws.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        // Opening a FIFO would block forever; it is refused before that.
        assert!(matches!(
            read_text(&fifo, &roots, None, None),
            Err(FsError::Io { message, .. }) if message == "not a regular file"
        ));
    }

    #[cfg(unix)]
    #[test]
    fn writes_replace_existing_files_and_keep_their_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (ws, _o, roots) = setup();
        let f = ws.path().join("script.sh");
        std::fs::write(&f, "old").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o750)).unwrap();
        write_text(&f, &roots, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o750);
        // A link that stays inside the workspace is written through; the link itself remains.
        let link = ws.path().join("link.sh");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        write_text(&link, &roots, "via link").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "via link");
    }
}
