//! The official MCP Apps example servers (`@modelcontextprotocol/server-basic-vanillajs`,
//! `@modelcontextprotocol/server-budget-allocator`, pinned in tests/mcp-apps/package-lock.json,
//! installed by `./scripts/test-mcp-apps --install`), started for a test: servers nobody here
//! wrote, with the launcher of [`crate::ts_sdk`].
//!
//! They listen on every interface with DNS-rebinding protection off and take no host, so each
//! runs with tests/mcp-apps/loopback.mjs preloaded, which makes it listen on 127.0.0.1 only;
//! the address it bound is checked before the server is used.

pub use crate::ts_sdk::TsExample;

/// The basic example (vanilla JS): one UI tool, `get-time`, with `ui://get-time/mcp-app.html`.
pub const BASIC: &str = "server-basic-vanillajs";
/// The budget allocator: `get-budget-data`, with `ui://budget-allocator/mcp-app.html`.
pub const BUDGET: &str = "server-budget-allocator";

/// Start `package` (one of [`BASIC`], [`BUDGET`]) on a free loopback port. Blocks until it
/// listens (call it from `spawn_blocking` in async code).
pub fn start(package: &str) -> TsExample {
    let dir = crate::ts_sdk::repo_root().join("tests/mcp-apps");
    let script = dir
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        script.exists(),
        "{} is missing: install the MCP Apps examples with `./scripts/test-mcp-apps --install`",
        script.display()
    );
    let preload = dir.join("loopback.mjs");
    let args = [std::ffi::OsStr::new("--import"), preload.as_os_str()];
    crate::ts_sdk::launch(&script, &args, package, |line| {
        let bound = line.strip_prefix("porthole-loopback: listening on ")?;
        Some(match bound.starts_with("127.0.0.1:") {
            true => Ok(()),
            false => Err(format!("listens on {bound}, not on loopback only")),
        })
    })
}
