//! Property tests for the form validator: content generated from a generated restricted
//! schema validates, and breaking exactly one constraint of one field fails on that field,
//! with the code of that constraint.

use porthole_elicitation::form::{FormSchema, codes, parse_form_schema};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// One generated field: its schema and a valid value for it.
#[derive(Debug, Clone)]
enum Kind {
    Text { min: usize, max: usize },
    Integer { min: i64, max: i64 },
    Number { min: f64, max: f64 },
    Boolean,
    Single { options: Vec<String> },
    Multi { options: Vec<String>, max_items: usize },
}

#[derive(Debug, Clone)]
struct FieldSpec {
    name: String,
    required: bool,
    kind: Kind,
}

fn kind() -> impl Strategy<Value = Kind> {
    let options =
        prop::collection::btree_set("[a-z]{1,6}", 1..6).prop_map(|s| s.into_iter().collect::<Vec<_>>());
    prop_oneof![
        // maxLength ≥ 1: an empty string is "missing", so a field needs room for one character.
        (0usize..5, 0usize..20).prop_map(|(min, extra)| Kind::Text {
            min,
            max: min.max(1) + extra
        }),
        (-1000i64..1000, 0i64..1000).prop_map(|(min, span)| Kind::Integer { min, max: min + span }),
        (-1e6f64..1e6, 0f64..1e6).prop_map(|(min, span)| Kind::Number { min, max: min + span }),
        Just(Kind::Boolean),
        options.clone().prop_map(|options| Kind::Single { options }),
        options.prop_flat_map(|options| {
            let n = options.len();
            (Just(options), 1..=n).prop_map(|(options, max_items)| Kind::Multi { options, max_items })
        }),
    ]
}

fn fields() -> impl Strategy<Value = Vec<FieldSpec>> {
    prop::collection::btree_map("[a-z][a-z0-9_]{0,7}", (any::<bool>(), kind()), 1..8).prop_map(|m| {
        m.into_iter()
            .map(|(name, (required, kind))| FieldSpec { name, required, kind })
            .collect()
    })
}

fn schema_json(fields: &[FieldSpec]) -> Value {
    let mut properties = Map::new();
    for f in fields {
        let p = match &f.kind {
            Kind::Text { min, max } => json!({"type":"string","minLength":min,"maxLength":max}),
            Kind::Integer { min, max } => json!({"type":"integer","minimum":min,"maximum":max}),
            Kind::Number { min, max } => json!({"type":"number","minimum":min,"maximum":max}),
            Kind::Boolean => json!({"type":"boolean"}),
            Kind::Single { options } => json!({"type":"string","enum":options}),
            Kind::Multi { options, max_items } => {
                json!({"type":"array","maxItems":max_items,"items":{"type":"string","enum":options}})
            }
        };
        properties.insert(f.name.clone(), p);
    }
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    json!({"type":"object","properties":properties,"required":required})
}

/// A valid value for a field, chosen by `pick` (any number; reduced into range).
fn valid_value(kind: &Kind, pick: u64, text: &str) -> Value {
    match kind {
        Kind::Text { min, max } => {
            let shortest = (*min).max(1);
            let len = shortest + pick as usize % (max - shortest + 1);
            Value::String(text.chars().cycle().take(len).collect())
        }
        Kind::Integer { min, max } => json!(min + (pick as i64).rem_euclid(max - min + 1)),
        Kind::Number { min, max } => {
            json!((min + (max - min) * ((pick % 1001) as f64 / 1000.0)).clamp(*min, *max))
        }
        Kind::Boolean => json!(pick.is_multiple_of(2)),
        Kind::Single { options } => json!(options[pick as usize % options.len()]),
        Kind::Multi { options, max_items } => {
            let count = 1 + pick as usize % max_items;
            json!(options.iter().take(count).collect::<Vec<_>>())
        }
    }
}

fn generated() -> impl Strategy<Value = (Vec<FieldSpec>, Map<String, Value>)> {
    fields().prop_flat_map(|fields| {
        let n = fields.len();
        (
            Just(fields),
            prop::collection::vec(any::<u64>(), n),
            prop::collection::vec(any::<bool>(), n),
            "[a-zA-Zé€😀 ]{1,4}",
        )
            .prop_map(|(fields, picks, present, text)| {
                let mut content = Map::new();
                for ((f, pick), present) in fields.iter().zip(picks).zip(present) {
                    // Optional fields may be left out; required ones never are.
                    if f.required || present {
                        content.insert(f.name.clone(), valid_value(&f.kind, pick, &text));
                    }
                }
                (fields, content)
            })
    })
}

fn parse(fields: &[FieldSpec]) -> FormSchema {
    parse_form_schema(&schema_json(fields)).expect("generated schemas are valid restricted schemas")
}

#[derive(Debug, Clone, Copy)]
enum Mutation {
    TooLong,
    OutOfRange,
    NotInEnum,
    MissingRequired,
    TooManyItems,
    WrongType,
}

/// Break one constraint of `field` in `content`; the code the validator must report, or
/// `None` when this mutation does not apply to this field.
fn mutate(field: &FieldSpec, mutation: Mutation, content: &mut Map<String, Value>) -> Option<&'static str> {
    let name = field.name.clone();
    let (value, code) = match (mutation, &field.kind) {
        (Mutation::TooLong, Kind::Text { max, .. }) => (json!("x".repeat(max + 1)), codes::MAX_LENGTH),
        (Mutation::OutOfRange, Kind::Integer { max, .. }) => (json!(max + 1), codes::MAXIMUM),
        (Mutation::OutOfRange, Kind::Number { min, .. }) => (json!(min - 0.5), codes::MINIMUM),
        (Mutation::NotInEnum, Kind::Single { options }) => {
            (json!(format!("{}-not", options[0])), codes::ENUM)
        }
        (Mutation::NotInEnum, Kind::Multi { options, .. }) => {
            (json!([format!("{}-not", options[0])]), codes::ENUM)
        }
        (Mutation::MissingRequired, _) if field.required => {
            content.remove(&name);
            return Some(codes::REQUIRED);
        }
        (Mutation::TooManyItems, Kind::Multi { options, max_items }) if *max_items < options.len() => {
            (json!(options[..max_items + 1]), codes::MAX_ITEMS)
        }
        (Mutation::WrongType, kind) => (
            match kind {
                Kind::Text { .. } | Kind::Single { .. } | Kind::Boolean => json!(42),
                Kind::Integer { .. } => json!(1.5),
                Kind::Number { .. } => json!("1"),
                Kind::Multi { .. } => json!("not a list"),
            },
            codes::TYPE,
        ),
        _ => return None,
    };
    content.insert(name, value);
    Some(code)
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::TooLong),
        Just(Mutation::OutOfRange),
        Just(Mutation::NotInEnum),
        Just(Mutation::MissingRequired),
        Just(Mutation::TooManyItems),
        Just(Mutation::WrongType),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_content_validates((fields, content) in generated()) {
        let schema = parse(&fields);
        let v = schema.validate(&content);
        prop_assert!(v.is_valid(), "errors {:?} for {}", v.errors, Value::Object(content.clone()));
        // Everything sent is what was given (integers stay integers).
        prop_assert_eq!(v.content, content);
    }

    #[test]
    fn breaking_one_constraint_fails_on_that_field(
        (fields, content) in generated(),
        index in any::<prop::sample::Index>(),
        mutation in mutation(),
    ) {
        let schema = parse(&fields);
        let field = &fields[index.index(fields.len())];
        let mut broken = content.clone();
        let Some(code) = mutate(field, mutation, &mut broken) else {
            return Ok(()); // this mutation does not apply to this field
        };
        let v = schema.validate(&broken);
        prop_assert!(!v.is_valid());
        prop_assert!(
            v.errors.iter().all(|e| e.field == field.name),
            "only the broken field fails: {:?}", v.errors
        );
        prop_assert!(
            v.errors_for(&field.name).any(|e| e.code == code),
            "{:?} on `{}` reports {}: got {:?}", mutation, field.name, code, v.errors
        );
        prop_assert!(!v.content.contains_key(&field.name), "an invalid value is never sent");
    }
}
