//! Reading the registry (a URL or a file) with a cached last good copy, and downloading
//! archives with a size cap, a SHA-256 and progress.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use porthole_http::blocking::{Get, GetError, Limits, Next};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::cancel::Cancel;
use super::{Registry, RegistryError, format};

/// How often a download waiting for bytes looks whether it was cancelled.
const CANCEL_CHECK: Duration = Duration::from_millis(100);

/// A registry is a few hundred KiB; anything far larger is not one.
const MAX_REGISTRY_BYTES: u64 = 16 << 20;

/// What [`load_registry`] read.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    pub registry: Registry,
    /// Where it was asked for.
    pub source: String,
    /// Set when the source could not be read and the cached copy was used: why, and how old
    /// the copy is, in words for the user.
    pub offline: Option<String>,
}

/// Read the registry from `source` (an http(s) or file:// URL, or a path). A good copy is
/// cached in `cache_dir`; when the source cannot be read or is not a registry, the cached copy
/// is used and [`Fetched::offline`] says so.
pub fn load_registry(source: &str, cache_dir: Option<&Path>) -> Result<Fetched, RegistryError> {
    let cache = cache_dir.map(|dir| cache_file(dir, source));
    let fresh = read_source(source).and_then(|bytes| Ok((format::parse(&bytes)?, bytes)));
    match fresh {
        Ok((registry, bytes)) => {
            if let Some(cache) = &cache
                && let Err(e) = write_atomically(cache, &bytes)
            {
                // The registry itself is fine; only offline use later suffers.
                tracing::warn!("cannot cache the registry at {}: {e}", cache.display());
            }
            Ok(Fetched {
                registry,
                source: source.to_string(),
                offline: None,
            })
        }
        Err(error) => {
            let Some(cache) = cache.filter(|c| c.is_file()) else {
                return Err(error);
            };
            let bytes = std::fs::read(&cache).map_err(RegistryError::io(format!(
                "cannot read the cached registry {}",
                cache.display()
            )))?;
            let registry = format::parse(&bytes)?;
            let age = std::fs::metadata(&cache)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .map(describe_age)
                .unwrap_or_else(|| "at an unknown time".into());
            Ok(Fetched {
                registry,
                source: source.to_string(),
                offline: Some(format!("{error}; using the copy cached {age}")),
            })
        }
    }
}

/// One cache file per registry source, so switching registries never mixes their lists.
fn cache_file(dir: &Path, source: &str) -> PathBuf {
    let digest = Sha256::digest(source.as_bytes());
    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("registry-{short}.json"))
}

fn describe_age(age: Duration) -> String {
    let minutes = age.as_secs() / 60;
    match minutes {
        0 => "less than a minute ago".into(),
        1..=119 => format!("{minutes} minutes ago"),
        120..=2879 => format!("{} hours ago", minutes / 60),
        _ => format!("{} days ago", minutes / 1440),
    }
}

fn read_source(source: &str) -> Result<Vec<u8>, RegistryError> {
    if is_http(source) {
        let mut bytes = Vec::new();
        download(
            source,
            &mut bytes,
            MAX_REGISTRY_BYTES,
            &Timeouts::registry(),
            &mut |_, _| {},
            &Cancel::default(),
        )?;
        return Ok(bytes);
    }
    let path = source.strip_prefix("file://").unwrap_or(source);
    let file = std::fs::File::open(path).map_err(|e| RegistryError::Fetch {
        from: source.to_string(),
        error: e.to_string(),
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_REGISTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| RegistryError::Fetch {
            from: source.to_string(),
            error: e.to_string(),
        })?;
    if bytes.len() as u64 > MAX_REGISTRY_BYTES {
        return Err(RegistryError::Format(format!(
            "{source} is larger than {MAX_REGISTRY_BYTES} bytes"
        )));
    }
    Ok(bytes)
}

pub(crate) fn is_http(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// How long a download may take to connect, to answer, and in all; how long it may go without
/// a byte (`idle`), and how slow it may be (`min_rate`).
#[derive(Debug, Clone)]
pub struct Timeouts {
    pub connect: Duration,
    pub response: Duration,
    pub total: Duration,
    /// No byte for this long ends the download (a server that sends its headers, then nothing).
    pub idle: Duration,
    /// Fewer bytes than this per second, over each `rate_window`, end it (a server that drips a
    /// byte every few seconds, never idle for long).
    pub min_rate: u64,
    pub rate_window: Duration,
}

impl Timeouts {
    /// A registry document's: 10 s to connect, 20 s to answer, 60 s in all, 20 s without a byte,
    /// at least 1 KiB/s.
    pub fn registry() -> Self {
        Self {
            connect: Duration::from_secs(10),
            response: Duration::from_secs(20),
            total: Duration::from_secs(60),
            idle: Duration::from_secs(20),
            min_rate: 1024,
            rate_window: Duration::from_secs(20),
        }
    }
}

/// GET `url` into `out`, refusing more than `max_bytes` (whatever Content-Length claims) and
/// more than Content-Length says, ending a download that stalls or crawls (`timeouts`) or is
/// cancelled, and calling `progress(done, total)` as bytes arrive (`done <= total` always).
/// Returns the size and the SHA-256.
pub(crate) fn download(
    url: &str,
    out: &mut dyn Write,
    max_bytes: u64,
    timeouts: &Timeouts,
    progress: &mut dyn FnMut(u64, Option<u64>),
    cancel: &Cancel,
) -> Result<(u64, [u8; 32]), RegistryError> {
    download_as(url, None, out, max_bytes, timeouts, progress, cancel)
}

/// GET `url` as a registry document is read (the same caps: at most `max_bytes`, whatever
/// Content-Length claims; 10 s to connect, 20 s to answer, 60 s in all, 20 s without a byte,
/// at least 1 KiB/s), with `Authorization: Bearer TOKEN` when a token is given. For other
/// registries with the same rules (the MCP Registry, `porthole-mcp-registry`). The error never
/// holds the token.
pub fn get_capped(url: &str, bearer: Option<&str>, max_bytes: u64) -> Result<Vec<u8>, RegistryError> {
    let mut bytes = Vec::new();
    download_as(
        url,
        bearer,
        &mut bytes,
        max_bytes,
        &Timeouts::registry(),
        &mut |_, _| {},
        &Cancel::default(),
    )?;
    Ok(bytes)
}

/// GET `url` into `out` with the caps of [`get_capped`] but the given time limits (a file far
/// larger than a registry answer: an MCP bundle), streamed, never held in memory. Returns the
/// size and the SHA-256 of what was written.
pub fn download_capped(
    url: &str,
    out: &mut dyn Write,
    max_bytes: u64,
    timeouts: &Timeouts,
) -> Result<(u64, [u8; 32]), RegistryError> {
    download_as(
        url,
        None,
        out,
        max_bytes,
        timeouts,
        &mut |_, _| {},
        &Cancel::default(),
    )
}

#[allow(clippy::too_many_arguments)]
fn download_as(
    url: &str,
    bearer: Option<&str>,
    out: &mut dyn Write,
    max_bytes: u64,
    timeouts: &Timeouts,
    progress: &mut dyn FnMut(u64, Option<u64>),
    cancel: &Cancel,
) -> Result<(u64, [u8; 32]), RegistryError> {
    let refused = |why: String| RegistryError::Download {
        url: url.to_string(),
        why,
    };
    let limits = Limits {
        connect: timeouts.connect,
        response: timeouts.response,
        total: timeouts.total,
        idle: timeouts.idle,
    };
    let failed = |e: GetError| match e {
        GetError::Idle(_) => refused(e.to_string()),
        other => RegistryError::Fetch {
            from: url.to_string(),
            error: other.to_string(),
        },
    };
    let get = Get::start(url, bearer, &limits).map_err(failed)?;
    let total = get.declared_length;
    if let Some(total) = total
        && total > max_bytes
    {
        return Err(refused(format!(
            "it is {total} bytes, more than the limit of {max_bytes}"
        )));
    }
    let mut hasher = Sha256::new();
    let mut done = 0u64;
    progress(0, total);
    let mut window_start = std::time::Instant::now();
    let mut window_bytes = 0u64;
    loop {
        if cancel.is_cancelled() {
            return Err(RegistryError::Cancelled);
        }
        // A short wait, so that a cancel is seen at once; the reader keeps the idle limit.
        let next = get.next(CANCEL_CHECK);
        // Cancelled while the read waited: that is the answer, whatever the read says.
        if cancel.is_cancelled() {
            return Err(RegistryError::Cancelled);
        }
        let chunk = match next.map_err(failed)? {
            Next::Chunk(chunk) => chunk,
            Next::End => break,
            Next::Waiting => continue,
        };
        let n = chunk.len();
        done += n as u64;
        // Content-Length may be absent or lie; the cap holds either way.
        if done > max_bytes {
            return Err(refused(format!("it is more than the limit of {max_bytes} bytes")));
        }
        // A body longer than it said (`Transfer-Encoding: chunked` with a smaller
        // Content-Length): not what the server announced, so not used.
        if let Some(total) = total
            && done > total
        {
            return Err(refused(format!(
                "it sent more than the {total} bytes its Content-Length says"
            )));
        }
        window_bytes += n as u64;
        let elapsed = window_start.elapsed();
        if elapsed >= timeouts.rate_window {
            let rate = window_bytes as f64 / elapsed.as_secs_f64();
            if rate < timeouts.min_rate as f64 {
                return Err(refused(format!(
                    "it arrived at {rate:.0} bytes/s, slower than the minimum of {} bytes/s",
                    timeouts.min_rate
                )));
            }
            window_start = std::time::Instant::now();
            window_bytes = 0;
        }
        hasher.update(&chunk);
        out.write_all(&chunk)
            .map_err(RegistryError::io("cannot write the download"))?;
        progress(done, total);
    }
    if let Some(total) = total
        && done != total
    {
        return Err(refused(format!("it ended after {done} of {total} bytes")));
    }
    Ok((done, hasher.finalize().into()))
}

/// Write `bytes` to `path` so a reader sees the old file or the new one, never half of one.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_naturally() {
        assert_eq!(describe_age(Duration::from_secs(30)), "less than a minute ago");
        assert_eq!(describe_age(Duration::from_secs(600)), "10 minutes ago");
        assert_eq!(describe_age(Duration::from_secs(5 * 3600)), "5 hours ago");
        assert_eq!(describe_age(Duration::from_secs(3 * 86400)), "3 days ago");
    }

    #[test]
    fn each_source_has_its_own_cache_file() {
        let dir = Path::new("/c");
        assert_ne!(
            cache_file(dir, "https://a/r.json"),
            cache_file(dir, "https://b/r.json")
        );
        assert!(is_http("HTTPS://x") && is_http("http://x") && !is_http("/tmp/r.json"));
    }
}
