//! Reading the history back: filtered pages (newest first) with the total, the JSON export,
//! and clearing.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Row, params_from_iter};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{HistoryError, HistoryStore, Result, now_ms};

/// Identifies an export file's content; bumped with [`EXPORT_VERSION`] if fields change.
pub const EXPORT_FORMAT: &str = "porthole-consent-history";
const EXPORT_VERSION: u32 = 1;
const DEFAULT_LIMIT: u32 = 100;
const MAX_LIMIT: u32 = 1000;

/// What to list. Every field is optional; text matches are case-insensitive (ASCII).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct HistoryFilter {
    pub agent_id: Option<String>,
    /// `form`, `url` or `permission`.
    #[cfg_attr(feature = "ts", ts(optional, type = "\"form\" | \"url\" | \"permission\""))]
    pub kind: Option<String>,
    /// Substring of the entry's domain.
    pub domain: Option<String>,
    /// Substring of the message, URL, tool title or detail.
    pub text: Option<String>,
    /// Inclusive bounds, ms since the epoch.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// Page size (default 100, at most 1000).
    pub limit: Option<u32>,
    pub offset: Option<u32>,
    /// Only entries older than this id (stable paging while new entries arrive).
    pub before_id: Option<i64>,
}

/// One page and how many entries match the filter in all.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HistoryPage {
    pub entries: Vec<HistoryEntry>,
    pub total: u64,
}

/// One recorded decision, as the UI and the export see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HistoryEntry {
    pub id: i64,
    /// ms since the epoch.
    pub time: i64,
    pub agent_id: String,
    pub agent_name: String,
    pub session_id: Option<String>,
    pub tool_call_id: Option<String>,
    /// `form`, `url` or `permission`.
    #[cfg_attr(feature = "ts", ts(type = "\"form\" | \"url\" | \"permission\""))]
    pub kind: String,
    /// The elicitation's message; for permissions, the tool call's title.
    pub message: String,
    pub url: Option<String>,
    pub domain: Option<String>,
    pub warnings: Vec<String>,
    /// Elicitations: `accept`, `decline`, `cancel`, `dismissed`. Permissions: `selected`,
    /// `cancel`, `dismissed`, `auto`.
    pub action: String,
    /// The chosen option's name (permissions), or the dismissal reason (`agent_exited`, ...).
    pub detail: Option<String>,
    /// Submitted form values without secret fields, when the user chose to keep them.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown> | null"))]
    pub values: Option<Value>,
    /// Permissions only.
    pub permission: Option<PermissionDetail>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PermissionDetail {
    pub tool_title: Option<String>,
    pub tool_kind: Option<String>,
    pub option_id: Option<String>,
    pub option_name: Option<String>,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always`.
    #[cfg_attr(feature = "ts", ts(type = "PermissionOptionKind | null"))]
    pub option_kind: Option<String>,
}

const COLUMNS: &str = "id, time_ms, agent_id, agent_name, session_id, tool_call_id, kind, message, url, \
     domain, warnings, action, detail, form_values, tool_title, tool_kind, option_id, option_name, option_kind";

fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<HistoryEntry> {
    let warnings: String = row.get("warnings")?;
    let values: Option<String> = row.get("form_values")?;
    let kind: String = row.get("kind")?;
    let permission = if kind == "permission" {
        Some(PermissionDetail {
            tool_title: row.get("tool_title")?,
            tool_kind: row.get("tool_kind")?,
            option_id: row.get("option_id")?,
            option_name: row.get("option_name")?,
            option_kind: row.get("option_kind")?,
        })
    } else {
        None
    };
    Ok(HistoryEntry {
        id: row.get("id")?,
        time: row.get("time_ms")?,
        agent_id: row.get("agent_id")?,
        agent_name: row.get("agent_name")?,
        session_id: row.get("session_id")?,
        tool_call_id: row.get("tool_call_id")?,
        kind,
        message: row.get("message")?,
        url: row.get("url")?,
        domain: row.get("domain")?,
        warnings: serde_json::from_str(&warnings).unwrap_or_default(),
        action: row.get("action")?,
        detail: row.get("detail")?,
        values: values.and_then(|v| serde_json::from_str(&v).ok()),
        permission,
    })
}

/// `%text%` for `LIKE ... ESCAPE '\'`, with the user's own `%`, `_` and `\` taken literally.
fn contains_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// The WHERE clause (without paging) and its parameters.
fn where_clause(filter: &HistoryFilter) -> Result<(String, Vec<SqlValue>)> {
    let mut conds: Vec<String> = Vec::new();
    let mut args: Vec<SqlValue> = Vec::new();
    if let Some(agent_id) = &filter.agent_id {
        conds.push("agent_id = ?".into());
        args.push(SqlValue::Text(agent_id.clone()));
    }
    if let Some(kind) = &filter.kind {
        if !matches!(kind.as_str(), "form" | "url" | "permission") {
            return Err(HistoryError::Invalid(format!(
                "kind must be \"form\", \"url\" or \"permission\", not {kind:?}"
            )));
        }
        conds.push("kind = ?".into());
        args.push(SqlValue::Text(kind.clone()));
    }
    if let Some(domain) = filter.domain.as_deref().filter(|d| !d.is_empty()) {
        conds.push("domain LIKE ? ESCAPE '\\'".into());
        args.push(SqlValue::Text(contains_pattern(domain)));
    }
    if let Some(text) = filter.text.as_deref().filter(|t| !t.is_empty()) {
        conds.push(
            "(message LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\' OR tool_title LIKE ? ESCAPE '\\' \
             OR detail LIKE ? ESCAPE '\\')"
                .into(),
        );
        let pattern = contains_pattern(text);
        args.extend(std::iter::repeat_n(SqlValue::Text(pattern), 4));
    }
    if let Some(since) = filter.since {
        conds.push("time_ms >= ?".into());
        args.push(SqlValue::Integer(since));
    }
    if let Some(until) = filter.until {
        conds.push("time_ms <= ?".into());
        args.push(SqlValue::Integer(until));
    }
    let sql = if conds.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conds.join(" AND "))
    };
    Ok((sql, args))
}

impl HistoryStore {
    /// One page of matching entries, newest first, and the number of matches in all
    /// (`before_id` and `offset` narrow the page, not the total).
    pub fn list(&self, filter: &HistoryFilter) -> Result<HistoryPage> {
        let (where_sql, args) = where_clause(filter)?;
        let conn = self.conn();
        let total: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM entries{where_sql}"),
            params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        let mut page_args = args;
        let mut sql = format!("SELECT {COLUMNS} FROM entries{where_sql}");
        if let Some(before) = filter.before_id {
            sql.push_str(if where_sql.is_empty() { " WHERE" } else { " AND" });
            sql.push_str(" id < ?");
            page_args.push(SqlValue::Integer(before));
        }
        sql.push_str(" ORDER BY id DESC LIMIT ? OFFSET ?");
        let limit = filter.limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
        page_args.push(SqlValue::Integer(limit.into()));
        page_args.push(SqlValue::Integer(filter.offset.unwrap_or(0).into()));
        let mut stmt = conn.prepare(&sql)?;
        let entries = stmt
            .query_map(params_from_iter(page_args.iter()), entry_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(HistoryPage {
            entries,
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    /// Everything, oldest first, with the trusted domains:
    /// `{ format, version, exportedAt, entries: HistoryEntry[], domainMarks: DomainMark[] }`.
    pub fn export_json(&self) -> Result<Value> {
        let entries = {
            let conn = self.conn();
            let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM entries ORDER BY id"))?;
            stmt.query_map([], entry_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?
        };
        Ok(json!({
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "exportedAt": now_ms(),
            "entries": entries,
            "domainMarks": self.domain_marks()?,
        }))
    }

    /// Write the export to a new file `porthole-history-<YYYYmmdd-HHMMSS>.json` in `dir`
    /// (never overwriting one); returns its path and the number of entries.
    pub fn export_to_dir(&self, dir: &std::path::Path) -> Result<(std::path::PathBuf, usize)> {
        use std::io::Write;
        let export = self.export_json()?;
        let count = export["entries"].as_array().map_or(0, Vec::len);
        let text = serde_json::to_string_pretty(&export).map_err(|e| HistoryError::Invalid(e.to_string()))?;
        std::fs::create_dir_all(dir)?;
        let stamp = super::file_stamp(now_ms());
        for n in 1u32.. {
            let name = if n == 1 {
                format!("porthole-history-{stamp}.json")
            } else {
                format!("porthole-history-{stamp}-{n}.json")
            };
            let path = dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    file.write_all(text.as_bytes())?;
                    file.sync_all()?;
                    return Ok((path, count));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(HistoryError::Invalid("no free export file name".into()))
    }

    /// Delete every entry (trusted-domain marks stay: they are settings, removed one by one).
    /// Returns how many entries were removed.
    pub fn clear(&self) -> Result<usize> {
        Ok(self.conn().execute("DELETE FROM entries", [])?)
    }
}
