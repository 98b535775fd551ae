//! Newline-delimited JSON over the agent's pipes, with the limits an untrusted peer needs:
//! a cap on line length (an endless line must not exhaust memory), non-JSON banner lines
//! skipped and logged, and a tap for the protocol inspector and tests.
//!
//! The SDK parses and dispatches the lines; this layer only frames them. Outgoing lines go
//! through `outgoing` (a byte budget on what waits for the agent to read it).

use std::sync::Arc;

use futures::Stream;
use tokio::io::AsyncRead;

use crate::framing::{LineReader, Piece};

/// Default cap on one incoming line: the framing's, shared with the companion's proxy.
pub use porthole_framing::DEFAULT_MAX_LINE_BYTES;

/// The method of the synthetic request we substitute for an oversized incoming request,
/// so that the SDK answers the original id with a clear error instead of leaving it hanging.
pub const OVERSIZED_METHOD: &str = "_porthole/message_too_large";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Incoming,
    Outgoing,
}

/// What the transport tells its owner besides the lines it delivers.
#[derive(Debug, Clone)]
pub enum TransportNote {
    /// A line on stdout that is not JSON (a banner, a log line): ignored.
    Banner(String),
    /// A line over the cap: discarded; `id` is the request id we answered with an error, if any.
    Oversized { bytes: usize, id: Option<String> },
}

/// Observer for every line crossing the wire (after framing), and for transport notes.
pub trait WireTap: Send + Sync + 'static {
    fn line(&self, direction: Direction, line: &str);
    fn note(&self, note: TransportNote);
}

/// A tap that does nothing.
pub struct NoTap;
impl WireTap for NoTap {
    fn line(&self, _: Direction, _: &str) {}
    fn note(&self, _: TransportNote) {}
}

/// Frames incoming bytes into lines of at most `max_line` bytes.
pub fn incoming_lines<R>(
    reader: R,
    max_line: usize,
    tap: Arc<dyn WireTap>,
) -> impl Stream<Item = std::io::Result<String>> + Send + 'static
where
    R: AsyncRead + Send + Unpin + 'static,
{
    let reader = LineReader::new(reader, max_line);
    let state = (reader, tap, 0u64);
    futures::stream::unfold(state, move |(mut reader, tap, mut noise)| async move {
        loop {
            match read_capped_line(&mut reader).await {
                Ok(None) => return None,
                Err(e) => return Some((Err(e), (reader, tap, noise))),
                Ok(Some(Frame::Line(bytes))) => {
                    let line = match String::from_utf8(bytes) {
                        Ok(s) => s,
                        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    };
                    let trimmed = line.trim();
                    if trimmed.is_empty() {
                        continue;
                    }
                    if !trimmed.starts_with('{') && !trimmed.starts_with('[') {
                        log_noise(&mut noise, trimmed);
                        tap.note(TransportNote::Banner(truncate(trimmed, 4096)));
                        continue;
                    }
                    tap.line(Direction::Incoming, &line);
                    return Some((Ok(line), (reader, tap, noise)));
                }
                Ok(Some(Frame::Oversized { bytes, prefix })) => {
                    let head = scan_head(&prefix);
                    tracing::warn!("discarded an incoming line of {bytes} bytes (limit {max_line})");
                    tap.note(TransportNote::Oversized {
                        bytes,
                        id: head.id.clone(),
                    });
                    if let Some(line) = synthetic_reply(&head, bytes, max_line) {
                        return Some((Ok(line), (reader, tap, noise)));
                    }
                }
            }
        }
    })
}

/// Non-JSON lines written to the log, per connection; the rest are only counted there (an
/// agent may print millions, and the log file must not grow with them).
const LOGGED_NOISE_LINES: u64 = 10;

/// Log a non-JSON line (escaped, cut: it is the agent's text) while few have been logged.
fn log_noise(seen: &mut u64, line: &str) {
    *seen += 1;
    if *seen <= LOGGED_NOISE_LINES {
        let shown: String = line.chars().take(200).flat_map(char::escape_debug).collect();
        tracing::warn!("ignoring non-JSON line from agent stdout: {shown}");
    } else if *seen == LOGGED_NOISE_LINES + 1 {
        tracing::warn!("more non-JSON lines from agent stdout: not logged");
    }
}

enum Frame {
    Line(Vec<u8>),
    Oversized { bytes: usize, prefix: Vec<u8> },
}

/// How much of an oversized line we keep to find its id and method.
const HEAD_BYTES: usize = 64 * 1024;

/// The next line, or what is kept of one over the limit: its size and its first bytes.
async fn read_capped_line<R: AsyncRead + Unpin>(
    reader: &mut LineReader<R>,
) -> std::io::Result<Option<Frame>> {
    let mut prefix = Vec::new();
    let mut bytes = 0usize;
    loop {
        match reader.next().await? {
            // The end of the stream; after the pieces of a line over the limit, that line ends.
            None => return Ok((bytes > 0).then_some(Frame::Oversized { bytes, prefix })),
            Some(Piece::Line(line)) => return Ok(Some(Frame::Line(line.to_vec()))),
            Some(Piece::Oversized { chunk, end }) => {
                bytes += chunk.len();
                let keep = HEAD_BYTES.saturating_sub(prefix.len()).min(chunk.len());
                prefix.extend_from_slice(&chunk[..keep]);
                if end {
                    return Ok(Some(Frame::Oversized { bytes, prefix }));
                }
            }
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The top-level `id` and `method` of a JSON-RPC message, read from its first bytes.
#[derive(Debug, Default, PartialEq)]
struct Head {
    /// The raw JSON text of the id (a number or a quoted string).
    id: Option<String>,
    method: Option<String>,
}

/// A small scanner over the start of a JSON object: it tracks nesting and strings so that
/// only top-level keys count. It never allocates more than the prefix it is given.
fn scan_head(prefix: &[u8]) -> Head {
    let mut head = Head::default();
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut expecting_key = false;
    let mut pending_key: Option<Vec<u8>> = None;
    while i < prefix.len() {
        match prefix[i] {
            b'{' | b'[' => {
                depth += 1;
                expecting_key = prefix[i] == b'{' && depth == 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' => {
                expecting_key = depth == 1;
                i += 1;
            }
            b':' => {
                i += 1;
                if let Some(key) = pending_key.take() {
                    while i < prefix.len() && prefix[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    let start = i;
                    let end = scan_scalar(prefix, i);
                    let value = &prefix[start..end];
                    match key.as_slice() {
                        b"id" if !value.is_empty() && value[0] != b'{' && value[0] != b'[' => {
                            head.id = std::str::from_utf8(value).ok().map(str::to_string);
                        }
                        b"method" if value.len() >= 2 && value[0] == b'"' => {
                            head.method = std::str::from_utf8(&value[1..value.len() - 1])
                                .ok()
                                .map(str::to_string);
                        }
                        _ => {}
                    }
                    if end > start && value[0] != b'{' && value[0] != b'[' {
                        i = end;
                    }
                }
            }
            b'"' => {
                let end = scan_string(prefix, i);
                if depth == 1 && expecting_key {
                    pending_key = Some(prefix[i + 1..end.saturating_sub(1).max(i + 1)].to_vec());
                    expecting_key = false;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    head
}

/// End (exclusive) of the string starting at the quote at `start`.
fn scan_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// End (exclusive) of a scalar value (string, number, literal); for containers, `start`.
fn scan_scalar(bytes: &[u8], start: usize) -> usize {
    match bytes.get(start) {
        Some(b'"') => scan_string(bytes, start),
        Some(b'{') | Some(b'[') | None => start,
        Some(_) => {
            let mut i = start;
            while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b']') {
                if bytes[i].is_ascii_whitespace() {
                    break;
                }
                i += 1;
            }
            i
        }
    }
}

/// A stand-in line for an oversized message that needs an answer: a request becomes a
/// request for [`OVERSIZED_METHOD`] (our handler answers it with an error under the original
/// id); a response becomes an error response so our own pending request fails clearly.
fn synthetic_reply(head: &Head, bytes: usize, max_line: usize) -> Option<String> {
    let id = head.id.as_ref()?;
    // Only ids that are valid JSON scalars of the allowed kinds.
    let id_value: serde_json::Value = serde_json::from_str(id).ok()?;
    if !(id_value.is_number() || id_value.is_string()) {
        return None;
    }
    let message = format!("message of {bytes} bytes exceeds the client's limit of {max_line} bytes per line");
    let value = match &head.method {
        Some(method) => serde_json::json!({
            "jsonrpc": "2.0",
            "id": id_value,
            "method": OVERSIZED_METHOD,
            "params": { "method": method, "bytes": bytes, "limit": max_line },
        }),
        None => serde_json::json!({
            "jsonrpc": "2.0",
            "id": id_value,
            "error": { "code": -32600, "message": message },
        }),
    };
    Some(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);
    impl WireTap for Recorder {
        fn line(&self, _: Direction, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
        fn note(&self, note: TransportNote) {
            self.0.lock().unwrap().push(format!("{note:?}"));
        }
    }

    async fn collect(input: Vec<u8>, max: usize) -> (Vec<String>, Vec<String>) {
        let tap = Arc::new(Recorder::default());
        let lines: Vec<String> = incoming_lines(std::io::Cursor::new(input), max, tap.clone())
            .map(|l| l.unwrap())
            .collect()
            .await;
        let notes = tap.0.lock().unwrap().clone();
        (lines, notes)
    }

    #[tokio::test]
    async fn frames_lines_and_skips_banners() {
        let input = b"Welcome to agent v1!\n{\"a\":1}\n\n  \n{\"b\":2}".to_vec();
        let (lines, notes) = collect(input, 1024).await;
        assert_eq!(lines, vec!["{\"a\":1}", "{\"b\":2}"]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("Banner") && n.contains("Welcome"))
        );
    }

    #[tokio::test]
    async fn oversized_request_becomes_synthetic_request_with_same_id() {
        let big = "x".repeat(5000);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"fs/write_text_file\",\"params\":{{\"id\":99,\"content\":\"{big}\"}}}}\n{{\"ok\":true}}\n"
        );
        let (lines, _) = collect(input.into_bytes(), 1000).await;
        assert_eq!(lines.len(), 2);
        let v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["method"], OVERSIZED_METHOD);
        assert_eq!(v["params"]["method"], "fs/write_text_file");
        assert_eq!(lines[1], "{\"ok\":true}");
    }

    #[tokio::test]
    async fn oversized_response_becomes_error_response() {
        let big = "y".repeat(5000);
        let input = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{{\"t\":\"{big}\"}}}}\n");
        let (lines, _) = collect(input.into_bytes(), 1000).await;
        let v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(v["id"], "abc");
        assert_eq!(v["error"]["code"], -32600);
    }

    #[tokio::test]
    async fn oversized_notification_is_dropped() {
        let big = "z".repeat(5000);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"t\":\"{big}\"}}}}\n{{\"n\":1}}\n"
        );
        let (lines, notes) = collect(input.into_bytes(), 1000).await;
        assert_eq!(lines, vec!["{\"n\":1}"]);
        assert!(notes.iter().any(|n| n.contains("Oversized")));
    }

    #[tokio::test]
    async fn endless_line_is_bounded() {
        // 64 MiB with no newline: memory stays bounded by HEAD_BYTES, not the input.
        struct Endless(usize);
        impl AsyncRead for Endless {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                if self.0 == 0 {
                    return std::task::Poll::Ready(Ok(()));
                }
                let n = buf.remaining().min(self.0);
                buf.put_slice(&vec![b'a'; n]);
                self.0 -= n;
                std::task::Poll::Ready(Ok(()))
            }
        }
        let tap = Arc::new(Recorder::default());
        let lines: Vec<_> = incoming_lines(Endless(64 << 20), 1 << 20, tap.clone())
            .collect()
            .await;
        assert!(lines.is_empty());
        assert!(tap.0.lock().unwrap().iter().any(|n| n.contains("Oversized")));
    }

    #[test]
    fn head_scanner_only_reads_top_level_keys() {
        let h =
            scan_head(br#"{"jsonrpc":"2.0","params":{"id":5,"method":"inner"},"method":"outer","id":"r-1"}"#);
        assert_eq!(h.id.as_deref(), Some("\"r-1\""));
        assert_eq!(h.method.as_deref(), Some("outer"));
        let h = scan_head(br#"{"id": 12 , "method" : "x\"y"}"#);
        assert_eq!(h.id.as_deref(), Some("12"));
        assert_eq!(h.method.as_deref(), Some("x\\\"y"));
        assert_eq!(scan_head(b"garbage").id, None);
        assert_eq!(scan_head(b"{\"id\":").id, None);
    }
}
