//! Characters never shown as themselves: bidi controls, zero-width and other invisible
//! characters, C0/C1 controls. The one table of them ([`HIDDEN_CHARS`], which the window's
//! escape rule is generated from), what each is ([`HiddenChar`]), and the cleaner every front
//! end shows agent text through ([`neutralize`]: the CLI's sanitizer, the app's notifications
//! and names, the log). The URL analysis ([`crate::url_safety`]) reports the same characters
//! as its `bidi-control` / `invisible-char` warnings.
//!
//! In display text a single emoji variation selector (U+FE0E/U+FE0F) after an emoji and a
//! zero-width joiner between emoji are allowed, so "⚠️" or "👩‍💻" show as themselves; inside
//! URLs there is no such allowance (a ZWJ in a host makes a different domain that looks
//! identical).

use serde::{Deserialize, Serialize};
use unicode_properties::UnicodeEmoji;

/// What kind of hidden character one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HiddenChar {
    /// Reorders the text around it (RLO, isolates, marks).
    BidiControl,
    /// Renders as nothing, or as something other than itself.
    Invisible,
}

impl HiddenChar {
    /// The code the window and the JSON lines use: the URL warning's own.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BidiControl => "bidi-control",
            Self::Invisible => "invisible-char",
        }
    }
}

/// Replace bidi controls and invisible characters with visible escapes like
/// "\u{202E}" → "⟨U+202E⟩" so agent strings can be displayed safely.
pub fn neutralize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (c, warning) in classify(s, true) {
        match warning {
            Some(_) => out.push_str(&code_point(c)),
            None => out.push(c),
        }
    }
    out
}

/// "⟨U+202E⟩": how a hidden character is shown to the user.
pub fn code_point(c: char) -> String {
    format!("⟨U+{:04X}⟩", u32::from(c))
}

/// Every character that is never shown as itself, as inclusive ranges with the warning it
/// raises. The one source of this rule: the window's escape rule is generated from it
/// (`ui/src/lib/generated/hidden-chars.ts`, checked by `tests/ui_tables.rs`).
pub const HIDDEN_CHARS: &[(char, char, HiddenChar)] = {
    use HiddenChar::{BidiControl, Invisible as InvisibleChar};
    &[
        // C0 controls but tab, LF and CR; DEL and C1 controls: they render as nothing.
        ('\u{0000}', '\u{0008}', InvisibleChar),
        ('\u{000B}', '\u{000C}', InvisibleChar),
        ('\u{000E}', '\u{001F}', InvisibleChar),
        ('\u{007F}', '\u{009F}', InvisibleChar),
        // Soft hyphen, combining grapheme joiner.
        ('\u{00AD}', '\u{00AD}', InvisibleChar),
        ('\u{034F}', '\u{034F}', InvisibleChar),
        // Arabic letter mark.
        ('\u{061C}', '\u{061C}', BidiControl),
        // Hangul fillers, Khmer inherent vowels, Mongolian free variation selectors and
        // vowel separator.
        ('\u{115F}', '\u{1160}', InvisibleChar),
        ('\u{17B4}', '\u{17B5}', InvisibleChar),
        ('\u{180B}', '\u{180F}', InvisibleChar),
        // Zero-width space, non-joiner, joiner.
        ('\u{200B}', '\u{200D}', InvisibleChar),
        // LRM, RLM; line and paragraph separators (they break a line where none shows);
        // embeddings and overrides.
        ('\u{200E}', '\u{200F}', BidiControl),
        ('\u{2028}', '\u{2029}', InvisibleChar),
        ('\u{202A}', '\u{202E}', BidiControl),
        // Word joiner, invisible operators.
        ('\u{2060}', '\u{2064}', InvisibleChar),
        // Isolates; then the deprecated format characters (symmetric swapping, shaping, digits).
        ('\u{2066}', '\u{2069}', BidiControl),
        ('\u{206A}', '\u{206F}', InvisibleChar),
        ('\u{3164}', '\u{3164}', InvisibleChar),
        // Variation selectors, BOM, halfwidth Hangul filler.
        ('\u{FE00}', '\u{FE0F}', InvisibleChar),
        ('\u{FEFF}', '\u{FEFF}', InvisibleChar),
        ('\u{FFA0}', '\u{FFA0}', InvisibleChar),
        // Tag characters, variation selectors supplement.
        ('\u{E0000}', '\u{E007F}', InvisibleChar),
        ('\u{E0100}', '\u{E01EF}', InvisibleChar),
    ]
};

/// What a character is on its own, ignoring context: `None` for one shown as itself.
pub fn kind(c: char) -> Option<HiddenChar> {
    if matches!(c, ' '..='~') {
        return None;
    }
    HIDDEN_CHARS
        .iter()
        .find(|(first, last, _)| (*first..=*last).contains(&c))
        .map(|(_, _, hidden)| *hidden)
}

/// Characters that can carry an emoji presentation selector or be joined by ZWJ: emoji
/// (the Emoji property of UTS #51; ASCII digits, `#` and `*` have it too, but a selector
/// after them is a keycap's, handled apart). Other symbols and letters are not: a ZWJ after
/// `é` or `→` would hide in plain text.
fn is_emoji_like(c: char) -> bool {
    !c.is_ascii() && c.is_emoji_char() && kind(c).is_none()
}

/// Each char of `s` with the warning it raises. With `emoji_ok`, one emoji
/// variation selector after an emoji (or keycap base) and a ZWJ between emoji
/// are legitimate and raise nothing.
fn classify(s: &str, emoji_ok: bool) -> Vec<(char, Option<HiddenChar>)> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    // Whether the previous char is part of an emoji sequence (so a ZWJ may follow).
    let mut prev_emoji = false;
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let mut warning = kind(c);
        if emoji_ok && warning.is_some() {
            let allowed = match c {
                '\u{FE0E}' | '\u{FE0F}' => {
                    prev.is_some_and(is_emoji_like)
                        || (prev.is_some_and(|p| matches!(p, '0'..='9' | '#' | '*'))
                            && next == Some('\u{20E3}'))
                }
                '\u{200D}' => prev_emoji && next.is_some_and(is_emoji_like),
                _ => false,
            };
            if allowed {
                warning = None;
            }
        }
        prev_emoji = if warning.is_none() && kind(c).is_some() {
            // An allowed selector keeps the sequence going; an allowed ZWJ
            // needs an emoji next anyway.
            true
        } else {
            is_emoji_like(c)
        };
        out.push((c, warning));
    }
    out
}

/// The hidden characters in `s`, in order. With `emoji_ok` (display text, not URLs), emoji
/// presentation selectors and joiners between emoji are not counted.
pub fn found_in(s: &str, emoji_ok: bool) -> impl Iterator<Item = HiddenChar> {
    classify(s, emoji_ok).into_iter().filter_map(|(_, hidden)| hidden)
}

#[cfg(test)]
mod tests {
    use super::HiddenChar::{BidiControl, Invisible};
    use super::*;

    #[test]
    fn neutralize_escapes_hidden_chars() {
        assert_eq!(neutralize("abc\u{202E}def"), "abc⟨U+202E⟩def");
        assert_eq!(neutralize("a\u{200B}b\u{FEFF}"), "a⟨U+200B⟩b⟨U+FEFF⟩");
        assert_eq!(neutralize("tag\u{E0041}"), "tag⟨U+E0041⟩");
        assert_eq!(neutralize("bell\u{7}"), "bell⟨U+0007⟩");
        assert_eq!(neutralize("a\u{2028}b\u{2029}"), "a⟨U+2028⟩b⟨U+2029⟩");
        assert_eq!(neutralize("plain текст 例え\n"), "plain текст 例え\n");
        assert_eq!(neutralize(""), "");
    }

    #[test]
    fn the_table_is_sorted_and_covers_every_control() {
        for pair in HIDDEN_CHARS.windows(2) {
            assert!(pair[0].1 < pair[1].0, "{:?} then {:?}", pair[0], pair[1]);
        }
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                assert_eq!(kind(c), Some(Invisible), "{:04X}", c as u32);
            }
        }
        assert_eq!(kind('\u{E0041}'), Some(Invisible));
        assert_eq!(kind('\u{E0101}'), Some(Invisible));
        assert_eq!(kind('\u{2067}'), Some(BidiControl));
        assert_eq!(kind('a'), None);
    }

    #[test]
    fn emoji_sequences_are_display_text_only() {
        let woman_technologist = "\u{1F469}\u{200D}\u{1F4BB}";
        assert_eq!(found_in(woman_technologist, true).count(), 0);
        assert_eq!(
            found_in(woman_technologist, false).collect::<Vec<_>>(),
            [Invisible]
        );
    }
}
