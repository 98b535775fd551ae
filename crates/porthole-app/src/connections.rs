//! Starting, stopping and following one agent's connection, and signing in to it.

use porthole_core::acp::v1::schema::AuthMethod;
use porthole_core::events::{DialogPrompt, DismissReason, Event};
use porthole_core::terminal::Spec;
use porthole_core::{AgentClient, ClientError, ClientOptions};

use super::apply::{self, Effects};
use super::snapshot::ConnectionState;
use super::{AnswerError, Backend, Conn, coalesce};

/// Raw traffic kept per connection for the protocol inspector.
const INSPECTOR_BYTES: usize = 4 * 1024 * 1024;

impl Backend {
    /// (Re)start an agent's connection. With `open_session_in`, a session is opened in that
    /// directory once connected (what the user expects on launch, after signing in or a restart).
    pub(super) fn connect(&self, agent_id: &str, open_session_in: Option<std::path::PathBuf>) {
        let Some(profile) = self.profile(agent_id) else {
            tracing::warn!("connect: unknown agent {agent_id}");
            return;
        };
        let inspector = porthole_core::inspector::Inspector::new(INSPECTOR_BYTES);
        let generation = {
            let mut state = self.state();
            state.generations += 1;
            state.generations
        };
        // A new owner: the old connection's sessions, dialogs, openings, terminals and MCP
        // passes go with it.
        let new = Conn::new(ConnectionState::Starting, generation, inspector.clone());
        let old = self.forget_agent(agent_id, Ending::Replaced(Box::new(new)));
        self.push_snapshot();
        let this = self.clone();
        let agent_id = agent_id.to_string();
        let cwd = self.0.launch.cwd.clone();
        self.spawn(async move {
            if let Some(old) = old {
                old.shutdown().await;
            }
            let settings = this.settings();
            let opts = ClientOptions {
                modes: settings.modes(),
                // The agent's ACP version setting, as it is at this start.
                protocol: settings.protocol_of(&agent_id),
                terminal_auth: true,
                tap: Some(this.0.metrics.tap(std::sync::Arc::new(inspector))),
                // A command-line agent's "name" is its whole command line: core then names it by
                // its program or package instead.
                agent_name: (profile.id != super::launch::COMMAND_LINE_ID).then(|| profile.name.clone()),
                ..ClientOptions::default()
            };
            let mut command = profile.to_command(cwd);
            // Sign-in values the user typed earlier, from the OS keyring.
            match super::agents::sign_in_env(&agent_id).await {
                Ok(env) => command.env.extend(env),
                Err(problem) => {
                    // The keyring's error, never a value.
                    tracing::warn!("sign-in values of {agent_id}: {problem}");
                    this.set_sign_in_problem(&agent_id, generation, Some(problem));
                }
            }
            let (client, mut events) = match AgentClient::start(command, opts).await {
                Ok(started) => started,
                Err(e) => {
                    this.fail(&agent_id, generation, &e);
                    return;
                }
            };
            let stale = {
                let mut state = this.state();
                match state.conns.get_mut(&agent_id) {
                    Some(conn) if conn.generation == generation => {
                        conn.state = ConnectionState::Connected;
                        conn.agent = Some(client.agent());
                        conn.client = Some(client.clone());
                        false
                    }
                    _ => true,
                }
            };
            if stale {
                client.shutdown().await;
                return;
            }
            this.push_snapshot();
            // API keys the user gave earlier (kept in the OS keyring): sent in `authenticate`
            // before the first session, as env_var values are set at spawn.
            let key_methods: Vec<String> = client
                .auth_methods()
                .iter()
                .map(|m| m.id().0.to_string())
                .filter(|m| client.api_key_method(m).is_some())
                .collect();
            if !key_methods.is_empty() {
                match super::agents::saved_api_keys(&agent_id, key_methods).await {
                    Ok(keys) => {
                        for (method, key) in keys {
                            if let Err(e) = client.authenticate_with_api_key(&method, &key).await {
                                // Not the agent's error text in the log: it may echo the key.
                                tracing::warn!("signing in to {agent_id} with the saved API key failed");
                                let problem = format!("Signing in with the saved API key failed: {e}");
                                this.set_sign_in_problem(&agent_id, generation, Some(problem));
                            }
                        }
                    }
                    Err(problem) => {
                        tracing::warn!("saved API keys of {agent_id}: {problem}");
                        this.set_sign_in_problem(&agent_id, generation, Some(problem));
                    }
                }
            }
            if let Some(session_cwd) = open_session_in {
                let this = this.clone();
                let agent_id = agent_id.clone();
                tokio::spawn(async move {
                    if let Err(e) = this.new_session(&agent_id, session_cwd).await {
                        tracing::info!("start-up session for {agent_id}: {e:?}");
                    }
                });
            }
            let _running = EventLoop::start(&this);
            while let Some(event) = events.recv().await {
                // The exit is the connection's last event.
                if !this.apply(&agent_id, generation, &event) || matches!(event, Event::AgentExited(_)) {
                    break;
                }
            }
        });
    }

    fn fail(&self, agent_id: &str, generation: u64, error: &ClientError) {
        {
            let mut state = self.state();
            let Some(conn) = state
                .conns
                .get_mut(agent_id)
                .filter(|c| c.generation == generation)
            else {
                return;
            };
            conn.state = ConnectionState::Failed;
            let tail = match error {
                ClientError::Exited(info) => info.stderr_tail.clone(),
                _ => String::new(),
            };
            conn.error = Some((error.to_string(), tail));
        }
        self.push_snapshot();
    }

    /// Drop what the window knew about an agent's connection as it ends (`how`). Its sessions
    /// and dialogs go, and so do the windows of pages the user already consented to: those
    /// dialogs (answered, waiting for the agent's `elicitation/complete`) are told the agent is
    /// gone. Returns the client of a connection replaced or removed, to shut down.
    pub(super) fn forget_agent(&self, agent_id: &str, how: Ending) -> Option<AgentClient> {
        // Held while the dialogs leave the model: an answer in progress either took its dialog
        // first or finds none, so each dialog gets one entry in the history.
        let decision = self.decisions();
        let (dialogs, consented, let_go, client) = {
            let mut state = self.state();
            let ended = match how {
                Ending::Exited => None,
                Ending::Replaced(new) => state.conns.insert(agent_id.to_string(), *new),
                Ending::Removed => state.conns.shift_remove(agent_id),
            };
            let (dialogs, let_go, client) = match ended {
                Some(mut old) => {
                    let dialogs = std::mem::take(&mut old.dialogs);
                    let client = old.client.take();
                    (dialogs, Some(old.let_go()), client)
                }
                None => match state.conns.get_mut(agent_id) {
                    Some(conn) => (
                        std::mem::take(&mut conn.dialogs),
                        Some(conn.forget_sessions()),
                        None,
                    ),
                    None => Default::default(),
                },
            };
            for id in dialogs.keys() {
                state.accepted_urls.remove(id);
            }
            let consented: Vec<u64> = state
                .accepted_urls
                .iter()
                .filter(|(_, u)| u.agent_id == agent_id)
                .map(|(id, _)| *id)
                .collect();
            for id in &consented {
                state.accepted_urls.remove(id);
            }
            (dialogs, consented, let_go, client)
        };
        drop(let_go);
        // Their sealed windows close with them; the history notes they went unanswered.
        let listed_changed = !dialogs.is_empty();
        for (id, pending) in dialogs {
            self.0.sealed.close(id);
            self.record_dismissal(&pending, &DismissReason::AgentExited);
        }
        drop(decision);
        for id in consented {
            self.0.sealed.close(id);
            self.push(super::event_json(&Event::DialogDismissed {
                dialog_id: id,
                reason: DismissReason::AgentExited,
            }));
        }
        if listed_changed {
            self.push_dialogs();
        }
        client
    }

    /// Track the event in the app state and queue it for the window. False once stale.
    pub(super) fn apply(&self, agent_id: &str, generation: u64, event: &Event) -> bool {
        if self.settings().notifications {
            self.notify_if_dialog(event);
        }
        let decision = matches!(event, Event::DialogDismissed { .. }).then(|| self.decisions());
        let effects = {
            let mut state = self.state();
            if state.conns.get(agent_id).map(|c| c.generation) != Some(generation) {
                return false;
            }
            if let Event::Dialog(DialogPrompt::Elicitation(p)) = event {
                self.0.metrics.elicitation_delivered(p.dialog_id);
            }
            apply::apply(&mut state, agent_id, event)
        };
        let Effects {
            snapshot_changed,
            reconnect,
            dismissed,
            auto_answered_by,
        } = effects;
        let has_dismissed = dismissed.is_some();
        if let Some((pending, reason)) = dismissed {
            self.record_dismissal(&pending, reason);
        }
        drop(decision);
        if let Some(agent_name) = auto_answered_by {
            self.record_auto(agent_id, &agent_name, event);
        }
        if let Event::AgentExited(_) = event {
            self.forget_agent(agent_id, Ending::Exited);
        }
        let asked = event.dialog().is_some();
        // A dialog reaches the window in the list of waiting dialogs, not as an event of its own;
        // a dismissal goes first, then the list without it (the window shows why it went).
        if !asked {
            let mut queue = self.queue();
            let was_empty = queue.is_empty();
            let merged = coalesce::enqueue_text(&mut queue, event);
            drop(queue);
            if merged {
                self.wake_flusher(was_empty);
            } else {
                self.push(super::event_json(event));
            }
        }
        if asked || has_dismissed {
            self.push_dialogs();
        }
        // A dialog goes to the window at once rather than at the next flush tick.
        if asked {
            self.0.flush_now.notify_one();
        }
        if snapshot_changed {
            self.push_snapshot();
        }
        if reconnect {
            self.connect(agent_id, Some(self.0.launch.cwd.clone()));
        }
        true
    }

    /// An OS notification for a dialog that arrives while the window is in the background.
    fn notify_if_dialog(&self, event: &Event) {
        use crate::plain;
        let Some(prompt) = event.dialog() else {
            return;
        };
        let agent = prompt.agent().display_name();
        self.0.shell.dialog_waiting(
            "Porthole: waiting for you",
            &format!("{} {}", plain(&agent), prompt.what()),
        );
    }

    /// Stop an agent and forget its connection (it is being removed).
    pub(super) async fn disconnect_quietly(&self, agent_id: &str) {
        let client = self.forget_agent(agent_id, Ending::Removed);
        self.push_snapshot();
        if let Some(client) = client {
            client.shutdown().await;
        }
    }

    pub fn restart(&self, agent_id: &str) -> Result<(), AnswerError> {
        if self.profile(agent_id).is_none() {
            return Err(AnswerError::msg(format!("unknown agent `{agent_id}`")));
        }
        // The restarted agent opens a fresh session where the user last worked with it.
        let cwd = self
            .state()
            .conns
            .get(agent_id)
            .and_then(|c| c.sessions.values().next())
            .map(|s| std::path::PathBuf::from(&s.cwd))
            .unwrap_or_else(|| self.0.launch.cwd.clone());
        self.connect(agent_id, Some(cwd));
        Ok(())
    }

    /// Connect an agent that is not running yet (or failed); a running one is left alone.
    pub fn connect_agent(&self, agent_id: &str) -> Result<(), AnswerError> {
        if self.profile(agent_id).is_none() {
            return Err(AnswerError::msg(format!("unknown agent `{agent_id}`")));
        }
        let running = matches!(
            self.state().conns.get(agent_id).map(|c| c.state),
            Some(ConnectionState::Starting | ConnectionState::Connected)
        );
        if !running {
            self.connect(agent_id, Some(self.0.launch.cwd.clone()));
        }
        Ok(())
    }

    /// `authenticate` (agent-driven flows); on success the sign-in notice goes away.
    pub async fn authenticate(&self, agent_id: &str, method_id: &str) -> Result<(), AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        client.authenticate(method_id).await?;
        if let Some(conn) = self.state().conns.get_mut(agent_id) {
            conn.needs_auth = false;
            conn.error = None;
        }
        self.push_snapshot();
        Ok(())
    }

    /// Terminal authentication: run the agent's own command with the method's arguments and
    /// environment in an interactive terminal. Its output streams as terminal events.
    pub async fn start_terminal_auth(&self, agent_id: &str, method_id: &str) -> Result<String, AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        let profile = self
            .profile(agent_id)
            .ok_or_else(|| AnswerError::msg("unknown agent"))?;
        let method = client
            .auth_methods()
            .iter()
            .find_map(|m| match m {
                AuthMethod::Terminal(t) if t.id.0.as_ref() == method_id => Some(t.clone()),
                _ => None,
            })
            .ok_or_else(|| AnswerError::msg(format!("`{method_id}` is not a terminal sign-in method")))?;
        let mut args = profile.args.clone();
        args.extend(method.args.iter().cloned());
        let mut env: Vec<(String, String)> =
            profile.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        env.extend(method.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let spec = Spec {
            session_id: None,
            command: profile.command.clone(),
            args,
            env,
            cwd: Some(self.0.launch.cwd.clone()),
            output_byte_limit: None,
            interactive: true,
        };
        let id = client
            .terminals()
            .create(spec)
            .await
            .map_err(|e| AnswerError::msg(e.to_string()))?;
        if let Some(conn) = self.state().conns.get_mut(agent_id) {
            conn.auth_terminals.insert(id.clone());
        }
        Ok(id)
    }

    /// Type into a login terminal.
    pub async fn terminal_input(&self, terminal_id: &str, text: &str) -> Result<(), AnswerError> {
        let agent_id = self
            .state()
            .conns
            .iter()
            .find(|(_, c)| c.auth_terminals.contains(terminal_id))
            .map(|(agent_id, _)| agent_id.clone())
            .ok_or_else(|| AnswerError::msg("only sign-in terminals take input"))?;
        let client = self.client_of_agent(&agent_id)?;
        client
            .terminals()
            .write_input(terminal_id, text)
            .await
            .map_err(|e| AnswerError::msg(e.to_string()))
    }
}

/// How a connection ends in the model (`Backend::forget_agent`).
pub(super) enum Ending {
    /// The agent stopped: the connection stays (the window shows why), what it held goes.
    Exited,
    /// A (re)start: the new connection takes the old one's place.
    Replaced(Box<Conn>),
    /// The agent is being removed: its connection leaves the list.
    Removed,
}

/// Counts a connection's event loop as running while it lives (`Backend::stop` waits for
/// none to run).
struct EventLoop(Backend);

impl EventLoop {
    fn start(backend: &Backend) -> Self {
        backend.0.event_loops.send_modify(|n| *n += 1);
        EventLoop(backend.clone())
    }
}

impl Drop for EventLoop {
    fn drop(&mut self) {
        self.0.0.event_loops.send_modify(|n| *n -= 1);
    }
}
