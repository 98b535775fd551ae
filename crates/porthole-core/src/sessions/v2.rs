//! Opening a session on the v2 wire: `session/new`, and `session/resume` (with
//! `replayFrom: start` for a load: v2 has no `session/load`). The answers' config options and
//! commands come out in v1's shapes, as the front ends read them.

use agent_client_protocol::v1::schema::{AvailableCommandsUpdate, SessionConfigOption};
use agent_client_protocol::v2::schema as v2;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{OpenedSession, Open, Workspace};
use crate::client::{AgentClient, ClientError};
use crate::events::Event;
use crate::transcript::{SessionState, TranscriptUpdate};

pub(super) async fn open(client: &AgentClient, how: Open<'_>, workspace: Workspace) -> Result<OpenedSession, ClientError> {
    let additional: Vec<v2::AbsolutePath> = client
        .additional(&workspace)?
        .into_iter()
        .map(v2::AbsolutePath::new)
        .collect();
    let mcp_servers: Vec<v2::McpServer> = workspace
        .mcp_servers
        .iter()
        .map(|s| {
            as_v2(s).ok_or_else(|| ClientError::Start("an MCP server v2 cannot carry (v2 has no SSE servers)".into()))
        })
        .collect::<Result<_, _>>()?;
    let cwd = v2::AbsolutePath::new(workspace.cwd.clone());
    match how {
        Open::New => {
            let request = v2::NewSessionRequest::new(cwd)
                .additional_directories(additional)
                .mcp_servers(mcp_servers);
            let register = client.register_on_answer(&workspace, |r: &v2::NewSessionResponse| {
                (&*r.session_id.0, None)
            });
            let r = client.call_ordered("session/new", request, register).await?;
            let session_id = r.session_id.to_string();
            commands(client, &session_id, &r.available_commands).await;
            Ok(client.opened(&session_id, workspace, None, Some(config(&r.config_options)), None))
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
        Open::Fork(_) => Err(ClientError::Unsupported("session/fork")),
    }
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
    let update = TranscriptUpdate::Session(SessionState::AvailableCommands(AvailableCommandsUpdate::new(commands)));
    client
        .shared
        .emit(Event::SessionUpdate {
            session_id: session_id.to_string(),
            update: Box::new(update),
        })
        .await;
}

/// The config options v1's shape holds (one it cannot is left out, and logged).
fn config(options: &[v2::SessionConfigOption]) -> Vec<SessionConfigOption> {
    options
        .iter()
        .filter_map(|o| {
            let v1 = as_v1(o);
            if v1.is_none() {
                tracing::warn!("a v2 config option v1's shape cannot hold: {o:?}");
            }
            v1
        })
        .collect()
}

fn as_v1<T: DeserializeOwned>(value: &impl Serialize) -> Option<T> {
    serde_json::to_value(value).ok().and_then(|v| serde_json::from_value(v).ok())
}

fn as_v2<T: DeserializeOwned>(value: &impl Serialize) -> Option<T> {
    as_v1(value)
}
