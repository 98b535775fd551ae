//! API-key sign-in through `authenticate`'s `_meta["api-key"]`: the convention agents use now
//! that `env_var` methods have left the spec. The user types the key once; the client sends it
//! with `authenticate`, and the agent keeps it for its sessions.
//!
//! Two shapes are in use:
//! - Gemini CLI's `gemini-api-key` method advertises `_meta: {"api-key": {"provider": ...}}`
//!   and reads `authenticate`'s `_meta["api-key"]` as the key itself (a string). Any method
//!   that advertises `_meta["api-key"]` is taken to work this way.
//! - Codex (`codex-acp`) advertises a plain `api-key` method and reads
//!   `_meta["api-key"]["apiKey"]`; earlier versions read `_meta["apiKey"]`, so both are sent.

use agent_client_protocol::v1::schema::{AuthMethod, Meta};
use serde_json::{Value, json};

/// How an agent takes an API key in `authenticate`'s `_meta["api-key"]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ApiKeyShape {
    /// `{"api-key": "KEY"}` (Gemini CLI, and methods that advertise `_meta["api-key"]`).
    Text,
    /// `{"api-key": {"apiKey": "KEY"}, "apiKey": "KEY"}` (Codex's `api-key` method; the second
    /// for codex-acp versions that read `_meta.apiKey`).
    Object,
}

/// Whether `method` of the agent named `agent_name` (its `agentInfo.name`) signs in with an
/// API key sent in `authenticate`, and in which shape. Terminal methods never do.
pub fn api_key_shape(agent_name: &str, method: &AuthMethod) -> Option<ApiKeyShape> {
    if !matches!(method, AuthMethod::Agent(_)) {
        return None;
    }
    let advertised = method.meta().is_some_and(|m| m.contains_key("api-key"));
    let codex = agent_name.contains("codex-acp");
    if codex && (advertised || method.id().0.as_ref() == "api-key") {
        Some(ApiKeyShape::Object)
    } else if advertised {
        Some(ApiKeyShape::Text)
    } else {
        None
    }
}

/// The `_meta` of an `authenticate` request carrying `key`.
pub fn authenticate_meta(shape: ApiKeyShape, key: &str) -> Meta {
    match shape {
        ApiKeyShape::Text => Meta::from_iter([("api-key".to_string(), Value::String(key.to_string()))]),
        ApiKeyShape::Object => Meta::from_iter([
            ("api-key".to_string(), json!({ "apiKey": key })),
            ("apiKey".to_string(), Value::String(key.to_string())),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(v: Value) -> AuthMethod {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn gemini_codex_and_other_methods() {
        let gemini = method(json!({"id": "gemini-api-key", "name": "Gemini API key",
            "_meta": {"api-key": {"provider": "google"}}}));
        assert_eq!(api_key_shape("gemini-cli", &gemini), Some(ApiKeyShape::Text));
        // Advertised by any agent: the string form.
        assert_eq!(api_key_shape("someone-else", &gemini), Some(ApiKeyShape::Text));
        let google = method(json!({"id": "oauth-personal", "name": "Log in with Google"}));
        assert_eq!(api_key_shape("gemini-cli", &google), None);
        let codex = method(json!({"id": "api-key", "name": "API Key"}));
        assert_eq!(
            api_key_shape("@agentclientprotocol/codex-acp", &codex),
            Some(ApiKeyShape::Object)
        );
        assert_eq!(api_key_shape("porthole-test-agent", &codex), None);
        let chat_gpt = method(json!({"id": "chat-gpt", "name": "ChatGPT"}));
        assert_eq!(api_key_shape("@agentclientprotocol/codex-acp", &chat_gpt), None);
        let terminal = method(json!({"id": "login", "name": "Login", "type": "terminal",
            "_meta": {"api-key": {}}}));
        assert_eq!(api_key_shape("gemini-cli", &terminal), None);
    }

    #[test]
    fn the_meta_carries_the_key_in_each_shape() {
        assert_eq!(
            Value::Object(authenticate_meta(ApiKeyShape::Text, "k1")),
            json!({"api-key": "k1"})
        );
        assert_eq!(
            Value::Object(authenticate_meta(ApiKeyShape::Object, "k2")),
            json!({"api-key": {"apiKey": "k2"}, "apiKey": "k2"})
        );
    }
}
