//! The registry's HTTP API (v0.1), read through the ACP registry's capped GET (Porthole's one
//! HTTP client, `porthole-http`, for both registries): at most [`MAX_ANSWER_BYTES`] an answer, 60 s in all, 20 s
//! without a byte, 1 KiB/s at least, and at most [`MAX_PAGES`] pages for one listing.

use serde_json::Value;

use crate::check::entry_from_answer;
use crate::entry::Entry;
use crate::raw::ServerList;

/// A page of 100 entries is well under 1 MiB; anything far larger is not an answer.
pub const MAX_ANSWER_BYTES: u64 = 8 << 20;
/// 100 entries a page: 50,000 entries, more than any registry lists today.
pub const MAX_PAGES: usize = 500;
/// The official registry.
pub const OFFICIAL: &str = "https://registry.modelcontextprotocol.io";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("the registry address `{0}` is not usable: {1}")]
    Address(String, String),
    #[error("{0}")]
    Fetch(String),
    #[error("the registry's answer is not usable: {0}")]
    Format(String),
    #[error("`{0}` is not in the registry")]
    NotFound(String),
}

/// One registry: its base address (`https://registry.modelcontextprotocol.io`, or an
/// organisation's), and the bearer token its reads need, if any (from the keyring).
#[derive(Clone)]
pub struct Registry {
    base: url::Url,
    token: Option<String>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("Registry")
            .field("base", &self.base.as_str())
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .finish()
    }
}

/// One page of a listing: the usable entries, one problem per entry left out, the next cursor.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub entries: Vec<Entry>,
    pub problems: Vec<String>,
    pub next_cursor: Option<String>,
}

/// What a listing asks for.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// A substring of the server name (the registry searches names only).
    pub search: Option<String>,
    pub cursor: Option<String>,
    /// 1 to 100.
    pub limit: Option<u32>,
    /// RFC 3339: entries changed since then, deleted ones included.
    pub updated_since: Option<String>,
    /// Only each server's latest version (`version=latest`).
    pub latest: bool,
}

impl Registry {
    /// `base` must be https, or plain http to this computer (the connections' URL rule).
    pub fn new(base: &str, token: Option<String>) -> Result<Self, ApiError> {
        let bad = |why: String| ApiError::Address(base.to_string(), why);
        let mut url = url::Url::parse(base.trim()).map_err(|e| bad(e.to_string()))?;
        porthole_connections::list::check_url(&url).map_err(bad)?;
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("an address has no query or fragment".into()));
        }
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        Ok(Self { base: url, token })
    }

    pub fn base(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    fn get(&self, path_segments: &[&str], query: &[(&str, String)]) -> Result<Value, ApiError> {
        let mut url = self.base.clone();
        {
            let mut segs = url
                .path_segments_mut()
                .map_err(|_| ApiError::Address(self.base().into(), "cannot hold a path".into()))?;
            segs.pop_if_empty();
            // Each segment percent-encoded: a server name's `/` becomes `%2F`.
            segs.extend(path_segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        let bytes = porthole_registry::get_capped(url.as_str(), self.token.as_deref(), MAX_ANSWER_BYTES)
            .map_err(|e| match e {
                porthole_registry::RegistryError::Fetch { error, .. } if error.contains("404") => {
                    ApiError::NotFound(path_segments.get(2).copied().unwrap_or_default().to_string())
                }
                other => ApiError::Fetch(other.to_string()),
            })?;
        serde_json::from_slice(&bytes).map_err(|e| ApiError::Format(format!("not JSON: {e}")))
    }

    /// One page of `GET /v0.1/servers`.
    pub fn list(&self, q: &Query) -> Result<Page, ApiError> {
        let mut query = Vec::new();
        if let Some(s) = &q.search {
            query.push(("search", s.clone()));
        }
        if let Some(c) = &q.cursor {
            query.push(("cursor", c.clone()));
        }
        query.push(("limit", q.limit.unwrap_or(100).clamp(1, 100).to_string()));
        if let Some(u) = &q.updated_since {
            query.push(("updated_since", u.clone()));
        }
        if q.latest {
            query.push(("version", "latest".into()));
        }
        page(self.get(&["v0.1", "servers"], &query)?)
    }

    /// Every page of a listing, following the cursor (at most [`MAX_PAGES`]; a cursor seen
    /// before ends it too, so a registry cannot send the client round in circles).
    pub fn list_all(&self, q: &Query) -> Result<Page, ApiError> {
        self.list_all_with(q, |_| {})
    }

    /// [`Registry::list_all`], showing each page to `on_page` as it comes.
    pub fn list_all_with(&self, q: &Query, mut on_page: impl FnMut(&Page)) -> Result<Page, ApiError> {
        let mut all = Page::default();
        let mut q = q.clone();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_PAGES {
            let page = self.list(&q)?;
            on_page(&page);
            all.entries.extend(page.entries);
            all.problems.extend(page.problems);
            match page.next_cursor {
                Some(c) if seen.insert(c.clone()) => q.cursor = Some(c),
                Some(_) => {
                    all.problems
                        .push("the registry sent a cursor it had sent before; listing stopped".into());
                    return Ok(all);
                }
                None => return Ok(all),
            }
        }
        all.problems
            .push(format!("more than {MAX_PAGES} pages; the rest are left out"));
        Ok(all)
    }

    /// `GET /v0.1/servers/{name}/versions`.
    pub fn versions(&self, name: &str) -> Result<Page, ApiError> {
        crate::check::check_server_name(name).map_err(ApiError::Format)?;
        page(self.get(&["v0.1", "servers", name, "versions"], &[])?)
    }

    /// `GET /v0.1/servers/{name}/versions/{version}` (`latest` for the latest).
    pub fn version(&self, name: &str, version: &str) -> Result<Entry, ApiError> {
        crate::check::check_server_name(name).map_err(ApiError::Format)?;
        let answer = self.get(&["v0.1", "servers", name, "versions", version], &[])?;
        let entry = entry_from_answer(&answer).map_err(ApiError::Format)?;
        if entry.name != name {
            return Err(ApiError::Format(format!(
                "asked for `{name}`, the answer is another server"
            )));
        }
        Ok(entry)
    }
}

fn page(answer: Value) -> Result<Page, ApiError> {
    let list: ServerList = serde_json::from_value(answer)
        .map_err(|e| ApiError::Format(format!("not a list of servers: {e}")))?;
    let mut out = Page {
        next_cursor: list
            .metadata
            .and_then(|m| m.next_cursor)
            .filter(|c| !c.is_empty() && c.len() <= 1024),
        ..Page::default()
    };
    for (i, v) in list.servers.iter().enumerate() {
        match entry_from_answer(v) {
            Ok(e) => out.entries.push(e),
            Err(why) => out.problems.push(format!("entry {}: {why}", i + 1)),
        }
    }
    Ok(out)
}
