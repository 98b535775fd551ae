//! The person's MCP connections (docs/connections.md), handed to every session the window
//! opens: the connections file is read at each session, the gateway starts on first need, and
//! each session's pass lives until the session closes or its agent stops. A connection whose
//! sign-in expired tells the window, in the sessions that use it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use porthole_connections::connector::{Connector, Handed};
use porthole_connections::gateway::{GatewayEvent, Pass, PassOwner};
use porthole_connections::handoff::{AgentMcp, BridgeCommand};
use porthole_connections::list::{self, Connection, Connections, Server};
use porthole_connections::secrets::SecretStore;
use porthole_core::acp::v1::schema::McpServer;

use crate::app_event::AppEvent;
use crate::mcp_questions::WindowQuestions;
use crate::mcp_view::{self, McpConnectionList, McpSignIn, McpTool};
use crate::{AnswerError, Backend};

/// How long the Connections view waits for a connection's `tools/list`.
const TOOLS_TIMEOUT: Duration = Duration::from_secs(30);

/// `PROGRAM [ARGS...]` the agents run for a bridged connection; default: this executable's
/// `mcp-bridge` (the desktop app's subcommand).
const BRIDGE_ENV: &str = "PORTHOLE_MCP_BRIDGE";

#[derive(Default)]
pub(crate) struct AppConnections {
    /// Made on first need (it needs the backend to tell the window about problems).
    connector: OnceLock<Connector>,
    /// Where secrets are kept when not in the OS keyring (`Backend::keep_mcp_secrets_in`).
    secrets: Mutex<Option<Arc<SecretStore>>>,
}

/// What one session got: its pass (when a connection goes through the gateway) and the names
/// of the connections handed to it. Held by the session's connection (`Conn::mcp`): the pass
/// lives until the session closes or its connection goes. Dropping it closes the pass (the
/// gateway kills its stdio servers): done once the state lock is released.
pub(crate) struct Kept {
    _pass: Option<Pass>,
    names: Vec<String>,
}

impl Kept {
    /// `None` when the session got nothing.
    pub(crate) fn new(pass: Option<Pass>, names: Vec<String>) -> Option<Self> {
        (pass.is_some() || !names.is_empty()).then_some(Kept { _pass: pass, names })
    }
}

/// The name of a server in `mcpServers`.
pub(crate) fn server_name(server: &McpServer) -> Option<String> {
    match server {
        McpServer::Http(s) => Some(s.name.clone()),
        McpServer::Sse(s) => Some(s.name.clone()),
        McpServer::Stdio(s) => Some(s.name.clone()),
        _ => None,
    }
}

fn path() -> Option<PathBuf> {
    list::default_path()
}

fn bridge() -> BridgeCommand {
    if let Some(words) = std::env::var(BRIDGE_ENV).ok().filter(|v| !v.trim().is_empty())
        && let Ok(command) = porthole_core::AgentCommand::parse(&words)
    {
        return BridgeCommand {
            program: command.program.into(),
            args: command.args,
        };
    }
    BridgeCommand {
        program: std::env::current_exe().unwrap_or_else(|_| "porthole".into()),
        args: vec!["mcp-bridge".into()],
    }
}

impl crate::AppState {
    /// The open sessions that got `connection`, sorted.
    pub(crate) fn sessions_with(&self, connection: &str) -> Vec<String> {
        let mut sessions: Vec<String> = self
            .conns
            .values()
            .flat_map(|c| c.mcp.iter())
            .filter(|(_, kept)| kept.names.iter().any(|c| c == connection))
            .map(|(s, _)| s.clone())
            .collect();
        sessions.sort();
        sessions
    }
}

impl Backend {
    /// Keep the MCP connections' secrets and sign-ins in `secrets` instead of the OS keyring
    /// (an embedder's own store; an in-memory one in tests). Only before the first use.
    pub fn keep_mcp_secrets_in(&self, secrets: Arc<SecretStore>) -> Result<(), AnswerError> {
        let mut slot = self.0.mcp.secrets.lock().unwrap_or_else(|p| p.into_inner());
        if self.0.mcp.connector.get().is_some() {
            return Err(AnswerError::msg("the connections' keyring is already in use"));
        }
        *slot = Some(secrets);
        Ok(())
    }

    pub(crate) fn connector(&self) -> &Connector {
        self.0.mcp.connector.get_or_init(|| {
            // Weak: the connector lives inside the backend it reports to.
            let weak = Arc::downgrade(&self.0);
            let on_event = Arc::new(move |event: GatewayEvent| {
                let Some(inner) = weak.upgrade() else { return };
                let backend = Backend(inner);
                let (connection, reason, needs_sign_in) = match event {
                    GatewayEvent::SignInNeeded { connection, reason } => (connection, reason, true),
                    GatewayEvent::StdioFailed { connection, reason } => (connection, reason, false),
                };
                let sessions = backend.state().sessions_with(&connection);
                backend.push_app(AppEvent::McpConnectionProblem {
                    connection,
                    reason,
                    needs_sign_in,
                    sessions,
                });
            });
            match self
                .0
                .mcp
                .secrets
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
            {
                Some(secrets) => Connector::with_secrets(bridge(), on_event, secrets),
                None => Connector::new(bridge(), on_event),
            }
        })
    }

    /// The connections `agent_id` gets, for a session it is about to open in `cwd` (where the
    /// stdio servers the gateway starts for it run), and who asks their servers' questions in
    /// the window (told the session once it is open).
    pub(crate) async fn hand_connections(
        &self,
        agent_id: &str,
        caps: AgentMcp,
        cwd: &std::path::Path,
    ) -> (Handed, Option<Arc<WindowQuestions>>) {
        let empty = Handed {
            servers: Vec::new(),
            pass: None,
            skipped: Vec::new(),
            piped: Vec::new(),
        };
        let Some(path) = path() else {
            return (empty, None);
        };
        let list = match Connections::load(&path) {
            Ok(list) => list,
            Err(e) => {
                tracing::warn!(error = %e, "the MCP connections file is not used");
                let handed = Handed {
                    skipped: vec![("connections.json".into(), e.to_string())],
                    ..empty
                };
                return (handed, None);
            }
        };
        let chosen: Vec<_> = list.for_agent(agent_id).cloned().collect();
        if chosen.is_empty() {
            return (empty, None);
        }
        let questions = WindowQuestions::new(self, agent_id, &chosen);
        let settings = self.settings();
        let owner = PassOwner {
            agent: agent_id.to_string(),
            questions: Some(questions.clone()),
            apps: settings
                .mcp_apps
                .then(|| questions.clone() as Arc<dyn porthole_connections::gateway::Apps>),
            over_agent: settings.mcp_questions != "agent",
            cwd: Some(cwd.to_path_buf()),
            ..PassOwner::default()
        };
        let handed = self.connector().hand(&chosen, Some(caps), owner).await;
        (handed, Some(questions))
    }
}

/// The connections file, for the window's commands.
pub(crate) fn file() -> Result<PathBuf, AnswerError> {
    path().ok_or_else(|| {
        AnswerError::msg("there is no config folder for the connections file (set PORTHOLE_CONNECTIONS_FILE)")
    })
}

pub(crate) fn load(path: &Path) -> Result<Connections, AnswerError> {
    Connections::load(path).map_err(|e| AnswerError::msg(e.to_string()))
}

pub(crate) fn find(list: &Connections, name: &str) -> Result<Connection, AnswerError> {
    list.get(name)
        .cloned()
        .ok_or_else(|| AnswerError::msg(format!("no connection named `{name}`")))
}

/// Switch `name` on or off in the file at `path`.
fn set_enabled_at(path: &Path, name: &str, on: bool) -> Result<(), AnswerError> {
    let mut list = load(path)?;
    list.set_enabled(name, on)
        .and_then(|()| list.save(path))
        .map_err(|e| AnswerError::msg(e.to_string()))
}

/// The MCP bundle folder `removed` ran from, removed unless another connection of the file at
/// `path` runs from it; said in `text`.
fn forget_bundle(path: &Path, removed: &Connection, text: &mut String) {
    let forgotten = porthole_mcp_registry::Bundles::from_env().and_then(|bundles| {
        let list = Connections::load(path).map_err(|e| e.to_string())?;
        bundles.forget(removed, &list)
    });
    match forgotten {
        Ok(Some(folder)) => text.push_str(&format!(" Its MCP bundle was removed ({}).", folder.display())),
        Ok(None) => {}
        Err(e) => text.push_str(&format!(" Its MCP bundle's folder is left: {e}")),
    }
}

/// Take `name` out of the file at `path`; returns it (its keyring values are the caller's).
fn remove_at(path: &Path, name: &str) -> Result<Connection, AnswerError> {
    let mut list = load(path)?;
    let removed = list.remove(name).map_err(|e| AnswerError::msg(e.to_string()))?;
    list.save(path).map_err(|e| AnswerError::msg(e.to_string()))?;
    Ok(removed)
}

/// The window's commands on the connections (the Connections view).
impl Backend {
    /// The connections, each with its sign-in and the open sessions that have it. A file that
    /// cannot be read is said in `problem`, not an error: the view shows it.
    pub async fn mcp_connections(&self) -> McpConnectionList {
        let Some(path) = path() else {
            return McpConnectionList {
                path: None,
                problem: Some(
                    "there is no config folder for the connections file (set PORTHOLE_CONNECTIONS_FILE)"
                        .into(),
                ),
                connections: Vec::new(),
            };
        };
        let shown = Some(path.display().to_string());
        let list = match Connections::load(&path) {
            Ok(list) => list,
            Err(e) => {
                return McpConnectionList {
                    path: shown,
                    problem: Some(e.to_string()),
                    connections: Vec::new(),
                };
            }
        };
        // The keyring is opened only when a connection could be signed in to.
        let remote = |c: &Connection| matches!(c.server, Server::Remote { .. });
        let tokens = list
            .iter()
            .any(remote)
            .then(|| self.connector().keyring().map(|(_, tokens)| tokens));
        let mut connections = Vec::new();
        for c in list.iter() {
            let sign_in = match (&tokens, &c.server) {
                (_, Server::Stdio { .. }) => McpSignIn::NotNeeded,
                (Some(Ok(tokens)), Server::Remote { url, .. }) => match tokens.state(&c.name, url).await {
                    Ok(state) => state.into(),
                    Err(e) => McpSignIn::Unknown {
                        reason: format!("the OS keyring cannot be read: {e}"),
                    },
                },
                (Some(Err(e)), _) => McpSignIn::Unknown {
                    reason: e.to_string(),
                },
                (None, _) => McpSignIn::SignedOut,
            };
            connections.push(mcp_view::view(c, sign_in, self.state().sessions_with(&c.name)));
        }
        McpConnectionList {
            path: shown,
            problem: None,
            connections,
        }
    }

    /// `tools/list` of `name` through the gateway, as an agent reaches it (like `porthole-cli
    /// mcp tools`), switched off or not.
    pub async fn mcp_tools(&self, name: &str) -> Result<Vec<McpTool>, AnswerError> {
        let connection = find(&load(&file()?)?, name)?;
        // The pass lives until the tools are listed, then stops answering.
        let handed = self
            .connector()
            .hand(std::slice::from_ref(&connection), None, PassOwner::default())
            .await;
        if let Some((n, why)) = handed.skipped.first() {
            return Err(AnswerError::msg(format!("`{n}` cannot be reached: {why}")));
        }
        let piped = handed.piped.iter().any(|n| n == name);
        let url = handed
            .pass
            .as_ref()
            .and_then(|p| p.url(name))
            .ok_or_else(|| AnswerError::msg(format!("`{name}` cannot be reached: nothing to reach")))?;
        let tools = porthole_connections::probe::tools(&url, piped, TOOLS_TIMEOUT)
            .await
            .map_err(|e| AnswerError::msg(format!("cannot list the tools of `{name}`: {e}")))?;
        Ok(tools.into_iter().map(McpTool::from).collect())
    }

    /// Switch a connection on or off: sessions opened from now on get it or not; open ones
    /// keep what they were given until they close.
    pub fn mcp_set_enabled(&self, name: &str, on: bool) -> Result<(), AnswerError> {
        set_enabled_at(&file()?, name, on)
    }

    /// Sign out of a remote connection: revoke where the server offers it, then delete the
    /// tokens. Returns what happened, in words.
    pub async fn mcp_sign_out(&self, name: &str) -> Result<String, AnswerError> {
        let connection = find(&load(&file()?)?, name)?;
        if !matches!(connection.server, Server::Remote { .. }) {
            return Err(AnswerError::msg(format!(
                "`{name}` is a stdio server: there is nothing to sign out of"
            )));
        }
        let (_, tokens) = self
            .connector()
            .keyring()
            .map_err(|e| AnswerError::msg(format!("cannot sign out of `{name}`: {e}")))?;
        let (revoked, refused) = tokens
            .sign_out(name)
            .await
            .map_err(|e| AnswerError::msg(format!("cannot sign out of `{name}`: {e}")))?;
        Ok(mcp_view::signed_out_text(name, revoked, refused.as_deref()))
    }

    /// Take a connection out of the list, and delete what the keyring keeps for it (its secret
    /// values; its sign-in, revoked where offered). Returns what happened, in words.
    pub async fn mcp_remove(&self, name: &str) -> Result<String, AnswerError> {
        let sessions = self.state().sessions_with(name).len();
        let path = file()?;
        let removed = remove_at(&path, name)?;
        let mut text = format!("Removed `{name}`.");
        if sessions > 0 {
            text.push_str(&format!(
                " {sessions} open session{} keep{} it until {} close{}.",
                if sessions == 1 { "" } else { "s" },
                if sessions == 1 { "s" } else { "" },
                if sessions == 1 { "it" } else { "they" },
                if sessions == 1 { "s" } else { "" },
            ));
        }
        forget_bundle(&path, &removed, &mut text);
        let keys = removed.secret_keys();
        let remote = matches!(removed.server, Server::Remote { .. });
        if keys.is_empty() && !remote {
            return Ok(text);
        }
        let (secrets, tokens) = match self.connector().keyring() {
            Ok(k) => k,
            Err(e) if keys.is_empty() => {
                // Nothing was ever kept in a keyring that cannot be opened.
                tracing::debug!(error = %e, "no keyring to forget `{name}`'s sign-in in");
                return Ok(text);
            }
            Err(e) => {
                text.push_str(&format!(
                    " Its values are still in the OS keyring (service porthole-connections): {e}"
                ));
                return Ok(text);
            }
        };
        let mut left = Vec::new();
        for key in &keys {
            if let Err(e) = secrets.delete(name, key) {
                left.push(format!("{key} ({e})"));
            }
        }
        if remote && let Err(e) = tokens.forget(name).await {
            left.push(format!("its sign-in ({e})"));
        }
        if !left.is_empty() {
            text.push_str(&format!(" Still in the OS keyring: {}.", left.join(", ")));
        }
        Ok(text)
    }
}

/// `porthole mcp-bridge [--pipe] URL`: the bridge an agent runs (see
/// `porthole_connections::bridge`). Returns the exit status.
pub fn mcp_bridge(url: &str, pipe: bool) -> i32 {
    match porthole_connections::bridge::run_blocking(url, pipe) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("porthole mcp-bridge: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(dir: &Path) -> PathBuf {
        let path = dir.join("connections.json");
        std::fs::write(
            &path,
            r#"{"connections": {
                "files": {"command": "npx", "args": ["server"]},
                "docs": {"url": "http://127.0.0.1:8931/mcp", "agents": ["codex"]},
            }}"#,
        )
        .unwrap();
        path
    }

    fn message(e: AnswerError) -> String {
        match e {
            AnswerError::Error { message } => message,
            AnswerError::Invalid { .. } => panic!("not a message"),
        }
    }

    #[test]
    fn switching_a_connection_writes_the_file_and_an_unknown_name_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_with(dir.path());
        set_enabled_at(&path, "docs", false).unwrap();
        let list = Connections::load(&path).unwrap();
        assert!(!list.get("docs").unwrap().enabled);
        assert!(list.get("files").unwrap().enabled);
        set_enabled_at(&path, "docs", true).unwrap();
        assert!(Connections::load(&path).unwrap().get("docs").unwrap().enabled);
        let e = message(set_enabled_at(&path, "nope", true).unwrap_err());
        assert!(e.contains("no connection named `nope`"), "{e}");
    }

    #[test]
    fn removing_a_connection_keeps_the_others_and_a_broken_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_with(dir.path());
        let removed = remove_at(&path, "files").unwrap();
        assert_eq!(removed.name, "files");
        let list = Connections::load(&path).unwrap();
        assert_eq!(list.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["docs"]);
        assert!(message(remove_at(&path, "files").unwrap_err()).contains("no connection named `files`"));

        std::fs::write(&path, "{not json").unwrap();
        assert!(message(remove_at(&path, "docs").unwrap_err()).contains("not valid JSON"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
    }
}
