//! `session/update` notifications: typed and delivered in wire order, from the SDK's path here
//! or from the transport's fast path (`hot_path`), which calls [`deliver_update`] directly.
//! Both end in Porthole's own model (`crate::transcript`), converted in one place.

use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate, ToolKind};
use serde_json::Value;

use crate::client::state::{KnownToolCall, Shared};
use crate::events::Event;
use crate::transcript::{TranscriptUpdate, V1_KINDS};

pub(crate) async fn handle(shared: &Shared, params: Value) {
    let session_id = params
        .get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_string);
    match serde_json::from_value::<SessionNotification>(params.clone()) {
        Ok(n) => deliver_update(shared, n.session_id.0.to_string(), Box::new(n.update)).await,
        Err(e) => match (session_id, newer_kind(&params)) {
            // A kind the SDK does not know (a newer or private one): valid ACP, kept and shown
            // by its name.
            (Some(session_id), Some(kind)) => {
                tracing::info!("a session/update of a kind Porthole does not know: {kind}");
                let update = params.get("update").cloned().unwrap_or(Value::Null);
                let update = Box::new(TranscriptUpdate::unknown(kind, update));
                shared.emit(Event::SessionUpdate { session_id, update }).await
            }
            (session_id, _) => {
                tracing::warn!("malformed session/update: {e}");
                shared
                    .emit(Event::MalformedUpdate {
                        session_id,
                        raw: params,
                        error: e.to_string(),
                    })
                    .await
            }
        },
    }
}

/// The update's kind, when it is one ACP v1 (as the SDK reads it) does not have.
fn newer_kind(params: &Value) -> Option<String> {
    let kind = params
        .get("update")?
        .as_object()?
        .get("sessionUpdate")?
        .as_str()?;
    (!V1_KINDS.contains(&kind)).then(|| kind.to_string())
}

/// A typed `session/update`, delivered as Porthole's model of it. Tool calls' kinds and titles
/// are remembered for permission requests that omit them.
pub(crate) async fn deliver_update(shared: &Shared, session_id: String, update: Box<SessionUpdate>) {
    deliver(shared, session_id, Box::new(TranscriptUpdate::from(*update))).await
}

/// Porthole's update (of either version), delivered; tool calls remembered as above.
pub(crate) async fn deliver(shared: &Shared, session_id: String, update: Box<TranscriptUpdate>) {
    if let Some(call) = update.tool_call() {
        let mut state = shared.lock();
        if let Some(session) = state.sessions.get_mut(&session_id) {
            let id = call.tool_call_id.0.as_ref();
            match session.tool_calls.get_mut(id) {
                Some(known) if !call.opened => {
                    if let Some(kind) = &call.fields.kind {
                        known.kind = *kind;
                    }
                    if let Some(title) = &call.fields.title {
                        known.title = title.clone();
                    }
                }
                // A patch of a call never announced is not remembered (as before).
                None if !call.opened => {}
                _ => {
                    session.tool_calls.insert(
                        id.to_string(),
                        KnownToolCall {
                            kind: call.fields.kind.unwrap_or_default(),
                            title: call.fields.title.clone().unwrap_or_default(),
                            streamed: Vec::new(),
                        },
                    );
                }
            }
        }
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
