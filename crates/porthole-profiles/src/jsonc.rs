//! Reading the settings files people edit by hand (the agents file, the connections file, other
//! apps' MCP configurations): JSONC, as Zed's and VS Code's settings are, with jsonc-parser
//! (dprint's maintained parser) deserializing straight into serde types, so a type's own
//! `Deserialize` sees every member in file order, duplicates included.
//!
//! Accepted beyond JSON: comments, trailing commas, and, so that files written for the JSON5
//! reader Porthole used before keep working, unquoted property names and single-quoted strings.
//! Refused: missing commas and JSON5's numbers (hex, `+1`, `.5`, `Infinity`), which a person
//! almost never means. A parse error says where, with a short excerpt rather than the line
//! (which may be a 200 KB one).

use serde::de::DeserializeOwned;

/// The text read as JSONC into `T`.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, JsoncError> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: true,
        allow_single_quoted_strings: true,
        allow_missing_commas: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    jsonc_parser::parse_to_serde_value(text, &options).map_err(|e| JsoncError::new(text, &e))
}

/// Where a file is wrong and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsoncError {
    /// 1-based line and column, when the parser knows them.
    pub at: Option<(usize, usize)>,
    pub reason: String,
    /// The text around `at`, at most [`EXCERPT_CHARS`] on each side, with `…` where cut.
    pub excerpt: Option<String>,
}

/// Characters of the file shown on each side of a parse error.
pub const EXCERPT_CHARS: usize = 30;

impl JsoncError {
    fn new(text: &str, e: &jsonc_parser::errors::ParseError) -> Self {
        let reason: String = e.kind().to_string().chars().take(200).collect();
        let range = e.range();
        // A data error the parser could not place (a custom message at 0..0) has no position.
        if range.start == 0 && range.end == 0 {
            return JsoncError {
                at: None,
                reason,
                excerpt: None,
            };
        }
        let (line, column) = (e.line_display(), e.column_display());
        let text_line = text.lines().nth(line.saturating_sub(1)).unwrap_or_default();
        let start = column.saturating_sub(1 + EXCERPT_CHARS);
        let shown: String = text_line.chars().skip(start).take(2 * EXCERPT_CHARS).collect();
        let before = if start > 0 { "…" } else { "" };
        let after = if text_line.chars().count() > start + 2 * EXCERPT_CHARS {
            "…"
        } else {
            ""
        };
        JsoncError {
            at: Some((line, column)),
            reason,
            excerpt: Some(format!("{before}{shown}{after}")),
        }
    }
}

impl std::fmt::Display for JsoncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.at, &self.excerpt) {
            (Some((line, column)), Some(excerpt)) => write!(
                f,
                "line {line}, column {column}: {} (at `{excerpt}`)",
                self.reason
            ),
            _ => write!(f, "{}", self.reason),
        }
    }
}

impl std::error::Error for JsoncError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn comments_trailing_commas_and_json5_keys_are_read() {
        let v: Value = from_str("// settings\n{\n  /* a */ a: 'one',\n  \"b\": [1, 2,],\n}\n").unwrap();
        assert_eq!(v, serde_json::json!({"a": "one", "b": [1, 2]}));
    }

    #[test]
    fn sloppy_input_is_an_error_that_says_where() {
        for (text, at) in [
            ("{\"a\": 1 \"b\": 2}", (1, 8)),
            ("{\n  \"a\": 0x10\n}", (2, 8)),
            ("{\"a\": [,]}", (1, 8)),
        ] {
            let e = from_str::<Value>(text).unwrap_err();
            assert_eq!(e.at, Some(at), "{text}: {e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("line {}, column {}: ", at.0, at.1))
            );
        }
    }

    #[test]
    fn a_type_error_is_said_in_the_types_words() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct File {
            n: u32,
        }
        let e = from_str::<File>("{\"n\": \"x\"}").unwrap_err();
        assert!(e.reason.contains("invalid type"), "{e}");
    }
}
