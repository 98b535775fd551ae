//! Heuristic detection of form-mode elicitations that ask for secrets.
//!
//! The spec says form mode MUST NOT be used for passwords, API keys, access
//! or refresh tokens, private keys, recovery codes or payment credentials
//! (URL mode is for those). An agent that does it anyway is misbehaving; the
//! UI uses this module to warn the user (or refuse) before anything is
//! typed.
//!
//! Text is split into words (on anything that is not a letter or digit, and
//! at camelCase humps: `apiKey`, `APIKey`, `api_key`, `api-key`, `API key`
//! all give `api key`), lower-cased, and matched against whole-word terms,
//! so `keyboard`, `pinned`, `passport`, `tokenizer`, `username` and `email`
//! never match. Multi-word terms win over the single words inside them
//! (`client secret` is reported once, as "client secret"). Checked: the
//! elicitation message, the schema title and description, and each field's
//! name, title and description (option labels are not: choosing an option
//! does not disclose a secret).
//!
//! `token` alone is ambiguous in an AI client ("max tokens", "token
//! limit"): it is not matched next to a word that makes it a count
//! (`limit`, `count`, `budget`, `max`, `input`, ...), and its plural is not
//! matched at all, while `access tokens`, `API keys` etc. are.

use super::model::{Field, FormSchema, quote};

/// One term: the words to match and the label shown to the user.
struct Term {
    label: &'static str,
    words: &'static [&'static str],
    /// Also match with an `s` on the last word.
    plural: bool,
}

const fn term(label: &'static str, words: &'static [&'static str], plural: bool) -> Term {
    Term { label, words, plural }
}

/// Longest terms first, so that a multi-word term claims its words before
/// a single-word term can.
const TERMS: &[Term] = &[
    term("one-time code", &["one", "time", "code"], true),
    term("one-time code", &["one", "time", "passcode"], true),
    term("API key", &["api", "key"], true),
    term("API key", &["api", "token"], true),
    term("access token", &["access", "token"], true),
    term("refresh token", &["refresh", "token"], true),
    term("auth token", &["auth", "token"], true),
    term("bearer token", &["bearer", "token"], true),
    term("client secret", &["client", "secret"], true),
    term("secret key", &["secret", "key"], true),
    term("private key", &["private", "key"], true),
    term("SSH key", &["ssh", "key"], true),
    term("seed phrase", &["seed", "phrase"], true),
    term("recovery phrase", &["recovery", "phrase"], true),
    term("passphrase", &["pass", "phrase"], true),
    term("recovery code", &["recovery", "code"], true),
    term("backup code", &["backup", "code"], true),
    term("verification code", &["verification", "code"], true),
    term("one-time code", &["onetime", "code"], true),
    term("one-time code", &["otp", "code"], true),
    term("2FA code", &["2fa", "code"], true),
    term("MFA code", &["mfa", "code"], true),
    term("card number", &["card", "number"], true),
    term("credit card", &["credit", "card"], true),
    term("debit card", &["debit", "card"], true),
    term("security code", &["security", "code"], true),
    term("routing number", &["routing", "number"], true),
    term("PIN", &["pin", "code"], true),
    term("password", &["password"], true),
    term("password", &["passwd"], false),
    term("passphrase", &["passphrase"], true),
    term("passcode", &["passcode"], true),
    term("PIN", &["pin"], false),
    term("API key", &["apikey"], true),
    term("access token", &["accesstoken"], true),
    term("refresh token", &["refreshtoken"], true),
    term("auth token", &["authtoken"], true),
    term("bearer token", &["bearer"], false),
    term("token", &["token"], false),
    term("client secret", &["clientsecret"], true),
    term("secret", &["secret"], true),
    term("private key", &["privatekey"], true),
    term("SSH key", &["sshkey"], true),
    term("seed phrase", &["seedphrase"], true),
    term("mnemonic", &["mnemonic"], true),
    term("recovery code", &["recoverycode"], true),
    term("2FA code", &["2fa"], false),
    term("MFA code", &["mfa"], false),
    term("one-time code", &["otp"], false),
    term("one-time code", &["totp"], false),
    term("card number", &["cardnumber"], true),
    term("credit card", &["creditcard"], true),
    term("CVV", &["cvv"], false),
    term("CVV", &["cvv2"], false),
    term("CVC", &["cvc"], false),
    term("CVC", &["cvc2"], false),
    term("IBAN", &["iban"], false),
];

/// Words that, right after `token`, make it a count rather than a secret.
const TOKEN_COUNT_NEXT: &[&str] = &[
    "limit", "limits", "count", "counts", "budget", "budgets", "usage", "window", "size", "length", "cap",
];
/// Words that, right before `token`, make it a count rather than a secret.
const TOKEN_COUNT_PREV: &[&str] = &[
    "max",
    "maximum",
    "min",
    "minimum",
    "input",
    "output",
    "prompt",
    "completion",
    "per",
];

/// Split text into lower-cased words: runs of letters/digits, further split
/// at camelCase humps (`aB` → `a|B`, `ABc` → `A|Bc`).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let next_lower = chars.peek().is_some_and(|n| n.is_lowercase());
            let hump = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower);
            if hump && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
        current.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn word_matches(word: &str, expected: &str, plural: bool) -> bool {
    word == expected || (plural && word.strip_suffix('s') == Some(expected))
}

fn term_at(words: &[String], i: usize, term: &Term) -> bool {
    let n = term.words.len();
    let Some(window) = words.get(i..i + n) else {
        return false;
    };
    let last = n.saturating_sub(1);
    let all = window
        .iter()
        .zip(term.words)
        .enumerate()
        .all(|(k, (w, t))| word_matches(w, t, term.plural && k == last));
    if !all {
        return false;
    }
    if term.words == ["token"] {
        let next = words.get(i + 1).map(String::as_str);
        let prev = i.checked_sub(1).and_then(|j| words.get(j)).map(String::as_str);
        if next.is_some_and(|w| TOKEN_COUNT_NEXT.contains(&w))
            || prev.is_some_and(|w| TOKEN_COUNT_PREV.contains(&w))
        {
            return false;
        }
    }
    true
}

/// The labels of the secret terms found in `text`, in order, once each.
fn find_terms(text: &str) -> Vec<&'static str> {
    let words = words(text);
    let mut found: Vec<&'static str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match TERMS.iter().find(|t| term_at(&words, i, t)) {
            Some(t) => {
                if !found.contains(&t.label) {
                    found.push(t.label);
                }
                i += t.words.len();
            }
            None => i += 1,
        }
    }
    found
}

/// True if the elicitation looks like it asks for a secret or credential.
pub fn is_secret_request(message: &str, schema: &FormSchema) -> bool {
    !secret_indicators(message, schema).is_empty()
}

/// What made [`is_secret_request`] fire, for the UI: e.g.
/// `message ("token")`, `form title ("password")`,
/// `field `api_key` ("API key")`. One entry per place and term.
pub fn secret_indicators(message: &str, schema: &FormSchema) -> Vec<String> {
    let mut out = Vec::new();
    let mut report = |place: &str, labels: Vec<&'static str>| {
        for label in labels {
            out.push(format!("{place} (\"{label}\")"));
        }
    };
    report("message", find_terms(message));
    if let Some(title) = &schema.title {
        report("form title", find_terms(title));
    }
    if let Some(description) = &schema.description {
        report("form description", find_terms(description));
    }
    for field in &schema.fields {
        report(&format!("field `{}`", quote(&field.name)), field_terms(field));
    }
    out
}

/// The secret terms in a field's name, title and description, once each.
fn field_terms(field: &Field) -> Vec<&'static str> {
    let mut labels = find_terms(&field.name);
    if field.masked {
        labels.push("marked secret by the agent");
    }
    for text in [&field.title, &field.description].into_iter().flatten() {
        for label in find_terms(text) {
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
    }
    labels
}

/// The names of the fields whose own name, title or description asks for a secret: what a
/// record of submitted values must leave out.
pub fn secret_fields(schema: &FormSchema) -> Vec<&str> {
    schema
        .fields
        .iter()
        .filter(|f| !field_terms(f).is_empty())
        .map(|f| f.name.as_str())
        .collect()
}

/// True when the message or the form's title or description asks for a secret. Such a
/// secret cannot be pinned to one field, so none of the values should be kept.
pub fn secret_outside_fields(message: &str, schema: &FormSchema) -> bool {
    [
        Some(message),
        schema.title.as_deref(),
        schema.description.as_deref(),
    ]
    .into_iter()
    .flatten()
    .any(|text| !find_terms(text).is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_form_schema;
    use super::*;
    use serde_json::{Value, json};

    fn schema(v: Value) -> FormSchema {
        match parse_form_schema(&v) {
            Ok(s) => s,
            Err(e) => panic!("schema should parse: {e}"),
        }
    }

    fn field_named(name: &str) -> FormSchema {
        let mut props = serde_json::Map::new();
        props.insert(name.into(), json!({"type": "string"}));
        schema(json!({"type": "object", "properties": props}))
    }

    fn empty() -> FormSchema {
        schema(json!({"type": "object"}))
    }

    /// Codex's `_meta.codex.isSecret` (codex-acp `buildUserInputRequest`): flagged and kept out
    /// of records even when nothing in its words says "secret".
    #[test]
    fn a_field_the_agent_marks_secret_is_a_secret_field() {
        let s = schema(json!({"properties":{
            "answer":{"type":"string","title":"Your answer","_meta":{"codex":{"isSecret":true}}},
            "plain":{"type":"string","title":"Your name"}}}));
        assert!(is_secret_request("Codex needs your input to continue.", &s));
        assert_eq!(secret_fields(&s), ["answer"]);
        assert_eq!(
            secret_indicators("", &s),
            ["field `answer` (\"marked secret by the agent\")"]
        );
    }

    #[test]
    fn word_splitting() {
        assert_eq!(words("apiKey"), ["api", "key"]);
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("api_key"), ["api", "key"]);
        assert_eq!(words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(words("API key"), ["api", "key"]);
        assert_eq!(words("APIKEY"), ["apikey"]);
        assert_eq!(words("newPassword2"), ["new", "password2"]);
        assert_eq!(words("2FA code"), ["2fa", "code"]);
        assert_eq!(words("  Ünïcode—Wörds "), ["ünïcode", "wörds"]);
        assert!(words("").is_empty());
        assert!(words("--__  ").is_empty());
    }

    #[test]
    fn password_field_is_flagged() {
        for name in [
            "password",
            "newPassword",
            "user_password",
            "PASSWORD",
            "passwd",
            "passwords",
        ] {
            assert!(is_secret_request("", &field_named(name)), "{name}");
        }
        let ind = secret_indicators("", &field_named("password"));
        assert_eq!(ind, [r#"field `password` ("password")"#]);
    }

    #[test]
    fn api_key_title_is_flagged() {
        let s = schema(json!({"properties": {"cfg": {"type": "string", "title": "API key"}}}));
        assert_eq!(secret_indicators("", &s), [r#"field `cfg` ("API key")"#]);
        for name in [
            "api_key",
            "apiKey",
            "APIKey",
            "apikey",
            "x-api-key",
            "openaiApiKeys",
        ] {
            let ind = secret_indicators("", &field_named(name));
            assert_eq!(ind, [format!("field `{name}` (\"API key\")")], "{name}");
        }
    }

    #[test]
    fn message_token_is_flagged() {
        assert_eq!(
            secret_indicators("Please enter your token", &empty()),
            [r#"message ("token")"#]
        );
        assert!(is_secret_request("Paste your GitHub access token.", &empty()));
        assert_eq!(
            secret_indicators("Paste your GitHub access token.", &empty()),
            [r#"message ("access token")"#],
            "multi-word term wins over `token`"
        );
        assert!(is_secret_request("We need a refresh_token", &empty()));
        assert!(is_secret_request("Authorization: Bearer …", &empty()));
    }

    #[test]
    fn payment_terms_are_flagged() {
        for text in [
            "Card number",
            "cardNumber",
            "credit card",
            "CVV",
            "cvc2",
            "Security code",
            "IBAN",
            "Routing number",
        ] {
            assert!(is_secret_request(text, &empty()), "{text}");
            assert!(is_secret_request("", &field_named(text)), "field {text}");
        }
    }

    #[test]
    fn other_secret_terms_are_flagged() {
        for text in [
            "passphrase",
            "pass phrase",
            "passcode",
            "Enter your PIN",
            "pin",
            "myPIN",
            "client_secret",
            "secret",
            "Private key",
            "ssh_key",
            "SSH private key",
            "seed phrase",
            "mnemonic",
            "recovery codes",
            "backup code",
            "2FA",
            "OTP",
            "one-time code",
            "TOTP",
            "verification code",
        ] {
            assert!(is_secret_request(text, &empty()), "{text}");
        }
    }

    #[test]
    fn ordinary_words_are_not_flagged() {
        for text in [
            "username",
            "Username",
            "email",
            "Email address",
            "keyboard layout",
            "keyboardShortcut",
            "passport number",
            "pinned",
            "Pinned tabs",
            "spinner",
            "tokenizer settings",
            "Max tokens",
            "max_tokens",
            "Token limit",
            "output token budget",
            "sort key",
            "Display name",
            "secretary",
            "compass",
            "bypass",
            "Choose how aggressively to refactor",
            "Project Name",
            "Port Number",
            "",
        ] {
            assert!(!is_secret_request(text, &empty()), "message {text}");
            assert!(!is_secret_request("", &field_named(text)), "field {text}");
        }
    }

    #[test]
    fn schema_texts_and_descriptions_are_checked() {
        let s = schema(json!({
            "title": "Connect your account",
            "description": "We need your password to continue",
            "properties": {
                "user": {"type": "string", "title": "Username"},
                "code": {"type": "string", "description": "The 6-digit code from your authenticator (OTP)"}
            }
        }));
        assert_eq!(
            secret_indicators("", &s),
            [
                r#"form description ("password")"#,
                r#"field `code` ("one-time code")"#
            ]
        );
        let s = schema(json!({"title": "Enter API keys", "properties": {}}));
        assert_eq!(secret_indicators("", &s), [r#"form title ("API key")"#]);
    }

    #[test]
    fn rfd_examples_are_not_flagged() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Project Name"},
                "port": {"type": "integer", "title": "Port Number", "minimum": 1024, "maximum": 65535, "default": 3000},
                "enableLogging": {"type": "boolean", "title": "Enable Logging", "default": true},
                "workspaceName": {"type": "string", "title": "Workspace Name", "description": "The name of your workspace"}
            },
            "required": ["name"]
        }));
        assert!(!is_secret_request("Please provide configuration details", &s));
        assert!(!is_secret_request(
            "Please provide your workspace name to continue setup.",
            &s
        ));
    }

    #[test]
    fn secret_fields_and_form_level_secrets() {
        let s = schema(json!({"properties": {
            "user": {"type": "string", "title": "Username"},
            "pw": {"type": "string", "title": "Password"},
            "note": {"type": "string", "description": "Your API key, if you have one"}
        }}));
        assert_eq!(secret_fields(&s), ["pw", "note"]);
        assert!(!secret_outside_fields("Sign in to continue", &s));
        assert!(secret_outside_fields("Enter your token", &s));
        let titled = schema(json!({"title": "Recovery codes", "properties": {"a": {"type": "string"}}}));
        assert!(secret_fields(&titled).is_empty());
        assert!(secret_outside_fields("", &titled));
    }

    #[test]
    fn one_indicator_per_field_and_term() {
        let s = schema(json!({"properties": {
            "password": {"type": "string", "title": "Password", "description": "Your password (PIN also works)"}
        }}));
        assert_eq!(
            secret_indicators("", &s),
            [r#"field `password` ("password")"#, r#"field `password` ("PIN")"#]
        );
    }
}
