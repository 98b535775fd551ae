//! `porthole proxy --connections`: the person's MCP connections follow them into their editor.
//! The editor's `session/new` (`load`, `resume`, `fork`) gains the connections made for every
//! agent (those limited to named agents stay out: the proxy cannot know the agent's id), beside
//! the editor's own servers (a name the editor already uses is the editor's). They go through
//! this process's gateway, as in the window: the agent never holds a token.
//!
//! Each session request gets a pass of its own, as each session in the window does: its stdio
//! servers run in that session's working directory, and a question that comes through it is
//! asked in that session (`mcp_questions.rs` learns which once the agent answers the request);
//! the pass closes with its session.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

use porthole_companion::mcp_hook::{AppLink, BoxFuture, McpConnections};
use porthole_connections::connector::{Connector, Handed};
use porthole_connections::gateway::{GatewayEvent, PassOwner};
use porthole_connections::handoff::{AgentMcp, BridgeCommand};
use porthole_connections::list::{AgentScope, Connection, Connections};
use serde_json::Value;

use crate::mcp_questions::ProxyQuestions;

pub struct ProxyConnections {
    file: Option<PathBuf>,
    connector: Connector,
    /// The connections' questions, asked in the app over the link (`mcp_questions.rs`).
    questions: Arc<ProxyQuestions>,
    over_agent: bool,
    /// The connections for every agent, read at the first session request.
    chosen: tokio::sync::OnceCell<Vec<Connection>>,
    /// The passes of session requests not answered yet, by request id (JSON text).
    opening: Mutex<HashMap<String, Handed>>,
    /// The passes of open sessions, by session id.
    open: Mutex<HashMap<String, Handed>>,
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
            chosen: tokio::sync::OnceCell::new(),
            opening: Mutex::default(),
            open: Mutex::default(),
        }
    }

    /// The connections made for every agent (those limited to named agents stay out).
    async fn chosen(&self) -> &[Connection] {
        self.chosen
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
                chosen
            })
            .await
    }

    /// A pass for one session request: its stdio servers run in `cwd`, the request's working
    /// directory; `session` when the request names it (load, resume).
    async fn hand(&self, agent_init: Option<&Value>, cwd: Option<PathBuf>, session: Option<&str>) -> Handed {
        let caps = agent_mcp(agent_init);
        let chosen = self.chosen().await;
        let agent = agent_name(agent_init);
        let questions: Arc<dyn porthole_connections::gateway::Questions> = self.questions.clone();
        let owner = PassOwner {
            agent,
            questions: Some(questions),
            over_agent: self.over_agent,
            cwd,
            ..PassOwner::default()
        };
        let handed = self.connector.hand(chosen, Some(caps), owner).await;
        // Said once, at the first session, rather than for every session.
        if self.opening.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
            && self.open.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
        {
            for (name, why) in &handed.skipped {
                eprintln!("porthole proxy: MCP connection `{name}` is not added: {why}");
            }
        }
        if let (Some(pass), Some(session)) = (&handed.pass, session) {
            self.questions.session_of(pass.id(), session);
        }
        handed
    }

    /// `line` (a session request of the editor) with the connections added to its
    /// `mcpServers`; `None` when there is nothing to add or it is not a JSON object.
    pub async fn add_to(&self, line: &[u8], request_id: &str, agent_init: Option<&Value>) -> Option<Vec<u8>> {
        let mut request: Value = serde_json::from_slice(line).ok()?;
        let cwd = request
            .pointer("/params/cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        // `session/load` and `session/resume` name their session; `new` and `fork` learn it
        // from the agent's answer (`session_answered`).
        let named = match request.get("method").and_then(Value::as_str) {
            Some("session/load" | "session/resume") => request
                .pointer("/params/sessionId")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        let handed = self.hand(agent_init, cwd, named.as_deref()).await;
        if handed.servers.is_empty() {
            return None;
        }
        let servers_of_pass = handed.servers.clone();
        self.opening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request_id.to_string(), handed);
        let params = request.get_mut("params")?.as_object_mut()?;
        let servers = params
            .entry("mcpServers")
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()?;
        let taken: HashSet<String> = servers
            .iter()
            .filter_map(|s| s.get("name").and_then(Value::as_str).map(str::to_string))
            .collect();
        for server in &servers_of_pass {
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

/// The MCP transports the agent's `initialize` answer declares: v1's `agentCapabilities.
/// mcpCapabilities` booleans, or v2's `capabilities.session.mcp` markers (v2 has no SSE).
fn agent_mcp(agent_init: Option<&Value>) -> AgentMcp {
    let v1 = |key: &str| {
        agent_init
            .and_then(|i| i.pointer(&format!("/agentCapabilities/mcpCapabilities/{key}")))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let v2 = |key: &str| {
        agent_init
            .and_then(|i| i.pointer(&format!("/capabilities/session/mcp/{key}")))
            .is_some_and(Value::is_object)
    };
    // v1 agents always take stdio; v2 makes it a capability.
    let speaks_v2 = agent_init
        .and_then(|i| i.get("protocolVersion"))
        .and_then(Value::as_u64)
        == Some(2);
    AgentMcp {
        stdio: !speaks_v2 || v2("stdio"),
        http: v1("http") || v2("http"),
        sse: v1("sse"),
    }
}

/// The agent's name for the dialogs (`agentInfo` in v1, `info` in v2).
fn agent_name(agent_init: Option<&Value>) -> String {
    ["/agentInfo/title", "/agentInfo/name", "/info/title", "/info/name"]
        .iter()
        .find_map(|p| agent_init.and_then(|i| i.pointer(p)).and_then(Value::as_str))
        .unwrap_or("the agent")
        .to_string()
}

impl ProxyConnections {
    /// The agent answered session request `request_id`: its pass now serves `session_id`
    /// (or, when the request failed, closes).
    pub fn session_answered(&self, request_id: &str, session_id: Option<&str>) {
        let handed = self
            .opening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(request_id);
        let (Some(handed), Some(session_id)) = (handed, session_id) else {
            return;
        };
        if let Some(pass) = &handed.pass {
            self.questions.session_of(pass.id(), session_id);
        }
        // A session opened again (load after load) keeps the newest pass; the old one closes.
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(session_id.to_string(), handed);
    }

    /// The session closed: its pass closes (its stdio servers stop).
    pub fn session_closed(&self, session_id: &str) {
        let handed = self
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(session_id);
        if let Some(pass) = handed.as_ref().and_then(|h| h.pass.as_ref()) {
            self.questions.forget(pass.id());
        }
    }
}

impl McpConnections for ProxyConnections {
    fn add_to<'a>(
        &'a self,
        line: &'a [u8],
        request_id: &'a str,
        agent_init: Option<&'a Value>,
    ) -> BoxFuture<'a, Option<Vec<u8>>> {
        Box::pin(ProxyConnections::add_to(self, line, request_id, agent_init))
    }

    fn session_answered(&self, request_id: &str, session_id: Option<&str>) {
        ProxyConnections::session_answered(self, request_id, session_id);
    }

    fn session_closed(&self, session_id: &str) {
        ProxyConnections::session_closed(self, session_id);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_agents_transports_and_name_are_read_from_a_v1_or_a_v2_answer() {
        let v1 = json!({"protocolVersion": 1, "agentInfo": {"name": "a", "title": "Agent A"},
            "agentCapabilities": {"mcpCapabilities": {"http": true, "sse": true}}});
        let mcp = agent_mcp(Some(&v1));
        assert!(mcp.stdio && mcp.http && mcp.sse);
        assert_eq!(agent_name(Some(&v1)), "Agent A");
        let v2 = json!({"protocolVersion": 2, "info": {"name": "b"},
            "capabilities": {"session": {"mcp": {"http": {}, "stdio": {}}}}});
        let mcp = agent_mcp(Some(&v2));
        assert!(mcp.stdio && mcp.http && !mcp.sse);
        assert_eq!(agent_name(Some(&v2)), "b");
        let http_only = json!({"protocolVersion": 2, "capabilities": {"session": {"mcp": {"http": {}}}}});
        assert!(!agent_mcp(Some(&http_only)).stdio);
        let none = agent_mcp(Some(&json!({"protocolVersion": 2, "capabilities": {}})));
        assert!(!none.stdio && !none.http && !none.sse);
        assert!(
            agent_mcp(None).stdio,
            "an agent not yet heard from is taken as v1"
        );
        assert_eq!(agent_name(None), "the agent");
    }
}
