//! The registry kept on disk, one file per registry address: every server's latest entry and
//! the `updated_since` to ask with next time, so a view opens at once from the copy and a
//! refresh asks only for what changed (deleted entries included, which leave the copy).
//!
//! Search runs over the copy: the registry searches names only; here the title and the
//! description are searched too.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::{ApiError, Query, Registry};
use crate::entry::{Entry, Status};

/// A cache file larger than this is not read (the answers it was made of were capped too).
const MAX_CACHE_BYTES: u64 = 64 << 20;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cached {
    /// The registry address it is a copy of.
    pub base: String,
    /// Sent as `updated_since` on the next refresh: when the last refresh began.
    pub updated_since: Option<String>,
    /// Latest entry of each server, by name.
    pub servers: BTreeMap<String, Entry>,
    /// Entries the last refresh left out, and why.
    #[serde(default)]
    pub problems: Vec<String>,
}

impl Cached {
    /// Entries whose name, title or description holds every word of `text` (case-insensitive),
    /// names starting with the text first.
    pub fn search(&self, text: &str) -> Vec<&Entry> {
        let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
        let mut hits: Vec<&Entry> = self
            .servers
            .values()
            .filter(|e| {
                let hay = format!(
                    "{} {} {}",
                    e.name.to_lowercase(),
                    e.title.as_deref().unwrap_or_default().to_lowercase(),
                    e.description.to_lowercase()
                );
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect();
        let first = text.trim().to_lowercase();
        hits.sort_by_key(|e| (!e.name.to_lowercase().contains(&first), e.name.clone()));
        hits
    }
}

/// The cache file of registry `base` in `dir`.
pub fn cache_file(dir: &Path, base: &str) -> PathBuf {
    let digest = Sha256::digest(base.as_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("mcp-registry-{short}.json"))
}

/// The copy of `registry` in `dir`, if there is a readable one.
pub fn load(dir: &Path, base: &str) -> Option<Cached> {
    let path = cache_file(dir, base);
    let meta = std::fs::metadata(&path).ok()?;
    if meta.len() > MAX_CACHE_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let cached: Cached = serde_json::from_slice(&bytes).ok()?;
    (cached.base == base).then_some(cached)
}

/// Bring the copy up to date: everything (latest versions) the first time, then only what
/// changed since the last refresh. The copy on disk is replaced only after a whole refresh.
pub fn refresh(registry: &Registry, dir: Option<&Path>) -> Result<Cached, ApiError> {
    refresh_with(registry, dir, |_| {})
}

/// [`refresh`]; the first time (no copy on disk), the copy so far is shown to `partial` after
/// each page, so a view can list the first page while the rest is read. A partial copy has no
/// `updated_since` and is never written to disk.
pub fn refresh_with(
    registry: &Registry,
    dir: Option<&Path>,
    mut partial: impl FnMut(&Cached),
) -> Result<Cached, ApiError> {
    let base = registry.base().to_string();
    let started = rfc3339(SystemTime::now());
    let old = dir.and_then(|d| load(d, &base));
    let mut cached = match old {
        Some(old) if old.updated_since.is_some() => {
            let page = registry.list_all(&Query {
                updated_since: old.updated_since.clone(),
                ..Query::default()
            })?;
            let mut c = old;
            c.problems = page.problems;
            // In any order: an older version that changed replaces only itself (same version).
            for e in page.entries {
                if e.status == Status::Deleted {
                    c.servers.remove(&e.name);
                } else if e.is_latest {
                    c.servers.insert(e.name.clone(), e);
                } else if c
                    .servers
                    .get(&e.name)
                    .is_some_and(|have| have.version == e.version)
                {
                    // The version we list changed (deprecated, say) but is no longer the latest.
                    c.servers.insert(e.name.clone(), e);
                }
            }
            c
        }
        _ => {
            let mut so_far = Cached {
                base: base.clone(),
                ..Cached::default()
            };
            let page = registry.list_all_with(
                &Query {
                    latest: true,
                    ..Query::default()
                },
                |page| {
                    so_far.servers.extend(
                        (page.entries.iter())
                            .filter(|e| e.status != Status::Deleted)
                            .map(|e| (e.name.clone(), e.clone())),
                    );
                    so_far.problems.extend(page.problems.iter().cloned());
                    partial(&so_far);
                },
            )?;
            Cached {
                base: base.clone(),
                updated_since: None,
                servers: page
                    .entries
                    .into_iter()
                    .filter(|e| e.status != Status::Deleted)
                    .map(|e| (e.name.clone(), e))
                    .collect(),
                problems: page.problems,
            }
        }
    };
    cached.updated_since = Some(started);
    if let Some(dir) = dir
        && let Err(e) = save(dir, &cached)
    {
        tracing::warn!("cannot keep the MCP registry's copy in {}: {e}", dir.display());
    }
    Ok(cached)
}

fn save(dir: &Path, cached: &Cached) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&serde_json::to_vec(cached).map_err(std::io::Error::other)?)?;
    tmp.persist(cache_file(dir, &cached.base)).map_err(|e| e.error)?;
    Ok(())
}

/// `2026-12-06T06:54:05Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86400, secs % 86400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_764_979_200 + 3661);
        assert_eq!(rfc3339(t), "2025-12-06T01:01:01Z");
        let leap = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
