//! MCP connections: the servers a person connects once and hands to every agent.
//!
//! - `list`: the connections file (`~/.config/porthole/connections.json`), its model and edits.
//! - `import`: Claude Desktop's `mcpServers`, VS Code / Cursor `mcp.json` and Zed's
//!   `context_servers`, read into that model.
//! - `oauth`: signing in to a remote server (discovery, registration, PKCE, refresh, revocation).
//! - `http`: the one HTTP client, its caps and the rule every address must meet.
//! - `secrets`: the values kept out of the file (secret variables and headers, OAuth tokens), in
//!   the OS keyring.

pub mod bridge;
pub mod connector;
pub mod gateway;
pub mod handoff;
pub mod http;
pub mod import;
pub mod list;
pub mod names;
pub mod oauth;
pub mod probe;
pub mod secrets;
pub mod tokens;
pub mod tool_match;

/// The MCP revision whose authorization rules sign-in follows.
pub const MCP_PROTOCOL_VERSION: &str = "2025-11-25";
