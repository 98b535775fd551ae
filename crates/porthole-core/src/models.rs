//! Model selection with `session/set_model`, and the session requests that carry the agent's
//! models. The method is an unstable part of ACP that the SDK no longer carries, but most
//! deployed agents still implement it (16 of the ACP registry's 30 in its protocol matrix). An
//! agent that supports it returns `models` with a session (new, load, resume, fork); nothing is
//! sent to one that did not.
//!
//! The SDK's typed session responses drop fields they do not know, so the session requests are
//! sent here as thin wrappers of the SDK's own request types whose response also keeps
//! `models`. They go through the SDK like any request (custom typed messages are part of its
//! API); nothing here writes JSON-RPC by hand.

use agent_client_protocol::v1::schema::{
    ForkSessionRequest, ForkSessionResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, ResumeSessionRequest, ResumeSessionResponse,
};
use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The models an agent offers for one session, and the one in use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionModels {
    pub current_model_id: String,
    pub available_models: Vec<ModelInfo>,
}

/// One model on offer (`session/set_model` takes its id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelInfo {
    pub model_id: String,
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub description: Option<String>,
}

impl SessionModels {
    pub fn offers(&self, model_id: &str) -> bool {
        self.available_models.iter().any(|m| m.model_id == model_id)
    }
}

/// A session response as the SDK types it, plus the agent's `models` when it sent them.
/// Read from the whole JSON object, not with `#[serde(flatten)]`: some SDK response types do
/// not deserialize through serde's flatten buffer.
#[derive(Debug, Clone, JsonRpcResponse)]
pub(crate) struct WithModels<T> {
    pub(crate) response: T,
    /// A malformed `models` is read as none: the session works, without a model picker.
    pub(crate) models: Option<SessionModels>,
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for WithModels<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let models = value
            .get("models")
            .and_then(|m| serde_json::from_value(m.clone()).ok());
        let response = serde_json::from_value(value).map_err(serde::de::Error::custom)?;
        Ok(WithModels { response, models })
    }
}

impl<T: Serialize> Serialize for WithModels<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(&self.response).map_err(serde::ser::Error::custom)?;
        if let (Some(object), Some(models)) = (value.as_object_mut(), &self.models) {
            object.insert(
                "models".into(),
                serde_json::to_value(models).map_err(serde::ser::Error::custom)?,
            );
        }
        value.serialize(s)
    }
}

/// `session/new`, read with its `models`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/new", response = WithModels<NewSessionResponse>)]
#[serde(transparent)]
pub(crate) struct NewSession(pub(crate) NewSessionRequest);

/// `session/load`, read with its `models`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/load", response = WithModels<LoadSessionResponse>)]
#[serde(transparent)]
pub(crate) struct LoadSession(pub(crate) LoadSessionRequest);

/// `session/resume`, read with its `models`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/resume", response = WithModels<ResumeSessionResponse>)]
#[serde(transparent)]
pub(crate) struct ResumeSession(pub(crate) ResumeSessionRequest);

/// `session/fork` (the SDK's unstable feature), read with its `models`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/fork", response = WithModels<ForkSessionResponse>)]
#[serde(transparent)]
pub(crate) struct ForkSession(pub(crate) ForkSessionRequest);

/// `session/set_model`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "session/set_model", response = SetModelResponse)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetModelRequest {
    pub(crate) session_id: String,
    pub(crate) model_id: String,
}

/// The answer to `session/set_model` carries nothing we use (`{}` or `_meta`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonRpcResponse)]
pub(crate) struct SetModelResponse {
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    meta: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::JsonRpcMessage;
    use serde_json::json;

    #[test]
    fn a_session_response_keeps_the_sdks_fields_and_the_models() {
        let r: WithModels<NewSessionResponse> = serde_json::from_value(json!({
            "sessionId": "s1",
            "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
            "models": {"currentModelId": "fast", "availableModels": [
                {"modelId": "fast", "name": "Fast"}, {"modelId": "deep", "name": "Deep", "description": "Slow"}]}
        }))
        .unwrap();
        assert_eq!(r.response.session_id.0.as_ref(), "s1");
        assert!(r.response.modes.is_some());
        let models = r.models.unwrap();
        assert_eq!(models.current_model_id, "fast");
        assert!(models.offers("deep") && !models.offers("huge"));
    }

    #[test]
    fn no_or_malformed_models_mean_no_model_picker() {
        let r: WithModels<NewSessionResponse> = serde_json::from_value(json!({"sessionId": "s1"})).unwrap();
        assert!(r.models.is_none());
        let r: WithModels<NewSessionResponse> =
            serde_json::from_value(json!({"sessionId": "s1", "models": {"currentModelId": 3}})).unwrap();
        assert!(r.models.is_none());
    }

    #[test]
    fn the_wrapped_requests_serialize_as_the_sdks() {
        let sdk = NewSessionRequest::new("/tmp");
        assert_eq!(
            serde_json::to_value(NewSession(sdk.clone())).unwrap(),
            serde_json::to_value(sdk).unwrap()
        );
        assert!(NewSession::matches_method("session/new"));
        let set = serde_json::to_value(SetModelRequest {
            session_id: "s1".into(),
            model_id: "deep".into(),
        })
        .unwrap();
        assert_eq!(set, json!({"sessionId": "s1", "modelId": "deep"}));
    }
}
