//! The consent history (kept out of `porthole-core`: the connection never needs it): every elicitation outcome and permission decision, kept in SQLite so
//! the user can look back at what they agreed to, per agent. Also the per-agent memory of
//! URL domains (how often the user consented to one, and whether they marked it trusted).
//!
//! One file, shared safely by several app instances: WAL journal and a busy timeout.
//! A damaged file is moved aside and a fresh history started; a file from a newer Porthole is
//! left alone (history is then off). Nothing here panics on bad files.
//!
//! ```text
//! let opened = HistoryStore::open(&path)?;          // opened.notice: tell the user
//! store.record(&NewEntry::elicitation(agent_id, &prompt, &outcome, values))?;
//! store.list(&filter)? / export_json()? / clear()?
//! store.domain_memory(agent_id, name, domain)?     // for the URL dialog's first-time notice
//! ```

mod domains;
mod query;
mod record;
mod retract;
mod schema;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode};

pub use domains::{DomainMark, DomainMemory};
pub use query::{EXPORT_FORMAT, HistoryEntry, HistoryFilter, HistoryPage, PermissionDetail};
pub use record::{ElicitationOutcome, NewEntry, PermissionOutcome, asker};

/// How long a write waits for another instance's write to finish before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("history database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "the history file was written by a newer Porthole (schema version {found}, this one knows up to {known}); history is off"
    )]
    Newer { found: i64, known: i64 },
    #[error("history file: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T> = std::result::Result<T, HistoryError>;

/// The consent history database. Cheap to share (`Arc`); calls are serialized per instance.
pub struct HistoryStore {
    conn: Mutex<Connection>,
    path: PathBuf,
}

/// A store that opened, and what to tell the user about it (a damaged file moved aside).
pub struct Opened {
    pub store: HistoryStore,
    pub notice: Option<String>,
}

impl HistoryStore {
    /// Open (creating it and its directory if needed) and migrate the history at `path`.
    /// A file SQLite reports as damaged is renamed to `<name>.corrupt-<timestamp>` and a new
    /// one created; the returned notice says so.
    pub fn open(path: &Path) -> Result<Opened> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        match Self::open_at(path) {
            Ok(store) => Ok(Opened { store, notice: None }),
            Err(HistoryError::Sqlite(e)) if is_damage(&e) => {
                let aside = move_aside(path)?;
                let store = Self::open_at(path)?;
                let notice = format!(
                    "The consent history could not be read ({e}). The damaged file was moved to {} and a new, empty history was started.",
                    aside.display()
                );
                Ok(Opened {
                    store,
                    notice: Some(notice),
                })
            }
            Err(e) => Err(e),
        }
    }

    fn open_at(path: &Path) -> Result<Self> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL lets a second app instance read while one writes, and keeps the file intact if
        // either dies mid-write.
        let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!("history: journal mode is {mode}, not WAL");
        }
        // FULL: a decision is on disk before its answer is sent (the app records first), so
        // even a power loss cannot leave the agent with an answer the history lacks. NORMAL
        // would only survive the app dying. One fsync per decision, at human pace.
        conn.pragma_update(None, "synchronous", "FULL")?;
        check_integrity(&conn)?;
        schema::migrate(&mut conn, schema::MIGRATIONS)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Damage that only shows when pages are read (a valid header over garbage) is found here,
/// at open, rather than in the middle of some later query.
fn check_integrity(conn: &Connection) -> Result<()> {
    let verdict: String = conn.query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(HistoryError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some(verdict),
        )))
    }
}

fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// Rename the damaged file (and its WAL and shared-memory files, which belong to it and
/// must not be replayed into the new database) to `<name>.corrupt-<timestamp>[-n]`.
fn move_aside(path: &Path) -> Result<PathBuf> {
    let stamp = file_stamp(now_ms());
    let mut n = 1;
    let aside = loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".corrupt-{stamp}"));
        if n > 1 {
            name.push(format!("-{n}"));
        }
        let candidate = PathBuf::from(name);
        if !candidate.exists() {
            break candidate;
        }
        n += 1;
    };
    std::fs::rename(path, &aside)?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let side = PathBuf::from(side);
        if side.exists() {
            let mut to = aside.as_os_str().to_owned();
            to.push(suffix);
            std::fs::rename(&side, PathBuf::from(to))?;
        }
    }
    Ok(aside)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `YYYYmmdd-HHMMSS` in UTC, for file names.
pub fn file_stamp(ms: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// The domain the history and the URL dialog's memory use for a URL: its registrable domain
/// (eTLD+1), else its host (IP addresses, `localhost`, single-label names).
pub fn domain_of(url: &porthole_core::url_safety::UrlAnalysis) -> String {
    url.registrable_domain
        .clone()
        .unwrap_or_else(|| url.host_ascii.clone())
}
