//! Porthole's engine, free of any GUI: one ACP connection to one agent process and what it needs.
//!
//! - The connection: the agent process ([`process`]), the line transport with its limits
//!   ([`transport`], over the one line framing, [`framing`], which the companion uses too), the client ([`client`]: initialize, turns, shutdown, and a handler per
//!   request the agent makes), sessions ([`sessions`], [`models`]) and the protocol inspector
//!   ([`inspector`]).
//! - What the agent may ask of the user: the elicitation broker ([`broker`]; the form and URL
//!   rules are `porthole-elicitation`'s, re-exported as [`form`] and [`url_safety`]),
//!   permissions and their "always" rules ([`permission_rules`]), files ([`fs_access`]) and
//!   terminals ([`terminal`]), all delivered as typed [`events::Event`]s in wire order.
//! - Sign-in: API keys sent with `authenticate` ([`api_key`]); the raw `authMethods` of the
//!   `initialize` answer ([`AgentClient::raw_auth_methods`]) for what the SDK does not type.
//!
//! Leaves the connection never needs live in their own crates: the agents settings file, the
//! `env_var` sign-in methods and their values in the OS keyring in `porthole-profiles`, the
//! ACP registry installer in `porthole-registry`, the consent history (SQLite) in
//! `porthole-history`.
//! Front ends (the desktop app, the CLI) consume [`events::Event`]s and answer dialogs.

pub mod api_key;
pub mod broker;
pub mod client;
pub mod events;
pub mod fs_access;
mod initialize;
pub mod inspector;
pub mod logging;
pub mod models;
pub mod outgoing;
pub mod permission_rules;
pub mod process;
pub mod sessions;
pub mod terminal;
pub mod transcript;
pub mod transport;

pub use agent_client_protocol as acp;
/// The one line framing (its own leaf crate, which the companion's proxy uses without core).
pub use porthole_framing as framing;
/// The options of the permission dialog an MCP App's tool call brings
/// ([`AgentClient::ask_app_permission`]).
pub mod app_permission {
    pub use crate::client::handlers::permission::{APP_ALLOW_ALWAYS, APP_ALLOW_ONCE, APP_REJECT};
}
pub use broker::Modes;
pub use client::{
    AgentClient, Answer, ClientError, ClientOptions, DialogAnswer, McpTransports, ProtocolChoice,
    RespondError,
};
pub use events::Event;
/// The elicitation rules live in their own crate (usable by any ACP client); re-exported here
/// so core and its front ends name them as before.
pub use porthole_elicitation::{form, hidden_chars, url_safety};
pub use process::AgentCommand;
pub use sessions::{Open, OpenedSession, SessionListing, Workspace};
