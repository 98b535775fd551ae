//! How one event of an agent's connection changes the app model's state, one function per
//! concern: session views, the waiting dialogs, turns, terminal sign-in, the connection's life.
//! Pure over [`AppState`] (no window, no history, no tasks): what must happen after the state
//! lock is released comes back as [`Effects`], which `Backend::apply` carries out.

use std::time::Instant;

use porthole_core::acp::v1::schema::SessionUpdate;
use porthole_core::events::{DialogPrompt, DismissReason, Event, ExitInfo, RpcError};
use serde_json::{Value, json};

use super::snapshot::ConnectionState;
use super::{AppState, Pending, SessionView};

/// What the backend does once the state is updated (and its lock released).
#[derive(Default)]
pub(super) struct Effects<'e> {
    /// Send the window a new snapshot.
    pub(super) snapshot_changed: bool,
    /// A login terminal succeeded: connect again, as the spec's terminal-auth flow says.
    pub(super) reconnect: bool,
    /// A waiting dialog went away without an answer: record it in the history.
    pub(super) dismissed: Option<(Pending, &'e DismissReason)>,
    /// A permission was answered by a remembered decision: record it under this agent's name.
    pub(super) auto_answered_by: Option<String>,
}

/// Apply one event of `agent_id`'s connection to the state.
pub(super) fn apply<'e>(state: &mut AppState, agent_id: &str, event: &'e Event) -> Effects<'e> {
    let mut effects = Effects::default();
    // A dialog of any kind joins the one list of waiting dialogs.
    if let Some(prompt) = event.dialog() {
        waiting(state, agent_id, prompt.clone());
        return effects;
    }
    match event {
        Event::SessionUpdate { session_id, update } => {
            if let Some(session) = state.sessions.get_mut(session_id) {
                effects.snapshot_changed = session_update(session, update);
            }
        }
        Event::DialogDismissed { dialog_id, reason } => {
            effects.dismissed = state.pending.shift_remove(dialog_id).map(|p| (p, reason));
        }
        Event::PermissionAuto { .. } => {
            let agent = state.conns.get(agent_id).and_then(|c| c.agent.as_ref());
            effects.auto_answered_by = Some(agent.map(|a| a.display_name()).unwrap_or_default());
        }
        Event::TurnEnded {
            session_id, error, ..
        } => {
            turn_ended(state, agent_id, session_id, error.as_ref());
            effects.snapshot_changed = true;
        }
        Event::TerminalExited {
            terminal_id,
            exit_code,
            ..
        } => {
            // A successful login: reconnect and initialize again, as the spec's
            // terminal-auth flow says.
            let was_login = state.auth_terminals.remove(terminal_id).is_some();
            effects.reconnect = was_login && *exit_code == Some(0);
        }
        Event::AgentExited(info) => {
            agent_exited(state, agent_id, info);
            effects.snapshot_changed = true;
        }
        Event::LineTooLong { bytes, limit } => line_too_long(state, agent_id, *bytes, *limit),
        _ => {}
    }
    effects
}

/// A dialog waits for the user. An elicitation also starts the clock of its latency figure.
fn waiting(state: &mut AppState, agent_id: &str, prompt: DialogPrompt) {
    let dialog_id = prompt.dialog_id();
    if let DialogPrompt::Elicitation(_) = prompt {
        state.arrived.insert(dialog_id, Instant::now());
    }
    let agent_id = agent_id.to_string();
    state.pending.insert(dialog_id, Pending { agent_id, prompt });
}

/// The turn is over; a turn that failed for want of sign-in shows the sign-in panel.
fn turn_ended(state: &mut AppState, agent_id: &str, session_id: &str, error: Option<&RpcError>) {
    if let Some(s) = state.sessions.get_mut(session_id) {
        s.turn_running = false;
    }
    // Some agents (Claude Code) open a session and ask for sign-in at the first
    // prompt: the sign-in panel shows as when session/new asks.
    let auth_required = error.is_some_and(|e| e.code == porthole_core::sessions::AUTH_REQUIRED);
    if let Some(conn) = state.conns.get_mut(agent_id) {
        conn.needs_auth = auth_required || (conn.needs_auth && error.is_some());
    }
}

/// The agent stopped: asked to ("exited"), or not ("failed", with why and its stderr).
fn agent_exited(state: &mut AppState, agent_id: &str, info: &ExitInfo) {
    if let Some(conn) = state.conns.get_mut(agent_id) {
        conn.state = if info.requested {
            ConnectionState::Exited
        } else {
            ConnectionState::Failed
        };
        conn.error = Some((
            format!("The agent stopped: {}", info.status),
            info.stderr_tail.clone(),
        ));
    }
}

/// The agent wrote a line over the size limit and core discarded it: the connection's log
/// (the protocol inspector) says so where the line would have been.
fn line_too_long(state: &mut AppState, agent_id: &str, bytes: u64, limit: u64) {
    if let Some(conn) = state.conns.get(agent_id) {
        let text = format!(
            "Porthole discarded a line of {bytes} bytes from the agent: over the limit of {limit} bytes per line"
        );
        conn.inspector
            .note(porthole_core::transport::Direction::Incoming, text);
    }
}

/// Fold a session-level update into the session view. True when the snapshot changed.
fn session_update(session: &mut SessionView, update: &SessionUpdate) -> bool {
    let as_json = || serde_json::to_value(update).unwrap_or(Value::Null);
    match update {
        SessionUpdate::CurrentModeUpdate(m) => {
            if let Some(modes) = session.modes.as_mut() {
                modes["currentModeId"] = json!(m.current_mode_id.0);
            }
            true
        }
        SessionUpdate::ConfigOptionUpdate(_) => {
            session.config_options = as_json()["configOptions"].clone();
            true
        }
        SessionUpdate::SessionInfoUpdate(_) => {
            let v = as_json();
            if let Some(title) = v.get("title") {
                session.title = title.as_str().map(str::to_string);
            }
            true
        }
        SessionUpdate::AvailableCommandsUpdate(_) => {
            session.available_commands = as_json()["availableCommands"].clone();
            true
        }
        SessionUpdate::UsageUpdate(_) => {
            session.usage = Some(as_json());
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use porthole_core::events::{AgentIdentity, FileAccessPrompt, FileOperation};

    use super::*;
    use crate::Conn;

    /// A state with one connected agent `a` and its session `s`, turn running.
    fn state() -> AppState {
        let mut state = AppState::default();
        state.conns.insert(
            "a".into(),
            Conn {
                state: ConnectionState::Connected,
                agent: Some(AgentIdentity {
                    name: "agent-a".into(),
                    title: Some("Agent A".into()),
                    version: None,
                }),
                error: None,
                client: None,
                generation: 1,
                needs_auth: false,
                sign_in_problem: None,
                inspector: porthole_core::inspector::Inspector::new(1024),
                proxy: None,
            },
        );
        state.sessions.insert(
            "s".into(),
            SessionView {
                session_id: "s".into(),
                agent_id: "a".into(),
                cwd: "/w".into(),
                additional_directories: Vec::new(),
                title: None,
                modes: Some(json!({"currentModeId": "ask", "availableModes": []})),
                models: None,
                config_options: json!([]),
                available_commands: json!([]),
                turn_running: true,
                usage: None,
            },
        );
        state
    }

    fn update(session_id: &str, update: Value) -> Event {
        Event::SessionUpdate {
            session_id: session_id.into(),
            update: Box::new(serde_json::from_value(update).unwrap()),
        }
    }

    fn turn_ended(error: Option<RpcError>) -> Event {
        Event::TurnEnded {
            session_id: "s".into(),
            stop_reason: None,
            error,
        }
    }

    fn file_access(dialog_id: u64) -> Event {
        Event::Dialog(DialogPrompt::FileAccess(Box::new(FileAccessPrompt {
            dialog_id,
            agent: AgentIdentity {
                name: "agent-a".into(),
                title: None,
                version: None,
            },
            session_id: "s".into(),
            path: "/etc/hosts".into(),
            operation: FileOperation::Read,
            reason: "outside the workspace".into(),
        })))
    }

    #[test]
    fn a_line_too_long_is_noted_in_the_connections_log() {
        let mut st = state();
        let event = Event::LineTooLong {
            bytes: 20_000_000,
            limit: 16 << 20,
        };
        apply(&mut st, "a", &event);
        let log = st.conns["a"].inspector.since(0);
        assert_eq!(log.len(), 1);
        assert!(log[0].note, "marked as Porthole's note, not a wire line");
        assert!(log[0].text.contains("20000000 bytes"), "{}", log[0].text);
    }

    #[test]
    fn session_settings_updates_change_the_view_and_chunks_do_not() {
        let mut st = state();
        let mode = update(
            "s",
            json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"}),
        );
        assert!(apply(&mut st, "a", &mode).snapshot_changed);
        assert_eq!(st.sessions["s"].modes.as_ref().unwrap()["currentModeId"], "code");

        let title = update(
            "s",
            json!({"sessionUpdate": "session_info_update", "title": "Refactor"}),
        );
        assert!(apply(&mut st, "a", &title).snapshot_changed);
        assert_eq!(st.sessions["s"].title.as_deref(), Some("Refactor"));

        let chunk = update(
            "s",
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}),
        );
        assert!(!apply(&mut st, "a", &chunk).snapshot_changed);
        // A session the model does not hold (already closed) changes nothing.
        assert!(
            !apply(
                &mut st,
                "a",
                &update(
                    "gone",
                    json!({"sessionUpdate": "current_mode_update", "currentModeId": "x"})
                )
            )
            .snapshot_changed
        );
    }

    #[test]
    fn a_dialog_waits_until_dismissed_once() {
        let mut st = state();
        let asked = file_access(7);
        let fx = apply(&mut st, "a", &asked);
        assert!(fx.dismissed.is_none() && !fx.snapshot_changed);
        assert_eq!(st.pending.len(), 1);
        assert_eq!(st.pending[&7].agent_id(), "a");

        let dismiss = Event::DialogDismissed {
            dialog_id: 7,
            reason: DismissReason::TurnCancelled,
        };
        let fx = apply(&mut st, "a", &dismiss);
        let (pending, reason) = fx
            .dismissed
            .expect("the waiting dialog is handed back for the history");
        assert_eq!(pending.agent_id(), "a");
        assert_eq!(*reason, DismissReason::TurnCancelled);
        assert!(st.pending.is_empty());
        // A second dismissal of the same dialog (already answered) records nothing.
        assert!(apply(&mut st, "a", &dismiss).dismissed.is_none());
    }

    #[test]
    fn a_turn_that_ends_for_want_of_sign_in_shows_the_sign_in_panel_until_a_turn_succeeds() {
        let mut st = state();
        let auth = RpcError {
            code: porthole_core::sessions::AUTH_REQUIRED,
            message: "sign in".into(),
        };
        assert!(apply(&mut st, "a", &turn_ended(Some(auth))).snapshot_changed);
        assert!(!st.sessions["s"].turn_running);
        assert!(st.conns["a"].needs_auth);
        // Another failure keeps it; a turn without error clears it.
        let other = RpcError {
            code: -32603,
            message: "boom".into(),
        };
        apply(&mut st, "a", &turn_ended(Some(other)));
        assert!(st.conns["a"].needs_auth);
        apply(&mut st, "a", &turn_ended(None));
        assert!(!st.conns["a"].needs_auth);
    }

    #[test]
    fn only_a_successful_login_terminal_reconnects() {
        let exited = |id: &str, code: Option<u32>| Event::TerminalExited {
            terminal_id: id.into(),
            exit_code: code,
            signal: None,
        };
        let mut st = state();
        st.auth_terminals.insert("login".into(), "a".into());
        assert!(!apply(&mut st, "a", &exited("other", Some(0))).reconnect);
        assert!(apply(&mut st, "a", &exited("login", Some(0))).reconnect);
        assert!(st.auth_terminals.is_empty());
        st.auth_terminals.insert("login".into(), "a".into());
        assert!(!apply(&mut st, "a", &exited("login", Some(1))).reconnect);
    }

    #[test]
    fn the_agent_exiting_marks_the_connection_exited_or_failed() {
        let exit = |requested| {
            Event::AgentExited(ExitInfo {
                code: Some(3),
                signal: None,
                status: "exit status 3".into(),
                stderr_tail: "panic: no key".into(),
                requested,
            })
        };
        let mut st = state();
        assert!(apply(&mut st, "a", &exit(false)).snapshot_changed);
        assert_eq!(st.conns["a"].state, ConnectionState::Failed);
        assert_eq!(
            st.conns["a"].error,
            Some(("The agent stopped: exit status 3".into(), "panic: no key".into()))
        );
        apply(&mut st, "a", &exit(true));
        assert_eq!(st.conns["a"].state, ConnectionState::Exited);
    }

    #[test]
    fn a_remembered_decision_is_recorded_under_the_agents_name() {
        let mut st = state();
        let auto: Event = Event::PermissionAuto {
            session_id: "s".into(),
            tool_call: Box::new(serde_json::from_value(json!({"toolCallId": "t1"})).unwrap()),
            option_id: "yes".into(),
            option_name: "Yes".into(),
            option_kind: serde_json::from_value(json!("allow_always")).unwrap(),
            tool_kind: "edit".into(),
            rule_id: 1,
        };
        assert_eq!(
            apply(&mut st, "a", &auto).auto_answered_by.as_deref(),
            Some("Agent A")
        );
    }
}
