//! The restricted JSON Schema model used by form-mode elicitations: the types a UI renders,
//! the limits, and the compiled patterns. `parse.rs` builds it from an agent's (untrusted)
//! `requestedSchema`; `validate.rs` checks what the user wants to send against it.
//!
//! Parsing is total: every input either yields a [`FormSchema`] or a
//! [`SchemaError`] whose message names the offending property. Nothing here
//! panics on agent data.
//!
//! Reader tolerance (from the ACP elicitation RFD):
//! * the top-level `type` is never inspected: omitted, `null`, malformed or a
//!   different string are all read as `"object"`;
//! * omitted `properties` is an empty map, but `properties: null` (or any
//!   non-object) is an error;
//! * for every optional keyword, `null` means the same as omitted;
//! * a non-string `title`/`description` (schema, property or option) is
//!   ignored, as is a non-string `format`;
//! * unknown property `type`s and unknown array `items.type`s become
//!   [`FieldKind::Unsupported`] with the raw property schema preserved;
//! * unknown string `format`s are preserved as [`StringFormat::Other`] and
//!   never rejected;
//! * keywords that do not apply to the chosen control (e.g. `minLength` on an
//!   `enum` property, `exclusiveMinimum`, `multipleOf`) are ignored; they
//!   stay in [`FormSchema::raw`].
//!
//! Defaults are checked at parse time with the same code that validates
//! user input: a default that is of the wrong type, not among the options,
//! or otherwise invalid for its field is dropped (not an error). So a
//! `default` present in the model is always a valid value for its field.

use std::collections::HashMap;
use std::fmt;

use regex::{Regex, RegexBuilder};
use serde::{Serialize, Serializer};
use serde_json::{Number, Value};

/// At most this many properties in one form.
pub const MAX_PROPERTIES: usize = 256;
/// At most this many options in one single- or multi-select.
pub const MAX_OPTIONS: usize = 1024;
/// Option values, option titles and property names: at most this many
/// characters (Unicode scalar values).
pub const MAX_VALUE_CHARS: usize = 4096;
/// Titles and descriptions (schema and property level) and option
/// descriptions: at most this many bytes of UTF-8 (16 KiB).
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
/// `pattern`: at most this many characters.
pub const MAX_PATTERN_CHARS: usize = 4096;
/// Compiled-program (NFA) and lazy-DFA cache size limits for one
/// `pattern`, in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// The compiled size classes a pattern is charged for: the smallest
/// `size_limit` under which it compiles.
const PATTERN_TIERS: [usize; 5] = [4 << 10, 16 << 10, 64 << 10, 256 << 10, REGEX_SIZE_LIMIT];
/// All patterns of one form together: at most this many bytes of compiled
/// size classes (e.g. 16 patterns of the largest class, 256 of 64 KiB).
pub const MAX_TOTAL_PATTERN_SIZE: usize = 16 << 20;
/// Worst-case work for one pattern evaluation, in (compiled size class ×
/// input bytes). The `regex` crate is linear in the input, but the factor
/// is the size of the compiled program: a 20-character pattern such as
/// `[01]*1[01]{900}[a-z]` compiles to ~64 KiB and, on input that thrashes
/// the lazy DFA, falls back to simulating the whole program for every
/// byte. So values longer than `PATTERN_WORK_LIMIT / class` bytes are not
/// evaluated (a `pattern` error): 256 KiB for small patterns, 64 KiB, 16
/// KiB, 4 KiB, down to 1 KiB for the largest class. Measured worst case at
/// the cap: ~0.2–0.3 s per evaluation in a release build on a 2-core
/// machine; ordinary patterns take microseconds.
pub const PATTERN_WORK_LIMIT: usize = 1 << 30;
/// The same work measure for checking all `default`s of one form against
/// their patterns at parse time (agent-controlled on both sides). Defaults
/// that would exceed what is left are dropped unchecked.
pub const DEFAULT_PATTERN_WORK: usize = 1 << 30;

/// Property names, option values and the like are shortened to this many
/// characters when quoted inside messages.
pub(super) const QUOTE_CHARS: usize = 64;

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

/// A parsed form-mode `requestedSchema`.
///
/// Serializes (camelCase) as `{ "title", "description", "fields" }` for the
/// web UI; the raw schema and the compiled patterns are not serialized.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSchema {
    pub title: Option<String>,
    pub description: Option<String>,
    /// The fields, in the agent's property order.
    pub fields: Vec<Field>,
    /// The original `requestedSchema`, verbatim (for storing, replaying,
    /// proxying and forwarding).
    #[serde(skip)]
    pub(super) raw: Value,
    /// Compiled `pattern`s, keyed by field name. Compiled once, at parse time.
    #[serde(skip)]
    pub(super) patterns: HashMap<String, CompiledPattern>,
}

impl PartialEq for FormSchema {
    /// Compiled patterns are derived from `fields`, so they are not compared.
    fn eq(&self, other: &Self) -> bool {
        self.title == other.title
            && self.description == other.description
            && self.fields == other.fields
            && self.raw == other.raw
    }
}

/// One form field (one entry of `properties`).
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// The property name: the key used in the response `content`.
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// Listed in the schema's `required` array.
    pub required: bool,
    pub kind: FieldKind,
    /// The agent marked the value as secret (Codex's `_meta.codex.isSecret`): a UI masks it
    /// like a password, and the form is flagged as asking for a secret (`markers.rs`).
    pub masked: bool,
    /// For a single- or multi-select: the free-text "Other" answer that belongs to it, a
    /// field of its own that a UI shows inside this one, behind an "Other…" choice
    /// (`markers.rs` knows the agents' ways of saying so).
    pub other: Option<OtherAnswer>,
    /// This text field is the "Other" answer of the select named here, and is shown inside
    /// it rather than on its own.
    pub other_of: Option<String>,
}

/// The free-text "Other" answer of a select question: a text field of the same form, which
/// is validated and sent like any other field, under its own name.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherAnswer {
    /// The text field that holds the typed answer.
    pub field: String,
    /// The option of the select that stands for "Other" (Codex's "None of the above"): chosen
    /// with it. `None`: choosing "Other…" leaves a single select empty (its answer is the text).
    pub choice: Option<String>,
}

impl Field {
    /// The label a UI should show: the title, else the property name.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

/// What control a field is, with its constraints.
///
/// Serialized internally tagged: `{"type": "text", "minLength": 1, ...}`,
/// `{"type": "singleSelect", ...}`, `{"type": "unsupported", "typeName": ...}`.
/// Absent optional constraints serialize as `null`.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum FieldKind {
    /// `type: "string"` without `enum`/`oneOf`.
    Text {
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<String>,
        /// Serialized as its keyword (`email`, `uri`, ...), unknown formats kept as they are.
        #[cfg_attr(any(test, feature = "ts"), ts(type = "string | null"))]
        format: Option<StringFormat>,
        default: Option<String>,
    },
    /// `type: "number"`.
    Number {
        minimum: Option<f64>,
        maximum: Option<f64>,
        default: Option<f64>,
    },
    /// `type: "integer"`.
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
        default: Option<i64>,
    },
    /// `type: "boolean"`.
    Boolean { default: Option<bool> },
    /// `type: "string"` with `enum` (untitled) or `oneOf` of
    /// `{const, title, description}` (titled).
    SingleSelect {
        options: Vec<EnumChoice>,
        titled: bool,
        default: Option<String>,
    },
    /// `type: "array"` with `items.enum` (untitled) or `items.anyOf`
    /// (titled). An empty `default` means no default.
    MultiSelect {
        options: Vec<EnumChoice>,
        titled: bool,
        min_items: Option<u64>,
        max_items: Option<u64>,
        default: Vec<String>,
    },
    /// `type: "array"` of free strings (no `items.enum`/`anyOf`), each value checked as the
    /// text field `item` describes: a list the person writes, a row each. Only in forms
    /// Porthole writes itself ([`crate::form::parse_own_form_schema`]: an MCP Registry entry's
    /// repeated argument, an MCP bundle's `multiple` folders); MCP and ACP elicitation have no
    /// free lists, so an agent's or a server's schema of this shape stays
    /// [`FieldKind::Unsupported`]. An empty `default` means no default.
    List {
        /// The constraints of each value: a [`FieldKind::Text`] (no `pattern`).
        #[cfg_attr(any(test, feature = "ts"), ts(type = "FieldKind"))]
        item: Box<FieldKind>,
        min_items: Option<u64>,
        max_items: Option<u64>,
        default: Vec<String>,
    },
    /// A property this client does not understand (unknown `type`, missing
    /// or non-string `type`, or an array whose items are not a string
    /// enum). Preserved raw; MUST NOT be rendered as a known input control.
    Unsupported {
        /// The property's `type` as written (`""` when it was missing; the
        /// compact JSON when it was not a string).
        type_name: String,
        /// Why it is unsupported, for a human.
        reason: String,
        /// The raw property schema, verbatim.
        #[cfg_attr(any(test, feature = "ts"), ts(type = "unknown"))]
        raw: Value,
    },
}

impl FieldKind {
    /// True for [`FieldKind::Unsupported`].
    pub fn is_unsupported(&self) -> bool {
        matches!(self, FieldKind::Unsupported { .. })
    }
}

/// A string `format`. Unknown formats are kept verbatim in `Other` and are
/// never checked. Serializes as the plain format string (`"date-time"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StringFormat {
    Email,
    Uri,
    Date,
    DateTime,
    Other(String),
}

impl StringFormat {
    /// Map a `format` keyword value (case-sensitive, as in JSON Schema).
    pub fn from_name(name: &str) -> Self {
        match name {
            "email" => StringFormat::Email,
            "uri" => StringFormat::Uri,
            "date" => StringFormat::Date,
            "date-time" => StringFormat::DateTime,
            other => StringFormat::Other(other.to_owned()),
        }
    }

    /// The `format` keyword value.
    pub fn as_str(&self) -> &str {
        match self {
            StringFormat::Email => "email",
            StringFormat::Uri => "uri",
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
            StringFormat::Other(s) => s,
        }
    }
}

impl fmt::Display for StringFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StringFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One option of a single- or multi-select.
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnumChoice {
    /// The value sent in `content`.
    pub value: String,
    /// Human-readable label (titled selects only). When `None` the UI shows
    /// the value.
    pub title: Option<String>,
    pub description: Option<String>,
    /// A preview shown beside the option (Claude's `_meta["_claude/askUserQuestionOption"]
    /// .preview`: a mockup, a code snippet), plain text.
    pub preview: Option<String>,
}

impl EnumChoice {
    /// The label a UI should show: the title, else the value.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.value)
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// Why a `requestedSchema` was rejected. Messages are meant for humans and
/// name the property involved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    #[error("`requestedSchema` must be a JSON object")]
    NotAnObject,
    #[error("`properties` must be an object")]
    PropertiesNotObject,
    #[error("too many properties ({count} > {max})")]
    TooManyProperties { count: usize, max: usize },
    #[error("`required` must be an array of strings")]
    RequiredNotArray,
    #[error("`required[{index}]` must be a string")]
    RequiredEntryNotString { index: usize },
    #[error("required property `{name}` is not defined")]
    RequiredNotDefined { name: String },
    #[error("schema `{keyword}` is too long ({len} > {max} bytes)")]
    SchemaTextTooLong {
        keyword: &'static str,
        len: usize,
        max: usize,
    },
    #[error("property `{property}`: {problem}")]
    Property {
        /// The property name (shortened for display when very long).
        property: String,
        problem: PropertyProblem,
    },
}

/// What is wrong with one property schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PropertyProblem {
    #[error("property name is too long ({len} > {max} characters)")]
    NameTooLong { len: usize, max: usize },
    #[error("schema must be an object")]
    NotAnObject,
    #[error("`{keyword}` must be {expected}")]
    InvalidKeyword {
        keyword: &'static str,
        expected: &'static str,
    },
    #[error("`{min_keyword}` ({min}) is greater than `{max_keyword}` ({max})")]
    MinGreaterThanMax {
        min_keyword: &'static str,
        max_keyword: &'static str,
        min: String,
        max: String,
    },
    #[error("`{keyword}` is too long ({len} > {max} {unit})")]
    TextTooLong {
        keyword: String,
        len: usize,
        max: usize,
        unit: &'static str,
    },
    #[error("`pattern` is too long ({len} > {max} characters)")]
    PatternTooLong { len: usize, max: usize },
    #[error("`pattern` is not a supported regular expression: {error}")]
    InvalidPattern { error: String },
    #[error("`pattern` does not fit in the form's total pattern budget ({max} bytes compiled)")]
    PatternBudgetExceeded { max: usize },
    #[error("`{first}` and `{second}` cannot both be present")]
    ConflictingOptions {
        first: &'static str,
        second: &'static str,
    },
    #[error("`{keyword}` must list at least one option")]
    NoOptions { keyword: &'static str },
    #[error("`{keyword}` has too many options ({count} > {max})")]
    TooManyOptions {
        keyword: &'static str,
        count: usize,
        max: usize,
    },
    #[error("`{keyword}[{index}]` must be a string")]
    OptionNotString { keyword: &'static str, index: usize },
    #[error("`{keyword}[{index}]` must be an object with a string `const`")]
    InvalidOption { keyword: &'static str, index: usize },
    #[error("`{keyword}` lists the value `{value}` more than once")]
    DuplicateOption { keyword: &'static str, value: String },
    #[error("`minItems` ({min_items}) is greater than the number of options ({options})")]
    MinItemsExceedsOptions { min_items: u64, options: usize },
}

pub(super) fn property_error(name: &str, problem: PropertyProblem) -> SchemaError {
    SchemaError::Property {
        property: quote(name),
        problem,
    }
}

/// Shorten `s` for quoting in a message (at most [`QUOTE_CHARS`] characters
/// plus an ellipsis) and escape control characters.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == QUOTE_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------

/// How a text field's `pattern` is available to the validator.
pub(super) enum PatternRef<'a> {
    /// Not provided: compiled on the spot if the field has a pattern.
    None,
    Compiled(&'a CompiledPattern),
    Owned(CompiledPattern),
    /// The field has a pattern that cannot be compiled within limits.
    Broken,
}

/// A compiled `pattern` and the size class it was charged for.
#[derive(Debug, Clone)]
pub(super) struct CompiledPattern {
    pub(super) regex: Regex,
    /// One of [`PATTERN_TIERS`]: the `size_limit` it compiled under.
    pub(super) tier: usize,
}

impl CompiledPattern {
    /// The longest value (in bytes) this pattern is evaluated against.
    pub(super) fn max_input_bytes(&self) -> usize {
        PATTERN_WORK_LIMIT / self.tier.max(1)
    }
}

/// Build the regex for a `pattern` with the resource limits the RFD
/// demands: the `regex` crate matches in time linear in the input (no
/// backtracking blow-up), the compiled program is at most
/// [`REGEX_SIZE_LIMIT`] bytes and so is its lazy-DFA cache. The pattern is
/// tried under increasing size limits to find its size class (the cost
/// factor of every evaluation); the failed tries stop early at their limit.
pub(super) fn compile_pattern(pattern: &str) -> Result<CompiledPattern, regex::Error> {
    let mut result = Err(regex::Error::CompiledTooBig(REGEX_SIZE_LIMIT));
    for tier in PATTERN_TIERS {
        result = RegexBuilder::new(pattern)
            .size_limit(tier)
            .dfa_size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(|regex| CompiledPattern { regex, tier });
        match &result {
            Err(regex::Error::CompiledTooBig(_)) => continue,
            _ => break,
        }
    }
    result
}

/// [`compile_pattern`] after the length check; `None` when either fails.
pub(super) fn compile_bounded(pattern: &str) -> Option<CompiledPattern> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return None;
    }
    compile_pattern(pattern).ok()
}

/// The field's declared default as a JSON value (before validation).
pub(super) fn default_value(kind: &FieldKind) -> Option<Value> {
    match kind {
        FieldKind::Text { default, .. } | FieldKind::SingleSelect { default, .. } => {
            default.clone().map(Value::String)
        }
        FieldKind::Number { default, .. } => default.map(number_value),
        FieldKind::Integer { default, .. } => default.map(Value::from),
        FieldKind::Boolean { default } => default.map(Value::Bool),
        FieldKind::MultiSelect { default, .. } if !default.is_empty() => {
            Some(Value::Array(default.iter().cloned().map(Value::String).collect()))
        }
        FieldKind::List { default, .. } if !default.is_empty() => {
            Some(Value::Array(default.iter().cloned().map(Value::String).collect()))
        }
        FieldKind::MultiSelect { .. } | FieldKind::List { .. } | FieldKind::Unsupported { .. } => None,
    }
}

/// An `f64` as a JSON number; whole numbers that are exactly representable
/// are written as JSON integers (`50` rather than `50.0`).
pub(super) fn number_value(x: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if x.fract() == 0.0
        && x.abs() <= EXACT
        && let Some(i) = f64_to_i64(x)
    {
        return Value::from(i);
    }
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// `x` as an `i64` when it is a whole number within range.
pub(super) fn f64_to_i64(x: f64) -> Option<i64> {
    // -2^63 is exactly representable; 2^63 is the first value out of range.
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    const HIGH: f64 = 9_223_372_036_854_775_808.0;
    if x.is_finite() && x.fract() == 0.0 && (LOW..HIGH).contains(&x) {
        // In range and integral, so the cast is exact.
        Some(x as i64)
    } else {
        None
    }
}

/// A JSON number as an `i64` when it is mathematically an integer in range
/// (`3`, `3.0`; not `3.5`, not `2^63`).
pub(super) fn json_to_i64(n: &Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.is_u64() {
        return None; // > i64::MAX
    }
    n.as_f64().and_then(f64_to_i64)
}

impl FormSchema {
    /// The original `requestedSchema`, verbatim.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// The raw schema of one property, verbatim.
    pub fn raw_property(&self, name: &str) -> Option<&Value> {
        self.raw.get("properties")?.get(name)
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// False when a required field is [`FieldKind::Unsupported`]: such a
    /// form can only be declined or cancelled.
    pub fn can_accept(&self) -> bool {
        !self.fields.iter().any(|f| f.required && f.kind.is_unsupported())
    }

    /// Why the form cannot be accepted (see [`FormSchema::can_accept`]).
    pub fn blocking_reason(&self) -> Option<String> {
        let blocked: Vec<String> = self
            .fields
            .iter()
            .filter_map(|f| match &f.kind {
                FieldKind::Unsupported { reason, .. } if f.required => {
                    Some(format!("required field `{}`: {reason}", quote(&f.name)))
                }
                _ => None,
            })
            .collect();
        if blocked.is_empty() {
            return None;
        }
        Some(format!(
            "This form cannot be submitted because it requires input this client cannot collect ({}). You can decline or cancel it.",
            blocked.join("; ")
        ))
    }

    /// For a text field with a `pattern`: the longest value, in bytes of
    /// UTF-8, that is checked against it (longer values are a `pattern`
    /// error; see [`PATTERN_WORK_LIMIT`]). A UI may use it as an input
    /// limit.
    pub fn pattern_input_limit(&self, name: &str) -> Option<usize> {
        let field = self.field(name)?;
        match self.pattern_for(field) {
            PatternRef::Compiled(p) => Some(p.max_input_bytes()),
            PatternRef::Owned(p) => Some(p.max_input_bytes()),
            PatternRef::None | PatternRef::Broken => None,
        }
    }

    /// The compiled pattern for a text field. Normally the one compiled at
    /// parse time; if `fields` was modified after parsing, the current
    /// pattern is compiled again (with the same limits).
    pub(super) fn pattern_for(&self, field: &Field) -> PatternRef<'_> {
        let FieldKind::Text {
            pattern: Some(pattern),
            ..
        } = &field.kind
        else {
            return PatternRef::None;
        };
        if let Some(compiled) = self.patterns.get(&field.name)
            && compiled.regex.as_str() == pattern
        {
            return PatternRef::Compiled(compiled);
        }
        compile_bounded(pattern).map_or(PatternRef::Broken, PatternRef::Owned)
    }
}
