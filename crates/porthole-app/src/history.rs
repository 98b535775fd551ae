//! The consent history in the app: where the file lives, recording answers and dismissals,
//! the domain memory shown in URL dialogs, and the history commands. SQLite is only touched
//! with the state mutex released; a failed write is logged, never shown as a failed answer.

use std::path::PathBuf;

use porthole_core::events::{
    Action, DialogAnswer, DialogPrompt, DismissReason, ElicitationKind, ElicitationPrompt, Event,
};
use porthole_history::{
    DomainMark, DomainMemory, ElicitationOutcome, HistoryFilter, HistoryPage, HistoryStore, NewEntry,
    PermissionOutcome, domain_of,
};

use super::proxied::history_agent_id;
use super::results::HistoryExport;
use super::{AnswerError, Backend, Pending};

/// Overrides the history file's location (tests, portable setups).
const PATH_ENV: &str = "PORTHOLE_HISTORY_FILE";

/// `$PORTHOLE_HISTORY_FILE`, else `<data dir>/porthole/history.sqlite3` (the data dir follows
/// `XDG_DATA_HOME` on Linux).
fn default_path() -> Option<PathBuf> {
    match std::env::var_os(PATH_ENV).filter(|v| !v.is_empty()) {
        Some(path) => Some(PathBuf::from(path)),
        None => dirs::data_dir().map(|d| d.join("porthole").join("history.sqlite3")),
    }
}

/// The store, or none with the reason; a notice (damaged file replaced) comes with a store.
/// Either message goes to the snapshot's `historyError`.
pub(super) fn open() -> (Option<HistoryStore>, Option<String>) {
    let Some(path) = default_path() else {
        tracing::warn!("no data directory: the consent history is off");
        let problem = porthole_core::logging::with_log_hint("no data directory: the consent history is off");
        return (None, Some(problem));
    };
    match HistoryStore::open(&path) {
        Ok(opened) => {
            if let Some(notice) = &opened.notice {
                tracing::warn!("{notice}");
            }
            (Some(opened.store), opened.notice)
        }
        Err(e) => {
            tracing::warn!("history at {}: {e}", path.display());
            (
                None,
                Some(porthole_core::logging::with_log_hint(format!(
                    "The consent history is off: {e} ({})",
                    path.display()
                ))),
            )
        }
    }
}

fn history_error(e: porthole_history::HistoryError) -> AnswerError {
    AnswerError::msg(e.to_string())
}

impl Backend {
    fn history(&self) -> Result<&HistoryStore, AnswerError> {
        self.0.history.as_ref().ok_or_else(|| {
            AnswerError::msg(
                self.0
                    .history_problem
                    .clone()
                    .unwrap_or_else(|| "the consent history is off".into()),
            )
        })
    }

    /// The new entry's id, if it was written.
    fn record(&self, entry: &NewEntry) -> Option<i64> {
        let store = self.0.history.as_ref()?;
        match store.record(entry) {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!("history: cannot record a decision: {e}");
                None
            }
        }
    }

    /// See `Inner::decisions`. Taken before the state lock, never while holding it.
    pub(super) fn decisions(&self) -> std::sync::MutexGuard<'_, ()> {
        self.0.decisions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Take back an answer recorded ahead of sending it, when sending was refused.
    pub(super) fn retract(&self, entry: Option<i64>) {
        if let (Some(store), Some(id)) = (&self.0.history, entry)
            && let Err(e) = store.retract(id)
        {
            tracing::warn!("history: cannot retract entry {id}: {e}");
        }
    }

    /// The user answered a dialog: what the history keeps of it, written before the answer is
    /// sent. Form values are kept only when the setting is on (core drops secret fields either
    /// way). Returns the entry to retract if sending is refused. The history lists the
    /// consents its schema names (forms, URLs, permissions); any other kind of dialog (file
    /// access, a new kind) is not kept, and neither is an answer of another kind than its
    /// dialog's (core refuses it).
    pub(super) fn record_answer(&self, pending: &Pending, answer: &DialogAnswer) -> Option<i64> {
        let agent_id = history_agent_id(&pending.agent_id);
        match (&pending.prompt, answer) {
            (DialogPrompt::Elicitation(prompt), DialogAnswer::Elicitation { action, content }) => {
                let outcome = match action {
                    Action::Accept => ElicitationOutcome::Accept,
                    Action::Decline => ElicitationOutcome::Decline,
                    Action::Cancel => ElicitationOutcome::Cancel,
                };
                let values = match action {
                    Action::Accept => content.as_ref().filter(|_| self.settings().store_form_values),
                    _ => None,
                };
                self.record(&NewEntry::elicitation(agent_id, prompt, &outcome, values))
            }
            (DialogPrompt::Permission(prompt), DialogAnswer::Permission { option_id }) => {
                let chosen = option_id
                    .as_deref()
                    .and_then(|id| prompt.options.iter().find(|o| *o.option_id.0 == *id));
                let outcome = match chosen {
                    Some(option) => PermissionOutcome::Selected(option),
                    None => PermissionOutcome::Cancelled,
                };
                self.record(&NewEntry::permission(agent_id, prompt, outcome))
            }
            _ => None,
        }
    }

    /// A dialog went away without the user: kept for the kinds `record_answer` keeps.
    pub(super) fn record_dismissal(&self, pending: &Pending, reason: &DismissReason) {
        let agent_id = history_agent_id(&pending.agent_id);
        let entry = match &pending.prompt {
            DialogPrompt::Elicitation(prompt) => {
                NewEntry::elicitation(agent_id, prompt, &ElicitationOutcome::Dismissed(*reason), None)
            }
            DialogPrompt::Permission(prompt) => {
                NewEntry::permission(agent_id, prompt, PermissionOutcome::Dismissed(reason))
            }
            _ => return,
        };
        self.record(&entry);
    }

    /// A remembered "always" decision answered a permission request.
    pub(super) fn record_auto(&self, agent_id: &str, agent_name: &str, event: &Event) {
        if let Some(entry) = NewEntry::permission_auto(history_agent_id(agent_id), agent_name, event) {
            self.record(&entry);
        }
    }

    /// What the URL dialog shows of its domain: how often the user consented to it for this
    /// agent, and whether they trust it; `Some(None)` without a history, `None` for a form.
    pub(super) fn domain_memory(
        &self,
        agent_id: &str,
        prompt: &ElicitationPrompt,
    ) -> Option<Option<DomainMemory>> {
        let ElicitationKind::Url { url, .. } = &prompt.kind else {
            return None;
        };
        let (agent_id, agent_name) = porthole_history::asker(history_agent_id(agent_id), prompt);
        Some(self.0.history.as_ref().and_then(|store| {
            store
                .domain_memory(&agent_id, &agent_name, &domain_of(url))
                .map_err(|e| tracing::warn!("history: domain memory: {e}"))
                .ok()
        }))
    }

    /// `{ entries, total }`, newest first.
    /// A page of the consent history (the window's History view); no filter lists the newest.
    pub fn history_list(&self, filter: Option<HistoryFilter>) -> Result<HistoryPage, AnswerError> {
        self.history()?
            .list(&filter.unwrap_or_default())
            .map_err(history_error)
    }

    /// Write the export to the download dir (else the data dir): `{ path, count }`.
    pub fn history_export(&self) -> Result<HistoryExport, AnswerError> {
        let store = self.history()?;
        let dir = dirs::download_dir()
            .or_else(|| dirs::data_dir().map(|d| d.join("porthole")))
            .ok_or_else(|| AnswerError::msg("no download or data directory to export to"))?;
        let (path, count) = store.export_to_dir(&dir).map_err(history_error)?;
        Ok(HistoryExport {
            path: path.display().to_string(),
            count,
        })
    }

    /// Remove every entry; returns how many. Trusted domains stay.
    pub fn history_clear(&self) -> Result<usize, AnswerError> {
        self.history()?.clear().map_err(history_error)
    }

    pub fn domain_marks(&self) -> Result<Vec<DomainMark>, AnswerError> {
        self.history()?.domain_marks().map_err(history_error)
    }

    pub fn set_domain_trust(
        &self,
        agent_id: &str,
        agent_name: &str,
        domain: &str,
        trusted: bool,
    ) -> Result<(), AnswerError> {
        if agent_id.is_empty() || domain.is_empty() {
            return Err(AnswerError::msg("agentId and domain must not be empty"));
        }
        self.history()?
            .set_trusted(agent_id, agent_name, domain, trusted)
            .map_err(history_error)
    }
}
