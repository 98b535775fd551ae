//! Session requests (new, list, load, resume, close), prompts with attachments, and the
//! session's mode and config options.

use std::path::{Path, PathBuf};

use porthole_core::acp::v1::schema::{
    ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, ResourceLink,
    TextResourceContents,
};
use porthole_core::sessions::ConfigValue;
use porthole_core::{AgentClient, OpenedSession, Workspace};
use serde_json::{Value, json};

use porthole_connections::handoff::AgentMcp;

use super::app_event::{AppEvent, Attachment};
use super::results::{SessionList, StoredSession};
use super::{AnswerError, Backend, SessionView};
use porthole_connections::connector::Handed;

/// What a session about to open is handed: the connections (`servers` already taken into its
/// workspace), their names, and who asks their questions in the window once it is open.
struct Handing {
    handed: Handed,
    names: Vec<String>,
    questions: Option<std::sync::Arc<crate::mcp_questions::WindowQuestions>>,
}

/// Largest text file embedded in a prompt; larger ones go as links.
const MAX_EMBED_BYTES: u64 = 1024 * 1024;
/// Largest image sent.
const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;

/// A session's folders from the window: `cwd` and the additional ones, each resolved.
fn workspace(cwd: &str, additional: &[String]) -> Result<Workspace, AnswerError> {
    let additional = additional
        .iter()
        .map(|d| d.trim())
        .filter(|d| !d.is_empty())
        .map(cwd_path)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Workspace::new(cwd_path(cwd)?, additional))
}

fn cwd_path(cwd: &str) -> Result<PathBuf, AnswerError> {
    let path = PathBuf::from(cwd);
    let path = path
        .canonicalize()
        .map_err(|e| AnswerError::msg(format!("working directory {cwd}: {e}")))?;
    if !path.is_dir() {
        return Err(AnswerError::msg(format!("{cwd} is not a directory")));
    }
    Ok(path)
}

/// A session request of an agent in flight (`apply::Opening`): the updates that arrive for a
/// session the model does not hold yet are kept until the session is registered.
struct Opening<'b> {
    backend: &'b Backend,
    agent_id: &'b str,
}

impl<'b> Opening<'b> {
    fn start(backend: &'b Backend, agent_id: &'b str) -> Self {
        crate::apply::opening_started(&mut backend.state(), agent_id);
        Self { backend, agent_id }
    }
}

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        crate::apply::opening_ended(&mut self.backend.state(), self.agent_id);
    }
}

impl Backend {
    /// The session joins the model (with the updates that arrived before it); `replayed`: a
    /// load's answer, whose replay went into the placeholder registered before it.
    fn register(&self, agent_id: &str, opened: &OpenedSession, replayed: bool) -> SessionView {
        let view = SessionView {
            session_id: opened.session_id.clone(),
            agent_id: agent_id.to_string(),
            cwd: opened.cwd.display().to_string(),
            additional_directories: opened
                .additional_directories
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
            title: None,
            modes: opened.modes.as_ref().and_then(|m| serde_json::to_value(m).ok()),
            models: opened.models.clone(),
            config_options: serde_json::to_value(&opened.config_options).unwrap_or(json!([])),
            available_commands: json!([]),
            turn_running: false,
            run_state: None,
            usage: None,
        };
        let view = {
            let mut state = self.state();
            if let Some(conn) = state.conns.get_mut(agent_id) {
                conn.needs_auth = false;
                conn.error = None;
            }
            crate::apply::session_opened(&mut state, agent_id, view, replayed)
        };
        self.push_snapshot();
        view
    }

    /// The person's MCP connections for a session of `agent_id`, as its capabilities allow.
    async fn with_connections(
        &self,
        agent_id: &str,
        client: &AgentClient,
        workspace: Workspace,
    ) -> (Workspace, Handing) {
        let offered = &client.agent_capabilities().mcp_capabilities;
        let caps = AgentMcp {
            http: offered.http,
            sse: offered.sse,
        };
        let (mut handed, questions) = self.hand_connections(agent_id, caps, &workspace.cwd).await;
        let servers = std::mem::take(&mut handed.servers);
        let names = servers.iter().filter_map(crate::mcp::server_name).collect();
        let handing = Handing {
            handed,
            names,
            questions,
        };
        (workspace.with_mcp_servers(servers), handing)
    }

    /// The session opened: its pass lives with it (and the names of what it got, for the
    /// Connections view); what was left out is said in it.
    fn connections_kept(&self, agent_id: &str, session_id: &str, handing: Handing) {
        let Handing {
            handed,
            names,
            questions,
        } = handing;
        // From now on the connections' questions are asked in this session.
        if let Some(questions) = &questions {
            questions.session_opened(session_id);
        }
        self.0.mcp.keep(session_id, agent_id, handed.pass, names);
        for (connection, reason) in handed.skipped {
            self.push_app(AppEvent::McpConnectionProblem {
                connection,
                reason,
                needs_sign_in: false,
                sessions: vec![session_id.to_string()],
            });
        }
    }

    pub async fn new_session(
        &self,
        agent_id: &str,
        workspace: impl Into<Workspace>,
    ) -> Result<SessionView, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let (workspace, handed) = self.with_connections(agent_id, &client, workspace.into()).await;
        let _opening = Opening::start(self, agent_id);
        match client.open_session(workspace).await {
            Ok(opened) => {
                self.connections_kept(agent_id, &opened.session_id, handed);
                Ok(self.register(agent_id, &opened, false))
            }
            Err(e) => {
                self.session_failed(agent_id, "session/new", &e);
                Err(e.into())
            }
        }
    }

    /// A new session in `cwd` and the `additional` folders (sent only when the agent
    /// advertises them; otherwise core refuses before anything is sent).
    pub async fn new_session_in(
        &self,
        agent_id: &str,
        cwd: &str,
        additional: &[String],
    ) -> Result<SessionView, AnswerError> {
        self.new_session(agent_id, workspace(cwd, additional)?).await
    }

    pub async fn list_sessions(
        &self,
        agent_id: &str,
        cwd: Option<String>,
        cursor: Option<String>,
    ) -> Result<SessionList, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let cwd = cwd.map(PathBuf::from);
        let page = client.list_sessions(cwd, cursor).await?;
        let sessions = page
            .sessions
            .iter()
            .map(|s| StoredSession {
                session_id: s.session_id.0.to_string(),
                cwd: s.cwd.display().to_string(),
                additional_directories: s
                    .additional_directories
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect(),
                title: s.title.clone(),
                updated_at: s.updated_at.clone(),
            })
            .collect();
        Ok(SessionList {
            sessions,
            next_cursor: page.next_cursor,
        })
    }

    /// `session/load`: the history replays as session_update events before this returns.
    pub async fn load_session(
        &self,
        agent_id: &str,
        session_id: &str,
        cwd: &str,
        additional: &[String],
    ) -> Result<SessionView, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let workspace = workspace(cwd, additional)?;
        // Registered first so the replayed updates land in a session the window knows.
        let placeholder = OpenedSession {
            session_id: session_id.to_string(),
            cwd: workspace.cwd.clone(),
            additional_directories: workspace.additional.clone(),
            modes: None,
            config_options: Vec::new(),
            models: None,
        };
        self.register(agent_id, &placeholder, false);
        let (workspace, handed) = self.with_connections(agent_id, &client, workspace).await;
        match client.load_session(session_id, workspace).await {
            Ok(opened) => {
                self.connections_kept(agent_id, session_id, handed);
                Ok(self.register(agent_id, &opened, true))
            }
            Err(e) => {
                self.state().sessions.shift_remove(session_id);
                self.session_failed(agent_id, "session/load", &e);
                Err(e.into())
            }
        }
    }

    pub async fn resume_session(
        &self,
        agent_id: &str,
        session_id: &str,
        cwd: &str,
        additional: &[String],
    ) -> Result<SessionView, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let (workspace, handed) = self
            .with_connections(agent_id, &client, workspace(cwd, additional)?)
            .await;
        let _opening = Opening::start(self, agent_id);
        match client.resume_session(session_id, workspace).await {
            Ok(opened) => {
                self.connections_kept(agent_id, session_id, handed);
                Ok(self.register(agent_id, &opened, false))
            }
            Err(e) => {
                self.session_failed(agent_id, "session/resume", &e);
                Err(e.into())
            }
        }
    }

    /// `session/fork` of an open session, in its folder: the fork opens as a session of its own.
    pub async fn fork_session(&self, session_id: &str) -> Result<SessionView, AnswerError> {
        let (agent_id, cwd) = {
            let state = self.state();
            let view = state
                .sessions
                .get(session_id)
                .ok_or_else(|| AnswerError::msg(format!("no open session {session_id}")))?;
            (view.agent_id.clone(), PathBuf::from(&view.cwd))
        };
        let client = self.client_of_session(session_id)?;
        let (workspace, handed) = self.with_connections(&agent_id, &client, cwd.into()).await;
        let _opening = Opening::start(self, &agent_id);
        match client.fork_session(session_id, workspace).await {
            Ok(opened) => {
                self.connections_kept(&agent_id, &opened.session_id, handed);
                Ok(self.register(&agent_id, &opened, false))
            }
            Err(e) => {
                self.session_failed(&agent_id, "session/fork", &e);
                Err(e.into())
            }
        }
    }

    /// `session/set_model`; the header's model picker.
    pub async fn set_model(&self, session_id: &str, model_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        let models = client.set_model(session_id, model_id).await?;
        if let Some(view) = self.state().sessions.get_mut(session_id) {
            view.models = Some(models);
        }
        self.push_snapshot();
        Ok(())
    }

    pub async fn close_session(&self, session_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        let result = client.close_session(session_id).await;
        {
            let mut state = self.state();
            state.sessions.shift_remove(session_id);
            crate::tool_calls::forget(&mut state.tool_calls, session_id);
        }
        self.0.mcp.end_session(session_id);
        self.0.apps.session_closed(session_id);
        self.push_snapshot();
        result.map_err(Into::into)
    }

    /// `session/delete` of one of the agent's stored sessions (when advertised); an open one
    /// closes here too.
    pub async fn delete_session(&self, agent_id: &str, session_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        client.delete_session(session_id).await?;
        self.state().sessions.shift_remove(session_id);
        self.push_snapshot();
        Ok(())
    }

    /// `logout` (when advertised), then the sign-in values Porthole keeps for the agent are
    /// forgotten too: signing out must not sign in again at the next start.
    pub async fn logout(&self, agent_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        client.logout().await?;
        if let Some(conn) = self.state().conns.get_mut(agent_id) {
            conn.needs_auth = true;
        }
        self.forget_sign_in(agent_id).await
    }

    pub fn send_prompt(
        &self,
        session_id: &str,
        text: &str,
        attachments: &[Attachment],
    ) -> Result<(), AnswerError> {
        let text = text.trim_end();
        if text.trim().is_empty() && attachments.is_empty() {
            return Err(AnswerError::msg("the prompt is empty"));
        }
        let client = self.client_of_session(session_id)?;
        let mut blocks = Vec::new();
        if !text.trim().is_empty() {
            blocks.push(ContentBlock::from(text.to_string()));
        }
        for a in attachments {
            blocks.push(attachment_block(&client, a)?);
        }
        client.prompt(session_id, blocks)?;
        if let Some(s) = self.state().sessions.get_mut(session_id) {
            s.turn_running = true;
        }
        self.push_app(AppEvent::UserPrompt {
            session_id: session_id.to_string(),
            text: text.to_string(),
            attachments: attachments.to_vec(),
        });
        self.push_snapshot();
        Ok(())
    }

    pub fn cancel_turn(&self, session_id: &str) -> Result<(), AnswerError> {
        self.client_of_session(session_id)?.cancel(session_id)?;
        Ok(())
    }

    /// ACP v2: stop one item of a session's background work (`state_update`'s `background`):
    /// a tool call or a terminal the agent runs. Other kinds cannot be cancelled by a client.
    pub async fn cancel_background(&self, session_id: &str, kind: &str, id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        match kind {
            "tool_call" => client.cancel_tool_call(session_id, id).await?,
            "terminal" => client.cancel_terminal(session_id, id).await?,
            other => {
                return Err(AnswerError::msg(format!(
                    "background work of kind {other} cannot be cancelled from Porthole"
                )));
            }
        }
        Ok(())
    }

    pub async fn set_mode(&self, session_id: &str, mode_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        client.set_mode(session_id, mode_id).await?;
        // Agents confirm with current_mode_update; reflect the choice now as well.
        if let Some(modes) = self
            .state()
            .sessions
            .get_mut(session_id)
            .and_then(|s| s.modes.as_mut())
        {
            modes["currentModeId"] = json!(mode_id);
        }
        self.push_snapshot();
        Ok(())
    }

    pub async fn set_config_option(
        &self,
        session_id: &str,
        config_id: &str,
        value: Value,
    ) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        let value = match value {
            Value::Bool(b) => ConfigValue::Boolean(b),
            Value::String(s) => ConfigValue::Select(s),
            other => {
                return Err(AnswerError::msg(format!(
                    "a config value is a string or a boolean, not {other}"
                )));
            }
        };
        let options = client.set_config_option(session_id, config_id, value).await?;
        if let Some(s) = self.state().sessions.get_mut(session_id) {
            s.config_options = serde_json::to_value(options).unwrap_or(json!([]));
        }
        self.push_snapshot();
        Ok(())
    }
}

fn file_uri(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| format!("file://{}", path.display()))
}

/// A prompt attachment as the agent's prompt capabilities allow: images only when advertised,
/// text files embedded when `embeddedContext` is, otherwise a resource link.
fn attachment_block(client: &AgentClient, a: &Attachment) -> Result<ContentBlock, AnswerError> {
    let path = PathBuf::from(&a.path)
        .canonicalize()
        .map_err(|e| AnswerError::msg(format!("{}: {e}", a.path)))?;
    let meta = std::fs::metadata(&path).map_err(|e| AnswerError::msg(format!("{}: {e}", a.path)))?;
    if !meta.is_file() {
        return Err(AnswerError::msg(format!("{} is not a file", a.path)));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| a.path.clone());
    let caps = &client.agent_capabilities().prompt_capabilities;
    match a.kind.as_str() {
        "image" => {
            if !caps.image {
                return Err(AnswerError::msg("this agent does not accept images"));
            }
            let mime = match path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("png") => "image/png",
                Some("jpg" | "jpeg") => "image/jpeg",
                Some("gif") => "image/gif",
                Some("webp") => "image/webp",
                _ => {
                    return Err(AnswerError::msg(format!(
                        "{name}: not a PNG, JPEG, GIF or WebP image"
                    )));
                }
            };
            if meta.len() > MAX_IMAGE_BYTES {
                return Err(AnswerError::msg(format!("{name} is larger than 10 MiB")));
            }
            let bytes = std::fs::read(&path).map_err(|e| AnswerError::msg(format!("{name}: {e}")))?;
            use base64::Engine;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            Ok(ContentBlock::Image(
                ImageContent::new(data, mime).uri(file_uri(&path)),
            ))
        }
        "file" => {
            let text = (caps.embedded_context && meta.len() <= MAX_EMBED_BYTES)
                .then(|| std::fs::read_to_string(&path).ok())
                .flatten();
            Ok(match text {
                Some(text) => ContentBlock::Resource(EmbeddedResource::new(
                    EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                        text,
                        file_uri(&path),
                    )),
                )),
                None => ContentBlock::ResourceLink(
                    ResourceLink::new(name, file_uri(&path)).size(meta.len() as i64),
                ),
            })
        }
        other => Err(AnswerError::msg(format!("unknown attachment kind `{other}`"))),
    }
}
