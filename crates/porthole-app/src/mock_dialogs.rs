//! The dialogs of the window's mock backend (`ui/src/lib/generated/mock-dialogs.json`, used by `npm run
//! dev`, the browser checks and the component tests), made here by core's own rules from the
//! requests an agent would send: the form schemas as parsed, the hints as worded, secret
//! detection, the URL analyses and warnings. So the mock shows what Porthole would show, and
//! cannot drift from it: the test fails when the file is out of date, and
//! `PORTHOLE_BLESS=1 cargo test -p porthole-app mock_dialogs` rewrites it.

use porthole_core::broker::{self, Modes, ScopeCheck};
use porthole_core::events::{AgentIdentity, DialogPrompt, ElicitationPrompt};
use serde_json::{Value, json};

use crate::dialog_view::{DialogView, Origin};

/// The mock's world: session `demo-1` is open, and our `authenticate` (id 7) is in flight.
struct Demo;

impl ScopeCheck for Demo {
    fn session_known(&self, session_id: &str) -> bool {
        session_id == "demo-1"
    }
    fn request_in_flight(&self, request_id: &Value) -> Option<&'static str> {
        (request_id == &json!(7)).then_some("authenticate")
    }
}

/// What the demo agent asks, as `elicitation/create` params.
fn requests() -> Vec<(&'static str, Value)> {
    let text = |title: &str| json!({"type": "string", "title": title});
    vec![
        (
            "configure",
            json!({
                "mode": "form", "sessionId": "demo-1", "toolCallId": "tc-3",
                "message": "I'm about to scaffold the release configuration. Please confirm these settings.",
                "requestedSchema": {
                    "type": "object", "title": "Release configuration",
                    "description": "Used to generate release.toml.",
                    "properties": {
                        "project": {"type": "string", "title": "Project name",
                            "description": "Letters, digits and dashes; 3–32 characters.",
                            "minLength": 3, "maxLength": 32, "pattern": "^[a-z0-9-]+$", "default": "porthole"},
                        "email": {"type": "string", "title": "Contact email", "format": "email"},
                        "homepage": {"type": "string", "title": "Homepage",
                            "description": "Shown in the generated README.", "format": "uri"},
                        "release": {"type": "string", "title": "Release date", "format": "date", "default": "2027-01-15"},
                        "standup": {"type": "string", "title": "Next stand-up",
                            "description": "Local time; sent with your UTC offset.",
                            "format": "date-time", "default": "2026-12-03T09:30:00Z"},
                        "budget": {"type": "number", "title": "Token budget",
                            "description": "Between 0.5 and 100 (thousands).",
                            "minimum": 0.5, "maximum": 100, "default": 12.5},
                        "workers": {"type": "integer", "title": "Parallel workers", "minimum": 1, "maximum": 16, "default": 4},
                        "telemetry": {"type": "boolean", "title": "Send anonymous telemetry", "default": false},
                        "strategy": {"type": "string", "title": "Refactoring strategy", "oneOf": [
                            {"const": "conservative", "title": "Conservative", "description": "Small, safe steps; no public API changes."},
                            {"const": "balanced", "title": "Balanced", "description": "Reasonable renames and extractions."},
                            {"const": "aggressive", "title": "Aggressive", "description": "Restructure freely."}
                        ]},
                        "license": {"type": "string", "title": "License",
                            "enum": ["MIT", "Apache-2.0", "GPL-3.0", "BSD-3-Clause", "MPL-2.0", "ISC", "Unlicense"]},
                        "targets": {"type": "array", "title": "Build targets", "minItems": 1, "maxItems": 2,
                            "default": ["linux"], "items": {"anyOf": [
                                {"const": "linux", "title": "Linux", "description": "x86_64 and aarch64"},
                                {"const": "macos", "title": "macOS", "description": "Universal binary"},
                                {"const": "windows", "title": "Windows", "description": "MSVC toolchain"}
                            ]}},
                        "layout": {"type": "object", "title": "Window layout"}
                    },
                    "required": ["project", "email", "workers", "strategy", "license", "targets"]
                }
            }),
        ),
        (
            "secret",
            json!({
                "mode": "form", "sessionId": "demo-1",
                "message": "To deploy, enter your GitHub username and a personal access token.",
                "requestedSchema": {
                    "type": "object", "title": "Deploy credentials",
                    "properties": {
                        "username": text("GitHub username"),
                        "api_token": {"type": "string", "title": "Personal access token",
                            "description": "Needs repo and workflow scopes.", "minLength": 20}
                    },
                    "required": ["username", "api_token"]
                }
            }),
        ),
        (
            // Agents' markers in standard forms (porthole-elicitation's `markers.rs`): Claude
            // Code's question with its own "Other" box and an option preview, Codex's question
            // whose note is its "Other" answer and its secret answer.
            "questions",
            json!({
                "mode": "form", "sessionId": "demo-1", "toolCallId": "tc-4",
                "message": "Which color should the theme use?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "question_0": {"type": "string", "title": "Color", "oneOf": [
                            {"const": "Teal", "title": "Teal", "description": "Calm, good contrast",
                             "_meta": {"_claude/askUserQuestionOption": {"preview": "#008080 on #ffffff"}}},
                            {"const": "Orange", "title": "Orange", "description": "Loud"}]},
                        "question_0_custom": {"type": "string", "title": "Other",
                            "description": "Type your own answer, or add a note to the option you chose above (optional)."},
                        "question_1": {"type": "array", "title": "Extras", "description": "Which extras?",
                            "items": {"anyOf": [{"const": "Tests", "title": "Tests"}, {"const": "Docs", "title": "Docs"}]}},
                        "question_1_custom": {"type": "string", "title": "Other",
                            "description": "Type your own answer to add to your selection above (optional)."},
                        "accent": {"type": "string", "title": "Which accent?", "description": "Accent",
                            "_meta": {"codex": {"isOther": true, "isSecret": false}},
                            "oneOf": [{"const": "Gold", "title": "Gold"},
                                {"const": "None of the above", "title": "None of the above",
                                 "description": "Provide a different answer in the note field."}]},
                        "accent_note": {"type": "string", "title": "Additional answer or note",
                            "_meta": {"codex": {"questionId": "accent", "role": "user_note", "isSecret": false}}},
                        "unlock_phrase": {"type": "string", "title": "Unlock phrase",
                            "_meta": {"codex": {"isOther": false, "isSecret": true}}}
                    },
                    "required": ["accent"]
                }
            }),
        ),
        (
            "goodUrl",
            json!({
                "mode": "url", "requestId": 7, "elicitationId": "github-oauth",
                "message": "Please sign in to GitHub so I can read your private repositories.",
                "url": "https://auth.agent.example.com/connect/github?elicitationId=github-oauth-001&scope=repo%20read%3Aorg"
            }),
        ),
        (
            "evilUrl",
            json!({
                "mode": "url", "sessionId": "demo-1", "toolCallId": "tc-9", "elicitationId": "login",
                "message": "Your session expired. Sign in again to continue.",
                "url": "https://accounts.xn--ggle-55da.com:8443/signin/v2/identifier?continue=https%3A%2F%2Fmail.google.com%2F&flowName=GlifWebSignIn"
            }),
        ),
    ]
}

fn generated() -> String {
    let agent = AgentIdentity {
        name: "demo-agent".into(),
        title: Some("Demo Agent".into()),
        version: Some("0.4.2".into()),
    };
    let mut out = serde_json::Map::new();
    for (name, params) in requests() {
        let parsed = broker::parse_request(&params, Modes::ALL, &Demo)
            .unwrap_or_else(|r| panic!("{name}: core refused it: {}", r.error.message));
        let is_url = matches!(parsed.kind, porthole_core::events::ElicitationKind::Url { .. });
        let view = DialogView {
            prompt: DialogPrompt::Elicitation(Box::new(ElicitationPrompt {
                dialog_id: 0,
                agent: agent.clone(),
                scope: parsed.scope,
                message: parsed.message,
                kind: parsed.kind,
                warnings: parsed.warnings,
                mcp: None,
            })),
            origin: Origin {
                agent_id: "demo".into(),
                through: None,
            },
            // No consent history in the mock.
            domain_memory: is_url.then_some(None),
        };
        out.insert(name.into(), serde_json::to_value(view).unwrap());
    }
    serde_json::to_string_pretty(&out).unwrap() + "\n"
}

#[test]
fn the_mocks_dialogs_are_made_by_cores_rules() {
    crate::generated_file::bless_or_compare(
        "ui/src/lib/generated/mock-dialogs.json",
        &generated(),
        "PORTHOLE_BLESS=1 cargo test -p porthole-app mock_dialogs",
    );
}

/// The values the mock's forms are checked with, as the window sends them (absent is always
/// checked too). Core's verdict on each is what the mock answers `validate_form` with; a value
/// not listed here gets an error from the mock that says so.
fn samples() -> Vec<(&'static str, Vec<Value>)> {
    let targets = [
        json!(["linux"]),
        json!(["macos"]),
        json!(["windows"]),
        json!(["linux", "macos"]),
        json!(["linux", "windows"]),
        json!(["macos", "windows"]),
        json!([]),
        json!(["linux", "macos", "windows"]),
    ];
    vec![
        (
            "project",
            vec![
                json!("porthole"),
                json!("my-app"),
                json!("ab"),
                json!("X!"),
                json!("INVALID per pattern!!"),
            ],
        ),
        ("email", vec![json!("me@example.org"), json!("nope")]),
        ("homepage", vec![json!("https://example.org"), json!("not a url")]),
        ("release", vec![json!("2027-01-15"), json!("15/01/2027")]),
        (
            "standup",
            vec![
                json!("2026-12-03T09:30:00Z"),
                json!("2026-12-03T09:30:00+00:00"),
                json!("tomorrow"),
            ],
        ),
        (
            "budget",
            vec![json!(12.5), json!(0.5), json!(100), json!(0.1), json!(200)],
        ),
        (
            "workers",
            vec![json!(4), json!(1), json!(16), json!(0), json!(17), json!(1.5)],
        ),
        ("telemetry", vec![json!(true), json!(false)]),
        (
            "strategy",
            vec![
                json!("conservative"),
                json!("balanced"),
                json!("aggressive"),
                json!("reckless"),
            ],
        ),
        (
            "license",
            [
                "MIT",
                "Apache-2.0",
                "GPL-3.0",
                "BSD-3-Clause",
                "MPL-2.0",
                "ISC",
                "Unlicense",
                "WTFPL",
            ]
            .map(|l| json!(l))
            .to_vec(),
        ),
        ("targets", targets.to_vec()),
        ("layout", vec![]),
        ("username", vec![json!("octocat")]),
        (
            "api_token",
            vec![json!("ghp_short"), json!("ghp_0123456789abcdefghijklmnopqrstuv")],
        ),
        (
            "question_0",
            vec![json!("Teal"), json!("Orange"), json!("Magenta")],
        ),
        ("question_0_custom", vec![json!("Magenta")]),
        ("question_1", vec![json!(["Docs"]), json!(["Tests", "Docs"])]),
        ("question_1_custom", vec![json!("a CHANGELOG")]),
        ("accent", vec![json!("Gold"), json!("None of the above")]),
        ("accent_note", vec![json!("Silver")]),
        ("unlock_phrase", vec![json!("open sesame")]),
    ]
}

/// Core's verdict on every sample of every field of the mock's forms, by field name (the
/// forms share none), and the error for a key that is not a field.
fn validation_cases() -> String {
    let samples: std::collections::HashMap<_, _> = samples().into_iter().collect();
    let mut fields = serde_json::Map::new();
    let mut unknown = None;
    for (name, params) in requests() {
        let parsed = broker::parse_request(&params, Modes::ALL, &Demo)
            .unwrap_or_else(|r| panic!("{name}: {}", r.error.message));
        let Some(schema) = parsed.form() else { continue };
        for field in &schema.fields {
            let values = samples
                .get(field.name.as_str())
                .unwrap_or_else(|| panic!("no samples for the field `{}` of `{name}`", field.name));
            let mut cases = Vec::new();
            for value in std::iter::once(None).chain(values.iter().map(Some)) {
                let mut content = serde_json::Map::new();
                if let Some(v) = value {
                    content.insert(field.name.clone(), v.clone());
                }
                let validation = schema.validate(&content);
                let errors: Vec<_> = validation
                    .errors
                    .iter()
                    .filter(|e| e.field == field.name)
                    .collect();
                let mut case = serde_json::Map::new();
                if let Some(v) = value {
                    case.insert("value".into(), v.clone());
                }
                if let Some(accepted) = validation.content.get(&field.name) {
                    case.insert("content".into(), accepted.clone());
                }
                case.insert("errors".into(), serde_json::to_value(errors).unwrap());
                cases.push(Value::Object(case));
            }
            let clash = fields.insert(field.name.clone(), Value::Array(cases));
            assert!(clash.is_none(), "two mock forms have a field `{}`", field.name);
        }
        let mut stray = serde_json::Map::new();
        stray.insert("not-a-field".into(), json!(1));
        unknown = schema
            .validate(&stray)
            .errors
            .into_iter()
            .find(|e| e.field == "not-a-field");
    }
    let unknown = unknown.expect("a form rejects a key that is not a field");
    let out = json!({
        "unknownField": {"code": unknown.code, "message": unknown.message},
        "fields": fields,
    });
    serde_json::to_string_pretty(&out).unwrap() + "\n"
}

#[test]
fn the_mocks_validation_is_cores_verdict_on_its_samples() {
    crate::generated_file::bless_or_compare(
        "ui/src/lib/generated/mock-validation.json",
        &validation_cases(),
        "PORTHOLE_BLESS=1 cargo test -p porthole-app mock_dialogs",
    );
}
