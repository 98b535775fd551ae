//! What `--connections` plugs into the relay. The person's MCP connections need the connections
//! stack (OAuth, the OS keyring over D-Bus, an HTTP client and TLS, the gateway), which the
//! proxy an editor starts for every agent does not link: it lives in `porthole-proxy-connections`
//! (the helper `porthole-proxy` execs for `--connections`, see `helper.rs`, and what the app's
//! `porthole proxy` runs in its own process). The relay knows the connections only through
//! [`McpConnections`]: a few calls, and the link to the app they ask their questions over.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::relay::ProxyOptions;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The person's MCP connections, as the relay uses them.
pub trait McpConnections: Send + Sync {
    /// `line` (the editor's `session/new`, `load`, `resume` or `fork`, whose id is
    /// `request_id` as JSON text) with the connections added to its `mcpServers`; `None`: the
    /// line goes as it came. `agent_init` is the agent's `initialize` answer (its MCP
    /// transports, its name).
    fn add_to<'a>(
        &'a self,
        line: &'a [u8],
        request_id: &'a str,
        agent_init: Option<&'a Value>,
    ) -> BoxFuture<'a, Option<Vec<u8>>>;
    /// The relay's link to the app, for the connections' questions (held weakly: the relay
    /// owns the connections).
    fn attach(&self, link: Weak<dyn AppLink>);
    /// The app's answer to the connections' question `id` (`Control::McpQuestion`).
    fn answered(&self, id: u64, answer: Result<Value, String>);
    /// The link to the app went: every waiting question ends without an answer.
    fn link_lost(&self);
    /// The agent answered the session request `request_id` (whose line went through
    /// [`Self::add_to`]): the session it opened, or `None` when it failed.
    fn session_answered(&self, request_id: &str, session_id: Option<&str>);
    /// The editor's session `session_id` was closed or deleted.
    fn session_closed(&self, session_id: &str);
}

/// What the connections' questions need of the relay: the link to the app, and the session to
/// ask in.
pub trait AppLink: Send + Sync {
    /// The link to the app, reached (the app started if allowed) for a question; `Err`: why
    /// there is none.
    fn reach(&self) -> BoxFuture<'_, Result<mpsc::Sender<Vec<u8>>, String>>;
    /// The link to the app when it is up now.
    fn current(&self) -> Option<mpsc::Sender<Vec<u8>>>;
    /// The editor's last opened session: where a question is asked when its own session is not
    /// known (yet).
    fn session(&self) -> Option<String>;
}

type Make = dyn Fn(&ProxyOptions) -> Arc<dyn McpConnections> + Send + Sync;

/// Makes the connections when the proxy starts (in its runtime, with its options).
#[derive(Clone)]
pub struct ConnectionsHook(Arc<Make>);

impl ConnectionsHook {
    pub fn new(make: impl Fn(&ProxyOptions) -> Arc<dyn McpConnections> + Send + Sync + 'static) -> Self {
        Self(Arc::new(make))
    }

    pub(crate) fn make(&self, opts: &ProxyOptions) -> Arc<dyn McpConnections> {
        (self.0)(opts)
    }
}

impl std::fmt::Debug for ConnectionsHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConnectionsHook")
    }
}
