//! Answers to dialogs, consented URLs, and remembered permission decisions.

use porthole_core::events::{Action, DialogAnswer, DialogPrompt, ElicitationKind};
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

    /// Answer a waiting dialog of any kind, exactly once: the history gets the decision first
    /// (retracted if core refuses the answer), then the agent; the dialog leaves the list.
    pub fn answer_dialog(&self, dialog_id: u64, answer: DialogAnswer) -> Result<(), AnswerError> {
        if self.0.sign_ins.is_sign_in(dialog_id) {
            return self.answer_sign_in(dialog_id, answer);
        }
        if self.0.registry_links.is_link(dialog_id) {
            return self.answer_link(dialog_id, answer);
        }
        if let DialogAnswer::Elicitation { .. } = answer {
            self.0.metrics.answer_started(dialog_id);
        }
        let client = self.client_of_dialog(dialog_id)?;
        let decision = self.decisions();
        let pending = self.state().dialog(dialog_id).cloned();
        let accepted_url = match (&pending, &answer) {
            (
                Some(Pending {
                    agent_id,
                    prompt: DialogPrompt::Elicitation(p),
                    ..
                }),
                DialogAnswer::Elicitation {
                    action: Action::Accept,
                    ..
                },
            ) => match &p.kind {
                ElicitationKind::Url { url, .. } => Some(AcceptedUrl {
                    url: url.full.clone(),
                    agent_name: p.agent.display_name(),
                    agent_id: agent_id.clone(),
                }),
                ElicitationKind::Form { .. } => None,
            },
            _ => None,
        };
        // An "always" choice becomes a visible, revocable rule: the snapshot shows it.
        let rules_may_change = matches!(answer, DialogAnswer::Permission { .. });
        // Written ahead of the answer: a crash after this leaves at most a decision the agent
        // never got, never an answer the history lacks. Retracted if the answer is refused.
        let entry = pending.as_ref().and_then(|p| self.record_answer(p, &answer));
        if let Err(e) = client.respond(dialog_id, answer) {
            self.retract(entry);
            return Err(e.into());
        }
        let answered = {
            let mut state = self.state();
            if let Some(url) = accepted_url {
                state.accepted_urls.insert(dialog_id, url);
            }
            state.take_dialog(dialog_id)
        };
        drop(decision);
        // The window renders the model's list of waiting dialogs: this one leaves it.
        if answered.is_some() {
            self.push_dialogs();
        }
        if rules_may_change {
            self.push_snapshot();
        }
        Ok(())
    }

    /// `answer_dialog` for an elicitation: `action` is `accept`, `decline` or `cancel`.
    pub fn answer_elicitation(
        &self,
        dialog_id: u64,
        action: &str,
        content: Option<Map<String, Value>>,
    ) -> Result<(), AnswerError> {
        let action = serde_json::from_value(Value::String(action.to_string()))
            .map_err(|_| AnswerError::msg(format!("unknown action `{action}`")))?;
        self.answer_dialog(dialog_id, DialogAnswer::Elicitation { action, content })
    }

    /// `answer_dialog` for a permission request: `None` cancels.
    pub fn answer_permission(&self, dialog_id: u64, option_id: Option<String>) -> Result<(), AnswerError> {
        self.answer_dialog(dialog_id, DialogAnswer::Permission { option_id })
    }

    /// `answer_dialog` for a file outside the workspace.
    pub fn answer_file_access(&self, dialog_id: u64, allow: bool) -> Result<(), AnswerError> {
        self.answer_dialog(dialog_id, DialogAnswer::FileAccess { allow })
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
