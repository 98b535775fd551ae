//! The window's TypeScript types for the form model, validation results and URL analysis,
//! generated from these Rust types (ts-rs) so the two cannot drift: the test fails when the
//! checked-in `ui/src/lib/generated/elicitation.ts` is out of date, and
//! `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation ui_contract` rewrites it.

use std::path::PathBuf;

use ts_rs::{Config, TS};

use crate::form::{EnumChoice, Field, FieldError, FieldKind, FormSchema, OtherAnswer, Validation};
use crate::url_safety::{UrlAnalysis, UrlWarning};

fn generated() -> String {
    // Integers in these types are small (lengths, ports, bounds): plain numbers in JSON.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        EnumChoice::decl(&cfg),
        FieldKind::decl(&cfg),
        OtherAnswer::decl(&cfg),
        Field::decl(&cfg),
        FormSchema::decl(&cfg),
        FieldError::decl(&cfg),
        Validation::decl(&cfg),
        UrlWarning::decl(&cfg),
        UrlAnalysis::decl(&cfg),
    ];
    let mut ts = String::from(
        "// Generated from porthole-elicitation's types (ts-rs) by\n\
         // `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation ui_contract`. Do not edit.\n\n",
    );
    for decl in decls {
        ts.push_str("export ");
        ts.push_str(&decl);
        ts.push_str("\n\n");
    }
    ts.truncate(ts.trim_end().len());
    ts.push('\n');
    ts
}

#[test]
fn the_windows_elicitation_types_are_generated_from_these() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/generated/elicitation.ts");
    let ts = generated();
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        std::fs::write(&path, &ts).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == ts,
        "ui/src/lib/generated/elicitation.ts is out of date; run `PORTHOLE_BLESS=1 cargo test -p porthole-elicitation ui_contract`"
    );
}
