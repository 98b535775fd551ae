//! v2's subagent updates (`subagent_update`, `session_message`, `session_message_chunk`), read
//! with Porthole's own serde types. The schema types them only behind its `unstable_subagents`
//! feature, and turning that on in one crate changes the SDK's enums for every crate of a
//! workspace build (porthole-core's schema tests then fail under `cargo test --workspace`), so
//! the SDK hands them over as `Other` and they are read here. The fields follow schema 1.17's
//! `SubagentUpdate`, `SessionMessage` and `SessionMessageChunk`; a field Porthole does not show
//! is kept in `other`, `_meta` as it came.
//!
//! Stricter than the schema's types (which turn a field of the wrong type into "left out"):
//! a field of the wrong type, or a required one missing or `null`, refuses the update with an
//! error that names it (`Event::MalformedUpdate`): never a crash, never a silent drop.

use agent_client_protocol::schema::MaybeUndefined;
use agent_client_protocol::v1::schema::ContentBlock;
use agent_client_protocol::v2::schema as v2;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{as_v1, run_state};
use crate::transcript::{ItemUpdate, MessageEdit, SessionMessageChange, SubagentChange, TranscriptUpdate};

/// `subagent_update`: an upsert keyed by the subagent's own session id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubagentWire {
    session_id: String,
    #[serde(default)]
    title: MaybeUndefined<String>,
    #[serde(default)]
    description: MaybeUndefined<String>,
    #[serde(default)]
    state: MaybeUndefined<v2::StateUpdate>,
    #[serde(default, rename = "_meta")]
    meta: MaybeUndefined<Map<String, Value>>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// `session_message`: an upsert of a message between sessions, keyed by `messageId`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionMessageWire {
    message_id: String,
    #[serde(default)]
    sender_session_id: MaybeUndefined<String>,
    #[serde(default)]
    recipient_session_id: MaybeUndefined<String>,
    #[serde(default)]
    content: MaybeUndefined<Vec<v2::ContentBlock>>,
    #[serde(default, rename = "_meta")]
    meta: MaybeUndefined<Map<String, Value>>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// `session_message_chunk`: one block appended to the message of its id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionMessageChunkWire {
    message_id: String,
    content: v2::ContentBlock,
    #[serde(default, rename = "_meta")]
    meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    other: Map<String, Value>,
}

/// `None` when `kind` is not one of the subagent kinds; else the update, or why it is refused.
pub(super) fn convert(kind: &str, raw: &Value) -> Option<Result<TranscriptUpdate, String>> {
    let converted = match kind {
        "subagent_update" => read::<SubagentWire>(kind, raw).map(|w| Some(subagent(w, raw))),
        "session_message" => read::<SessionMessageWire>(kind, raw).map(|w| message(w, raw)),
        "session_message_chunk" => read::<SessionMessageChunkWire>(kind, raw).map(|w| chunk(w, raw)),
        _ => return None,
    };
    // A content block v1's types cannot hold (a kind newer than v1's): kept as it came.
    Some(converted.map(|u| u.unwrap_or_else(|| TranscriptUpdate::unknown(kind.to_string(), raw.clone()))))
}

fn read<T: serde::de::DeserializeOwned>(kind: &str, raw: &Value) -> Result<T, String> {
    serde_json::from_value(raw.clone()).map_err(|e| format!("a malformed `{kind}`: {e}"))
}

fn subagent(w: SubagentWire, raw: &Value) -> TranscriptUpdate {
    let state: Option<Option<v2::StateUpdate>> = w.state.into();
    TranscriptUpdate::Item(ItemUpdate::Subagent(SubagentChange {
        session_id: w.session_id,
        title: w.title.into(),
        description: w.description.into(),
        state: state.map(|s| s.as_ref().map(run_state)),
        other: without_tag(w.other),
        meta: patch(w.meta),
        wire: raw.clone(),
    }))
}

fn message(w: SessionMessageWire, raw: &Value) -> Option<TranscriptUpdate> {
    let edit = match w.content {
        MaybeUndefined::Undefined => MessageEdit::Keep,
        MaybeUndefined::Null => MessageEdit::Replace { content: Vec::new() },
        MaybeUndefined::Value(blocks) => MessageEdit::Replace {
            content: blocks.iter().map(as_v1).collect::<Option<Vec<ContentBlock>>>()?,
        },
    };
    Some(TranscriptUpdate::Item(ItemUpdate::SessionMessage(
        SessionMessageChange {
            message_id: w.message_id,
            sender_session_id: w.sender_session_id.into(),
            recipient_session_id: w.recipient_session_id.into(),
            edit,
            other: without_tag(w.other),
            meta: patch(w.meta),
            wire: raw.clone(),
        },
    )))
}

fn chunk(w: SessionMessageChunkWire, raw: &Value) -> Option<TranscriptUpdate> {
    Some(TranscriptUpdate::Item(ItemUpdate::SessionMessage(
        SessionMessageChange {
            message_id: w.message_id,
            sender_session_id: None,
            recipient_session_id: None,
            edit: MessageEdit::Append {
                content: as_v1(&w.content)?,
            },
            other: without_tag(w.other),
            meta: w.meta.map(Value::Object),
            wire: raw.clone(),
        },
    )))
}

/// A `_meta` patch as it came: left out `None`, `null` (clears) `Value::Null`.
fn patch(meta: MaybeUndefined<Map<String, Value>>) -> Option<Value> {
    match meta {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(Value::Null),
        MaybeUndefined::Value(m) => Some(Value::Object(m)),
    }
}

/// The fields Porthole does not model, the update's own tag taken out.
fn without_tag(mut other: Map<String, Value>) -> Map<String, Value> {
    other.remove("sessionUpdate");
    other
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::transcript::v2::convert as convert_v2;
    use crate::transcript::{
        ItemUpdate, MessageEdit, SessionMessageChange, SubagentChange, TextLine, TranscriptUpdate,
    };

    fn converted(update: serde_json::Value) -> Result<TranscriptUpdate, String> {
        convert_v2(serde_json::from_value(update).expect("a v2 update"), |_| false)
    }

    fn subagent_of(update: &TranscriptUpdate) -> &SubagentChange {
        match update {
            TranscriptUpdate::Item(ItemUpdate::Subagent(a)) => a,
            other => panic!("not a subagent: {other:?}"),
        }
    }

    fn message_of(update: &TranscriptUpdate) -> &SessionMessageChange {
        match update {
            TranscriptUpdate::Item(ItemUpdate::SessionMessage(m)) => m,
            other => panic!("not a session message: {other:?}"),
        }
    }

    #[test]
    fn a_subagent_upsert_keeps_left_out_null_and_value_apart() {
        let raw = json!({"sessionUpdate": "subagent_update", "sessionId": "child", "title": "Reader",
            "description": null, "state": {"state": "idle", "stopReason": "end_turn"},
            "cwd": "/w/sub", "capabilities": {"close": {}}, "_meta": {"x": 1}});
        let update = converted(raw.clone()).unwrap();
        assert_eq!(update.kind(), "subagent");
        let a = subagent_of(&update);
        assert_eq!(a.session_id, "child");
        assert_eq!(a.title, Some(Some("Reader".into())));
        assert_eq!(a.description, Some(None), "null clears");
        let state = a.state.clone().flatten().expect("a state");
        assert_eq!(
            (state.state.as_str(), state.busy, state.stop_reason.as_deref()),
            ("idle", false, Some("end_turn"))
        );
        assert_eq!(a.other["cwd"], "/w/sub", "a field Porthole does not show is kept");
        assert_eq!(a.other["capabilities"], json!({"close": {}}));
        assert!(!a.other.contains_key("sessionUpdate"));
        assert_eq!(a.meta, Some(json!({"x": 1})));
        // The window's model: a field left out is left out (undefined), null stays null.
        let model = serde_json::to_value(&update).unwrap();
        assert_eq!(model["description"], serde_json::Value::Null);
        assert!(model.get("description").is_some());
        // --json prints it as the agent sent it.
        assert_eq!(serde_json::to_value(update.wire()).unwrap(), raw);

        let only_state = converted(json!({"sessionUpdate": "subagent_update", "sessionId": "child",
            "state": {"state": "_paused"}}))
        .unwrap();
        let a = subagent_of(&only_state);
        assert_eq!(
            (&a.title, &a.description, &a.meta),
            (&None, &None, &None),
            "left out: unchanged"
        );
        let state = a.state.clone().flatten().unwrap();
        assert!(state.busy, "a state Porthole does not know is busy, never idle");
        assert!(
            !serde_json::to_value(&only_state)
                .unwrap()
                .as_object()
                .unwrap()
                .contains_key("title")
        );

        let cleared =
            converted(json!({"sessionUpdate": "subagent_update", "sessionId": "child", "state": null}))
                .unwrap();
        assert_eq!(subagent_of(&cleared).state, Some(None));
    }

    #[test]
    fn session_messages_say_who_sent_them_and_edit_by_message_id() {
        let sent = converted(json!({"sessionUpdate": "session_message", "messageId": "m1",
            "senderSessionId": "parent", "recipientSessionId": "child", "recipientMessageId": "r1",
            "content": [{"type": "text", "text": "Read notes.txt"}]}))
        .unwrap();
        assert_eq!(sent.kind(), "session_message");
        let m = message_of(&sent);
        assert_eq!(
            (m.sender_session_id.clone(), m.recipient_session_id.clone()),
            (Some(Some("parent".into())), Some(Some("child".into())))
        );
        assert!(matches!(&m.edit, MessageEdit::Replace { content } if content.len() == 1));
        assert_eq!(m.other["recipientMessageId"], "r1");
        assert_eq!(
            sent.text_lines(),
            vec![TextLine::Note(
                "[session message m1 parent → child] Read notes.txt".into()
            )]
        );

        let chunk = converted(
            json!({"sessionUpdate": "session_message_chunk", "messageId": "m2",
            "content": {"type": "text", "text": "done"}}),
        )
        .unwrap();
        let m = message_of(&chunk);
        assert_eq!((&m.sender_session_id, &m.recipient_session_id), (&None, &None));
        assert!(matches!(&m.edit, MessageEdit::Append { .. }));

        let cleared =
            converted(json!({"sessionUpdate": "session_message", "messageId": "m1", "content": null}))
                .unwrap();
        let m = message_of(&cleared);
        assert_eq!(m.edit, MessageEdit::Replace { content: Vec::new() });
        assert_eq!(m.sender_session_id, None, "left out: unchanged");
        let kept = converted(json!({"sessionUpdate": "session_message", "messageId": "m1",
            "senderSessionId": null}))
        .unwrap();
        assert_eq!(message_of(&kept).edit, MessageEdit::Keep);
        assert_eq!(message_of(&kept).sender_session_id, Some(None));
    }

    #[test]
    fn a_malformed_subagent_update_is_refused_with_what_is_wrong() {
        for (raw, names) in [
            (
                json!({"sessionUpdate": "subagent_update", "title": "x"}),
                "sessionId",
            ),
            (
                json!({"sessionUpdate": "subagent_update", "sessionId": null}),
                "subagent_update",
            ),
            (
                json!({"sessionUpdate": "subagent_update", "sessionId": "c", "title": 7}),
                "subagent_update",
            ),
            (
                json!({"sessionUpdate": "subagent_update", "sessionId": "c", "state": {"stopReason": "x"}}),
                "subagent_update",
            ),
            (
                json!({"sessionUpdate": "session_message", "content": []}),
                "messageId",
            ),
            (
                json!({"sessionUpdate": "session_message", "messageId": "m", "senderSessionId": 3}),
                "session_message",
            ),
            (
                json!({"sessionUpdate": "session_message_chunk", "messageId": "m"}),
                "content",
            ),
        ] {
            let error = converted(raw.clone()).expect_err(&raw.to_string());
            assert!(error.contains(names), "{raw}: {error}");
        }
    }

    #[test]
    fn a_tool_calls_session_content_names_its_subagent() {
        let raw = json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Ask a subagent",
            "status": "in_progress", "content": [
                {"type": "content", "content": {"type": "text", "text": "asking"}},
                {"type": "session", "sessionId": "child"}]});
        let update = converted(raw.clone()).unwrap();
        let call = update.tool_call().expect("a tool call, not unknown");
        assert_eq!(call.sessions, ["child"]);
        assert_eq!(
            call.fields.content.as_ref().map(Vec::len),
            Some(1),
            "v1's content holds the rest"
        );
        assert!(
            update
                .text_lines()
                .contains(&TextLine::Line("[tool t1] runs subagent child".into()))
        );
        // --json gives the session back in the content.
        let wire = serde_json::to_value(update.wire()).unwrap();
        assert_eq!(
            wire["content"][1],
            json!({"type": "session", "sessionId": "child"})
        );
    }
}
