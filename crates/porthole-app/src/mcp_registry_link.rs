//! A registry entry's repository or website link, opened only through Porthole's own URL
//! consent dialog (the dialog an agent's URL elicitation gets: the full address, its domain,
//! the analyzer's warnings, the isolated window or the browser). The registry's text is
//! untrusted, so the window holds no clickable URL of it: it names the entry, and the address
//! is taken from the registry's checked copy here.

use std::collections::HashSet;
use std::sync::Mutex;

use porthole_core::events::{Action, DialogAnswer, DialogPrompt, ElicitationKind};

use crate::mcp_sign_in::PORTHOLE_ASKS;
use crate::{AcceptedUrl, AnswerError, Backend};

/// The scope's `during`: the window names these dialogs as Porthole's own.
const DURING: &str = "porthole/mcp-registry-link";

/// The link dialogs waiting for an answer, by dialog id.
#[derive(Default)]
pub(crate) struct Links(Mutex<HashSet<u64>>);

impl Links {
    pub(crate) fn is_link(&self, dialog_id: u64) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&dialog_id)
    }
}

impl Backend {
    /// Ask, in the URL consent dialog, before opening `name`'s repository (`website`: its
    /// website) from registry `registry`. Returns the dialog's id; the window shows it from
    /// the dialog list and opens the page with `open_url` once accepted.
    pub async fn mcp_registry_link(
        &self,
        registry: &str,
        name: &str,
        version: &str,
        website: bool,
    ) -> Result<u64, AnswerError> {
        let (_, entry) = self.registry_entry(registry, name, version).await?;
        let (what, address) = if website {
            ("website", entry.website.clone())
        } else {
            ("repository", entry.repository.clone())
        };
        let address = address.ok_or_else(|| AnswerError::msg(format!("`{name}` names no {what}")))?;
        let text = format!(
            "Open the {what} of the MCP server “{name}”, as its registry names it ({registry}). \
             The registry's listing is not checked by Porthole: look at the address before opening it."
        );
        self.ask_to_open(DURING, name, &address, text, |dialog_id| {
            self.0
                .registry_links
                .0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(dialog_id);
        })
        .map_err(|e| AnswerError::msg(format!("the {what} address cannot be opened: {e}")))
    }

    /// The person answered a link's dialog: accepted, the window may `open_url` it; otherwise
    /// nothing opens. Either way the dialog leaves the list and the history keeps the answer.
    pub(crate) fn answer_link(&self, dialog_id: u64, answer: DialogAnswer) -> Result<(), AnswerError> {
        let DialogAnswer::Elicitation { action, .. } = &answer else {
            return Err(AnswerError::msg(
                "a link's dialog takes accept, decline or cancel",
            ));
        };
        self.0
            .registry_links
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&dialog_id);
        let pending = self.state().dialog(dialog_id).cloned();
        let Some(pending) = pending else {
            return Err(AnswerError::msg(format!("no pending dialog {dialog_id}")));
        };
        self.record_answer(&pending, &answer);
        {
            let mut state = self.state();
            state.take_dialog(dialog_id);
            if *action == Action::Accept
                && let DialogPrompt::Elicitation(p) = &pending.prompt
                && let ElicitationKind::Url { url, .. } = &p.kind
            {
                state.accepted_urls.insert(
                    dialog_id,
                    AcceptedUrl {
                        url: url.full.clone(),
                        agent_name: "Porthole".into(),
                        agent_id: PORTHOLE_ASKS.into(),
                    },
                );
            }
        }
        self.push_dialogs();
        Ok(())
    }
}
