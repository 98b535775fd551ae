//! `initialize` through the SDK, with the raw `authMethods` kept beside the typed answer: the
//! SDK's typed `AuthMethod` reads an unknown `type` (such as `env_var`) as an agent method and
//! drops its fields, so front ends read those methods from the raw list
//! (`porthole_profiles::sign_in`).

use agent_client_protocol::v1::schema::{InitializeRequest, InitializeResponse};
use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `initialize` through the SDK, with the raw `authMethods` kept beside the typed answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "initialize", response = InitializeAnswer)]
#[serde(transparent)]
pub(crate) struct Initialize(pub(crate) InitializeRequest);

#[derive(Debug, Clone, JsonRpcResponse)]
pub(crate) struct InitializeAnswer {
    pub(crate) response: InitializeResponse,
    pub(crate) raw_auth_methods: Value,
}

impl<'de> Deserialize<'de> for InitializeAnswer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let raw_auth_methods = value.get("authMethods").cloned().unwrap_or(Value::Null);
        let response = serde_json::from_value(value).map_err(serde::de::Error::custom)?;
        Ok(InitializeAnswer {
            response,
            raw_auth_methods,
        })
    }
}

impl Serialize for InitializeAnswer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.response.serialize(s)
    }
}
