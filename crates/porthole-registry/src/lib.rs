//! Agents from the ACP registry (kept out of `porthole-core`: the connection never needs it):
//! read the published list (a URL or a file, with the last good
//! copy cached for offline use), and install, update and remove its agents under the data
//! dir (`~/.local/share/porthole/agents/<id>/<version>/`). Installed agents are recorded in
//! `installed.json` beside them and show up as [`AgentProfile`]s next to agents.json's.
//!
//! Everything here is blocking (downloads and extraction); async front ends call it from
//! `spawn_blocking`.
//!
//! [`AgentProfile`]: porthole_profiles::agents_config::AgentProfile

mod archive;
mod cancel;
mod fetch;
mod format;
mod icon;
mod install;
mod package;

use std::path::PathBuf;

pub use archive::{ArchiveKind, check_zip, read_zip_file, unzip_without_links};
pub use cancel::Cancel;
pub use fetch::{Fetched, Timeouts, download_capped, get_capped, load_registry};
pub use format::{
    BinaryTarget, Distribution, DistributionKind, PackageDistribution, Registry, RegistryAgent,
    current_target, is_newer, parse,
};
pub use icon::icon_data_url;
pub use install::{
    InstallOutcome, InstalledAgent, Installer, Limits, Progress, Status, installed_profiles, merge_profiles,
};
pub use package::{check_command, check_npm, check_pep508, check_tool_env};
/// The mark an installed agent's profile carries; defined in core, where profiles live.
pub use porthole_profiles::agents_config::RegistryMark;

/// The registry Zed and JetBrains read; `PORTHOLE_REGISTRY_URL` replaces it.
pub const DEFAULT_REGISTRY_URL: &str = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";
/// A registry URL (`http://`, `https://`, `file://`) or a file path.
pub const REGISTRY_URL_ENV: &str = "PORTHOLE_REGISTRY_URL";
/// Where installed agents live (default `~/.local/share/porthole/agents`).
pub const AGENTS_DIR_ENV: &str = "PORTHOLE_AGENTS_DIR";
/// Where the last good registry is kept (default `~/.cache/porthole`).
pub const CACHE_DIR_ENV: &str = "PORTHOLE_CACHE_DIR";

/// The registry to read: `PORTHOLE_REGISTRY_URL`, else the public one.
pub fn registry_source() -> String {
    std::env::var(REGISTRY_URL_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_REGISTRY_URL.to_string())
}

/// `PORTHOLE_AGENTS_DIR`, else `agents/` in the platform data dir.
pub fn default_agents_dir() -> Option<PathBuf> {
    env_dir(AGENTS_DIR_ENV).or_else(|| dirs::data_dir().map(|d| d.join("porthole").join("agents")))
}

/// `PORTHOLE_CACHE_DIR`, else the platform cache dir.
pub fn default_cache_dir() -> Option<PathBuf> {
    env_dir(CACHE_DIR_ENV).or_else(|| dirs::cache_dir().map(|d| d.join("porthole")))
}

fn env_dir(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("the registry is not usable: {0}")]
    Format(String),
    #[error("cannot read {from}: {error}")]
    Fetch { from: String, error: String },
    #[error("no agent `{0}` in the registry")]
    UnknownAgent(String),
    #[error("`{0}` is not installed")]
    NotInstalled(String),
    #[error("{0}")]
    Unsupported(String),
    /// A program the distribution runs with (npx, uvx) is missing.
    #[error("{0}")]
    MissingTool(String),
    #[error("download of {url} refused: {why}")]
    Download { url: String, why: String },
    #[error("the archive is unsafe: {0}")]
    UnsafeArchive(String),
    #[error("the archive is corrupt or not what its name says: {0}")]
    CorruptArchive(String),
    #[error("{context}: {error}")]
    Io { context: String, error: std::io::Error },
    #[error("the install was cancelled; what was installed before is kept")]
    Cancelled,
}

impl RegistryError {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |error| Self::Io { context, error }
    }
}
