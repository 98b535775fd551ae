//! What each field accepts, in words, shown under the field before the user types: the same
//! constraints the validator enforces, so nobody learns them from an error message. Worded here,
//! beside the validator, so the window and the CLI say the same thing.

use serde_json::{Map, Value};

use super::model::{FieldKind, FormSchema, StringFormat, number_value};

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
