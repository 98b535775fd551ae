//! The demo agent in ACP v2 (Preview; SDK 5.2's `unstable_protocol_v2`). `lib.rs` serves it
//! beside v1 with the SDK's protocol router: a v2 `initialize` reaches this agent, a v1 one
//! reaches exactly the v1 agent of before.
//!
//! The same scenarios as in v1 where v2 has them ([`scenarios`]), and what v2 adds
//! ([`showcase`]). Updates are written as JSON and sent only once they parse as the SDK's v2
//! types unchanged ([`typed`]), so a wrong field is an error here, never a silent drop.

pub mod scenarios;
pub mod session;
pub mod showcase;
pub mod turn;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v2::{ConnectionTo, Responder, schema};
use agent_client_protocol::{Agent, Client, ConnectTo, Error};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::commands::Stop;
use crate::state::{AgentState, Caps};
use crate::v2::session::{Mode, V2Session};
use crate::v2::turn::{Turn, send_state, send_update};

/// `value` as the v2 type `T`, refused unless it comes back unchanged from `T`: a field `T`
/// does not know, or one of the wrong shape, is a bug of this agent, not something to drop.
pub fn typed<T: DeserializeOwned + Serialize>(value: Value) -> Result<T, Error> {
    let parsed: T = serde_json::from_value(value.clone()).map_err(|e| {
        Error::internal_error().data(format!("not a v2 {}: {e}: {value}", std::any::type_name::<T>()))
    })?;
    let back = serde_json::to_value(&parsed).map_err(Error::into_internal_error)?;
    if back != value {
        return Err(Error::internal_error().data(format!(
            "{} does not keep {value} (it reads {back})",
            std::any::type_name::<T>()
        )));
    }
    Ok(parsed)
}

/// The text blocks of a prompt, joined.
pub fn prompt_text(prompt: &[schema::ContentBlock]) -> String {
    prompt
        .iter()
        .filter_map(|block| match block {
            schema::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The connection's v2 state: v1's (capabilities, ids, sign-in service) plus the v2 sessions.
#[derive(Default)]
pub struct V2Agent {
    pub state: AgentState,
    sessions: Mutex<HashMap<String, Arc<V2Session>>>,
    next_message: AtomicU64,
}

impl V2Agent {
    pub fn message_id(&self, prefix: &str) -> String {
        let n = self.next_message.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{prefix}-{n}")
    }

    pub fn session(&self, id: &str) -> Option<Arc<V2Session>> {
        self.sessions.lock().unwrap().get(id).cloned()
    }

    /// A new session (a child of `parent` for `/subagent`).
    pub fn new_session(
        &self,
        cwd: PathBuf,
        mcp: Vec<agent_client_protocol::v1::schema::McpServer>,
        parent: Option<String>,
    ) -> Arc<V2Session> {
        let session = Arc::new(V2Session::new(self.state.new_session(cwd, mcp), parent));
        self.sessions
            .lock()
            .unwrap()
            .insert(session.id().to_owned(), session.clone());
        session
    }

    fn listed(&self, cwd: Option<&schema::AbsolutePath>) -> Vec<schema::SessionInfo> {
        let sessions = self.sessions.lock().unwrap();
        let mut listed: Vec<_> = sessions
            .values()
            .filter(|s| s.parent.is_none())
            .filter(|s| cwd.is_none_or(|cwd| AsRef::<std::path::Path>::as_ref(cwd) == s.base.cwd))
            .map(|s| {
                schema::SessionInfo::new(s.id().to_owned(), s.base.cwd.clone())
                    .title(s.title.lock().unwrap().clone())
            })
            .collect();
        listed.sort_by_key(|s| s.session_id.to_string());
        listed
    }
}

fn session_not_found(id: &schema::SessionId) -> Error {
    schema::Error::session_not_found(id.clone()).into()
}

fn invalid_params(message: impl ToString) -> Error {
    Error::invalid_params().data(message.to_string())
}

/// The session's MCP servers in v1's shape, which `mcp.rs` speaks (the same JSON but for
/// stdio's `type`, which v1 leaves out).
fn mcp_servers(
    servers: &[schema::McpServer],
) -> Result<Vec<agent_client_protocol::v1::schema::McpServer>, Error> {
    servers
        .iter()
        .map(|server| {
            let mut value = serde_json::to_value(server).map_err(Error::into_internal_error)?;
            // v2 leaves out empty lists, which v1 requires.
            if let Some(fields) = value.as_object_mut() {
                let lists: &[&str] = match fields.get("type").and_then(Value::as_str) {
                    Some("stdio") => &["args", "env"],
                    Some("http") => &["headers"],
                    _ => &[],
                };
                for list in lists {
                    fields.entry(*list).or_insert_with(|| Value::Array(Vec::new()));
                }
                if fields.get("type").and_then(Value::as_str) == Some("stdio") {
                    fields.remove("type");
                }
            }
            serde_json::from_value(value.clone())
                .map_err(|e| invalid_params(format!("the demo agent cannot use the MCP server {value}: {e}")))
        })
        .collect()
}

fn require_absolute(cwd: &schema::AbsolutePath) -> Result<PathBuf, Error> {
    let path: &std::path::Path = cwd.as_ref();
    if path.is_absolute() {
        Ok(path.to_path_buf())
    } else {
        Err(invalid_params("`cwd` must be an absolute path"))
    }
}

/// The v2 agent, for `Agent.protocol_router().with_v2(...)`.
pub fn agent() -> impl ConnectTo<Client> {
    let agent = Arc::new(V2Agent::default());
    Agent
        .v2()
        .name("porthole-demo-agent")
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::InitializeRequest,
                            responder: Responder<schema::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    agent.state.set_caps(Caps::from_v2(&request.capabilities));
                    eprintln!(
                        "porthole-demo-agent: v2 client capabilities {:?}",
                        agent.state.caps()
                    );
                    // Its MCP client reaches stdio servers only (`mcp.rs`), as in v1: a client
                    // then hands it HTTP servers through a bridge.
                    let capabilities: schema::AgentCapabilities = typed(serde_json::json!({
                        "session": { "mcp": { "stdio": {} } }
                    }))?;
                    responder.respond(
                        schema::InitializeResponse::new(
                            ProtocolVersion::V2,
                            schema::Implementation::new("porthole-demo-agent", env!("CARGO_PKG_VERSION"))
                                .title("Porthole Demo Agent"),
                        )
                        .capabilities(capabilities),
                    )
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::NewSessionRequest,
                            responder: Responder<schema::NewSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let (cwd, mcp) = match require_absolute(&request.cwd)
                        .and_then(|cwd| Ok((cwd, mcp_servers(&request.mcp_servers)?)))
                    {
                        Ok(v) => v,
                        Err(e) => return responder.respond_with_error(e),
                    };
                    let session = agent.new_session(cwd, mcp, None);
                    responder.respond(
                        schema::NewSessionResponse::new(session.id().to_owned())
                            .config_options(session.config_options()?),
                    )?;
                    send_update(&cx, &session, typed(scenarios::available_commands_update())?)?;
                    send_state(&cx, &session, "idle", None)
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::ListSessionsRequest,
                            responder: Responder<schema::ListSessionsResponse>,
                            _cx: ConnectionTo<Client>| {
                    // Every session fits in one page: no cursor is ever issued, so any is invalid.
                    if let Some(cursor) = &request.cursor {
                        return responder.respond_with_error(invalid_params(format!(
                            "invalid session/list cursor `{cursor}`"
                        )));
                    }
                    responder.respond(schema::ListSessionsResponse::new(
                        agent.listed(request.cwd.as_ref()),
                    ))
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::ResumeSessionRequest,
                            responder: Responder<schema::ResumeSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(session) = agent.session(&request.session_id.0) else {
                        return responder.respond_with_error(session_not_found(&request.session_id));
                    };
                    let history = match &request.replay_from {
                        None => Vec::new(),
                        Some(schema::ReplayFrom::Start(_)) => session.history.lock().unwrap().clone(),
                        Some(_) => {
                            return responder.respond_with_error(invalid_params("unsupported replayFrom"));
                        }
                    };
                    session.set_open(true);
                    for update in history {
                        // Sent as they were, not recorded a second time.
                        cx.send_notification(schema::UpdateSessionNotification::new(
                            session.id().to_owned(),
                            update,
                        ))?;
                    }
                    send_state(&cx, &session, "idle", None)?;
                    responder.respond(
                        schema::ResumeSessionResponse::new().config_options(session.config_options()?),
                    )
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::CloseSessionRequest,
                            responder: Responder<schema::CloseSessionResponse>,
                            _cx: ConnectionTo<Client>| {
                    let Some(session) = agent.session(&request.session_id.0) else {
                        return responder.respond_with_error(session_not_found(&request.session_id));
                    };
                    // Closing ends the running turn and the background work, as a cancel does.
                    session.set_open(false);
                    agent.state.cancel(session.id());
                    for stop in session.background.lock().unwrap().values() {
                        let _ = stop.send(true);
                    }
                    responder.respond(schema::CloseSessionResponse::new())
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::SetSessionConfigOptionRequest,
                            responder: Responder<schema::SetSessionConfigOptionResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(session) = agent.session(&request.session_id.0) else {
                        return responder.respond_with_error(session_not_found(&request.session_id));
                    };
                    let mode = match (&*request.config_id.0, &request.value) {
                        ("mode", schema::SessionConfigOptionValue::Id { value }) => Mode::from_id(&value.0),
                        _ => None,
                    };
                    let Some(mode) = mode else {
                        return responder.respond_with_error(invalid_params(format!(
                            "the demo agent has one option, `mode` (`ask` or `auto`), not {}",
                            serde_json::to_string(&request).unwrap_or_default()
                        )));
                    };
                    *session.mode.lock().unwrap() = mode;
                    let options = session.config_options()?;
                    send_update(
                        &cx,
                        &session,
                        schema::SessionUpdate::ConfigOptionUpdate(schema::ConfigOptionUpdate::new(
                            options.clone(),
                        )),
                    )?;
                    responder.respond(schema::SetSessionConfigOptionResponse::new(options))
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::CancelToolCallRequest,
                            responder: Responder<schema::CancelToolCallResponse>,
                            _cx: ConnectionTo<Client>| {
                    let stop = agent.session(&request.session_id.0).and_then(|s| {
                        s.background
                            .lock()
                            .unwrap()
                            .get(&*request.tool_call_id.0)
                            .cloned()
                    });
                    match stop {
                        Some(stop) => {
                            let _ = stop.send(true);
                            responder.respond(schema::CancelToolCallResponse::new())
                        }
                        // The spec's answer for an unknown or non-cancellable tool call.
                        None => responder.respond_with_error(invalid_params(format!(
                            "no cancellable tool call `{}` in session `{}`",
                            request.tool_call_id.0, request.session_id.0
                        ))),
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::CancelTerminalRequest,
                            responder: Responder<schema::CancelTerminalResponse>,
                            _cx: ConnectionTo<Client>| {
                    let stop = agent
                        .session(&request.session_id.0)
                        .and_then(|s| s.terminals.lock().unwrap().get(&*request.terminal_id.0).cloned());
                    match stop {
                        Some(stop) => {
                            let _ = stop.send(true);
                            responder.respond(schema::CancelTerminalResponse::new())
                        }
                        None => responder.respond_with_error(invalid_params(format!(
                            "no running terminal `{}` in session `{}`",
                            request.terminal_id.0, request.session_id.0
                        ))),
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let agent = agent.clone();
                async move |request: schema::PromptRequest,
                            responder: Responder<schema::PromptResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(session) = agent.session(&request.session_id.0).filter(|s| s.is_open()) else {
                        return responder.respond_with_error(session_not_found(&request.session_id));
                    };
                    if request.prompt.is_empty() {
                        return responder.respond_with_error(invalid_params("prompt must not be empty"));
                    }
                    // No prompt capability is advertised: only v2's baseline blocks are taken.
                    if let Some(block) = request.prompt.iter().find(|b| {
                        !matches!(
                            b,
                            schema::ContentBlock::Text(_) | schema::ContentBlock::ResourceLink(_)
                        )
                    }) {
                        return responder.respond_with_error(invalid_params(format!(
                            "the demo agent takes text and resource links in a prompt, not {}",
                            serde_json::to_value(block)
                                .map(|b| b["type"].to_string())
                                .unwrap_or_default()
                        )));
                    }
                    let agent = agent.clone();
                    let turn_cx = cx.clone();
                    // A `session/cancel` (or `session/close`) from now on also cancels this
                    // prompt while it is held.
                    let cancels = *session.base.cancel.borrow();
                    cx.spawn(async move {
                        // A prompt sent while a turn runs is held until it ends (v2 never refuses it).
                        let held = session.clone();
                        let _running = held.turn.lock().await;
                        if !session.is_open() || *session.base.cancel.borrow() != cancels {
                            return responder.respond_with_error(Error::request_cancelled());
                        }
                        let user_message = agent.message_id("user");
                        responder.respond(schema::PromptResponse::new(user_message.clone()))?;
                        let mut turn = Turn::new(turn_cx, agent, session);
                        turn.send(schema::SessionUpdate::UserMessage(
                            schema::UserMessage::new(user_message).content(request.prompt.clone()),
                        ))?;
                        turn.state("running")?;
                        let stop = match scenarios::run(&mut turn, &prompt_text(&request.prompt)).await {
                            Ok(Stop::EndTurn) if !turn.is_cancelled() => "end_turn",
                            Ok(_) => "cancelled",
                            Err(_) if turn.is_cancelled() => "cancelled",
                            Err(e) => {
                                eprintln!("porthole-demo-agent: v2 turn failed: {e}");
                                turn.new_message();
                                turn.say(format!("The demo agent failed: {e}"))?;
                                "end_turn"
                            }
                        };
                        send_state(&turn.cx, &turn.session, "idle", Some(stop))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let agent = agent.clone();
                async move |notification: schema::CancelSessionNotification, _cx: ConnectionTo<Client>| {
                    if !agent.state.cancel(&notification.session_id.0) {
                        eprintln!(
                            "porthole-demo-agent: session/cancel for unknown session {}",
                            notification.session_id.0
                        );
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mcp_servers_keep_their_fields_in_v1s_shape() {
        let v2: Vec<schema::McpServer> = serde_json::from_value(json!([
            { "type": "stdio", "name": "files", "command": "/bin/mcp", "args": ["-v"], "env": [{ "name": "A", "value": "1" }] },
            { "type": "stdio", "name": "bare", "command": "/bin/bare" },
            { "type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": [] }
        ]))
        .unwrap();
        let v1 = serde_json::to_value(mcp_servers(&v2).unwrap()).unwrap();
        assert_eq!(
            v1,
            json!([
                { "name": "files", "command": "/bin/mcp", "args": ["-v"], "env": [{ "name": "A", "value": "1" }] },
                { "name": "bare", "command": "/bin/bare", "args": [], "env": [] },
                { "type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": [] }
            ])
        );
    }

    #[test]
    fn typed_refuses_what_the_type_would_drop() {
        let unknown_field =
            json!({ "sessionUpdate": "notice", "severity": "info", "title": "t", "titel": "typo" });
        let error = typed::<schema::SessionUpdate>(unknown_field).unwrap_err();
        assert!(format!("{error:?}").contains("does not keep"), "{error:?}");
        let wrong_shape = json!({ "sessionUpdate": "usage_update", "used": "many", "size": 1 });
        assert!(typed::<schema::SessionUpdate>(wrong_shape).is_err());
    }
}
