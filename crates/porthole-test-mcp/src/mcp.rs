//! The resource server half: a small MCP server over streamable HTTP.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};

use crate::{Body, Ctx, Hostile, json, now, text};

const SESSION: &str = "test-session-1";

pub(crate) async fn handle(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    let bearer = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let valid = {
        let mut state = ctx.state.lock().expect("state");
        if let Some(t) = &bearer {
            state.seen_tokens.push(t.clone());
        }
        bearer
            .as_ref()
            .and_then(|t| state.access.get(t))
            .is_some_and(|exp| *exp > now())
            && ctx.options.hostile != Some(Hostile::Always401)
            || ctx.options.open
    };
    let (parts, incoming) = req.into_parts();
    let body = if parts.method == Method::POST {
        incoming.collect().await.map(|b| b.to_bytes()).unwrap_or_default()
    } else {
        Bytes::new()
    };
    // `late_401`: `initialize` and notifications pass without a token.
    let method_of = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|m| m.get("method").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default();
    // `call_401_scope`: only `tools/call` asks for sign-in.
    let lets_through = (ctx.options.late_401
        && (method_of == "initialize" || method_of.starts_with("notifications/")))
        || (ctx.options.call_401_scope.is_some() && method_of != "tools/call");
    if !valid && !lets_through {
        let scope = ctx
            .options
            .call_401_scope
            .clone()
            .unwrap_or_else(|| "tools:read tools:call".into());
        let challenge = if ctx.options.legacy {
            "Bearer realm=\"mcp\"".to_string()
        } else {
            format!(
                "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"{scope}\"",
                ctx.base
            )
        };
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header("WWW-Authenticate", challenge)
            .body(Full::new(Bytes::new()).boxed())
            .expect("response");
    }
    match parts.method {
        Method::POST => {}
        Method::DELETE => return text(StatusCode::OK, ""),
        _ => return text(StatusCode::METHOD_NOT_ALLOWED, "POST only"),
    }
    let wants_stream = parts
        .headers
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return json(
            StatusCode::BAD_REQUEST,
            &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}}),
        );
    };
    if message.get("method").and_then(Value::as_str) == Some("initialize") {
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        ctx.state.lock().expect("state").initialized.push(params);
    }
    if ctx.options.apps
        && let Some(refused) = crate::apps::session(ctx, &parts.headers, &message)
    {
        return refused;
    }
    let (Some(method), Some(id)) = (
        message.get("method").and_then(Value::as_str),
        message.get("id").cloned(),
    ) else {
        return text(StatusCode::ACCEPTED, "");
    };
    ctx.state.lock().expect("state").served.push(method.to_string());
    if ctx.options.apps
        && let Some(answer) = crate::apps::answer(&id, method, &message)
    {
        return crate::apps::respond(ctx, &parts.headers, answer, wants_stream);
    }
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    if method == "tools/call" {
        let held = bearer
            .as_ref()
            .and_then(|t| ctx.state.lock().expect("state").scopes.get(t).cloned())
            .unwrap_or_default();
        let missing = match &ctx.options.step_up_scope {
            _ if ctx.options.always_403 => Some("tools:call".to_string()),
            Some(s) if !held.contains(s) => Some(format!("{} {s}", held.join(" "))),
            _ => None,
        };
        if let Some(scope) = missing {
            return Response::builder()
                .status(StatusCode::FORBIDDEN)
                .header(
                    "WWW-Authenticate",
                    format!(
                        "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
                        ctx.base
                    ),
                )
                .body(Full::new(Bytes::new()).boxed())
                .expect("response");
        }
    }
    if ctx.options.stream_tool
        && method == "tools/call"
        && params.get("name").and_then(Value::as_str) == Some("stream")
    {
        return stream_events(id, &params, wants_stream);
    }
    let mut answer = answer(id, method, &params);
    if ctx.options.stream_tool
        && method == "tools/list"
        && let Some(tools) = answer.pointer_mut("/result/tools").and_then(Value::as_array_mut)
    {
        tools.push(json!({"name": "stream",
            "description": "Answers with `count` progress notifications, then the result.",
            "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}}));
    }
    if method == "tools/call" && wants_stream {
        // An event stream: a progress notification first when asked for, then the answer.
        let mut events = String::new();
        if let Some(token) = params.pointer("/_meta/progressToken") {
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1, "total": 1}});
            events.push_str(&format!("event: message\ndata: {progress}\n\n"));
        }
        events.push_str(&format!("event: message\ndata: {answer}\n\n"));
        return Response::builder()
            .status(StatusCode::OK)
            .header("Content-Type", "text/event-stream")
            .header("mcp-session-id", SESSION)
            .body(Full::new(Bytes::from(events)).boxed())
            .expect("response");
    }
    let mut response = json(StatusCode::OK, &answer);
    response
        .headers_mut()
        .insert("mcp-session-id", SESSION.parse().expect("header value"));
    response
}

/// The JSON-RPC answer to one request (shared by the HTTP and the stdio server).
pub fn answer(id: Value, method: &str, params: &Value) -> Value {
    let result = match method {
        "initialize" => Ok(json!({
            "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "porthole-test-mcp", "version": "1.0.0"},
        })),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": [
            {"name": "echo", "description": "Echoes its text back.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
            {"name": "whoami", "description": "Says whether the call was signed in.",
             "inputSchema": {"type": "object", "properties": {}}},
            {"name": "env", "description": "Says whether TEST_MCP_SECRET is set (never its value).",
             "inputSchema": {"type": "object", "properties": {}}},
        ]})),
        "tools/call" => call(params),
        _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
    };
    match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
    }
}

/// MCP over stdin and stdout, no sign-in (a stdio connection's server).
pub async fn serve_stdio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(method), Some(id)) = (
            message.get("method").and_then(Value::as_str),
            message.get("id").cloned(),
        ) else {
            continue;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let reply = format!("{}\n", answer(id, method, &params));
        if out.write_all(reply.as_bytes()).await.is_err() || out.flush().await.is_err() {
            return;
        }
    }
}

fn call(params: &Value) -> Result<Value, Value> {
    match params.get("name").and_then(Value::as_str) {
        Some("echo") => {
            let said = params
                .pointer("/arguments/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            Ok(json!({"content": [{"type": "text", "text": format!("echo: {said}")}]}))
        }
        Some("whoami") => Ok(json!({"content": [{"type": "text", "text": "signed in"}]})),
        Some("env") => {
            let set = std::env::var_os("TEST_MCP_SECRET").is_some_and(|v| !v.is_empty());
            let said = if set {
                "TEST_MCP_SECRET is set"
            } else {
                "TEST_MCP_SECRET is not set"
            };
            Ok(json!({"content": [{"type": "text", "text": said}]}))
        }
        other => Err(json!({"code": -32602, "message": format!("no tool {other:?}")})),
    }
}

/// The `stream` tool's answer: an event stream of `count` progress notifications, made as the
/// client reads it (batches of [`EVENTS_PER_FRAME`]), then the result.
fn stream_events(id: Value, params: &Value, wants_stream: bool) -> Response<Body> {
    if !wants_stream {
        return text(
            StatusCode::NOT_ACCEPTABLE,
            "the stream tool answers text/event-stream only",
        );
    }
    let count = params
        .pointer("/arguments/count")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let token = params
        .pointer("/_meta/progressToken")
        .cloned()
        .unwrap_or(json!("stream"));
    let result = json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": format!("streamed {count} events")}]}});
    Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "text/event-stream")
        .header("mcp-session-id", SESSION)
        .body(
            Events {
                token: token.to_string(),
                next: 0,
                count,
                result: Some(format!("event: message\ndata: {result}\n\n")),
            }
            .boxed(),
        )
        .expect("response")
}

const EVENTS_PER_FRAME: u64 = 64;

struct Events {
    token: String,
    next: u64,
    count: u64,
    result: Option<String>,
}

impl hyper::body::Body for Events {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        use std::fmt::Write;
        let this = &mut *self;
        if this.next >= this.count {
            return std::task::Poll::Ready(
                this.result
                    .take()
                    .map(|r| Ok(hyper::body::Frame::data(Bytes::from(r)))),
            );
        }
        let end = (this.next + EVENTS_PER_FRAME).min(this.count);
        let mut frame = String::with_capacity(128 * EVENTS_PER_FRAME as usize);
        for i in this.next..end {
            let _ = write!(
                frame,
                "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{},\"progress\":{},\"total\":{}}}}}\n\n",
                this.token,
                i + 1,
                this.count
            );
        }
        this.next = end;
        std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(Bytes::from(frame)))))
    }
}
