//! A small MCP client Porthole itself uses on a connection through the gateway: `initialize`,
//! then `tools/list` (every page), so the window and `mcp tools` show what a connection offers
//! exactly as an agent would reach it (signed in by the gateway, never holding the token).
//! It talks through the bridge's own code, over in-memory pipes.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use url::Url;

/// One tool, as `tools/list` described it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Pages of `tools/list` read at most (a server that pages forever is cut off).
const MAX_PAGES: usize = 50;

/// The tools of the connection at `url` (a pass address; `pipe` for a hosted stdio server).
pub async fn tools(url: &Url, pipe: bool, timeout: Duration) -> Result<Vec<ToolInfo>, String> {
    tokio::time::timeout(timeout, list(url, pipe))
        .await
        .map_err(|_| format!("no answer within {} seconds", timeout.as_secs()))?
}

async fn list(url: &Url, pipe: bool) -> Result<Vec<ToolInfo>, String> {
    let (mut to_bridge, bridge_in) = tokio::io::duplex(1 << 16);
    let (bridge_out, from_bridge) = tokio::io::duplex(1 << 16);
    let url = url.clone();
    let bridge = tokio::spawn(async move {
        if pipe {
            crate::bridge::pipe_with(&url, bridge_in, bridge_out).await
        } else {
            crate::bridge::http_with(&url, bridge_in, bridge_out).await
        }
    });
    let mut lines = BufReader::new(from_bridge).lines();
    let mut next_id = 1u64;
    let mut request = async |method: &str, params: Value| -> Result<Value, String> {
        let id = next_id;
        next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        to_bridge
            .write_all(format!("{line}\n").as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        loop {
            let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? else {
                return Err("the connection closed".into());
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id") != Some(&json!(id)) || message.get("method").is_some() {
                // A notification or a server request: a probe answers none of them.
                continue;
            }
            if let Some(error) = message.get("error") {
                let text = error.get("message").and_then(Value::as_str).unwrap_or("an error");
                return Err(text.chars().take(300).collect());
            }
            if method == "initialize" {
                let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                to_bridge
                    .write_all(format!("{done}\n").as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            return Ok(message.get("result").cloned().unwrap_or(Value::Null));
        }
    };
    // The revision sign-in follows too (crate::MCP_PROTOCOL_VERSION): one revision per client.
    let init = json!({
        "protocolVersion": crate::MCP_PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "porthole", "version": env!("CARGO_PKG_VERSION")}
    });
    request("initialize", init).await?;
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = request("tools/list", params).await?;
        for t in page.get("tools").and_then(Value::as_array).into_iter().flatten() {
            if let Some(name) = t.get("name").and_then(Value::as_str) {
                tools.push(ToolInfo {
                    name: name.to_string(),
                    description: t.get("description").and_then(Value::as_str).map(str::to_string),
                });
            }
        }
        cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    bridge.abort();
    Ok(tools)
}
