//! `porthole proxy --connections`: the person's MCP connections follow them into their editor.
//! The editor's `session/new` (`load`, `resume`, `fork`) gains the connections made for every
//! agent (those limited to named agents stay out: the proxy cannot know the agent's id), beside
//! the editor's own servers (a name the editor already uses is the editor's). They go through
//! this process's gateway, as in the window: the agent never holds a token.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Weak};

use porthole_companion::mcp_hook::{AppLink, BoxFuture, McpConnections};
use porthole_connections::connector::{Connector, Handed};
use porthole_connections::gateway::{GatewayEvent, PassOwner};
use porthole_connections::handoff::{AgentMcp, BridgeCommand};
use porthole_connections::list::{AgentScope, Connections};
use serde_json::Value;

use crate::mcp_questions::ProxyQuestions;

pub struct ProxyConnections {
    file: Option<PathBuf>,
    connector: Connector,
    /// The connections' questions, asked in the app over the link (`mcp_questions.rs`).
    questions: Arc<ProxyQuestions>,
    over_agent: bool,
    /// Decided at the first session request; the pass lives as long as the proxy.
    handed: tokio::sync::OnceCell<Handed>,
}

impl ProxyConnections {
    /// `file`: the connections file; `None` for the default one. `over_agent`: Porthole answers
    /// the connections' questions even for an agent that declared elicitation (the settings'
    /// `mcpQuestions`, `preference::porthole_answers_mcp`).
    pub fn new(file: Option<PathBuf>, over_agent: bool) -> Self {
        let on_event = std::sync::Arc::new(|event: GatewayEvent| match event {
            GatewayEvent::SignInNeeded { connection, reason } => eprintln!(
                "porthole proxy: MCP connection `{connection}` needs sign-in ({reason}): sign in to it in Porthole or with porthole-cli mcp login {connection}"
            ),
            GatewayEvent::StdioFailed { connection, reason } => {
                eprintln!("porthole proxy: MCP connection `{connection}`: {reason}")
            }
        });
        let bridge = BridgeCommand {
            program: std::env::current_exe().unwrap_or_else(|_| "porthole".into()),
            args: vec!["mcp-bridge".into()],
        };
        Self {
            file,
            connector: Connector::new(bridge, on_event),
            questions: Arc::default(),
            over_agent,
            handed: tokio::sync::OnceCell::new(),
        }
    }

    /// `cwd`: the first session request's working directory, where the stdio servers the
    /// gateway starts run (the pass, and so its servers, serve every later session too).
    async fn handed(&self, agent_init: Option<&Value>, cwd: Option<PathBuf>) -> &Handed {
        let caps = AgentMcp {
            http: agent_init
                .and_then(|i| i.pointer("/agentCapabilities/mcpCapabilities/http"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            sse: agent_init
                .and_then(|i| i.pointer("/agentCapabilities/mcpCapabilities/sse"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        self.handed
            .get_or_init(|| async {
                let path = self
                    .file
                    .clone()
                    .or_else(porthole_connections::list::default_path);
                let list = match path.map(|p| Connections::load(&p)) {
                    Some(Ok(list)) => list,
                    Some(Err(e)) => {
                        eprintln!("porthole proxy: the MCP connections are not added: {e}");
                        Connections::new()
                    }
                    None => Connections::new(),
                };
                let chosen: Vec<_> = list
                    .iter()
                    .filter(|c| c.enabled && c.agents == AgentScope::All)
                    .cloned()
                    .collect();
                self.questions.connections(&chosen);
                let agent = agent_init
                    .and_then(|i| {
                        i.pointer("/agentInfo/title")
                            .or_else(|| i.pointer("/agentInfo/name"))
                    })
                    .and_then(Value::as_str)
                    .unwrap_or("the agent")
                    .to_string();
                let questions: Arc<dyn porthole_connections::gateway::Questions> = self.questions.clone();
                let owner = PassOwner {
                    agent,
                    questions: Some(questions),
                    over_agent: self.over_agent,
                    cwd,
                    ..PassOwner::default()
                };
                let handed = self.connector.hand(&chosen, Some(caps), owner).await;
                for (name, why) in &handed.skipped {
                    eprintln!("porthole proxy: MCP connection `{name}` is not added: {why}");
                }
                handed
            })
            .await
    }

    /// `line` (a session request of the editor) with the connections added to its
    /// `mcpServers`; `None` when there is nothing to add or it is not a JSON object.
    pub async fn add_to(&self, line: &[u8], agent_init: Option<&Value>) -> Option<Vec<u8>> {
        let mut request: Value = serde_json::from_slice(line).ok()?;
        let cwd = request
            .pointer("/params/cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        let handed = self.handed(agent_init, cwd).await;
        if handed.servers.is_empty() {
            return None;
        }
        let params = request.get_mut("params")?.as_object_mut()?;
        let servers = params
            .entry("mcpServers")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()?;
        let taken: HashSet<String> = servers
            .iter()
            .filter_map(|s| s.get("name").and_then(Value::as_str).map(str::to_string))
            .collect();
        for server in &handed.servers {
            let value = serde_json::to_value(server).ok()?;
            let name = value.get("name").and_then(Value::as_str).unwrap_or_default();
            if !taken.contains(name) {
                servers.push(value);
            }
        }
        let mut out = serde_json::to_vec(&request).ok()?;
        out.push(b'\n');
        Some(out)
    }
}

impl McpConnections for ProxyConnections {
    fn add_to<'a>(&'a self, line: &'a [u8], agent_init: Option<&'a Value>) -> BoxFuture<'a, Option<Vec<u8>>> {
        Box::pin(ProxyConnections::add_to(self, line, agent_init))
    }

    fn attach(&self, link: Weak<dyn AppLink>) {
        self.questions.attach(link);
    }

    fn answered(&self, id: u64, answer: Result<Value, String>) {
        self.questions.answered(id, answer);
    }

    fn link_lost(&self) {
        self.questions.link_lost();
    }
}
