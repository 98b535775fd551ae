//! Merging a batch's consecutive text chunks before it crosses IPC.
//!
//! An agent streaming fast sends thousands of `*_message_chunk` updates per frame; the window
//! only appends their text. Adjacent plain-text appends of the same session, role and message
//! are merged into one update with the concatenated text, which the window applies exactly as
//! it would have applied them one by one. Anything else (other fields, non-text content,
//! another event in between) is left as it is, so order and content are unchanged.

use porthole_core::Event;
use porthole_core::acp::v1::schema::ContentBlock;
use porthole_core::transcript::{MessageEdit, MessageRole};
use serde_json::Value;

/// A window event waiting for the next flush.
pub(crate) enum Queued {
    Event(Value),
    /// Consecutive plain text chunks of one stream, merged as they arrive: an agent streaming a
    /// million chunks costs a string append each, not a JSON value each (issue 16).
    Text(TextRun),
}

pub(crate) struct TextRun {
    /// The first chunk's window event; its text is replaced by `text` at the flush.
    event: Value,
    session_id: String,
    role: MessageRole,
    message_id: Option<String>,
    text: String,
    /// How many chunks were merged (the benchmarks count queued events).
    chunks: usize,
}

/// A chunk that may join a run: plain text, no `_meta` and no annotations (what `mergeable`
/// accepts of a JSON event).
struct TextChunk<'a> {
    session_id: &'a str,
    role: MessageRole,
    message_id: Option<&'a str>,
    text: &'a str,
}

impl<'a> TextChunk<'a> {
    fn of(event: &'a Event) -> Option<Self> {
        let Event::SessionUpdate { session_id, update } = event else {
            return None;
        };
        let message = update.message()?;
        let MessageEdit::Append {
            content: ContentBlock::Text(text),
        } = &message.edit
        else {
            return None;
        };
        if message.meta.is_some() || text.meta.is_some() || text.annotations.is_some() {
            return None;
        }
        Some(Self {
            session_id,
            role: message.role,
            message_id: message.message_id.as_ref().map(|m| &*m.0),
            text: &text.text,
        })
    }
}

impl Queued {
    /// How many events the agent sent for this.
    pub(crate) fn count(&self) -> usize {
        match self {
            Queued::Event(_) => 1,
            Queued::Text(run) => run.chunks,
        }
    }

    pub(crate) fn into_value(self) -> Value {
        match self {
            Queued::Event(v) => v,
            Queued::Text(mut run) => {
                run.event["update"]["content"]["text"] = Value::String(run.text);
                run.event
            }
        }
    }
}

/// Queues a core event that is a plain text chunk: it joins the run before it when it continues
/// it. Returns false, queueing nothing, for any other event.
pub(crate) fn enqueue_text(queue: &mut Vec<Queued>, event: &Event) -> bool {
    let Some(chunk) = TextChunk::of(event) else {
        return false;
    };
    if let Some(Queued::Text(run)) = queue.last_mut()
        && run.session_id == chunk.session_id
        && run.role == chunk.role
        && run.message_id.as_deref() == chunk.message_id
    {
        run.text.push_str(chunk.text);
        run.chunks += 1;
        return true;
    }
    queue.push(Queued::Text(TextRun {
        event: super::event_json(event),
        session_id: chunk.session_id.to_string(),
        role: chunk.role,
        message_id: chunk.message_id.map(str::to_string),
        text: chunk.text.to_string(),
        chunks: 1,
    }));
    true
}

/// The text of a chunk that may be merged.
fn mergeable(event: &Value) -> Option<&str> {
    let e = event.as_object()?;
    if e.get("type")?.as_str()? != "session_update" || e.len() != 3 || !e.contains_key("sessionId") {
        return None;
    }
    let update = e.get("update")?.as_object()?;
    if update.get("kind")?.as_str()? != "message" || update.get("op")?.as_str()? != "append" {
        return None;
    }
    // Only kind, role, messageId, op and content: nothing that could differ unseen.
    if update.len() != 5 || !update.contains_key("role") || !update.contains_key("messageId") {
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
        && a["update"]["role"] == b["update"]["role"]
        && a["update"]["messageId"] == b["update"]["messageId"]
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
        let role = match kind {
            "agent_message_chunk" => "agent",
            "agent_thought_chunk" => "thought",
            _ => "user",
        };
        let update = json!({"kind": "message", "role": role, "messageId": message, "op": "append",
            "content": {"type": "text", "text": text}});
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

    fn core_chunk(kind: &str, session: &str, message: Option<&str>, text: &str, meta: bool) -> Event {
        use porthole_core::acp::v1::schema::{ContentChunk, MessageId, SessionUpdate, TextContent};
        let mut c = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
        if let Some(m) = message {
            c = c.message_id(MessageId::new(m));
        }
        if meta {
            c = c.meta(serde_json::Map::from_iter([("x".to_string(), json!(1))]));
        }
        let update = match kind {
            "agent_message_chunk" => SessionUpdate::AgentMessageChunk(c),
            "agent_thought_chunk" => SessionUpdate::AgentThoughtChunk(c),
            _ => SessionUpdate::UserMessageChunk(c),
        };
        Event::SessionUpdate {
            session_id: session.to_string(),
            update: Box::new(update.into()),
        }
    }

    /// Runs merged as core events arrive give what merging their JSON at the flush gives.
    #[test]
    fn typed_runs_equal_merging_the_json() {
        let events = vec![
            core_chunk("agent_message_chunk", "s", Some("m1"), "a", false),
            core_chunk("agent_message_chunk", "s", Some("m1"), "b", false),
            core_chunk("agent_message_chunk", "s", Some("m2"), "c", false),
            core_chunk("agent_thought_chunk", "s", Some("m2"), "t", false),
            core_chunk("agent_message_chunk", "s", None, "d", false),
            core_chunk("agent_message_chunk", "s", None, "e", true),
            core_chunk("agent_message_chunk", "s", None, "f", false),
            core_chunk("agent_message_chunk", "t", None, "g", false),
            Event::TurnEnded {
                session_id: "t".into(),
                stop_reason: None,
                error: None,
            },
            core_chunk("agent_message_chunk", "t", None, "h", false),
            core_chunk("user_message_chunk", "t", None, "i", false),
            core_chunk("user_message_chunk", "t", None, "j", false),
        ];
        let mut queue = Vec::new();
        for e in &events {
            if !enqueue_text(&mut queue, e) {
                queue.push(Queued::Event(super::super::event_json(e)));
            }
        }
        assert_eq!(queue.iter().map(Queued::count).sum::<usize>(), events.len());
        let typed: Vec<Value> = queue.into_iter().map(Queued::into_value).collect();
        let by_json = chunks(events.iter().map(super::super::event_json).collect());
        assert_eq!(chunks(typed), by_json);
        assert_eq!(by_json.len(), 10);
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
