//! An MCP connection's questions in `porthole proxy --connections`. The proxy's gateway takes a
//! server's `elicitation/create` out of its stream (as in the window and the CLI); the proxy
//! cannot ask the person itself, so the question goes over the link to the app
//! (`Control::McpQuestion`), which asks it in its window under the rules of an agent's question,
//! naming the server, and sends the answer back (`AppControl::McpAnswer`). With no app to be
//! had (none runs and none can be started), the question gets a JSON-RPC error upstream and
//! the server decides what its tool says.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use porthole_companion::link::{self, Control};
use porthole_companion::mcp_hook::AppLink;
use porthole_connections::gateway::{Asker, BoxFuture, Questions, Unanswered};
use porthole_connections::list::{Connection, Server};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// The connections' questions waiting for the app's answers.
#[derive(Default)]
pub struct ProxyQuestions {
    link: OnceLock<Weak<dyn AppLink>>,
    hosts: Mutex<HashMap<String, Option<String>>>,
    /// The editor's session each pass serves (by pass id), once known.
    sessions: Mutex<HashMap<u64, String>>,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    next: AtomicU64,
}

impl ProxyQuestions {
    pub(crate) fn attach(&self, link: Weak<dyn AppLink>) {
        let _ = self.link.set(link);
    }

    /// The connections handed over, for the host each question names.
    pub(crate) fn connections(&self, connections: &[Connection]) {
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        for c in connections {
            let host = match &c.server {
                Server::Remote { url, .. } => url.host_str().map(str::to_string),
                _ => None,
            };
            hosts.insert(c.name.clone(), host);
        }
    }

    /// Pass `pass` serves the editor's session `session`: its questions are asked there.
    pub(crate) fn session_of(&self, pass: u64, session: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.insert(pass, session.to_string());
    }

    /// Pass `pass` closed.
    pub(crate) fn forget(&self, pass: u64) {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&pass);
    }

    /// The app's answer to question `id`.
    pub(crate) fn answered(&self, id: u64, answer: Result<Value, String>) {
        let waiter = self.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        match waiter {
            Some(tx) => {
                let _ = tx.send(answer);
            }
            None => tracing::debug!(id, "the app answered an MCP question no one waits for"),
        }
    }

    /// The link went: every waiting question ends without an answer.
    pub(crate) fn link_lost(&self) {
        let waiting: Vec<_> = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .collect();
        for (_, tx) in waiting {
            let _ = tx.send(Err("Porthole closed before the person answered".into()));
        }
    }

    fn app(&self) -> Result<Arc<dyn AppLink>, Unanswered> {
        self.link
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| Unanswered("the proxy is stopping".into()))
    }
}

/// Tells the app the gateway stopped waiting, unless the answer came.
struct EndOnDrop<'a> {
    questions: &'a ProxyQuestions,
    id: u64,
    link: mpsc::Sender<Vec<u8>>,
}

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        let still = self
            .questions
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id)
            .is_some();
        if still {
            let _ = self
                .link
                .try_send(link::control(&Control::McpQuestionEnded { id: self.id }));
        }
    }
}

impl Questions for ProxyQuestions {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            let app = self.app()?;
            // The session whose pass the question came through; before the agent answered
            // that session's request, the editor's last opened one.
            let own = self
                .sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&who.pass)
                .cloned();
            let session = own
                .or_else(|| app.session())
                .ok_or_else(|| Unanswered("the editor has no session open to ask in".into()))?;
            let link = app.reach().await.map_err(|why| {
                eprintln!(
                    "porthole proxy: the MCP connection `{}` asked a question, and no Porthole window can ask it: {why}",
                    who.connection
                );
                Unanswered(format!("no Porthole window can ask the person: {why}"))
            })?;
            let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
            let (tx, rx) = oneshot::channel();
            self.waiting
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(id, tx);
            let _end = EndOnDrop {
                questions: self,
                id,
                link: link.clone(),
            };
            let host = self
                .hosts
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&who.connection)
                .cloned()
                .flatten();
            let question = Control::McpQuestion {
                id,
                connection: who.connection.clone(),
                host,
                session_id: session,
                params: request["params"].clone(),
            };
            if link.send(link::control(&question)).await.is_err() {
                return Err(Unanswered(
                    "Porthole closed before the question reached it".into(),
                ));
            }
            match rx.await {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(why)) => Err(Unanswered(why)),
                Err(_) => Err(Unanswered("Porthole closed before the person answered".into())),
            }
        })
    }

    fn completed(&self, who: &Asker, notification: Value) {
        let Some(id) = notification["params"]["elicitationId"].as_str() else {
            return;
        };
        let Ok(app) = self.app() else { return };
        let message = link::control(&Control::McpCompleted {
            connection: who.connection.clone(),
            elicitation_id: id.to_string(),
        });
        // Only over a link that is up: a completion is not worth starting the app for.
        if let Some(link) = app.current() {
            tokio::spawn(async move {
                let _ = link.send(message).await;
            });
        }
    }
}
