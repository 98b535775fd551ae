//! Porthole's engine, free of any GUI: the agent process, the ACP connection, sessions,
//! the elicitation broker, the restricted-schema model and validator, the URL analyzer, and the
//! consent history (SQLite).
//! Front ends (the desktop app, the CLI) consume [`events::Event`]s and answer dialogs.

pub mod agents_config;
pub mod api_key;
pub mod auth_env;
pub mod broker;
pub mod client;
pub mod events;
pub mod fs_access;
pub mod history;
pub mod inspector;
pub mod models;
pub mod outgoing;
pub mod permission_rules;
pub mod process;
pub mod registry;
pub mod secrets;
pub mod sessions;
pub mod terminal;
pub mod transport;

pub use agent_client_protocol as acp;
pub use broker::Modes;
pub use client::{AgentClient, Answer, ClientError, ClientOptions, RespondError};
pub use events::Event;
/// The elicitation rules live in their own crate (usable by any ACP client); re-exported here
/// so core and its front ends name them as before.
pub use porthole_elicitation::{form, url_safety};
pub use process::AgentCommand;
pub use sessions::{OpenedSession, SessionListing};
