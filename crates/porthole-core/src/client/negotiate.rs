//! The v2 side of version negotiation (docs/acp-v2.md): the v2-shaped `initialize` Porthole
//! offers, and the agent's v2 answer seen through v1's `InitializeResponse`, which front ends
//! already read (its `protocolVersion` says 2).

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::InitializeResponse;
use agent_client_protocol::v2::schema as v2;
use serde_json::{Value, json};

use super::options::ClientOptions;

/// The v2 `initialize`: `capabilities` and `info` (v2's names); what Porthole serves in v2 is
/// said beside the routes, in `handlers::advertised_v2`.
pub(super) fn request(opts: &ClientOptions) -> v2::InitializeRequest {
    v2::InitializeRequest::new(
        ProtocolVersion::V2,
        v2::Implementation::new(opts.client_name.clone(), opts.client_version.clone()).title("Porthole"),
    )
    .capabilities(super::handlers::advertised_v2(opts))
}

/// The agent's v2 answer as v1's `InitializeResponse` with `protocolVersion` 2: its name, the
/// session methods Porthole sends on the v2 wire, prompt and MCP capabilities, and sign-in
/// methods (with v1's `id` for v2's `methodId`, in the raw list too, which front ends read
/// `env_var` methods from). Delete, fork and logout are advertised as the agent declares them
/// (logout: v2 requires it of an agent that lists sign-in methods).
pub(super) fn v1_view(response: &v2::InitializeResponse) -> (InitializeResponse, Value) {
    let raw = serde_json::to_value(response).unwrap_or(Value::Null);
    let session = &raw["capabilities"]["session"];
    // v2 requires list, resume and close of an agent with sessions; a load is a resume with
    // the history replayed (`sessions/v2.rs`). The other markers carried are those of the
    // methods Porthole sends on v2 (`sessions::V2_SESSION_MARKERS`).
    let sessions = session.is_object();
    let mut capabilities = json!({"loadSession": sessions});
    if sessions {
        let mut v1_sessions = json!({"list": {}, "resume": {}, "close": {}});
        for &marker in crate::sessions::V2_SESSION_MARKERS {
            if session[marker].is_object() {
                v1_sessions[marker] = json!({});
            }
        }
        capabilities["sessionCapabilities"] = v1_sessions;
    }
    if raw["authMethods"].as_array().is_some_and(|m| !m.is_empty()) {
        capabilities["auth"] = json!({"logout": {}});
    }
    // v2's capabilities are `{}` markers where v1's are booleans (v1 reads a marker as false).
    for (v2_name, v1_name) in [("prompt", "promptCapabilities"), ("mcp", "mcpCapabilities")] {
        if let Some(markers) = session[v2_name].as_object() {
            capabilities[v1_name] = flags(markers);
        }
    }
    // The agent's own `_meta` (top level and on its capabilities) says what it does beyond
    // the protocol: Claude's `claudeCode.promptQueueing`, Codex's `steering.supported`.
    if raw["capabilities"]["_meta"].is_object() {
        capabilities["_meta"] = raw["capabilities"]["_meta"].clone();
    }
    let mut view = json!({
        "protocolVersion": 2,
        "agentInfo": raw["info"],
        "agentCapabilities": capabilities,
    });
    if raw["_meta"].is_object() {
        view["_meta"] = raw["_meta"].clone();
    }
    let mut typed: InitializeResponse = serde_json::from_value(view).unwrap_or_else(|e| {
        tracing::warn!("the agent's v2 initialize answer did not fit v1's view of it: {e}");
        InitializeResponse::new(ProtocolVersion::V2)
    });
    // v2 names a method's id `methodId` (v1 `id`); the rest of a method reads the same.
    let auth_methods: Vec<Value> = raw["authMethods"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let mut m = m.clone();
            if let Some(fields) = m.as_object_mut()
                && let Some(id) = fields.remove("methodId")
            {
                fields.insert("id".into(), id);
            }
            m
        })
        .collect();
    // Methods v1 cannot read (v2's own kinds) stay in the raw list only.
    typed.auth_methods = auth_methods
        .iter()
        .filter_map(|m| serde_json::from_value(m.clone()).ok())
        .collect();
    let auth_methods = Value::Array(auth_methods);
    (typed, auth_methods)
}

/// The MCP transports a v2 agent declares in `capabilities.session.mcp` (stdio is a capability
/// in v2; there is no SSE).
pub(super) fn mcp_transports(response: &v2::InitializeResponse) -> super::McpTransports {
    let raw = serde_json::to_value(response).unwrap_or(Value::Null);
    let mcp = &raw["capabilities"]["session"]["mcp"];
    super::McpTransports {
        stdio: mcp["stdio"].is_object(),
        http: mcp["http"].is_object(),
        sse: false,
    }
}

/// v2's `{}` markers as v1's booleans (`_meta` as it came): v1's types read a marker as `false`.
fn flags(markers: &serde_json::Map<String, Value>) -> Value {
    markers
        .iter()
        .map(|(name, value)| match name.as_str() {
            "_meta" => (name.clone(), value.clone()),
            _ => (
                name.clone(),
                Value::Bool(value.is_object() || *value == Value::Bool(true)),
            ),
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// claude-agent-acp 0.101.0's v2 answer (recorded): v2's capabilities are `{}` markers, v1's
    /// view has them as `true` (v1's types read a marker as `false`: the MCP bridge was then
    /// handed to an agent that takes http, and images were never offered).
    #[test]
    fn v2_capability_markers_are_v1_flags() {
        let answer = json!({"protocolVersion": 2,
            "info": {"name": "@agentclientprotocol/claude-agent-acp", "title": "Claude Agent", "version": "0.101.0"},
            "capabilities": {"session": {"prompt": {"image": {}, "embeddedContext": {}}, "mcp": {"stdio": {}, "http": {}},
                "delete": {}, "fork": {}, "additionalDirectories": {}, "systemPrompt": {"mode": {"override": {}}}},
                "providers": {}, "_meta": {"claudeCode": {"promptQueueing": true}, "authStatus": {}}},
            "authMethods": []});
        let response: v2::InitializeResponse = serde_json::from_value(answer).unwrap();
        let (view, _) = v1_view(&response);
        let caps = &view.agent_capabilities;
        assert!(caps.mcp_capabilities.http && !caps.mcp_capabilities.sse);
        let mcp = mcp_transports(&response);
        assert!(mcp.stdio && mcp.http && !mcp.sse, "{mcp:?}");
        let sessions = &caps.session_capabilities;
        assert!(sessions.fork.is_some() && sessions.delete.is_some() && sessions.list.is_some());
        assert!(caps.auth.logout.is_none(), "no sign-in methods: no auth/logout");
        assert!(caps.prompt_capabilities.image && caps.prompt_capabilities.embedded_context);
        assert!(!caps.prompt_capabilities.audio);
        assert_eq!(
            view.agent_info.unwrap().name,
            "@agentclientprotocol/claude-agent-acp"
        );
    }

    /// v2 makes stdio a capability: an agent that declares only http takes no stdio server
    /// (the hand-off then serves stdio connections through the gateway as HTTP).
    #[test]
    fn a_v2_agent_without_the_stdio_marker_takes_no_stdio_servers() {
        let only_http: v2::InitializeResponse = serde_json::from_value(json!({"protocolVersion": 2,
            "info": {"name": "remote-agent", "version": "1"},
            "capabilities": {"session": {"mcp": {"http": {}}}}}))
        .unwrap();
        let mcp = mcp_transports(&only_http);
        assert!(!mcp.stdio && mcp.http && !mcp.sse, "{mcp:?}");
        let none: v2::InitializeResponse =
            serde_json::from_value(json!({"protocolVersion": 2, "info": {"name": "a", "version": "1"}}))
                .unwrap();
        assert_eq!(mcp_transports(&none), super::super::McpTransports::default());
    }

    #[test]
    fn the_v1_view_keeps_the_agents_own_meta() {
        let answer: v2::InitializeResponse = serde_json::from_value(json!({
            "protocolVersion": 2,
            "info": {"name": "codex-acp", "version": "2.6.0"},
            "capabilities": {"_meta": {"claudeCode": {"promptQueueing": true}}},
            "_meta": {"steering": {"supported": true}},
        }))
        .unwrap();
        let (view, _) = v1_view(&answer);
        let view = serde_json::to_value(view).unwrap();
        assert_eq!(view["_meta"]["steering"]["supported"], true, "{view}");
        assert_eq!(
            view["agentCapabilities"]["_meta"]["claudeCode"]["promptQueueing"], true,
            "{view}"
        );
    }
}
