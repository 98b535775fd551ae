//! Schema versions, kept in `PRAGMA user_version`. Migration `i` (0-based) takes a file from
//! version `i` to `i + 1`; version 2 is one more string appended to [`MIGRATIONS`].

use rusqlite::{Connection, TransactionBehavior};

use super::{HistoryError, Result};

const V1: &str = "
CREATE TABLE entries (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms      INTEGER NOT NULL,
    agent_id     TEXT NOT NULL,
    agent_name   TEXT NOT NULL,
    session_id   TEXT,
    tool_call_id TEXT,
    kind         TEXT NOT NULL CHECK (kind IN ('form', 'url', 'permission')),
    message      TEXT NOT NULL DEFAULT '',
    url          TEXT,
    domain       TEXT,
    warnings     TEXT NOT NULL DEFAULT '[]',
    action       TEXT NOT NULL,
    detail       TEXT,
    form_values  TEXT,
    tool_title   TEXT,
    tool_kind    TEXT,
    option_id    TEXT,
    option_name  TEXT,
    option_kind  TEXT
);
CREATE INDEX entries_by_domain ON entries (agent_id, domain, kind, action);
CREATE INDEX entries_by_time ON entries (time_ms);
CREATE TABLE domain_trust (
    agent_id   TEXT NOT NULL,
    domain     TEXT NOT NULL,
    agent_name TEXT NOT NULL,
    since_ms   INTEGER NOT NULL,
    PRIMARY KEY (agent_id, domain)
);
";

/// Every schema change, oldest first. Never edit a released entry: append a new one.
pub(super) const MIGRATIONS: &[&str] = &[V1];

/// Bring the file up to `migrations.len()`. The immediate transaction makes a second
/// instance opening the same file at the same moment wait, then find nothing left to do.
pub(super) fn migrate(conn: &mut Connection, migrations: &[&str]) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = i64::try_from(migrations.len()).unwrap_or(i64::MAX);
    if found > known {
        return Err(HistoryError::Newer { found, known });
    }
    if found < 0 {
        return Err(HistoryError::Invalid(format!(
            "the history file has an unknown schema version {found}"
        )));
    }
    for (version, sql) in (1..).zip(migrations).skip(usize::try_from(found).unwrap_or(0)) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", version)?;
    }
    tx.commit()?;
    Ok(())
}
