//! The elicitation broker's rules for one incoming `elicitation/create`: which requests
//! reach the user, and which are answered with JSON-RPC -32602 without asking anyone.
//!
//! Parsing works on the raw params rather than the SDK's typed request because the form
//! must keep the agent's property order and unknown string formats (the spec requires both).

use serde_json::Value;

use crate::events::{ElicitationKind, RpcError, Scope};
use crate::form::{self, FormSchema};
use crate::url_safety::{self, UrlAnalysis};

/// Which elicitation modes we advertise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modes {
    pub form: bool,
    pub url: bool,
}

impl Modes {
    pub const ALL: Modes = Modes {
        form: true,
        url: true,
    };
    pub const NONE: Modes = Modes {
        form: false,
        url: false,
    };

    /// Parse the CLI's `form,url | form | url | none`.
    pub fn parse(s: &str) -> Result<Modes, String> {
        let mut modes = Modes::NONE;
        for part in s.split(',').map(str::trim) {
            match part {
                "form" => modes.form = true,
                "url" => modes.url = true,
                "none" if s.trim() == "none" => {}
                other => {
                    return Err(format!(
                        "unknown elicitation mode `{other}` (expected form,url | form | url | none)"
                    ));
                }
            }
        }
        Ok(modes)
    }
}

/// What an accepted request turns into before it is shown.
#[derive(Debug, Clone)]
pub struct ParsedElicitation {
    pub scope: Scope,
    pub message: String,
    pub kind: ElicitationKind,
    pub warnings: Vec<String>,
}

impl ParsedElicitation {
    pub fn form(&self) -> Option<&FormSchema> {
        match &self.kind {
            ElicitationKind::Form { schema, .. } => Some(schema),
            ElicitationKind::Url { .. } => None,
        }
    }
    pub fn url_id(&self) -> Option<&str> {
        match &self.kind {
            ElicitationKind::Url { elicitation_id, .. } => Some(elicitation_id),
            ElicitationKind::Form { .. } => None,
        }
    }
}

/// A request refused without asking the user, with whatever we could read of it.
#[derive(Debug, Clone)]
pub struct Rejection {
    pub error: RpcError,
    pub mode: Option<String>,
    pub message: Option<String>,
    pub url: Option<String>,
    pub elicitation_id: Option<String>,
    pub session_id: Option<String>,
    pub tool_call_id: Option<String>,
}

pub const INVALID_PARAMS: i32 = -32602;

/// What the broker needs to know about the connection to check a request's scope.
pub trait ScopeCheck {
    /// True if `session_id` names a session created on this connection.
    fn session_known(&self, session_id: &str) -> bool;
    /// The method of our request to the agent with this id, if it still awaits an answer.
    fn request_in_flight(&self, request_id: &Value) -> Option<&'static str>;
}

/// Apply every rule that does not depend on other pending elicitations.
pub fn parse_request(
    params: &Value,
    modes: Modes,
    scope_check: &dyn ScopeCheck,
) -> Result<ParsedElicitation, Box<Rejection>> {
    let str_field = |name: &str| params.get(name).and_then(Value::as_str).map(str::to_string);
    let mut rejection = Rejection {
        error: RpcError {
            code: INVALID_PARAMS,
            message: String::new(),
        },
        mode: str_field("mode"),
        message: str_field("message"),
        url: str_field("url"),
        elicitation_id: str_field("elicitationId"),
        session_id: str_field("sessionId"),
        tool_call_id: str_field("toolCallId"),
    };
    let reject = |mut r: Rejection, msg: String| {
        r.error.message = msg;
        Err(Box::new(r))
    };
    if !params.is_object() {
        return reject(rejection, "elicitation/create params must be an object".into());
    }

    let mode = match params.get("mode") {
        Some(Value::String(m)) => m.clone(),
        None | Some(Value::Null) => {
            return reject(rejection, "elicitation/create requires `mode`".into());
        }
        Some(_) => return reject(rejection, "`mode` must be a string".into()),
    };
    let advertised = match mode.as_str() {
        "form" => modes.form,
        "url" => modes.url,
        _ => {
            return reject(
                rejection,
                format!(
                    "unsupported elicitation mode `{mode}`: this client supports {}",
                    describe(modes)
                ),
            );
        }
    };
    if !advertised {
        return reject(
            rejection,
            format!(
                "elicitation mode `{mode}` was not advertised by this client (it supports {})",
                describe(modes)
            ),
        );
    }

    let message = match params.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => return reject(rejection, "elicitation/create requires a string `message`".into()),
    };

    let scope = match scope_of(params, scope_check) {
        Ok(scope) => scope,
        Err(msg) => return reject(rejection, msg),
    };
    rejection.session_id = scope.session_id().map(str::to_string);

    let mut warnings: Vec<String> = url_safety::text_warnings(&message)
        .into_iter()
        .map(|w| w.code().to_string())
        .collect();

    let kind = if mode == "form" {
        let Some(schema_value) = params.get("requestedSchema") else {
            return reject(rejection, "form elicitation requires `requestedSchema`".into());
        };
        let schema = match form::parse_form_schema(schema_value) {
            Ok(s) => s,
            Err(e) => return reject(rejection, format!("invalid requestedSchema: {e}")),
        };
        let secret_indicators = form::secret_indicators(&message, &schema);
        if !secret_indicators.is_empty() {
            warnings.insert(0, "secret-request".to_string());
        }
        for text in shown_texts(&schema) {
            warnings.extend(
                url_safety::text_warnings(text)
                    .into_iter()
                    .map(|w| w.code().to_string()),
            );
        }
        ElicitationKind::Form {
            initial_values: schema.initial_values(),
            hints: schema.hints(),
            can_accept: schema.can_accept(),
            blocking_reason: schema.blocking_reason(),
            secret: !secret_indicators.is_empty(),
            secret_indicators,
            schema,
        }
    } else {
        let elicitation_id = match params.get("elicitationId") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            _ => {
                return reject(
                    rejection,
                    "url elicitation requires a non-empty string `elicitationId`".into(),
                );
            }
        };
        let Some(url) = params.get("url").and_then(Value::as_str) else {
            return reject(rejection, "url elicitation requires a string `url`".into());
        };
        let analysis: UrlAnalysis = match url_safety::analyze_url(url, &message) {
            Ok(a) => a,
            Err(e) => return reject(rejection, format!("invalid url: {e}")),
        };
        warnings.extend(analysis.warnings.iter().map(|w| w.code().to_string()));
        ElicitationKind::Url {
            elicitation_id,
            url: analysis,
        }
    };
    warnings.sort();
    warnings.dedup();
    // Keep the loudest warning first for front ends that show only one.
    if let Some(i) = warnings.iter().position(|w| w == "secret-request") {
        let w = warnings.remove(i);
        warnings.insert(0, w);
    }
    Ok(ParsedElicitation {
        scope,
        message,
        kind,
        warnings,
    })
}

/// The interaction's scope: a session (and maybe a tool call in it), or a request outside any
/// session. A request id need not name a request of ours: the spec scopes request-level
/// interactions by any JSON-RPC id; when it does name one in flight, that is kept as context.
fn scope_of(params: &Value, check: &dyn ScopeCheck) -> Result<Scope, String> {
    let present = |name: &str| params.get(name).filter(|v| !v.is_null());
    match (present("sessionId"), present("requestId")) {
        (Some(_), Some(_)) => {
            Err("elicitation/create takes one scope: `sessionId` or `requestId`, not both".into())
        }
        (Some(Value::String(session_id)), None) => {
            if !check.session_known(session_id) {
                return Err(format!(
                    "unknown sessionId `{session_id}`: no such session on this connection"
                ));
            }
            let tool_call_id = match present("toolCallId") {
                None => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(_) => return Err("`toolCallId` must be a string".into()),
            };
            Ok(Scope::Session {
                session_id: session_id.clone(),
                tool_call_id,
            })
        }
        (Some(_), None) => Err("`sessionId` must be a string".into()),
        (None, Some(request_id)) => {
            if !is_json_rpc_id(request_id) {
                return Err("`requestId` must be a string or an integer (a JSON-RPC id)".into());
            }
            if present("toolCallId").is_some() {
                return Err("`toolCallId` belongs to a session scope, not to `requestId`".into());
            }
            Ok(Scope::Request {
                request_id: request_id.clone(),
                during: check.request_in_flight(request_id).map(str::to_string),
            })
        }
        (None, None) => Err(
            "elicitation/create needs a scope: `sessionId` (optionally with `toolCallId`) or `requestId`"
                .into(),
        ),
    }
}

/// A string or an integer: what JSON-RPC 2.0 ids are (null and fractions are not ids here).
fn is_json_rpc_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Every agent string a form shows: its title and description, each field's name, title and
/// description, and each option's value, title and description.
fn shown_texts(schema: &FormSchema) -> impl Iterator<Item = &str> {
    let form = [schema.title.as_deref(), schema.description.as_deref()];
    let fields = schema.fields.iter().flat_map(|field| {
        let options: &[form::EnumChoice] = match &field.kind {
            form::FieldKind::SingleSelect { options, .. } | form::FieldKind::MultiSelect { options, .. } => {
                options
            }
            _ => &[],
        };
        [
            Some(field.name.as_str()),
            field.title.as_deref(),
            field.description.as_deref(),
        ]
        .into_iter()
        .chain(options.iter().flat_map(|o| {
            [
                Some(o.value.as_str()),
                o.title.as_deref(),
                o.description.as_deref(),
            ]
        }))
    });
    form.into_iter().chain(fields).flatten()
}

fn describe(modes: Modes) -> &'static str {
    match (modes.form, modes.url) {
        (true, true) => "`form` and `url`",
        (true, false) => "only `form`",
        (false, true) => "only `url`",
        (false, false) => "no elicitation modes",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Check;
    impl ScopeCheck for Check {
        fn session_known(&self, s: &str) -> bool {
            s == "s1"
        }
        fn request_in_flight(&self, r: &Value) -> Option<&'static str> {
            if r == &json!(3) {
                Some("session/new")
            } else if r == &json!("r-9") {
                Some("authenticate")
            } else {
                None
            }
        }
    }

    fn parse(v: Value, modes: Modes) -> Result<ParsedElicitation, Box<Rejection>> {
        parse_request(&v, modes, &Check)
    }

    fn form(extra: Value) -> Value {
        let mut base = json!({"sessionId":"s1","mode":"form","message":"Pick",
            "requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}});
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base
    }

    fn url(u: &str) -> Value {
        json!({"sessionId":"s1","mode":"url","message":"Sign in","elicitationId":"e1","url":u})
    }

    fn code_of(r: Result<ParsedElicitation, Box<Rejection>>) -> (i32, String) {
        let r = r.expect_err("should be rejected");
        (r.error.code, r.error.message)
    }

    #[test]
    fn hidden_characters_anywhere_in_a_form_are_flagged() {
        let schemas = [
            json!({"title":"Confirm \u{202E}txt.exe","properties":{"a":{"type":"string"}}}),
            json!({"description":"zero\u{200B}width","properties":{"a":{"type":"string"}}}),
            json!({"properties":{"a\u{2066}b":{"type":"string"}}}),
            json!({"properties":{"a":{"type":"string","title":"T\u{200F}"}}}),
            json!({"properties":{"a":{"type":"string","description":"\u{FEFF}d"}}}),
            json!({"properties":{"a":{"type":"string","enum":["ok","o\u{200D}k"]}}}),
            json!({"properties":{"a":{"type":"string","oneOf":[{"const":"x","title":"X\u{202A}"}]}}}),
            json!({"properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"X","description":"\u{2067}"}]}}}}),
        ];
        for schema in schemas {
            let parsed = parse(form(json!({"requestedSchema": schema.clone()})), Modes::ALL).unwrap();
            assert!(
                parsed
                    .warnings
                    .iter()
                    .any(|w| w == "bidi-control" || w == "invisible-char"),
                "{schema}: {:?}",
                parsed.warnings
            );
        }
        let plain = parse(form(json!({})), Modes::ALL).unwrap();
        assert!(plain.warnings.is_empty(), "{:?}", plain.warnings);
        let message = parse(form(json!({"message":"Pick \u{202E}"})), Modes::ALL).unwrap();
        assert_eq!(message.warnings, vec!["bidi-control"]);
    }

    #[test]
    fn modes_parse() {
        assert_eq!(Modes::parse("form,url").unwrap(), Modes::ALL);
        assert_eq!(
            Modes::parse("url").unwrap(),
            Modes {
                form: false,
                url: true
            }
        );
        assert_eq!(Modes::parse("none").unwrap(), Modes::NONE);
        assert!(Modes::parse("form,none").is_err());
        assert!(Modes::parse("sms").is_err());
    }

    /// A free list is a field kind of Porthole's own forms only (the MCP Registry's): an
    /// agent's (or, through the gateway, a server's) form of that shape is not a list the
    /// person can fill, and when required it cannot be accepted.
    #[test]
    fn an_agents_free_list_stays_unsupported() {
        let v = form(
            json!({"requestedSchema": {"type": "object", "required": ["dirs"], "properties": {
            "dirs": {"type": "array", "items": {"type": "string"}}}}}),
        );
        let p = parse(v, Modes::ALL).unwrap();
        let schema = p.form().expect("a form");
        assert!(
            schema.fields[0].kind.is_unsupported(),
            "{:?}",
            schema.fields[0].kind
        );
        assert!(!schema.can_accept());
    }

    #[test]
    fn accepts_a_valid_form() {
        let p = parse(form(json!({"toolCallId":"tc1"})), Modes::ALL).unwrap();
        assert_eq!(p.scope.tool_call_id(), Some("tc1"));
        assert!(p.form().is_some());
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn mode_not_advertised_is_invalid_params() {
        let (code, msg) = code_of(parse(
            form(json!({})),
            Modes {
                form: false,
                url: true,
            },
        ));
        assert_eq!(code, -32602);
        assert!(msg.contains("not advertised"), "{msg}");
        let (code, _) = code_of(parse(
            url("https://example.com/"),
            Modes {
                form: true,
                url: false,
            },
        ));
        assert_eq!(code, -32602);
        assert_eq!(code_of(parse(form(json!({})), Modes::NONE)).0, -32602);
    }

    #[test]
    fn unknown_or_missing_mode_is_invalid_params() {
        let (code, msg) = code_of(parse(form(json!({"mode":"_sms"})), Modes::ALL));
        assert_eq!(code, -32602);
        assert!(msg.contains("unsupported elicitation mode `_sms`"));
        let mut v = form(json!({}));
        v.as_object_mut().unwrap().remove("mode");
        assert_eq!(code_of(parse(v, Modes::ALL)).0, -32602);
        assert_eq!(code_of(parse(json!([1]), Modes::ALL)).0, -32602);
    }

    #[test]
    fn scope_rules() {
        let (c, m) = code_of(parse(form(json!({"sessionId":"other"})), Modes::ALL));
        assert_eq!(c, -32602);
        assert!(m.contains("unknown sessionId"));
        let mut v = form(json!({}));
        v.as_object_mut().unwrap().remove("sessionId");
        let (c, m) = code_of(parse(v.clone(), Modes::ALL));
        assert_eq!(c, -32602);
        assert!(m.contains("needs a scope"));
        let scope = |v: &Value| parse(v.clone(), Modes::ALL).map(|p| p.scope);
        // A request of ours in flight: kept as the context of the question.
        v["requestId"] = json!(3);
        assert_eq!(
            scope(&v).unwrap(),
            Scope::Request {
                request_id: json!(3),
                during: Some("session/new".into())
            }
        );
        v["requestId"] = json!("r-9");
        assert_eq!(
            scope(&v).unwrap(),
            Scope::Request {
                request_id: json!("r-9"),
                during: Some("authenticate".into())
            }
        );
        // Any other well-formed id is an agent-level request outside any session.
        for id in [json!(4), json!("setup"), json!(-7), json!(u64::MAX)] {
            v["requestId"] = id.clone();
            assert_eq!(
                scope(&v).unwrap(),
                Scope::Request {
                    request_id: id,
                    during: None
                }
            );
        }
        // Malformed: not an id, both scopes, a tool call without a session.
        for id in [json!({"x":1}), json!(1.5), json!(true), json!([3])] {
            v["requestId"] = id;
            let (c, m) = code_of(parse(v.clone(), Modes::ALL));
            assert_eq!(c, -32602);
            assert!(m.contains("JSON-RPC id"), "{m}");
        }
        v["requestId"] = json!(3);
        let mut both = v.clone();
        both["sessionId"] = json!("s1");
        assert!(code_of(parse(both, Modes::ALL)).1.contains("not both"));
        let mut tool = v.clone();
        tool["toolCallId"] = json!("t1");
        assert!(code_of(parse(tool, Modes::ALL)).1.contains("session scope"));
        // An explicit null is no scope at all.
        v["requestId"] = Value::Null;
        assert!(code_of(parse(v, Modes::ALL)).1.contains("needs a scope"));
        assert_eq!(
            code_of(parse(form(json!({"toolCallId":5})), Modes::ALL)).0,
            -32602
        );
    }

    #[test]
    fn form_needs_a_valid_schema_and_message() {
        let mut v = form(json!({}));
        v.as_object_mut().unwrap().remove("requestedSchema");
        assert_eq!(code_of(parse(v, Modes::ALL)).0, -32602);
        let v = form(json!({"requestedSchema":{"properties":null}}));
        assert!(
            code_of(parse(v, Modes::ALL))
                .1
                .contains("invalid requestedSchema")
        );
        let v = form(json!({"message": 5}));
        assert_eq!(code_of(parse(v, Modes::ALL)).0, -32602);
    }

    #[test]
    fn secret_forms_are_flagged_first() {
        let v = form(json!({"message":"Paste your API key\u{200B}",
            "requestedSchema":{"properties":{"api_key":{"type":"string"}}}}));
        let p = parse(v, Modes::ALL).unwrap();
        assert_eq!(p.warnings[0], "secret-request");
        assert!(p.warnings.contains(&"invisible-char".to_string()));
    }

    #[test]
    fn url_rules() {
        let p = parse(url("https://accounts.example.com/a?state=1"), Modes::ALL).unwrap();
        assert_eq!(p.url_id(), Some("e1"));
        assert!(p.warnings.is_empty());
        for bad in [
            "https://user:pw@example.com/",
            "https://user@example.com/",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "/relative",
            "not a url",
        ] {
            let (c, m) = code_of(parse(url(bad), Modes::ALL));
            assert_eq!(c, -32602, "{bad}");
            assert!(m.starts_with("invalid url"), "{bad}: {m}");
        }
        let mut v = url("https://example.com/");
        v.as_object_mut().unwrap().remove("elicitationId");
        assert_eq!(code_of(parse(v, Modes::ALL)).0, -32602);
        let p = parse(url("http://xn--80ak6aa92e.com:8443/"), Modes::ALL).unwrap();
        for w in ["punycode", "non-https", "unusual-port"] {
            assert!(p.warnings.contains(&w.to_string()), "{w} in {:?}", p.warnings);
        }
    }
}
