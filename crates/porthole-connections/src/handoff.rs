//! What an agent receives in `mcpServers` for the person's connections, decided once for every
//! front end (the window, the CLI, the companion proxy):
//!
//! | connection | agent takes http | agent takes only stdio |
//! |---|---|---|
//! | remote (streamable HTTP) | the gateway's address | the bridge, to that address |
//! | stdio, the owner answers questions or shows apps | the gateway's address (the server served as HTTP) | the bridge, to that address |
//! | stdio, no secret in its environment, the owner takes neither | the server itself | the server itself |
//! | stdio with secret values, the owner takes neither | the bridge, piped to the server the gateway starts | same |
//! | remote legacy SSE, no secret, the owner takes neither, the agent takes `sse` (v1) | the server itself | the server itself |
//! | remote legacy SSE otherwise (secret headers, questions or apps, no `sse`: ACP v2), not signed in | the gateway's address (the server served as Streamable HTTP) | the bridge, to that address |
//!
//! An ACP v2 agent declares stdio too: one that takes only HTTP gets every stdio connection
//! served by the gateway as Streamable HTTP (the bridge is a stdio server, so it is never
//! handed to it); one that takes neither gets no connection, each skipped with the reason.
//!
//! A stdio server the gateway serves as Streamable HTTP (`gateway::Upstream::Served`) starts in
//! the session's working directory ([`PassOwner::cwd`](crate::gateway::PassOwner)), where the
//! agent would have started it. The raw pipe is kept only for an owner that takes neither
//! questions nor apps: reading the traffic would gain nothing there, and the bytes pass as the
//! server wrote them.
//!
//! No secret value is ever put in what the agent receives: secret headers and tokens are
//! added by the gateway, secret variables are set by the gateway on the server it starts.

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpServer, McpServerHttp, McpServerSse, McpServerStdio,
};

use crate::gateway::{Pass, StdioServer, Upstream};
use crate::list::{Connection, EnvValue, RemoteTransport, Server};
use crate::secrets::{SecretStore, env_key, header_key};
use crate::tokens::{SignInState, Tokens};

/// The MCP transports the agent takes: v1's `agentCapabilities.mcpCapabilities` (stdio always),
/// v2's `capabilities.session.mcp` markers (stdio among them, no SSE).
#[derive(Debug, Clone, Copy)]
pub struct AgentMcp {
    pub stdio: bool,
    pub http: bool,
    pub sse: bool,
}

impl Default for AgentMcp {
    /// What every ACP v1 agent takes: stdio alone.
    fn default() -> Self {
        AgentMcp {
            stdio: true,
            http: false,
            sse: false,
        }
    }
}

/// The command an agent runs for the bridge: `program args... [--pipe] URL`.
#[derive(Debug, Clone)]
pub struct BridgeCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// Streamable HTTP at the pass's address (or the bridge's HTTP mode).
    Http,
    /// The gateway's stdio host, through the bridge's pipe mode.
    Pipe,
}

/// One connection's way to the agent.
#[derive(Debug, Clone)]
enum Route {
    Direct(McpServer),
    Gateway(Via),
}

/// The decision for one agent session: which connections go through the gateway (with what
/// upstream), which directly, and which are skipped and why.
pub struct Plan {
    routes: Vec<(String, Route)>,
    upstreams: Vec<(String, Upstream)>,
    pub skipped: Vec<(String, String)>,
    caps: AgentMcp,
    /// Every stdio server (and legacy SSE server) served by the gateway as Streamable HTTP:
    /// for Porthole's own probe of a connection, and where the pass's owner answers questions
    /// or shows MCP Apps.
    serve_stdio: bool,
    /// Where served stdio servers start (the session's working directory).
    cwd: Option<PathBuf>,
}

impl Plan {
    /// Decide for `connections` (already filtered to the enabled ones this agent gets).
    /// `secrets` is needed only when a connection has secret values; `tokens` to know which
    /// remote connections are signed in. With `serve_stdio` (the pass's owner answers
    /// questions or shows apps) every stdio server goes through the gateway, started in `cwd`,
    /// and so does every legacy SSE server.
    pub async fn new(
        connections: &[Connection],
        secrets: Option<&SecretStore>,
        tokens: Option<&Tokens>,
        caps: AgentMcp,
        serve_stdio: bool,
        cwd: Option<&Path>,
    ) -> Plan {
        let cwd = cwd.map(Path::to_path_buf);
        Self::decide_all(connections, secrets, tokens, caps, serve_stdio, cwd).await
    }

    /// The plan Porthole itself uses to reach connections (`mcp tools`, the window's tool
    /// lists): every connection through the gateway, stdio servers hosted by it.
    pub async fn for_porthole(
        connections: &[Connection],
        secrets: Option<&SecretStore>,
        tokens: Option<&Tokens>,
    ) -> Plan {
        let caps = AgentMcp {
            stdio: true,
            http: true,
            sse: false,
        };
        Self::decide_all(connections, secrets, tokens, caps, true, None).await
    }

    async fn decide_all(
        connections: &[Connection],
        secrets: Option<&SecretStore>,
        tokens: Option<&Tokens>,
        caps: AgentMcp,
        serve_stdio: bool,
        cwd: Option<PathBuf>,
    ) -> Plan {
        let mut plan = Plan {
            routes: Vec::new(),
            upstreams: Vec::new(),
            skipped: Vec::new(),
            caps,
            serve_stdio,
            cwd,
        };
        for c in connections {
            match plan.decide(c, secrets, tokens).await {
                Ok((route, upstream)) => {
                    if let Some(u) = upstream {
                        plan.upstreams.push((c.name.clone(), u));
                    }
                    plan.routes.push((c.name.clone(), route));
                }
                Err(why) => plan.skipped.push((c.name.clone(), why)),
            }
        }
        plan
    }

    async fn decide(
        &self,
        c: &Connection,
        secrets: Option<&SecretStore>,
        tokens: Option<&Tokens>,
    ) -> Result<(Route, Option<Upstream>), String> {
        match &c.server {
            Server::Stdio { command, args, env } => {
                if !self.caps.stdio && !self.caps.http {
                    return Err("the agent takes neither stdio nor HTTP MCP servers".into());
                }
                // An agent without stdio (v2) gets the server served as HTTP by the gateway.
                let serve = self.serve_stdio || !self.caps.stdio;
                if !serve && !env.values().any(EnvValue::is_secret) {
                    let env = env
                        .iter()
                        .filter_map(|(k, v)| match v {
                            EnvValue::Plain(v) => Some(EnvVariable::new(k, v)),
                            EnvValue::Secret => None,
                        })
                        .collect();
                    let server = McpServerStdio::new(&c.name, absolute(command))
                        .args(args.clone())
                        .env(env);
                    return Ok((Route::Direct(McpServer::Stdio(server)), None));
                }
                let env = values(c, env, secrets, env_key)?;
                let server = StdioServer {
                    command: command.clone(),
                    args: args.clone(),
                    env,
                    cwd: self.cwd.clone(),
                };
                match serve {
                    true => Ok((Route::Gateway(Via::Http), Some(Upstream::Served(server)))),
                    false => Ok((Route::Gateway(Via::Pipe), Some(Upstream::Stdio(server)))),
                }
            }
            Server::Remote {
                url,
                transport,
                headers,
            } => {
                let signed_in = match tokens {
                    Some(t) => !matches!(t.state(&c.name, url).await, Ok(SignInState::SignedOut) | Err(_)),
                    None => false,
                };
                // Each transport's way to the agent (a new one is a compiler error here).
                let legacy_sse = match transport {
                    RemoteTransport::StreamableHttp => false,
                    RemoteTransport::Sse => true,
                };
                if legacy_sse {
                    if signed_in {
                        return Err("a legacy SSE server with sign-in cannot go through Porthole's \
                                    gateway yet; use its Streamable HTTP address"
                            .into());
                    }
                    let secret = headers.values().any(EnvValue::is_secret);
                    if self.caps.sse && !secret && !self.serve_stdio {
                        let headers = values(c, headers, None, header_key)?
                            .into_iter()
                            .map(|(k, v)| HttpHeader::new(k, v))
                            .collect();
                        let server = McpServerSse::new(&c.name, url.as_str()).headers(headers);
                        return Ok((Route::Direct(McpServer::Sse(server)), None));
                    }
                    // The gateway speaks SSE to it and Streamable HTTP to the agent.
                    if !self.caps.http && !self.caps.stdio {
                        return Err("the agent takes neither HTTP nor stdio MCP servers".into());
                    }
                    let headers = values(c, headers, secrets, header_key)?;
                    let upstream = Upstream::LegacySse {
                        url: url.clone(),
                        headers,
                    };
                    return Ok((Route::Gateway(Via::Http), Some(upstream)));
                }
                if !self.caps.http && !self.caps.stdio {
                    // Neither the address nor the bridge (a stdio server) reaches it.
                    return Err("the agent takes neither HTTP nor stdio MCP servers".into());
                }
                let headers = values(c, headers, secrets, header_key)?;
                let upstream = Upstream::Remote {
                    url: url.clone(),
                    headers,
                };
                Ok((Route::Gateway(Via::Http), Some(upstream)))
            }
        }
    }

    /// What the gateway's pass for this session must serve.
    pub fn upstreams(&self) -> Vec<(String, Upstream)> {
        self.upstreams.clone()
    }

    /// `mcpServers` for the session: nothing in it is a secret.
    pub fn servers(&self, pass: Option<&Pass>, bridge: &BridgeCommand) -> Vec<McpServer> {
        let mut out = Vec::new();
        for (name, route) in &self.routes {
            match route {
                Route::Direct(server) => out.push(server.clone()),
                Route::Gateway(via) => {
                    let Some(url) = pass.and_then(|p| p.url(name)) else {
                        continue;
                    };
                    let bridged = |pipe: bool| {
                        let mut args = bridge.args.clone();
                        if pipe {
                            args.push("--pipe".into());
                        }
                        args.push(url.to_string());
                        McpServer::Stdio(McpServerStdio::new(name, bridge.program.clone()).args(args))
                    };
                    out.push(match via {
                        Via::Http if self.caps.http => {
                            McpServer::Http(McpServerHttp::new(name, url.as_str()))
                        }
                        Via::Http => bridged(false),
                        Via::Pipe => bridged(true),
                    });
                }
            }
        }
        out
    }

    /// Whether `name` is reached through the gateway's stdio host (the bridge's pipe mode).
    pub fn is_piped(&self, name: &str) -> bool {
        self.routes
            .iter()
            .any(|(n, r)| n == name && matches!(r, Route::Gateway(Via::Pipe)))
    }

    /// The connections handed over, in order.
    pub fn names(&self) -> Vec<String> {
        self.routes.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// Every value of a variable or header map, secret ones read from the keyring.
fn values(
    c: &Connection,
    map: &std::collections::BTreeMap<String, EnvValue>,
    secrets: Option<&SecretStore>,
    key: fn(&str) -> String,
) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (name, value) in map {
        let value = match value {
            EnvValue::Plain(v) => v.clone(),
            EnvValue::Secret => {
                let Some(store) = secrets else {
                    return Err(format!(
                        "its value of {name} is in the OS keyring, which is not open"
                    ));
                };
                match store.get(&c.name, &key(name)) {
                    Ok(Some(v)) => v,
                    Ok(None) => return Err(format!("its value of {name} is missing from the OS keyring")),
                    Err(e) => return Err(format!("its value of {name} cannot be read: {e}")),
                }
            }
        };
        out.push((name.clone(), value));
    }
    Ok(out)
}

/// ACP asks for an absolute path; a bare name is looked up on PATH (kept as given when not
/// found: the agent's PATH may differ).
fn absolute(command: &str) -> PathBuf {
    let path = Path::new(command);
    if path.is_absolute() || command.contains('/') {
        return path.to_path_buf();
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(command))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| path.to_path_buf())
}
