//! Issue 8 part 6: time per call of the form validator (`porthole_core::form`): a 50-field
//! form (valid and invalid content), and pathological `pattern`s against a 10 KB value.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use porthole_core::form::{FormSchema, parse_form_schema};
use serde_json::{Map, Value, json};

/// 50 fields, ten of each kind: constrained strings with patterns, formatted strings,
/// bounded numbers, booleans and single/multi selects.
fn fifty_field_form() -> (FormSchema, Map<String, Value>, Map<String, Value>) {
    let mut props = Map::new();
    let (mut good, mut bad) = (Map::new(), Map::new());
    for i in 0..10 {
        props.insert(
            format!("name{i}"),
            json!({"type":"string","minLength":2,"maxLength":64,"pattern":"^[a-zA-Z_][a-zA-Z0-9_]*$"}),
        );
        good.insert(format!("name{i}"), json!(format!("field_{i}")));
        bad.insert(format!("name{i}"), json!("9 not an identifier"));
        let format = ["email", "uri", "date", "date-time"][i % 4];
        props.insert(format!("fmt{i}"), json!({"type":"string","format":format}));
        let (ok, ko) = match format {
            "email" => ("user@example.com", "not an email"),
            "uri" => ("https://example.com/a?b=c", "::"),
            "date" => ("2026-12-03", "2026-13-45"),
            _ => ("2026-12-03T09:00:00Z", "yesterday"),
        };
        good.insert(format!("fmt{i}"), json!(ok));
        bad.insert(format!("fmt{i}"), json!(ko));
        props.insert(
            format!("num{i}"),
            json!({"type":"integer","minimum":1,"maximum":65535}),
        );
        good.insert(format!("num{i}"), json!(8080));
        bad.insert(format!("num{i}"), json!(70000));
        props.insert(format!("flag{i}"), json!({"type":"boolean"}));
        good.insert(format!("flag{i}"), json!(true));
        bad.insert(format!("flag{i}"), json!("yes"));
        if i % 2 == 0 {
            props.insert(
                format!("pick{i}"),
                json!({"type":"string","enum":["red","green","blue","cyan"]}),
            );
            good.insert(format!("pick{i}"), json!("green"));
            bad.insert(format!("pick{i}"), json!("mauve"));
        } else {
            props.insert(
                format!("pick{i}"),
                json!({"type":"array","items":{"type":"string","enum":["a","b","c","d"]},"minItems":1,"maxItems":3}),
            );
            good.insert(format!("pick{i}"), json!(["a", "c"]));
            bad.insert(format!("pick{i}"), json!([]));
        }
    }
    let required: Vec<&String> = props.keys().collect();
    let schema = json!({"type":"object","properties":props,"required":required});
    (parse_form_schema(&schema).expect("50-field schema"), good, bad)
}

/// One `pattern` field and a 10 KB value chosen to be its worst case.
fn pathological(pattern: &str, value: String) -> (FormSchema, Map<String, Value>) {
    let schema =
        parse_form_schema(&json!({"type":"object","properties":{"v":{"type":"string","pattern":pattern}}}))
            .expect("pattern schema");
    let limit = schema.pattern_input_limit("v").unwrap_or(0);
    assert!(
        limit >= value.len(),
        "a {} byte value is evaluated (limit {limit})",
        value.len()
    );
    let mut content = Map::new();
    content.insert("v".into(), Value::String(value));
    (schema, content)
}

/// Pseudo-random `0`/`1` text (a fixed LCG): unlike a repeating pattern, it keeps creating
/// new lazy-DFA states, the regex engine's worst case.
fn random_bits(len: usize) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if x >> 63 == 1 { '1' } else { '0' }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let (form, good, bad) = fifty_field_form();
    assert!(form.validate(&good).is_valid());
    assert_eq!(form.validate(&bad).errors.len(), 50);
    c.bench_function("validate 50 fields, valid", |b| {
        b.iter(|| form.validate(black_box(&good)))
    });
    c.bench_function("validate 50 fields, all invalid", |b| {
        b.iter(|| form.validate(black_box(&bad)))
    });

    let ten_kb = 10 * 1024;
    let cases = [
        // Exponential for a backtracking engine: nested quantifiers and a failing end.
        (
            "(a+)+$ vs a...a!",
            "^(a+)+$",
            format!("{}!", "a".repeat(ten_kb - 1)),
        ),
        ("(a|aa)*b vs a...a", "^(a|aa)*b$", "a".repeat(ten_kb)),
        // Large compiled program whose lazy DFA thrashes on 0/1 input.
        (
            "[01]*1[01]{900}[a-z] vs random 0/1",
            "[01]*1[01]{900}[a-z]",
            random_bits(ten_kb),
        ),
    ];
    for (name, pattern, value) in cases {
        let (schema, content) = pathological(pattern, value);
        c.bench_function(&format!("pattern {name} (10 KB)"), |b| {
            b.iter(|| schema.validate(black_box(&content)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
