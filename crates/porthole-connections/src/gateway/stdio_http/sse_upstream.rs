//! A remote server of MCP's legacy HTTP+SSE transport (2024-11-05) as the message pipe under
//! the loopback Streamable HTTP server, in place of a stdio process: ACP v2 agents take no SSE
//! servers, and a legacy server with secret headers must not be handed to an agent at all, so
//! the gateway speaks SSE to the server and Streamable HTTP to everyone else (its questions and
//! MCP Apps then reach the person as a Streamable HTTP server's do).
//!
//! The transport: a GET to the server's URL opens its event stream; its first `endpoint` event
//! names where the client POSTs its messages (resolved against the URL; another origin is
//! refused, as the configured headers must go nowhere else); every `message` event is one
//! JSON-RPC message of the server. A POST the server refuses answers its request with an
//! error naming the connection, so nobody waits forever; the stream's end ends the pipe.
//!
//! Events are parsed by `eventsource-stream` (the bridge's parser), each capped at the served
//! stdio server's line cap: an event over it is skipped, its size logged, never its text.

use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use url::Url;

use super::{LINE_CAP, Shared};

/// How long one POST of a message may take (the answer comes on the stream, not here).
const POST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server may take to open its stream and name its endpoint.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// Connect to the SSE server at `url` and carry `lines` to it until its stream ends.
pub(super) async fn run(
    shared: Arc<Shared>,
    url: Url,
    headers: Vec<(String, String)>,
    lines: mpsc::Receiver<String>,
) {
    let name = shared.name.clone();
    let client = match porthole_http::builder().build() {
        Ok(c) => c,
        Err(e) => return shared.gone(format!("no HTTP client for `{name}`: {e}")),
    };
    let mut get = client
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "text/event-stream");
    for (k, v) in &headers {
        get = get.header(k, v);
    }
    let opened = tokio::time::timeout(OPEN_TIMEOUT, get.send()).await;
    let response = match opened {
        Ok(Ok(r)) if r.status().is_success() => r,
        Ok(Ok(r)) => {
            return shared.gone(format!(
                "the SSE server of `{name}` refused its event stream: HTTP {}",
                r.status()
            ));
        }
        Ok(Err(e)) => {
            let e = porthole_http::transport(url.as_str(), e);
            return shared.gone(format!("the SSE server of `{name}` is unreachable: {e}"));
        }
        Err(_) => return shared.gone(format!("the SSE server of `{name}` did not answer in time")),
    };
    let mut events = response.bytes_stream().eventsource();
    let endpoint = tokio::time::timeout(OPEN_TIMEOUT, async {
        while let Some(event) = events.next().await {
            match event {
                Ok(e) if e.event == "endpoint" => return endpoint_of(&url, e.data.trim()),
                Ok(_) => {}
                Err(e) => return Err(format!("its event stream failed: {e}")),
            }
        }
        Err("its event stream ended before naming its endpoint".to_string())
    })
    .await
    .unwrap_or_else(|_| Err("it named no endpoint in time".to_string()));
    let endpoint = match endpoint {
        Ok(e) => e,
        Err(why) => return shared.gone(format!("the SSE server of `{name}`: {why}")),
    };
    let poster = tokio::spawn(post_each(shared.clone(), client, endpoint, headers, lines));
    while let Some(event) = events.next().await {
        match event {
            Ok(e) if e.event == "message" || e.event.is_empty() => {
                if e.data.len() > LINE_CAP {
                    tracing::warn!(
                        connection = name,
                        bytes = e.data.len(),
                        "skipped an event of the SSE server over the cap"
                    );
                    continue;
                }
                shared.server_line(&e.data);
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(connection = name, "the SSE server's event stream failed: {e}");
                break;
            }
        }
    }
    poster.abort();
    shared.gone(format!("the SSE server of `{name}` closed its event stream"));
}

/// The `endpoint` event's URI, resolved against the stream's URL; only on the same origin.
fn endpoint_of(stream: &Url, data: &str) -> Result<Url, String> {
    let endpoint = stream
        .join(data)
        .map_err(|e| format!("its endpoint `{data}` is not a URL: {e}"))?;
    if endpoint.origin() != stream.origin() {
        return Err(format!(
            "its endpoint is on another origin ({}), where its headers must not go",
            endpoint.origin().ascii_serialization()
        ));
    }
    Ok(endpoint)
}

/// POST each message to the endpoint; a refused request is answered with an error.
async fn post_each(
    shared: Arc<Shared>,
    client: reqwest::Client,
    endpoint: Url,
    headers: Vec<(String, String)>,
    mut lines: mpsc::Receiver<String>,
) {
    while let Some(line) = lines.recv().await {
        let mut post = client
            .post(endpoint.clone())
            .timeout(POST_TIMEOUT)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(line.clone());
        for (k, v) in &headers {
            post = post.header(k, v);
        }
        let refused = match post.send().await {
            Ok(r) if r.status().is_success() => continue,
            Ok(r) => format!("HTTP {}", r.status()),
            Err(e) => porthole_http::transport(endpoint.as_str(), e).to_string(),
        };
        tracing::warn!(connection = shared.name, %refused, "the SSE server refused a message");
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // A request gets its answer now (under its wire id), so nobody waits for one.
        if message.get("method").is_some()
            && let Some(id) = message.get("id")
        {
            let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": format!("the SSE server of `{}` refused the message: {refused}", shared.name)}});
            shared.server_line(&error.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_resolved_against_the_stream_and_kept_on_its_origin() {
        let stream = Url::parse("http://127.0.0.1:3000/sse").unwrap();
        assert_eq!(
            endpoint_of(&stream, "/messages?sessionId=abc").unwrap().as_str(),
            "http://127.0.0.1:3000/messages?sessionId=abc"
        );
        assert_eq!(
            endpoint_of(&stream, "messages?sessionId=abc").unwrap().as_str(),
            "http://127.0.0.1:3000/messages?sessionId=abc"
        );
        let elsewhere = endpoint_of(&stream, "https://evil.example/messages").unwrap_err();
        assert!(elsewhere.contains("another origin"), "{elsewhere}");
        assert!(endpoint_of(&stream, "http://127.0.0.1:3001/messages").is_err());
    }
}
