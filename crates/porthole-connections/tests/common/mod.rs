//! What several of this crate's integration tests share: a plain Streamable HTTP MCP client, as
//! an agent is one, that speaks to the gateway's address for a connection and reads its answers.
//! Each test binary that declares `mod common;` uses part of it.
#![allow(dead_code)]

use std::sync::Mutex;

use serde_json::Value;
use url::Url;

/// One MCP session's client side: posts JSON-RPC and keeps the session the server names.
pub struct McpClient {
    client: reqwest::Client,
    url: Url,
    session: Mutex<Option<String>>,
}

impl McpClient {
    pub fn new(url: Url) -> Self {
        McpClient {
            client: reqwest::Client::new(),
            url,
            session: Mutex::new(None),
        }
    }

    /// The session id the server gave (`mcp-session-id`), sent with every later post.
    pub fn session(&self) -> Option<String> {
        self.session.lock().unwrap().clone()
    }

    /// Posts `body`; `stream`: accept an event stream too. The answer's status, its JSON-RPC
    /// messages and its raw text.
    pub async fn post(&self, body: Value, stream: bool) -> (u16, Vec<Value>, String) {
        let accept = match stream {
            true => "application/json, text/event-stream",
            false => "application/json",
        };
        let mut request = self
            .client
            .post(self.url.clone())
            .header("Accept", accept)
            .header("Content-Type", "application/json")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(id) = self.session() {
            request = request.header("mcp-session-id", id);
        }
        let answer = request.body(body.to_string()).send().await.unwrap();
        if let Some(id) = answer.headers().get("mcp-session-id") {
            *self.session.lock().unwrap() = Some(id.to_str().unwrap().to_string());
        }
        let status = answer.status().as_u16();
        let content_type = answer
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let text = answer.text().await.unwrap();
        (status, messages(&content_type, &text), text)
    }

    /// Posts `body` accepting JSON or an event stream, as agents do: the status and messages.
    pub async fn send(&self, body: Value) -> (u16, Vec<Value>) {
        let (status, messages, _) = self.post(body, true).await;
        (status, messages)
    }
}

/// The JSON-RPC messages of an answer, JSON or an event stream.
pub fn messages(content_type: &str, body: &str) -> Vec<Value> {
    if content_type.starts_with("application/json") {
        return vec![serde_json::from_str(body).unwrap()];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}
