//! Session requests (new, list, load, resume, close), prompts with attachments, and the
//! session's mode and config options.

use std::path::{Path, PathBuf};

use porthole_core::acp::v1::schema::{
    ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, ResourceLink, SessionModeId,
    TextResourceContents,
};
use porthole_core::sessions::ConfigValue;
use porthole_core::{AgentClient, OpenedSession, Workspace};
use serde_json::Value;

use porthole_connections::handoff::AgentMcp;

use super::app_event::{AppEvent, Attachment};
use super::results::{SessionList, StoredSession};
use super::{AnswerError, AppState, Backend, Conn, SessionView};
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

/// How a session opens: the four session requests, each through `Backend::open`.
#[derive(Clone, Copy)]
enum Open<'a> {
    /// `session/new`.
    New,
    /// `session/load` of a stored session: its history replays before the answer.
    Load(&'a str),
    /// `session/resume`: the session again, without its history.
    Resume(&'a str),
    /// `session/fork`: a new session that starts from this one's history.
    Fork(&'a str),
}

impl Open<'_> {
    /// The request's method, as the connection's error names it.
    fn method(self) -> &'static str {
        match self {
            Open::New => "session/new",
            Open::Load(_) => "session/load",
            Open::Resume(_) => "session/resume",
            Open::Fork(_) => "session/fork",
        }
    }
}

/// A session request failed: `auth_required` leads to the sign-in panel, anything else is
/// shown as the connection's error (with the agent's stderr).
fn session_failed(conn: &mut Conn, what: &str, error: &porthole_core::ClientError) {
    if error.is_auth_required() {
        conn.needs_auth = true;
    } else if let Some(client) = &conn.client {
        conn.error = Some((format!("{what} failed: {error}"), client.stderr_tail()));
    }
}

/// What a session being loaded is until its answer: its id and folders.
fn placeholder(session_id: &str, workspace: &Workspace) -> OpenedSession {
    OpenedSession {
        session_id: session_id.to_string(),
        cwd: workspace.cwd.clone(),
        additional_directories: workspace.additional.clone(),
        modes: None,
        config_options: Vec::new(),
        models: None,
    }
}

/// A session request of a connection in flight (`apply::Opening`): the updates that arrive for
/// a session the connection does not hold yet are kept until the session is registered. Ends on
/// the connection it started on: a restarted one's own requests are not its.
struct Opening<'b> {
    backend: &'b Backend,
    agent_id: &'b str,
    generation: Option<u64>,
}

impl<'b> Opening<'b> {
    /// Notes the request on the connection `agent_id` has now.
    fn start(backend: &'b Backend, agent_id: &'b str) -> Self {
        let generation = backend.state().conns.get_mut(agent_id).map(|conn| {
            conn.opening.started();
            conn.generation
        });
        Self {
            backend,
            agent_id,
            generation,
        }
    }
}

impl Opening<'_> {
    /// The connection the request was sent on, unless it went since (stopped, restarted):
    /// a session it opened joins only that one.
    fn conn<'s>(&self, state: &'s mut AppState) -> Option<&'s mut Conn> {
        state
            .conns
            .get_mut(self.agent_id)
            .filter(|c| Some(c.generation) == self.generation)
    }
}

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn(&mut self.backend.state()) {
            conn.opening.ended();
        }
    }
}

impl Backend {
    /// The session joins its connection (with the updates that arrived before it);
    /// `replayed`: a load's answer, whose replay went into the placeholder registered before it.
    fn register(&self, opening: &Opening<'_>, opened: &OpenedSession, replayed: bool) -> SessionView {
        let view = SessionView {
            session_id: opened.session_id.clone(),
            agent_id: opening.agent_id.to_string(),
            cwd: opened.cwd.display().to_string(),
            additional_directories: opened
                .additional_directories
                .iter()
                .map(|d| d.display().to_string())
                .collect(),
            title: None,
            modes: opened.modes.clone(),
            models: opened.models.clone(),
            config_options: opened.config_options.clone(),
            available_commands: Vec::new(),
            turn_running: false,
            run_state: None,
            usage: None,
        };
        let view = match opening.conn(&mut self.state()) {
            Some(conn) => {
                conn.needs_auth = false;
                conn.error = None;
                crate::apply::session_opened(conn, view, replayed)
            }
            None => view,
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
        let offered = client.mcp_transports();
        let caps = AgentMcp {
            stdio: offered.stdio,
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
    fn connections_kept(&self, opening: &Opening<'_>, session_id: &str, handing: Handing) {
        let Handing {
            handed,
            names,
            questions,
        } = handing;
        // From now on the connections' questions are asked in this session.
        if let Some(questions) = &questions {
            questions.session_opened(session_id);
        }
        let kept = crate::mcp::Kept::new(handed.pass, names);
        let let_go = {
            let mut state = self.state();
            match opening.conn(&mut state) {
                Some(conn) => Ok(conn.keep_mcp(session_id, kept)),
                // The connection went meanwhile: so does what the session got.
                None => Err(kept),
            }
        };
        // Passes let go of close with the state lock released.
        drop(let_go);
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
        self.open(agent_id, Open::New, workspace.into()).await
    }

    /// Open a session of `agent_id` in `workspace` by any of the four session requests: the
    /// one place that hands it the person's MCP connections, registers it (with the updates
    /// that came before its answer) and says why it failed (`session_failed`: the sign-in
    /// panel on `auth_required`, the connection's error otherwise), so no kind can skip a step.
    async fn open(
        &self,
        agent_id: &str,
        kind: Open<'_>,
        workspace: Workspace,
    ) -> Result<SessionView, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let opening = Opening::start(self, agent_id);
        if let Open::Load(session_id) = kind {
            // Registered first so the replayed updates land in a session the window knows.
            self.register(&opening, &placeholder(session_id, &workspace), false);
        }
        let (workspace, handing) = self.with_connections(agent_id, &client, workspace).await;
        let answer = match kind {
            Open::New => client.open_session(workspace).await,
            Open::Load(session_id) => client.load_session(session_id, workspace).await,
            Open::Resume(session_id) => client.resume_session(session_id, workspace).await,
            Open::Fork(session_id) => client.fork_session(session_id, workspace).await,
        };
        match answer {
            Ok(opened) => {
                self.connections_kept(&opening, &opened.session_id, handing);
                Ok(self.register(&opening, &opened, matches!(kind, Open::Load(_))))
            }
            Err(e) => {
                if let Some(conn) = opening.conn(&mut self.state()) {
                    if let Open::Load(session_id) = kind {
                        conn.sessions.shift_remove(session_id);
                    }
                    session_failed(conn, kind.method(), &e);
                }
                self.push_snapshot();
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
        let workspace = workspace(cwd, additional)?;
        self.open(agent_id, Open::Load(session_id), workspace).await
    }

    pub async fn resume_session(
        &self,
        agent_id: &str,
        session_id: &str,
        cwd: &str,
        additional: &[String],
    ) -> Result<SessionView, AnswerError> {
        let workspace = workspace(cwd, additional)?;
        self.open(agent_id, Open::Resume(session_id), workspace).await
    }

    /// `session/fork` of an open session, in its folder: the fork opens as a session of its own.
    pub async fn fork_session(&self, session_id: &str) -> Result<SessionView, AnswerError> {
        let (agent_id, cwd) = {
            let state = self.state();
            let view = state
                .session(session_id)
                .ok_or_else(|| AnswerError::msg(format!("no open session {session_id}")))?;
            (view.agent_id.clone(), PathBuf::from(&view.cwd))
        };
        self.open(&agent_id, Open::Fork(session_id), cwd.into()).await
    }

    /// `session/set_model`; the header's model picker.
    pub async fn set_model(&self, session_id: &str, model_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        let models = client.set_model(session_id, model_id).await?;
        if let Some(view) = self.state().session_mut(session_id) {
            view.models = Some(models);
        }
        self.push_snapshot();
        Ok(())
    }

    pub async fn close_session(&self, session_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_session(session_id)?;
        let result = client.close_session(session_id).await;
        let let_go = self
            .state()
            .conn_of_session(session_id)
            .map(|conn| conn.close_session(session_id));
        drop(let_go);
        self.0.apps.session_closed(session_id);
        self.push_snapshot();
        result.map_err(Into::into)
    }

    /// `session/delete` of one of the agent's stored sessions (when advertised); an open one
    /// closes here too.
    pub async fn delete_session(&self, agent_id: &str, session_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        client.delete_session(session_id).await?;
        let let_go = self
            .state()
            .conns
            .get_mut(agent_id)
            .map(|conn| conn.close_session(session_id));
        drop(let_go);
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
        if let Some(s) = self.state().session_mut(session_id) {
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
            .session_mut(session_id)
            .and_then(|s| s.modes.as_mut())
        {
            modes.current_mode_id = SessionModeId::new(mode_id);
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
        if let Some(s) = self.state().session_mut(session_id) {
            s.config_options = options;
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
