//! `session/update` notifications: typed and delivered in wire order, from the SDK's path here
//! or from the transport's fast path (`hot_path`), which calls [`deliver_update`] directly.

use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate, ToolKind};
use serde_json::Value;

use crate::client::state::{KnownToolCall, Shared};
use crate::events::Event;

pub(crate) async fn handle(shared: &Shared, params: Value) {
    let session_id = params
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_string);
    match serde_json::from_value::<SessionNotification>(params.clone()) {
        Ok(n) => deliver_update(shared, n.session_id.0.to_string(), Box::new(n.update)).await,
        Err(e) => {
            tracing::warn!("unrecognised session/update: {e}");
            shared
                .emit(Event::UnknownUpdate {
                    session_id,
                    raw: params,
                    error: e.to_string(),
                })
                .await
        }
    }
}

/// A typed `session/update`. Tool calls' kinds and titles are remembered for permission
/// requests that omit them.
pub(crate) async fn deliver_update(shared: &Shared, session_id: String, update: Box<SessionUpdate>) {
    match &*update {
        SessionUpdate::ToolCall(call) => {
            let mut state = shared.lock();
            if let Some(session) = state.sessions.get_mut(&session_id) {
                session.tool_calls.insert(
                    call.tool_call_id.0.to_string(),
                    KnownToolCall {
                        kind: call.kind,
                        title: call.title.clone(),
                    },
                );
            }
        }
        SessionUpdate::ToolCallUpdate(call) => {
            let mut state = shared.lock();
            if let Some(known) = state
                .sessions
                .get_mut(&session_id)
                .and_then(|s| s.tool_calls.get_mut(call.tool_call_id.0.as_ref()))
            {
                if let Some(kind) = &call.fields.kind {
                    known.kind = *kind;
                }
                if let Some(title) = &call.fields.title {
                    known.title = title.clone();
                }
            }
        }
        _ => {}
    }
    shared.emit(Event::SessionUpdate { session_id, update }).await
}

/// The ACP name of a tool kind (`edit`, `execute`, ...), the key of remembered decisions.
pub(crate) fn tool_kind_name(kind: &ToolKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".to_string())
}
