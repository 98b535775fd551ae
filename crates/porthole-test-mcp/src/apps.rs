//! MCP Apps for the gateway's fast tests (`Options::apps`): UI tools in `tools/list`, their
//! calls (JSON, or an event stream with a progress notification first when the client accepts
//! one), `resources/read` of their `ui://` resources with `_meta.ui` (a CSP, permissions), and sessions of
//! their own so a client's session handling shows (a new id per `initialize`; 400 without an
//! id, 404 for a forgotten one).

use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Body, Ctx, json, text};

/// The MIME type of an MCP App's HTML.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The chart tool's resource.
pub const CHART_URI: &str = "ui://charts/chart.html";
/// The resource of the tool that names it the deprecated way (`_meta["ui/resourceUri"]`).
pub const LEGACY_URI: &str = "ui://legacy/app.html";
/// The chart app's HTML.
pub const CHART_HTML: &str =
    "<!doctype html><html><body><div id=chart></div><script>/* chart */</script></body></html>";

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// Records the request; refuses one without a session (400) or with a forgotten one (404).
pub(crate) fn session(ctx: &Ctx, headers: &HeaderMap, message: &Value) -> Option<Response<Body>> {
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("(answer)");
    let id = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut state = ctx.state.lock().expect("state");
    state.requests.push((method.to_string(), id.clone()));
    if method == "initialize" {
        return None;
    }
    match id {
        None => Some(text(
            StatusCode::BAD_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
        )),
        Some(id) if !state.sessions.contains(&id) => Some(text(StatusCode::NOT_FOUND, "Session not found")),
        Some(_) => None,
    }
}

/// The tools: two of `porthole-test-mcp`'s own and the UI ones.
fn tools() -> Value {
    json!([
        {"name": "echo", "description": "Echoes its text back.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "show_chart", "title": "Show a chart",
         "description": "Shows a chart of the numbers given (with `size`, a text of that many bytes).",
         "inputSchema": {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "number"}}, "size": {"type": "integer"}}},
         "_meta": {"ui": {"resourceUri": CHART_URI}}},
        {"name": "legacy_ui", "description": "Names its UI the deprecated way.",
         "inputSchema": {"type": "object", "properties": {}},
         "_meta": {"ui/resourceUri": LEGACY_URI}},
        {"name": "app_only", "description": "For the app only, not the model.",
         "inputSchema": {"type": "object", "properties": {}},
         "_meta": {"ui": {"resourceUri": CHART_URI, "visibility": ["app"]}}},
        {"name": "fail_ui", "description": "A UI tool that fails.",
         "inputSchema": {"type": "object", "properties": {}},
         "_meta": {"ui": {"resourceUri": CHART_URI}}},
        {"name": "web_ui", "description": "Names a web page, not a ui:// resource.",
         "inputSchema": {"type": "object", "properties": {}},
         "_meta": {"ui": {"resourceUri": "https://ui.example/app.html"}}},
    ])
}

/// The answer to `method` when it is one of the apps', else `None`.
pub(crate) fn answer(id: &Value, method: &str, message: &Value) -> Option<Value> {
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => Ok(json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}, "resources": {}},
            "serverInfo": {"name": "porthole-test-mcp-apps", "version": "1.0.0"},
        })),
        "tools/list" => Ok(json!({"tools": tools()})),
        "tools/call" => match params.get("name").and_then(Value::as_str) {
            Some("show_chart") => Ok(chart(&params["arguments"])),
            Some("legacy_ui" | "app_only" | "web_ui") => {
                Ok(json!({"content": [{"type": "text", "text": "done"}]}))
            }
            Some("fail_ui") => Err(json!({"code": -32000, "message": "the chart failed"})),
            _ => return None,
        },
        "resources/read" => match params.get("uri").and_then(Value::as_str) {
            Some(uri @ (CHART_URI | LEGACY_URI)) => Ok(json!({"contents": [{
                "uri": uri, "mimeType": MIME_TYPE, "text": CHART_HTML,
                "_meta": {"ui": {
                    "csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
                    "permissions": {"microphone": {}, "clipboardWrite": {}},
                    "prefersBorder": true,
                }},
            }]})),
            other => Err(json!({"code": -32002, "message": format!("Resource {other:?} not found")})),
        },
        _ => return None,
    };
    Some(match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
    })
}

fn chart(arguments: &Value) -> Value {
    if let Some(size) = arguments.get("size").and_then(Value::as_u64) {
        return json!({"content": [{"type": "text", "text": "x".repeat(size as usize)}]});
    }
    let points = arguments
        .get("data")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    json!({"content": [{"type": "text", "text": format!("a chart of {points} points")}],
        "structuredContent": {"points": points}})
}

/// `answer` sent: an `initialize` opens a session; a tool call answers an event stream when the
/// client takes one.
pub(crate) fn respond(ctx: &Ctx, headers: &HeaderMap, answer: Value, wants_stream: bool) -> Response<Body> {
    let session = match answer.pointer("/result/serverInfo").is_some() {
        true => {
            let id = format!("apps-session-{}", NEXT_SESSION.fetch_add(1, Ordering::Relaxed));
            ctx.state.lock().expect("state").sessions.insert(id.clone());
            id
        }
        false => headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string(),
    };
    let is_call = answer.pointer("/result/content").is_some() || answer.get("error").is_some();
    let mut response = if wants_stream && is_call {
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "drawing"}});
        let events = format!("event: message\ndata: {progress}\n\nevent: message\nid: 1\ndata: {answer}\n\n");
        Response::builder()
            .status(StatusCode::OK)
            .header("Content-Type", "text/event-stream")
            .body(Full::new(Bytes::from(events)).boxed())
            .expect("response")
    } else {
        json(StatusCode::OK, &answer)
    };
    if let Ok(value) = session.parse() {
        response.headers_mut().insert("mcp-session-id", value);
    }
    response
}
