//! How the client presents itself and what it supports: the options a front end sets.

use std::sync::Arc;
use std::time::Duration;

use crate::broker::Modes;
use crate::transport::{self, WireTap};

/// How the client presents itself and what it supports.
#[derive(Clone)]
pub struct ClientOptions {
    pub modes: Modes,
    /// Serve `fs/read_text_file` and `fs/write_text_file` within session roots.
    pub fs: bool,
    pub client_name: String,
    pub client_version: String,
    pub max_line_bytes: usize,
    pub init_timeout: Duration,
    /// Pending elicitations allowed per session (or per connection for request scope), and
    /// separately pending permission and file-access dialogs per session; beyond it requests
    /// are refused with an error instead of queueing without bound.
    pub max_pending_per_session: usize,
    /// Capacity of the event stream: when the front end falls behind, reading from the agent
    /// pauses (backpressure) instead of buffering without limit.
    pub event_capacity: usize,
    pub tap: Option<Arc<dyn WireTap>>,
    /// Serve `terminal/*` with real processes.
    pub terminals: bool,
    /// Advertise `auth.terminal`: the front end can run the agent's login command in a terminal.
    pub terminal_auth: bool,
    /// What to call the agent when its `initialize` answer has no `agentInfo`: the name it is
    /// configured under. `start` falls back to the command's file name.
    pub agent_name: Option<String>,
    /// Bytes allowed to wait for the agent to read them; beyond it the connection is closed
    /// (an agent that floods requests and never reads its stdin). See `outgoing`.
    pub max_outgoing_bytes: usize,
    /// Which ACP version to speak (docs/acp-v2.md): `Auto` offers v2 and falls back to v1.
    pub protocol: ProtocolChoice,
}

/// The ACP version a front end asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Offer v2 (Preview); an agent that answers 1 gets a v1-shaped `initialize` next, on the
    /// same process, and the connection speaks v1.
    #[default]
    Auto,
    /// Today's path exactly: one v1 `initialize`.
    V1,
    /// v2 only: an agent that answers 1 is an error.
    V2,
}

impl std::str::FromStr for ProtocolChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Self::Auto),
            "1" | "v1" => Ok(Self::V1),
            "2" | "v2" => Ok(Self::V2),
            other => Err(format!("unknown ACP protocol `{other}`: use 1, 2 or auto")),
        }
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            modes: Modes::ALL,
            fs: true,
            client_name: "porthole".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            max_line_bytes: transport::DEFAULT_MAX_LINE_BYTES,
            init_timeout: Duration::from_secs(30),
            max_pending_per_session: 64,
            event_capacity: 1024,
            tap: None,
            terminals: true,
            terminal_auth: false,
            agent_name: None,
            max_outgoing_bytes: crate::outgoing::DEFAULT_MAX_OUTGOING_BYTES,
            protocol: ProtocolChoice::Auto,
        }
    }
}
