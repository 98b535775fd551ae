//! The window's view of the person's MCP connections (the Connections view): each connection
//! with where it points, who gets it, its sign-in and the open sessions that have it. Typed
//! here, their TypeScript generated (`ui_contract.rs`). No secret is in any of them: values kept
//! in the keyring are named, never read, and a URL's query values are hidden.

use porthole_connections::list::{AgentScope, Connection, RemoteTransport, Server};
use porthole_connections::probe::ToolInfo;
use porthole_connections::tokens::SignInState;
use serde::Serialize;

/// The connections file and what is in it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpConnectionList {
    /// The connections file (`PORTHOLE_CONNECTIONS_FILE` or the platform config folder).
    pub path: Option<String>,
    /// Set when the file cannot be read: why (no connection reaches any agent then).
    pub problem: Option<String>,
    pub connections: Vec<McpConnectionView>,
}

/// One connection, in the list's order (the order agents get them).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpConnectionView {
    pub name: String,
    pub server: McpServerView,
    pub enabled: bool,
    /// The agent ids that get it; `null`: every agent.
    pub agents: Option<Vec<String>>,
    /// Values kept in the OS keyring (`TOKEN`, `header authorization`), named, never read.
    pub secrets: Vec<String>,
    pub sign_in: McpSignIn,
    /// The open sessions whose agent has it.
    pub sessions: Vec<String>,
}

/// Where a connection points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub enum McpServerView {
    /// A server at a URL (query values hidden) and how it is spoken to.
    Remote { url: String, transport: RemoteTransport },
    /// A server Porthole or the agent starts: its program and arguments.
    Stdio { command: String, args: Vec<String> },
}

/// A connection's sign-in, as the window shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub enum McpSignIn {
    /// A stdio server: nothing to sign in to.
    NotNeeded,
    /// No sign-in kept (a server that asks for none works as it is).
    SignedOut,
    SignedIn {
        /// Seconds since the epoch; `null` when the server gave no expiry.
        #[cfg_attr(any(test, feature = "ts"), ts(type = "number | null"))]
        #[serde(rename = "expiresAt")]
        expires_at: Option<u64>,
        scopes: Vec<String>,
    },
    /// Refresh failed: sign in again.
    Expired { reason: String },
    /// The keyring cannot be read, so the sign-in is not known.
    Unknown { reason: String },
}

impl From<SignInState> for McpSignIn {
    fn from(state: SignInState) -> Self {
        match state {
            SignInState::SignedOut => McpSignIn::SignedOut,
            SignInState::SignedIn { expires_at, scopes } => McpSignIn::SignedIn { expires_at, scopes },
            SignInState::Expired { reason } => McpSignIn::Expired { reason },
        }
    }
}

/// One tool a connection offers, as `tools/list` described it (the server's words: shown as
/// text only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpTool {
    pub name: String,
    pub description: Option<String>,
}

impl From<ToolInfo> for McpTool {
    fn from(t: ToolInfo) -> Self {
        Self {
            name: t.name,
            description: t.description,
        }
    }
}

/// `https://host/path?key=…`: a query's values can be secrets the server reads there.
pub(crate) fn shown_url(url: &url::Url) -> String {
    let mut shown = url.clone();
    shown.set_fragment(None);
    if url.query().is_some() {
        let keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
        shown.set_query(None);
        let mut text = shown.to_string();
        if !keys.is_empty() {
            text.push('?');
            text.push_str(
                &keys
                    .iter()
                    .map(|k| format!("{k}=…"))
                    .collect::<Vec<_>>()
                    .join("&"),
            );
        }
        return text;
    }
    shown.to_string()
}

/// `env:TOKEN` as `TOKEN`, `header:authorization` as `header authorization`.
fn shown_key(key: &str) -> String {
    match key.split_once(':') {
        Some(("env", var)) => var.to_string(),
        Some((kind, name)) => format!("{kind} {name}"),
        None => key.to_string(),
    }
}

/// The view of `c`, with its sign-in and the sessions that have it.
pub(crate) fn view(c: &Connection, sign_in: McpSignIn, sessions: Vec<String>) -> McpConnectionView {
    let server = match &c.server {
        Server::Remote { url, transport, .. } => McpServerView::Remote {
            url: shown_url(url),
            transport: *transport,
        },
        Server::Stdio { command, args, .. } => McpServerView::Stdio {
            command: command.clone(),
            args: args.clone(),
        },
    };
    McpConnectionView {
        name: c.name.clone(),
        server,
        enabled: c.enabled,
        agents: match &c.agents {
            AgentScope::All => None,
            AgentScope::Only(ids) => Some(ids.clone()),
        },
        secrets: c.secret_keys().iter().map(|k| shown_key(k)).collect(),
        sign_in,
        sessions,
    }
}

/// What a sign-out did, in words: whether the server revoked the tokens.
pub(crate) fn signed_out_text(name: &str, revoked: bool, refused: Option<&str>) -> String {
    match (revoked, refused) {
        (true, _) => {
            format!("Signed out of `{name}`: the server revoked the tokens and Porthole deleted them.")
        }
        (false, Some(why)) => format!(
            "Signed out of `{name}`: Porthole deleted the tokens; the server did not revoke them ({why})."
        ),
        (false, None) => format!(
            "Signed out of `{name}`: Porthole deleted the tokens (there were none, or the server offers no revocation)."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porthole_connections::list::Connections;

    fn list() -> Connections {
        Connections::parse(
            r#"{"connections": {
                "github": {"url": "https://api.example.com/mcp/?api_key=hunter2&v=1#frag",
                           "headers": {"Authorization": {"secret": true}}},
                "docs": {"url": "http://127.0.0.1:8931/sse", "transport": "sse",
                         "agents": ["claude-code", "codex"], "enabled": false},
                "files": {"command": "npx", "args": ["-y", "server-filesystem", "/notes"],
                          "env": {"ROOT": "/notes", "TOKEN": {"secret": true}}}
            }}"#,
            "connections.json",
        )
        .unwrap()
    }

    #[test]
    fn a_connection_is_shown_without_its_secrets() {
        let list = list();
        let github = view(list.get("github").unwrap(), McpSignIn::SignedOut, vec![]);
        assert_eq!(
            github.server,
            McpServerView::Remote {
                url: "https://api.example.com/mcp/?api_key=…&v=…".into(),
                transport: RemoteTransport::StreamableHttp
            }
        );
        assert_eq!(github.secrets, ["header authorization"]);
        assert_eq!(github.agents, None);
        assert!(github.enabled);
        let text = serde_json::to_string(&github).unwrap();
        assert!(!text.contains("hunter2") && !text.contains("frag"), "{text}");

        let docs = view(list.get("docs").unwrap(), McpSignIn::SignedOut, vec!["s1".into()]);
        assert_eq!(
            docs.server,
            McpServerView::Remote {
                url: "http://127.0.0.1:8931/sse".into(),
                transport: RemoteTransport::Sse
            }
        );
        assert!(!docs.enabled);
        assert_eq!(
            docs.agents.as_deref(),
            Some(&["claude-code".to_string(), "codex".to_string()][..])
        );
        assert_eq!(docs.sessions, ["s1"]);

        let files = view(list.get("files").unwrap(), McpSignIn::NotNeeded, vec![]);
        assert_eq!(
            files.server,
            McpServerView::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server-filesystem".into(), "/notes".into()]
            }
        );
        assert_eq!(files.secrets, ["TOKEN"]);
    }

    #[test]
    fn the_sign_in_reaches_the_window_as_tagged_json() {
        let signed_in = McpSignIn::from(SignInState::SignedIn {
            expires_at: Some(1_900_000_000),
            scopes: vec!["repo".into()],
        });
        assert_eq!(
            serde_json::to_value(&signed_in).unwrap(),
            serde_json::json!({"state": "signedIn", "expiresAt": 1_900_000_000u64, "scopes": ["repo"]})
        );
        let expired = McpSignIn::from(SignInState::Expired {
            reason: "refresh refused".into(),
        });
        assert_eq!(
            serde_json::to_value(&expired).unwrap(),
            serde_json::json!({"state": "expired", "reason": "refresh refused"})
        );
        assert_eq!(McpSignIn::from(SignInState::SignedOut), McpSignIn::SignedOut);
        assert_eq!(
            serde_json::to_value(McpSignIn::NotNeeded).unwrap(),
            serde_json::json!({"state": "notNeeded"})
        );
    }

    #[test]
    fn a_sign_out_says_whether_the_server_revoked() {
        assert!(signed_out_text("gh", true, None).contains("the server revoked the tokens"));
        assert!(signed_out_text("gh", false, Some("503")).contains("did not revoke them (503)"));
        assert!(signed_out_text("gh", false, None).contains("offers no revocation"));
    }
}
