//! The recent tool calls of each session, as the agent described them (id, title, raw input):
//! what an MCP App is matched against to show it under the agent's tool call. Bounded per
//! session; the transcript itself is the window's.

use std::collections::{HashMap, VecDeque};

use porthole_core::acp::v1::schema::SessionUpdate;
use serde_json::Value;

/// Tool calls kept per session (an app's call finishes within its own turn).
const KEPT: usize = 64;

/// One tool call as the agent described it (the latest of its updates).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SeenToolCall {
    pub id: String,
    pub title: Option<String>,
    pub raw_input: Option<Value>,
}

pub(crate) type Recent = HashMap<String, VecDeque<SeenToolCall>>;

pub(crate) fn is_tool_call(update: &SessionUpdate) -> bool {
    matches!(
        update,
        SessionUpdate::ToolCall(_) | SessionUpdate::ToolCallUpdate(_)
    )
}

/// Note a `tool_call` or `tool_call_update` of `session_id`.
pub(crate) fn seen(recent: &mut Recent, session_id: &str, update: &SessionUpdate) {
    let (id, title, raw_input) = match update {
        SessionUpdate::ToolCall(call) => (
            call.tool_call_id.0.to_string(),
            Some(call.title.clone()),
            call.raw_input.clone(),
        ),
        SessionUpdate::ToolCallUpdate(update) => (
            update.tool_call_id.0.to_string(),
            update.fields.title.clone(),
            update.fields.raw_input.clone(),
        ),
        _ => return,
    };
    let calls = recent.entry(session_id.to_string()).or_default();
    let call = match calls.iter().position(|c| c.id == id) {
        Some(at) => &mut calls[at],
        None => {
            if calls.len() == KEPT {
                calls.pop_front();
            }
            calls.push_back(SeenToolCall {
                id,
                ..SeenToolCall::default()
            });
            calls.back_mut().expect("just pushed")
        }
    };
    if title.is_some() {
        call.title = title;
    }
    if raw_input.is_some() {
        call.raw_input = raw_input;
    }
}

/// A session closed: its tool calls go.
pub(crate) fn forget(recent: &mut Recent, session_id: &str) {
    recent.remove(session_id);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn update(v: Value) -> SessionUpdate {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_call_keeps_its_latest_title_and_input_and_the_list_is_bounded() {
        let mut recent = Recent::new();
        seen(
            &mut recent,
            "s",
            &update(json!({"sessionUpdate": "tool_call", "toolCallId": "a", "title": "get-time"})),
        );
        seen(
            &mut recent,
            "s",
            &update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "a", "rawInput": {"x": 1}})),
        );
        assert_eq!(
            recent["s"][0],
            SeenToolCall {
                id: "a".into(),
                title: Some("get-time".into()),
                raw_input: Some(json!({"x": 1}))
            }
        );
        for n in 0..100 {
            seen(
                &mut recent,
                "s",
                &update(json!({"sessionUpdate": "tool_call", "toolCallId": n.to_string(), "title": "t"})),
            );
        }
        assert_eq!(recent["s"].len(), KEPT);
        assert_eq!(recent["s"].back().unwrap().id, "99");
        forget(&mut recent, "s");
        assert!(recent.is_empty());
    }
}
