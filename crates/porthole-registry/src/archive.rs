//! Extracting a downloaded agent safely: every entry must land inside the destination.
//! Refused: `..` components, absolute paths, symlinks or hard links that lead outside (also
//! through other symlinks), devices and fifos, and archives larger than the limits once
//! unpacked. Symlinks are created last, so nothing is ever written through one.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use super::RegistryError;

/// The archive formats the registry allows, told apart by the URL's ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    TarGz,
    TarBz2,
    Zip,
    /// The download is the program itself.
    Raw,
}

impl ArchiveKind {
    pub fn from_url(url: &str) -> Self {
        // The path's ending, without a query or fragment.
        let path = url.split(['?', '#']).next().unwrap_or(url).to_ascii_lowercase();
        if path.ends_with(".tar.gz") || path.ends_with(".tgz") {
            Self::TarGz
        } else if path.ends_with(".tar.bz2") || path.ends_with(".tbz2") {
            Self::TarBz2
        } else if path.ends_with(".zip") {
            Self::Zip
        } else {
            Self::Raw
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::TarGz => ".tar.gz",
            Self::TarBz2 => ".tar.bz2",
            Self::Zip => ".zip",
            Self::Raw => "raw program",
        }
    }

    /// The first bytes every file of this kind starts with.
    fn magic(self) -> &'static [u8] {
        match self {
            Self::TarGz => &[0x1f, 0x8b],
            Self::TarBz2 => b"BZh",
            Self::Zip => b"PK",
            Self::Raw => b"",
        }
    }
}

/// Bounds on what an archive may unpack to (a small download can expand enormously).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExtractLimits {
    pub max_bytes: u64,
    pub max_entries: usize,
}

/// Unpack `archive` into the empty directory `dest`. A raw program is copied as `raw_name`.
pub(crate) fn extract(
    archive: &Path,
    kind: ArchiveKind,
    dest: &Path,
    raw_name: &str,
    limits: ExtractLimits,
) -> Result<(), RegistryError> {
    let mut file = File::open(archive).map_err(RegistryError::io("cannot open the download"))?;
    let mut head = [0u8; 4];
    let got = read_up_to(&mut file, &mut head).map_err(RegistryError::io("cannot read the download"))?;
    if !head[..got].starts_with(kind.magic()) {
        return Err(RegistryError::CorruptArchive(format!(
            "the download is not a {} archive",
            kind.name()
        )));
    }
    drop(file);
    let file = File::open(archive).map_err(RegistryError::io("cannot open the download"))?;
    let mut out = Extraction {
        dest,
        limits,
        bytes: 0,
        entries: 0,
        symlinks: Vec::new(),
        symlink_paths: HashSet::new(),
        links: true,
    };
    match kind {
        ArchiveKind::TarGz => out.tar(flate2::read::MultiGzDecoder::new(file))?,
        ArchiveKind::TarBz2 => out.tar(bzip2::read::BzDecoder::new(file))?,
        ArchiveKind::Zip => out.zip(file)?,
        ArchiveKind::Raw => {
            let rel = safe_relative(raw_name)?;
            out.write_file(&rel, file, u64::MAX, 0o755)?;
        }
    }
    out.finish_symlinks()
}

/// Unpack the zip `archive` into the empty directory `dest` with the rules of [`extract`], and
/// stricter: no symlink at all (an MCP bundle has no reason to hold one), at most `max_bytes`
/// written and `max_entries` entries, whatever the archive declares.
pub fn unzip_without_links(
    archive: &Path,
    dest: &Path,
    max_bytes: u64,
    max_entries: usize,
) -> Result<(), RegistryError> {
    let mut file = File::open(archive).map_err(RegistryError::io("cannot open the archive"))?;
    let mut head = [0u8; 4];
    let got = read_up_to(&mut file, &mut head).map_err(RegistryError::io("cannot read the archive"))?;
    if !head[..got].starts_with(ArchiveKind::Zip.magic()) {
        return Err(RegistryError::CorruptArchive("it is not a zip archive".into()));
    }
    drop(file);
    let file = File::open(archive).map_err(RegistryError::io("cannot open the archive"))?;
    let mut out = Extraction {
        dest,
        limits: ExtractLimits {
            max_bytes,
            max_entries,
        },
        bytes: 0,
        entries: 0,
        symlinks: Vec::new(),
        symlink_paths: HashSet::new(),
        links: false,
    };
    out.zip(file)?;
    out.finish_symlinks()
}

/// What the zip `archive` holds, checked without unpacking it by the rules of
/// [`unzip_without_links`]: every name a relative path inside (no `..`, not absolute), no
/// symlink, at most `max_entries` entries declaring at most `max_bytes` in all. Returns each
/// file's path and declared size (directories left out). The declared sizes may lie;
/// [`unzip_without_links`] holds the cap on what is really written.
pub fn check_zip(
    archive: &Path,
    max_bytes: u64,
    max_entries: usize,
) -> Result<Vec<(PathBuf, u64)>, RegistryError> {
    let file = File::open(archive).map_err(RegistryError::io("cannot open the archive"))?;
    let mut zip = zip::ZipArchive::new(file).map_err(corrupt)?;
    if zip.len() > max_entries {
        return Err(RegistryError::UnsafeArchive(format!(
            "more than {max_entries} entries"
        )));
    }
    let mut total = 0u64;
    let mut files = Vec::new();
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(corrupt)?;
        let name = entry.name().map_err(corrupt)?.into_owned();
        let rel = safe_relative(&name)?;
        if entry.is_symlink() {
            return Err(RegistryError::UnsafeArchive(format!(
                "entry `{name}` is a symlink, which this archive may not hold"
            )));
        }
        total = total.saturating_add(entry.size());
        if total > max_bytes {
            return Err(RegistryError::UnsafeArchive(format!(
                "it unpacks to more than {max_bytes} bytes"
            )));
        }
        if !entry.is_dir() && !rel.as_os_str().is_empty() {
            files.push((rel, entry.size()));
        }
    }
    Ok(files)
}

/// The file `name` of the zip `archive` (a path as [`check_zip`] lists it), at most `max_bytes`
/// of it; `None` when the archive has no such file.
pub fn read_zip_file(archive: &Path, name: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, RegistryError> {
    let file = File::open(archive).map_err(RegistryError::io("cannot open the archive"))?;
    let mut zip = zip::ZipArchive::new(file).map_err(corrupt)?;
    for index in 0..zip.len() {
        let entry = zip.by_index(index).map_err(corrupt)?;
        let entry_name = entry.name().map_err(corrupt)?.into_owned();
        if entry.is_dir() || safe_relative(&entry_name)? != name {
            continue;
        }
        let mut bytes = Vec::new();
        entry
            .take(max_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(corrupt)?;
        if bytes.len() as u64 > max_bytes {
            return Err(RegistryError::UnsafeArchive(format!(
                "`{}` is larger than {max_bytes} bytes",
                name.display()
            )));
        }
        return Ok(Some(bytes));
    }
    Ok(None)
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// An archive entry's name as a path inside the destination; `..` and absolute are refused.
fn safe_relative(name: &str) -> Result<PathBuf, RegistryError> {
    let mut out = PathBuf::new();
    for component in Path::new(name).components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(RegistryError::UnsafeArchive(format!(
                    "entry `{name}` climbs out with `..`"
                )));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(RegistryError::UnsafeArchive(format!(
                    "entry `{name}` is an absolute path"
                )));
            }
        }
    }
    Ok(out)
}

fn corrupt(e: impl std::fmt::Display) -> RegistryError {
    RegistryError::CorruptArchive(e.to_string())
}

struct Extraction<'a> {
    dest: &'a Path,
    limits: ExtractLimits,
    bytes: u64,
    entries: usize,
    /// (where, target) of each symlink, created once every file is written.
    symlinks: Vec<(PathBuf, PathBuf)>,
    symlink_paths: HashSet<PathBuf>,
    /// Symlinks (kept inside) are allowed; otherwise any symlink is refused.
    links: bool,
}

impl Extraction<'_> {
    fn count_entry(&mut self) -> Result<(), RegistryError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(RegistryError::UnsafeArchive(format!(
                "more than {} entries",
                self.limits.max_entries
            )));
        }
        Ok(())
    }

    /// Refuse paths below one of the archive's own symlinks: writing there would follow it.
    fn not_through_symlink(&self, rel: &Path) -> Result<(), RegistryError> {
        if let Some(link) = rel.ancestors().skip(1).find(|a| self.symlink_paths.contains(*a)) {
            return Err(RegistryError::UnsafeArchive(format!(
                "entry `{}` lies below the symlink `{}`",
                rel.display(),
                link.display()
            )));
        }
        Ok(())
    }

    fn tar(&mut self, reader: impl Read) -> Result<(), RegistryError> {
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries().map_err(corrupt)? {
            let mut entry = entry.map_err(corrupt)?;
            let kind = entry.header().entry_type();
            if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
                continue;
            }
            self.count_entry()?;
            let name = entry.path().map_err(corrupt)?.to_string_lossy().into_owned();
            let rel = safe_relative(&name)?;
            if rel.as_os_str().is_empty() {
                continue;
            }
            self.not_through_symlink(&rel)?;
            let link = || -> Result<PathBuf, RegistryError> {
                Ok(entry
                    .link_name()
                    .map_err(corrupt)?
                    .ok_or_else(|| corrupt(format!("link `{name}` has no target")))?
                    .into_owned())
            };
            if kind.is_dir() {
                self.make_dir(&rel)?;
            } else if kind.is_symlink() {
                let target = link()?;
                self.add_symlink(rel, target)?;
            } else if kind.is_hard_link() {
                let target = link()?;
                self.hard_link(&rel, &target)?;
            } else if kind.is_file() {
                let mode = entry.header().mode().unwrap_or(0o644);
                let size = entry.size();
                self.write_file(&rel, &mut entry, size, mode)?;
            } else {
                return Err(RegistryError::UnsafeArchive(format!(
                    "entry `{name}` is a special file ({kind:?})"
                )));
            }
        }
        Ok(())
    }

    fn zip(&mut self, file: File) -> Result<(), RegistryError> {
        let mut zip = zip::ZipArchive::new(file).map_err(corrupt)?;
        for index in 0..zip.len() {
            self.count_entry()?;
            let mut entry = zip.by_index(index).map_err(corrupt)?;
            let name = entry.name().map_err(corrupt)?.into_owned();
            let rel = safe_relative(&name)?;
            if rel.as_os_str().is_empty() {
                continue;
            }
            self.not_through_symlink(&rel)?;
            if entry.is_symlink() && !self.links {
                return Err(RegistryError::UnsafeArchive(format!(
                    "entry `{name}` is a symlink, which this archive may not hold"
                )));
            }
            if entry.is_symlink() {
                // A zip symlink's content is its target.
                let mut target = String::new();
                (&mut entry)
                    .take(4096)
                    .read_to_string(&mut target)
                    .map_err(corrupt)?;
                self.add_symlink(rel, PathBuf::from(target))?;
            } else if entry.is_dir() {
                self.make_dir(&rel)?;
            } else {
                let mode = entry.unix_mode().unwrap_or(0o644);
                let size = entry.size();
                self.write_file(&rel, &mut entry, size, mode)?;
            }
        }
        Ok(())
    }

    fn make_dir(&self, rel: &Path) -> Result<(), RegistryError> {
        let path = self.dest.join(rel);
        std::fs::create_dir_all(&path).map_err(RegistryError::io(format!("cannot create {}", path.display())))
    }

    /// Copy at most `size` bytes (the entry's declared size) within the total limit.
    fn write_file(
        &mut self,
        rel: &Path,
        mut reader: impl Read,
        size: u64,
        mode: u32,
    ) -> Result<(), RegistryError> {
        let room = self.limits.max_bytes.saturating_sub(self.bytes);
        if size != u64::MAX && size > room {
            return Err(self.too_big());
        }
        let path = self.dest.join(rel);
        if let Some(parent) = path.parent() {
            self.make_dir(parent.strip_prefix(self.dest).unwrap_or(parent))?;
        }
        let mut out =
            File::create(&path).map_err(RegistryError::io(format!("cannot create {}", path.display())))?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        loop {
            let n = reader.read(&mut buf).map_err(corrupt)?;
            if n == 0 {
                break;
            }
            written += n as u64;
            if written > room {
                return Err(self.too_big());
            }
            out.write_all(&buf[..n])
                .map_err(RegistryError::io(format!("cannot write {}", path.display())))?;
        }
        self.bytes += written;
        set_mode(&path, mode)
    }

    fn too_big(&self) -> RegistryError {
        RegistryError::UnsafeArchive(format!("it unpacks to more than {} bytes", self.limits.max_bytes))
    }

    /// Check the target stays inside (read from where the link is), then keep it for later.
    fn add_symlink(&mut self, rel: PathBuf, target: PathBuf) -> Result<(), RegistryError> {
        let escape = || {
            RegistryError::UnsafeArchive(format!(
                "symlink `{}` points outside ({})",
                rel.display(),
                target.display()
            ))
        };
        let mut depth: Vec<&std::ffi::OsStr> = rel
            .parent()
            .into_iter()
            .flat_map(|p| p.components())
            .filter_map(|c| match c {
                Component::Normal(p) => Some(p),
                _ => None,
            })
            .collect();
        for component in target.components() {
            match component {
                Component::Normal(part) => depth.push(part),
                Component::CurDir => {}
                Component::ParentDir => {
                    depth.pop().ok_or_else(escape)?;
                }
                Component::RootDir | Component::Prefix(_) => return Err(escape()),
            }
        }
        self.symlink_paths.insert(rel.clone());
        self.symlinks.push((rel, target));
        Ok(())
    }

    /// A hard link to a file the archive already wrote (copied where links are not possible).
    fn hard_link(&mut self, rel: &Path, target: &Path) -> Result<(), RegistryError> {
        let target_rel = safe_relative(&target.to_string_lossy()).map_err(|_| {
            RegistryError::UnsafeArchive(format!(
                "hard link `{}` points outside ({})",
                rel.display(),
                target.display()
            ))
        })?;
        self.not_through_symlink(&target_rel)?;
        let source = self.dest.join(&target_rel);
        let is_file = std::fs::symlink_metadata(&source).is_ok_and(|m| m.is_file());
        if !is_file || self.symlink_paths.contains(&target_rel) {
            return Err(RegistryError::UnsafeArchive(format!(
                "hard link `{}` points to `{}`, which is not a file of the archive",
                rel.display(),
                target.display()
            )));
        }
        let path = self.dest.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(RegistryError::io(format!("cannot create {}", parent.display())))?;
        }
        std::fs::hard_link(&source, &path)
            .or_else(|_| std::fs::copy(&source, &path).map(|_| ()))
            .map_err(RegistryError::io(format!("cannot create {}", path.display())))
    }

    /// Create the symlinks, then make sure each resolves inside (a chain of links can lead out
    /// where each link alone looks harmless).
    fn finish_symlinks(self) -> Result<(), RegistryError> {
        for (rel, target) in &self.symlinks {
            let path = self.dest.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(RegistryError::io(format!("cannot create {}", parent.display())))?;
            }
            make_symlink(target, &path)?;
        }
        let root = self
            .dest
            .canonicalize()
            .map_err(RegistryError::io("cannot resolve the install folder"))?;
        for (rel, target) in &self.symlinks {
            match self.dest.join(rel).canonicalize() {
                Ok(resolved) if resolved.starts_with(&root) => {}
                Ok(_) => {
                    return Err(RegistryError::UnsafeArchive(format!(
                        "symlink `{}` leads outside ({})",
                        rel.display(),
                        target.display()
                    )));
                }
                Err(_) => {
                    return Err(RegistryError::UnsafeArchive(format!(
                        "symlink `{}` points to nothing in the archive ({})",
                        rel.display(),
                        target.display()
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), RegistryError> {
    use std::os::unix::fs::PermissionsExt;
    // Keep the executable bits; never setuid or group/world-writable.
    let mode = (mode & 0o755) | 0o600;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(RegistryError::io(format!(
        "cannot set the mode of {}",
        path.display()
    )))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<(), RegistryError> {
    Ok(())
}

#[cfg(unix)]
fn make_symlink(target: &Path, path: &Path) -> Result<(), RegistryError> {
    std::os::unix::fs::symlink(target, path).map_err(RegistryError::io(format!(
        "cannot create the symlink {}",
        path.display()
    )))
}

#[cfg(not(unix))]
fn make_symlink(_: &Path, path: &Path) -> Result<(), RegistryError> {
    Err(RegistryError::Unsupported(format!(
        "the archive holds a symlink ({}), which this platform cannot create here",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_url_ending() {
        assert_eq!(ArchiveKind::from_url("https://x/a.tar.gz"), ArchiveKind::TarGz);
        assert_eq!(ArchiveKind::from_url("https://x/a.TGZ?sig=1"), ArchiveKind::TarGz);
        assert_eq!(ArchiveKind::from_url("https://x/a.tar.bz2"), ArchiveKind::TarBz2);
        assert_eq!(ArchiveKind::from_url("https://x/a.tbz2#f"), ArchiveKind::TarBz2);
        assert_eq!(ArchiveKind::from_url("https://x/a.zip"), ArchiveKind::Zip);
        assert_eq!(ArchiveKind::from_url("https://x/agent-linux"), ArchiveKind::Raw);
    }

    #[test]
    fn relative_paths_only() {
        assert_eq!(safe_relative("./a/b").unwrap(), PathBuf::from("a/b"));
        assert!(safe_relative("a/../../b").is_err());
        assert!(safe_relative("a/../b").is_err());
        assert!(safe_relative("/etc/passwd").is_err());
        assert_eq!(safe_relative("./").unwrap(), PathBuf::new());
    }

    #[test]
    fn symlink_targets_are_read_from_where_the_link_is() {
        let dest = Path::new("/nowhere");
        let mut x = Extraction {
            dest,
            limits: ExtractLimits {
                max_bytes: 1,
                max_entries: 1,
            },
            bytes: 0,
            entries: 0,
            symlinks: Vec::new(),
            symlink_paths: HashSet::new(),
            links: true,
        };
        assert!(x.add_symlink("bin/agent".into(), "../lib/agent".into()).is_ok());
        assert!(x.add_symlink("agent".into(), "../lib/agent".into()).is_err());
        assert!(x.add_symlink("a/b".into(), "/etc".into()).is_err());
        assert!(x.not_through_symlink(Path::new("bin/agent/x")).is_err());
        assert!(x.not_through_symlink(Path::new("bin/other")).is_ok());
    }
}
