//! `porthole proxy --connections`: the person's MCP connections follow them into their editor,
//! through the proxy's own gateway, and the MCP bridge the agents run for them
//! (`mcp-bridge [--pipe] URL`).
//!
//! The relay is the companion's (`porthole-companion`); this crate plugs the connections into it
//! (`porthole_companion::mcp_hook`). It holds what the slim `porthole-proxy` must not link: the
//! connections stack (HTTP, TLS, OAuth, the keyring over D-Bus). The slim proxy execs this
//! crate's program for `--connections` and `mcp-bridge`; the app's `porthole proxy` calls
//! [`proxy_main`] in its own process.
//!
//! - `connections`: the connections added to the editor's session requests.
//! - `mcp_questions`: their servers' questions, asked in the app over the proxy's link.

mod connections;
mod mcp_questions;

use std::path::PathBuf;
use std::sync::Arc;

use porthole_companion::launcher::Launcher;
use porthole_companion::mcp_hook::ConnectionsHook;

pub use connections::ProxyConnections;

/// The connections from `file` (`None`: `PORTHOLE_CONNECTIONS_FILE`, else the config folder's),
/// made when the proxy starts.
pub fn hook(file: Option<PathBuf>) -> ConnectionsHook {
    ConnectionsHook::new(move |opts| {
        // Porthole answers the connections' questions even for an agent that declared
        // elicitation, unless the person chose otherwise (the settings' `mcpQuestions`).
        let over_agent = porthole_companion::preference::porthole_answers_mcp(opts.settings_file.as_deref());
        Arc::new(ProxyConnections::new(file.clone(), over_agent))
    })
}

/// `porthole proxy [--always] [--connections] -- AGENT...` with the connections linked in;
/// returns the exit code. `launcher`: as in `porthole_companion::cli::main`.
pub fn proxy_main(args: &[String], launcher: Option<Launcher>) -> i32 {
    porthole_companion::cli::main(args, launcher, Some(hook(None)))
}

/// `mcp-bridge [--pipe] URL`: the bridge an agent runs; returns the exit status.
pub fn bridge_main(args: &[String]) -> i32 {
    let pipe = args.iter().any(|a| a == "--pipe");
    let Some(url) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: porthole-proxy-connections mcp-bridge [--pipe] URL");
        return 2;
    };
    match porthole_connections::bridge::run_blocking(url, pipe) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("porthole-proxy-connections mcp-bridge: {e}");
            1
        }
    }
}
