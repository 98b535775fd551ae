//! The link between a proxy and the app: a small versioned format, documented in
//! docs/companion.md.
//!
//! Newline-delimited UTF-8 over the app's Unix socket. The proxy speaks first with a
//! [`Hello`]; the app answers with a [`Welcome`], or refuses (another protocol or version) and
//! closes. After that every line starts with one channel byte:
//! - `a`: an ACP JSON-RPC message, as the agent wrote it (proxy to app: the agent's questions,
//!   `questions.rs`: `elicitation/create`, Gemini's `_gemini/requestUserInput`, Qwen's question
//!   `session/request_permission`; `elicitation/complete`, `$/cancel_request` for those, and
//!   `session/update` for the live view) or the app's answer to one of those requests (app to
//!   proxy);
//! - `c`: a [`Control`] message from the proxy about the relay (who drives, sessions, the
//!   editor's requests in flight, the agent's exit, an MCP connection's question), or an
//!   [`AppControl`] from the app (the answer to such a question).
//!
//! A side that meets a version it does not speak says so and closes; neither side guesses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol's name in the handshake.
pub const PROTOCOL: &str = "porthole-companion";
/// The version this build speaks. A change that an older peer would misread bumps it.
/// 2: an MCP connection's questions (`Control::McpQuestion`, [`AppControl::McpAnswer`]).
pub const VERSION: u32 = 2;

/// The channel byte of an ACP message.
pub const ACP: u8 = b'a';
/// The channel byte of a [`Control`] message.
pub const CONTROL: u8 = b'c';

/// The proxy's first line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    pub protocol: String,
    pub version: u32,
    /// "porthole-proxy 0.1.0": named in the other side's messages.
    pub software: String,
}

/// The app's answer: `refused` says why it will not take this proxy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Welcome {
    pub protocol: String,
    pub version: u32,
    pub software: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// What the proxy tells the app about the relay, besides the agent's own messages.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Control {
    /// Sent first: the editor (its `clientInfo` from `initialize`, as it came), the agent's
    /// command line, the proxy's folder and process id.
    Relay {
        editor: Option<Value>,
        agent_command: Vec<String>,
        cwd: String,
        proxy_pid: u32,
        /// The person chose to be asked once per agent who answers its questions when the
        /// editor can, and has not been asked for this one: its key in the settings'
        /// `editorQuestionsByAgent` (preference.rs). The editor answers meanwhile.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ask_who_answers: Option<String>,
    },
    /// The agent's answer to the editor's `initialize` (its identity and capabilities).
    AgentInitialized { result: Value },
    /// A session the editor opened, loaded, resumed or forked.
    Session {
        #[serde(rename = "sessionId")]
        session_id: String,
        cwd: String,
    },
    SessionClosed {
        #[serde(rename = "sessionId")]
        session_id: String,
    },
    /// The editor sent request `id` (its JSON text): the context of request-scoped elicitations.
    Request {
        id: String,
        method: String,
        /// The session a session request names (`params.sessionId`).
        #[serde(rename = "sessionId", default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
    },
    /// The agent answered the editor's request `id`.
    RequestDone { id: String },
    /// The agent exited (`status` as "exit status 0", "killed by signal 9").
    AgentExited { status: String },
    /// A question one of the person's MCP connections asked (`--connections`), taken out of the
    /// server's stream by the proxy's gateway: `params` are its `elicitation/create` params,
    /// asked in `sessionId` (the editor's session the tool call most likely came from: the last
    /// one opened). The app answers with [`AppControl::McpAnswer`] of the same `id`.
    McpQuestion {
        id: u64,
        connection: String,
        /// The remote server's host; `None` for a stdio server.
        host: Option<String>,
        #[serde(rename = "sessionId")]
        session_id: String,
        params: Value,
    },
    /// The gateway stopped waiting for question `id` (its tool call ended): the dialog goes.
    McpQuestionEnded { id: u64 },
    /// The server's `notifications/elicitation/complete` for a URL question `connection` asked.
    McpCompleted {
        connection: String,
        #[serde(rename = "elicitationId")]
        elicitation_id: String,
    },
}

/// What the app tells the proxy besides the answers to the agent's own questions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppControl {
    /// The answer to `Control::McpQuestion` `id`: the `ElicitResult`, or why there is none.
    McpAnswer {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

impl Hello {
    pub fn ours() -> Self {
        Hello {
            protocol: PROTOCOL.into(),
            version: VERSION,
            software: format!("porthole-proxy {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

impl Welcome {
    pub fn ours() -> Self {
        Welcome {
            protocol: PROTOCOL.into(),
            version: VERSION,
            software: format!("porthole {}", env!("CARGO_PKG_VERSION")),
            refused: None,
        }
    }
}

/// The app's check of a proxy's first line: `Err` is the refusal to send back.
pub fn check_hello(line: &[u8]) -> Result<Hello, String> {
    let hello: Hello = serde_json::from_slice(line)
        .map_err(|_| "this is not a Porthole companion proxy (no handshake)".to_string())?;
    if hello.protocol != PROTOCOL {
        return Err(format!("unknown protocol `{}`", hello.protocol));
    }
    if hello.version != VERSION {
        return Err(mismatch(
            &Welcome::ours().software,
            VERSION,
            &hello.software,
            hello.version,
        ));
    }
    Ok(hello)
}

/// The proxy's check of the app's answer.
pub fn check_welcome(line: &[u8]) -> Result<Welcome, String> {
    let welcome: Welcome = serde_json::from_slice(line)
        .map_err(|_| "the socket's owner is not a Porthole app (no handshake)".to_string())?;
    if let Some(reason) = &welcome.refused {
        return Err(format!("{} refused this proxy: {reason}", welcome.software));
    }
    if welcome.protocol != PROTOCOL {
        return Err(format!("unknown protocol `{}`", welcome.protocol));
    }
    if welcome.version != VERSION {
        return Err(mismatch(
            &Hello::ours().software,
            VERSION,
            &welcome.software,
            welcome.version,
        ));
    }
    Ok(welcome)
}

fn mismatch(ours: &str, our_version: u32, theirs: &str, their_version: u32) -> String {
    format!(
        "{theirs} speaks companion protocol {their_version}, {ours} speaks {our_version}: \
         use a proxy and an app of the same Porthole version"
    )
}

/// A line of one channel: the byte, the message, the newline.
pub fn frame(channel: u8, message: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(message.len() + 2);
    line.push(channel);
    line.extend_from_slice(message);
    line.push(b'\n');
    line
}

pub fn control(message: &Control) -> Vec<u8> {
    let json = serde_json::to_vec(message).unwrap_or_default();
    frame(CONTROL, &json)
}

/// An [`AppControl`] line, app to proxy.
pub fn app_control(message: &AppControl) -> Vec<u8> {
    let json = serde_json::to_vec(message).unwrap_or_default();
    frame(CONTROL, &json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_version_is_welcome_and_another_is_refused_with_both_named() {
        let hello = serde_json::to_vec(&Hello::ours()).unwrap();
        assert!(check_hello(&hello).is_ok());
        let newer = serde_json::to_vec(&Hello {
            version: VERSION + 1,
            software: "porthole-proxy 9.0.0".into(),
            ..Hello::ours()
        })
        .unwrap();
        let refusal = check_hello(&newer).unwrap_err();
        assert!(
            refusal.contains(&format!(
                "porthole-proxy 9.0.0 speaks companion protocol {}",
                VERSION + 1
            )),
            "{refusal}"
        );
        assert!(refusal.contains("same Porthole version"), "{refusal}");
        assert!(check_hello(b"{\"jsonrpc\":\"2.0\"}").is_err());

        let refused = serde_json::to_vec(&Welcome {
            refused: Some("no".into()),
            ..Welcome::ours()
        })
        .unwrap();
        assert!(
            check_welcome(&refused)
                .unwrap_err()
                .contains("refused this proxy: no")
        );
        let older = serde_json::to_vec(&Welcome {
            version: 0,
            ..Welcome::ours()
        })
        .unwrap();
        assert!(
            check_welcome(&older)
                .unwrap_err()
                .contains("speaks companion protocol 0")
        );
    }

    #[test]
    fn control_messages_have_a_stable_shape() {
        let line = control(&Control::Session {
            session_id: "s1".into(),
            cwd: "/w".into(),
        });
        assert_eq!(
            line,
            b"c{\"type\":\"session\",\"sessionId\":\"s1\",\"cwd\":\"/w\"}\n"
        );
    }
}
