//! What a v2 agent sends, at the edge: its shapes converted to the ones the handlers of v1
//! already serve, so every rule and dialog is written once.
//!
//! - `elicitation/create` and `elicitation/complete` have v1's shape (v2's scoping, exactly one
//!   of `sessionId` or `requestId`, is the broker's rule already): the same handlers.
//! - `session/request_permission`: v2's `title`, `description` and `subject` (a tool call, a
//!   command, or one Porthole does not know) become v1's `toolCall`; the answer has one shape.
//! - `session/update`: typed by the v2 schema, converted in `transcript::v2`; a `state_update`
//!   may end the turn (`turns_v2`). One that does not parse is [`Event::MalformedUpdate`].
//! - v2 has no `fs/*` or `terminal/*` requests: they are answered "method not found".

use std::sync::Arc;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v2::schema as v2;
use serde_json::{Value, json};

use super::{elicitation, reply_error};
use crate::client::state::{KnownToolCall, Shared, Wire};
use crate::events::Event;
use crate::transcript::TranscriptUpdate;

/// A v2 request in v1's shape, then routed as v1's are (`handlers::route`, which knows what v2
/// lacks).
pub(crate) async fn handle_request(shared: &Arc<Shared>, req: UntypedMessage, responder: Responder<Value>) {
    let (method, params) = req.into_parts();
    let params = match method.as_str() {
        "session/request_permission" => match permission_as_v1(&params) {
            Some(params) => params,
            None => {
                return reply_error(
                    responder,
                    super::invalid_params("session/request_permission needs a `sessionId` and `options`"),
                );
            }
        },
        _ => params,
    };
    super::dispatch(shared, Wire::V2, method, params, responder).await;
}

pub(crate) async fn handle_notification(shared: &Arc<Shared>, note: UntypedMessage) {
    let (method, params) = note.into_parts();
    match method.as_str() {
        "session/update" => update(shared, params).await,
        "elicitation/complete" => elicitation::complete(shared, &params).await,
        crate::client::barrier::BARRIER_METHOD => shared.barrier.ack(&params),
        "$/cancel_request" => {}
        other => tracing::debug!("ignoring notification `{other}`"),
    }
}

/// v2's permission request in v1's shape. The subject's tool call is v1's `toolCall`; a command
/// is an `execute` call showing the command and its folder; another subject is shown by its
/// title, with the subject as its input. The request's `title` and `description` are the
/// prompt's own (v2: they do not update the subject's displayed title or content), so the
/// dialog shows them: the title as the dialog's, the description before the call's content
/// (the call's own title stays on its card in the transcript: Codex asks "Make edits?" about
/// the call "Edit files").
fn permission_as_v1(params: &Value) -> Option<Value> {
    let session_id = params.get("sessionId")?;
    let options = params.get("options")?;
    let title = params.get("title").cloned().unwrap_or(Value::Null);
    let subject = params.get("subject").cloned().unwrap_or(Value::Null);
    let mut call = match subject.get("type").and_then(Value::as_str) {
        Some("tool_call") => subject.get("toolCall").cloned().unwrap_or(Value::Null),
        Some("command") => json!({
            "toolCallId": subject.get("toolCallId").cloned().unwrap_or(json!("command")),
            "kind": "execute",
            "rawInput": {"command": subject["command"], "cwd": subject["cwd"]},
        }),
        _ => json!({"toolCallId": "permission", "rawInput": subject}),
    };
    let call_obj = call.as_object_mut()?;
    if !title.is_null() {
        call_obj.insert("title".into(), title);
    }
    if let Some(description) = params.get("description").and_then(Value::as_str) {
        let block = json!({"type": "content", "content": {"type": "text", "text": description}});
        match call_obj.get_mut("content") {
            Some(Value::Array(content)) => content.insert(0, block),
            _ => {
                call_obj.insert("content".into(), json!([block]));
            }
        }
    }
    let mut v1 = json!({"sessionId": session_id, "toolCall": call, "options": options});
    if let Some(meta) = params.get("_meta") {
        v1["_meta"] = meta.clone();
    }
    Some(v1)
}

async fn update(shared: &Shared, params: Value) {
    let notification = match serde_json::from_value::<v2::UpdateSessionNotification>(params.clone()) {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!("malformed v2 session/update: {e}");
            let session_id = params
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string);
            return shared
                .emit(Event::MalformedUpdate {
                    session_id,
                    raw: params,
                    error: e.to_string(),
                })
                .await;
        }
    };
    let session_id = notification.session_id.to_string();
    let turn_end = match &notification.update {
        v2::SessionUpdate::StateUpdate(state) => {
            crate::client::turns_v2::turn_end(shared, &session_id, state)
        }
        _ => None,
    };
    let mut update = notification.update;
    if let v2::SessionUpdate::UsageUpdate(usage) = &mut update
        && let Some(session) = shared.lock().sessions.get_mut(&session_id)
    {
        crate::transcript::v2::keep_cost(usage, &mut session.v2_cost);
    }
    let update = match update {
        v2::SessionUpdate::ToolCallContentChunk(chunk) => tool_content(shared, &session_id, chunk),
        update => {
            let known = |id: &str| {
                let state = shared.lock();
                state
                    .sessions
                    .get(&session_id)
                    .is_some_and(|s| s.tool_calls.contains_key(id))
            };
            let update = match crate::transcript::v2::convert(update, known) {
                Ok(update) => update,
                Err(error) => {
                    tracing::warn!("malformed v2 session/update: {error}");
                    let session_id = Some(session_id);
                    return shared
                        .emit(Event::MalformedUpdate {
                            session_id,
                            raw: params,
                            error,
                        })
                        .await;
                }
            };
            // A call's whole content, set by an update: later chunks append to it.
            if let Some(call) = update.tool_call()
                && let Some(content) = &call.fields.content
                && let Some(session) = shared.lock().sessions.get_mut(&session_id)
                && let Some(known) = session.tool_calls.get_mut(call.tool_call_id.0.as_ref())
            {
                known.streamed = content.clone();
            }
            update
        }
    };
    super::updates::deliver(shared, session_id.clone(), Box::new(update)).await;
    if let Some(end) = turn_end {
        shared.emit(end).await;
    }
}

/// A content chunk of a tool call: its content so far, with the chunk, as one update.
fn tool_content(shared: &Shared, session_id: &str, chunk: v2::ToolCallContentChunk) -> TranscriptUpdate {
    let mut state = shared.lock();
    let id = chunk.tool_call_id.to_string();
    let known = state.sessions.get_mut(session_id).map(|s| {
        s.tool_calls.entry(id).or_insert_with(|| KnownToolCall {
            kind: Default::default(),
            title: String::new(),
            streamed: Vec::new(),
        })
    });
    let mut none = Vec::new();
    let so_far = match known {
        Some(call) => &mut call.streamed,
        None => &mut none,
    };
    crate::transcript::v2::tool_content(&chunk, so_far).unwrap_or_else(|| {
        TranscriptUpdate::unknown(
            "tool_call_content_chunk".into(),
            serde_json::to_value(&chunk).unwrap_or(Value::Null),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// codex-acp 2.6.0's request before an edit (recorded, paths shortened): the prompt asks
    /// "Make edits?" about the call "Edit files". The dialog shows the request's title, and a
    /// description goes before the call's content; the rest of the call is as it came.
    #[test]
    fn the_request_title_and_description_are_the_dialogs() {
        let call = json!({"toolCallId": "call_1", "title": "Edit files", "kind": "edit", "status": "pending",
            "locations": [{"path": "/ws/notes.txt"}],
            "content": [{"type": "content", "content": {"type": "text", "text": "the call's own"}}]});
        let options = json!([{"optionId": "allow_once", "name": "Yes, proceed", "kind": "allow_once"}]);
        let v2 = json!({"sessionId": "s1", "title": "Make edits?", "description": "Codex wants to write notes.txt",
            "subject": {"type": "tool_call", "toolCall": call}, "options": options});
        let v1 = permission_as_v1(&v2).unwrap();
        assert_eq!(v1["toolCall"]["title"], "Make edits?");
        let texts: Vec<_> = v1["toolCall"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["content"]["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, ["Codex wants to write notes.txt", "the call's own"]);
        assert_eq!(v1["toolCall"]["locations"], json!([{"path": "/ws/notes.txt"}]));
        assert_eq!(v1["options"], options);
        // Typed as v1's request, as the permission handler reads it.
        serde_json::from_value::<agent_client_protocol::v1::schema::RequestPermissionRequest>(v1).unwrap();
    }
}
