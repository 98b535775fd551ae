//! The parser that turns an agent's (untrusted) `requestedSchema` into a [`FormSchema`].
//! Total: every input yields a schema or a [`SchemaError`] naming the offending property; the
//! reader-tolerance rules are listed in `model.rs`. Defaults are checked here with the
//! validator's own code and dropped when invalid.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::model::*;
use super::validate::{Outcome, check_field};

/// What is left of the per-form pattern budgets while parsing.
struct Budget {
    pattern_bytes: usize,
    default_work: usize,
}

/// Parse an elicitation's `requestedSchema`.
pub fn parse_form_schema(requested_schema: &Value) -> Result<FormSchema, SchemaError> {
    parse(requested_schema, false)
}

/// Parse a form Porthole writes itself (an MCP Registry entry's add form): the same rules,
/// and arrays of free strings become [`FieldKind::List`]. Never for a schema from an agent or
/// an MCP server, whose elicitation has no free lists.
pub fn parse_own_form_schema(requested_schema: &Value) -> Result<FormSchema, SchemaError> {
    parse(requested_schema, true)
}

fn parse(requested_schema: &Value, lists: bool) -> Result<FormSchema, SchemaError> {
    let obj = requested_schema.as_object().ok_or(SchemaError::NotAnObject)?;
    // `type` is deliberately not read: readers treat anything as "object".

    let title = schema_text(obj, "title")?;
    let description = schema_text(obj, "description")?;

    let empty = Map::new();
    let properties = match obj.get("properties") {
        None => &empty,
        Some(Value::Object(map)) => map,
        Some(_) => return Err(SchemaError::PropertiesNotObject),
    };
    if properties.len() > MAX_PROPERTIES {
        return Err(SchemaError::TooManyProperties {
            count: properties.len(),
            max: MAX_PROPERTIES,
        });
    }

    let required = parse_required(obj.get("required"))?;
    // In array order, so the first undefined name is the one reported.
    if let Some(name) = required.iter().find(|n| !properties.contains_key(**n)) {
        return Err(SchemaError::RequiredNotDefined { name: quote(name) });
    }
    let required: HashSet<&str> = required.into_iter().collect();

    let mut fields = Vec::with_capacity(properties.len());
    let mut patterns = HashMap::new();
    let mut budget = Budget {
        pattern_bytes: MAX_TOTAL_PATTERN_SIZE,
        default_work: DEFAULT_PATTERN_WORK,
    };
    for (name, prop) in properties {
        let (field, regex) = parse_property(name, prop, required.contains(name.as_str()), &mut budget, lists)
            .map_err(|problem| property_error(name, problem))?;
        if let Some(regex) = regex {
            patterns.insert(name.clone(), regex);
        }
        fields.push(field);
    }
    super::markers::apply(&mut fields, properties);

    Ok(FormSchema {
        title,
        description,
        fields,
        raw: requested_schema.clone(),
        patterns,
    })
}

/// Top-level `title` / `description`: non-strings are ignored, over-long
/// strings are an error.
fn schema_text(obj: &Map<String, Value>, keyword: &'static str) -> Result<Option<String>, SchemaError> {
    match obj.get(keyword) {
        Some(Value::String(s)) if s.len() > MAX_TEXT_BYTES => Err(SchemaError::SchemaTextTooLong {
            keyword,
            len: s.len(),
            max: MAX_TEXT_BYTES,
        }),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        _ => Ok(None),
    }
}

fn parse_required(value: Option<&Value>) -> Result<Vec<&str>, SchemaError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(entries)) => entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                entry
                    .as_str()
                    .ok_or(SchemaError::RequiredEntryNotString { index })
            })
            .collect(),
        Some(_) => Err(SchemaError::RequiredNotArray),
    }
}

/// Property / option `title` and `description`: non-strings ignored,
/// over-long strings rejected.
fn property_text(
    obj: &Map<String, Value>,
    keyword: &str,
    label: impl FnOnce() -> String,
    max: usize,
    in_chars: bool,
) -> Result<Option<String>, PropertyProblem> {
    let Some(Value::String(s)) = obj.get(keyword) else {
        return Ok(None);
    };
    let len = if in_chars { s.chars().count() } else { s.len() };
    if len > max {
        return Err(PropertyProblem::TextTooLong {
            keyword: label(),
            len,
            max,
            unit: if in_chars { "characters" } else { "bytes" },
        });
    }
    Ok(Some(s.clone()))
}

fn parse_property(
    name: &str,
    prop: &Value,
    required: bool,
    budget: &mut Budget,
    lists: bool,
) -> Result<(Field, Option<CompiledPattern>), PropertyProblem> {
    let name_len = name.chars().count();
    if name_len > MAX_VALUE_CHARS {
        return Err(PropertyProblem::NameTooLong {
            len: name_len,
            max: MAX_VALUE_CHARS,
        });
    }
    let obj = prop.as_object().ok_or(PropertyProblem::NotAnObject)?;
    let title = property_text(obj, "title", || "title".into(), MAX_TEXT_BYTES, false)?;
    let description = property_text(obj, "description", || "description".into(), MAX_TEXT_BYTES, false)?;

    let (kind, regex) = match obj.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "string" => parse_string(obj, budget)?,
            "number" => (parse_number(obj)?, None),
            "integer" => (parse_integer(obj)?, None),
            "boolean" => (
                FieldKind::Boolean {
                    default: obj.get("default").and_then(Value::as_bool),
                },
                None,
            ),
            "array" => (parse_array(obj, prop, lists, budget)?, None),
            other => (
                unsupported(
                    other.to_owned(),
                    format!("properties of type `{}` are not supported", quote(other)),
                    prop,
                ),
                None,
            ),
        },
        None | Some(Value::Null) => (
            unsupported(String::new(), "the property has no `type`".into(), prop),
            None,
        ),
        Some(other) => (
            unsupported(
                quote(&other.to_string()),
                "`type` must be a single string".into(),
                prop,
            ),
            None,
        ),
    };

    let mut field = Field {
        name: name.to_owned(),
        title,
        description,
        required,
        kind,
        masked: false,
        other: None,
        other_of: None,
    };
    drop_invalid_default(&mut field, regex.as_ref(), &mut budget.default_work);
    Ok((field, regex))
}

fn unsupported(type_name: String, reason: String, raw: &Value) -> FieldKind {
    FieldKind::Unsupported {
        type_name,
        reason,
        raw: raw.clone(),
    }
}

/// Run the field's default through the validator; keep it only if it would
/// be accepted as user input. Pattern checks draw on `work` (see
/// [`DEFAULT_PATTERN_WORK`]); a default that does not fit is dropped.
fn drop_invalid_default(field: &mut Field, regex: Option<&CompiledPattern>, work: &mut usize) {
    let Some(default) = default_value(&field.kind) else {
        return;
    };
    let affordable = match (regex, &default) {
        (Some(p), Value::String(s)) => match p.tier.checked_mul(s.len()) {
            Some(cost) if cost <= *work => {
                *work -= cost;
                true
            }
            _ => false,
        },
        _ => true,
    };
    let pattern = regex.map_or(PatternRef::None, PatternRef::Compiled);
    if affordable && matches!(check_field(field, Some(&default), pattern), Outcome::Accept(_)) {
        return;
    }
    match &mut field.kind {
        FieldKind::Text { default, .. } | FieldKind::SingleSelect { default, .. } => *default = None,
        FieldKind::Number { default, .. } => *default = None,
        FieldKind::Integer { default, .. } => *default = None,
        FieldKind::Boolean { default } => *default = None,
        FieldKind::MultiSelect { default, .. } | FieldKind::List { default, .. } => default.clear(),
        FieldKind::Unsupported { .. } => {}
    }
}

/// A non-negative integer keyword (`minLength`, `maxItems`, ...). `null`
/// means absent. `3.0` is accepted as 3.
fn non_negative_int(obj: &Map<String, Value>, keyword: &'static str) -> Result<Option<u64>, PropertyProblem> {
    let invalid = PropertyProblem::InvalidKeyword {
        keyword,
        expected: "a non-negative integer",
    };
    match obj.get(keyword) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                return Ok(Some(u));
            }
            match n.as_f64() {
                // 2^64 is the first value out of range.
                Some(f) if f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f) => {
                    Ok(Some(f as u64))
                }
                _ => Err(invalid),
            }
        }
        Some(_) => Err(invalid),
    }
}

fn check_min_max<T: PartialOrd + ToString>(
    min: Option<T>,
    max: Option<T>,
    min_keyword: &'static str,
    max_keyword: &'static str,
) -> Result<(), PropertyProblem> {
    match (min, max) {
        (Some(min), Some(max)) if min > max => Err(PropertyProblem::MinGreaterThanMax {
            min_keyword,
            max_keyword,
            min: min.to_string(),
            max: max.to_string(),
        }),
        _ => Ok(()),
    }
}

fn is_present(obj: &Map<String, Value>, keyword: &str) -> bool {
    obj.get(keyword).is_some_and(|v| !v.is_null())
}

fn parse_string(
    obj: &Map<String, Value>,
    budget: &mut Budget,
) -> Result<(FieldKind, Option<CompiledPattern>), PropertyProblem> {
    let default = obj.get("default").and_then(Value::as_str).map(str::to_owned);
    let has_enum = is_present(obj, "enum");
    let has_one_of = is_present(obj, "oneOf");
    if has_enum && has_one_of {
        return Err(PropertyProblem::ConflictingOptions {
            first: "enum",
            second: "oneOf",
        });
    }
    if has_enum {
        let options = plain_options("enum", obj.get("enum"))?;
        return Ok((select(options, false, default), None));
    }
    if has_one_of {
        let options = titled_options("oneOf", obj.get("oneOf"))?;
        return Ok((select(options, true, default), None));
    }

    let min_length = non_negative_int(obj, "minLength")?;
    let max_length = non_negative_int(obj, "maxLength")?;
    check_min_max(min_length, max_length, "minLength", "maxLength")?;

    let (pattern, regex) = match obj.get("pattern") {
        None | Some(Value::Null) => (None, None),
        Some(Value::String(p)) => {
            let len = p.chars().count();
            if len > MAX_PATTERN_CHARS {
                return Err(PropertyProblem::PatternTooLong {
                    len,
                    max: MAX_PATTERN_CHARS,
                });
            }
            let compiled = compile_pattern(p).map_err(|e| PropertyProblem::InvalidPattern {
                error: regex_error_message(&e),
            })?;
            budget.pattern_bytes = budget.pattern_bytes.checked_sub(compiled.tier).ok_or(
                PropertyProblem::PatternBudgetExceeded {
                    max: MAX_TOTAL_PATTERN_SIZE,
                },
            )?;
            (Some(p.clone()), Some(compiled))
        }
        Some(_) => {
            return Err(PropertyProblem::InvalidKeyword {
                keyword: "pattern",
                expected: "a string",
            });
        }
    };

    let format = obj
        .get("format")
        .and_then(Value::as_str)
        .map(StringFormat::from_name);

    Ok((
        FieldKind::Text {
            min_length,
            max_length,
            pattern,
            format,
            default,
        },
        regex,
    ))
}

fn select(options: Vec<EnumChoice>, titled: bool, default: Option<String>) -> FieldKind {
    let default = default.filter(|d| options.iter().any(|o| &o.value == d));
    FieldKind::SingleSelect {
        options,
        titled,
        default,
    }
}

/// One line, for a UI: the `regex` crate's syntax errors are multi-line
/// diagrams; keep the explanation.
fn regex_error_message(error: &regex::Error) -> String {
    match error {
        regex::Error::CompiledTooBig(limit) => {
            format!("the compiled pattern exceeds the size limit of {limit} bytes")
        }
        other => {
            let text = other.to_string();
            text.lines()
                .rev()
                .find_map(|line| line.trim().strip_prefix("error: "))
                .map_or_else(
                    || text.split_whitespace().collect::<Vec<_>>().join(" "),
                    str::to_owned,
                )
        }
    }
}

fn check_option_count(keyword: &'static str, count: usize) -> Result<(), PropertyProblem> {
    if count == 0 {
        return Err(PropertyProblem::NoOptions { keyword });
    }
    if count > MAX_OPTIONS {
        return Err(PropertyProblem::TooManyOptions {
            keyword,
            count,
            max: MAX_OPTIONS,
        });
    }
    Ok(())
}

fn check_option_value<'a>(
    keyword: &'static str,
    index: usize,
    value: &'a str,
    seen: &mut HashSet<&'a str>,
) -> Result<(), PropertyProblem> {
    let len = value.chars().count();
    if len > MAX_VALUE_CHARS {
        return Err(PropertyProblem::TextTooLong {
            keyword: format!("{keyword}[{index}]"),
            len,
            max: MAX_VALUE_CHARS,
            unit: "characters",
        });
    }
    if !seen.insert(value) {
        return Err(PropertyProblem::DuplicateOption {
            keyword,
            value: quote(value),
        });
    }
    Ok(())
}

/// `enum` / `items.enum`: a non-empty array of distinct strings.
fn plain_options(keyword: &'static str, value: Option<&Value>) -> Result<Vec<EnumChoice>, PropertyProblem> {
    let Some(Value::Array(entries)) = value else {
        return Err(PropertyProblem::InvalidKeyword {
            keyword,
            expected: "an array of strings",
        });
    };
    check_option_count(keyword, entries.len())?;
    let mut seen = HashSet::new();
    let mut options = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let value = entry
            .as_str()
            .ok_or(PropertyProblem::OptionNotString { keyword, index })?;
        check_option_value(keyword, index, value, &mut seen)?;
        options.push(EnumChoice {
            value: value.to_owned(),
            title: None,
            description: None,
            preview: None,
        });
    }
    Ok(options)
}

/// `oneOf` / `items.anyOf`: a non-empty array of `{const, title?,
/// description?}` with distinct `const`s.
fn titled_options(keyword: &'static str, value: Option<&Value>) -> Result<Vec<EnumChoice>, PropertyProblem> {
    let Some(Value::Array(entries)) = value else {
        return Err(PropertyProblem::InvalidKeyword {
            keyword,
            expected: "an array of options",
        });
    };
    check_option_count(keyword, entries.len())?;
    let mut seen = HashSet::new();
    let mut options = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let invalid = PropertyProblem::InvalidOption { keyword, index };
        let obj = entry.as_object().ok_or_else(|| invalid.clone())?;
        let value = obj.get("const").and_then(Value::as_str).ok_or(invalid)?;
        check_option_value(keyword, index, value, &mut seen)?;
        let title = property_text(
            obj,
            "title",
            || format!("{keyword}[{index}].title"),
            MAX_VALUE_CHARS,
            true,
        )?;
        let description = property_text(
            obj,
            "description",
            || format!("{keyword}[{index}].description"),
            MAX_TEXT_BYTES,
            false,
        )?;
        options.push(EnumChoice {
            value: value.to_owned(),
            title,
            description,
            preview: super::markers::option_preview(obj),
        });
    }
    Ok(options)
}

fn parse_number(obj: &Map<String, Value>) -> Result<FieldKind, PropertyProblem> {
    let bound = |keyword: &'static str| match obj.get(keyword) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_f64().map(Some).ok_or(PropertyProblem::InvalidKeyword {
            keyword,
            expected: "a number",
        }),
        Some(_) => Err(PropertyProblem::InvalidKeyword {
            keyword,
            expected: "a number",
        }),
    };
    let minimum = bound("minimum")?;
    let maximum = bound("maximum")?;
    check_min_max(minimum, maximum, "minimum", "maximum")?;
    Ok(FieldKind::Number {
        minimum,
        maximum,
        default: obj.get("default").and_then(Value::as_f64),
    })
}

fn parse_integer(obj: &Map<String, Value>) -> Result<FieldKind, PropertyProblem> {
    let bound = |keyword: &'static str| match obj.get(keyword) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match json_to_i64(n) {
            Some(i) => Ok(Some(i)),
            None if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Err(PropertyProblem::InvalidKeyword {
                keyword,
                expected: "an integer within the 64-bit signed range",
            }),
            None => Err(PropertyProblem::InvalidKeyword {
                keyword,
                expected: "an integer",
            }),
        },
        Some(_) => Err(PropertyProblem::InvalidKeyword {
            keyword,
            expected: "an integer",
        }),
    };
    let minimum = bound("minimum")?;
    let maximum = bound("maximum")?;
    check_min_max(minimum, maximum, "minimum", "maximum")?;
    let default = match obj.get("default") {
        Some(Value::Number(n)) => json_to_i64(n),
        _ => None,
    };
    Ok(FieldKind::Integer {
        minimum,
        maximum,
        default,
    })
}

/// A list of free strings (Porthole's own forms only): each value a text field as `items`
/// says, without a `pattern`.
fn parse_list(
    obj: &Map<String, Value>,
    items: &Map<String, Value>,
    budget: &mut Budget,
) -> Result<FieldKind, PropertyProblem> {
    if is_present(items, "pattern") {
        return Err(PropertyProblem::InvalidKeyword {
            keyword: "items.pattern",
            expected: "absent (a list's values take no pattern)",
        });
    }
    let (item, _) = parse_string(items, budget)?;
    let min_items = non_negative_int(obj, "minItems")?;
    let max_items = non_negative_int(obj, "maxItems")?;
    check_min_max(min_items, max_items, "minItems", "maxItems")?;
    let default = match obj.get("default") {
        Some(Value::Array(entries)) => entries
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    Ok(FieldKind::List {
        item: Box::new(item),
        min_items,
        max_items,
        default,
    })
}

fn parse_array(
    obj: &Map<String, Value>,
    prop: &Value,
    lists: bool,
    budget: &mut Budget,
) -> Result<FieldKind, PropertyProblem> {
    let Some(Value::Object(items)) = obj.get("items") else {
        return Err(PropertyProblem::InvalidKeyword {
            keyword: "items",
            expected: "an object",
        });
    };
    match items.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) if t == "string" => {}
        Some(Value::String(t)) => {
            return Ok(unsupported(
                "array".into(),
                format!("array items of type `{}` are not supported", quote(t)),
                prop,
            ));
        }
        Some(_) => {
            return Ok(unsupported(
                "array".into(),
                "`items.type` must be a single string".into(),
                prop,
            ));
        }
    }
    let has_enum = is_present(items, "enum");
    let has_any_of = is_present(items, "anyOf");
    let (options, titled) = match (has_enum, has_any_of) {
        (true, true) => {
            return Err(PropertyProblem::ConflictingOptions {
                first: "items.enum",
                second: "items.anyOf",
            });
        }
        (true, false) => (plain_options("items.enum", items.get("enum"))?, false),
        (false, true) => (titled_options("items.anyOf", items.get("anyOf"))?, true),
        (false, false) if lists => return parse_list(obj, items, budget),
        (false, false) => {
            return Ok(unsupported(
                "array".into(),
                "arrays without `items.enum` or `items.anyOf` (free-form lists) are not supported".into(),
                prop,
            ));
        }
    };

    let min_items = non_negative_int(obj, "minItems")?;
    let max_items = non_negative_int(obj, "maxItems")?;
    check_min_max(min_items, max_items, "minItems", "maxItems")?;
    if let Some(min) = min_items
        && min > options.len() as u64
    {
        return Err(PropertyProblem::MinItemsExceedsOptions {
            min_items: min,
            options: options.len(),
        });
    }

    // Keep string entries that are options, once each, in the given order.
    let mut default = Vec::new();
    if let Some(Value::Array(entries)) = obj.get("default") {
        let valid: HashSet<&str> = options.iter().map(|o| o.value.as_str()).collect();
        let mut seen = HashSet::new();
        for entry in entries {
            if let Some(s) = entry.as_str()
                && valid.contains(s)
                && seen.insert(s)
            {
                default.push(s.to_owned());
            }
        }
    }

    Ok(FieldKind::MultiSelect {
        options,
        titled,
        min_items,
        max_items,
        default,
    })
}

// ---------------------------------------------------------------------------
// FormSchema API
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> FormSchema {
        match parse_form_schema(&v) {
            Ok(s) => s,
            Err(e) => panic!("schema should parse: {e}"),
        }
    }

    fn parse_err(v: Value) -> String {
        match parse_form_schema(&v) {
            Ok(s) => panic!("schema should fail: {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn prop(p: Value) -> Value {
        json!({"type": "object", "properties": {"p": p}})
    }

    fn kind(p: Value) -> FieldKind {
        parse(prop(p)).fields.remove(0).kind
    }

    // --- RFD examples, verbatim ------------------------------------------

    #[test]
    fn rfd_example_1_titled_single_select() {
        let s = parse(json!({
            "type": "object",
            "properties": {
                "strategy": {
                    "type": "string",
                    "title": "Refactoring Strategy",
                    "description": "Choose how aggressively to refactor",
                    "oneOf": [
                        {"const": "conservative", "title": "Conservative - Minimal changes",
                         "description": "Make minimal changes and avoid broad cleanup."},
                        {"const": "balanced", "title": "Balanced (Recommended)",
                         "description": "Fix the issue and clean nearby code when it lowers risk."},
                        {"const": "aggressive", "title": "Aggressive - Maximum optimization",
                         "description": "Refactor more broadly to optimize the affected area."}
                    ],
                    "default": "balanced"
                }
            },
            "required": ["strategy"]
        }));
        let f = s.field("strategy").expect("field");
        assert!(f.required);
        assert_eq!(f.title.as_deref(), Some("Refactoring Strategy"));
        assert_eq!(
            f.description.as_deref(),
            Some("Choose how aggressively to refactor")
        );
        let FieldKind::SingleSelect {
            options,
            titled,
            default,
        } = &f.kind
        else {
            panic!("expected single select: {:?}", f.kind);
        };
        assert!(*titled);
        assert_eq!(default.as_deref(), Some("balanced"));
        assert_eq!(options.len(), 3);
        assert_eq!(options[1].value, "balanced");
        assert_eq!(options[1].title.as_deref(), Some("Balanced (Recommended)"));
        assert_eq!(
            options[0].description.as_deref(),
            Some("Make minimal changes and avoid broad cleanup.")
        );
    }

    #[test]
    fn rfd_example_3_text_with_constraints() {
        let s = parse(json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "title": "Function Name",
                    "description": "Must be a valid identifier",
                    "minLength": 1,
                    "maxLength": 64,
                    "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$",
                    "default": "processData"
                }
            },
            "required": ["name"]
        }));
        assert_eq!(
            s.fields[0].kind,
            FieldKind::Text {
                min_length: Some(1),
                max_length: Some(64),
                pattern: Some("^[a-zA-Z_][a-zA-Z0-9_]*$".into()),
                format: None,
                default: Some("processData".into()),
            }
        );
        assert!(s.patterns.contains_key("name"));
    }

    #[test]
    fn rfd_example_4_multiple_fields_in_order() {
        let s = parse(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Project Name"},
                "port": {"type": "integer", "title": "Port Number", "minimum": 1024,
                         "maximum": 65535, "default": 3000},
                "enableLogging": {"type": "boolean", "title": "Enable Logging", "default": true}
            },
            "required": ["name"]
        }));
        let names: Vec<_> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "port", "enableLogging"]);
        assert!(s.fields[0].required);
        assert!(!s.fields[1].required);
        assert_eq!(
            s.fields[1].kind,
            FieldKind::Integer {
                minimum: Some(1024),
                maximum: Some(65535),
                default: Some(3000)
            }
        );
        assert_eq!(s.fields[2].kind, FieldKind::Boolean { default: Some(true) });
    }

    #[test]
    fn rfd_string_schema_with_email_format() {
        let k = kind(json!({
            "type": "string",
            "title": "Display Name",
            "description": "Description text",
            "minLength": 3,
            "maxLength": 50,
            "pattern": "^[A-Za-z]+$",
            "format": "email",
            "default": "user@example.com"
        }));
        let FieldKind::Text { format, default, .. } = k else {
            panic!("text expected");
        };
        assert_eq!(format, Some(StringFormat::Email));
        // The RFD's own example default does not match its pattern
        // (`@` and `.` are not letters), so it is dropped.
        assert_eq!(default, None);
    }

    #[test]
    fn rfd_number_schema() {
        assert_eq!(
            kind(json!({
                "type": "number",
                "title": "Display Name",
                "description": "Description text",
                "minimum": 0,
                "maximum": 100,
                "default": 50
            })),
            FieldKind::Number {
                minimum: Some(0.0),
                maximum: Some(100.0),
                default: Some(50.0)
            }
        );
    }

    #[test]
    fn rfd_boolean_schema() {
        assert_eq!(
            kind(json!({
                "type": "boolean",
                "title": "Display Name",
                "description": "Description text",
                "default": false
            })),
            FieldKind::Boolean { default: Some(false) }
        );
    }

    #[test]
    fn rfd_untitled_single_select() {
        let k = kind(json!({
            "type": "string",
            "title": "Color Selection",
            "description": "Choose your favorite color",
            "enum": ["Red", "Green", "Blue"],
            "default": "Red"
        }));
        let FieldKind::SingleSelect {
            options,
            titled,
            default,
        } = k
        else {
            panic!("select expected");
        };
        assert!(!titled);
        assert_eq!(default.as_deref(), Some("Red"));
        let values: Vec<_> = options.iter().map(|o| o.value.as_str()).collect();
        assert_eq!(values, ["Red", "Green", "Blue"]);
        assert!(options.iter().all(|o| o.title.is_none()));
    }

    #[test]
    fn rfd_titled_single_select_colors() {
        let k = kind(json!({
            "type": "string",
            "title": "Color Selection",
            "description": "Choose your favorite color",
            "oneOf": [
                {"const": "#FF0000", "title": "Red", "description": "High emphasis and warning-oriented."},
                {"const": "#00FF00", "title": "Green", "description": "Positive status and success-oriented."},
                {"const": "#0000FF", "title": "Blue", "description": "Neutral and informational."}
            ],
            "default": "#FF0000"
        }));
        let FieldKind::SingleSelect { options, default, .. } = k else {
            panic!("select expected");
        };
        assert_eq!(default.as_deref(), Some("#FF0000"));
        assert_eq!(options[2].label(), "Blue");
    }

    #[test]
    fn rfd_untitled_multi_select() {
        let k = kind(json!({
            "type": "array",
            "title": "Color Selection",
            "description": "Choose your favorite colors",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
            "default": ["Red", "Green"]
        }));
        let FieldKind::MultiSelect {
            options,
            titled,
            min_items,
            max_items,
            default,
        } = k
        else {
            panic!("multi select expected");
        };
        assert!(!titled);
        assert_eq!(options.len(), 3);
        assert_eq!((min_items, max_items), (Some(1), Some(2)));
        assert_eq!(default, ["Red", "Green"]);
    }

    #[test]
    fn rfd_titled_multi_select() {
        let k = kind(json!({
            "type": "array",
            "title": "Color Selection",
            "description": "Choose your favorite colors",
            "minItems": 1,
            "maxItems": 2,
            "items": {
                "anyOf": [
                    {"const": "#FF0000", "title": "Red", "description": "High emphasis and warning-oriented."},
                    {"const": "#00FF00", "title": "Green", "description": "Positive status and success-oriented."},
                    {"const": "#0000FF", "title": "Blue", "description": "Neutral and informational."}
                ]
            },
            "default": ["#FF0000", "#00FF00"]
        }));
        let FieldKind::MultiSelect {
            options,
            titled,
            default,
            ..
        } = k
        else {
            panic!("multi select expected");
        };
        assert!(titled);
        assert_eq!(options[0].title.as_deref(), Some("Red"));
        assert_eq!(default, ["#FF0000", "#00FF00"]);
    }

    // --- order, raw, serialization ---------------------------------------

    #[test]
    fn property_order_is_preserved() {
        let names = ["zeta", "alpha", "mid", "beta", "a1", "_x"];
        let mut props = Map::new();
        for n in names {
            props.insert(n.into(), json!({"type": "string"}));
        }
        let s = parse(json!({"type": "object", "properties": props}));
        let got: Vec<_> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(got, names);
    }

    #[test]
    fn raw_schema_is_preserved_verbatim() {
        let v = json!({
            "type": "object",
            "title": "T",
            "_meta": {"x": [1, 2, {"y": null}]},
            "properties": {
                "c": {"type": "string", "format": "x-color", "x-extra": true},
                "w": {"type": "_widget", "config": {"a": 1}}
            },
            "required": ["c"],
            "unknownKeyword": 42
        });
        let s = parse(v.clone());
        assert_eq!(s.raw(), &v);
        assert_eq!(
            serde_json::to_string(s.raw()).ok(),
            serde_json::to_string(&v).ok()
        );
        assert_eq!(s.raw_property("w"), v.pointer("/properties/w"));
    }

    #[test]
    fn unknown_format_is_preserved() {
        let s = parse(prop(
            json!({"type": "string", "format": "x-color", "default": "#fff"}),
        ));
        let FieldKind::Text { format, default, .. } = &s.fields[0].kind else {
            panic!("text expected");
        };
        assert_eq!(format, &Some(StringFormat::Other("x-color".into())));
        assert_eq!(default.as_deref(), Some("#fff"));
        let ser = serde_json::to_value(&s.fields[0]).expect("serialize");
        assert_eq!(ser["kind"]["format"], json!("x-color"));
    }

    #[test]
    fn known_formats_map_and_serialize() {
        for (name, f) in [
            ("email", StringFormat::Email),
            ("uri", StringFormat::Uri),
            ("date", StringFormat::Date),
            ("date-time", StringFormat::DateTime),
            ("Email", StringFormat::Other("Email".into())),
        ] {
            assert_eq!(StringFormat::from_name(name), f);
            assert_eq!(serde_json::to_value(&f).ok(), Some(json!(name)));
        }
    }

    #[test]
    fn serializes_camel_case_tagged() {
        let s = parse(json!({
            "title": "Setup",
            "properties": {
                "n": {"type": "string", "minLength": 2, "format": "date-time"},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string", "enum": ["a", "b"]}},
                "w": {"type": "_w"}
            }
        }));
        let v = serde_json::to_value(&s).expect("serialize");
        assert_eq!(v["title"], json!("Setup"));
        assert!(v.get("raw").is_none());
        assert!(v.get("patterns").is_none());
        assert_eq!(v["fields"][0]["kind"]["type"], json!("text"));
        assert_eq!(v["fields"][0]["kind"]["minLength"], json!(2));
        assert_eq!(v["fields"][0]["kind"]["maxLength"], Value::Null);
        assert_eq!(v["fields"][0]["kind"]["format"], json!("date-time"));
        assert_eq!(v["fields"][1]["kind"]["type"], json!("multiSelect"));
        assert_eq!(v["fields"][1]["kind"]["maxItems"], json!(2));
        assert_eq!(v["fields"][2]["kind"]["type"], json!("unsupported"));
        assert_eq!(v["fields"][2]["kind"]["typeName"], json!("_w"));
        assert_eq!(v["fields"][2]["kind"]["raw"], json!({"type": "_w"}));
    }

    // --- tolerance --------------------------------------------------------

    #[test]
    fn top_level_type_is_tolerated() {
        for t in [None, Some(Value::Null), Some(json!(5)), Some(json!("array"))] {
            let mut v = json!({"properties": {"a": {"type": "string"}}});
            if let (Some(t), Some(obj)) = (t, v.as_object_mut()) {
                obj.insert("type".into(), t);
            }
            assert_eq!(parse(v).fields.len(), 1);
        }
    }

    #[test]
    fn omitted_properties_is_empty_form() {
        let s = parse(json!({"type": "object"}));
        assert!(s.fields.is_empty());
        assert!(s.can_accept());
        assert!(parse(json!({})).fields.is_empty());
    }

    #[test]
    fn null_or_non_object_properties_is_error() {
        assert_eq!(
            parse_err(json!({"type": "object", "properties": null})),
            "`properties` must be an object"
        );
        parse_err(json!({"type": "object", "properties": []}));
        parse_err(json!({"type": "object", "properties": "x"}));
    }

    #[test]
    fn non_object_schema_is_error() {
        for v in [json!(null), json!([]), json!("object"), json!(1)] {
            assert_eq!(parse_err(v), "`requestedSchema` must be a JSON object");
        }
    }

    #[test]
    fn non_string_titles_and_descriptions_are_ignored() {
        let s = parse(json!({
            "title": 5,
            "description": {"x": 1},
            "properties": {
                "a": {"type": "string", "title": ["x"], "description": false},
                "b": {"type": "string", "oneOf": [{"const": "x", "title": 3, "description": 4}]}
            }
        }));
        assert_eq!(s.title, None);
        assert_eq!(s.description, None);
        assert_eq!(s.fields[0].title, None);
        assert_eq!(s.fields[0].description, None);
        let FieldKind::SingleSelect { options, .. } = &s.fields[1].kind else {
            panic!("select expected");
        };
        assert_eq!(options[0].title, None);
        assert_eq!(options[0].label(), "x");
    }

    #[test]
    fn required_rules() {
        let s = parse(json!({"properties": {"a": {"type": "string"}}, "required": null}));
        assert!(!s.fields[0].required);
        assert_eq!(
            parse_err(json!({"properties": {"a": {"type": "string"}}, "required": "a"})),
            "`required` must be an array of strings"
        );
        assert_eq!(
            parse_err(json!({"properties": {"a": {"type": "string"}}, "required": ["a", 1]})),
            "`required[1]` must be a string"
        );
        assert_eq!(
            parse_err(json!({"properties": {"a": {"type": "string"}}, "required": ["a", "x", "y"]})),
            "required property `x` is not defined"
        );
        assert_eq!(
            parse_err(json!({"required": ["z"]})),
            "required property `z` is not defined"
        );
        // Duplicates are harmless.
        let s = parse(json!({"properties": {"a": {"type": "string"}}, "required": ["a", "a"]}));
        assert!(s.fields[0].required);
    }

    #[test]
    fn null_keywords_mean_absent() {
        assert_eq!(
            kind(json!({"type": "string", "minLength": null, "maxLength": null,
                        "pattern": null, "format": null, "default": null, "enum": null, "oneOf": null})),
            FieldKind::Text {
                min_length: None,
                max_length: None,
                pattern: None,
                format: None,
                default: None
            }
        );
        assert_eq!(
            kind(json!({"type": "integer", "minimum": null, "maximum": null})),
            FieldKind::Integer {
                minimum: None,
                maximum: None,
                default: None
            }
        );
    }

    #[test]
    fn non_string_format_is_ignored() {
        let FieldKind::Text { format, .. } = kind(json!({"type": "string", "format": 7})) else {
            panic!("text expected");
        };
        assert_eq!(format, None);
    }

    // --- property errors ---------------------------------------------------

    #[test]
    fn property_must_be_object() {
        assert_eq!(
            parse_err(json!({"properties": {"port": 5}})),
            "property `port`: schema must be an object"
        );
        parse_err(json!({"properties": {"port": null}}));
    }

    #[test]
    fn number_bounds_must_be_numbers() {
        assert_eq!(
            parse_err(json!({"properties": {"port": {"type": "number", "minimum": "1"}}})),
            "property `port`: `minimum` must be a number"
        );
        assert_eq!(
            parse_err(json!({"properties": {"port": {"type": "number", "minimum": 5, "maximum": 1.5}}})),
            "property `port`: `minimum` (5) is greater than `maximum` (1.5)"
        );
    }

    #[test]
    fn integer_bounds_must_be_integers() {
        assert_eq!(
            parse_err(json!({"properties": {"port": {"type": "integer", "minimum": 1.5}}})),
            "property `port`: `minimum` must be an integer"
        );
        assert_eq!(
            parse_err(json!({"properties": {"port": {"type": "integer", "maximum": true}}})),
            "property `port`: `maximum` must be an integer"
        );
        assert_eq!(
            parse_err(
                json!({"properties": {"port": {"type": "integer", "maximum": 18446744073709551615u64}}})
            ),
            "property `port`: `maximum` must be an integer within the 64-bit signed range"
        );
        parse_err(json!({"properties": {"port": {"type": "integer", "maximum": 1e300}}}));
        assert_eq!(
            parse_err(json!({"properties": {"port": {"type": "integer", "minimum": 10, "maximum": 1}}})),
            "property `port`: `minimum` (10) is greater than `maximum` (1)"
        );
        // 1024.0 is an integer.
        assert_eq!(
            kind(json!({"type": "integer", "minimum": 1024.0, "maximum": i64::MAX})),
            FieldKind::Integer {
                minimum: Some(1024),
                maximum: Some(i64::MAX),
                default: None
            }
        );
    }

    #[test]
    fn length_keywords_must_be_non_negative_integers() {
        for bad in [json!(-1), json!(1.5), json!("3"), json!(true)] {
            let msg = parse_err(prop(json!({"type": "string", "minLength": bad})));
            assert_eq!(msg, "property `p`: `minLength` must be a non-negative integer");
        }
        assert_eq!(
            parse_err(prop(json!({"type": "string", "minLength": 5, "maxLength": 4}))),
            "property `p`: `minLength` (5) is greater than `maxLength` (4)"
        );
        let FieldKind::Text { min_length, .. } = kind(json!({"type": "string", "minLength": 3.0})) else {
            panic!("text expected");
        };
        assert_eq!(min_length, Some(3));
    }

    #[test]
    fn invalid_patterns_are_rejected() {
        let msg = parse_err(prop(json!({"type": "string", "pattern": "(?=a)b"})));
        assert!(
            msg.starts_with("property `p`: `pattern` is not a supported regular expression: "),
            "{msg}"
        );
        assert!(msg.contains("look-around"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
        parse_err(prop(json!({"type": "string", "pattern": "(a"})));
        parse_err(prop(json!({"type": "string", "pattern": "(a)\\1"})));
        assert_eq!(
            parse_err(prop(json!({"type": "string", "pattern": 5}))),
            "property `p`: `pattern` must be a string"
        );
    }

    #[test]
    fn js_style_escapes_compile() {
        let s = parse(prop(
            json!({"type": "string", "pattern": "^https?:\\/\\/[a-z\\-]+$"}),
        ));
        assert!(s.patterns.contains_key("p"));
    }

    #[test]
    fn pattern_over_length_limit_is_rejected() {
        let p = "a".repeat(MAX_PATTERN_CHARS + 1);
        assert_eq!(
            parse_err(prop(json!({"type": "string", "pattern": p}))),
            format!("property `p`: `pattern` is too long (4097 > {MAX_PATTERN_CHARS} characters)")
        );
        let p = "a".repeat(MAX_PATTERN_CHARS);
        parse(prop(json!({"type": "string", "pattern": p})));
    }

    #[test]
    fn pattern_over_size_limit_is_rejected() {
        // Short to write, huge once compiled (Unicode classes, counted
        // repetition).
        let msg = parse_err(prop(json!({"type": "string", "pattern": "\\w{2000}"})));
        assert!(msg.contains("size limit"), "{msg}");
        let msg = parse_err(prop(json!({"type": "string", "pattern": "((a{100}){100}){100}"})));
        assert!(msg.contains("`pattern`"), "{msg}");
    }

    #[test]
    fn patterns_get_size_classes() {
        let s = parse(prop(json!({"type": "string", "pattern": "^[a-z]+$"})));
        assert_eq!(s.patterns.get("p").map(|p| p.tier), Some(4 << 10));
        // Unicode classes are large once compiled.
        let s = parse(prop(json!({"type": "string", "pattern": "^\\w+ \\w+$"})));
        assert!(s.patterns.get("p").is_some_and(|p| p.tier > 4 << 10));
        let s = parse(prop(json!({"type": "string", "pattern": "[01]*1[01]{10000}2"})));
        assert_eq!(s.patterns.get("p").map(|p| p.tier), Some(REGEX_SIZE_LIMIT));
    }

    #[test]
    fn total_pattern_budget_is_enforced() {
        // 16 patterns of the largest size class fit; the 17th does not.
        let mut props = Map::new();
        for i in 0..17 {
            props.insert(
                format!("f{i}"),
                json!({"type": "string", "pattern": format!("[01]*1[01]{{10000}}{i}")}),
            );
        }
        assert_eq!(
            parse_err(json!({"properties": props.clone()})),
            "property `f16`: `pattern` does not fit in the form's total pattern budget (16777216 bytes compiled)"
        );
        props.remove("f16");
        assert_eq!(parse(json!({"properties": props})).patterns.len(), 16);
    }

    #[test]
    fn default_pattern_work_is_budgeted() {
        // Each default costs 1 MiB × 1000 bytes of the 1 GiB budget; the
        // defaults beyond it are dropped rather than checked.
        let default = "0".repeat(1000);
        let mut props = Map::new();
        for i in 0..16 {
            props.insert(
                format!("f{i}"),
                json!({"type": "string", "pattern": "[01]*1[01]{10000}2|^0+$", "default": default}),
            );
        }
        let s = parse(json!({"properties": props}));
        let with_default = s
            .fields
            .iter()
            .filter(|f| matches!(&f.kind, FieldKind::Text { default: Some(_), .. }))
            .count();
        assert!((1..16).contains(&with_default), "{with_default}");
        assert_eq!(s.initial_values().len(), with_default);
    }

    #[test]
    fn enum_errors() {
        assert_eq!(
            parse_err(prop(json!({"type": "string", "enum": []}))),
            "property `p`: `enum` must list at least one option"
        );
        assert_eq!(
            parse_err(prop(json!({"type": "string", "enum": ["a", 1]}))),
            "property `p`: `enum[1]` must be a string"
        );
        assert_eq!(
            parse_err(prop(json!({"type": "string", "enum": ["a", "b", "a"]}))),
            "property `p`: `enum` lists the value `a` more than once"
        );
        assert_eq!(
            parse_err(prop(json!({"type": "string", "enum": "a"}))),
            "property `p`: `enum` must be an array of strings"
        );
        assert_eq!(
            parse_err(prop(
                json!({"type": "string", "enum": ["a"], "oneOf": [{"const": "a"}]})
            )),
            "property `p`: `enum` and `oneOf` cannot both be present"
        );
    }

    #[test]
    fn one_of_errors() {
        assert_eq!(
            parse_err(prop(json!({"type": "string", "oneOf": [{"title": "x"}]}))),
            "property `p`: `oneOf[0]` must be an object with a string `const`"
        );
        parse_err(prop(json!({"type": "string", "oneOf": ["a"]})));
        parse_err(prop(json!({"type": "string", "oneOf": [{"const": 1}]})));
        parse_err(prop(json!({"type": "string", "oneOf": []})));
        parse_err(prop(json!({"type": "string", "oneOf": {}})));
        assert_eq!(
            parse_err(prop(
                json!({"type": "string", "oneOf": [{"const": "a"}, {"const": "a"}]})
            )),
            "property `p`: `oneOf` lists the value `a` more than once"
        );
        // Missing title is fine.
        let FieldKind::SingleSelect { options, .. } =
            kind(json!({"type": "string", "oneOf": [{"const": "a"}]}))
        else {
            panic!("select expected");
        };
        assert_eq!(options[0].title, None);
    }

    #[test]
    fn select_defaults_not_in_options_are_dropped() {
        let k = kind(json!({"type": "string", "enum": ["a", "b"], "default": "c"}));
        assert!(matches!(k, FieldKind::SingleSelect { default: None, .. }));
        let k = kind(json!({"type": "string", "enum": ["a", "b"], "default": 1}));
        assert!(matches!(k, FieldKind::SingleSelect { default: None, .. }));
        let k = kind(json!({
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "default": ["c", "x", 3, "a", "c"]
        }));
        let FieldKind::MultiSelect { default, .. } = k else {
            panic!("multi expected");
        };
        assert_eq!(default, ["c", "a"]);
    }

    #[test]
    fn wrong_type_defaults_are_dropped() {
        assert!(matches!(
            kind(json!({"type": "string", "default": 5})),
            FieldKind::Text { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "number", "default": "5"})),
            FieldKind::Number { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "integer", "default": 2.5})),
            FieldKind::Integer { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "integer", "default": 18446744073709551615u64})),
            FieldKind::Integer { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "integer", "default": 7.0})),
            FieldKind::Integer { default: Some(7), .. }
        ));
        assert!(matches!(
            kind(json!({"type": "boolean", "default": "true"})),
            FieldKind::Boolean { default: None }
        ));
        assert!(matches!(
            kind(json!({"type": "array", "items": {"enum": ["a"]}, "default": "a"})),
            FieldKind::MultiSelect { ref default, .. } if default.is_empty()
        ));
    }

    #[test]
    fn invalid_defaults_are_dropped() {
        assert!(matches!(
            kind(json!({"type": "integer", "minimum": 1024, "default": 80})),
            FieldKind::Integer { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "number", "maximum": 1, "default": 1.5})),
            FieldKind::Number { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "string", "maxLength": 2, "default": "abc"})),
            FieldKind::Text { default: None, .. }
        ));
        assert!(matches!(
            kind(json!({"type": "string", "format": "email", "default": "nope"})),
            FieldKind::Text { default: None, .. }
        ));
        // Multi-select default that breaks maxItems after filtering.
        assert!(matches!(
            kind(json!({"type": "array", "maxItems": 1,
                        "items": {"enum": ["a", "b"]}, "default": ["a", "b"]})),
            FieldKind::MultiSelect { ref default, .. } if default.is_empty()
        ));
    }

    #[test]
    fn array_rules() {
        assert_eq!(
            parse_err(prop(json!({"type": "array"}))),
            "property `p`: `items` must be an object"
        );
        parse_err(prop(json!({"type": "array", "items": [{"type": "string"}]})));
        assert_eq!(
            parse_err(prop(json!({"type": "array", "minItems": 3, "maxItems": 2,
                                  "items": {"enum": ["a", "b", "c"]}}))),
            "property `p`: `minItems` (3) is greater than `maxItems` (2)"
        );
        assert_eq!(
            parse_err(prop(
                json!({"type": "array", "minItems": 4, "items": {"enum": ["a", "b", "c"]}})
            )),
            "property `p`: `minItems` (4) is greater than the number of options (3)"
        );
        parse_err(prop(
            json!({"type": "array", "minItems": -1, "items": {"enum": ["a"]}}),
        ));
        assert_eq!(
            parse_err(prop(
                json!({"type": "array", "items": {"enum": ["a"], "anyOf": [{"const": "a"}]}})
            )),
            "property `p`: `items.enum` and `items.anyOf` cannot both be present"
        );
        assert_eq!(
            parse_err(prop(
                json!({"type": "array", "items": {"type": "string", "enum": [1]}})
            )),
            "property `p`: `items.enum[0]` must be a string"
        );
        // Item type omitted with `enum` is read as a string enum.
        assert!(matches!(
            kind(json!({"type": "array", "items": {"enum": ["a"]}})),
            FieldKind::MultiSelect { titled: false, .. }
        ));
    }

    #[test]
    fn unsupported_types_are_preserved() {
        let cases = [
            (json!({"type": "_custom", "x": 1}), "_custom"),
            (json!({"type": "object", "properties": {}}), "object"),
            (json!({"type": "null"}), "null"),
            (json!({"title": "no type"}), ""),
            (json!({"type": ["string", "null"]}), "[\"string\",\"null\"]"),
            (json!({"type": "array", "items": {"type": "_custom"}}), "array"),
            (
                json!({"type": "array", "items": {"type": "number", "enum": [1]}}),
                "array",
            ),
            (json!({"type": "array", "items": {"type": "string"}}), "array"),
            (json!({"type": "array", "items": {"type": 3}}), "array"),
        ];
        for (p, type_name) in cases {
            let k = kind(p.clone());
            let FieldKind::Unsupported {
                type_name: t,
                raw,
                reason,
            } = k
            else {
                panic!("unsupported expected for {p}");
            };
            assert_eq!(t, type_name);
            assert_eq!(raw, p);
            assert!(!reason.is_empty());
        }
    }

    #[test]
    fn unsupported_required_blocks_accept() {
        let optional = parse(json!({"properties": {
            "a": {"type": "string"}, "w": {"type": "_widget"}
        }}));
        assert!(optional.can_accept());
        assert_eq!(optional.blocking_reason(), None);

        let required = parse(json!({
            "properties": {"a": {"type": "string"}, "w": {"type": "_widget"}},
            "required": ["w"]
        }));
        assert!(!required.can_accept());
        let reason = required.blocking_reason().expect("reason");
        assert!(reason.contains("`w`"), "{reason}");
        assert!(reason.contains("_widget"), "{reason}");
    }

    // --- limits ------------------------------------------------------------

    #[test]
    fn too_many_properties() {
        let mut props = Map::new();
        for i in 0..300 {
            props.insert(format!("f{i}"), json!({"type": "boolean"}));
        }
        assert_eq!(
            parse_err(json!({"properties": props.clone()})),
            "too many properties (300 > 256)"
        );
        let props: Map<String, Value> = props.into_iter().take(MAX_PROPERTIES).collect();
        assert_eq!(parse(json!({"properties": props})).fields.len(), 256);
    }

    #[test]
    fn too_many_options() {
        let opts: Vec<String> = (0..1025).map(|i| format!("o{i}")).collect();
        assert_eq!(
            parse_err(prop(json!({"type": "string", "enum": opts}))),
            "property `p`: `enum` has too many options (1025 > 1024)"
        );
        let titled: Vec<Value> = (0..1025).map(|i| json!({"const": format!("o{i}")})).collect();
        parse_err(prop(json!({"type": "array", "items": {"anyOf": titled}})));
        let opts: Vec<String> = (0..1024).map(|i| format!("o{i}")).collect();
        parse(prop(json!({"type": "string", "enum": opts})));
    }

    #[test]
    fn long_strings_are_rejected() {
        let long_value = "é".repeat(MAX_VALUE_CHARS + 1);
        let msg = parse_err(prop(json!({"type": "string", "enum": [long_value.clone()]})));
        assert_eq!(
            msg,
            "property `p`: `enum[0]` is too long (4097 > 4096 characters)"
        );
        parse_err(prop(
            json!({"type": "string", "oneOf": [{"const": "a", "title": long_value}]}),
        ));
        let ok_value = "é".repeat(MAX_VALUE_CHARS);
        parse(prop(json!({"type": "string", "enum": [ok_value]})));

        let long_text = "x".repeat(MAX_TEXT_BYTES + 1);
        assert_eq!(
            parse_err(json!({"title": long_text.clone()})),
            "schema `title` is too long (16385 > 16384 bytes)"
        );
        parse_err(json!({"description": long_text.clone()}));
        assert_eq!(
            parse_err(prop(json!({"type": "string", "description": long_text.clone()}))),
            "property `p`: `description` is too long (16385 > 16384 bytes)"
        );
        parse_err(prop(
            json!({"type": "string", "oneOf": [{"const": "a", "description": long_text}]}),
        ));

        let long_name = "n".repeat(MAX_VALUE_CHARS + 1);
        let mut props = Map::new();
        props.insert(long_name, json!({"type": "string"}));
        let msg = parse_err(json!({"properties": props}));
        assert!(msg.contains("property name is too long"), "{msg}");
        assert!(msg.contains('…'), "names are shortened in messages: {msg}");
    }

    #[test]
    fn quote_shortens_and_escapes() {
        assert_eq!(quote("a\nb"), "a\\nb");
        assert_eq!(quote(&"x".repeat(100)).chars().count(), QUOTE_CHARS + 1);
    }

    #[test]
    fn integer_conversions_never_panic() {
        assert_eq!(f64_to_i64(9_223_372_036_854_775_808.0), None);
        assert_eq!(f64_to_i64(-9_223_372_036_854_775_808.0), Some(i64::MIN));
        assert_eq!(f64_to_i64(f64::NAN), None);
        assert_eq!(f64_to_i64(f64::INFINITY), None);
        assert_eq!(f64_to_i64(3.0), Some(3));
        assert_eq!(f64_to_i64(3.5), None);
        assert_eq!(number_value(50.0), json!(50));
        assert_eq!(number_value(0.5), json!(0.5));
        assert_eq!(number_value(1e300), json!(1e300));
    }

    #[test]
    fn schema_partial_eq_ignores_compiled_patterns() {
        let v = prop(json!({"type": "string", "pattern": "^a$"}));
        let a = parse(v.clone());
        let b = parse(v);
        assert_eq!(a, b);
        let c = parse(prop(json!({"type": "string", "pattern": "^b$"})));
        assert_ne!(a, c);
    }
}
