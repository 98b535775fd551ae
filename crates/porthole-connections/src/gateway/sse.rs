//! Taking a server's questions out of a Server-Sent Events stream, passing everything else on
//! byte for byte.
//!
//! Hand-written on purpose, and small: the SSE crates (`eventsource-stream`, `sse-stream`)
//! parse events into fields and would make the gateway write them out again, which drops
//! comments and may drop events with empty data (the TypeScript SDK's resumption "priming"
//! event, an `id` with empty `data`) and re-spells line endings. The gateway must hand the agent
//! every event it does not take exactly as the server sent it, so this only finds where events
//! end (a blank line, after LF, CRLF or CR line endings) and reads the `data` of the few events
//! that mention elicitation. A watching filter (MCP Apps, `apps.rs`) reads the answer to one
//! request instead and takes nothing; its caller passes the stream on itself.

use bytes::{Bytes, BytesMut};
use serde_json::Value;

/// An event longer than this is passed on as it streams, unread: a question is small, a tool
/// result may be large and must not be held whole in memory.
pub(crate) const EVENT_CAP: usize = 4 * 1024 * 1024;

/// A message the filter took out of the stream.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Taken {
    /// An `elicitation/create` request (the whole JSON-RPC message).
    Question(Value),
    /// A `notifications/elicitation/complete` notification (the whole message).
    Completed(Value),
    /// The held request's answer is one the gateway may answer and retry: error -32042 (URL
    /// elicitation required) or an `input_required` result (MCP 2026-07-28). The message and
    /// the event as it came, to pass on when the gateway does not retry.
    Held(Value, Bytes),
    /// The answer to the watched request ([`SseFilter::watching`]), read for MCP Apps; or the
    /// held request's answer, passed on too ([`SseFilter::holding_reporting`]).
    Answer(Value),
}

/// JSON-RPC error: the request needs the person to open URLs first (MCP 2025-11-25).
pub(crate) const URL_REQUIRED: i64 = -32042;

/// `resultType` of a result that asks questions before the request can finish (MCP 2026-07-28).
pub(crate) const INPUT_REQUIRED: &str = "input_required";

/// Splits a stream into events as its chunks come; see the module's comment.
#[derive(Default)]
pub(crate) struct SseFilter {
    /// The raw bytes of the event being read.
    event: BytesMut,
    /// Bytes of the current line so far (line endings excluded).
    line_len: usize,
    /// The last byte seen was a CR: a LF right after it belongs to the same line ending.
    after_cr: bool,
    /// The current event outgrew [`EVENT_CAP`]: pass its bytes on until it ends.
    passing: bool,
    /// The id of a request whose -32042 or `input_required` answer is taken too ([`Taken::Held`]).
    hold: Option<Value>,
    /// Such an answer to any request is taken (a replay, `resume.rs`).
    hold_any: bool,
    /// Any other answer to the `hold` request is passed on and reported too ([`Taken::Answer`]).
    report_answer: bool,
    /// The id of a request whose answer is read ([`Taken::Answer`]); such a filter looks for
    /// nothing else.
    watch: Option<Value>,
    /// An event outgrew its cap and went on unread.
    pub(crate) overflowed: bool,
    /// The cap of one event read, when not [`EVENT_CAP`].
    cap: Option<usize>,
}

impl SseFilter {
    /// A filter that also takes a -32042 or `input_required` answer to the request `id`.
    pub(crate) fn holding(id: Value) -> Self {
        Self {
            hold: Some(id),
            ..Self::default()
        }
    }

    /// [`Self::holding`], reporting the request's other answer as it passes
    /// ([`Taken::Answer`]): the gateway remembers what the agent got (`resume.rs`).
    pub(crate) fn holding_reporting(id: Value) -> Self {
        Self {
            report_answer: true,
            ..Self::holding(id)
        }
    }

    /// A filter that takes a -32042 or `input_required` answer to any request (a replay).
    pub(crate) fn holding_any() -> Self {
        Self {
            hold_any: true,
            ..Self::default()
        }
    }

    /// A filter that only reads the answer to the request `id` (MCP Apps notes tool lists and
    /// results): it takes nothing else, and its caller passes the stream on itself.
    pub(crate) fn watching(id: Value) -> Self {
        Self {
            watch: Some(id),
            ..Self::default()
        }
    }

    /// [`Self::watching`], reading an event of up to `cap` bytes.
    pub(crate) fn watching_up_to(id: Value, cap: usize) -> Self {
        Self {
            cap: Some(cap),
            ..Self::watching(id)
        }
    }

    /// Feed one chunk: the bytes to pass on now, and the messages taken out.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> (Bytes, Vec<Taken>) {
        let mut out = BytesMut::new();
        let mut taken = Vec::new();
        let mut start = 0;
        for (i, &b) in chunk.iter().enumerate() {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            if b != b'\r' && b != b'\n' {
                self.line_len += 1;
                continue;
            }
            self.after_cr = b == b'\r';
            let blank = self.line_len == 0;
            self.line_len = 0;
            if !blank {
                continue;
            }
            // A blank line ends the event. After a CR a LF may follow in the next byte or
            // chunk: it is passed on at the start of the next event, where it is read as the
            // rest of this line ending (`after_cr`), so the bytes stay as they were.
            self.event.extend_from_slice(&chunk[start..=i]);
            start = i + 1;
            let event = self.event.split().freeze();
            let over = event.len() > self.cap.unwrap_or(EVENT_CAP);
            if std::mem::take(&mut self.passing) || over {
                // Over the cap, even when it came whole in one chunk: unread.
                self.overflowed |= over;
                out.extend_from_slice(&event);
            } else {
                match take(&event, self.hold.as_ref(), self.hold_any, self.watch.as_ref()) {
                    Some(t) => taken.push(t),
                    None => {
                        if self.report_answer
                            && let Some(answer) = self.hold.as_ref().and_then(|id| answer_to(&event, id))
                        {
                            taken.push(Taken::Answer(answer));
                        }
                        out.extend_from_slice(&event);
                    }
                }
            }
        }
        self.event.extend_from_slice(&chunk[start..]);
        if self.passing || self.event.len() > self.cap.unwrap_or(EVENT_CAP) {
            self.passing = true;
            self.overflowed = true;
            out.extend_from_slice(&self.event.split());
        }
        (out.freeze(), taken)
    }

    /// The stream ended: whatever was left of an unfinished event, as it came.
    pub(crate) fn finish(&mut self) -> Bytes {
        self.event.split().freeze()
    }
}

/// The event's message if it is one the gateway answers itself (or, with `watch`, the answer
/// to that request).
fn take(event: &Bytes, hold: Option<&Value>, hold_any: bool, watch: Option<&Value>) -> Option<Taken> {
    if let Some(id) = watch {
        return answer_to(event, id).map(Taken::Answer);
    }
    // Most events are results and notifications: skip them without parsing (a -32042 error
    // lists its `elicitations`; an `input_required` result says so).
    let holding = hold.is_some() || hold_any;
    let held_kind = holding && contains(event, INPUT_REQUIRED.as_bytes());
    if !(contains(event, b"elicitation") || held_kind) {
        return None;
    }
    let message: Value = serde_json::from_str(&data(event)?).ok()?;
    let held_id = match hold {
        Some(id) => message.get("id") == Some(id),
        None => hold_any && message.get("id").is_some_and(|id| !id.is_null()),
    };
    if held_id
        && (message["error"]["code"].as_i64() == Some(URL_REQUIRED)
            || message["result"]["resultType"] == INPUT_REQUIRED)
    {
        return Some(Taken::Held(message, event.clone()));
    }
    match message.get("method").and_then(Value::as_str)? {
        "elicitation/create" if message.get("id").is_some_and(|id| !id.is_null()) => {
            Some(Taken::Question(message))
        }
        "notifications/elicitation/complete" => Some(Taken::Completed(message)),
        _ => None,
    }
}

/// The event's message when it is the answer (a result or an error) to the request `id`.
pub(crate) fn answer_to(event: &[u8], id: &Value) -> Option<Value> {
    if !contains(event, b"\"result\"") && !contains(event, b"\"error\"") {
        return None;
    }
    let message: Value = serde_json::from_str(&data(event)?).ok()?;
    (message.get("id") == Some(id) && (message.get("result").is_some() || message.get("error").is_some()))
        .then_some(message)
}

/// The event's `id` field (its last `id` line), if it has one.
pub(crate) fn event_id(event: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(event).ok()?;
    let mut id = None;
    for line in text.split(['\n', '\r']) {
        if let Some(rest) = line.strip_prefix("id") {
            match rest.strip_prefix(':') {
                Some(v) => id = Some(v.strip_prefix(' ').unwrap_or(v).to_string()),
                None if rest.is_empty() => id = Some(String::new()),
                None => {}
            }
        }
    }
    id.filter(|id| !id.is_empty())
}

/// The event's `data` lines joined with LF, as an SSE reader dispatches them; `None` when it
/// has none or they are not UTF-8.
fn data(event: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(event).ok()?;
    let mut lines = Vec::new();
    for line in text.split(['\n', '\r']) {
        let value = match line.strip_prefix("data") {
            Some("") => "",
            Some(rest) => match rest.strip_prefix(':') {
                Some(v) => v.strip_prefix(' ').unwrap_or(v),
                None => continue,
            },
            None => continue,
        };
        lines.push(value);
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds `chunks`, returning what was passed on and what was taken.
    fn run(chunks: &[&[u8]]) -> (Vec<u8>, Vec<Taken>) {
        let mut filter = SseFilter::default();
        let mut out = Vec::new();
        let mut taken = Vec::new();
        for c in chunks {
            let (bytes, t) = filter.push(c);
            out.extend_from_slice(&bytes);
            taken.extend(t);
        }
        out.extend_from_slice(&filter.finish());
        (out, taken)
    }

    const QUESTION: &str = r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}}"#;

    #[test]
    fn a_question_between_other_events_is_taken_and_the_rest_passes_byte_for_byte() {
        let before = "id: 1\ndata: \n\n: a comment\nevent: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n";
        let question = format!("event: message\nid: 3\ndata: {QUESTION}\n\n");
        let after = "id: 4\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{}}\r\n\r\n";
        let all = format!("{before}{question}{after}");
        // Every split point, including inside CRLF and inside the question.
        for cut in 0..all.len() {
            let (a, b) = all.as_bytes().split_at(cut);
            let (out, taken) = run(&[a, b]);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                format!("{before}{after}"),
                "cut at {cut}"
            );
            assert_eq!(
                taken,
                vec![Taken::Question(serde_json::from_str(QUESTION).unwrap())],
                "cut at {cut}"
            );
        }
        // One byte at a time.
        let bytes: Vec<&[u8]> = all.as_bytes().chunks(1).collect();
        assert_eq!(run(&bytes).1.len(), 1);
    }

    #[test]
    fn cr_line_endings_a_completion_and_a_response_mentioning_elicitation() {
        let completion = json!({"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}});
        let response = r#"{"jsonrpc":"2.0","id":2,"result":{"text":"elicitation/create is a method"}}"#;
        let stream = format!("data: {completion}\r\rdata: {response}\r\r");
        let (out, taken) = run(&[stream.as_bytes()]);
        assert_eq!(String::from_utf8(out).unwrap(), format!("data: {response}\r\r"));
        assert_eq!(taken, vec![Taken::Completed(completion)]);
    }

    #[test]
    fn an_elicitation_notification_without_id_and_an_unfinished_event_pass() {
        let odd = r#"data: {"jsonrpc":"2.0","method":"elicitation/create"}"#;
        let stream = format!("{odd}\n\ndata: {QUESTION}");
        let (out, taken) = run(&[stream.as_bytes()]);
        // The unfinished last event is passed on when the stream ends, as it came.
        assert_eq!(String::from_utf8(out).unwrap(), stream);
        assert!(taken.is_empty());
    }

    #[test]
    fn a_url_required_answer_to_the_held_request_is_taken_with_its_bytes() {
        let error = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[]}}}"#;
        let event = format!("id: 9\ndata: {error}\n\n");
        let mut filter = SseFilter::holding(json!(4));
        let (out, taken) = filter.push(event.as_bytes());
        assert!(out.is_empty());
        assert_eq!(
            taken,
            vec![Taken::Held(
                serde_json::from_str(error).unwrap(),
                Bytes::from(event.clone())
            )]
        );
        // Another request's, or with no request held: passed on.
        assert_eq!(
            SseFilter::holding(json!(5)).push(event.as_bytes()).0,
            event.as_bytes()
        );
        assert_eq!(SseFilter::default().push(event.as_bytes()).0, event.as_bytes());
    }

    #[test]
    fn a_watching_filter_reads_the_answer_to_its_request_only() {
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#;
        let other = r#"{"jsonrpc":"2.0","id":8,"result":{"content":[]}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"no"}}"#;
        let stream = format!("data: {QUESTION}\n\ndata: {progress}\n\ndata: {other}\n\ndata: {answer}\n\n");
        let mut filter = SseFilter::watching(json!(7));
        let (_, taken) = filter.push(stream.as_bytes());
        // A question is not taken by a watching filter: the question filter before it did.
        assert_eq!(taken, vec![Taken::Answer(serde_json::from_str(answer).unwrap())]);
    }

    #[test]
    fn an_event_over_the_cap_that_came_whole_in_one_chunk_passes_unread() {
        let big = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"{}\"}}\n\n",
            "x".repeat(100)
        );
        let mut filter = SseFilter::watching_up_to(json!(1), 50);
        let (out, taken) = filter.push(big.as_bytes());
        assert!(taken.is_empty());
        assert!(filter.overflowed);
        assert_eq!(out, big.as_bytes());
        let mut filter = SseFilter::watching_up_to(json!(1), 500);
        assert_eq!(filter.push(big.as_bytes()).1.len(), 1);
        assert!(!filter.overflowed);
    }

    #[test]
    fn an_event_over_the_cap_streams_on_unread_and_the_next_is_read_again() {
        let big = format!("data: \"{}\"\n\n", "x".repeat(EVENT_CAP + 10));
        let question = format!("data: {QUESTION}\n\n");
        let mut filter = SseFilter::default();
        let mut out = Vec::new();
        for c in big.as_bytes().chunks(1024 * 1024) {
            let (bytes, taken) = filter.push(c);
            assert!(taken.is_empty());
            out.extend_from_slice(&bytes);
        }
        // Passed on as it came, not held until the event ended.
        assert_eq!(out.len(), big.len());
        let (bytes, taken) = filter.push(question.as_bytes());
        assert!(bytes.is_empty());
        assert_eq!(taken.len(), 1);
    }
}
