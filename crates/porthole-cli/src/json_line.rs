//! One JSON line for `--json`, with nothing hidden in it. serde_json escapes only C0 controls,
//! quotes and backslashes, so C1 controls (`U+009B` is a terminal's CSI), bidi controls, line
//! and paragraph separators and invisible characters would reach a terminal or a log viewer
//! raw. Every character of core's one hidden-character table is written as `\uXXXX` instead:
//! the same value for any JSON reader, inert for anything that shows the bytes.

use std::io;

use porthole_core::hidden_chars::HIDDEN_CHARS;
use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// `value` as one line of JSON (no newline), hidden characters escaped.
pub fn to_line(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    append(&mut out, value);
    // The formatter writes whole characters or ASCII escapes: the bytes stay UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// `value` as one line of JSON (no newline), hidden characters escaped, appended to `out`
/// without a `String` or a `serde_json::Value` in between. A value that fails to serialize
/// leaves nothing of itself: an error object is appended instead.
pub fn append(out: &mut Vec<u8>, value: &impl Serialize) {
    let start = out.len();
    let mut serializer = Serializer::with_formatter(&mut *out, Escaping);
    if let Err(e) = value.serialize(&mut serializer) {
        out.truncate(start);
        let error = serde_json::json!({"type": "error", "message": e.to_string()});
        out.extend_from_slice(error.to_string().as_bytes());
    }
}

/// serde_json's compact output (the trait's defaults), with hidden characters in strings and
/// keys escaped.
struct Escaping;

impl Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Printable ASCII (most text) holds nothing hidden: written in one piece, unscanned.
        if fragment.bytes().all(|b| is_printable_ascii(b.into())) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut plain = 0;
        for (i, c) in fragment.char_indices() {
            if is_hidden(c) {
                writer.write_all(&fragment.as_bytes()[plain..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04X}")?;
                }
                plain = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[plain..])
    }
}

/// Space to `~`: never hidden.
fn is_printable_ascii(c: char) -> bool {
    (' '..='~').contains(&c)
}

/// In the hidden-character table (C0 controls never get here: serde_json escapes them).
fn is_hidden(c: char) -> bool {
    !is_printable_ascii(c)
        && HIDDEN_CHARS
            .iter()
            .any(|(first, last, _)| (*first..=*last).contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_the_value_is_unchanged() {
        let text = "a\u{9B}2J\u{85}b\u{202E}c\u{2066}\u{61C}\u{200E}\u{2028}\u{2029}\u{200B}\u{7F}\u{E0041}\u{1B} é 例 👩\u{200D}💻";
        let value = serde_json::json!({ "text": text, "key\u{202E}": 1 });
        let line = to_line(&value);
        assert!(
            !line.chars().any(|c| is_hidden(c) || c.is_control()),
            "raw hidden character in {line}"
        );
        for escape in [
            "\\u009B",
            "\\u0085",
            "\\u202E",
            "\\u2066",
            "\\u061C",
            "\\u200E",
            "\\u2028",
            "\\u2029",
            "\\u007F",
            "\\uDB40\\uDC41",
            "\\u001b",
        ] {
            assert!(line.contains(escape), "{escape} in {line}");
        }
        assert!(line.contains(" é 例 👩"), "visible text stays as it is: {line}");
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back, value);
    }
}
