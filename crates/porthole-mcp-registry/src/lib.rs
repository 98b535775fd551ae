//! MCP servers from an MCP Registry (API v0.1: the official one at
//! <https://registry.modelcontextprotocol.io>, or an organisation's with the same API): list and
//! search its `server.json` entries (cached on disk, refreshed with `updated_since`), check them
//! as untrusted text, ask an entry's inputs as an elicitation form, and turn the answers into
//! one connection of `connections.json` with its secrets in the keyring.
//!
//! Blocking, like `porthole-registry` (whose capped HTTP GET it uses); async front ends call it
//! from `spawn_blocking`.

mod api;
mod bundle;
mod cache;
mod check;
mod entry;
mod form;
mod manifest;
mod raw;
mod save;

pub use api::{ApiError, MAX_ANSWER_BYTES, MAX_PAGES, OFFICIAL, Page, Query, Registry};
pub use bundle::{BUNDLES_DIR_ENV, Bundle, BundleLimits, Bundles, Install, MARK_FILE};
pub use cache::{Cached, cache_file, load as load_cache, refresh, refresh_with, rfc3339};
pub use check::{
    OFFICIAL_META, check_env_name, check_server_name, display_text, entry_from_answer, fill_template,
};
pub use entry::{
    ArgSpec, Entry, InputSpec, NamedInput, PackageChoice, RemoteChoice, RemoteKind, Runtime, Status, on_path,
};
pub use form::{AddForm, Choice, Plan, quote, suggested_name};
pub use manifest::{Manifest, OptionKind, ServerType, UserOption, platform};
pub use save::{SaveError, save_plan};

/// `PORTHOLE_MCP_REGISTRY_URL`: the registry addresses to read, separated by spaces or commas
/// (default: the official one).
pub const REGISTRY_URL_ENV: &str = "PORTHOLE_MCP_REGISTRY_URL";

/// The registries to read: `PORTHOLE_MCP_REGISTRY_URL`, else the official one.
pub fn registry_addresses() -> Vec<String> {
    let listed: Vec<String> = std::env::var(REGISTRY_URL_ENV)
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .collect();
    if listed.is_empty() {
        vec![OFFICIAL.to_string()]
    } else {
        listed
    }
}

/// The keyring key (in the connections' keyring service) of a registry's bearer token, under
/// the pseudo-connection `mcp-registry`.
pub fn token_key(base: &str) -> String {
    let digest = <sha2::Sha256 as sha2::Digest>::digest(base.trim_end_matches('/').as_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("token:{short}")
}

/// The pseudo-connection name registry tokens are kept under in the keyring.
pub const TOKEN_OWNER: &str = "mcp-registry";
