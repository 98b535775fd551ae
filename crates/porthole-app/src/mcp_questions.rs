//! An MCP connection's questions in the window. The gateway takes a server's
//! `elicitation/create` out of its stream (the agent declared no elicitation, or the setting
//! lets Porthole answer) and asks here; the question goes to the agent connection whose session
//! made the tool call (`AgentClient::ask_for_connection`), so it meets every rule an agent's
//! question meets (form schema, secret warning, URL analysis, the session's bound), waits in
//! the one list of dialogs, is answered with the same checks, and is recorded in the consent
//! history under the connection's name. The dialog says which server asks and through which
//! agent's session: a line core sets only for these questions, so an agent cannot forge it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use porthole_connections::gateway::{Asker, BoxFuture, Questions, Unanswered};
use porthole_connections::list::{Connection, Server};
use porthole_core::events::McpAsker;
use serde_json::Value;

use crate::{Backend, Inner};

/// The questions of the connections handed to one session of one agent.
pub(crate) struct WindowQuestions {
    backend: Weak<Inner>,
    agent_id: String,
    /// Each handed connection's host (`None`: a stdio server on this computer).
    hosts: HashMap<String, Option<String>>,
    /// The ACP session the connections were handed to, once it is open.
    session: Mutex<Option<String>>,
}

impl WindowQuestions {
    pub(crate) fn new(backend: &Backend, agent_id: &str, connections: &[Connection]) -> Arc<Self> {
        let hosts = connections
            .iter()
            .map(|c| {
                let host = match &c.server {
                    Server::Remote { url, .. } => url.host_str().map(str::to_string),
                    _ => None,
                };
                (c.name.clone(), host)
            })
            .collect();
        Arc::new(Self {
            backend: Arc::downgrade(&backend.0),
            agent_id: agent_id.to_string(),
            hosts,
            session: Mutex::new(None),
        })
    }

    /// The session the connections serve is open: its questions can be asked in it.
    pub(crate) fn session_opened(&self, session_id: &str) {
        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(session_id.to_string());
    }

    pub(crate) fn backend(&self) -> Option<Backend> {
        self.backend.upgrade().map(Backend)
    }

    pub(crate) fn agent_id(&self) -> &str {
        &self.agent_id
    }

    /// The session the connections serve, once it is open.
    pub(crate) fn session(&self) -> Option<String> {
        self.session.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Where `connection` runs: its host, `None` for a server on this computer.
    pub(crate) fn host(&self, connection: &str) -> Option<String> {
        self.hosts.get(connection).cloned().flatten()
    }

    /// The agent's ACP tool call the question came with: the gateway's tools/call matched
    /// among the session's recent tool calls, as an MCP App's is (`tool_match`).
    fn tool_call(&self, session: &str, who: &Asker) -> Option<String> {
        use porthole_connections::tool_match::{AgentToolCall, matching};
        let call = who.call.as_ref()?;
        let backend = self.backend()?;
        let state = backend.state();
        let recent = state.tool_calls(session)?;
        let calls = recent.iter().map(|c| AgentToolCall {
            id: &c.id,
            title: c.title.as_deref(),
            raw_input: c.raw_input.as_ref(),
        });
        matching(calls, &call.tool, &call.arguments, &|_| false)
    }

    fn client(&self) -> Result<porthole_core::AgentClient, Unanswered> {
        let backend = self
            .backend
            .upgrade()
            .map(Backend)
            .ok_or_else(|| Unanswered("Porthole is closing".into()))?;
        backend.client_of_agent(&self.agent_id).map_err(|e| {
            let why = match e {
                crate::AnswerError::Error { message } => message,
                crate::AnswerError::Invalid { .. } => "unknown".into(),
            };
            Unanswered(format!("the agent's connection cannot ask: {why}"))
        })
    }
}

impl Questions for WindowQuestions {
    fn ask<'a>(&'a self, who: &'a Asker, request: Value) -> BoxFuture<'a, Result<Value, Unanswered>> {
        Box::pin(async move {
            let client = self.client()?;
            let session = self
                .session
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .ok_or_else(|| Unanswered("the session that made the tool call is not open yet".into()))?;
            let asker = McpAsker {
                connection: who.connection.clone(),
                host: self.hosts.get(&who.connection).cloned().flatten(),
            };
            let tool_call = self.tool_call(&session, who);
            client
                .ask_for_connection(asker, &session, tool_call.as_deref(), &request["params"])
                .await
                .map_err(|e| {
                    tracing::warn!(
                        connection = %who.connection,
                        agent = %self.agent_id,
                        "an MCP server's question was refused: {}",
                        e.message
                    );
                    Unanswered(e.message)
                })
        })
    }

    fn completed(&self, who: &Asker, notification: Value) {
        let Some(id) = notification["params"]["elicitationId"]
            .as_str()
            .map(str::to_string)
        else {
            return;
        };
        let Ok(client) = self.client() else { return };
        let Some(backend) = self.backend.upgrade() else {
            return;
        };
        let connection = who.connection.clone();
        backend.runtime.spawn(async move {
            client.connection_completed(&connection, &id).await;
        });
    }
}
