//! Adding connections from the window: one by its URL or command, or many pasted from another
//! client's configuration (Claude Desktop, Claude Code, Cursor, VS Code, Zed; the formats
//! `porthole_connections::import` reads). Secret-looking values of an import go to the OS
//! keyring, never to the file; an import that needs the keyring and cannot open it skips those
//! servers and says so.

use porthole_connections::import::{self, Outcome};
use porthole_connections::list::{AgentScope, Connection, RemoteTransport, Server};
use serde::{Deserialize, Serialize};

use crate::mcp::{file, load};
use crate::{AnswerError, Backend};

/// A connection the person typed in the Add form.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "McpNewServer"))]
pub enum NewServer {
    /// A remote server and how it is spoken to.
    Remote { url: String, transport: RemoteTransport },
    /// A command line, split as a shell would (quotes kept together).
    #[serde(rename_all = "camelCase")]
    Stdio { command_line: String },
}

/// What an import did with one server of the pasted text, in the text's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpImported {
    /// The server's name in the pasted text.
    pub source_name: String,
    /// Its name in the list; `null`: skipped, for `reason`.
    pub name: Option<String>,
    pub reason: Option<String>,
    /// Variables and headers whose values went to the keyring, not the file.
    pub secrets: Vec<String>,
    pub notes: Vec<String>,
}

impl From<Outcome> for McpImported {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Imported {
                source_name,
                name,
                secrets,
                notes,
            } => Self {
                source_name,
                name: Some(name),
                reason: None,
                secrets,
                notes,
            },
            Outcome::Skipped { source_name, reason } => Self {
                source_name,
                name: None,
                reason: Some(reason),
                secrets: Vec::new(),
                notes: Vec::new(),
            },
        }
    }
}

fn server(new: NewServer) -> Result<Server, AnswerError> {
    match new {
        NewServer::Remote { url, transport } => {
            let url = url::Url::parse(url.trim())
                .map_err(|e| AnswerError::msg(format!("the address is not a URL ({e})")))?;
            Ok(Server::Remote {
                url,
                transport,
                headers: Default::default(),
            })
        }
        NewServer::Stdio { command_line } => {
            let words = shell_words::split(&command_line)
                .map_err(|e| AnswerError::msg(format!("the command line cannot be read: {e}")))?;
            let mut words = words.into_iter();
            let command = words
                .next()
                .ok_or_else(|| AnswerError::msg("the command is empty"))?;
            Ok(Server::Stdio {
                command,
                args: words.collect(),
                env: Default::default(),
            })
        }
    }
}

/// Add `name` to the file at `path`: checked as the file's own entries are, refused when the
/// name is taken.
fn add_at(path: &std::path::Path, name: &str, new: NewServer) -> Result<(), AnswerError> {
    let mut connection = Connection::new(name.trim(), server(new)?);
    connection.agents = AgentScope::All;
    connection
        .validate()
        .map_err(|e| AnswerError::msg(e.to_string()))?;
    let mut list = load(path)?;
    list.add(connection)
        .map_err(|e| AnswerError::msg(e.to_string()))?;
    list.save(path).map_err(|e| AnswerError::msg(e.to_string()))
}

impl Backend {
    /// Add a connection (every agent gets it; sessions opened from now on).
    pub fn mcp_add(&self, name: &str, server: NewServer) -> Result<(), AnswerError> {
        add_at(&file()?, name, server)
    }

    /// Import the servers of another client's configuration, pasted as text.
    pub fn mcp_import(&self, text: &str) -> Result<Vec<McpImported>, AnswerError> {
        let path = file()?;
        let found = import::read(text).map_err(|e| AnswerError::msg(e.to_string()))?;
        let mut list = load(&path)?;
        let secrets = if found.needs_keyring() {
            match self.connector().keyring() {
                Ok((secrets, _)) => Some(secrets),
                Err(e) => {
                    tracing::warn!(error = %e, "an import's secret values cannot be kept");
                    None
                }
            }
        } else {
            None
        };
        let outcomes =
            import::merge_and_save(found, &mut list, &path, secrets.as_deref()).map_err(AnswerError::msg)?;
        Ok(outcomes.into_iter().map(McpImported::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porthole_connections::list::Connections;

    fn message(e: AnswerError) -> String {
        match e {
            AnswerError::Error { message } => message,
            AnswerError::Invalid { .. } => panic!("not a message"),
        }
    }

    #[test]
    fn a_remote_and_a_stdio_connection_are_added_and_a_taken_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.json");
        add_at(
            &path,
            "docs",
            NewServer::Remote {
                url: " https://mcp.example.com/mcp ".into(),
                transport: RemoteTransport::StreamableHttp,
            },
        )
        .unwrap();
        add_at(
            &path,
            "files",
            NewServer::Stdio {
                command_line: "npx -y '@modelcontextprotocol/server-filesystem' /home/me/notes".into(),
            },
        )
        .unwrap();
        let list = Connections::load(&path).unwrap();
        match &list.get("docs").unwrap().server {
            Server::Remote { url, transport, .. } => {
                assert_eq!(url.as_str(), "https://mcp.example.com/mcp");
                assert_eq!(*transport, RemoteTransport::StreamableHttp);
            }
            other => panic!("{other:?}"),
        }
        match &list.get("files").unwrap().server {
            Server::Stdio { command, args, .. } => {
                assert_eq!(command, "npx");
                assert_eq!(
                    args,
                    &["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]
                );
            }
            other => panic!("{other:?}"),
        }
        let taken = add_at(
            &path,
            "docs",
            NewServer::Remote {
                url: "https://other.example.com/mcp".into(),
                transport: RemoteTransport::Sse,
            },
        );
        assert!(message(taken.unwrap_err()).contains("docs"));
        assert_eq!(Connections::load(&path).unwrap().len(), 2, "nothing replaced");
    }

    #[test]
    fn bad_input_is_said_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.json");
        let not_url = add_at(
            &path,
            "docs",
            NewServer::Remote {
                url: "mcp.example.com".into(),
                transport: RemoteTransport::StreamableHttp,
            },
        );
        assert!(message(not_url.unwrap_err()).contains("not a URL"));
        let plain_http = add_at(
            &path,
            "docs",
            NewServer::Remote {
                url: "http://mcp.example.com/mcp".into(),
                transport: RemoteTransport::StreamableHttp,
            },
        );
        assert!(!message(plain_http.unwrap_err()).is_empty());
        let empty = add_at(
            &path,
            "files",
            NewServer::Stdio {
                command_line: "  ".into(),
            },
        );
        assert!(message(empty.unwrap_err()).contains("command"));
        let bad_name = add_at(
            &path,
            "my docs!",
            NewServer::Remote {
                url: "https://mcp.example.com/mcp".into(),
                transport: RemoteTransport::StreamableHttp,
            },
        );
        assert!(!message(bad_name.unwrap_err()).is_empty());
        assert!(!path.exists(), "nothing was written");
    }
}
