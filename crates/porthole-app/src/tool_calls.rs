//! The recent tool calls of each session, as the agent described them (id, title, raw input):
//! what an MCP App is matched against to show it under the agent's tool call. Bounded per
//! session; the transcript itself is the window's.

use std::collections::{HashMap, VecDeque};

use porthole_core::transcript::ToolCallChange;
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

/// Note a tool call's update (its first creates it) of `session_id`.
pub(crate) fn seen(recent: &mut Recent, session_id: &str, update: &ToolCallChange) {
    let (id, title, raw_input) = (
        update.tool_call_id.0.to_string(),
        update.fields.title.clone(),
        update.fields.raw_input.clone(),
    );
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

    fn update(v: Value) -> ToolCallChange {
        let sdk: porthole_core::acp::v1::schema::SessionUpdate = serde_json::from_value(v).unwrap();
        porthole_core::transcript::TranscriptUpdate::from(sdk)
            .tool_call()
            .cloned()
            .unwrap()
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
