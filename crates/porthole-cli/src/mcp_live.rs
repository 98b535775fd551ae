//! The MCP commands that talk to servers: `mcp login`, `mcp logout`, `mcp tools`, and
//! `mcp bridge` (what an agent runs for a connection it reaches through Porthole's gateway);
//! and the connections a session hands its agent (`--mcp NAME`, `--mcp-all`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use porthole_connections::connector::{Connector, Handed};
use porthole_connections::gateway::{GatewayEvent, PassOwner};
use porthole_connections::handoff::{AgentMcp, BridgeCommand};
use porthole_connections::list::{AgentScope, Connection, Connections, Server};
use porthole_connections::oauth::{self, ClientChoice};
use porthole_connections::secrets::SecretStore;
use porthole_connections::tokens::Tokens;
use porthole_core::acp::v1::schema::McpServer;
use porthole_core::url_safety;

use crate::term::{self, note, say};

/// How long `mcp tools` waits for the server.
const TOOLS_TIMEOUT: Duration = Duration::from_secs(30);

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the async runtime: {e}"))
}

fn find<'a>(list: &'a Connections, name: &str) -> Result<&'a Connection, String> {
    list.get(name)
        .ok_or_else(|| format!("no connection named `{name}` (porthole-cli mcp list)"))
}

fn keyring() -> Result<Arc<SecretStore>, String> {
    SecretStore::os().map(Arc::new).map_err(|e| e.to_string())
}

/// `mcp login NAME [--browser CMD] [--client-id ID]`.
pub fn login(
    list: &Connections,
    name: &str,
    browser: Option<&str>,
    client_id: Option<String>,
) -> Result<(), String> {
    match sign_in(list, name, browser, client_id)? {
        SignIn::Done => Ok(()),
        SignIn::NotAsked(why) => Err(format!("cannot sign in to `{name}`: {why}")),
    }
}

/// How a sign-in ended, when it did not fail.
pub enum SignIn {
    Done,
    /// The server asks for no sign-in (why, in words).
    NotAsked(String),
}

/// [`login`], telling a server that asks for no sign-in apart from a failure (`mcp add
/// --from-registry` goes on to the sign-in of a remote only when it asks for one).
pub fn sign_in(
    list: &Connections,
    name: &str,
    browser: Option<&str>,
    client_id: Option<String>,
) -> Result<SignIn, String> {
    let connection = find(list, name)?;
    let Server::Remote { url, .. } = &connection.server else {
        return Err(format!(
            "`{name}` is a stdio server: there is nothing to sign in to"
        ));
    };
    let tokens = Tokens::new(keyring()?);
    let choice = ClientChoice {
        client_id,
        client_secret: std::env::var("PORTHOLE_MCP_CLIENT_SECRET")
            .ok()
            .filter(|s| !s.is_empty()),
        metadata_document: oauth::published_metadata_document()
            .map_err(|e| format!("cannot sign in to `{name}`: {e}"))?,
    };
    runtime()?.block_on(async {
        let known = tokens.registrations(name);
        // After a 403 `insufficient_scope`: the granted scopes and the ones it asked for.
        let step_up = tokens.step_up_scopes(name);
        // The last 401 the gateway saw (a server that asks only at a tool call).
        let challenge = tokens.challenge(name);
        let hints = oauth::Hints {
            known: &known,
            more_scopes: &step_up,
            challenge: challenge.as_ref(),
        };
        let pending = match oauth::begin_with(tokens.http(), url, &choice, &hints).await {
            Ok(pending) => pending,
            Err(e @ oauth::SignInError::NotNeeded(_)) => return Ok(SignIn::NotAsked(e.to_string())),
            Err(e) => return Err(format!("cannot sign in to `{name}`: {e}")),
        };
        show_consent(name, &pending.authorization_url, &pending.scopes);
        match browser {
            Some(command) => open_with(command, pending.authorization_url.as_str())?,
            None => say!("Open that address in a browser; waiting for the sign-in to come back..."),
        }
        let grant = pending
            .finish(tokens.http(), oauth::SIGN_IN_TIMEOUT)
            .await
            .map_err(|e| format!("cannot sign in to `{name}`: {e}"))?;
        let scopes = grant.scopes.join(" ");
        tokens.store(name, grant).await.map_err(|e| e.to_string())?;
        say!(
            "Signed in to `{name}`{}.",
            if scopes.is_empty() {
                String::new()
            } else {
                format!(" (scopes: {scopes})")
            }
        );
        Ok(SignIn::Done)
    })
}

/// Whether the remote server at `url` asks for sign-in (a 401, or OAuth resource metadata),
/// asked without waiting for anyone.
pub fn asks_for_sign_in(url: &url::Url) -> Result<bool, String> {
    runtime()?
        .block_on(oauth::probe(&porthole_connections::http::sign_in_client(), url))
        .map(|challenge| challenge.is_some())
        .map_err(|e| e.to_string())
}

/// The URL-mode consent rules, in text: the full address, its domain, every warning, the scopes.
fn show_consent(name: &str, url: &url::Url, scopes: &[String]) {
    say!("Sign in to `{name}` at:");
    say!("  {}", term::line(url.as_str()));
    match url_safety::analyze_url(url.as_str(), "") {
        Ok(analysis) => {
            let domain = analysis
                .registrable_domain
                .clone()
                .unwrap_or_else(|| analysis.host_unicode.clone());
            say!("  domain: {}", term::line(&domain));
            for w in &analysis.warnings {
                say!("  warning: {}", w.explanation());
            }
        }
        Err(e) => say!("  warning: the address cannot be checked: {e}"),
    }
    if !scopes.is_empty() {
        say!("  asks for: {}", term::line(&scopes.join(", ")));
    }
}

/// Run the person's browser command with the URL as its last argument.
fn open_with(command: &str, url: &str) -> Result<(), String> {
    let mut words = shell_words(command)?;
    if words.is_empty() {
        return Err("--browser needs a command".into());
    }
    let program = words.remove(0);
    std::process::Command::new(&program)
        .args(words)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot run the browser command `{program}`: {e}"))
}

fn shell_words(command: &str) -> Result<Vec<String>, String> {
    porthole_core::AgentCommand::parse(command).map(|c| std::iter::once(c.program).chain(c.args).collect())
}

/// Each remote connection's sign-in for `mcp list --json`, in the window's shape:
/// `{"state": "signedIn", "expiresAt", "scopes"}`, `signedOut`, `expired` with `reason`, or
/// `unknown` with `reason` when the keyring cannot be read. No secret is in it. The keyring is
/// opened only when the list has a remote connection.
pub fn sign_in_states(list: &Connections) -> std::collections::BTreeMap<String, serde_json::Value> {
    use porthole_connections::tokens::SignInState;
    let remote: Vec<(&str, &url::Url)> = list
        .iter()
        .filter_map(|c| match &c.server {
            Server::Remote { url, .. } => Some((c.name.as_str(), url)),
            Server::Stdio { .. } => None,
        })
        .collect();
    let mut out = std::collections::BTreeMap::new();
    if remote.is_empty() {
        return out;
    }
    let unknown = |reason: String| serde_json::json!({"state": "unknown", "reason": reason});
    let tokens = match (keyring(), runtime()) {
        (Ok(store), Ok(rt)) => (Tokens::new(store), rt),
        (Err(e), _) | (_, Err(e)) => {
            for (name, _) in remote {
                out.insert(name.to_string(), unknown(e.clone()));
            }
            return out;
        }
    };
    let (tokens, rt) = tokens;
    for (name, url) in remote {
        let state = match rt.block_on(tokens.state(name, url)) {
            Ok(SignInState::SignedOut) => serde_json::json!({"state": "signedOut"}),
            Ok(SignInState::SignedIn { expires_at, scopes }) => {
                serde_json::json!({"state": "signedIn", "expiresAt": expires_at, "scopes": scopes})
            }
            Ok(SignInState::Expired { reason }) => serde_json::json!({"state": "expired", "reason": reason}),
            Err(e) => unknown(e.to_string()),
        };
        out.insert(name.to_string(), state);
    }
    out
}

/// `mcp logout NAME`: revoke where offered, then delete.
pub fn logout(list: &Connections, name: &str) -> Result<(), String> {
    find(list, name)?;
    let tokens = Tokens::new(keyring()?);
    let (revoked, refused) = runtime()?
        .block_on(tokens.sign_out(name))
        .map_err(|e| e.to_string())?;
    match (revoked, refused) {
        (true, _) => say!("Signed out of `{name}`: the server revoked the tokens and Porthole deleted them."),
        (false, Some(why)) => say!(
            "Signed out of `{name}`: Porthole deleted the tokens; the server did not revoke them ({why})."
        ),
        (false, None) => {
            say!("Signed out of `{name}`: Porthole deleted the tokens (the server offers no revocation).")
        }
    }
    Ok(())
}

/// `mcp tools NAME [--json]`: `tools/list` through the gateway, as an agent would see it.
pub fn tools(list: &Connections, name: &str, json: bool) -> Result<(), String> {
    let connection = find(list, name)?.clone();
    runtime()?.block_on(async {
        let session = Session::open(&[connection], None, PassOwner::default()).await?;
        if let Some((n, why)) = session.handed.skipped.first() {
            return Err(format!("`{n}` cannot be reached: {why}"));
        }
        let piped = session.handed.piped.iter().any(|n| n == name);
        let tools = match session.handed.pass.as_ref().and_then(|p| p.url(name)) {
            Some(url) => porthole_connections::probe::tools(&url, piped, TOOLS_TIMEOUT).await,
            None => Err("nothing to reach".to_string()),
        };
        let tools = tools.map_err(|e| format!("cannot list the tools of `{name}`: {e}"))?;
        for t in &tools {
            if json {
                say!("{}", crate::json_line::to_line(t));
            } else {
                match &t.description {
                    Some(d) => say!("{}  {}", term::line(&t.name), term::line(d)),
                    None => say!("{}", term::line(&t.name)),
                }
            }
        }
        Ok(())
    })
}

/// `mcp bridge [--pipe] URL`.
pub fn bridge(url: &str, pipe: bool) -> Result<(), String> {
    porthole_connections::bridge::run_blocking(url, pipe)
}

/// The command an agent runs for a bridged connection: this program's `mcp bridge`.
pub fn bridge_command() -> BridgeCommand {
    let program = std::env::current_exe().unwrap_or_else(|_| "porthole-cli".into());
    BridgeCommand {
        program,
        args: vec!["mcp".into(), "bridge".into()],
    }
}

/// The connections one session hands its agent, and what keeps them reachable: the gateway
/// (in the connector) and the session's pass live as long as this does.
pub struct Session {
    pub handed: Handed,
    _connector: Connector,
}

impl Session {
    /// `caps`: the agent's; `None` for Porthole's own use (every connection through the gateway).
    /// `owner`: the session's agent and who answers its connections' questions.
    pub async fn open(
        connections: &[Connection],
        caps: Option<AgentMcp>,
        owner: PassOwner,
    ) -> Result<Session, String> {
        // Said once per connection: what failed and how to fix it.
        let said = std::sync::Mutex::new(std::collections::HashSet::new());
        let on_event = Arc::new(move |event: GatewayEvent| {
            let (connection, line) = match event {
                GatewayEvent::SignInNeeded { connection, reason } => {
                    let line = format!(
                        "MCP connection `{connection}` needs sign-in ({}): porthole-cli mcp login {connection}",
                        term::line(&reason)
                    );
                    (connection, line)
                }
                GatewayEvent::StdioFailed { connection, reason } => {
                    let line = format!("MCP connection `{connection}`: {}", term::line(&reason));
                    (connection, line)
                }
            };
            if said.lock().unwrap_or_else(|p| p.into_inner()).insert(connection) {
                note!("porthole-cli: {line}");
            }
        });
        let connector = Connector::new(bridge_command(), on_event);
        let handed = connector.hand(connections, caps, owner).await;
        Ok(Session {
            handed,
            _connector: connector,
        })
    }

    /// `mcpServers` for the agent.
    pub fn servers(&self) -> Vec<McpServer> {
        self.handed.servers.clone()
    }
}

/// The connections `--mcp NAME` (each must exist; named ones go even when switched off) and
/// `--mcp-all` (the enabled ones this agent gets) select, in the list's order.
pub fn select(
    path: &Path,
    names: &[String],
    all: bool,
    agent_id: Option<&str>,
) -> Result<Vec<Connection>, String> {
    let list = Connections::load(path).map_err(|e| e.to_string())?;
    for n in names {
        find(&list, n)?;
    }
    Ok(list
        .iter()
        .filter(|c| {
            // An agent given as a bare command line has no id: it gets the connections for every agent.
            let for_this_agent = match agent_id {
                Some(id) => c.includes(id),
                None => c.agents == AgentScope::All,
            };
            names.contains(&c.name) || (all && c.enabled && for_this_agent)
        })
        .cloned()
        .collect())
}
