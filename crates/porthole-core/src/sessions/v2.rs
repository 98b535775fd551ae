//! Opening a session on the v2 wire: `session/new`, `session/fork`, and `session/resume` (with
//! `replayFrom: start` for a load: v2 has no `session/load`). The answers' config options and
//! commands come out in v1's shapes, as the front ends read them. The other methods send v1's
//! or v2's request in one function each, in `sessions.rs`; the conversions they share are here.

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
            Ok(answered(
                client,
                &r.session_id.0,
                workspace,
                &r.available_commands,
                &r.config_options,
            )
            .await)
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
                Ok(r) => Ok(answered(
                    client,
                    session_id,
                    workspace,
                    &r.available_commands,
                    &r.config_options,
                )
                .await),
                Err(e) => {
                    client.end_session(session_id);
                    Err(e)
                }
            }
        }
        Open::Fork(source) => {
            let supported = client.agent_capabilities().session_capabilities.fork.is_some();
            client.require(supported, "session/fork")?;
            let request = v2::ForkSessionRequest::new(source.to_string(), cwd)
                .additional_directories(additional)
                .mcp_servers(mcp_servers);
            let register =
                client.register_on_answer(&workspace, |r: &v2::ForkSessionResponse| (&*r.session_id.0, None));
            let r = client.call_ordered("session/fork", request, register).await?;
            Ok(answered(
                client,
                &r.session_id.0,
                workspace,
                &r.available_commands,
                &r.config_options,
            )
            .await)
        }
    }
}

/// A session the agent opened (new, resumed or forked): the commands its answer lists
/// delivered, and its view with the answer's config options in v1's shape.
async fn answered(
    client: &AgentClient,
    session_id: &str,
    workspace: Workspace,
    available: &[v2::AvailableCommand],
    options: &[v2::SessionConfigOption],
) -> OpenedSession {
    commands(client, session_id, available).await;
    client.opened(session_id, workspace, None, Some(config(options)), None)
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

pub(super) fn config(options: &[v2::SessionConfigOption]) -> Vec<SessionConfigOption> {
    crate::transcript::v2::config_options(options)
}

/// A v2 value in v1's shape (the same fields), or `None` when it does not fit.
pub(super) fn as_v1<T: DeserializeOwned>(value: &impl Serialize) -> Option<T> {
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

/// A v2 request written from JSON (for the requests whose builders the SDK keeps unstable).
pub(super) fn from_json<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ClientError> {
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
