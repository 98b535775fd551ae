//! The official MCP TypeScript SDK's example servers (`@modelcontextprotocol/sdk`, pinned in
//! tests/mcp-ts-sdk/package-lock.json, installed by `./scripts/test-mcp-ts-sdk --install`),
//! started for a test: servers nobody here wrote. One launcher for every crate's tests.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// Where the SDK's example servers are, from the repository's root.
const EXAMPLES: &str = "tests/mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server";

/// The repository's root, found at run time from the running test's package folder (cargo sets
/// `CARGO_MANIFEST_DIR` for it, and runs it there): a path baked in when this library was
/// compiled would name the clone it was compiled in, which a shared target dir may reuse for
/// another clone.
pub(crate) fn repo_root() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    start
        .ancestors()
        .find(|dir| dir.join("tests/mcp-ts-sdk/package.json").is_file())
        .map(PathBuf::from)
        .unwrap_or(start)
}

/// A running example server, killed when dropped.
pub struct TsExample {
    child: Child,
    /// Its MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    pub port: u16,
}

impl Drop for TsExample {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port outside Linux's ephemeral range (32768-60999), free now on every interface (the
/// examples listen on all of them): a port from `bind(0)` may be handed to the next `bind(0)`
/// (a gateway of a test running beside this one) before node takes it.
fn free_port(attempt: u32) -> u16 {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(attempt);
    (0..1000u32)
        .map(|i| 20000 + ((seed / 7 + (attempt * 1000 + i) * 7919) % 10000) as u16)
        .find(|p| std::net::TcpListener::bind(("0.0.0.0", *p)).is_ok())
        .expect("a free port in 20000-29999")
}

/// Start the example `script` (say `elicitationFormExample.js`) on a free port; a port taken
/// before node listens is tried again with another. Blocks until it listens (call it from
/// `spawn_blocking` in async code).
pub fn start(script: &str) -> TsExample {
    let path = repo_root().join(EXAMPLES).join(script);
    assert!(
        path.exists(),
        "{} is missing: install the SDK with `./scripts/test-mcp-ts-sdk --install`",
        path.display()
    );
    // The examples print this once they listen, and exit on EADDRINUSE.
    launch(&path, &[], script, |l| {
        (l.contains("is running on") || l.contains("listening on")).then_some(Ok(()))
    })
}

/// Run `node NODE_ARGS SCRIPT` with `PORT` (and `MCP_PORT`) set to a free port until `ready`
/// says of a line of its stdout that it listens (`Some(Ok)`) or listens wrongly (`Some(Err)`:
/// a panic with the reason). A server whose stdout ends first (EADDRINUSE) is tried again on
/// another port, 5 times. The launcher of every node server the tests start.
pub(crate) fn launch(
    script: &std::path::Path,
    node_args: &[&std::ffi::OsStr],
    what: &str,
    ready: impl Fn(&str) -> Option<Result<(), String>>,
) -> TsExample {
    for attempt in 0..5 {
        let port = free_port(attempt);
        let mut child = Command::new("node")
            .args(node_args)
            .arg(script)
            .env("PORT", port.to_string())
            .env("MCP_PORT", port.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs (Node 20 or newer)");
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("piped")).lines();
        let listening = lines.by_ref().map_while(Result::ok).find_map(|l| ready(&l));
        let example = TsExample {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
            port,
        };
        match listening {
            Some(Ok(())) => {
                // Its further logging is not read: drained so the server never blocks on a full pipe.
                std::thread::spawn(move || lines.for_each(drop));
                return example;
            }
            Some(Err(why)) => panic!("{what}: {why}"),
            None => {}
        }
    }
    panic!("the server {what} did not start in 5 attempts (its stderr is above)");
}

/// Start `tests/mcp-ts-sdk/mrtr-server.mjs`: a server of the 2026-07-28 revision built on the
/// official TypeScript SDK v2, whose tool asks with an `input_required` result.
pub fn start_mrtr() -> TsExample {
    let path = repo_root().join("tests/mcp-ts-sdk/mrtr-server.mjs");
    let sdk = repo_root().join("tests/mcp-ts-sdk/node_modules/@modelcontextprotocol/server");
    assert!(
        sdk.exists(),
        "{} is missing: install the SDK with `./scripts/test-mcp-ts-sdk --install`",
        sdk.display()
    );
    launch(&path, &[], "mrtr-server.mjs", |l| {
        l.contains("MRTR example listening on").then_some(Ok(()))
    })
}

/// `tests/mcp-ts-sdk/sse-server.mjs`: a legacy HTTP+SSE server (MCP 2024-11-05) on the official
/// TypeScript SDK's `SSEServerTransport`, behind the header `x-api-key: sse-key` (its default).
/// Its `url` is the event stream's (`/sse`).
pub fn start_legacy_sse() -> TsExample {
    let path = repo_root().join("tests/mcp-ts-sdk/sse-server.mjs");
    let sdk = repo_root().join("tests/mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk");
    assert!(
        sdk.exists(),
        "{} is missing: install the SDK with `./scripts/test-mcp-ts-sdk --install`",
        sdk.display()
    );
    let mut example = launch(&path, &[], "sse-server.mjs", |l| {
        l.contains("SSE example listening on").then_some(Ok(()))
    });
    example.url = format!("http://127.0.0.1:{}/sse", example.port);
    example
}

/// `tests/mcp-ts-sdk/modern-client.mjs`, the official TypeScript SDK v2's client (2026-07-28,
/// no elicitation declared), calling `tool` with `arguments` at `url`: the JSON line it prints.
pub fn call_as_modern_agent(url: &str, tool: &str, arguments: &serde_json::Value) -> serde_json::Value {
    let script = repo_root().join("tests/mcp-ts-sdk/modern-client.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .args([url, tool, &arguments.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs (Node 20 or newer)");
    // A gateway that never answers must fail the test, not hang it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("wait for node").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("modern-client.mjs got no answer in 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("node's output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "modern-client.mjs failed ({}): {text}",
        out.status
    );
    serde_json::from_str(text.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("modern-client.mjs printed no JSON line ({e}): {text}"))
}
