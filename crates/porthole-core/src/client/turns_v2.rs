//! A turn on the v2 wire. `session/prompt` only acknowledges; the turn runs until the session's
//! state says `idle` (`state_update`), and front ends get the same [`Event::TurnEnded`] as for
//! v1 then, after the turn's updates. An error answer to the prompt ends it at once.

use agent_client_protocol::v1::schema::{ContentBlock, StopReason};
use agent_client_protocol::v2::schema as v2;
use serde_json::Value;

use super::state::{Shared, V2Turn};
use super::{AgentClient, ClientError};
use crate::events::{Event, RpcError};

impl AgentClient {
    pub(super) fn prompt_v2(&self, session_id: &str, blocks: Vec<ContentBlock>) -> Result<(), ClientError> {
        let prompt = blocks
            .iter()
            .map(|b| serde_json::to_value(b).and_then(serde_json::from_value::<v2::ContentBlock>))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ClientError::Start(format!("a prompt block v2 cannot carry: {e}")))?;
        if let Some(session) = self.shared.lock().sessions.get_mut(session_id) {
            session.v2_turn = Some(V2Turn::default());
        }
        let prepared = self
            .cx
            .prepare_request(v2::PromptRequest::new(session_id.to_string(), prompt));
        let key = serde_json::to_string(prepared.raw_id()).unwrap_or_default();
        self.shared.lock().in_flight.insert(key.clone(), "session/prompt");
        let shared = self.shared.clone();
        let client = self.clone();
        let session_id = session_id.to_string();
        // In dispatch order: the acknowledgement is known before any later update is handled.
        prepared
            .on_receiving_result(move |result| {
                shared.lock().in_flight.remove(&key);
                let ended = {
                    let mut state = shared.lock();
                    let turn = state.sessions.get_mut(&session_id).and_then(|s| s.v2_turn.as_mut());
                    match (&result, turn) {
                        (Ok(_), Some(turn)) => {
                            turn.acknowledged = true;
                            None
                        }
                        (Err(e), Some(_)) => {
                            if let Some(s) = state.sessions.get_mut(&session_id) {
                                s.v2_turn = None;
                            }
                            Some(e.clone())
                        }
                        _ => None,
                    }
                };
                async move {
                    if let Some(e) = ended {
                        let event = Event::TurnEnded {
                            session_id,
                            stop_reason: None,
                            error: Some(match client.exit_info() {
                                Some(info) => RpcError {
                                    code: e.code.value(),
                                    message: format!(
                                        "the agent exited during the turn: {}",
                                        super::describe_exit(&info)
                                    ),
                                },
                                None => RpcError::from(&e),
                            }),
                        };
                        client.shared.emit(event).await;
                    }
                    Ok(())
                }
            })
            .map_err(|e| self.rpc_error("session/prompt", &e))
    }

    pub(super) fn cancel_v2(&self, session_id: &str) -> Result<(), ClientError> {
        self.cx
            .send_notification(v2::CancelSessionNotification::new(session_id.to_string()))
            .map_err(|e| self.rpc_error("session/cancel", &e))
    }
}

/// A `state_update` of `session_id`: the turn's end when it is the `idle` that ends it. Any
/// state but `idle` (an unknown one too) counts as busy.
pub(crate) fn turn_end(shared: &Shared, session_id: &str, state: &v2::StateUpdate) -> Option<Event> {
    let mut guard = shared.lock();
    let session = guard.sessions.get_mut(session_id)?;
    let turn = session.v2_turn.as_mut()?;
    let v2::StateUpdate::Idle(idle) = state else {
        turn.busy_seen = true;
        return None;
    };
    let ends = turn.busy_seen || (turn.acknowledged && idle.stop_reason.is_some());
    if !ends {
        return None;
    }
    session.v2_turn = None;
    let (stop_reason, error) = stop_reason(idle.stop_reason.as_ref());
    Some(Event::TurnEnded {
        session_id: session_id.to_string(),
        stop_reason,
        error,
    })
}

/// v2's stop reason as v1's, and an `error` stop reason as the turn's error. A reason v1 has
/// no name for is `None` here; the `state` update the front end got carries it as it came.
fn stop_reason(reason: Option<&v2::StopReason>) -> (Option<StopReason>, Option<RpcError>) {
    match reason {
        Some(v2::StopReason::Error(e)) => {
            let error = e.error.as_ref().map_or(
                RpcError {
                    code: -32603,
                    message: "the agent stopped with an error".into(),
                },
                |e| RpcError {
                    code: i32::from(e.code),
                    message: e.message.clone(),
                },
            );
            (None, Some(error))
        }
        Some(other) => {
            let wire = serde_json::to_value(other).unwrap_or(Value::Null);
            let v1 = serde_json::from_value::<StopReason>(wire["stopReason"].clone()).ok();
            (v1, None)
        }
        None => (None, None),
    }
}
