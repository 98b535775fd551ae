//! The rules an ACP client needs to show elicitations safely, with no async runtime and no ACP
//! SDK: plain JSON in, plain data out. Porthole's core uses them; any other client can too.
//!
//! - [`form`]: the restricted JSON Schema of form-mode elicitation as a model a UI can render
//!   (every field kind, defaults, property order kept), the validator that decides what may be
//!   sent (one source of truth; agent regexes run in the linear-time `regex` crate with size and
//!   work limits), the words for each field's constraints, and detection of forms that ask for
//!   secrets (which the spec forbids in form mode).
//! - [`url_safety`]: what a URL-mode elicitation's URL is (registrable domain, Unicode and
//!   ASCII host) and what a user must be warned about (look-alike characters, Punycode, mixed
//!   scripts, raw IPs, plain http, unusual ports, hidden characters), which URLs must never be
//!   opened.
//! - [`hidden_chars`]: the characters never shown as themselves (bidi controls, invisible and
//!   control characters), and the cleaner that shows agent text with them made visible.
//! - [`loopback`]: the one rule for a host on this computer.
//!
//! A form, from the agent's schema to the content sent back:
//!
//! ```
//! use porthole_elicitation::form::parse_form_schema;
//! use serde_json::json;
//!
//! let schema = parse_form_schema(&json!({
//!     "type": "object",
//!     "properties": {
//!         "name": {"type": "string", "title": "Project name", "minLength": 3, "default": "demo"},
//!         "port": {"type": "integer", "minimum": 1, "maximum": 65535}
//!     },
//!     "required": ["name", "port"]
//! }))
//! .expect("a valid restricted schema");
//!
//! // What to pre-fill, and what to say under each field before the user types.
//! assert_eq!(schema.initial_values()["name"], "demo");
//! assert_eq!(schema.hints()["port"], "A whole number, 1 to 65535.");
//!
//! // The user's answer is validated here, never in the UI.
//! let answer = json!({"name": "demo", "port": 70000});
//! let v = schema.validate(answer.as_object().unwrap());
//! assert!(!v.is_valid());
//! assert_eq!(v.errors[0].field, "port");
//! let answer = json!({"name": "demo", "port": 8080});
//! assert!(schema.validate(answer.as_object().unwrap()).is_valid());
//! ```
//!
//! A URL before asking the user to open it:
//!
//! ```
//! use porthole_elicitation::hidden_chars::neutralize;
//! use porthole_elicitation::url_safety::{UrlWarning, analyze_url};
//!
//! let a = analyze_url("https://accounts.xn--ggle-55da.com/login", "Sign in to Google").unwrap();
//! assert_eq!(a.registrable_domain.as_deref(), Some("gооgle.com")); // Cyrillic о
//! assert!(a.warnings.contains(&UrlWarning::Punycode));
//!
//! assert!(analyze_url("javascript:alert(1)", "").is_err()); // never offered to the user
//! assert_eq!(neutralize("evil\u{202E}txt.exe"), "evil⟨U+202E⟩txt.exe");
//! ```

pub mod form;
pub mod hidden_chars;
pub mod loopback;
pub mod url_safety;

#[cfg(test)]
mod ui_contract;
