//! The registry's answers as they arrive (API v0.1, `server.json` of schema 2025-10-17 and
//! later): every field optional or defaulted and unknown fields ignored, because the format
//! grows additively. Nothing here is trusted; `check.rs` turns it into [`crate::Entry`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// `GET /v0.1/servers` (and `.../versions`): `servers` and `metadata.nextCursor`.
#[derive(Debug, Deserialize)]
pub(crate) struct ServerList {
    #[serde(default)]
    pub servers: Vec<Value>,
    #[serde(default)]
    pub metadata: Option<ListMetadata>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListMetadata {
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// One answer entry: `{"server": server.json, "_meta": {"io.modelcontextprotocol.registry/official": ...}}`.
#[derive(Debug, Deserialize)]
pub(crate) struct ServerResponse {
    pub server: ServerJson,
    #[serde(default, rename = "_meta")]
    pub meta: BTreeMap<String, Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerJson {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub website_url: Option<String>,
    #[serde(default)]
    pub repository: Option<Repository>,
    #[serde(default)]
    pub icons: Vec<Icon>,
    #[serde(default)]
    pub packages: Vec<Package>,
    #[serde(default)]
    pub remotes: Vec<Remote>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Repository {
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Icon {
    pub src: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Package {
    pub registry_type: String,
    #[serde(default)]
    pub registry_base_url: Option<String>,
    pub identifier: String,
    #[serde(default)]
    pub version: Option<String>,
    /// An MCP bundle's SHA-256 (hex), which its file must have.
    #[serde(default)]
    pub file_sha256: Option<String>,
    #[serde(default)]
    pub transport: Option<Transport>,
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    #[serde(default)]
    pub environment_variables: Vec<KeyValueInput>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Transport {
    #[serde(rename = "type")]
    pub kind: String,
}

/// An input: the common fields of arguments, variables, headers and URL variables.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Input {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Argument {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub value_hint: Option<String>,
    /// The argument may be given several times (`--dir A --dir B`).
    #[serde(default)]
    pub is_repeated: bool,
    #[serde(flatten)]
    pub input: Input,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct KeyValueInput {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Remote {
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    #[serde(default)]
    pub headers: Vec<KeyValueInput>,
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}
