//! Taking back an entry that was written ahead of an answer the agent then never got.
//!
//! The app records a decision before it sends it (so a crash can never leave the agent with an
//! answer the history lacks); when sending is refused (the dialog went away meanwhile, or the
//! form did not validate) the entry is retracted.

use rusqlite::params;

use super::{HistoryStore, Result};

impl HistoryStore {
    /// Remove entry `id`; true if it existed.
    pub fn retract(&self, id: i64) -> Result<bool> {
        let n = self
            .conn()
            .execute("DELETE FROM entries WHERE id = ?1", params![id])?;
        Ok(n == 1)
    }
}
