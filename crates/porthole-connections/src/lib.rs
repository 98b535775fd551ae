//! MCP connections: the servers a person connects once and hands to every agent.
//!
//! - `list`: the connections file (`~/.config/porthole/connections.json`), its model and edits.
//! - `import`: Claude Desktop's `mcpServers`, VS Code / Cursor `mcp.json` and Zed's
//!   `context_servers`, read into that model.
//! - `secrets`: the values kept out of the file (secret variables and headers, OAuth tokens), in
//!   the OS keyring.

pub mod import;
pub mod list;
pub mod secrets;
