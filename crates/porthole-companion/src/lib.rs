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
//! - `connections`: `--connections`, the person's MCP connections added to the editor's sessions.

pub mod capabilities;
pub mod cli;
pub mod connections;
pub mod launcher;
pub mod link;
pub mod mcp_questions;
pub mod peek;
pub mod preference;
pub mod questions;
pub mod relay;
pub mod socket;

pub use relay::{ProxyOptions, run_proxy};

/// The framing limit of both sides of the relay and of the link: core's (the framing is core's
/// too, `porthole_core::framing`).
pub const MAX_LINE_BYTES: usize = porthole_core::transport::DEFAULT_MAX_LINE_BYTES;
