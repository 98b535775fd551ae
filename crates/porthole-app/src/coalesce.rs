//! Merging a batch's consecutive text chunks before it crosses IPC.
//!
//! An agent streaming fast sends thousands of `*_message_chunk` updates per frame; the window
//! only appends their text. Adjacent plain-text chunks of the same session, kind and message
//! are merged into one update with the concatenated text, which the window applies exactly as
//! it would have applied them one by one. Anything else (other fields, non-text content,
//! another event in between) is left as it is, so order and content are unchanged.

use serde_json::Value;

const CHUNK_KINDS: [&str; 3] = ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"];

/// The text of a chunk that may be merged.
fn mergeable(event: &Value) -> Option<&str> {
    let e = event.as_object()?;
    if e.get("type")?.as_str()? != "session_update" || e.len() != 3 || !e.contains_key("sessionId") {
        return None;
    }
    let update = e.get("update")?.as_object()?;
    if !CHUNK_KINDS.contains(&update.get("sessionUpdate")?.as_str()?) {
        return None;
    }
    // Only sessionUpdate, content and an optional messageId: nothing that could differ unseen.
    let extra = update.len() - 2 - usize::from(update.contains_key("messageId"));
    if extra != 0 {
        return None;
    }
    let content = update.get("content")?.as_object()?;
    if content.len() != 2 || content.get("type")?.as_str()? != "text" {
        return None;
    }
    content.get("text")?.as_str()
}

fn same_stream(a: &Value, b: &Value) -> bool {
    a["sessionId"] == b["sessionId"]
        && a["update"]["sessionUpdate"] == b["update"]["sessionUpdate"]
        && a["update"].get("messageId") == b["update"].get("messageId")
}

/// Merge adjacent text chunks of the same stream; everything else passes through in order.
pub fn chunks(events: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(events.len().min(64));
    // Text gathered for the last event of `out`, when it is a mergeable chunk.
    let mut pending: Option<String> = None;
    for event in events {
        let text = mergeable(&event);
        if let (Some(t), Some(p), Some(last)) = (text, pending.as_mut(), out.last())
            && same_stream(last, &event)
        {
            p.push_str(t);
            continue;
        }
        flush(&mut out, pending.take());
        pending = text.map(str::to_string);
        out.push(event);
    }
    flush(&mut out, pending);
    out
}

fn flush(out: &mut [Value], text: Option<String>) {
    if let (Some(text), Some(last)) = (text, out.last_mut()) {
        last["update"]["content"]["text"] = Value::String(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(kind: &str, message: Option<&str>, text: &str) -> Value {
        let mut update = json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}});
        if let Some(m) = message {
            update["messageId"] = json!(m);
        }
        json!({"type": "session_update", "sessionId": "s", "update": update})
    }

    #[test]
    fn adjacent_chunks_of_one_stream_merge_in_order() {
        let out = chunks(vec![
            chunk("agent_message_chunk", Some("m1"), "a"),
            chunk("agent_message_chunk", Some("m1"), "b"),
            chunk("agent_message_chunk", Some("m2"), "c"),
            chunk("agent_thought_chunk", Some("m2"), "t"),
            chunk("agent_message_chunk", None, "d"),
            chunk("agent_message_chunk", None, "e"),
            json!({"type": "turn_ended", "sessionId": "s"}),
            chunk("agent_message_chunk", None, "f"),
        ]);
        assert_eq!(
            out,
            vec![
                chunk("agent_message_chunk", Some("m1"), "ab"),
                chunk("agent_message_chunk", Some("m2"), "c"),
                chunk("agent_thought_chunk", Some("m2"), "t"),
                chunk("agent_message_chunk", None, "de"),
                json!({"type": "turn_ended", "sessionId": "s"}),
                chunk("agent_message_chunk", None, "f"),
            ]
        );
    }

    #[test]
    fn chunks_with_anything_else_are_left_alone() {
        let mut meta = chunk("agent_message_chunk", None, "b");
        meta["update"]["_meta"] = json!({"x": 1});
        let image = json!({"type": "session_update", "sessionId": "s", "update":
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "image", "data": "", "mimeType": "image/png"}}});
        let mut other_session = chunk("agent_message_chunk", None, "d");
        other_session["sessionId"] = json!("t");
        let events = vec![
            chunk("agent_message_chunk", None, "a"),
            meta,
            image,
            chunk("agent_message_chunk", None, "c"),
            other_session,
        ];
        assert_eq!(chunks(events.clone()), events);
    }
}
