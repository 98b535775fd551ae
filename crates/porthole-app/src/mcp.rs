//! The person's MCP connections (docs/connections.md), handed to every session the window
//! opens: the connections file is read at each session, the gateway starts on first need, and
//! each session's pass lives until the session closes or its agent stops. A connection whose
//! sign-in expired tells the window, in the sessions that use it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use porthole_connections::gateway::{Gateway, GatewayEvent, NoTokens, Pass, TokenSource};
use porthole_connections::handoff::{AgentMcp, BridgeCommand, Plan};
use porthole_connections::list::{self, Connections};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::Tokens;
use porthole_core::acp::v1::schema::McpServer;

use crate::Backend;
use crate::app_event::AppEvent;

/// `PROGRAM [ARGS...]` the agents run for a bridged connection; default: this executable's
/// `mcp-bridge` (the desktop app's subcommand).
const BRIDGE_ENV: &str = "PORTHOLE_MCP_BRIDGE";

struct Keys {
    secrets: Arc<SecretStore>,
    tokens: Arc<Tokens>,
}

#[derive(Default)]
pub(crate) struct AppConnections {
    /// Opened on first need; `Err` says why there is none (then sign-in values are not used).
    keys: Mutex<Option<Result<Arc<Keys>, String>>>,
    gateway: tokio::sync::Mutex<Option<Arc<Gateway>>>,
    /// Each session's pass, with its agent and the connections it carries.
    passes: Mutex<HashMap<String, (String, Pass)>>,
}

/// What a session gets: `mcpServers`, the pass that serves them, and what was left out.
pub(crate) struct Handed {
    pub servers: Vec<McpServer>,
    pub pass: Option<Pass>,
    pub skipped: Vec<(String, String)>,
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
    fn keys(&self) -> Result<Arc<Keys>, String> {
        let mut keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        keys.get_or_insert_with(|| {
            SecretStore::os()
                .map(|s| {
                    let secrets = Arc::new(s);
                    Arc::new(Keys {
                        tokens: Arc::new(Tokens::new(secrets.clone())),
                        secrets,
                    })
                })
                .map_err(|e| e.to_string())
        })
        .clone()
    }

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
    /// The connections `agent_id` gets, for a session it is about to open.
    pub(crate) async fn hand_connections(&self, agent_id: &str, caps: AgentMcp) -> Handed {
        let empty = Handed {
            servers: Vec::new(),
            pass: None,
            skipped: Vec::new(),
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
        let mcp = &self.0.mcp;
        let needs_keys = chosen
            .iter()
            .any(|c| matches!(c.server, list::Server::Remote { .. }) || !c.secret_keys().is_empty());
        let keys = if needs_keys {
            mcp.keys()
                .map_err(|e| tracing::warn!(error = %e, "MCP connections go without sign-in"))
                .ok()
        } else {
            None
        };
        let plan = Plan::new(
            &chosen,
            keys.as_ref().map(|k| k.secrets.as_ref()),
            keys.as_ref().map(|k| k.tokens.as_ref()),
            caps,
        )
        .await;
        let upstreams = plan.upstreams();
        let pass = if upstreams.is_empty() {
            None
        } else {
            match self.gateway(keys.as_ref()).await {
                Ok(gateway) => Some(gateway.open(upstreams)),
                Err(e) => {
                    tracing::warn!(error = %e, "the MCP gateway could not start");
                    None
                }
            }
        };
        Handed {
            servers: plan.servers(pass.as_ref(), &bridge()),
            pass,
            skipped: plan.skipped,
        }
    }

    /// The gateway, started on first need, with its events turned into the window's notices.
    async fn gateway(&self, keys: Option<&Arc<Keys>>) -> std::io::Result<Arc<Gateway>> {
        let mut slot = self.0.mcp.gateway.lock().await;
        if let Some(g) = slot.as_ref() {
            return Ok(g.clone());
        }
        let tokens: Arc<dyn TokenSource> = match keys {
            Some(k) => k.tokens.clone(),
            None => Arc::new(NoTokens("no OS keyring is available".into())),
        };
        let gateway = Arc::new(Gateway::start(tokens).await?);
        let mut events = gateway.events();
        let backend = self.clone();
        self.spawn(async move {
            while let Ok(event) = events.recv().await {
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
            }
        });
        *slot = Some(gateway.clone());
        Ok(gateway)
    }
}

/// `porthole mcp-bridge [--pipe] URL`: the bridge an agent runs (see `porthole_connections::bridge`).
/// Returns the exit status.
pub fn mcp_bridge(url: &str, pipe: bool) -> i32 {
    let url = match url::Url::parse(url) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("porthole mcp-bridge: {url} is not a URL: {e}");
            return 2;
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("porthole mcp-bridge: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let result = runtime.block_on(async {
        if pipe {
            porthole_connections::bridge::pipe(&url).await
        } else {
            porthole_connections::bridge::http(&url).await
        }
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("porthole mcp-bridge: {e}");
            1
        }
    }
}
