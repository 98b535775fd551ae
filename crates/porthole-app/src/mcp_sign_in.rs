//! Signing in to a remote MCP connection from the window. Porthole itself asks, through the
//! same URL consent dialog an agent's URL elicitation gets (the full address with its domain
//! highlighted, the URL analyzer's warnings, the domain's history, the isolated window or the
//! system browser, per Settings), so a sign-in page meets every URL-mode rule. Accepting
//! opens the page; the one-shot loopback listener takes the answer; the tokens go to the
//! keyring, never to the window. Declining or cancelling closes the listener.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use porthole_connections::list::Server;
use porthole_connections::oauth::{self, ClientChoice, PendingSignIn};
use porthole_connections::tokens::Tokens;
use porthole_core::events::{
    Action, AgentIdentity, DialogAnswer, DialogPrompt, ElicitationKind, ElicitationPrompt, Event, Scope,
    new_dialog_id,
};
use porthole_core::url_safety;
use serde_json::json;

use crate::app_event::AppEvent;
use crate::{AcceptedUrl, AnswerError, Backend, Pending, event_json};

/// The app model's id for dialogs Porthole asks itself (no agent connection has it).
pub(crate) const PORTHOLE_ASKS: &str = "porthole";

/// The scope's `during`: the window names these dialogs as Porthole's own.
const DURING: &str = "porthole/mcp-sign-in";

/// A sign-in waiting for the person's answer in its dialog.
struct Asked {
    connection: String,
    pending: PendingSignIn,
    tokens: Arc<Tokens>,
}

/// The sign-ins the window started: waiting for consent, and waiting for the browser.
#[derive(Default)]
pub(crate) struct SignIns {
    asked: Mutex<HashMap<u64, Asked>>,
    /// The browser wait of each connection: a new sign-in to it ends the older one.
    waiting: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

impl SignIns {
    fn take(&self, dialog_id: u64) -> Option<Asked> {
        self.asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&dialog_id)
    }

    pub(crate) fn is_sign_in(&self, dialog_id: u64) -> bool {
        self.asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(&dialog_id)
    }

    fn wait_for(&self, connection: &str, task: tokio::task::AbortHandle) {
        if let Some(older) = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(connection.to_string(), task)
        {
            older.abort();
        }
    }
}

/// How a sign-in started: its consent dialog is listed, or the server asks for none (why, in
/// words).
pub(crate) enum SignInBegun {
    Asked(u64),
    NotNeeded(String),
}

/// What the dialog says: which connection, where, and what is asked.
fn message(connection: &str, server: &url::Url, scopes: &[String]) -> String {
    let mut text = format!(
        "Sign in to the MCP connection “{connection}” ({}). Porthole keeps what the server grants in \
         your OS keyring and adds it to your agents' requests itself: no agent sees it.",
        crate::mcp_view::shown_url(server)
    );
    if !scopes.is_empty() {
        text.push_str(&format!(" Access asked: {}.", scopes.join(", ")));
    }
    text
}

fn porthole() -> AgentIdentity {
    AgentIdentity {
        name: PORTHOLE_ASKS.into(),
        title: Some("Porthole".into()),
        version: None,
    }
}

impl Backend {
    /// Start signing in to `name`: discovery and registration, then the consent dialog for the
    /// authorization page. Returns the dialog's id; the window shows it from the dialog list.
    /// `client_id`: one the person entered, for a server that registers no clients itself.
    pub async fn mcp_sign_in(&self, name: &str, client_id: Option<String>) -> Result<u64, AnswerError> {
        match self.begin_sign_in(name, client_id).await? {
            SignInBegun::Asked(dialog_id) => Ok(dialog_id),
            SignInBegun::NotNeeded(e) => Err(AnswerError::msg(format!("cannot sign in to `{name}`: {e}"))),
        }
    }

    /// [`Backend::mcp_sign_in`], telling a server that asks for no sign-in apart from a failure
    /// (a server just added from the registry goes on to its sign-in only when it asks for one).
    pub(crate) async fn begin_sign_in(
        &self,
        name: &str,
        client_id: Option<String>,
    ) -> Result<SignInBegun, AnswerError> {
        let connection = crate::mcp::find(&crate::mcp::load(&crate::mcp::file()?)?, name)?;
        let Server::Remote { url, .. } = &connection.server else {
            return Err(AnswerError::msg(format!(
                "`{name}` is a stdio server: there is nothing to sign in to"
            )));
        };
        let (_, tokens) = self
            .connector()
            .keyring()
            .map_err(|e| AnswerError::msg(format!("cannot sign in to `{name}`: {e}")))?;
        let cannot = |e: &dyn std::fmt::Display| AnswerError::msg(format!("cannot sign in to `{name}`: {e}"));
        let choice = ClientChoice {
            client_id: client_id.map(|c| c.trim().to_string()).filter(|c| !c.is_empty()),
            client_secret: None,
            metadata_document: oauth::published_metadata_document().map_err(|e| cannot(&e))?,
        };
        let known = tokens.registrations(name);
        // After a 403 `insufficient_scope`: the granted scopes and the ones it asked for.
        let step_up = tokens.step_up_scopes(name);
        // The last 401 the gateway saw (a server that asks only at a tool call).
        let challenge = tokens.challenge(name);
        let hints = oauth::Hints {
            known: &known,
            more_scopes: &step_up,
            challenge: challenge.as_ref(),
        };
        let pending = match oauth::begin_with(tokens.http(), url, &choice, &hints).await {
            Ok(pending) => pending,
            Err(e @ oauth::SignInError::NotNeeded(_)) => return Ok(SignInBegun::NotNeeded(e.to_string())),
            Err(e) => return Err(cannot(&e)),
        };

        let text = message(name, url, &pending.scopes);
        let address = pending.authorization_url.to_string();
        let asked = Asked {
            connection: name.to_string(),
            pending,
            tokens,
        };
        let dialog_id = self
            .ask_to_open(DURING, name, &address, text, |dialog_id| {
                self.0
                    .sign_ins
                    .asked
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(dialog_id, asked);
            })
            .map_err(|e| {
                AnswerError::msg(format!(
                    "cannot sign in to `{name}`: the sign-in page's address: {e}"
                ))
            })?;
        Ok(SignInBegun::Asked(dialog_id))
    }

    /// Put Porthole's own URL consent dialog for `address` in the dialog list (the dialog an
    /// agent's URL elicitation gets; `during` names what asks, `subject` what it is about).
    /// `register` runs with the dialog's id before the window can see it, so its answer finds
    /// what it belongs to. An address the analyzer refuses is an error, in words.
    pub(crate) fn ask_to_open(
        &self,
        during: &str,
        subject: &str,
        address: &str,
        text: String,
        register: impl FnOnce(u64),
    ) -> Result<u64, String> {
        let analysis = url_safety::analyze_url(address, &text).map_err(|e| e.to_string())?;
        let mut warnings: Vec<String> = analysis.warnings.iter().map(|w| w.code().to_string()).collect();
        warnings.sort();
        warnings.dedup();
        let dialog_id = new_dialog_id();
        let prompt = DialogPrompt::Elicitation(Box::new(ElicitationPrompt {
            dialog_id,
            agent: porthole(),
            scope: Scope::Request {
                request_id: json!(format!("{during}/{subject}")),
                during: Some(during.into()),
            },
            message: text,
            kind: ElicitationKind::Url {
                elicitation_id: format!("{during}/{subject}/{dialog_id}"),
                url: analysis,
            },
            warnings,
            mcp: None,
        }));
        register(dialog_id);
        self.state().own_dialogs.insert(
            dialog_id,
            Pending {
                agent_id: PORTHOLE_ASKS.into(),
                prompt,
                arrived: None,
            },
        );
        self.push_dialogs();
        Ok(dialog_id)
    }

    /// The person answered a sign-in's consent dialog: accept opens nothing yet (the window
    /// calls `open_url` next, as for any URL dialog) but starts waiting for the browser's
    /// answer; decline or cancel ends the sign-in.
    pub(crate) fn answer_sign_in(&self, dialog_id: u64, answer: DialogAnswer) -> Result<(), AnswerError> {
        let DialogAnswer::Elicitation { action, .. } = &answer else {
            return Err(AnswerError::msg(
                "a sign-in dialog takes accept, decline or cancel",
            ));
        };
        let Some(asked) = self.0.sign_ins.take(dialog_id) else {
            return Err(AnswerError::msg(format!("no pending dialog {dialog_id}")));
        };
        let pending = self.state().dialog(dialog_id).cloned();
        if let Some(p) = &pending {
            self.record_answer(p, &answer);
        }
        {
            let mut state = self.state();
            state.take_dialog(dialog_id);
            if *action == Action::Accept {
                state.accepted_urls.insert(
                    dialog_id,
                    AcceptedUrl {
                        url: asked.pending.authorization_url.to_string(),
                        agent_name: "Porthole".into(),
                        agent_id: PORTHOLE_ASKS.into(),
                    },
                );
            }
        }
        self.push_dialogs();
        if *action == Action::Accept {
            self.wait_for_browser(dialog_id, asked);
        }
        Ok(())
    }

    /// Wait for the browser to come back to the loopback listener, keep the tokens, and say how
    /// it ended: the dialog completes (its isolated window closes), the Connections view
    /// refreshes, a failure is said in the dialog.
    fn wait_for_browser(&self, dialog_id: u64, asked: Asked) {
        let backend = self.clone();
        let Asked {
            connection,
            pending,
            tokens,
        } = asked;
        let name = connection.clone();
        let task = self.0.runtime.spawn(async move {
            let outcome = match pending.finish(tokens.http(), oauth::SIGN_IN_TIMEOUT).await {
                Ok(grant) => tokens
                    .store(&name, grant)
                    .await
                    .map_err(|e| format!("the sign-in worked, but the OS keyring refused its tokens: {e}")),
                Err(e) => Err(e.to_string()),
            };
            backend.sign_in_ended(dialog_id, &name, outcome.err());
        });
        self.0.sign_ins.wait_for(&connection, task.abort_handle());
    }

    fn sign_in_ended(&self, dialog_id: u64, connection: &str, error: Option<String>) {
        match &error {
            None => {
                tracing::info!(connection, "signed in to an MCP connection");
                // Its page has done its work: the isolated window closes, and the dialog says so.
                if self.0.sealed.close(dialog_id) {
                    self.push_app(AppEvent::UrlView {
                        dialog_id,
                        state: "closed".into(),
                        detail: None,
                    });
                }
                self.push(event_json(&Event::ElicitationComplete {
                    elicitation_id: format!("{DURING}/{connection}/{dialog_id}"),
                    known: true,
                    dialog_id: Some(dialog_id),
                }));
            }
            Some(e) => tracing::warn!(connection, error = %e, "an MCP sign-in failed"),
        }
        self.push_app(AppEvent::McpSignInEnded {
            dialog_id,
            connection: connection.to_string(),
            error,
        });
    }
}
