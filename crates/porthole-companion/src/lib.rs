//! Porthole as the companion of any ACP editor.
//!
//! Most ACP editors have no elicitation: their agents quietly drop their questions and sign-in
//! links. An editor runs `porthole proxy -- AGENT...` instead of the agent; the proxy relays
//! ACP both ways, tells the agent the client can elicit (when the editor cannot), and hands
//! every `elicitation/create` to the running Porthole app, whose window asks the user with the
//! same rules and dialogs as for its own agents. The editor never sees elicitation traffic.
//!
//! - `peek`: what a JSON-RPC line is (method, id), without building a value from it.
//! - `link`: the small versioned format between a proxy and the app, and its handshake.
//! - `socket`: where the app listens (a Unix socket in a 0700 runtime directory), and who may
//!   connect (the same user, checked by peer credentials).
//! - `capabilities`: the editor's `initialize`, and Porthole's capabilities merged into it.
//! - `questions`: which of the agent's requests are questions for the app (elicitation,
//!   Gemini CLI's host input, Qwen Code's questions), and their answer when no app can be had.
//! - `preference`: who answers when the editor can (the person's choice in Porthole's Settings).
//! - `relay`: the proxy itself.
//! - `launcher`: starting the app when it is not running.
//! - `mcp_hook`: what `--connections` (the person's MCP connections added to the editor's
//!   sessions) plugs into the relay; `helper`: the slim `porthole-proxy` execs
//!   `porthole-proxy-connections` for it, which links the connections stack this crate does not.
//!
//! This crate links neither porthole-core (the ACP SDK) nor porthole-connections (HTTP, TLS,
//! OAuth, the keyring over D-Bus): an editor starts `porthole-proxy` for every agent, to relay
//! lines. `tests/slim.rs` keeps it so.

pub mod capabilities;
pub mod cli;
pub mod helper;
pub mod launcher;
pub mod link;
pub mod mcp_hook;
pub mod peek;
pub mod preference;
pub mod questions;
pub mod relay;
pub mod socket;

pub use relay::{ProxyOptions, run_proxy};

/// The framing limit of both sides of the relay and of the link: the one framing's
/// (`porthole-framing`, which core's transport reads through too).
pub const MAX_LINE_BYTES: usize = porthole_framing::DEFAULT_MAX_LINE_BYTES;
