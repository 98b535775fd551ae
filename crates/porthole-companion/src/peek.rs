//! What a JSON-RPC line is, found without building a value from it: its method, id and the
//! raw text of its params or result. A line that is not a JSON object (garbage, a banner) is
//! `None`, and the relay passes it on as it came.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize, Default)]
pub struct Peeked<'a> {
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

impl Peeked<'_> {
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    pub fn is_notification(&self) -> bool {
        self.method.is_some() && self.id.is_none()
    }

    pub fn is_response(&self) -> bool {
        self.method.is_none() && self.id.is_some()
    }

    /// The id as JSON text (`7`, `"abc"`), the key both sides of the relay use.
    pub fn id_key(&self) -> Option<&str> {
        self.id.map(RawValue::get)
    }

    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }
}

pub fn peek(line: &[u8]) -> Option<Peeked<'_>> {
    serde_json::from_slice(line).ok()
}

/// The prefix every SDK writes `session/update` with: the relay's hottest line is recognised
/// by it without parsing (anything else gets [`peek`]).
pub const SESSION_UPDATE_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","method":"session/update","#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_notifications_and_responses() {
        let r = peek(br#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"a":1}}"#).unwrap();
        assert!(r.is_request());
        assert_eq!(r.id_key(), Some("7"));
        assert_eq!(r.method(), "elicitation/create");
        assert_eq!(r.params.unwrap().get(), r#"{"a":1}"#);
        let n = peek(br#"{"method":"session/update","jsonrpc":"2.0","params":{}}"#).unwrap();
        assert!(n.is_notification());
        let a = peek(br#"{"jsonrpc":"2.0","id":"x","result":{"sessionId":"s"}}"#).unwrap();
        assert!(a.is_response());
        assert_eq!(a.id_key(), Some(r#""x""#));
        assert!(peek(b"Starting agent v1.2...").is_none());
        assert!(peek(b"[1,2]").is_none());
    }

    #[test]
    fn an_escaped_method_name_is_read_as_its_text() {
        let r = peek(br#"{"jsonrpc":"2.0","id":1,"method":"elicitation\/create"}"#).unwrap();
        assert_eq!(r.method(), "elicitation/create");
    }
}
