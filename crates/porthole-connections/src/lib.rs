//! MCP connections: the servers a person connects once and hands to every agent.
//!
//! - `list`: the connections file (`~/.config/porthole/connections.json`), its model and edits.
//! - `import`: Claude Desktop's `mcpServers`, VS Code / Cursor `mcp.json` and Zed's
//!   `context_servers`, read into that model.

pub mod import;
pub mod list;
