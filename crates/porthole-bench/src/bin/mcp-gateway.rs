//! Issue 31's gateway benchmark, the pieces bench/gateway.py runs as separate processes (the
//! MCP server, Porthole's gateway, and the agent's MCP client each in its own process):
//!
//! - `mcp-gateway host UPSTREAM_URL [--current-thread]`: Porthole's gateway
//!   (`porthole_connections::gateway`) on 127.0.0.1 with one connection, `bench`, to
//!   UPSTREAM_URL (a server that needs no sign-in); prints `ready GATEWAY_URL` and serves until
//!   its stdin closes. On tokio's multi-thread runtime, as in the app, or on one thread.
//! - `mcp-gateway calls URL K WARMUP`: an MCP client: `initialize`, then WARMUP + K sequential
//!   `tools/call` of `echo` (answered as an event stream), each timed from sending the request
//!   to the end of its answer; prints `{"samples_us": [...]}` (the K after the warm-up).
//! - `mcp-gateway stream URL N [--parse]`: one `tools/call` of porthole-test-mcp's `stream` tool
//!   (started with `--stream-tool`), read as it comes, every event's progress number checked in
//!   order (found in the line, or with `--parse` read from the event parsed as JSON, as an MCP
//!   client does);
//!   prints `{"events": N, "bytes": B, "chunks": C, "seconds": S}` (C: body chunks the client
//!   read).
//!
//! Figures only; nothing here passes or fails on time.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use porthole_connections::gateway::{Gateway, NoTokens, PassOwner, Upstream};
use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!(
            "usage: mcp-gateway host UPSTREAM_URL [--current-thread] | calls URL K WARMUP | stream URL N [--parse]"
        );
        std::process::exit(2)
    };
    let url = |i: usize| -> url::Url {
        args.get(i)
            .and_then(|u| url::Url::parse(u).ok())
            .unwrap_or_else(|| usage())
    };
    let number = |i: usize| -> u64 {
        args.get(i)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| usage())
    };
    match args.first().map(String::as_str) {
        // The gateway runs on tokio's multi-thread runtime in the app.
        Some("host") if args.get(2).is_some_and(|a| a == "--current-thread") => {
            client_runtime().block_on(host(url(1)))
        }
        Some("host") => tokio::runtime::Runtime::new()
            .expect("runtime")
            .block_on(host(url(1))),
        Some("calls") => client_runtime().block_on(calls(url(1), number(2), number(3))),
        Some("stream") => {
            let parse = args.get(3).is_some_and(|a| a == "--parse");
            client_runtime().block_on(stream(url(1), number(2), parse))
        }
        _ => usage(),
    }
}

fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

async fn host(upstream: url::Url) {
    let gateway = // The benchmark's connection needs no sign-in, so no token is ever sent.
    Gateway::start(Arc::new(NoTokens("the benchmark signs in nowhere".into())))
        .await
        .expect("the gateway starts");
    let pass = gateway.open(
        vec![(
            "bench".into(),
            Upstream::Remote {
                url: upstream,
                headers: vec![],
            },
        )],
        PassOwner::default(),
    );
    println!("ready {}", pass.url("bench").expect("the pass has `bench`"));
    let mut sink = Vec::new();
    let _ = tokio::io::AsyncReadExt::read_to_end(&mut tokio::io::stdin(), &mut sink).await;
}

fn client() -> reqwest::Client {
    porthole_connections::http::install_crypto_provider();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("the client builds")
}

fn post(
    client: &reqwest::Client,
    url: &url::Url,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut request = client
        .post(url.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(body.to_string());
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    request
}

async fn initialize(client: &reqwest::Client, url: &url::Url) -> Option<String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    let answer = post(client, url, None, &init).send().await.expect("initialize");
    assert!(
        answer.status().is_success(),
        "initialize: HTTP {}",
        answer.status()
    );
    let session = answer
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    answer.bytes().await.expect("initialize's answer");
    session
}

async fn calls(url: url::Url, k: u64, warmup: u64) {
    let client = client();
    let session = initialize(&client, &url).await;
    let mut samples = Vec::with_capacity(k as usize);
    for i in 0..warmup + k {
        let text = format!("ping {i}");
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}});
        let start = Instant::now();
        let answer = post(&client, &url, session.as_deref(), &call)
            .send()
            .await
            .expect("tools/call");
        let body = answer.bytes().await.expect("tools/call's answer");
        let elapsed = start.elapsed();
        let expected = format!("echo: {text}\"");
        assert!(
            body.windows(expected.len()).any(|w| w == expected.as_bytes()),
            "call {i}: {}",
            String::from_utf8_lossy(&body)
        );
        if i >= warmup {
            samples.push(elapsed.as_secs_f64() * 1e6);
        }
    }
    println!("{}", json!({"samples_us": samples}));
}

async fn stream(url: url::Url, n: u64, parse: bool) {
    let client = client();
    let session = initialize(&client, &url).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "stream", "arguments": {"count": n}}});
    let start = Instant::now();
    let answer = post(&client, &url, session.as_deref(), &call)
        .send()
        .await
        .expect("tools/call stream");
    assert!(answer.status().is_success(), "stream: HTTP {}", answer.status());
    let mut body = answer.bytes_stream();
    let mut pending: Vec<u8> = Vec::with_capacity(1 << 16);
    let (mut events, mut bytes, mut chunks, mut result) = (0u64, 0u64, 0u64, false);
    while let Some(chunk) = body.next().await {
        let chunk = chunk.expect("the stream");
        bytes += chunk.len() as u64;
        chunks += 1;
        pending.extend_from_slice(&chunk);
        let mut from = 0;
        while let Some(at) = pending[from..].iter().position(|&b| b == b'\n') {
            let line = &pending[from..from + at];
            from += at + 1;
            let Some(data) = line.strip_prefix(b"data: ") else {
                continue;
            };
            let found = if parse {
                serde_json::from_slice::<Value>(data)
                    .expect("an event's data is JSON")
                    .pointer("/params/progress")
                    .and_then(Value::as_u64)
            } else {
                progress(data)
            };
            match found {
                Some(p) => {
                    events += 1;
                    assert_eq!(p, events, "event {events} carries progress {p}");
                }
                None => {
                    let expected = format!("streamed {n} events");
                    assert!(
                        data.windows(expected.len()).any(|w| w == expected.as_bytes()),
                        "{}",
                        String::from_utf8_lossy(data)
                    );
                    result = true;
                }
            }
        }
        pending.drain(..from);
    }
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(events, n, "events counted");
    assert!(result, "the stream ended without its result");
    println!(
        "{}",
        json!({"events": events, "bytes": bytes, "chunks": chunks, "seconds": seconds})
    );
}

/// The `"progress":N` of a progress notification's data line.
fn progress(data: &[u8]) -> Option<u64> {
    const KEY: &[u8] = b"\"progress\":";
    let at = data.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let digits = data[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&data[at..at + digits]).ok()?.parse().ok()
}
