//! MCP bundles (`registryType: "mcpb"`): the entry names the `.mcpb` file by its URL
//! (`identifier`) and its SHA-256 (`fileSha256`). Adding one:
//!
//! 1. **Download** ([`Bundles::fetch`], when the add form is opened: the form is the
//!    manifest's): over https only (plain http to this computer for tests), with the capped GET
//!    of the ACP registry's client (size and time limits), into Porthole's download cache as a
//!    temporary file. Its SHA-256 is compared before anything of it is read: a different file
//!    is refused and deleted. A file already downloaded is hashed again before it is used.
//! 2. **Check** without unpacking: every entry a relative path inside (no `..`, not absolute),
//!    no symlink, at most [`BundleLimits::max_entries`] entries declaring at most
//!    [`BundleLimits::max_unpacked_bytes`]; then `manifest.json` (at most 1 MiB) by the rules
//!    of `manifest.rs`. A bundle refused here is deleted from the cache.
//! 3. **Unpack** ([`Install`], when the connection is saved): the file hashed once more, then
//!    unpacked with the same rules and the caps held on what is really written, into a
//!    staging folder renamed to `<data dir>/porthole/mcp-bundles/NAMESPACE/NAME/VERSION-SHA16`
//!    (one folder per bundle file: the hash pins it; `.porthole-bundle.json` in it says which
//!    file it is). A failure removes the staging folder; nothing is left.

use std::collections::{HashMap, HashSet};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use porthole_connections::list::{Connection, Connections, Server};

use crate::entry::{Entry, PackageChoice, Runtime, on_path};
use crate::manifest::Manifest;

/// Where unpacked bundles go (default `<data dir>/porthole/mcp-bundles`).
pub const BUNDLES_DIR_ENV: &str = "PORTHOLE_MCP_BUNDLES_DIR";
/// The file in an unpacked bundle's folder that says which bundle file it is.
pub const MARK_FILE: &str = ".porthole-bundle.json";
/// `manifest.json` is a few KiB; anything far larger is not one.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// How large and slow a bundle may be.
#[derive(Debug, Clone)]
pub struct BundleLimits {
    pub max_download_bytes: u64,
    pub max_unpacked_bytes: u64,
    pub max_entries: usize,
    pub timeouts: porthole_registry::Timeouts,
}

impl Default for BundleLimits {
    fn default() -> Self {
        // A node bundle carries its node_modules (tens of MiB, thousands of files); a binary
        // one its program. These leave room without allowing a disk fill.
        Self {
            max_download_bytes: 512 << 20,
            max_unpacked_bytes: 2 << 30,
            max_entries: 50_000,
            timeouts: porthole_registry::Timeouts {
                connect: Duration::from_secs(20),
                response: Duration::from_secs(60),
                total: Duration::from_secs(30 * 60),
                idle: Duration::from_secs(30),
                min_rate: 1024,
                rate_window: Duration::from_secs(30),
            },
        }
    }
}

/// Where bundles are downloaded and unpacked.
#[derive(Debug, Clone)]
pub struct Bundles {
    /// Downloaded `.mcpb` files, named by their SHA-256 (a cache: may be emptied any time).
    pub downloads: PathBuf,
    /// Unpacked bundles, the folders connections run from.
    pub installs: PathBuf,
    pub limits: BundleLimits,
}

/// A bundle downloaded, its hash and contents checked, its manifest read: what the add form
/// is built from.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub url: String,
    pub sha256: String,
    /// The checked `.mcpb` in the download cache.
    pub archive: PathBuf,
    /// Where it is unpacked when saved (absolute): `${__dirname}`.
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub(crate) server: String,
    pub(crate) version: String,
    pub(crate) installs: PathBuf,
    pub(crate) limits: BundleLimits,
}

impl Bundle {
    /// The program a node, python or uv bundle runs with; `None` for a binary bundle.
    pub fn program(&self) -> Option<String> {
        self.manifest.program()
    }

    /// Whether what runs it is on this computer (a binary bundle brings its own).
    pub fn runtime_found(&self) -> bool {
        self.program().is_none_or(|p| on_path(&p))
    }

    /// What unpacks it when the connection is saved.
    pub(crate) fn install(&self) -> Install {
        Install {
            url: self.url.clone(),
            sha256: self.sha256.clone(),
            archive: self.archive.clone(),
            dir: self.dir.clone(),
            program: self.manifest.program_in_bundle.clone(),
            server: self.server.clone(),
            version: self.version.clone(),
            installs: self.installs.clone(),
            limits: self.limits.clone(),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Files whose SHA-256 this process computed, with their size and time of change then: a
/// file unchanged since is not hashed again at every look (the window checks the form as the
/// person types).
static HASHED: Mutex<Option<HashMap<PathBuf, Hashed>>> = Mutex::new(None);

/// A file's size and time of change when it was hashed, and its SHA-256.
type Hashed = (u64, SystemTime, String);

fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

fn remember(path: &Path, sha: &str) {
    if let Some((len, time)) = stamp(path) {
        HASHED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_default()
            .insert(path.to_path_buf(), (len, time, sha.to_string()));
    }
}

fn forget(path: &Path) {
    if let Some(map) = HASHED.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
        map.remove(path);
    }
}

/// The SHA-256 of the file at `path`.
fn hash_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Whether `path` is there with SHA-256 `sha` (hashed again unless this process hashed it
/// unchanged, or always when `again`). A file with another hash is deleted.
fn has_hash(path: &Path, sha: &str, again: bool) -> Result<bool, String> {
    let Some((len, time)) = stamp(path) else {
        return Ok(false);
    };
    if !again
        && let Some((l, t, s)) = HASHED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .and_then(|m| m.get(path).cloned())
        && (l, t) == (len, time)
    {
        return Ok(s == sha);
    }
    let actual = hash_file(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if actual == sha {
        remember(path, sha);
        Ok(true)
    } else {
        forget(path);
        let _ = std::fs::remove_file(path);
        Ok(false)
    }
}

/// Remove `dir` and its parents up to `root` (included) while they are empty.
fn remove_empty_up_to(dir: &Path, root: &Path) {
    let mut at = Some(dir);
    while let Some(d) = at {
        if !d.starts_with(root) || std::fs::remove_dir(d).is_err() || d == root {
            break;
        }
        at = d.parent();
    }
}

impl Bundles {
    /// After `removed` was taken out of the list, leaving `remaining`: remove the bundle folder
    /// it ran from (found by the paths in its command line, under [`Bundles::installs`], with
    /// Porthole's [`MARK_FILE`] in it), unless a remaining connection runs from it too. The
    /// folder removed, if any.
    pub fn forget(&self, removed: &Connection, remaining: &Connections) -> Result<Option<PathBuf>, String> {
        let Some(folder) = self.folder_of(removed) else {
            return Ok(None);
        };
        if remaining
            .iter()
            .any(|c| self.folder_of(c).as_ref() == Some(&folder))
        {
            return Ok(None);
        }
        std::fs::remove_dir_all(&folder).map_err(|e| format!("cannot remove {}: {e}", folder.display()))?;
        if let Some(parent) = folder.parent() {
            remove_empty_up_to(parent, &self.installs);
        }
        Ok(Some(folder))
    }

    /// The unpacked bundle a stdio connection runs from: `installs/NAMESPACE/NAME/VERSION-HASH`
    /// holding the mark, named by its command or an argument.
    fn folder_of(&self, c: &Connection) -> Option<PathBuf> {
        let Server::Stdio { command, args, .. } = &c.server else {
            return None;
        };
        std::iter::once(command).chain(args).find_map(|word| {
            let rest = Path::new(word).strip_prefix(&self.installs).ok()?;
            let mut parts = rest.components();
            let folder = (0..3).try_fold(self.installs.clone(), |at, _| Some(at.join(parts.next()?)))?;
            let plain = rest
                .components()
                .take(3)
                .all(|p| matches!(p, std::path::Component::Normal(_)));
            (plain && folder.join(MARK_FILE).is_file()).then_some(folder)
        })
    }

    pub fn new(downloads: impl Into<PathBuf>, installs: impl Into<PathBuf>) -> Self {
        Self {
            downloads: downloads.into(),
            installs: installs.into(),
            limits: BundleLimits::default(),
        }
    }

    /// `PORTHOLE_MCP_BUNDLES_DIR` (else `<data dir>/porthole/mcp-bundles`) for unpacked
    /// bundles, `<cache dir>/mcp-bundles` (`PORTHOLE_CACHE_DIR`) for downloads.
    pub fn from_env() -> Result<Self, String> {
        let installs = std::env::var_os(BUNDLES_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::data_dir().map(|d| d.join("porthole").join("mcp-bundles")))
            .ok_or("no data folder to unpack MCP bundles into")?;
        let downloads = porthole_registry::default_cache_dir()
            .map(|d| d.join("mcp-bundles"))
            .ok_or("no cache folder to download MCP bundles into")?;
        Ok(Self::new(downloads, installs))
    }

    /// Download (unless already downloaded), check and read the bundle of `package`, an
    /// mcpb package of `entry`.
    pub fn fetch(&self, entry: &Entry, package: &PackageChoice) -> Result<Bundle, String> {
        let sha = package
            .sha256
            .as_deref()
            .filter(|_| package.runtime == Runtime::Mcpb)
            .ok_or("this package is not an MCP bundle")?;
        let url = package.identifier.as_str();
        let archive = self.downloads.join(format!("{sha}.mcpb"));
        if !has_hash(&archive, sha, false)? {
            self.download(url, sha, &archive)?;
        }
        let refuse = |why: String| {
            forget(&archive);
            let _ = std::fs::remove_file(&archive);
            // Only when empty: other bundles' files stay.
            let _ = std::fs::remove_dir(&self.downloads);
            format!("the bundle {url} is refused: {why}; nothing of it was kept")
        };
        let files =
            porthole_registry::check_zip(&archive, self.limits.max_unpacked_bytes, self.limits.max_entries)
                .map_err(|e| refuse(e.to_string()))?;
        let files: HashSet<PathBuf> = files.into_iter().map(|(p, _)| p).collect();
        let bytes =
            porthole_registry::read_zip_file(&archive, Path::new("manifest.json"), MAX_MANIFEST_BYTES)
                .map_err(|e| refuse(e.to_string()))?
                .ok_or_else(|| refuse("it has no manifest.json".into()))?;
        let manifest =
            Manifest::read(&bytes, &files).map_err(|why| refuse(format!("its manifest.json: {why}")))?;
        let (namespace, name) = entry.name.split_once('/').unwrap_or(("", &entry.name));
        let dir =
            self.installs
                .join(namespace)
                .join(name)
                .join(format!("{}-{}", package.version, &sha[..16]));
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir()
                .map_err(|e| format!("cannot tell the current folder: {e}"))?
                .join(dir)
        };
        Ok(Bundle {
            url: url.to_string(),
            sha256: sha.to_string(),
            archive,
            dir,
            manifest,
            server: entry.name.clone(),
            version: package.version.clone(),
            installs: self.installs.clone(),
            limits: self.limits.clone(),
        })
    }

    /// Download `url` to `archive` if its SHA-256 is `sha`; otherwise nothing is kept.
    fn download(&self, url: &str, sha: &str, archive: &Path) -> Result<(), String> {
        std::fs::create_dir_all(&self.downloads)
            .map_err(|e| format!("cannot create {}: {e}", self.downloads.display()))?;
        let result = (|| {
            let mut tmp = tempfile::Builder::new()
                .prefix(".download-")
                .suffix(".mcpb")
                .tempfile_in(&self.downloads)
                .map_err(|e| format!("cannot create a file in {}: {e}", self.downloads.display()))?;
            let (_, digest) = {
                let mut out = BufWriter::new(tmp.as_file_mut());
                let got = porthole_registry::download_capped(
                    url,
                    &mut out,
                    self.limits.max_download_bytes,
                    &self.limits.timeouts,
                )
                .map_err(|e| format!("cannot download the bundle: {e}; nothing of it was kept"))?;
                out.flush().map_err(|e| format!("cannot write the bundle: {e}"))?;
                got
            };
            let actual = hex(&digest);
            if actual != sha {
                return Err(format!(
                    "the bundle {url} is refused: its SHA-256 is {actual}, but the registry says {sha}; it is not the file the registry names, so nothing of it was kept"
                ));
            }
            tmp.persist(archive)
                .map_err(|e| format!("cannot keep the bundle at {}: {}", archive.display(), e.error))?;
            remember(archive, sha);
            Ok(())
        })();
        if result.is_err() {
            // Only when empty: other bundles' files stay.
            let _ = std::fs::remove_dir(&self.downloads);
        }
        result
    }
}

/// What unpacks a bundle when its connection is saved (part of a [`crate::Plan`]).
#[derive(Debug, Clone)]
pub struct Install {
    pub url: String,
    pub sha256: String,
    pub archive: PathBuf,
    pub dir: PathBuf,
    /// A binary bundle's program (made executable).
    program: Option<PathBuf>,
    server: String,
    version: String,
    installs: PathBuf,
    limits: BundleLimits,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Mark {
    server: String,
    version: String,
    url: String,
    sha256: String,
}

impl Install {
    /// The SHA-256 its folder's mark names, if it has one.
    fn installed(&self) -> Option<String> {
        std::fs::read(self.dir.join(MARK_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Mark>(&b).ok())
            .map(|m| m.sha256)
    }

    /// Unpack the bundle into its folder unless it is there already. `true`: unpacked now (so
    /// [`Install::undo`] may remove it).
    pub fn run(&self) -> Result<bool, String> {
        match self.installed() {
            Some(sha) if sha == self.sha256 => return Ok(false),
            // The folder's name holds 16 hex digits of the hash: another file with the same
            // ones never replaces the one there.
            Some(_) => {
                return Err(format!(
                    "cannot unpack the bundle {}: {} holds another bundle file of the same name and version",
                    self.url,
                    self.dir.display()
                ));
            }
            None => {}
        }
        let parent = self.dir.parent().ok_or("the bundle's folder has no parent")?;
        let root = self.installs.clone();
        let refuse = |why: String| {
            remove_empty_up_to(parent, &root);
            format!(
                "cannot unpack the bundle {}: {why}; nothing of it was kept",
                self.url
            )
        };
        if !has_hash(&self.archive, &self.sha256, true).map_err(&refuse)? {
            return Err(refuse(
                "the downloaded file is gone or changed since it was checked; open the form again to download it".into(),
            ));
        }
        std::fs::create_dir_all(parent)
            .map_err(|e| refuse(format!("cannot create {}: {e}", parent.display())))?;
        let staging = tempfile::Builder::new()
            .prefix(".unpacking-")
            .tempdir_in(parent)
            .map_err(|e| refuse(format!("cannot create a folder in {}: {e}", parent.display())))?;
        let unpacked = (|| {
            porthole_registry::unzip_without_links(
                &self.archive,
                staging.path(),
                self.limits.max_unpacked_bytes,
                self.limits.max_entries,
            )
            .map_err(|e| e.to_string())?;
            if let Some(program) = &self.program {
                make_executable(&staging.path().join(program))?;
            }
            let mark = Mark {
                server: self.server.clone(),
                version: self.version.clone(),
                url: self.url.clone(),
                sha256: self.sha256.clone(),
            };
            std::fs::write(
                staging.path().join(MARK_FILE),
                serde_json::to_vec_pretty(&mark).unwrap_or_default(),
            )
            .map_err(|e| format!("cannot write {MARK_FILE}: {e}"))?;
            // A folder left by an unpacking that never finished (no mark): replaced.
            if self.dir.exists() {
                std::fs::remove_dir_all(&self.dir)
                    .map_err(|e| format!("cannot replace {}: {e}", self.dir.display()))?;
            }
            std::fs::rename(staging.path(), &self.dir)
                .map_err(|e| format!("cannot move it to {}: {e}", self.dir.display()))
        })();
        match unpacked {
            Ok(()) => {
                // Renamed away: nothing for the guard to remove.
                let _ = staging.keep();
                Ok(true)
            }
            Err(why) => {
                drop(staging);
                // A bundle whose contents broke the rules is not kept in the cache either.
                forget(&self.archive);
                let _ = std::fs::remove_file(&self.archive);
                Err(refuse(why))
            }
        }
    }

    /// Remove what [`Install::run`] unpacked (the connection could not be saved).
    pub fn undo(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(parent) = self.dir.parent() {
            remove_empty_up_to(parent, &self.installs);
        }
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut perms = meta.permissions();
    perms.set_mode((perms.mode() | 0o755) & 0o755);
    std::fs::set_permissions(path, perms)
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}
