//! The protocol inspector: a bounded record of the raw ACP lines of a connection, with
//! secrets in URL query strings redacted before anything is kept.
//!
//! It is a [`WireTap`], so it sees exactly the framed lines the connection reads and writes.
//! Agent authors read it to debug their flows; nobody should find an OAuth `code` or a token
//! in it, so every `?key=value` in a URL keeps its key and loses its value.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::transport::{Direction, TransportNote, WireTap};

/// One recorded line.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Position since the connection started, so a viewer can fetch only what is new.
    pub seq: u64,
    pub direction: Direction,
    /// Milliseconds since the Unix epoch.
    pub at_ms: u64,
    pub text: String,
    /// The line was longer than [`MAX_LINE_CHARS`] and was cut.
    pub cut: bool,
    /// Porthole's own note about the traffic (a line it discarded), not a line of it.
    pub note: bool,
}

/// Longest line kept whole; the protocol inspector is for reading, not for archiving images.
pub const MAX_LINE_CHARS: usize = 64 * 1024;

struct Ring {
    entries: VecDeque<Entry>,
    bytes: usize,
    next: u64,
}

/// A bounded, redacting record of a connection's traffic. Cheap to clone.
#[derive(Clone)]
pub struct Inspector {
    ring: Arc<Mutex<Ring>>,
    max_bytes: usize,
}

impl Inspector {
    /// Keep at most `max_bytes` of line text (oldest lines go first).
    pub fn new(max_bytes: usize) -> Self {
        Self {
            ring: Arc::new(Mutex::new(Ring {
                entries: VecDeque::new(),
                bytes: 0,
                next: 0,
            })),
            max_bytes,
        }
    }

    fn record(&self, direction: Direction, line: &str) {
        let line = redact_api_keys(line);
        let line = line.as_ref();
        let (text, cut) = match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((i, _)) => (redact_url_queries(&line[..i]), true),
            None => (redact_url_queries(line), false),
        };
        self.push(direction, text, cut, false);
    }

    /// Porthole's own words about the traffic in `direction` (a line discarded for its size),
    /// kept in order with its lines.
    pub fn note(&self, direction: Direction, text: String) {
        self.push(direction, text, false, true);
    }

    fn push(&self, direction: Direction, text: String, cut: bool, note: bool) {
        let at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        let seq = ring.next;
        ring.next += 1;
        ring.bytes += text.len();
        ring.entries.push_back(Entry {
            seq,
            direction,
            at_ms,
            text,
            cut,
            note,
        });
        while ring.bytes > self.max_bytes && ring.entries.len() > 1 {
            if let Some(old) = ring.entries.pop_front() {
                ring.bytes -= old.text.len();
            }
        }
    }

    /// Entries with `seq >= since`, oldest first.
    pub fn since(&self, since: u64) -> Vec<Entry> {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.entries.iter().filter(|e| e.seq >= since).cloned().collect()
    }
}

impl WireTap for Inspector {
    fn line(&self, direction: Direction, line: &str) {
        self.record(direction, line);
    }
    fn note(&self, _: TransportNote) {}
}

/// An API key sent with `authenticate` (`params._meta["api-key"]`, a string or an object of
/// strings, and Codex's older `params._meta.apiKey`, see [`crate::api_key`]) replaced with `…`.
/// Other lines are returned as they are.
pub fn redact_api_keys(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains("\"api-key\"") {
        return std::borrow::Cow::Borrowed(line);
    }
    let Ok(mut message) = serde_json::from_str::<serde_json::Value>(line) else {
        return std::borrow::Cow::Borrowed(line);
    };
    fn blank(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => *s = "…".to_string(),
            serde_json::Value::Object(o) => o.values_mut().for_each(blank),
            serde_json::Value::Array(a) => a.iter_mut().for_each(blank),
            _ => {}
        }
    }
    let mut found = false;
    for pointer in ["/params/_meta/api-key", "/params/_meta/apiKey"] {
        if let Some(key) = message.pointer_mut(pointer) {
            blank(key);
            found = true;
        }
    }
    if found {
        std::borrow::Cow::Owned(message.to_string())
    } else {
        std::borrow::Cow::Borrowed(line)
    }
}

/// Replace the value of every query parameter of every `http(s)://` URL in `text` with `…`.
/// Works on raw JSON text: a URL ends at whitespace, a quote, `<`, `>` or a backslash escape.
pub fn redact_url_queries(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_url(rest) {
        out.push_str(&rest[..start]);
        let url_and_more = &rest[start..];
        let end = url_and_more
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '`'))
            .unwrap_or(url_and_more.len());
        out.push_str(&redact_one(&url_and_more[..end]));
        rest = &url_and_more[end..];
    }
    out.push_str(rest);
    out
}

fn find_url(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    match (lower.find("http://"), lower.find("https://")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn redact_one(url: &str) -> String {
    let Some(q) = url.find('?') else {
        return url.to_string();
    };
    let (base, query_and_fragment) = url.split_at(q + 1);
    let (query, fragment) = match query_and_fragment.find('#') {
        Some(h) => query_and_fragment.split_at(h),
        None => (query_and_fragment, ""),
    };
    let redacted: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if !value.is_empty() => format!("{key}=…"),
            _ => pair.to_string(),
        })
        .collect();
    // Fragments carry tokens too (implicit OAuth flows): keep only that there was one.
    let fragment = if fragment.len() > 1 { "#…" } else { fragment };
    format!("{base}{}{fragment}", redacted.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_keys_sent_with_authenticate_are_redacted() {
        let inspector = Inspector::new(1 << 20);
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"gemini-api-key","_meta":{"api-key":"sk-SECRET-1"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"authenticate","params":{"methodId":"api-key","_meta":{"api-key":{"apiKey":"sk-SECRET-2"},"apiKey":"sk-SECRET-2"}}}"#,
        ] {
            inspector.record(Direction::Outgoing, line);
        }
        // What an agent advertises is kept as it is.
        let advertised = r#"{"jsonrpc":"2.0","id":0,"result":{"authMethods":[{"id":"gemini-api-key","_meta":{"api-key":{"provider":"google"}}}]}}"#;
        inspector.record(Direction::Incoming, advertised);
        let entries = inspector.since(0);
        assert!(
            !entries[0].text.contains("SECRET") && entries[0].text.contains(r#""api-key":"…""#),
            "{}",
            entries[0].text
        );
        assert!(
            !entries[1].text.contains("SECRET") && entries[1].text.contains(r#""apiKey":"…""#),
            "{}",
            entries[1].text
        );
        assert_eq!(entries[2].text, advertised);
    }

    #[test]
    fn query_values_and_fragments_are_redacted_keys_kept() {
        let line = r#"{"url":"https://auth.example.com/cb?code=SECRET123&state=xyz&empty=&flag#access_token=TOKEN"}"#;
        let r = redact_url_queries(line);
        assert!(
            !r.contains("SECRET123") && !r.contains("xyz") && !r.contains("TOKEN"),
            "{r}"
        );
        assert!(
            r.contains("https://auth.example.com/cb?code=…&state=…&empty=&flag#…"),
            "{r}"
        );
    }

    #[test]
    fn several_urls_text_around_them_and_urls_without_query_survive() {
        let line = "see http://a.test/x?k=v and HTTPS://b.test/path, then \"https://c.test/?t=1\"";
        let r = redact_url_queries(line);
        assert_eq!(
            r,
            "see http://a.test/x?k=… and HTTPS://b.test/path, then \"https://c.test/?t=…\""
        );
    }

    #[test]
    fn json_escapes_end_a_url() {
        let line = r#"{"text":"open https://x.test/?a=1\nthen"}"#;
        assert_eq!(
            redact_url_queries(line),
            r#"{"text":"open https://x.test/?a=…\nthen"}"#
        );
    }

    #[test]
    fn the_record_is_bounded_and_redacted() {
        let inspector = Inspector::new(200);
        for i in 0..50 {
            inspector.line(
                Direction::Incoming,
                &format!(r#"{{"n":{i},"u":"https://t.test/?token=secret{i}"}}"#),
            );
        }
        let all = inspector.since(0);
        assert!(all.len() < 50, "old lines dropped");
        assert_eq!(all.last().unwrap().seq, 49);
        assert!(all.iter().all(|e| !e.text.contains("secret")));
        let total: usize = all.iter().map(|e| e.text.len()).sum();
        assert!(total <= 200);
        assert_eq!(inspector.since(49).len(), 1);
    }

    #[test]
    fn long_lines_are_cut_at_a_char_boundary() {
        let inspector = Inspector::new(10 * MAX_LINE_CHARS);
        let long = "é".repeat(MAX_LINE_CHARS + 10);
        inspector.line(Direction::Outgoing, &long);
        let e = &inspector.since(0)[0];
        assert!(e.cut);
        assert_eq!(e.text.chars().count(), MAX_LINE_CHARS);
    }
}
