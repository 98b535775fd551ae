//! What every front end (the window, the CLI, the companion proxy) does to hand connections
//! to a session: open the keyring when a connection needs it, decide the plan for the agent
//! (`handoff`), start the one gateway of the process on first need, and open the session's
//! pass. The keyring and the gateway are opened once and kept.

use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::McpServer;

use crate::gateway::{Gateway, GatewayEvent, NoTokens, Pass, PassOwner, TokenSource};
use crate::handoff::{AgentMcp, BridgeCommand, Plan};
use crate::list::{Connection, Server};
use crate::secrets::SecretStore;
use crate::tokens::Tokens;

/// Called with each gateway event (a connection needs sign-in, a stdio server failed).
pub type OnEvent = Arc<dyn Fn(GatewayEvent) + Send + Sync>;

struct Keys {
    secrets: Arc<SecretStore>,
    tokens: Arc<Tokens>,
}

pub struct Connector {
    bridge: BridgeCommand,
    on_event: OnEvent,
    keys: Mutex<Option<Result<Arc<Keys>, String>>>,
    gateway: tokio::sync::Mutex<Option<Arc<Gateway>>>,
}

/// What a session gets: `mcpServers`, the pass that serves them (keep it as long as the
/// session lives), and the connections left out, with why.
pub struct Handed {
    pub servers: Vec<McpServer>,
    pub pass: Option<Pass>,
    pub skipped: Vec<(String, String)>,
    /// The connections piped to the gateway's stdio host (a probe pipes to them).
    pub piped: Vec<String>,
}

impl Connector {
    pub fn new(bridge: BridgeCommand, on_event: OnEvent) -> Self {
        Self {
            bridge,
            on_event,
            keys: Mutex::new(None),
            gateway: tokio::sync::Mutex::new(None),
        }
    }

    /// A connector that keeps secrets in `secrets` rather than the OS keyring (an embedder's own
    /// store, or an in-memory one in tests).
    pub fn with_secrets(bridge: BridgeCommand, on_event: OnEvent, secrets: Arc<SecretStore>) -> Self {
        let keys = Keys {
            tokens: Arc::new(Tokens::new(secrets.clone())),
            secrets,
        };
        Self {
            keys: Mutex::new(Some(Ok(Arc::new(keys)))),
            ..Self::new(bridge, on_event)
        }
    }

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

    /// The keyring and the tokens the gateway uses (opened on first need), for a front end's
    /// sign-in states, sign-out and removal: the same `Tokens`, so a sign-out also empties the
    /// gateway's cache and an expired sign-in shows as expired.
    pub fn keyring(&self) -> Result<(Arc<SecretStore>, Arc<Tokens>), String> {
        self.keys().map(|k| (k.secrets.clone(), k.tokens.clone()))
    }

    /// Hand `connections` to a session of an agent with `caps`; `None` for Porthole's own use
    /// (every connection through the gateway, see [`Plan::for_porthole`]). `owner` names the
    /// session's agent and, when the front end answers connections' questions, how.
    pub async fn hand(&self, connections: &[Connection], caps: Option<AgentMcp>, owner: PassOwner) -> Handed {
        let needs_keys = connections
            .iter()
            .any(|c| matches!(c.server, Server::Remote { .. }) || !c.secret_keys().is_empty());
        let mut skipped = Vec::new();
        let keys = if needs_keys {
            match self.keys() {
                Ok(k) => Some(k),
                Err(e) => {
                    tracing::warn!(error = %e, "MCP connections go without sign-in or secret values");
                    None
                }
            }
        } else {
            None
        };
        let secrets = keys.as_ref().map(|k| k.secrets.as_ref());
        let tokens = keys.as_ref().map(|k| k.tokens.as_ref());
        let plan = match caps {
            Some(caps) => {
                // Reading a stdio server's traffic is worth it when someone answers its
                // questions or shows its apps.
                let serve_stdio = owner.questions.is_some() || owner.apps.is_some();
                Plan::new(
                    connections,
                    secrets,
                    tokens,
                    caps,
                    serve_stdio,
                    owner.cwd.as_deref(),
                )
                .await
            }
            None => Plan::for_porthole(connections, secrets, tokens).await,
        };
        skipped.extend(plan.skipped.iter().cloned());
        let upstreams = plan.upstreams();
        let pass = if upstreams.is_empty() {
            None
        } else {
            match self.gateway(keys.as_ref()).await {
                Ok(gateway) => Some(gateway.open(upstreams, owner)),
                Err(e) => {
                    let why = format!("the MCP gateway could not start on 127.0.0.1: {e}");
                    tracing::warn!("{why}");
                    skipped.extend(upstreams.iter().map(|(name, _)| (name.clone(), why.clone())));
                    None
                }
            }
        };
        Handed {
            servers: plan.servers(pass.as_ref(), &self.bridge),
            piped: plan.names().into_iter().filter(|n| plan.is_piped(n)).collect(),
            pass,
            skipped,
        }
    }

    /// Porthole's own request for an MCP App to `connection`'s server, for the session of
    /// `pass` ([`Gateway::app_request`]): fails when no session was handed connections yet.
    pub async fn app_request(
        &self,
        pass: u64,
        connection: &str,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, crate::gateway::AppRequestError> {
        let gateway = self.gateway.lock().await.clone();
        let Some(gateway) = gateway else {
            return Err(crate::gateway::AppRequestError::PassClosed);
        };
        gateway.app_request(pass, connection, method, params).await
    }

    /// The process's one gateway, started on first need.
    async fn gateway(&self, keys: Option<&Arc<Keys>>) -> std::io::Result<Arc<Gateway>> {
        let mut slot = self.gateway.lock().await;
        if let Some(g) = slot.as_ref() {
            return Ok(g.clone());
        }
        let tokens: Arc<dyn TokenSource> = match keys {
            Some(k) => k.tokens.clone(),
            None => Arc::new(NoTokens("no OS keyring is available".into())),
        };
        let gateway = Arc::new(Gateway::start(tokens).await?);
        let mut events = gateway.events();
        let on_event = self.on_event.clone();
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                on_event(event);
            }
        });
        *slot = Some(gateway.clone());
        Ok(gateway)
    }
}
