//! Text for a terminal. Everything the CLI prints in human mode passes through here, because
//! agents and registries are untrusted and a terminal obeys what it is sent: `ESC ] 52` writes
//! the clipboard, `ESC [ 2 J` clears the screen, `ESC ] 0 ;` retitles the window, colour codes
//! and a lone carriage return fake Porthole's own lines.
//!
//! One rule, the window's: every character of the hidden-character table
//! (`porthole_core::hidden_chars::HIDDEN_CHARS`: C0 and C1 controls, ESC and DEL among them,
//! bidi controls, invisible characters) is shown as its code point, `⟨U+001B⟩`, through
//! `hidden_chars::neutralize`, which already shows agent names that way. On top of it, for a
//! terminal: a carriage return not followed by a line feed is shown too (it would move the
//! cursor back over a line), and [`line`] shows line feeds and tabs of a one-line field (a
//! title with a line feed could print a line that looks like Porthole's).
//!
//! `--json` output does not come here: it stays exact (JSON escapes control characters).

use std::io::Write;

use porthole_core::hidden_chars::neutralize;

/// Multi-line text (messages, thoughts, terminal output, whole output lines): line feeds and
/// tabs kept, CRLF kept, everything else that a terminal would act on shown as `⟨U+XXXX⟩`.
pub fn text(s: &str) -> String {
    let neutral = neutralize(s);
    if !neutral.contains('\r') {
        return neutral;
    }
    let mut out = String::with_capacity(neutral.len() + 8);
    let mut chars = neutral.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() != Some(&'\n') {
            out.push_str("⟨U+000D⟩");
        } else {
            out.push(c);
        }
    }
    out
}

/// A one-line field (a title, a name, a description in a table, an error message): like
/// [`text`], and line breaks and tabs shown as well.
pub fn line(s: &str) -> String {
    let neutral = neutralize(s);
    if !neutral.contains(['\r', '\n', '\t']) {
        return neutral;
    }
    let mut out = String::with_capacity(neutral.len() + 8);
    for c in neutral.chars() {
        match c {
            '\r' => out.push_str("⟨U+000D⟩"),
            '\n' => out.push_str("⟨U+000A⟩"),
            '\t' => out.push_str("⟨U+0009⟩"),
            c => out.push(c),
        }
    }
    out
}

/// A protocol value's name as the wire spells it (`in_progress`, `end_turn`), for a line:
/// plain words, not Rust's debug text (`Some(InProgress)`).
pub fn name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => line(&name),
        _ => "?".into(),
    }
}

/// Write `text(s)` to stdout (no newline added), flushed so streamed chunks show at once.
pub fn out(s: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text(s).as_bytes());
    let _ = stdout.flush();
}

/// Write `text(s)` to stderr (no newline added).
pub fn err(s: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text(s).as_bytes());
    let _ = stderr.flush();
}

/// `println!` through [`text`]: the only way the CLI prints a human line on stdout.
macro_rules! say {
    () => { $crate::term::out("\n") };
    ($($arg:tt)*) => { $crate::term::out(&format!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!` through [`text`]: the only way the CLI prints a human line on stderr.
macro_rules! note {
    () => { $crate::term::err("\n") };
    ($($arg:tt)*) => { $crate::term::err(&format!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` through [`text`].
macro_rules! note_part {
    ($($arg:tt)*) => { $crate::term::err(&format!($($arg)*)) };
}

pub(crate) use {note, note_part, say};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escape_class_is_shown_not_sent() {
        // OSC 52 (clipboard), with BEL and with ST.
        assert_eq!(text("\u{1b}]52;c;aGk=\u{7}"), "⟨U+001B⟩]52;c;aGk=⟨U+0007⟩");
        assert_eq!(text("\u{1b}]0;title\u{1b}\\"), "⟨U+001B⟩]0;title⟨U+001B⟩\\");
        // CSI: clear screen, colour; the 8-bit CSI (C1).
        assert_eq!(text("\u{1b}[2J\u{1b}[31mred"), "⟨U+001B⟩[2J⟨U+001B⟩[31mred");
        assert_eq!(text("\u{9b}2J"), "⟨U+009B⟩2J");
        // Other C0 controls, DEL, backspace.
        assert_eq!(text("a\u{8}b\u{7f}\u{0}"), "a⟨U+0008⟩b⟨U+007F⟩⟨U+0000⟩");
        // Bidi and invisible characters, marked as the window marks them.
        assert_eq!(text("abc\u{202E}fed\u{200B}"), "abc⟨U+202E⟩fed⟨U+200B⟩");
        // A lone CR overwrites the line; CRLF is a line end.
        assert_eq!(text("fake\rreal\r\nnext\n"), "fake⟨U+000D⟩real\r\nnext\n");
        assert_eq!(text("trailing\r"), "trailing⟨U+000D⟩");
        // Plain text of any script passes unchanged, tabs and line feeds kept.
        assert_eq!(text("plain текст 例え\tx\n"), "plain текст 例え\tx\n");
        assert_eq!(text("family 👨\u{200D}👩"), "family 👨\u{200D}👩");
    }

    #[test]
    fn one_line_fields_show_line_breaks_too() {
        assert_eq!(
            line("title\n[permission] x -> yes\tz\r"),
            "title⟨U+000A⟩[permission] x -> yes⟨U+0009⟩z⟨U+000D⟩"
        );
        assert_eq!(line("\u{1b}[1mbold"), "⟨U+001B⟩[1mbold");
        assert_eq!(line("Fixture"), "Fixture");
    }

    #[test]
    fn shown_text_is_inert() {
        for s in [
            "\u{1b}]52;c;x\u{7}",
            "\u{9d}0;t\u{9c}",
            "a\rb",
            "\u{202E}\u{2066}",
        ] {
            for shown in [text(s), line(s)] {
                assert!(
                    !shown.chars().any(|c| (c.is_control() && c != '\n' && c != '\t')
                        || porthole_core::hidden_chars::kind(c).is_some()),
                    "{shown:?}"
                );
            }
        }
    }
}
