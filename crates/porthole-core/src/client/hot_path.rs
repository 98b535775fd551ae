//! A typed fast path for `session/update`, the one notification that arrives by the million.
//!
//! The SDK's generic path parses every line into a `serde_json::Value`, routes it through
//! unbounded channels to its dispatch loop, and our handler then converts the value into the
//! typed notification. For streamed chunks that is most of the client's work, and the
//! unbounded channels let a fast agent fill memory. Here a hot line is parsed once, straight
//! into [`SessionNotification`], and delivered into the bounded event stream from the
//! transport itself: a slow front end stops the reading, so the agent blocks on its pipe.
//!
//! Every other line (requests, responses, other notifications, and hot lines that do not
//! parse) still goes to the SDK. Wire order is kept with a barrier: before delivering a hot
//! line that follows lines handed to the SDK, we hand the SDK a private notification and wait
//! until its dispatch loop reaches it. The loop handles messages one at a time and our
//! handlers emit their events before returning, so by then every earlier line's event is in
//! the stream.
//!
//! ACP v1 only: until `initialize` settled the version every line takes the SDK's path, and a
//! v2 connection's updates are typed by the v2 schema in `handlers/updates_v2.rs`.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionNotification, SessionUpdate, TextContent,
};
use futures::{Stream, StreamExt};
use serde::Deserialize;

use crate::client::handlers::updates::deliver_update;
use crate::client::state::Shared;

/// The JSON-RPC envelope of a hot line. Unknown keys are ignored, as the SDK ignores them.
#[derive(Deserialize)]
struct HotLine<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    method: &'a str,
    /// Any `id` (even `null`) makes it a request: those are the SDK's to answer.
    #[serde(default)]
    id: Present,
    params: SessionNotification,
}

/// Whether a key was present at all, whatever its value.
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Present(true))
    }
}

/// The hottest shape of all: a text chunk without any optional field. It is parsed without
/// the schema's internally tagged enums, which buffer every field before picking a variant;
/// any other key (an `id`, `_meta`, `annotations`, `messageId`...) fails it, and the line
/// gets the full typed parse instead.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextChunkLine<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: TextChunkParams<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TextChunkParams<'a> {
    session_id: String,
    #[serde(borrow)]
    update: TextChunk<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TextChunk<'a> {
    #[serde(borrow)]
    session_update: &'a str,
    #[serde(borrow)]
    content: TextBlock<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextBlock<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    text: String,
}

/// A `session/update` ready for the event stream.
pub(crate) struct Hot {
    pub(crate) session_id: String,
    pub(crate) update: Box<SessionUpdate>,
}

/// The typed update, when `line` is a well-formed `session/update` notification.
/// Anything else (including escapes in `jsonrpc` or `method`, which cannot be borrowed)
/// returns `None` and takes the SDK's path, which handles it as before.
pub(crate) fn parse(line: &str) -> Option<Hot> {
    if let Some(hot) = parse_sdk_text_chunk(line) {
        return Some(hot);
    }
    // Cheap pre-check so that requests and responses skip the typed parse.
    if !line.contains("\"session/update\"") {
        return None;
    }
    if let Some(hot) = parse_text_chunk(line) {
        return Some(hot);
    }
    let hot: HotLine = serde_json::from_str(line).ok()?;
    (hot.jsonrpc == "2.0" && hot.method == "session/update" && !hot.id.0).then(|| Hot {
        session_id: hot.params.session_id.0.to_string(),
        update: Box::new(hot.params.update),
    })
}

fn parse_text_chunk(line: &str) -> Option<Hot> {
    let l: TextChunkLine = serde_json::from_str(line).ok()?;
    if l.jsonrpc != "2.0" || l.method != "session/update" || l.params.update.content.kind != "text" {
        return None;
    }
    let c = l.params.update;
    text_chunk(l.params.session_id, c.session_update, c.content.text)
}

/// What starts a text chunk as both official SDKs (Rust and TypeScript) write one: their key
/// order, no spaces. The rest is the session id, `","update":{"sessionUpdate":"`, the kind,
/// `","content":{"type":"text","text":`, the text and `}}}}`.
const SDK_TEXT_CHUNK_START: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":""#;

/// A text chunk spelled exactly as the SDKs write it, matched piece by piece: only the text is
/// parsed as JSON (the session id is taken as it is when it has no escape). Any other spelling
/// of the same JSON (another key order, spaces, an escape in the session id, an optional
/// field) is `None` here and gets the typed parse, which gives the same update.
fn parse_sdk_text_chunk(line: &str) -> Option<Hot> {
    let rest = line.strip_prefix(SDK_TEXT_CHUNK_START)?;
    let (session_id, rest) = rest.split_once('"')?;
    // A backslash or a control character: not the plain string it looks like.
    if session_id.bytes().any(|b| b == b'\\' || b < 0x20) {
        return None;
    }
    let (kind, rest) = rest
        .strip_prefix(r#","update":{"sessionUpdate":""#)?
        .split_once('"')?;
    let text = rest
        .strip_prefix(r#","content":{"type":"text","text":"#)?
        .strip_suffix("}}}}")?;
    // Exactly one JSON string (an unescaped quote in it would leave more after the string).
    let text: String = serde_json::from_str(text).ok()?;
    text_chunk(session_id.to_string(), kind, text)
}

/// A text chunk of kind `kind` (`agent_message_chunk`...), built with the SDK's constructors.
fn text_chunk(session_id: String, kind: &str, text: String) -> Option<Hot> {
    let chunk = ContentChunk::new(ContentBlock::Text(TextContent::new(text)));
    let update = match kind {
        "agent_message_chunk" => SessionUpdate::AgentMessageChunk(chunk),
        "agent_thought_chunk" => SessionUpdate::AgentThoughtChunk(chunk),
        "user_message_chunk" => SessionUpdate::UserMessageChunk(chunk),
        _ => return None,
    };
    Some(Hot {
        session_id,
        update: Box::new(update),
    })
}

/// How many lines may go to the SDK before the transport waits for its dispatch loop to
/// catch up. The SDK queues parsed lines in an unbounded channel; waiting at a barrier every
/// so often bounds that queue (and so the memory a flood of requests or notifications other
/// than `session/update` can take) while costing one private notification per window.
pub(crate) const SDK_WINDOW: usize = 64;

struct State<S> {
    lines: S,
    shared: Arc<Shared>,
    /// Lines handed to the SDK since the last barrier.
    sdk_behind: usize,
    seq: u64,
    /// Barrier `seq` was handed to the SDK: read nothing more until it is dispatched.
    gate: Option<u64>,
    /// A hot notification held back until the gate opens.
    waiting: Option<Hot>,
}

impl<S> State<S> {
    /// The next barrier line; reading stops until the SDK dispatches it.
    fn barrier(&mut self) -> String {
        self.sdk_behind = 0;
        self.seq += 1;
        self.gate = Some(self.seq);
        self.shared.barrier.line(self.seq)
    }
}

/// Splits the framed lines: hot notifications are delivered here, in wire order with the
/// events of everything else, which is passed on to the SDK at most [`SDK_WINDOW`] lines ahead
/// of its dispatch loop.
pub(crate) fn split<S>(
    lines: S,
    shared: Arc<Shared>,
) -> impl Stream<Item = std::io::Result<String>> + Send + 'static
where
    S: Stream<Item = std::io::Result<String>> + Send + Unpin + 'static,
{
    let state = State {
        lines,
        shared,
        sdk_behind: 0,
        seq: 0,
        gate: None,
        waiting: None,
    };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(seq) = st.gate.take() {
                let mut acked = st.shared.barrier.acked.subscribe();
                // The sender lives as long as the connection's state, which outlives us.
                let _ = acked.wait_for(|&a| a >= seq).await;
            }
            if let Some(note) = st.waiting.take() {
                deliver_update(&st.shared, note.session_id, note.update).await;
            }
            if st.sdk_behind >= SDK_WINDOW {
                let barrier = st.barrier();
                return Some((Ok(barrier), st));
            }
            let line = match st.lines.next().await? {
                Ok(line) => line,
                Err(e) => return Some((Err(e), st)),
            };
            // v1's typed updates only: a v2 line (or one before `initialize` settled the
            // version) takes the SDK's path to the v2 handlers.
            let v1 = st.shared.wire.get() == Some(&crate::client::state::Wire::V1);
            match v1.then(|| parse(&line)).flatten() {
                Some(note) if st.sdk_behind > 0 => {
                    st.waiting = Some(note);
                    let barrier = st.barrier();
                    return Some((Ok(barrier), st));
                }
                Some(note) => deliver_update(&st.shared, note.session_id, note.update).await,
                None => {
                    st.sdk_behind += 1;
                    return Some((Ok(line), st));
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOT: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;

    #[test]
    fn a_well_formed_update_is_hot() {
        let hot = parse(HOT).expect("hot");
        assert_eq!(hot.session_id, "s");
    }

    /// The text-chunk shortcut gives exactly what the schema's own parse gives.
    #[test]
    fn text_chunk_shortcut_matches_the_schema() {
        let kinds = ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"];
        for kind in kinds {
            for text in ["hi", r#"esc\"aped\n\u00e9"#, "", r#"\"}}}}"#, "例 \u{2028}"] {
                let line = HOT
                    .replace("agent_message_chunk", kind)
                    .replace(r#""hi""#, &format!("\"{text}\""));
                let full: SessionNotification = serde_json::from_value(
                    serde_json::from_str::<serde_json::Value>(&line).unwrap()["params"].clone(),
                )
                .unwrap();
                // HOT is spelled as the SDKs write it: both shortcuts take it.
                for fast in [parse_text_chunk(&line), parse_sdk_text_chunk(&line)] {
                    let fast = fast.expect(&line);
                    assert_eq!(*fast.update, full.update, "{line}");
                    assert_eq!(fast.session_id, &*full.session_id.0);
                }
            }
        }
        // Optional fields take the full parse, which keeps them.
        let with_meta = HOT.replace(r#""text":"hi""#, r#""text":"hi","annotations":{"priority":1}"#);
        assert!(parse_text_chunk(&with_meta).is_none());
        assert!(parse(&with_meta).is_some());
    }

    /// Other spellings of a text chunk miss the SDKs' shortcut and get the typed parse, with
    /// the same result as the schema's.
    #[test]
    fn other_spellings_take_the_typed_parse() {
        let cases = [
            HOT.replace(r#""sessionId":"s""#, r#""sessionId":"\u0073""#),
            HOT.replace(r#""method":"#, r#""method": "#),
            HOT.replace(r#""text":"hi""#, r#""text":"hi","annotations":{"priority":1}"#),
            HOT.replace(r#"{"type":"text","text":"hi"}"#, r#"{"text":"hi","type":"text"}"#),
            format!("{HOT} "),
        ];
        for line in cases {
            assert!(parse_sdk_text_chunk(&line).is_none(), "{line}");
            let hot = parse(&line).expect(&line);
            let full: SessionNotification = serde_json::from_value(
                serde_json::from_str::<serde_json::Value>(&line).unwrap()["params"].clone(),
            )
            .unwrap();
            assert_eq!(*hot.update, full.update, "{line}");
            assert_eq!(hot.session_id, &*full.session_id.0);
        }
        // Not one JSON string where the text goes: neither shortcut, nor the SDK, takes it.
        let broken = HOT.replace(r#""text":"hi""#, r#""text":"h"i""#);
        assert!(parse_sdk_text_chunk(&broken).is_none());
        assert!(parse(&broken).is_none());
    }

    #[test]
    fn everything_else_takes_the_sdk_path() {
        let cases = [
            // a request, even with a null id
            HOT.replace(r#""jsonrpc":"2.0","#, r#""jsonrpc":"2.0","id":5,"#),
            HOT.replace(r#""jsonrpc":"2.0","#, r#""jsonrpc":"2.0","id":null,"#),
            // an update kind the schema does not know
            HOT.replace("agent_message_chunk", "mystery_kind"),
            // escapes, wrong version, missing params, broken JSON
            HOT.replace("session/update", r"session\/update"),
            HOT.replace(r#""2.0""#, r#""1.0""#),
            r#"{"jsonrpc":"2.0","method":"session/update"}"#.to_string(),
            HOT[..HOT.len() - 1].to_string(),
            // another method that merely mentions session/update
            HOT.replace(
                r#""method":"session/update""#,
                r#""method":"x","note":"session/update""#,
            ),
        ];
        for case in cases {
            assert!(parse(&case).is_none(), "{case}");
        }
    }
}
