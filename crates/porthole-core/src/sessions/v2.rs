//! Opening a session on the v2 wire: `session/new`, `session/fork`, and `session/resume` (with
//! `replayFrom: start` for a load: v2 has no `session/load`). The answers' config options and
//! commands come out in v1's shapes, as the front ends read them.

use agent_client_protocol::v1::schema::{AvailableCommandsUpdate, McpServer, SessionConfigOption};
use agent_client_protocol::v2::schema as v2;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Open, OpenedSession, Workspace};
use crate::client::{AgentClient, ClientError};
use crate::events::Event;
use crate::transcript::{SessionState, TranscriptUpdate};

pub(super) async fn open(
    client: &AgentClient,
    how: Open<'_>,
    workspace: Workspace,
) -> Result<OpenedSession, ClientError> {
    let additional: Vec<v2::AbsolutePath> = client
        .additional(&workspace)?
        .into_iter()
        .map(v2::AbsolutePath::new)
        .collect();
    let mcp_servers: Vec<v2::McpServer> = workspace
        .mcp_servers
        .iter()
        .map(mcp_server)
        .collect::<Result<_, _>>()?;
    let cwd = v2::AbsolutePath::new(workspace.cwd.clone());
    match how {
        Open::New => {
            let request = v2::NewSessionRequest::new(cwd)
                .additional_directories(additional)
                .mcp_servers(mcp_servers);
            let register =
                client.register_on_answer(&workspace, |r: &v2::NewSessionResponse| (&*r.session_id.0, None));
            let r = client.call_ordered("session/new", request, register).await?;
            let session_id = r.session_id.to_string();
            commands(client, &session_id, &r.available_commands).await;
            Ok(client.opened(
                &session_id,
                workspace,
                None,
                Some(config(&r.config_options)),
                None,
            ))
        }
        Open::Load(session_id) | Open::Resume(session_id) => {
            // Registered first: the replay and any requests during it name this session.
            client.register(session_id, &workspace, None);
            let mut request = v2::ResumeSessionRequest::new(session_id.to_string(), cwd)
                .additional_directories(additional)
                .mcp_servers(mcp_servers);
            if matches!(how, Open::Load(_)) {
                request = request.replay_from(v2::ReplayFrom::from(v2::ReplayFromStart::new()));
            }
            match client.call("session/resume", request).await {
                Ok(r) => {
                    commands(client, session_id, &r.available_commands).await;
                    Ok(client.opened(session_id, workspace, None, Some(config(&r.config_options)), None))
                }
                Err(e) => {
                    client.end_session(session_id);
                    Err(e)
                }
            }
        }
        Open::Fork(source) => {
            let request = v2::ForkSessionRequest::new(source.to_string(), cwd)
                .additional_directories(additional)
                .mcp_servers(mcp_servers);
            let register =
                client.register_on_answer(&workspace, |r: &v2::ForkSessionResponse| (&*r.session_id.0, None));
            let r = client.call_ordered("session/fork", request, register).await?;
            let session_id = r.session_id.to_string();
            commands(client, &session_id, &r.available_commands).await;
            Ok(client.opened(
                &session_id,
                workspace,
                None,
                Some(config(&r.config_options)),
                None,
            ))
        }
    }
}

/// `session/delete` (when the agent declares `session.delete`).
pub(super) async fn delete(client: &AgentClient, session_id: &str) -> Result<(), ClientError> {
    let request = v2::DeleteSessionRequest::new(session_id.to_string());
    client.call("session/delete", request).await.map(|_| ())
}

/// `auth/logout` (v2's `logout`; an agent that lists sign-in methods must support it).
pub(super) async fn logout(client: &AgentClient) -> Result<(), ClientError> {
    client
        .call("auth/logout", v2::LogoutAuthRequest::new())
        .await
        .map(|_| ())
}

/// The commands a v2 answer lists, delivered as v1's `available_commands_update` would be.
async fn commands(client: &AgentClient, session_id: &str, commands: &[v2::AvailableCommand]) {
    if commands.is_empty() {
        return;
    }
    let Some(commands) = as_v1(&commands) else {
        tracing::warn!("the agent's v2 commands did not fit v1's shape");
        return;
    };
    let update = TranscriptUpdate::Session(SessionState::AvailableCommands(AvailableCommandsUpdate::new(
        commands,
    )));
    client
        .shared
        .emit(Event::SessionUpdate {
            session_id: session_id.to_string(),
            update: Box::new(update),
        })
        .await;
}

fn config(options: &[v2::SessionConfigOption]) -> Vec<SessionConfigOption> {
    crate::transcript::v2::config_options(options)
}

fn as_v1<T: DeserializeOwned>(value: &impl Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// A v1 MCP server in v2's shape: v2 tags every server with its `type`, stdio included (v1
/// writes a stdio server untagged); v2 has no SSE servers.
fn mcp_server(server: &McpServer) -> Result<v2::McpServer, ClientError> {
    let refused = |why: &str| {
        ClientError::Start(format!(
            "the MCP server `{}` cannot be handed over in ACP v2: {why}",
            server_name(server)
        ))
    };
    let mut value = serde_json::to_value(server).map_err(|e| refused(&e.to_string()))?;
    match server {
        McpServer::Stdio(_) => value["type"] = "stdio".into(),
        McpServer::Sse(_) => return Err(refused("v2 has no SSE servers")),
        _ => {}
    }
    serde_json::from_value(value).map_err(|e| refused(&e.to_string()))
}

fn server_name(server: &McpServer) -> &str {
    match server {
        McpServer::Stdio(s) => &s.name,
        McpServer::Http(s) => &s.name,
        McpServer::Sse(s) => &s.name,
        _ => "?",
    }
}

/// `session/list`, one page (v2 requires it of every agent with sessions).
pub(super) async fn list(
    client: &AgentClient,
    cwd: Option<std::path::PathBuf>,
    cursor: Option<String>,
) -> Result<super::SessionListing, ClientError> {
    let request: v2::ListSessionsRequest = from_json(serde_json::json!({"cwd": cwd, "cursor": cursor}))?;
    let r = client.call("session/list", request).await?;
    Ok(super::SessionListing {
        sessions: r.sessions.iter().filter_map(as_v1).collect(),
        next_cursor: r.next_cursor.map(|c| c.to_string()),
    })
}

/// `tool_call/cancel`: the agent stops that tool call's work (one running in the background).
pub(super) async fn cancel_tool_call(
    client: &AgentClient,
    session_id: &str,
    tool_call_id: &str,
) -> Result<(), ClientError> {
    let request = v2::CancelToolCallRequest::new(session_id.to_string(), tool_call_id.to_string());
    client.call("tool_call/cancel", request).await.map(|_| ())
}

/// `terminal/cancel`: the agent stops the command of a terminal it runs.
pub(super) async fn cancel_terminal(
    client: &AgentClient,
    session_id: &str,
    terminal_id: &str,
) -> Result<(), ClientError> {
    let request = v2::CancelTerminalRequest::new(session_id.to_string(), terminal_id.to_string());
    client.call("terminal/cancel", request).await.map(|_| ())
}

/// `session/close` (required in v2).
pub(super) async fn close(client: &AgentClient, session_id: &str) -> Result<(), ClientError> {
    client
        .call(
            "session/close",
            v2::CloseSessionRequest::new(session_id.to_string()),
        )
        .await
        .map(|_| ())
}

/// `session/set_config_option`; v2 names the value's type (`id` or `boolean`).
pub(super) async fn set_config_option(
    client: &AgentClient,
    session_id: &str,
    config_id: &str,
    value: super::ConfigValue,
) -> Result<Vec<SessionConfigOption>, ClientError> {
    let value = match value {
        super::ConfigValue::Select(v) => serde_json::json!({"type": "id", "value": v}),
        super::ConfigValue::Boolean(b) => serde_json::json!({"type": "boolean", "value": b}),
    };
    let mut request = serde_json::json!({"sessionId": session_id, "configId": config_id});
    request
        .as_object_mut()
        .expect("an object")
        .extend(value.as_object().expect("an object").clone());
    let request: v2::SetSessionConfigOptionRequest = from_json(request)?;
    let r = client.call("session/set_config_option", request).await?;
    Ok(config(&r.config_options))
}

/// `auth/login` (v2's `authenticate`), with `_meta` (an API key's, see `api_key`).
pub(super) async fn login(
    client: &AgentClient,
    method_id: &str,
    meta: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<(), ClientError> {
    let request = v2::LoginAuthRequest::new(method_id.to_string()).meta(meta);
    client.call("auth/login", request).await.map(|_| ())
}

fn from_json<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ClientError> {
    serde_json::from_value(value)
        .map_err(|e| ClientError::Start(format!("a v2 request Porthole could not write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{McpServerHttp, McpServerSse, McpServerStdio};

    #[test]
    fn each_v1_server_is_written_in_v2s_tagged_shape_and_sse_is_refused() {
        let stdio = McpServer::Stdio(McpServerStdio::new("files", "/bin/bridge").args(vec!["--pipe".into()]));
        let v2 = serde_json::to_value(mcp_server(&stdio).unwrap()).unwrap();
        assert_eq!(v2["type"], "stdio");
        assert_eq!(v2["command"], "/bin/bridge");
        let http = McpServer::Http(McpServerHttp::new("tracker", "http://127.0.0.1:9/mcp"));
        assert_eq!(
            serde_json::to_value(mcp_server(&http).unwrap()).unwrap()["type"],
            "http"
        );
        let sse = McpServer::Sse(McpServerSse::new("old", "http://127.0.0.1:9/sse"));
        let e = mcp_server(&sse).unwrap_err().to_string();
        assert!(e.contains("`old`") && e.contains("no SSE"), "{e}");
    }
}
