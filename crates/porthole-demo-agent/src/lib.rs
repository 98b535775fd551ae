//! Porthole demo agent: a deterministic ACP agent (no model) that
//! exercises streaming, plans, slash commands, tool calls, permissions,
//! `fs/write_text_file`, form and URL elicitation, and cancellation; in v2
//! ([`v2`]) also subagents, background work, compaction, notices and cost.
//!
//! [`run_stdio`] serves one ACP connection over this process's stdin/stdout,
//! in the version the client's `initialize` asks for (v1 or v2);
//! the desktop app links this crate and re-executes itself in agent mode.
//! Only protocol messages go to stdout; diagnostics go to stderr.

pub mod commands;
pub mod forms;
pub mod mcp;
pub mod signin;
pub mod state;
pub mod turn;
pub mod v2;

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ContentBlock, Implementation, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest,
    PromptResponse, StopReason,
};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, Stdio};

use crate::commands::Stop;
use crate::state::{AgentState, Caps};
use crate::turn::Turn;

/// Concatenates the text blocks of a prompt.
pub fn prompt_text(prompt: &[ContentBlock]) -> String {
    prompt
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The environment variable that limits the versions served: `1`, `2`, or `1,2` (the default).
/// A client's fallback can be tried against a v1-only agent (answers `1` to a v2 `initialize`)
/// and a v2-only one (refuses a v1 `initialize` with -32022).
pub const PROTOCOLS_ENV: &str = "PORTHOLE_DEMO_AGENT_PROTOCOLS";

/// Which versions `value` (of [`PROTOCOLS_ENV`]) asks for: (v1, v2).
pub fn protocols(value: Option<&str>) -> anyhow::Result<(bool, bool)> {
    let Some(value) = value else {
        return Ok((true, true));
    };
    let mut wanted = (false, false);
    for version in value.split(',').map(str::trim) {
        match version {
            "1" => wanted.0 = true,
            "2" => wanted.1 = true,
            other => anyhow::bail!(
                "{PROTOCOLS_ENV}={value:?}: {other:?} is not an ACP version this agent speaks (1 or 2)"
            ),
        }
    }
    Ok(wanted)
}

/// Serves ACP over stdin/stdout until the client disconnects: the SDK's protocol router hands a
/// v2 `initialize` to the v2 agent and anything else, unchanged, to the v1 agent.
pub async fn run_stdio() -> anyhow::Result<()> {
    let (v1, v2) = protocols(std::env::var(PROTOCOLS_ENV).ok().as_deref())?;
    let mut router = Agent.protocol_router();
    if v1 {
        router = router.with_v1(v1_agent());
    }
    if v2 {
        router = router.with_v2(v2::agent());
    }
    router
        .connect_to(Stdio::new())
        .await
        .map_err(|e| anyhow::anyhow!("ACP connection failed: {e}"))
}

/// The v1 agent.
pub fn v1_agent() -> impl ConnectTo<Client> {
    let state = Arc::new(AgentState::default());
    let (s_init, s_new, s_prompt, s_cancel) = (state.clone(), state.clone(), state.clone(), state);

    Agent
        .v1()
        .name("porthole-demo-agent")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                s_init.set_caps(Caps::from_client(&request.client_capabilities));
                eprintln!("porthole-demo-agent: client capabilities {:?}", s_init.caps());
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            AgentCapabilities::new()
                                .load_session(false)
                                .prompt_capabilities(PromptCapabilities::new()),
                        )
                        .agent_info(
                            Implementation::new("porthole-demo-agent", env!("CARGO_PKG_VERSION"))
                                .title("Porthole Demo Agent"),
                        ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                let session = s_new.new_session(request.cwd, request.mcp_servers);
                responder.respond(NewSessionResponse::new(session.id.clone()))?;
                let cx2 = cx.clone();
                cx.spawn(async move {
                    let params = serde_json::json!({
                        "sessionId": session.id,
                        "update": commands::available_commands_update(),
                    });
                    cx2.send_notification(agent_client_protocol::UntypedMessage::new(
                        "session/update",
                        params,
                    )?)
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                let Some(session) = s_prompt.session(&request.session_id.0) else {
                    return responder.respond_with_error(
                        Error::invalid_params().data(format!("unknown session {}", request.session_id.0)),
                    );
                };
                let request_id = serde_json::to_value(responder.id()).map_err(Error::into_internal_error)?;
                let text = prompt_text(&request.prompt);
                let agent = s_prompt.clone();
                // Run the turn outside the dispatch loop so it can await
                // client responses and observe `session/cancel`.
                let turn_cx = cx.clone();
                cx.spawn(async move {
                    let mut turn = Turn::new(turn_cx, agent, session, request_id);
                    let result = commands::run(&mut turn, &text).await;
                    let stop = match result {
                        Ok(Stop::EndTurn) if !turn.is_cancelled() => StopReason::EndTurn,
                        Ok(_) => StopReason::Cancelled,
                        Err(_) if turn.is_cancelled() => StopReason::Cancelled,
                        Err(e) => return responder.respond_with_error(e),
                    };
                    responder.respond(PromptResponse::new(stop))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                if !s_cancel.cancel(&notification.session_id.0) {
                    eprintln!(
                        "porthole-demo-agent: session/cancel for unknown session {}",
                        notification.session_id.0
                    );
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_are_both_unless_limited() {
        assert_eq!(protocols(None).unwrap(), (true, true));
        assert_eq!(protocols(Some("1")).unwrap(), (true, false));
        assert_eq!(protocols(Some("2")).unwrap(), (false, true));
        assert_eq!(protocols(Some("1, 2")).unwrap(), (true, true));
        let refused = protocols(Some("3")).unwrap_err().to_string();
        assert!(refused.contains("\"3\" is not an ACP version"), "{refused}");
    }
}
