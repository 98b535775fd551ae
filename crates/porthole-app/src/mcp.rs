//! The person's MCP connections (docs/connections.md), handed to every session the window
//! opens: the connections file is read at each session, the gateway starts on first need, and
//! each session's pass lives until the session closes or its agent stops. A connection whose
//! sign-in expired tells the window, in the sessions that use it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use porthole_connections::connector::{Connector, Handed};
use porthole_connections::gateway::{GatewayEvent, Pass};
use porthole_connections::handoff::{AgentMcp, BridgeCommand};
use porthole_connections::list::{self, Connections};

use crate::Backend;
use crate::app_event::AppEvent;

/// `PROGRAM [ARGS...]` the agents run for a bridged connection; default: this executable's
/// `mcp-bridge` (the desktop app's subcommand).
const BRIDGE_ENV: &str = "PORTHOLE_MCP_BRIDGE";

#[derive(Default)]
pub(crate) struct AppConnections {
    /// Made on first need (it needs the backend to tell the window about problems).
    connector: OnceLock<Connector>,
    /// Each session's pass, with its agent.
    passes: Mutex<HashMap<String, (String, Pass)>>,
}

fn path() -> Option<PathBuf> {
    list::default_path()
}

fn bridge() -> BridgeCommand {
    if let Some(words) = std::env::var(BRIDGE_ENV).ok().filter(|v| !v.trim().is_empty())
        && let Ok(command) = porthole_core::AgentCommand::parse(&words)
    {
        return BridgeCommand {
            program: command.program.into(),
            args: command.args,
        };
    }
    BridgeCommand {
        program: std::env::current_exe().unwrap_or_else(|_| "porthole".into()),
        args: vec!["mcp-bridge".into()],
    }
}

impl AppConnections {
    /// Forget every pass of `agent_id` (it stopped): their addresses stop answering.
    pub(crate) fn end_agent(&self, agent_id: &str) {
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, (agent, _)| agent != agent_id);
    }

    pub(crate) fn end_session(&self, session_id: &str) {
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(session_id);
    }

    pub(crate) fn keep(&self, session_id: &str, agent_id: &str, pass: Pass) {
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(session_id.to_string(), (agent_id.to_string(), pass));
    }

    /// The sessions whose pass carries `connection`.
    fn sessions_with(&self, connection: &str) -> Vec<String> {
        self.passes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, (_, pass))| pass.connections().iter().any(|c| c == connection))
            .map(|(s, _)| s.clone())
            .collect()
    }
}

impl Backend {
    fn connector(&self) -> &Connector {
        self.0.mcp.connector.get_or_init(|| {
            // Weak: the connector lives inside the backend it reports to.
            let weak = Arc::downgrade(&self.0);
            let on_event = Arc::new(move |event: GatewayEvent| {
                let Some(inner) = weak.upgrade() else { return };
                let backend = Backend(inner);
                let (connection, reason, needs_sign_in) = match event {
                    GatewayEvent::SignInNeeded { connection, reason } => (connection, reason, true),
                    GatewayEvent::StdioFailed { connection, reason } => (connection, reason, false),
                };
                let sessions = backend.0.mcp.sessions_with(&connection);
                backend.push_app(AppEvent::McpConnectionProblem {
                    connection,
                    reason,
                    needs_sign_in,
                    sessions,
                });
            });
            Connector::new(bridge(), on_event)
        })
    }

    /// The connections `agent_id` gets, for a session it is about to open.
    pub(crate) async fn hand_connections(&self, agent_id: &str, caps: AgentMcp) -> Handed {
        let empty = Handed {
            servers: Vec::new(),
            pass: None,
            skipped: Vec::new(),
            piped: Vec::new(),
        };
        let Some(path) = path() else { return empty };
        let list = match Connections::load(&path) {
            Ok(list) => list,
            Err(e) => {
                tracing::warn!(error = %e, "the MCP connections file is not used");
                return Handed {
                    skipped: vec![("connections.json".into(), e.to_string())],
                    ..empty
                };
            }
        };
        let chosen: Vec<_> = list.for_agent(agent_id).cloned().collect();
        if chosen.is_empty() {
            return empty;
        }
        self.connector().hand(&chosen, Some(caps)).await
    }
}

/// `porthole mcp-bridge [--pipe] URL`: the bridge an agent runs (see
/// `porthole_connections::bridge`). Returns the exit status.
pub fn mcp_bridge(url: &str, pipe: bool) -> i32 {
    match porthole_connections::bridge::run_blocking(url, pipe) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("porthole mcp-bridge: {e}");
            1
        }
    }
}
