//! The snapshot the window renders: typed here, serialized once, and its TypeScript types
//! generated from these structs (`ui_contract.rs` writes `ui/src/lib/generated/app.ts`), so the
//! window cannot read a field the app does not send.

use std::collections::BTreeMap;

use porthole_core::AgentClient;
use porthole_core::acp::v1::schema::AgentCapabilities;
use porthole_core::events::AgentIdentity;
use porthole_profiles::sign_in::{self, EnvVarSpec};
use serde::Serialize;
use serde_json::Value;

use crate::launch::Profile;
use crate::settings::Settings;
use crate::{Conn, SessionView};

/// The one field of an API-key method's form: its key goes in `authenticate`'s `_meta["api-key"]`.
pub(crate) const API_KEY_FIELD: &str = "api-key";

/// Everything the window shows besides transcripts and dialogs.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct AppSnapshot {
    pub agents: Vec<Profile>,
    pub connections: Vec<ConnectionView>,
    pub sessions: Vec<SessionView>,
    /// The agents settings file (Zed's agent_servers shape).
    pub settings_path: String,
    pub settings_error: Option<String>,
    pub permission_rules: Vec<PermissionRuleView>,
    /// Whether the isolated (sealed) URL window is available in this build.
    pub sealed_view_available: bool,
    pub default_cwd: String,
    pub app_settings: Settings,
    pub app_settings_path: Option<String>,
    pub app_settings_error: Option<String>,
    /// Set when the consent history could not be opened (the app runs without it).
    pub history_error: Option<String>,
    /// The folder of the log files (warnings and errors), when there is one: Settings links it.
    pub log_dir: Option<String>,
    /// Why editors' proxies cannot reach this app (its companion socket was refused: a
    /// directory of another user, a symlink), shown in the window, not only logged.
    pub companion_error: Option<String>,
    /// Names of the sign-in values saved in the OS keyring, per agent id (never the values).
    pub stored_sign_in: BTreeMap<String, Vec<String>>,
}

/// Where an agent's connection is: its process starting, connected (`initialize` answered),
/// failed (it could not start, or exited unasked), or exited when asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub enum ConnectionState {
    Starting,
    Connected,
    Failed,
    Exited,
}

/// One agent's connection (one process each).
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "Connection"))]
pub struct ConnectionView {
    pub agent_id: String,
    pub state: ConnectionState,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "AgentIdentity | null"))]
    pub agent: Option<AgentIdentity>,
    /// The ACP version the connection speaks (1, or 2 when the agent took the v2 offer);
    /// `null` before `initialize` is answered.
    pub protocol_version: Option<u16>,
    /// The agent takes a prompt sent while a turn runs and holds or steers it itself, as its
    /// `initialize` answer's `_meta` says: the window sends a follow-up at once, not queued.
    pub takes_follow_ups: bool,
    pub error: Option<ConnectionError>,
    pub auth_methods: Vec<AuthMethodView>,
    /// The last session request or turn failed with `auth_required`: the user must sign in.
    pub needs_auth: bool,
    /// Why the sign-in values saved in the OS keyring could not be read at start.
    pub sign_in_problem: Option<String>,
    /// What the agent advertised in `initialize`, as ACP types it (the default before it did):
    /// the window offers a method's control when its capability is there (`sessionCapabilities.fork`),
    /// so a new client-called method needs no field here. Typed in TypeScript by the official
    /// SDK's unstable schema, which has the unstable capabilities core turns on.
    #[cfg_attr(any(test, feature = "ts"), ts(type = "AgentCapabilities"))]
    pub capabilities: AgentCapabilities,
    /// The editor that drives this agent through `porthole proxy`; `null` for the app's own.
    pub proxy: Option<crate::ProxyView>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct ConnectionError {
    pub message: String,
    pub stderr_tail: String,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct AuthMethodView {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// "agent" (call authenticate), "terminal" (run the agent's login command), "env_var"
    /// (values set in the agent's environment), or another kind.
    pub kind: String,
    /// env_var: the variables the agent asks for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(
            optional,
            type = "{ name: string; label: string; secret: boolean; optional: boolean }[]"
        )
    )]
    pub vars: Option<Vec<EnvVarSpec>>,
    /// env_var: where to get the value (shown as text, never a link).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(any(test, feature = "ts"), ts(optional))]
    pub link: Option<String>,
}

/// A remembered "always" permission answer, with the agent it belongs to.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct PermissionRuleView {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    pub rule_id: u64,
    pub session_id: String,
    pub tool_kind: String,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"allow\" | \"reject\""))]
    pub decision: porthole_core::permission_rules::Decision,
    pub option_name: String,
    pub agent_id: String,
    pub agent_name: String,
}

impl ConnectionView {
    pub(crate) fn of(agent_id: &str, c: &Conn) -> Self {
        let (auth_methods, capabilities) = match &c.client {
            Some(client) => (auth_methods(client), without_meta(client.agent_capabilities())),
            None => (Vec::new(), Default::default()),
        };
        Self {
            agent_id: agent_id.to_string(),
            state: c.state,
            agent: c.agent.clone(),
            protocol_version: c.client.as_ref().map(|c| c.protocol_version().as_u16()),
            takes_follow_ups: c
                .client
                .as_ref()
                .is_some_and(|c| takes_follow_ups(c.init_response())),
            error: c.error.as_ref().map(|(message, tail)| ConnectionError {
                message: message.clone(),
                stderr_tail: tail.clone(),
            }),
            auth_methods,
            needs_auth: c.needs_auth,
            sign_in_problem: c.sign_in_problem.clone(),
            capabilities,
            proxy: c.proxy.clone(),
        }
    }
}

/// Whether the agent's `initialize` answer says it takes follow-up prompts while a turn runs:
/// Claude's adapter (`agentCapabilities._meta.claudeCode.promptQueueing`) queues them, Codex's
/// (`_meta.steering.supported`) steers the running turn with them.
fn takes_follow_ups(init: &porthole_core::acp::v1::schema::InitializeResponse) -> bool {
    let Ok(answer) = serde_json::to_value(init) else {
        return false;
    };
    answer["agentCapabilities"]["_meta"]["claudeCode"]["promptQueueing"] == true
        || answer["_meta"]["steering"]["supported"] == true
}

/// The capabilities without the agent's `_meta` objects, at any depth: the window reads none of
/// them, and an agent's own data, of any size, should not ride along in every snapshot.
fn without_meta(caps: &AgentCapabilities) -> AgentCapabilities {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("_meta");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(caps) else {
        return AgentCapabilities::default();
    };
    strip(&mut value);
    serde_json::from_value(value).unwrap_or_default()
}

fn auth_methods(client: &AgentClient) -> Vec<AuthMethodView> {
    // env_var methods are typed as agent methods by the SDK; their vars are read from the raw list.
    let env_methods = sign_in::env_var_methods(client.raw_auth_methods());
    client
        .auth_methods()
        .iter()
        .map(|m| {
            if let Some(e) = env_methods.iter().find(|e| e.id == m.id().0.as_ref()) {
                return AuthMethodView {
                    id: e.id.clone(),
                    name: e.name.clone(),
                    description: e.description.clone(),
                    kind: "env_var".into(),
                    vars: Some(e.vars.clone()),
                    link: e.link.clone(),
                };
            }
            // API-key methods (the key goes in `authenticate`'s `_meta["api-key"]`): one secret
            // field, `api-key`, answered through `save_sign_in` like an env_var method's values.
            if client.api_key_method(m.id().0.as_ref()).is_some() {
                return AuthMethodView {
                    id: m.id().0.to_string(),
                    name: m.name().to_string(),
                    description: m.description().map(str::to_string),
                    kind: "api_key".into(),
                    vars: Some(vec![EnvVarSpec {
                        name: API_KEY_FIELD.into(),
                        label: "API key".into(),
                        secret: true,
                        // Empty: `authenticate` without a key, for an agent that has its own
                        // (Gemini reads GEMINI_API_KEY from its environment).
                        optional: true,
                    }]),
                    link: None,
                };
            }
            let kind = serde_json::to_value(m)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
                .unwrap_or_else(|| "agent".into());
            AuthMethodView {
                id: m.id().0.to_string(),
                name: m.name().to_string(),
                description: m.description().map(str::to_string),
                kind,
                vars: None,
                link: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_window_gets_the_capabilities_without_the_agents_meta() {
        let advertised: AgentCapabilities = serde_json::from_value(json!({
            "loadSession": true,
            "promptCapabilities": { "image": true, "_meta": { "big": "x".repeat(1000) } },
            "sessionCapabilities": { "fork": { "_meta": { "vendor": 1 } }, "list": {} },
            "_meta": { "anything": [ { "_meta": 1 } ] }
        }))
        .unwrap();
        let shown = serde_json::to_value(without_meta(&advertised)).unwrap();
        assert!(!shown.to_string().contains("_meta"), "{shown}");
        assert_eq!(shown["loadSession"], true);
        assert_eq!(shown["promptCapabilities"]["image"], true);
        assert_eq!(shown["sessionCapabilities"]["fork"], json!({}));
        assert_eq!(shown["sessionCapabilities"]["list"], json!({}));
    }

    #[test]
    fn an_agent_takes_follow_ups_when_its_meta_says_so() {
        let answer = |v: serde_json::Value| -> porthole_core::acp::v1::schema::InitializeResponse {
            serde_json::from_value(v).unwrap()
        };
        let claude = answer(json!({"protocolVersion": 2,
            "agentCapabilities": {"_meta": {"claudeCode": {"promptQueueing": true}}}}));
        let codex = answer(json!({"protocolVersion": 2, "_meta": {"steering": {"supported": true}}}));
        let other = answer(json!({"protocolVersion": 2, "_meta": {"steering": {"supported": "yes"}}}));
        assert!(takes_follow_ups(&claude));
        assert!(takes_follow_ups(&codex));
        assert!(!takes_follow_ups(&other));
        assert!(!takes_follow_ups(&answer(json!({"protocolVersion": 1}))));
    }
}
