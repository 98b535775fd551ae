//! The demo agent as an MCP client: the stdio servers a client hands it in `mcpServers` (it
//! advertises no `http`, so Porthole hands remote connections over as its bridge). `/tools`
//! lists their tools; `/tools SERVER TOOL {json}` calls one and shows the result.

use std::process::Stdio;
use std::time::Duration;

use agent_client_protocol::v1::schema::{McpServer, McpServerStdio};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const TIMEOUT: Duration = Duration::from_secs(20);

/// A running stdio MCP server, initialized.
struct Client {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next: u64,
}

impl Client {
    async fn start(server: &McpServerStdio) -> Result<Client, String> {
        let mut child = tokio::process::Command::new(&server.command)
            .args(&server.args)
            .envs(server.env.iter().map(|e| (&e.name, &e.value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", server.command.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut client = Client {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            next: 0,
        };
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "porthole-demo-agent", "version": env!("CARGO_PKG_VERSION")}});
        client.request("initialize", init).await?;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(client)
    }

    async fn send(&mut self, message: Value) -> Result<(), String> {
        let line = format!("{message}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| e.to_string())
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        loop {
            let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
                .await
                .map_err(|_| format!("no answer to {method} within {}s", TIMEOUT.as_secs()))?
                .map_err(|e| e.to_string())?
                .ok_or("the server closed its output")?;
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                if let Some(e) = message.get("error") {
                    return Err(e
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                        .to_string());
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn stdio(server: &McpServer) -> Option<&McpServerStdio> {
    match server {
        McpServer::Stdio(s) => Some(s),
        _ => None,
    }
}

pub fn name(server: &McpServer) -> &str {
    match server {
        McpServer::Stdio(s) => &s.name,
        McpServer::Http(s) => &s.name,
        McpServer::Sse(s) => &s.name,
        _ => "?",
    }
}

/// `tools/list` of one server: (name, description).
pub async fn tools(server: &McpServer) -> Result<Vec<(String, String)>, String> {
    let stdio = stdio(server).ok_or("only stdio servers are reached by this demo agent")?;
    let mut client = Client::start(stdio).await?;
    let listed = client.request("tools/list", json!({})).await?;
    Ok(listed
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let field = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (field("name"), field("description"))
        })
        .collect())
}

/// `tools/call`: the text of its result (or the tool's error).
pub async fn call(server: &McpServer, tool: &str, arguments: Value) -> Result<String, String> {
    let stdio = stdio(server).ok_or("only stdio servers are reached by this demo agent")?;
    let mut client = Client::start(stdio).await?;
    // As an agent with a model does: it learns the server's tools before it calls one (and
    // the gateway learns which of them show an MCP App).
    client.request("tools/list", json!({})).await?;
    let result = client
        .request("tools/call", json!({"name": tool, "arguments": arguments}))
        .await?;
    let text: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    Ok(text.join("\n"))
}
