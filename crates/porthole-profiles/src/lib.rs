//! What Porthole keeps about the agents a person uses, apart from any connection to them:
//!
//! - [`agents_config`]: the agents settings file (which agents the user configured, Zed's
//!   `agent_servers` shape, read as JSONC).
//! - [`jsonc`]: reading the settings files people edit by hand (JSONC), with errors that say where.
//! - [`sign_in`]: the `env_var` sign-in methods an agent advertises in `initialize`, and the
//!   rule for which variable names Porthole sets in an agent's environment (also applied by
//!   the registry installer).
//! - [`secrets`]: the sign-in values (variables and API keys) in the OS keyring, with the
//!   names of what is stored beside the settings.
//! - [`keyring`]: opening the OS keyring, for these values and for porthole-connections'.
//!
//! `porthole-core` (the connection) does not depend on this crate: the front ends read a
//! profile here and hand core the command to run.

pub mod agents_config;
pub mod jsonc;
pub mod keyring;
pub mod secrets;
pub mod sign_in;
