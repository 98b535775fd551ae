//! Connection-wide agent state. One `AgentState` exists per agent-client
//! connection (the process serves exactly one connection over stdio), so
//! everything recorded here — sessions, elicitation ids, sign-in states — is
//! bound to that connection.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{ClientCapabilities, McpServer};
use tokio::sync::watch;

use crate::signin::SigninService;

/// What the client advertised in `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    pub form: bool,
    pub url: bool,
    pub write_text_file: bool,
    pub terminal: bool,
}

impl Caps {
    /// What a v2 client offers: elicitation only. v2 has no `fs/*` or `terminal/*` requests:
    /// the agent writes and runs itself.
    pub fn from_v2(caps: &agent_client_protocol::v2::schema::ClientCapabilities) -> Self {
        let elicitation = caps.elicitation.as_ref();
        Self {
            form: elicitation.is_some_and(|e| e.form.is_some()),
            url: elicitation.is_some_and(|e| e.url.is_some()),
            write_text_file: false,
            terminal: false,
        }
    }

    pub fn from_client(caps: &ClientCapabilities) -> Self {
        let elicitation = caps.elicitation.as_ref();
        Self {
            form: elicitation.is_some_and(|e| e.form.is_some()),
            url: elicitation.is_some_and(|e| e.url.is_some()),
            write_text_file: caps.fs.write_text_file,
            terminal: caps.terminal,
        }
    }
}

pub struct Session {
    pub id: String,
    pub cwd: PathBuf,
    /// The MCP servers the client handed the session (`mcpServers`).
    pub mcp_servers: Vec<McpServer>,
    /// Bumped on every `session/cancel` for this session.
    pub cancel: watch::Sender<u64>,
}

#[derive(Default)]
pub struct AgentState {
    caps: Mutex<Caps>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    next_session: AtomicU64,
    next_tool_call: AtomicU64,
    next_elicitation: AtomicU64,
    signin: Mutex<Option<Arc<SigninService>>>,
}

impl AgentState {
    pub fn set_caps(&self, caps: Caps) {
        *self.caps.lock().unwrap() = caps;
    }

    pub fn caps(&self) -> Caps {
        *self.caps.lock().unwrap()
    }

    pub fn new_session(&self, cwd: PathBuf, mcp_servers: Vec<McpServer>) -> Arc<Session> {
        let n = self.next_session.fetch_add(1, Ordering::Relaxed) + 1;
        let session = Arc::new(Session {
            id: format!("demo-{n}"),
            cwd,
            mcp_servers,
            cancel: watch::Sender::new(0),
        });
        self.sessions
            .lock()
            .unwrap()
            .insert(session.id.clone(), session.clone());
        session
    }

    pub fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions.lock().unwrap().get(id).cloned()
    }

    pub fn cancel(&self, id: &str) -> bool {
        match self.session(id) {
            Some(s) => {
                s.cancel.send_modify(|n| *n += 1);
                true
            }
            None => false,
        }
    }

    pub fn tool_call_id(&self, prefix: &str) -> String {
        let n = self.next_tool_call.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{prefix}-{n}")
    }

    /// A connection-unique elicitation id.
    pub fn elicitation_id(&self, prefix: &str) -> String {
        let n = self.next_elicitation.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{prefix}-{n}")
    }

    /// The sign-in service, started lazily on first use.
    pub fn signin(&self) -> anyhow::Result<Arc<SigninService>> {
        let mut guard = self.signin.lock().unwrap();
        if let Some(s) = guard.as_ref() {
            return Ok(s.clone());
        }
        let service = SigninService::start()?;
        eprintln!(
            "porthole-demo-agent: sign-in service listening on 127.0.0.1:{}",
            service.port()
        );
        *guard = Some(service.clone());
        Ok(service)
    }
}
