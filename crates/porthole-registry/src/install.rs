//! Installing registry agents: binary archives are downloaded, checked and unpacked into
//! `<agents dir>/<id>/<version>/`; npx and uvx packages become commands run through those
//! tools. What is installed is recorded in `<agents dir>/installed.json`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::RegistryError;
use super::archive::{self, ArchiveKind, ExtractLimits};
use super::cancel::{Cancel, Made};
use super::fetch::{self, Timeouts};
use super::format::{self, DistributionKind, PackageDistribution, RegistryAgent};
use porthole_profiles::agents_config::{AgentProfile, AgentsConfig, RegistryMark};

/// One installed agent, as recorded in `installed.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledAgent {
    pub id: String,
    pub name: String,
    pub version: String,
    pub kind: DistributionKind,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Where a binary distribution was unpacked (`None` for npx and uvx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

impl InstalledAgent {
    /// The agent as a profile beside the configured ones, marked as from the registry.
    pub fn to_profile(&self) -> AgentProfile {
        AgentProfile {
            id: self.id.clone(),
            name: self.name.clone(),
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
            registry: Some(RegistryMark {
                version: self.version.clone(),
                kind: self.kind,
            }),
        }
    }

    /// Whether its files are still there (someone may have deleted the folder).
    fn is_intact(&self) -> bool {
        match &self.path {
            Some(path) => path.is_dir() && Path::new(&self.command).is_file(),
            None => true,
        }
    }
}

#[derive(Default, Serialize, Deserialize)]
struct Record {
    agents: Vec<InstalledAgent>,
}

/// Bounds on a binary install.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_download_bytes: u64,
    pub max_unpacked_bytes: u64,
    pub max_entries: usize,
    pub connect_timeout: Duration,
    /// For the whole download.
    pub download_timeout: Duration,
    /// No byte for this long ends the download.
    pub idle_timeout: Duration,
    /// Fewer bytes a second than this, measured over each `rate_window`, end the download.
    pub min_rate: u64,
    pub rate_window: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        // Agent binaries today are tens of MiB; these leave room without allowing a disk fill.
        Self {
            max_download_bytes: 1 << 30,
            max_unpacked_bytes: 4 << 30,
            max_entries: 100_000,
            connect_timeout: Duration::from_secs(20),
            download_timeout: Duration::from_secs(30 * 60),
            // A stalled server ends the install in 30 s, not 30 minutes; a trickle below
            // 1 KiB/s over 30 s too (a 50 MiB agent would take 14 hours at that rate).
            idle_timeout: Duration::from_secs(30),
            min_rate: 1024,
            rate_window: Duration::from_secs(30),
        }
    }
}

/// How far an install is, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "phase", rename_all = "camelCase")]
pub enum Progress {
    /// `total` is unknown when the server does not say.
    Downloading {
        done: u64,
        total: Option<u64>,
    },
    Extracting,
}

/// A file Porthole puts in each version folder it unpacks: a folder at `<id>/<version>/`
/// without it (and not in the record) is not Porthole's and is never replaced or deleted.
const INSTALLED_MARK: &str = ".porthole-installed";

/// A registry agent compared with what is installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Status {
    NotInstalled,
    /// Installed, at this registry version or newer (`installed` is the version installed).
    Installed {
        installed: String,
    },
    UpdateAvailable {
        installed: String,
    },
}

impl Status {
    pub fn of(agent: &RegistryAgent, installed: &[InstalledAgent]) -> Self {
        match installed.iter().find(|i| i.id == agent.id) {
            None => Self::NotInstalled,
            Some(i) if format::is_newer(&agent.version, &i.version) => Self::UpdateAvailable {
                installed: i.version.clone(),
            },
            Some(i) => Self::Installed {
                installed: i.version.clone(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum InstallOutcome {
    Installed { agent: InstalledAgent },
    Updated { from: String, agent: InstalledAgent },
    AlreadyInstalled { agent: InstalledAgent },
}

impl InstallOutcome {
    pub fn agent(&self) -> &InstalledAgent {
        match self {
            Self::Installed { agent } | Self::Updated { agent, .. } | Self::AlreadyInstalled { agent } => {
                agent
            }
        }
    }
}

/// Installs into one agents folder.
#[derive(Debug, Clone)]
pub struct Installer {
    pub dir: PathBuf,
    pub limits: Limits,
    /// The platform target to pick binaries for (this machine's by default).
    pub target: Option<String>,
    /// Where to look for npx and uvx (this process's `PATH` by default).
    pub path_env: Option<OsString>,
}

const RECORD_FILE: &str = "installed.json";

impl Installer {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            limits: Limits::default(),
            target: format::current_target().map(String::from),
            path_env: std::env::var_os("PATH"),
        }
    }

    /// In `PORTHOLE_AGENTS_DIR` or the platform data dir.
    pub fn from_env() -> Result<Self, RegistryError> {
        super::default_agents_dir()
            .map(Self::new)
            .ok_or_else(|| RegistryError::Unsupported("no data folder to install agents into".into()))
    }

    /// The installed agents (none when nothing was ever installed).
    pub fn installed(&self) -> Result<Vec<InstalledAgent>, RegistryError> {
        let path = self.dir.join(RECORD_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<Record>(&bytes)
                .map(|r| r.agents)
                .map_err(|e| RegistryError::Format(format!("{} is damaged: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(RegistryError::io(format!("cannot read {}", path.display()))(e)),
        }
    }

    fn save(&self, agents: Vec<InstalledAgent>) -> Result<(), RegistryError> {
        let path = self.dir.join(RECORD_FILE);
        let mut bytes = serde_json::to_vec_pretty(&Record { agents }).expect("plain data serializes");
        bytes.push(b'\n');
        fetch::write_atomically(&path, &bytes)
            .map_err(RegistryError::io(format!("cannot write {}", path.display())))
    }

    /// Install `agent`, or update it when the registry has a newer version than the one
    /// installed. A failed install leaves what was there before untouched.
    pub fn install(
        &self,
        agent: &RegistryAgent,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<InstallOutcome, RegistryError> {
        self.install_cancellable(agent, progress, &Cancel::default())
    }

    /// [`Installer::install`] that `cancel` can stop: it then fails with
    /// [`RegistryError::Cancelled`] and leaves what was installed before.
    pub fn install_cancellable(
        &self,
        agent: &RegistryAgent,
        progress: &mut dyn FnMut(Progress),
        cancel: &Cancel,
    ) -> Result<InstallOutcome, RegistryError> {
        let mut installed = self.installed()?;
        let previous = installed
            .iter()
            .position(|i| i.id == agent.id)
            .map(|at| installed.remove(at));
        if let Some(previous) = &previous
            && !format::is_newer(&agent.version, &previous.version)
            && previous.is_intact()
        {
            return Ok(InstallOutcome::AlreadyInstalled {
                agent: previous.clone(),
            });
        }
        let kind = agent.kind_for(self.target.as_deref()).ok_or_else(|| {
            let targets: Vec<&str> = agent.distribution.binary.keys().map(String::as_str).collect();
            RegistryError::Unsupported(format!(
                "`{}` has no build for this platform ({}); it has builds for {}",
                agent.id,
                self.target.as_deref().unwrap_or("unknown"),
                targets.join(", ")
            ))
        })?;
        let new = match kind {
            DistributionKind::Binary => self.install_binary(agent, previous.as_ref(), progress, cancel)?,
            DistributionKind::Npx | DistributionKind::Uvx => self.package_command(agent, kind)?,
        };
        installed.push(new.clone());
        installed.sort_by(|a, b| a.id.cmp(&b.id));
        self.save(installed)?;
        // Only now, with the record pointing at the new version, do the old version's files go.
        if let Some(previous) = &previous {
            self.remove_old_version(previous, &new);
        }
        Ok(match previous {
            Some(previous) if previous.version != new.version => InstallOutcome::Updated {
                from: previous.version,
                agent: new,
            },
            _ => InstallOutcome::Installed { agent: new },
        })
    }

    /// Forget the agent and delete its files.
    pub fn remove(&self, id: &str) -> Result<InstalledAgent, RegistryError> {
        let mut installed = self.installed()?;
        let at = installed
            .iter()
            .position(|i| i.id == id)
            .ok_or_else(|| RegistryError::NotInstalled(id.to_string()))?;
        let gone = installed.remove(at);
        // The record first: if deleting fails half way, no entry points at broken files.
        self.save(installed)?;
        // Only the version folder the record names: anything else in `<id>/` is not Porthole's.
        if let Some(path) = self.owned_version_folder(&gone) {
            std::fs::remove_dir_all(&path)
                .map_err(RegistryError::io(format!("cannot delete {}", path.display())))?;
        }
        if format::is_plain_id(&gone.id) {
            // Only if empty: a folder of the user's in it survives.
            let _ = std::fs::remove_dir(self.dir.join(&gone.id));
        }
        Ok(gone)
    }

    /// The version folder `agent`'s record names, if it is where Porthole unpacks (directly in
    /// `<agents dir>/<id>/`) and is still there.
    fn owned_version_folder(&self, agent: &InstalledAgent) -> Option<PathBuf> {
        let path = agent.path.as_ref()?;
        let folder = self.dir.join(&agent.id);
        (format::is_plain_id(&agent.id) && path.parent() == Some(folder.as_path()) && path.is_dir())
            .then(|| path.clone())
    }

    /// After an update: delete the version folder the record named before (never anything
    /// else in `<id>/`), then the agent's folder if that left it empty.
    fn remove_old_version(&self, previous: &InstalledAgent, new: &InstalledAgent) {
        if previous.path != new.path
            && let Some(path) = self.owned_version_folder(previous)
            && let Err(e) = std::fs::remove_dir_all(&path)
        {
            tracing::warn!("cannot delete the old {}: {e}", path.display());
        }
        // An agent now run through npx or uvx keeps no files.
        if format::is_plain_id(&new.id) {
            let _ = std::fs::remove_dir(self.dir.join(&new.id));
        }
    }

    fn install_binary(
        &self,
        agent: &RegistryAgent,
        previous: Option<&InstalledAgent>,
        progress: &mut dyn FnMut(Progress),
        cancel: &Cancel,
    ) -> Result<InstalledAgent, RegistryError> {
        let folder = self.dir.join(&agent.id);
        let fresh_folder = !folder.exists();
        std::fs::create_dir_all(&folder)
            .map_err(RegistryError::io(format!("cannot create {}", folder.display())))?;
        if fresh_folder {
            cancel.made(Made::Folder(folder.clone()));
        }
        let result = self.unpack_binary(agent, previous, &folder, progress, cancel);
        if result.is_err() && fresh_folder {
            // Only succeeds if empty: the temporary files are gone by now.
            let _ = std::fs::remove_dir(&folder);
        }
        result
    }

    fn unpack_binary(
        &self,
        agent: &RegistryAgent,
        previous: Option<&InstalledAgent>,
        folder: &Path,
        progress: &mut dyn FnMut(Progress),
        cancel: &Cancel,
    ) -> Result<InstalledAgent, RegistryError> {
        let target = self.target.as_deref().unwrap_or_default();
        let binary = &agent.distribution.binary[target];
        let url = binary.archive.as_str();
        if !fetch::is_http(url) {
            return Err(RegistryError::Unsupported(format!(
                "`{}`: the archive is not an http(s) URL: {url}",
                agent.id
            )));
        }
        let expected = match &binary.sha256 {
            Some(sum) if sum.len() == 64 && sum.chars().all(|c| c.is_ascii_hexdigit()) => {
                Some(sum.to_ascii_lowercase())
            }
            Some(sum) => {
                return Err(RegistryError::Format(format!(
                    "`{}`: `{sum}` is not a SHA-256",
                    agent.id
                )));
            }
            None => None,
        };
        // Where the program is once unpacked; the registry writes Windows paths with `\`.
        let cmd = binary.cmd.replace('\\', "/");
        let cmd_rel = relative_inside(&cmd).ok_or_else(|| {
            RegistryError::Unsupported(format!(
                "`{}`: the command `{cmd}` is not inside the archive",
                agent.id
            ))
        })?;

        // Download next to the destination so the final rename stays on one filesystem.
        let mut download = tempfile::Builder::new()
            .prefix(".download-")
            .tempfile_in(folder)
            .map_err(RegistryError::io("cannot create a temporary file"))?;
        cancel.made(Made::Temporary(download.path().to_path_buf()));
        let timeouts = Timeouts {
            connect: self.limits.connect_timeout,
            response: self.limits.connect_timeout * 3,
            total: self.limits.download_timeout,
            idle: self.limits.idle_timeout,
            min_rate: self.limits.min_rate,
            rate_window: self.limits.rate_window,
        };
        {
            let mut out = BufWriter::new(download.as_file_mut());
            let (_, sha) = fetch::download(
                url,
                &mut out,
                self.limits.max_download_bytes,
                &timeouts,
                &mut |done, total| progress(Progress::Downloading { done, total }),
                cancel,
            )?;
            out.flush()
                .map_err(RegistryError::io("cannot write the download"))?;
            let actual: String = sha.iter().map(|b| format!("{b:02x}")).collect();
            if let Some(expected) = expected
                && actual != expected
            {
                return Err(RegistryError::Download {
                    url: url.to_string(),
                    why: format!("its SHA-256 is {actual}, the registry says {expected}"),
                });
            }
        }

        cancel.check()?;
        progress(Progress::Extracting);
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(folder)
            .map_err(RegistryError::io("cannot create a temporary folder"))?;
        cancel.made(Made::Temporary(staging.path().to_path_buf()));
        let raw_name = cmd_rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| agent.id.clone());
        archive::extract(
            download.path(),
            ArchiveKind::from_url(url),
            staging.path(),
            &raw_name,
            ExtractLimits {
                max_bytes: self.limits.max_unpacked_bytes,
                max_entries: self.limits.max_entries,
            },
        )?;
        let program = staging.path().join(&cmd_rel);
        if !program.is_file() {
            return Err(RegistryError::CorruptArchive(format!("it has no `{cmd}` to run")));
        }
        make_executable(&program)?;
        let mark = staging.path().join(INSTALLED_MARK);
        std::fs::write(&mark, format!("{} {}\n", agent.id, agent.version))
            .map_err(RegistryError::io(format!("cannot write {}", mark.display())))?;

        let final_dir = folder.join(&agent.version);
        if final_dir.exists() {
            // Porthole's own (recorded, or marked by an install that never reached the record):
            // replaced whole. Anything else there is the user's and stays.
            let ours = previous.and_then(|p| p.path.as_deref()) == Some(final_dir.as_path())
                || final_dir.join(INSTALLED_MARK).is_file();
            if !ours {
                return Err(RegistryError::Unsupported(format!(
                    "{} exists and was not installed by Porthole; move it away to install `{}` {}",
                    final_dir.display(),
                    agent.id,
                    agent.version
                )));
            }
            cancel.check()?;
            std::fs::remove_dir_all(&final_dir).map_err(RegistryError::io(format!(
                "cannot replace {}",
                final_dir.display()
            )))?;
        }
        cancel.check()?;
        std::fs::rename(staging.path(), &final_dir).map_err(RegistryError::io(format!(
            "cannot move the agent into {}",
            final_dir.display()
        )))?;
        // The staging folder was renamed away; dropping it finds nothing left to delete.
        drop(staging);
        Ok(InstalledAgent {
            id: agent.id.clone(),
            name: agent.name.clone(),
            version: agent.version.clone(),
            kind: DistributionKind::Binary,
            command: final_dir.join(&cmd_rel).display().to_string(),
            args: binary.args.clone(),
            env: binary.env.clone(),
            path: Some(final_dir),
        })
    }

    /// npx and uvx agents are commands; the tool itself must be there to run them.
    fn package_command(
        &self,
        agent: &RegistryAgent,
        kind: DistributionKind,
    ) -> Result<InstalledAgent, RegistryError> {
        let (tool, dist) = match kind {
            DistributionKind::Npx => ("npx", agent.distribution.npx.as_ref()),
            _ => ("uvx", agent.distribution.uvx.as_ref()),
        };
        let dist = dist.expect("kind_for only names distributions that exist");
        if find_program(tool, self.path_env.as_deref()).is_none() {
            let what = if tool == "npx" {
                "Node.js (18 or newer), which brings npx"
            } else {
                "uv, which brings uvx"
            };
            return Err(RegistryError::MissingTool(format!(
                "`{}` runs with {tool}, which is not installed here (not on PATH): install {what}, then install the agent again",
                agent.id
            )));
        }
        Ok(InstalledAgent {
            id: agent.id.clone(),
            name: agent.name.clone(),
            version: agent.version.clone(),
            kind,
            command: tool.to_string(),
            args: package_args(kind, dist, &agent.version),
            env: dist.env.clone(),
            path: None,
        })
    }
}

/// `npx -y PACKAGE@VERSION ARGS` (or `npx -y --package PACKAGE CMD ARGS` for a named
/// command); `uvx PACKAGE@VERSION ARGS` (or `uvx --from PACKAGE==VERSION CMD ARGS`).
/// The registry's packages carry their version; one without gets the agent's.
fn package_args(kind: DistributionKind, dist: &PackageDistribution, version: &str) -> Vec<String> {
    let mut args = Vec::new();
    match kind {
        DistributionKind::Npx => {
            // `@scope/name@1.0`: a version is an `@` after the first character.
            let package = if dist.package.get(1..).is_some_and(|rest| rest.contains('@')) {
                dist.package.clone()
            } else {
                format!("{}@{version}", dist.package)
            };
            args.push("-y".to_string());
            match &dist.cmd {
                Some(cmd) => args.extend(["--package".to_string(), package, cmd.clone()]),
                None => args.push(package),
            }
        }
        _ => {
            let versioned = dist.package.contains(['@', '=', '<', '>', '~', '!']);
            match &dist.cmd {
                Some(cmd) => {
                    let from = if versioned {
                        dist.package.clone()
                    } else {
                        format!("{}=={version}", dist.package)
                    };
                    args.extend(["--from".to_string(), from, cmd.clone()]);
                }
                None if versioned => args.push(dist.package.clone()),
                None => args.push(format!("{}@{version}", dist.package)),
            }
        }
    }
    args.extend(dist.args.iter().cloned());
    args
}

fn relative_inside(cmd: &str) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in Path::new(cmd).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), RegistryError> {
    use std::os::unix::fs::PermissionsExt;
    let meta =
        std::fs::metadata(path).map_err(RegistryError::io(format!("cannot read {}", path.display())))?;
    let mut perms = meta.permissions();
    perms.set_mode(perms.mode() | 0o755);
    std::fs::set_permissions(path, perms).map_err(RegistryError::io(format!(
        "cannot make {} executable",
        path.display()
    )))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), RegistryError> {
    Ok(())
}

/// A program on `path_env`, like `which`.
pub(crate) fn find_program(program: &str, path_env: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let paths = path_env?;
    std::env::split_paths(paths)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file() || path.with_extension("cmd").is_file() || path.with_extension("exe").is_file()
}

/// The agents installed in `dir` as profiles (marked as from the registry).
pub fn installed_profiles(dir: &Path) -> Result<Vec<AgentProfile>, RegistryError> {
    Ok(Installer::new(dir)
        .installed()?
        .iter()
        .map(InstalledAgent::to_profile)
        .collect())
}

/// Put installed agents beside the configured ones. A configured agent keeps its id; an
/// installed one whose id is taken (or is the built-in `demo`) becomes `<id>-registry`.
pub fn merge_profiles(config: &mut AgentsConfig, installed: Vec<AgentProfile>) {
    for mut profile in installed {
        let taken = |id: &str, agents: &[AgentProfile]| id == "demo" || agents.iter().any(|a| a.id == id);
        if taken(&profile.id, &config.agents) {
            let base = format!("{}-registry", profile.id);
            let mut id = base.clone();
            let mut n = 2;
            while taken(&id, &config.agents) {
                id = format!("{base}-{n}");
                n += 1;
            }
            profile.id = id;
        }
        config.agents.push(profile);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(package: &str, cmd: Option<&str>) -> PackageDistribution {
        PackageDistribution {
            package: package.into(),
            cmd: cmd.map(String::from),
            args: vec!["--acp".into()],
            env: BTreeMap::new(),
        }
    }

    #[test]
    fn npx_and_uvx_command_lines() {
        let npx = DistributionKind::Npx;
        assert_eq!(
            package_args(npx, &dist("@scope/agent@1.2.0", None), "1.2.0"),
            ["-y", "@scope/agent@1.2.0", "--acp"]
        );
        assert_eq!(
            package_args(npx, &dist("@scope/agent", None), "1.2.0"),
            ["-y", "@scope/agent@1.2.0", "--acp"]
        );
        assert_eq!(
            package_args(npx, &dist("agent@2.0.0", Some("agent-acp")), "2.0.0"),
            ["-y", "--package", "agent@2.0.0", "agent-acp", "--acp"]
        );
        let uvx = DistributionKind::Uvx;
        assert_eq!(
            package_args(uvx, &dist("fast-agent", None), "0.3.1"),
            ["fast-agent@0.3.1", "--acp"]
        );
        assert_eq!(
            package_args(uvx, &dist("fast-agent==0.3.1", Some("fast-agent-acp")), "0.3.1"),
            ["--from", "fast-agent==0.3.1", "fast-agent-acp", "--acp"]
        );
        assert_eq!(
            package_args(uvx, &dist("fast-agent", Some("fa")), "0.3.1"),
            ["--from", "fast-agent==0.3.1", "fa", "--acp"]
        );
    }

    #[test]
    fn commands_must_stay_inside() {
        assert_eq!(relative_inside("./goose"), Some(PathBuf::from("goose")));
        assert_eq!(relative_inside("bin/agent"), Some(PathBuf::from("bin/agent")));
        assert_eq!(relative_inside("../agent"), None);
        assert_eq!(relative_inside("/usr/bin/agent"), None);
        assert_eq!(relative_inside("."), None);
    }

    #[test]
    fn installed_agents_never_take_a_configured_id() {
        let configured = |id: &str| AgentProfile {
            id: id.into(),
            name: id.into(),
            command: "x".into(),
            args: vec![],
            env: BTreeMap::new(),
            registry: None,
        };
        let mut config = AgentsConfig {
            agents: vec![configured("goose"), configured("goose-registry")],
            problems: vec![],
        };
        let mut goose = configured("goose");
        goose.registry = Some(RegistryMark {
            version: "1.0.0".into(),
            kind: DistributionKind::Binary,
        });
        merge_profiles(
            &mut config,
            vec![goose, configured("demo"), configured("codex-acp")],
        );
        let ids: Vec<&str> = config.agents.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "goose",
                "goose-registry",
                "goose-registry-2",
                "demo-registry",
                "codex-acp"
            ]
        );
        assert!(config.agents[2].registry.is_some());
    }
}
