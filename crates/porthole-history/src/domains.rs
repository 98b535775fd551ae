//! Per-agent memory of URL domains: how many times the user consented to open a URL of a
//! domain for an agent (counted from the history's accepted URL entries), and the domains
//! the user marked trusted. Trust only changes the URL dialog's first-time notice; consent
//! is still asked every time.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::{HistoryStore, Result, now_ms};

/// What the URL dialog shows about a domain for this agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DomainMemory {
    pub agent_id: String,
    pub agent_name: String,
    pub domain: String,
    /// Accepted URL elicitations of this agent for this domain so far.
    pub times_opened: u64,
    pub trusted: bool,
}

/// A domain the user opened for an agent or marked trusted, for the settings list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DomainMark {
    pub agent_id: String,
    pub agent_name: String,
    pub domain: String,
    pub trusted: bool,
    pub times_opened: u64,
    /// ms since the epoch of the last consent, if any.
    pub last_opened: Option<i64>,
}

impl HistoryStore {
    pub fn domain_memory(&self, agent_id: &str, agent_name: &str, domain: &str) -> Result<DomainMemory> {
        let conn = self.conn();
        let times: i64 = conn.query_row(
            "SELECT COUNT(*) FROM entries
             WHERE agent_id = ?1 AND domain = ?2 AND kind = 'url' AND action = 'accept'",
            params![agent_id, domain],
            |r| r.get(0),
        )?;
        let trusted = conn
            .query_row(
                "SELECT 1 FROM domain_trust WHERE agent_id = ?1 AND domain = ?2",
                params![agent_id, domain],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        Ok(DomainMemory {
            agent_id: agent_id.to_string(),
            agent_name: agent_name.to_string(),
            domain: domain.to_string(),
            times_opened: u64::try_from(times).unwrap_or(0),
            trusted,
        })
    }

    /// Mark (or unmark) a domain trusted for an agent.
    pub fn set_trusted(&self, agent_id: &str, agent_name: &str, domain: &str, trusted: bool) -> Result<()> {
        let conn = self.conn();
        if trusted {
            conn.execute(
                "INSERT INTO domain_trust (agent_id, domain, agent_name, since_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (agent_id, domain) DO UPDATE SET agent_name = excluded.agent_name",
                params![agent_id, domain, agent_name, now_ms()],
            )?;
        } else {
            conn.execute(
                "DELETE FROM domain_trust WHERE agent_id = ?1 AND domain = ?2",
                params![agent_id, domain],
            )?;
        }
        Ok(())
    }

    /// Every (agent, domain) the user consented to or trusts, ordered by agent id and domain.
    pub fn domain_marks(&self) -> Result<Vec<DomainMark>> {
        let conn = self.conn();
        let mut marks: BTreeMap<(String, String), DomainMark> = BTreeMap::new();
        // SQLite takes the bare agent_name from the row holding MAX(time_ms): the newest name.
        let mut opened = conn.prepare(
            "SELECT agent_id, domain, agent_name, COUNT(*), MAX(time_ms) FROM entries
             WHERE kind = 'url' AND action = 'accept' AND domain IS NOT NULL
             GROUP BY agent_id, domain",
        )?;
        let rows = opened.query_map([], |r| {
            Ok(DomainMark {
                agent_id: r.get(0)?,
                domain: r.get(1)?,
                agent_name: r.get(2)?,
                times_opened: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                last_opened: r.get(4)?,
                trusted: false,
            })
        })?;
        for mark in rows {
            let mark = mark?;
            marks.insert((mark.agent_id.clone(), mark.domain.clone()), mark);
        }
        let mut trusted = conn.prepare("SELECT agent_id, domain, agent_name FROM domain_trust")?;
        let rows = trusted.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?))
        })?;
        for row in rows {
            let (agent_id, domain, agent_name) = row?;
            marks
                .entry((agent_id.clone(), domain.clone()))
                .or_insert_with(|| DomainMark {
                    agent_id,
                    agent_name,
                    domain,
                    trusted: false,
                    times_opened: 0,
                    last_opened: None,
                })
                .trusted = true;
        }
        Ok(marks.into_values().collect())
    }
}
