//! Validation of the `content` a user wants to send back for a form-mode
//! elicitation. This is the single source of truth: the UI shows these
//! errors and sends [`Validation::content`] only when
//! [`Validation::is_valid`].
//!
//! Rules, per field:
//! * A value of `null` counts as absent.
//! * A required field that is absent is a `required` error. For a required
//!   **boolean**, absent is missing too: the UI must send `false`
//!   explicitly for an unchecked box.
//! * **Empty text** (`""`) counts as missing: for a required text field it
//!   is a `required` error ("This field is required."), even though JSON
//!   Schema would call it present; for an optional text field it means "no
//!   answer" and is omitted from `content` without error (so an empty
//!   optional email field is not a format error). Whitespace is not
//!   trimmed: `" "` is a value.
//! * An **empty single-select** (`""` when `""` is not one of the options)
//!   is the UI's "nothing chosen": `required` if required, else omitted.
//! * An **empty multi-select** (`[]`) on an optional field means "no
//!   answer" too and is omitted. On a required field `[]` is a value: valid
//!   unless `minItems` says otherwise.
//! * Absent optional fields are omitted. Unsupported fields are never sent:
//!   a value for one is an `unsupported` error, and a required one is always
//!   an `unsupported` error (the form can only be declined or cancelled).
//! * Keys in `content` that are not fields are reported (`unknownField`)
//!   and dropped.
//!
//! A field with any error is left out of `content`. Several errors may be
//! reported for one field (e.g. `minLength` and `pattern`), in the order:
//! type, length/bounds/count, pattern, format.
//!
//! [`FormSchema::hints`] says the same constraints in words, for under each field before the
//! user types: a constraint's check and its words are kept in this one file.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};
use time::format_description::well_known::Rfc3339;
use time::{Date, Month, OffsetDateTime};
use url::Url;

use super::model::{
    EnumChoice, Field, FieldKind, FormSchema, PatternRef, StringFormat, compile_bounded, default_value,
    json_to_i64, number_value,
};

/// The values of [`FieldError::code`].
pub mod codes {
    pub const REQUIRED: &str = "required";
    pub const TYPE: &str = "type";
    pub const MIN_LENGTH: &str = "minLength";
    pub const MAX_LENGTH: &str = "maxLength";
    pub const PATTERN: &str = "pattern";
    pub const FORMAT: &str = "format";
    pub const MINIMUM: &str = "minimum";
    pub const MAXIMUM: &str = "maximum";
    pub const ENUM: &str = "enum";
    pub const MIN_ITEMS: &str = "minItems";
    pub const MAX_ITEMS: &str = "maxItems";
    pub const UNIQUE_ITEMS: &str = "uniqueItems";
    pub const UNKNOWN_FIELD: &str = "unknownField";
    pub const UNSUPPORTED: &str = "unsupported";
}

use codes::*;

/// The result of [`FormSchema::validate`].
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    /// Normalized content: only valid values of known, supported fields;
    /// integers as JSON integers; empty/absent optional fields omitted.
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(type = "Record<string, string | number | boolean | Array<string>>")
    )]
    pub content: Map<String, Value>,
    /// Every problem found, in field order, then unknown keys.
    pub errors: Vec<FieldError>,
}

impl Validation {
    /// True when there are no errors at all (including `unknownField`).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors for one field.
    pub fn errors_for<'a>(&'a self, field: &'a str) -> impl Iterator<Item = &'a FieldError> + 'a {
        self.errors.iter().filter(move |e| e.field == field)
    }
}

/// One problem with one field.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldError {
    /// The property name (the `content` key).
    pub field: String,
    /// Machine-readable code, one of [`codes`].
    pub code: &'static str,
    /// A sentence for the user.
    pub message: String,
}

/// The verdict on one field's value.
pub(super) enum Outcome {
    /// Valid; this (normalized) value goes into `content`.
    Accept(Value),
    /// Nothing to send and nothing wrong.
    Omit,
    Reject(Vec<Issue>),
}

pub(super) struct Issue {
    code: &'static str,
    message: String,
}

fn issue(code: &'static str, message: impl Into<String>) -> Issue {
    Issue {
        code,
        message: message.into(),
    }
}

fn reject(code: &'static str, message: impl Into<String>) -> Outcome {
    Outcome::Reject(vec![issue(code, message)])
}

fn finish(issues: Vec<Issue>, value: Value) -> Outcome {
    if issues.is_empty() {
        Outcome::Accept(value)
    } else {
        Outcome::Reject(issues)
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

impl FormSchema {
    /// Initial values for the form: each field's default if it is valid for
    /// that field, else absent. Never guesses: a required single-select with
    /// no default has no value; a boolean without a default is absent (the
    /// UI shows it unchecked, and must send `false` explicitly if the user
    /// leaves it so). Integers are JSON integers; a multi-select with no
    /// (valid) default is absent.
    pub fn initial_values(&self) -> Map<String, Value> {
        let mut values = Map::new();
        for field in &self.fields {
            let Some(default) = default_value(&field.kind) else {
                continue;
            };
            if let Outcome::Accept(value) = check_field(field, Some(&default), self.pattern_for(field)) {
                values.insert(field.name.clone(), value);
            }
        }
        values
    }

    /// Validate content the user wants to send. See the module docs for the
    /// rules; [`Validation::content`] is what to send when valid.
    pub fn validate(&self, content: &Map<String, Value>) -> Validation {
        let mut out = Map::new();
        let mut errors = Vec::new();
        for field in &self.fields {
            match check_field(field, content.get(&field.name), self.pattern_for(field)) {
                Outcome::Accept(value) => {
                    out.insert(field.name.clone(), value);
                }
                Outcome::Omit => {}
                Outcome::Reject(issues) => {
                    errors.extend(issues.into_iter().map(|i| FieldError {
                        field: field.name.clone(),
                        code: i.code,
                        message: i.message,
                    }));
                }
            }
        }
        let known: HashSet<&str> = self.fields.iter().map(|f| f.name.as_str()).collect();
        for key in content.keys() {
            if !known.contains(key.as_str()) {
                errors.push(FieldError {
                    field: key.clone(),
                    code: UNKNOWN_FIELD,
                    message: "This field is not part of the form and will not be sent.".into(),
                });
            }
        }
        Validation { content: out, errors }
    }
}

fn missing(field: &Field) -> Outcome {
    if field.required {
        reject(REQUIRED, "This field is required.")
    } else {
        Outcome::Omit
    }
}

/// Check one field's value (`None` = absent). Also used at parse time to
/// vet defaults, so defaults and user input follow the same rules.
pub(super) fn check_field(field: &Field, value: Option<&Value>, pattern: PatternRef<'_>) -> Outcome {
    let value = value.filter(|v| !v.is_null());
    if let FieldKind::Unsupported { reason, .. } = &field.kind {
        return if field.required {
            reject(
                UNSUPPORTED,
                format!(
                    "This required field cannot be shown by this client ({reason}), so the form cannot be submitted. Decline or cancel instead."
                ),
            )
        } else if value.is_some() {
            reject(
                UNSUPPORTED,
                format!(
                    "This field cannot be shown by this client ({reason}), so no value can be sent for it."
                ),
            )
        } else {
            Outcome::Omit
        };
    }
    let Some(value) = value else {
        return missing(field);
    };
    match &field.kind {
        FieldKind::Text {
            min_length,
            max_length,
            pattern: pattern_src,
            format,
            ..
        } => {
            let Value::String(s) = value else {
                return reject(TYPE, "Must be text.");
            };
            if s.is_empty() {
                return missing(field);
            }
            let mut issues = Vec::new();
            let len = s.chars().count() as u64;
            if let Some(min) = *min_length
                && len < min
            {
                issues.push(issue(
                    MIN_LENGTH,
                    format!("Must be at least {}.", plural(min, "character", "characters")),
                ));
            }
            if let Some(max) = *max_length
                && len > max
            {
                issues.push(issue(
                    MAX_LENGTH,
                    format!("Must be at most {}.", plural(max, "character", "characters")),
                ));
            }
            if let Some(src) = pattern_src {
                let compiled;
                let regex = match pattern {
                    PatternRef::Compiled(r) => Some(r),
                    PatternRef::Owned(ref r) => Some(r),
                    PatternRef::Broken => None,
                    PatternRef::None => {
                        compiled = compile_bounded(src);
                        compiled.as_ref()
                    }
                };
                match regex {
                    Some(p) if s.len() > p.max_input_bytes() => issues.push(issue(
                        PATTERN,
                        "Too long to be checked against the required pattern. Shorten it.",
                    )),
                    Some(p) if p.regex.is_match(s) => {}
                    Some(_) => issues.push(issue(PATTERN, "Must match the required pattern.")),
                    None => issues.push(issue(
                        PATTERN,
                        "This field's pattern cannot be checked, so no value can be accepted.",
                    )),
                }
            }
            if let Some(format) = format
                && let Some(message) = check_format(format, s)
            {
                issues.push(issue(FORMAT, message));
            }
            finish(issues, value.clone())
        }
        FieldKind::Number { minimum, maximum, .. } => {
            let Value::Number(n) = value else {
                return reject(TYPE, "Must be a number.");
            };
            let Some(x) = n.as_f64() else {
                return reject(TYPE, "Must be a number.");
            };
            let mut issues = Vec::new();
            if let Some(min) = *minimum
                && x < min
            {
                issues.push(issue(MINIMUM, format!("Must be at least {}.", number_value(min))));
            }
            if let Some(max) = *maximum
                && x > max
            {
                issues.push(issue(MAXIMUM, format!("Must be at most {}.", number_value(max))));
            }
            finish(issues, Value::Number(n.clone()))
        }
        FieldKind::Integer { minimum, maximum, .. } => {
            let Value::Number(n) = value else {
                return reject(TYPE, "Must be a whole number.");
            };
            let Some(i) = json_to_i64(n) else {
                let whole = n.as_f64().is_some_and(|f| f.fract() == 0.0);
                return reject(
                    TYPE,
                    if whole {
                        format!("Must be a whole number between {} and {}.", i64::MIN, i64::MAX)
                    } else {
                        "Must be a whole number.".into()
                    },
                );
            };
            let mut issues = Vec::new();
            if let Some(min) = *minimum
                && i < min
            {
                issues.push(issue(MINIMUM, format!("Must be at least {min}.")));
            }
            if let Some(max) = *maximum
                && i > max
            {
                issues.push(issue(MAXIMUM, format!("Must be at most {max}.")));
            }
            finish(issues, Value::from(i))
        }
        FieldKind::Boolean { .. } => match value {
            Value::Bool(b) => Outcome::Accept(Value::Bool(*b)),
            _ => reject(TYPE, "Must be true or false."),
        },
        FieldKind::SingleSelect { options, .. } => match value {
            Value::String(s) if options.iter().any(|o| &o.value == s) => Outcome::Accept(value.clone()),
            // "" that is not an option is the UI's "nothing chosen".
            Value::String(s) if s.is_empty() => missing(field),
            Value::String(_) => reject(ENUM, "Choose one of the listed options."),
            _ => reject(TYPE, "Choose one of the listed options."),
        },
        FieldKind::MultiSelect {
            options,
            min_items,
            max_items,
            ..
        } => check_multi(field, value, options, *min_items, *max_items),
        FieldKind::List {
            item,
            min_items,
            max_items,
            ..
        } => check_list(field, value, item, *min_items, *max_items),
        FieldKind::Unsupported { .. } => Outcome::Omit, // handled above
    }
}

/// A list of free values: each one checked as its own text field (the same checks), rows left
/// empty dropped; the count within `minItems`/`maxItems`.
fn check_list(
    field: &Field,
    value: &Value,
    item: &FieldKind,
    min_items: Option<u64>,
    max_items: Option<u64>,
) -> Outcome {
    let Value::Array(items) = value else {
        return reject(TYPE, "Must be a list of values.");
    };
    let one = Field {
        name: field.name.clone(),
        title: None,
        description: None,
        required: true,
        kind: item.clone(),
        masked: false,
        other: None,
        other_of: None,
    };
    let mut issues = Vec::new();
    let mut kept = Vec::new();
    for (i, v) in items.iter().enumerate() {
        if v.as_str() == Some("") {
            continue;
        }
        match check_field(&one, Some(v), PatternRef::None) {
            Outcome::Accept(v) => kept.push(v),
            Outcome::Omit => {}
            Outcome::Reject(found) => issues.extend(
                found
                    .into_iter()
                    .map(|f| issue(f.code, format!("Value {}: {}", i + 1, f.message))),
            ),
        }
    }
    if kept.is_empty() && issues.is_empty() {
        return missing(field);
    }
    let count = kept.len() as u64;
    if let Some(min) = min_items
        && count < min
    {
        issues.push(issue(
            MIN_ITEMS,
            format!("Give at least {}.", plural(min, "value", "values")),
        ));
    }
    if let Some(max) = max_items
        && count > max
    {
        issues.push(issue(
            MAX_ITEMS,
            format!("Give at most {}.", plural(max, "value", "values")),
        ));
    }
    finish(issues, Value::Array(kept))
}

fn check_multi(
    field: &Field,
    value: &Value,
    options: &[EnumChoice],
    min_items: Option<u64>,
    max_items: Option<u64>,
) -> Outcome {
    let Value::Array(items) = value else {
        return reject(TYPE, "Must be a list of the listed options.");
    };
    if items.is_empty() && !field.required {
        return Outcome::Omit;
    }
    let valid: HashSet<&str> = options.iter().map(|o| o.value.as_str()).collect();
    let mut seen = HashSet::new();
    let (mut bad_type, mut bad_value, mut duplicate) = (false, false, false);
    for item in items {
        match item.as_str() {
            None => bad_type = true,
            Some(s) if !valid.contains(s) => bad_value = true,
            Some(s) => {
                if !seen.insert(s) {
                    duplicate = true;
                }
            }
        }
    }
    let mut issues = Vec::new();
    if bad_type {
        issues.push(issue(TYPE, "Each selection must be one of the listed options."));
    }
    if bad_value {
        issues.push(issue(ENUM, "Choose only from the listed options."));
    }
    if duplicate {
        issues.push(issue(UNIQUE_ITEMS, "Each option can be selected only once."));
    }
    let count = items.len() as u64;
    if let Some(min) = min_items
        && count < min
    {
        issues.push(issue(
            MIN_ITEMS,
            format!("Select at least {}.", plural(min, "option", "options")),
        ));
    }
    if let Some(max) = max_items
        && count > max
    {
        issues.push(issue(
            MAX_ITEMS,
            format!("Select at most {}.", plural(max, "option", "options")),
        ));
    }
    finish(issues, value.clone())
}

/// `Some(message)` when `s` does not have the format. Unknown formats are
/// annotations: never checked.
fn check_format(format: &StringFormat, s: &str) -> Option<&'static str> {
    let (ok, message) = match format {
        StringFormat::Email => (is_email(s), "Must be a valid email address."),
        StringFormat::Uri => (
            is_uri(s),
            "Must be a valid absolute URI, such as https://example.com/.",
        ),
        StringFormat::Date => (is_date(s), "Must be a valid date in the form YYYY-MM-DD."),
        StringFormat::DateTime => (
            is_date_time(s),
            "Must be a valid date and time with a time zone, such as 2025-01-31T14:30:00Z.",
        ),
        StringFormat::Other(_) => (true, ""),
    };
    (!ok).then_some(message)
}

/// Pragmatic address check: exactly one `@`; a non-empty dot-atom-like
/// local part (no whitespace, controls or specials, no leading, trailing or
/// doubled dots, at most 64 characters); a domain of at least two labels of
/// 1–63 letters, digits or inner hyphens (Unicode letters allowed), at most
/// 253 characters, whose last label is not all digits. Quoted local parts
/// and IP-literal domains are not accepted.
pub(super) fn is_email(s: &str) -> bool {
    let mut parts = s.split('@');
    let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.chars().count() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && !local.chars().any(|c| {
            c.is_whitespace()
                || c.is_control()
                || matches!(
                    c,
                    '"' | '(' | ')' | ',' | ':' | ';' | '<' | '>' | '[' | '\\' | ']'
                )
        });
    if !local_ok || domain.chars().count() > 253 {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            let n = label.chars().count();
            (1..=63).contains(&n)
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| !tld.chars().all(|c| c.is_ascii_digit()))
}

/// An absolute URI: no whitespace or control characters anywhere (the
/// `url` crate would silently strip them), and `url::Url::parse` accepts it
/// without a base (so it has a scheme).
pub(super) fn is_uri(s: &str) -> bool {
    !s.chars().any(|c| c.is_whitespace() || c.is_control())
        && Url::parse(s).is_ok_and(|u| !u.scheme().is_empty())
}

/// RFC 3339 `full-date`: exactly `YYYY-MM-DD` and a real calendar day
/// (leap years included), checked with the `time` crate.
pub(super) fn is_date(s: &str) -> bool {
    let Ok(bytes) = <[u8; 10]>::try_from(s.as_bytes()) else {
        return false;
    };
    let [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2] = bytes else {
        return false;
    };
    let digits = [y1, y2, y3, y4, m1, m2, d1, d2];
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let num = |ds: &[u8]| ds.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
    let (year, month, day) = (num(&digits[..4]), num(&digits[4..6]), num(&digits[6..]));
    let (Ok(year), Ok(month), Ok(day)) = (i32::try_from(year), u8::try_from(month), u8::try_from(day)) else {
        return false;
    };
    Month::try_from(month)
        .ok()
        .and_then(|m| Date::from_calendar_date(year, m, day).ok())
        .is_some()
}

/// RFC 3339 `date-time`: full-date, `T` (or `t`), full-time with seconds,
/// optional fraction, and `Z`/`z` or a numeric offset; valid calendar day
/// and time of day (a leap second only where one can occur). Parsed with
/// `time`'s `Rfc3339`; the separator is checked first because `time`
/// accepts any separator byte.
pub(super) fn is_date_time(s: &str) -> bool {
    matches!(s.as_bytes().get(10), Some(b'T' | b't'))
        && s.get(..10).is_some_and(is_date)
        && OffsetDateTime::parse(s, &Rfc3339).is_ok()
}

// ----- what each field accepts, in words -----
//
// Shown under the field before the user types: the same constraints the checks above enforce,
// worded beside them, so nobody learns them from an error message and the window and the CLI
// say the same thing.

impl FormSchema {
    /// Field name -> hint, for each field with a constraint worth stating.
    pub fn hints(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .filter_map(|f| hint(&f.kind).map(|h| (f.name.clone(), Value::String(h))))
            .collect()
    }
}

fn hint(kind: &FieldKind) -> Option<String> {
    let parts: Vec<String> = match kind {
        FieldKind::Text {
            min_length,
            max_length,
            pattern,
            format,
            ..
        } => [
            format.as_ref().map(format_hint),
            range(*min_length, *max_length).map(|r| format!("{r} characters")),
            pattern.as_ref().map(|p| format!("must match the pattern {p}")),
        ]
        .into_iter()
        .flatten()
        .collect(),
        FieldKind::Integer { minimum, maximum, .. } => {
            let range = range(*minimum, *maximum);
            vec![match range {
                Some(r) => format!("a whole number, {r}"),
                None => "a whole number".to_string(),
            }]
        }
        FieldKind::Number { minimum, maximum, .. } => {
            let show = |x: Option<f64>| x.map(|x| number_value(x).to_string());
            range(show(*minimum), show(*maximum))
                .map(|r| format!("a number, {r}"))
                .into_iter()
                .collect()
        }
        FieldKind::MultiSelect {
            min_items, max_items, ..
        } => match (min_items, max_items) {
            (Some(a), Some(b)) if a == b => vec![format!("choose {a}")],
            _ => range(*min_items, *max_items)
                .map(|r| format!("choose {r}"))
                .into_iter()
                .collect(),
        },
        FieldKind::List {
            item,
            min_items,
            max_items,
            ..
        } => {
            let count = range(*min_items, *max_items).unwrap_or_else(|| "any number of".to_string());
            let mut parts = vec![format!("{count} values, one a row")];
            parts.extend(hint(item).map(|h| format!("each: {}", h.trim_end_matches('.').to_lowercase())));
            parts
        }
        FieldKind::Boolean { .. } | FieldKind::SingleSelect { .. } | FieldKind::Unsupported { .. } => {
            Vec::new()
        }
    };
    let text = parts.join("; ");
    let mut chars = text.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

/// "2 to 40", "at least 2", "at most 40", or nothing.
fn range<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> Option<String> {
    match (min, max) {
        (Some(a), Some(b)) => Some(format!("{a} to {b}")),
        (Some(a), None) => Some(format!("at least {a}")),
        (None, Some(b)) => Some(format!("at most {b}")),
        (None, None) => None,
    }
}

fn format_hint(format: &StringFormat) -> String {
    match format {
        StringFormat::Email => "an email address, like name@example.com".into(),
        StringFormat::Uri => "a web address, like https://example.com/".into(),
        StringFormat::Date => "a date, YYYY-MM-DD".into(),
        StringFormat::DateTime => "a date and time, like 2026-12-31T23:59:00Z".into(),
        StringFormat::Other(name) => format!("in the format \"{name}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_form_schema;
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> FormSchema {
        match parse_form_schema(&v) {
            Ok(s) => s,
            Err(e) => panic!("schema should parse: {e}"),
        }
    }

    /// A free list: Porthole's own forms only.
    #[test]
    fn a_free_list_is_porthole_s_own_and_each_value_is_checked_as_a_text_field() {
        let list = json!({"type": "object", "required": ["dirs"], "properties": {"dirs": {
            "type": "array", "title": "Folders", "maxItems": 2, "default": ["/a"],
            "items": {"type": "string", "maxLength": 5}}}});
        // An agent's or a server's form: not a control this client renders.
        for from_outside in [
            list.clone(),
            json!({"type": "object", "properties": {"x": {"type": "array", "items": {"type": "string"}}}}),
        ] {
            let s = super::super::parse_form_schema(&from_outside).unwrap();
            assert!(s.fields[0].kind.is_unsupported(), "{:?}", s.fields[0].kind);
        }
        let s = super::super::parse_own_form_schema(&list).unwrap();
        assert!(
            matches!(s.fields[0].kind, FieldKind::List { .. }),
            "{:?}",
            s.fields[0].kind
        );
        assert_eq!(s.initial_values()["dirs"], json!(["/a"]));
        assert_eq!(
            s.hints()["dirs"],
            json!("At most 2 values, one a row; each: at most 5 characters.")
        );
        let check = |v: Value| s.validate(&content(json!({"dirs": v})));
        // Rows left empty are dropped; the values kept are what is sent.
        let ok = check(json!(["/a", "", "/b"]));
        assert!(ok.is_valid(), "{:?}", ok.errors);
        assert_eq!(ok.content["dirs"], json!(["/a", "/b"]));
        // Each value by the text field's own checks, named by its row.
        let bad = check(json!(["/a", "/too-long"]));
        assert_eq!(bad.errors.len(), 1);
        assert_eq!(bad.errors[0].message, "Value 2: Must be at most 5 characters.");
        assert_eq!(check(json!(["/a", "/b", "/c"])).errors[0].code, MAX_ITEMS);
        assert_eq!(check(json!(["", ""])).errors[0].code, REQUIRED);
        assert_eq!(check(json!("/a")).errors[0].code, TYPE);
        assert_eq!(check(json!([3])).errors[0].code, TYPE);
        // A pattern on a list's values is refused (its values are not vetted against one).
        let mut with_pattern = list.clone();
        with_pattern["properties"]["dirs"]["items"]["pattern"] = json!("^/");
        assert!(super::super::parse_own_form_schema(&with_pattern).is_err());
    }

    fn one(p: Value, required: bool) -> FormSchema {
        let req = if required { json!(["f"]) } else { json!([]) };
        schema(json!({"type": "object", "properties": {"f": p}, "required": req}))
    }

    fn content(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            other => panic!("object expected: {other}"),
        }
    }

    fn codes_of(s: &FormSchema, v: Value) -> Vec<&'static str> {
        s.validate(&content(json!({"f": v})))
            .errors
            .iter()
            .map(|e| e.code)
            .collect()
    }

    fn accepts(s: &FormSchema, v: Value) -> Value {
        let r = s.validate(&content(json!({"f": v})));
        assert!(r.is_valid(), "expected valid: {:?}", r.errors);
        r.content.get("f").cloned().unwrap_or(Value::Null)
    }

    // --- required / absent --------------------------------------------------

    #[test]
    fn required_absent_and_null() {
        let s = one(json!({"type": "string"}), true);
        let r = s.validate(&Map::new());
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].code, REQUIRED);
        assert_eq!(r.errors[0].field, "f");
        assert_eq!(r.errors[0].message, "This field is required.");
        assert_eq!(codes_of(&s, Value::Null), [REQUIRED]);
    }

    #[test]
    fn required_text_empty_string_is_missing() {
        let s = one(json!({"type": "string"}), true);
        assert_eq!(codes_of(&s, json!("")), [REQUIRED]);
        // Whitespace is a value.
        assert_eq!(accepts(&s, json!(" ")), json!(" "));
    }

    #[test]
    fn optional_empty_text_is_omitted() {
        let s = one(
            json!({"type": "string", "format": "email", "minLength": 3}),
            false,
        );
        let r = s.validate(&content(json!({"f": ""})));
        assert!(r.is_valid());
        assert!(r.content.is_empty());
    }

    #[test]
    fn optional_absent_and_null_are_omitted() {
        let s = schema(json!({"properties": {
            "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"},
            "d": {"type": "array", "items": {"enum": ["x"]}}
        }}));
        let r = s.validate(&content(json!({"b": null})));
        assert!(r.is_valid());
        assert!(r.content.is_empty());
    }

    #[test]
    fn required_boolean_must_be_sent() {
        let s = one(json!({"type": "boolean"}), true);
        assert_eq!(s.validate(&Map::new()).errors[0].code, REQUIRED);
        assert_eq!(accepts(&s, json!(false)), json!(false));
        assert_eq!(codes_of(&s, json!("false")), [TYPE]);
        assert_eq!(codes_of(&s, json!(0)), [TYPE]);
    }

    // --- text -----------------------------------------------------------------

    #[test]
    fn text_type_error() {
        let s = one(json!({"type": "string"}), false);
        for v in [json!(5), json!(true), json!(["a"]), json!({"a": 1})] {
            assert_eq!(codes_of(&s, v), [TYPE]);
        }
    }

    #[test]
    fn text_length_counts_chars() {
        let s = one(json!({"type": "string", "minLength": 3, "maxLength": 4}), false);
        let r = s.validate(&content(json!({"f": "ab"})));
        assert_eq!(r.errors[0].code, MIN_LENGTH);
        assert_eq!(r.errors[0].message, "Must be at least 3 characters.");
        let r = s.validate(&content(json!({"f": "abcde"})));
        assert_eq!(r.errors[0].code, MAX_LENGTH);
        assert_eq!(r.errors[0].message, "Must be at most 4 characters.");
        // 3 chars, 9 bytes.
        assert_eq!(accepts(&s, json!("日本語")), json!("日本語"));
        // Emoji are one scalar value each.
        assert_eq!(accepts(&s, json!("😀😀😀😀")), json!("😀😀😀😀"));
        let s = one(json!({"type": "string", "minLength": 1}), false);
        assert_eq!(
            s.validate(&content(json!({"f": " "}))).errors.len(),
            0,
            "one char"
        );
        let s = one(json!({"type": "string", "maxLength": 1}), false);
        assert_eq!(
            s.validate(&content(json!({"f": "ab"}))).errors[0].message,
            "Must be at most 1 character."
        );
    }

    #[test]
    fn text_pattern_is_unanchored_search() {
        let s = one(json!({"type": "string", "pattern": "b+"}), false);
        assert_eq!(accepts(&s, json!("abbbc")), json!("abbbc"));
        let r = s.validate(&content(json!({"f": "xyz"})));
        assert_eq!(r.errors[0].code, PATTERN);
        assert_eq!(r.errors[0].message, "Must match the required pattern.");
    }

    #[test]
    fn rfd_identifier_pattern() {
        let s = one(
            json!({"type": "string", "minLength": 1, "maxLength": 64,
                   "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$"}),
            true,
        );
        accepts(&s, json!("processData"));
        accepts(&s, json!("_x9"));
        assert_eq!(codes_of(&s, json!("9lives")), [PATTERN]);
        assert_eq!(codes_of(&s, json!("has space")), [PATTERN]);
        assert_eq!(codes_of(&s, json!("a".repeat(65))), [MAX_LENGTH]);
    }

    #[test]
    fn several_errors_for_one_field() {
        let s = one(
            json!({"type": "string", "minLength": 5, "pattern": "^\\d+$", "format": "email"}),
            false,
        );
        assert_eq!(codes_of(&s, json!("ab")), [MIN_LENGTH, PATTERN, FORMAT]);
        let r = s.validate(&content(json!({"f": "ab"})));
        assert!(r.content.is_empty(), "invalid values are not sent");
    }

    #[test]
    fn pathological_patterns_complete() {
        // No timing assertion: the regex crate matches in linear time.
        let value = "a".repeat(10 * 1024);
        let s = one(json!({"type": "string", "pattern": "(a*)*b"}), false);
        assert_eq!(codes_of(&s, json!(value)), [PATTERN]);
        let value = "x".repeat(10 * 1024);
        let s = one(json!({"type": "string", "pattern": "^(x+x+)+y$"}), false);
        assert_eq!(codes_of(&s, json!(value)), [PATTERN]);
        let s = one(json!({"type": "string", "pattern": "(x+x+)+y"}), false);
        assert_eq!(codes_of(&s, json!(format!("{value}y"))), Vec::<&str>::new());
    }

    #[test]
    fn pattern_input_is_capped_by_size_class() {
        // A tiny pattern is evaluated on long values...
        let s = one(json!({"type": "string", "pattern": "^[a-z]*$"}), false);
        let limit = s.pattern_input_limit("f").expect("limit");
        assert_eq!(limit, 256 << 10);
        accepts(&s, json!("a".repeat(limit)));
        // ...but not beyond the cap.
        let r = s.validate(&content(json!({"f": "a".repeat(limit + 1)})));
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].code, PATTERN);
        assert!(r.errors[0].message.starts_with("Too long"));
        // A pattern that compiles big gets a small cap (work = size × input).
        let s = one(json!({"type": "string", "pattern": "[01]*1[01]{10000}2"}), false);
        assert_eq!(s.pattern_input_limit("f"), Some(1 << 10));
        assert_eq!(codes_of(&s, json!("0".repeat(2000))), [PATTERN]);
        assert_eq!(s.pattern_input_limit("nope"), None);
        let s = one(json!({"type": "string"}), false);
        assert_eq!(s.pattern_input_limit("f"), None);
    }

    #[test]
    fn worst_case_pattern_evaluation_completes() {
        // A large compiled program (many alternatives, short minimum match)
        // on input that thrashes the lazy DFA, at the longest length the cap
        // allows: the slowest case the limits permit (~0.2 s in release).
        // Completes; no timing assertion.
        let alternatives: Vec<String> = (0..160).map(|i| format!("[01]*1[01]{{{}}}", 5 + i)).collect();
        let pattern = format!("(?:{})[a-z]", alternatives.join("|"));
        let s = one(json!({"type": "string", "pattern": pattern}), false);
        let limit = s.pattern_input_limit("f").expect("limit");
        assert_eq!(limit, 1 << 10);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let bits: String = (0..limit)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x & 1 == 0 { '0' } else { '1' }
            })
            .collect();
        assert_eq!(codes_of(&s, json!(bits)), [PATTERN]);
    }

    #[test]
    fn pattern_recompiled_if_fields_modified() {
        let mut s = one(json!({"type": "string", "pattern": "^a$"}), false);
        if let FieldKind::Text { pattern, .. } = &mut s.fields[0].kind {
            *pattern = Some("^b$".into());
        }
        accepts(&s, json!("b"));
        assert_eq!(codes_of(&s, json!("a")), [PATTERN]);
        if let FieldKind::Text { pattern, .. } = &mut s.fields[0].kind {
            *pattern = Some("(?=x)".into());
        }
        assert_eq!(codes_of(&s, json!("x")), [PATTERN]);
    }

    #[test]
    fn unknown_format_is_not_checked() {
        let s = one(json!({"type": "string", "format": "x-color"}), false);
        accepts(&s, json!("not a color at all"));
    }

    #[test]
    fn email_format() {
        let s = one(json!({"type": "string", "format": "email"}), false);
        for ok in [
            "user@example.com",
            "first.last+tag@sub.example.co.uk",
            "a@b.io",
            "ü@bücher.de",
            "x_y-z@my-host.example",
        ] {
            accepts(&s, json!(ok));
        }
        for bad in [
            "plain",
            "@example.com",
            "user@",
            "user@localhost",
            "a@b@c.com",
            "us er@example.com",
            "user@exa mple.com",
            ".user@example.com",
            "user.@example.com",
            "us..er@example.com",
            "user@-example.com",
            "user@example-.com",
            "user@example..com",
            "user@example.com.",
            "user@1.2.3.4",
            "user@[127.0.0.1]",
            "a\"b@example.com",
        ] {
            assert_eq!(codes_of(&s, json!(bad)), [FORMAT], "{bad}");
        }
        let r = s.validate(&content(json!({"f": "nope"})));
        assert_eq!(r.errors[0].message, "Must be a valid email address.");
        assert!(!is_email(&format!("{}@example.com", "a".repeat(65))));
        assert!(!is_email(&format!("a@{}.com", "b".repeat(64))));
    }

    #[test]
    fn uri_format() {
        let s = one(json!({"type": "string", "format": "uri"}), false);
        for ok in [
            "https://example.com",
            "http://localhost:8080/path?q=1#frag",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "file:///tmp/x",
        ] {
            accepts(&s, json!(ok));
        }
        for bad in [
            "example.com",
            "/relative/path",
            "//example.com",
            "https://exa mple.com",
            " https://example.com",
            "https://example.com\n",
            "http://",
            "",
        ] {
            let codes = codes_of(&s, json!(bad));
            if bad.is_empty() {
                assert!(codes.is_empty(), "empty optional text is omitted");
            } else {
                assert_eq!(codes, [FORMAT], "{bad}");
            }
        }
    }

    #[test]
    fn date_format() {
        let s = one(json!({"type": "string", "format": "date"}), false);
        for ok in ["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"] {
            accepts(&s, json!(ok));
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-00",
            "2024-1-01",
            "24-01-01",
            "2024/01/01",
            "+2024-01-01",
            "2024-01-01T00:00:00Z",
            "２０２４-01-01",
            "2024-01-0١",
        ] {
            assert_eq!(codes_of(&s, json!(bad)), [FORMAT], "{bad}");
        }
    }

    #[test]
    fn date_time_format() {
        let s = one(json!({"type": "string", "format": "date-time"}), false);
        for ok in [
            "2024-02-29T12:30:00Z",
            "2024-02-29t12:30:00z",
            "2024-01-01T00:00:00.123456789+05:30",
            "2024-01-01T23:59:59-08:00",
            "1998-12-31T23:59:60Z",
        ] {
            accepts(&s, json!(ok));
        }
        for bad in [
            "2024-01-01",
            "2024-01-01T12:30Z",
            "2024-01-01T12:30:00",
            "2024-01-01 12:30:00Z",
            "2024-01-01X12:30:00Z",
            "2023-02-29T12:30:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T12:60:00Z",
            "2024-01-01T12:30:00+24:00",
            "2024-01-01T12:30:00+05",
            "2024-01-01T12:30:00Zjunk",
            "1998-12-31T12:59:60Z",
            "2024-01-01T12:30:00.Z",
        ] {
            assert_eq!(codes_of(&s, json!(bad)), [FORMAT], "{bad}");
        }
    }

    // --- numbers --------------------------------------------------------------

    #[test]
    fn number_bounds_inclusive() {
        let s = one(json!({"type": "number", "minimum": 0, "maximum": 1.5}), false);
        assert_eq!(accepts(&s, json!(0)), json!(0));
        assert_eq!(accepts(&s, json!(1.5)), json!(1.5));
        assert_eq!(accepts(&s, json!(0.25)), json!(0.25));
        let r = s.validate(&content(json!({"f": -0.1})));
        assert_eq!(r.errors[0].code, MINIMUM);
        assert_eq!(r.errors[0].message, "Must be at least 0.");
        let r = s.validate(&content(json!({"f": 2})));
        assert_eq!(r.errors[0].code, MAXIMUM);
        assert_eq!(r.errors[0].message, "Must be at most 1.5.");
    }

    #[test]
    fn number_type_errors() {
        let s = one(json!({"type": "number"}), false);
        for v in [json!("5"), json!(true), json!([1])] {
            assert_eq!(codes_of(&s, v), [TYPE]);
        }
        assert_eq!(accepts(&s, json!(u64::MAX)), json!(u64::MAX));
        assert_eq!(accepts(&s, json!(-1e300)), json!(-1e300));
    }

    #[test]
    fn integer_normalization() {
        let s = one(json!({"type": "integer"}), false);
        let v = accepts(&s, json!(3.0));
        assert_eq!(v, json!(3));
        assert!(v.is_i64(), "3.0 is sent as the integer 3");
        assert_eq!(accepts(&s, json!(-0.0)), json!(0));
        assert_eq!(accepts(&s, json!(i64::MIN)), json!(i64::MIN));
        let r = s.validate(&content(json!({"f": 3.5})));
        assert_eq!(r.errors[0].code, TYPE);
        assert_eq!(r.errors[0].message, "Must be a whole number.");
        assert_eq!(codes_of(&s, json!("3")), [TYPE]);
        // Whole but out of range: an error, not a panic or a wrap.
        let r = s.validate(&content(json!({"f": u64::MAX})));
        assert_eq!(r.errors[0].code, TYPE);
        assert!(r.errors[0].message.contains("between"));
        assert_eq!(codes_of(&s, json!(1e300)), [TYPE]);
    }

    #[test]
    fn integer_bounds() {
        let s = one(
            json!({"type": "integer", "minimum": 1024, "maximum": 65535}),
            true,
        );
        accepts(&s, json!(1024));
        accepts(&s, json!(65535));
        let r = s.validate(&content(json!({"f": 80})));
        assert_eq!(r.errors[0].code, MINIMUM);
        assert_eq!(r.errors[0].message, "Must be at least 1024.");
        assert_eq!(codes_of(&s, json!(65536.0)), [MAXIMUM]);
    }

    // --- selects --------------------------------------------------------------

    #[test]
    fn single_select() {
        let s = one(json!({"type": "string", "enum": ["Red", "Green"]}), true);
        assert_eq!(accepts(&s, json!("Green")), json!("Green"));
        let r = s.validate(&content(json!({"f": "red"})));
        assert_eq!(r.errors[0].code, ENUM);
        assert_eq!(r.errors[0].message, "Choose one of the listed options.");
        assert_eq!(codes_of(&s, json!(1)), [TYPE]);
        assert_eq!(codes_of(&s, json!("")), [REQUIRED], "\"\" is no selection");
        let optional = one(json!({"type": "string", "enum": ["a"]}), false);
        assert!(optional.validate(&content(json!({"f": ""}))).is_valid());
        // ... unless "" is itself an option.
        let with_empty = one(json!({"type": "string", "enum": ["", "a"]}), true);
        assert_eq!(accepts(&with_empty, json!("")), json!(""));
        let s = one(
            json!({"type": "string", "oneOf": [{"const": "#F00", "title": "Red"}]}),
            false,
        );
        accepts(&s, json!("#F00"));
        assert_eq!(codes_of(&s, json!("Red")), [ENUM], "titles are not values");
    }

    #[test]
    fn multi_select() {
        let s = one(
            json!({"type": "array", "minItems": 1, "maxItems": 2,
                   "items": {"type": "string", "enum": ["Red", "Green", "Blue"]}}),
            false,
        );
        assert_eq!(accepts(&s, json!(["Blue", "Red"])), json!(["Blue", "Red"]));
        let r = s.validate(&content(json!({"f": ["Red", "Green", "Blue"]})));
        assert_eq!(r.errors[0].code, MAX_ITEMS);
        assert_eq!(r.errors[0].message, "Select at most 2 options.");
        assert_eq!(codes_of(&s, json!(["Red", "Red"])), [UNIQUE_ITEMS]);
        assert_eq!(codes_of(&s, json!(["Purple"])), [ENUM]);
        assert_eq!(codes_of(&s, json!([1])), [TYPE]);
        assert_eq!(codes_of(&s, json!("Red")), [TYPE]);
        // Optional and empty: no answer, omitted.
        let r = s.validate(&content(json!({"f": []})));
        assert!(r.is_valid());
        assert!(r.content.is_empty());
    }

    #[test]
    fn required_multi_select_empty() {
        let s = one(json!({"type": "array", "items": {"enum": ["a", "b"]}}), true);
        assert_eq!(accepts(&s, json!([])), json!([]));
        assert_eq!(s.validate(&Map::new()).errors[0].code, REQUIRED);
        let s = one(
            json!({"type": "array", "minItems": 1, "items": {"enum": ["a", "b"]}}),
            true,
        );
        let r = s.validate(&content(json!({"f": []})));
        assert_eq!(r.errors[0].code, MIN_ITEMS);
        assert_eq!(r.errors[0].message, "Select at least 1 option.");
    }

    #[test]
    fn titled_multi_select_values() {
        let s = one(
            json!({"type": "array", "items": {"anyOf": [
                {"const": "#F00", "title": "Red"}, {"const": "#0F0", "title": "Green"}
            ]}}),
            false,
        );
        accepts(&s, json!(["#0F0"]));
        assert_eq!(codes_of(&s, json!(["Green"])), [ENUM]);
    }

    // --- unknown / unsupported ------------------------------------------------

    #[test]
    fn unknown_fields_are_dropped_and_reported() {
        let s = one(json!({"type": "string"}), false);
        let r = s.validate(&content(json!({"f": "ok", "extra": 1, "other": null})));
        assert_eq!(r.content, content(json!({"f": "ok"})));
        let unknown: Vec<_> = r.errors.iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(unknown, [("extra", UNKNOWN_FIELD), ("other", UNKNOWN_FIELD)]);
        assert!(!r.is_valid());
    }

    #[test]
    fn unsupported_optional_field() {
        let s = schema(json!({"properties": {
            "a": {"type": "string"}, "w": {"type": "_widget"}
        }}));
        let r = s.validate(&content(json!({"a": "x"})));
        assert!(r.is_valid());
        assert_eq!(r.content, content(json!({"a": "x"})));
        let r = s.validate(&content(json!({"a": "x", "w": {"any": "thing"}})));
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].code, UNSUPPORTED);
        assert!(!r.content.contains_key("w"));
    }

    #[test]
    fn unsupported_required_field_always_errors() {
        let s = schema(json!({
            "properties": {"w": {"type": "array", "items": {"type": "_custom"}}},
            "required": ["w"]
        }));
        for c in [json!({}), json!({"w": ["x"]})] {
            let r = s.validate(&content(c));
            assert_eq!(r.errors.len(), 1);
            assert_eq!(r.errors[0].code, UNSUPPORTED);
            assert!(r.errors[0].message.contains("cannot be submitted"));
            assert!(r.errors[0].message.contains("_custom"), "{}", r.errors[0].message);
        }
    }

    // --- whole forms ----------------------------------------------------------

    #[test]
    fn rfd_example_4_round_trip() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Project Name"},
                "port": {"type": "integer", "title": "Port Number", "minimum": 1024,
                         "maximum": 65535, "default": 3000},
                "enableLogging": {"type": "boolean", "title": "Enable Logging", "default": true}
            },
            "required": ["name"]
        }));
        let init = s.initial_values();
        assert_eq!(init, content(json!({"port": 3000, "enableLogging": true})));
        let r = s.validate(&init);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].field, "name");
        let mut c = init.clone();
        c.insert("name".into(), json!("porthole"));
        c.insert("port".into(), json!(8080.0));
        let r = s.validate(&c);
        assert!(r.is_valid(), "{:?}", r.errors);
        assert_eq!(
            serde_json::to_string(&r.content).ok().as_deref(),
            Some(r#"{"name":"porthole","port":8080,"enableLogging":true}"#),
            "field order, integer normalization"
        );
    }

    #[test]
    fn initial_values_never_guess() {
        let s = schema(json!({
            "properties": {
                "strategy": {"type": "string", "enum": ["a", "b"]},
                "agree": {"type": "boolean"},
                "n": {"type": "number", "default": 50},
                "x": {"type": "number", "default": 0.5},
                "colors": {"type": "array", "items": {"enum": ["r", "g"]}, "default": ["g"]},
                "none": {"type": "array", "items": {"enum": ["r", "g"]}},
                "t": {"type": "string", "default": "hi"},
                "w": {"type": "_w", "default": "x"},
                "bad": {"type": "string", "enum": ["a"], "default": "z"}
            },
            "required": ["strategy", "agree"]
        }));
        let init = s.initial_values();
        assert_eq!(
            init,
            content(json!({"n": 50, "x": 0.5, "colors": ["g"], "t": "hi"}))
        );
        assert!(init.get("n").is_some_and(Value::is_i64));
        assert!(!init.contains_key("strategy"));
        assert!(!init.contains_key("agree"));
        // Initial values always validate (apart from missing required ones).
        let r = s.validate(&init);
        let codes: Vec<_> = r.errors.iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(codes, [("strategy", REQUIRED), ("agree", REQUIRED)]);
    }

    #[test]
    fn empty_form_validates_empty_content() {
        let s = schema(json!({"type": "object"}));
        let r = s.validate(&Map::new());
        assert!(r.is_valid());
        assert!(r.content.is_empty());
    }

    #[test]
    fn validation_serializes_for_ui() {
        let s = one(json!({"type": "string", "minLength": 3}), true);
        let r = s.validate(&content(json!({"f": "ab"})));
        let v = serde_json::to_value(&r).expect("serialize");
        assert_eq!(
            v,
            json!({"content": {}, "errors": [
                {"field": "f", "code": "minLength", "message": "Must be at least 3 characters."}
            ]})
        );
        assert_eq!(r.errors_for("f").count(), 1);
        assert_eq!(r.errors_for("g").count(), 0);
    }

    // --- no panics on arbitrary input -----------------------------------------

    /// Tiny deterministic generator (xorshift) for a fuzz-style smoke test
    /// without extra dependencies.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            let i = usize::try_from(self.below(xs.len() as u64)).unwrap_or(0);
            xs.get(i).copied().unwrap_or("")
        }
    }

    const KEYS: &[&str] = &[
        "type",
        "properties",
        "required",
        "title",
        "description",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "default",
        "enum",
        "oneOf",
        "anyOf",
        "items",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "const",
        "a",
        "b",
    ];
    const STRINGS: &[&str] = &[
        "string",
        "number",
        "integer",
        "boolean",
        "array",
        "object",
        "_x",
        "email",
        "uri",
        "date",
        "date-time",
        "a",
        "b",
        "",
        "(a*)*b",
        "(?=x)",
        "[",
        "^a$",
        "2024-02-29",
        "x@y.io",
        "https://e.com",
        "é😀",
    ];

    fn gen_value(r: &mut Rng, depth: u32) -> Value {
        let choice = if depth == 0 { r.below(6) } else { r.below(8) };
        match choice {
            0 => Value::Null,
            1 => Value::Bool(r.below(2) == 0),
            2 => json!(r.next() as i64 >> r.below(64)),
            3 => serde_json::Number::from_f64(f64::from_bits(r.next())).map_or(json!(1.5), Value::Number),
            4 => json!(r.pick(STRINGS)),
            5 => json!(u64::MAX - r.below(3)),
            6 => Value::Array((0..r.below(4)).map(|_| gen_value(r, depth - 1)).collect()),
            _ => {
                let mut m = Map::new();
                for _ in 0..r.below(6) {
                    let k = r.pick(KEYS).to_owned();
                    m.insert(k, gen_value(r, depth - 1));
                }
                Value::Object(m)
            }
        }
    }

    #[test]
    fn random_schemas_and_content_never_panic() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let mut parsed = 0;
        for _ in 0..4000 {
            let mut props = Map::new();
            for _ in 0..r.below(5) {
                let key = r.pick(KEYS).to_owned();
                let mut p = match gen_value(&mut r, 3) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                if r.below(4) != 0 {
                    p.insert("type".into(), json!(r.pick(STRINGS)));
                }
                props.insert(key, Value::Object(p));
            }
            let mut schema = json!({"type": "object", "properties": props});
            if r.below(3) == 0
                && let Some(obj) = schema.as_object_mut()
            {
                obj.insert("required".into(), gen_value(&mut r, 1));
            }
            if let Ok(s) = parse_form_schema(&schema) {
                parsed += 1;
                let _ = s.initial_values();
                let _ = s.blocking_reason();
                let _ = serde_json::to_string(&s);
                for _ in 0..4 {
                    let c = match gen_value(&mut r, 3) {
                        Value::Object(m) => m,
                        _ => Map::new(),
                    };
                    let v = s.validate(&c);
                    // Whatever validation keeps must validate again.
                    let again = s.validate(&v.content);
                    assert!(
                        again
                            .errors
                            .iter()
                            .all(|e| e.code == REQUIRED || e.code == UNSUPPORTED),
                        "{:?}",
                        again.errors
                    );
                    assert_eq!(again.content, v.content);
                }
                let _ = super::super::secrets::secret_indicators("m", &s);
            }
        }
        assert!(
            parsed > 100,
            "generator should produce valid schemas too ({parsed})"
        );
    }
}

#[cfg(test)]
mod hint_tests {
    use serde_json::json;

    use crate::form::parse_form_schema;

    fn hints(properties: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        parse_form_schema(&json!({"type": "object", "properties": properties}))
            .unwrap()
            .hints()
    }

    #[test]
    fn states_each_constraint_the_validator_enforces() {
        let h = hints(json!({
            "name": {"type": "string", "minLength": 2, "maxLength": 40},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
            "mail": {"type": "string", "format": "email"},
            "day": {"type": "string", "format": "date"},
            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
            "count": {"type": "integer"},
            "ratio": {"type": "number", "minimum": 0, "maximum": 0.5},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2},
            "pair": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 2, "maxItems": 2},
            "free": {"type": "string"},
            "ok": {"type": "boolean"},
            "pick": {"type": "string", "enum": ["x", "y"]}
        }));
        assert_eq!(h["name"], "2 to 40 characters.");
        assert_eq!(
            h["code"],
            "At most 3 characters; must match the pattern ^[A-Z]{3}$."
        );
        assert_eq!(h["mail"], "An email address, like name@example.com.");
        assert_eq!(h["day"], "A date, YYYY-MM-DD.");
        assert_eq!(h["port"], "A whole number, 1 to 65535.");
        assert_eq!(h["count"], "A whole number.");
        assert_eq!(h["ratio"], "A number, 0 to 0.5.");
        assert_eq!(h["tags"], "Choose 1 to 2.");
        assert_eq!(h["pair"], "Choose 2.");
        for plain in ["free", "ok", "pick"] {
            assert!(!h.contains_key(plain), "{plain}: {:?}", h.get(plain));
        }
    }
}
