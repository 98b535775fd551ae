//! Tables the window shares with core, generated from core so the two cannot drift.
//! A test fails when a checked-in file is out of date; `PORTHOLE_BLESS=1 cargo test -p
//! porthole-elicitation --test ui_tables` rewrites it.

use std::path::PathBuf;

use porthole_elicitation::hidden_chars::HIDDEN_CHARS;

fn repo_file(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

/// Compare `generated` with the checked-in file, or write it when blessing.
fn check_generated(relative: &str, generated: &str) {
    let path = repo_file(relative);
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "{relative} is out of date with the elicitation rules; run `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation --test ui_tables`"
    );
}

#[test]
fn the_windows_hidden_character_table_is_cores() {
    let mut ts = String::from(
        "// Generated from porthole-elicitation's hidden_chars::HIDDEN_CHARS by\n\
         // `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation --test ui_tables`. Do not edit.\n\
         \n\
         /** Characters never shown as themselves: [first, last] code points and the warning they raise. */\n\
         export const HIDDEN_CHARS: readonly (readonly [number, number, \"bidi-control\" | \"invisible-char\"])[] = [\n",
    );
    for (first, last, warning) in HIDDEN_CHARS {
        ts.push_str(&format!(
            "  [0x{:04X}, 0x{:04X}, \"{}\"],\n",
            u32::from(*first),
            u32::from(*last),
            warning.code()
        ));
    }
    ts.push_str("];\n");
    check_generated("ui/src/lib/generated/hidden-chars.ts", &ts);
}

/// Golden cases for the window's `revealHidden`: core's `neutralize` of a string holding the
/// first, a middle and the last character of each range of the table, between plain text.
#[test]
fn the_windows_reveal_cases_are_cores_neutralize() {
    use porthole_elicitation::hidden_chars::neutralize;
    let mut cases = Vec::new();
    for (first, last, _) in HIDDEN_CHARS {
        let (a, b) = (u32::from(*first), u32::from(*last));
        for c in [a, a + (b - a) / 2, b].into_iter().filter_map(char::from_u32) {
            let input = format!("ok{c}текст");
            cases.push(serde_json::json!({ "input": input, "shown": neutralize(&input) }));
        }
    }
    for plain in ["plain текст 例え", "tab\tand\nnewline", "👩‍💻 x"] {
        // The window's rule has no emoji allowance: a ZWJ between emoji is revealed there.
        let shown = if plain.contains('\u{200D}') {
            plain.replace('\u{200D}', "⟨U+200D⟩")
        } else {
            neutralize(plain)
        };
        cases.push(serde_json::json!({ "input": plain, "shown": shown }));
    }
    let json = serde_json::to_string_pretty(&cases).unwrap() + "\n";
    check_generated("ui/src/lib/generated/reveal-cases.json", &json);
}

/// The words of every warning, as core writes them: the window shows these, never its own.
#[test]
fn the_windows_warning_words_are_cores() {
    use porthole_elicitation::url_safety::UrlWarning;
    let quote = |s: &str| serde_json::to_string(s).unwrap();
    let mut ts = String::from(
        "// Generated from porthole-elicitation's UrlWarning::explanation and ::permission_explanation by\n\
         // `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation --test ui_tables`. Do not edit.\n\
         import type { UrlWarningCode } from \"../protocol\";\n\
         \n\
         /** What a dialog says for each warning code. */\n\
         export const WARNING_TEXT: Record<UrlWarningCode, string> = {\n",
    );
    for w in UrlWarning::ALL {
        ts.push_str(&format!("  {}: {},\n", quote(w.code()), quote(w.explanation())));
    }
    ts.push_str(
        "};\n\n/** What a permission dialog says, where it differs (hidden characters in a title or option). */\n\
         export const PERMISSION_WARNING_TEXT: Partial<Record<UrlWarningCode, string>> = {\n",
    );
    for w in UrlWarning::ALL {
        if w.permission_explanation() != w.explanation() {
            ts.push_str(&format!(
                "  {}: {},\n",
                quote(w.code()),
                quote(w.permission_explanation())
            ));
        }
    }
    ts.push_str("};\n");
    check_generated("ui/src/lib/generated/warning-text.ts", &ts);
}
