//! Answers to dialogs, consented URLs, and remembered permission decisions.

use porthole_core::Answer;
use porthole_core::events::ElicitationKind;
use porthole_core::form::Validation;
use serde_json::{Map, Value};

use super::{AcceptedUrl, AnswerError, Backend, Pending};
use crate::sealed::Opened;

impl Backend {
    pub fn validate_form(
        &self,
        dialog_id: u64,
        content: &Map<String, Value>,
    ) -> Result<Validation, AnswerError> {
        let client = self.client_of_dialog(dialog_id)?;
        Ok(client.validate_form(dialog_id, content)?)
    }

    pub fn answer_elicitation(
        &self,
        dialog_id: u64,
        action: &str,
        content: Option<Map<String, Value>>,
    ) -> Result<(), AnswerError> {
        self.0.metrics.answer_started(dialog_id);
        let client = self.client_of_dialog(dialog_id)?;
        let answer = match action {
            "accept" => Answer::Accept(content.unwrap_or_default()),
            "decline" => Answer::Decline,
            "cancel" => Answer::Cancel,
            other => return Err(AnswerError::msg(format!("unknown action `{other}`"))),
        };
        let _decision = self.decisions();
        let pending = self.state().pending.get(&dialog_id).cloned();
        let accepted_url = match &pending {
            Some(Pending::Elicitation(agent_id, p)) => match (&p.kind, &answer) {
                (ElicitationKind::Url { url, .. }, Answer::Accept(_)) => Some(AcceptedUrl {
                    url: url.full.clone(),
                    agent_name: p.agent.display_name(),
                    agent_id: agent_id.clone(),
                }),
                _ => None,
            },
            _ => None,
        };
        let values = match &answer {
            Answer::Accept(values) => Some(values.clone()),
            _ => None,
        };
        // Written ahead of the answer: a crash after this leaves at most a decision the agent
        // never got, never an answer the history lacks. Retracted if the answer is refused.
        let entry = pending
            .as_ref()
            .and_then(|p| self.record_elicitation_answer(p, action, values.as_ref()));
        if let Err(e) = client.respond_elicitation(dialog_id, answer) {
            self.retract(entry);
            return Err(e.into());
        }
        let answered = {
            let mut state = self.state();
            if let Some(url) = accepted_url {
                state.accepted_urls.insert(dialog_id, url);
            }
            state.pending.shift_remove(&dialog_id)
        };
        // The window renders the model's list of waiting dialogs: this one leaves it.
        if answered.is_some() {
            self.push_dialogs();
        }
        Ok(())
    }

    pub fn answer_permission(&self, dialog_id: u64, option_id: Option<String>) -> Result<(), AnswerError> {
        let client = self.client_of_dialog(dialog_id)?;
        let decision = self.decisions();
        let pending = self.state().pending.get(&dialog_id).cloned();
        // Written ahead of the answer, as for elicitations.
        let entry = pending
            .as_ref()
            .and_then(|p| self.record_permission_answer(p, option_id.as_deref()));
        if let Err(e) = client.respond_permission(dialog_id, option_id.clone()) {
            self.retract(entry);
            return Err(e.into());
        }
        let answered = self.state().pending.shift_remove(&dialog_id);
        drop(decision);
        if answered.is_some() {
            self.push_dialogs();
        }
        // An "always" choice becomes a visible, revocable rule.
        self.push_snapshot();
        Ok(())
    }

    pub fn answer_file_access(&self, dialog_id: u64, allow: bool) -> Result<(), AnswerError> {
        let client = self.client_of_dialog(dialog_id)?;
        client.respond_file_access(dialog_id, allow)?;
        let answered = self.state().pending.shift_remove(&dialog_id);
        if answered.is_some() {
            self.push_dialogs();
        }
        Ok(())
    }

    pub fn revoke_permission_rule(&self, rule_id: u64) -> Result<(), AnswerError> {
        let clients: Vec<_> = self
            .state()
            .conns
            .values()
            .filter_map(|c| c.client.clone())
            .collect();
        let revoked = clients.iter().any(|c| c.revoke_permission_rule(rule_id));
        self.push_snapshot();
        if revoked {
            Ok(())
        } else {
            Err(AnswerError::msg(format!("no remembered decision {rule_id}")))
        }
    }

    /// Open a URL the user already consented to. The URL comes from core, never from the UI.
    pub fn open_url(&self, dialog_id: u64, target: &str) -> Result<(), AnswerError> {
        let AcceptedUrl {
            url,
            agent_name: agent,
            ..
        } = self
            .state()
            .accepted_urls
            .get(&dialog_id)
            .cloned()
            .ok_or_else(|| AnswerError::msg("this URL was not consented to"))?;
        match target {
            "system" => self
                .0
                .shell
                .open_in_browser(&url)
                .map_err(|e| AnswerError::msg(format!("cannot open the system browser: {e}"))),
            "sealed" => match self.0.sealed.open(dialog_id, &url, &agent) {
                Ok(Opened::New) => Ok(()),
                Ok(Opened::AlreadyOpen) => {
                    tracing::info!(dialog_id, "sealed window already open");
                    Ok(())
                }
                Err(e) => Err(AnswerError::msg(e)),
            },
            other => Err(AnswerError::msg(format!("unknown target `{other}`"))),
        }
    }

    /// The user closed a URL dialog: its sealed window, if any, closes with it.
    pub fn close_url_view(&self, dialog_id: u64) {
        self.0.sealed.close(dialog_id);
        self.state().accepted_urls.remove(&dialog_id);
    }
}
