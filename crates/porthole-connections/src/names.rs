//! What a connection may be called: the one rule the list, the keyring and the import share
//! (agents use the name in tool names, and the keyring in its entries' names).

/// The longest connection name (it becomes the MCP server name an agent sees, and agents build
/// tool names from it, e.g. `mcp__<server>__<tool>`).
pub const MAX_NAME_CHARS: usize = 64;

/// A connection name: 1 to [`MAX_NAME_CHARS`] ASCII letters, digits, `-` and `_`, starting with a
/// letter or digit (agents use it in tool names, and the keyring in its entries).
pub fn valid_name(name: &str) -> bool {
    name.len() <= MAX_NAME_CHARS
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
