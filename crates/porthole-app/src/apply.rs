//! How one event of an agent's connection changes the app model's state, one function per
//! concern: session views, the waiting dialogs, turns, terminal sign-in, the connection's life.
//! Pure over [`AppState`] (no window, no history, no tasks): what must happen after the state
//! lock is released comes back as [`Effects`], which `Backend::apply` carries out.

use std::collections::VecDeque;
use std::time::Instant;

use porthole_core::acp::schema::MaybeUndefined;
use porthole_core::events::{DialogPrompt, DismissReason, Event, ExitInfo, RpcError};
use porthole_core::transcript::{SessionState, TranscriptUpdate};

use super::snapshot::ConnectionState;
use super::tool_calls;
use super::{AppState, Conn, Pending, SessionView};

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
    // Everything else changes what the connection owns.
    let Some(conn) = state.conns.get_mut(agent_id) else {
        return effects;
    };
    match event {
        Event::DialogDismissed { dialog_id, reason } => {
            effects.dismissed = conn.dialogs.shift_remove(dialog_id).map(|p| (p, reason));
        }
        // The transcript's items are the window's; of them the app model keeps only the recent
        // tool calls (what an MCP App is matched to). Session state goes into the session view.
        Event::SessionUpdate { session_id, update } => match update.as_ref() {
            TranscriptUpdate::Item(_) => {
                if let Some(call) = update.tool_call() {
                    tool_calls::seen(&mut conn.tool_calls, session_id, call);
                }
            }
            TranscriptUpdate::Session(change) => match conn.sessions.get_mut(session_id) {
                Some(session) => effects.snapshot_changed = session_update(session, change),
                None => conn.opening.keep_early(session_id, change),
            },
        },
        Event::PermissionAuto { .. } => {
            let agent = conn.agent.as_ref();
            effects.auto_answered_by = Some(agent.map(|a| a.display_name()).unwrap_or_default());
        }
        Event::TurnEnded {
            session_id, error, ..
        } => {
            turn_ended(conn, session_id, error.as_ref());
            effects.snapshot_changed = true;
        }
        Event::TerminalExited {
            terminal_id,
            exit_code,
            ..
        } => {
            // A successful login: reconnect and initialize again, as the spec's
            // terminal-auth flow says.
            let was_login = conn.auth_terminals.remove(terminal_id);
            effects.reconnect = was_login && *exit_code == Some(0);
        }
        Event::AgentExited(info) => {
            agent_exited(conn, info);
            effects.snapshot_changed = true;
        }
        Event::LineTooLong { bytes, limit } => line_too_long(conn, *bytes, *limit),
        _ => {}
    }
    effects
}

/// Most session-level updates kept per agent for sessions it is opening.
const EARLY_UPDATES: usize = 64;

/// The sessions a connection is opening (`session/new`, `load`, `resume` or `fork` in flight)
/// and the session-level updates (commands, mode, config, title, usage) that arrived for
/// sessions it does not hold yet. The agent's first updates follow its answer at once, and the
/// connection's event loop can apply them before the task that asked has registered the
/// session: kept here, they are folded into the session when it is (`session_opened`).
/// Bounded, and dropped when the connection has no opening left in flight.
#[derive(Default)]
pub(crate) struct Opening {
    in_flight: usize,
    early: VecDeque<(String, SessionState)>,
}

impl Opening {
    /// A session request is about to be sent.
    pub(crate) fn started(&mut self) {
        self.in_flight += 1;
    }

    /// That request is over (answered or failed, and the session registered if it opened).
    pub(crate) fn ended(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight == 0 {
            self.early.clear();
        }
    }

    /// A session-level update for a session the connection does not hold: kept while it is
    /// opening one (it may be that session's), dropped otherwise (a session already closed).
    fn keep_early(&mut self, session_id: &str, update: &SessionState) {
        if self.in_flight == 0 {
            return;
        }
        if self.early.len() == EARLY_UPDATES {
            self.early.pop_front();
        }
        self.early.push_back((session_id.to_string(), update.clone()));
    }

    /// The updates kept for `session_id`, taken out in the order they came.
    fn take_early(&mut self, session_id: &str) -> Vec<SessionState> {
        let (early, rest): (VecDeque<_>, VecDeque<_>) = std::mem::take(&mut self.early)
            .into_iter()
            .partition(|(id, _)| id == session_id);
        self.early = rest;
        early.into_iter().map(|(_, update)| update).collect()
    }
}

/// A session opened (or a load's placeholder for it): it joins its connection with the
/// session-level updates that arrived before it. With `replayed`, the view a load's replay
/// went into (its placeholder) keeps what the updates said and the answer does not (title,
/// commands, usage).
pub(super) fn session_opened(conn: &mut Conn, mut view: SessionView, replayed: bool) -> SessionView {
    if let Some(earlier) = conn.sessions.get(&view.session_id).filter(|_| replayed) {
        view.title = view.title.take().or_else(|| earlier.title.clone());
        if view.available_commands.is_empty() {
            view.available_commands = earlier.available_commands.clone();
        }
        view.usage = view.usage.take().or_else(|| earlier.usage.clone());
    }
    for update in conn.opening.take_early(&view.session_id) {
        session_update(&mut view, &update);
    }
    conn.sessions.insert(view.session_id.clone(), view.clone());
    view
}

/// A dialog waits for the user. An elicitation also starts the clock of its latency figure.
fn waiting(state: &mut AppState, agent_id: &str, prompt: DialogPrompt) {
    let dialog_id = prompt.dialog_id();
    let arrived = matches!(prompt, DialogPrompt::Elicitation(_)).then(Instant::now);
    if let Some(conn) = state.conns.get_mut(agent_id) {
        let agent_id = agent_id.to_string();
        conn.dialogs.insert(
            dialog_id,
            Pending {
                agent_id,
                prompt,
                arrived,
            },
        );
    }
}

/// The turn is over; a turn that failed for want of sign-in shows the sign-in panel.
fn turn_ended(conn: &mut Conn, session_id: &str, error: Option<&RpcError>) {
    if let Some(s) = conn.sessions.get_mut(session_id) {
        s.turn_running = false;
    }
    // Some agents (Claude Code) open a session and ask for sign-in at the first
    // prompt: the sign-in panel shows as when session/new asks.
    let auth_required = error.is_some_and(|e| e.code == porthole_core::sessions::AUTH_REQUIRED);
    conn.needs_auth = auth_required || (conn.needs_auth && error.is_some());
}

/// The agent stopped: asked to ("exited"), or not ("failed", with why and its stderr).
fn agent_exited(conn: &mut Conn, info: &ExitInfo) {
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

/// The agent wrote a line over the size limit and core discarded it: the connection's log
/// (the protocol inspector) says so where the line would have been.
fn line_too_long(conn: &Conn, bytes: u64, limit: u64) {
    let text = format!(
        "Porthole discarded a line of {bytes} bytes from the agent: over the limit of {limit} bytes per line"
    );
    conn.inspector
        .note(porthole_core::transport::Direction::Incoming, text);
}

/// Fold a session-level update into the session view: the SDK's typed values, moved in as they
/// are. True when the snapshot changed.
fn session_update(session: &mut SessionView, update: &SessionState) -> bool {
    match update {
        SessionState::CurrentMode(m) => {
            if let Some(modes) = session.modes.as_mut() {
                modes.current_mode_id = m.current_mode_id.clone();
            }
        }
        SessionState::ConfigOptions(u) => session.config_options = u.config_options.clone(),
        SessionState::SessionInfo(u) => match &u.title {
            // Left out: unchanged; `null` clears it.
            MaybeUndefined::Undefined => {}
            MaybeUndefined::Null => session.title = None,
            MaybeUndefined::Value(title) => session.title = Some(title.clone()),
        },
        SessionState::AvailableCommands(u) => session.available_commands = u.available_commands.clone(),
        SessionState::Usage(u) => session.usage = Some(u.clone()),
        // ACP v2's running state: the prompt box and the sidebar say it.
        SessionState::State(r) => session.run_state = Some(r.clone()),
    }
    true
}

#[cfg(test)]
mod tests {
    use porthole_core::acp::v1::schema::SessionModeState;
    use porthole_core::events::{AgentIdentity, FileAccessPrompt, FileOperation};
    use serde_json::{Value, json};

    use super::*;

    /// A state with one connected agent `a` and its session `s`, turn running.
    fn state() -> AppState {
        let mut conn = Conn::new(
            ConnectionState::Connected,
            1,
            porthole_core::inspector::Inspector::new(1024),
        );
        conn.agent = Some(AgentIdentity {
            name: "agent-a".into(),
            title: Some("Agent A".into()),
            version: None,
        });
        conn.sessions.insert(
            "s".into(),
            SessionView {
                session_id: "s".into(),
                agent_id: "a".into(),
                cwd: "/w".into(),
                additional_directories: Vec::new(),
                title: None,
                modes: Some(SessionModeState::new("ask", Vec::new())),
                models: None,
                config_options: Vec::new(),
                available_commands: Vec::new(),
                turn_running: true,
                run_state: None,
                usage: None,
            },
        );
        let mut state = AppState::default();
        state.conns.insert("a".into(), conn);
        state
    }

    /// The sessions of agent `a`.
    fn sessions(st: &AppState) -> &indexmap::IndexMap<String, SessionView> {
        &st.conns["a"].sessions
    }

    fn conn(st: &mut AppState) -> &mut Conn {
        st.conns.get_mut("a").unwrap()
    }

    fn opening(st: &mut AppState) -> &mut Opening {
        &mut conn(st).opening
    }

    fn update(session_id: &str, update: Value) -> Event {
        let sdk: porthole_core::acp::v1::schema::SessionUpdate = serde_json::from_value(update).unwrap();
        Event::SessionUpdate {
            session_id: session_id.into(),
            update: Box::new(sdk.into()),
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
        assert_eq!(
            &*sessions(&st)["s"].modes.as_ref().unwrap().current_mode_id.0,
            "code"
        );

        let title = update(
            "s",
            json!({"sessionUpdate": "session_info_update", "title": "Refactor"}),
        );
        assert!(apply(&mut st, "a", &title).snapshot_changed);
        assert_eq!(sessions(&st)["s"].title.as_deref(), Some("Refactor"));

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

    /// The view holds the SDK's typed values as core parsed them: what the window gets is their
    /// own serialization, `_meta` included. A field the schema does not know is knowingly
    /// dropped: the SDK's parse in core (the one parse of a `session/update`) has no place for
    /// it, and the window reads its types from the same schema.
    #[test]
    fn the_session_view_keeps_the_sdks_values_with_their_meta() {
        let mut st = state();
        let commands = update(
            "s",
            json!({"sessionUpdate": "available_commands_update", "availableCommands": [
                {"name": "web", "description": "d", "input": {"hint": "q"},
                 "_meta": {"x": 1}, "notInTheSchema": true}]}),
        );
        apply(&mut st, "a", &commands);
        let usage = update(
            "s",
            json!({"sessionUpdate": "usage_update", "used": 5, "size": 100,
                "cost": {"amount": 0.5, "currency": "USD"}, "_meta": {"y": 2}, "notInTheSchema": 1}),
        );
        apply(&mut st, "a", &usage);
        let config = update(
            "s",
            json!({"sessionUpdate": "config_option_update", "configOptions": [
                {"id": "web", "name": "Web", "type": "boolean", "currentValue": true,
                 "_meta": {"z": 3}, "notInTheSchema": 1}]}),
        );
        apply(&mut st, "a", &config);
        let view = &sessions(&st)["s"];
        assert_eq!(view.available_commands[0].name, "web");
        assert_eq!(view.usage.as_ref().map(|u| u.used), Some(5));
        let window: Value = serde_json::to_value(view).unwrap();
        assert_eq!(
            window["availableCommands"],
            json!([{"name": "web", "description": "d", "input": {"hint": "q"}, "_meta": {"x": 1}}])
        );
        assert_eq!(
            window["usage"],
            json!({"used": 5, "size": 100, "cost": {"amount": 0.5, "currency": "USD"}, "_meta": {"y": 2}})
        );
        assert_eq!(
            window["configOptions"],
            json!([{"id": "web", "name": "Web", "type": "boolean", "currentValue": true, "_meta": {"z": 3}}])
        );
    }

    #[test]
    fn a_title_left_out_stays_and_a_null_title_clears_it() {
        let mut st = state();
        let info = |title: Value| {
            update(
                "s",
                json!({"sessionUpdate": "session_info_update", "title": title}),
            )
        };
        apply(&mut st, "a", &info(json!("Refactor")));
        assert_eq!(sessions(&st)["s"].title.as_deref(), Some("Refactor"));
        let left_out = update(
            "s",
            json!({"sessionUpdate": "session_info_update", "updatedAt": "2026-12-06T00:00:00Z"}),
        );
        apply(&mut st, "a", &left_out);
        assert_eq!(sessions(&st)["s"].title.as_deref(), Some("Refactor"));
        apply(&mut st, "a", &info(Value::Null));
        assert_eq!(sessions(&st)["s"].title, None);
    }

    /// A view of session `id` of agent `a` as it opens, without commands.
    fn opened_view(id: &str) -> SessionView {
        let mut view = sessions(&state())["s"].clone();
        view.session_id = id.into();
        view.turn_running = false;
        view
    }

    fn commands(id: &str, name: &str) -> Event {
        update(
            id,
            json!({"sessionUpdate": "available_commands_update",
                "availableCommands": [{"name": name, "description": "d"}]}),
        )
    }

    #[test]
    fn updates_that_arrive_before_the_opener_registers_the_session_are_folded_in() {
        let mut st = state();
        opening(&mut st).started();
        // The event loop applies the agent's first updates before the opener registers.
        apply(&mut st, "a", &commands("s2", "web"));
        let title = update(
            "s2",
            json!({"sessionUpdate": "session_info_update", "title": "New"}),
        );
        apply(&mut st, "a", &title);
        let chunk = update(
            "s2",
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}),
        );
        apply(&mut st, "a", &chunk);
        let view = session_opened(conn(&mut st), opened_view("s2"), false);
        assert_eq!(view.available_commands[0].name, "web");
        assert_eq!(view.title.as_deref(), Some("New"));
        assert_eq!(sessions(&st)["s2"].available_commands[0].name, "web");
        opening(&mut st).ended();
        assert!(
            opening(&mut st).early.is_empty(),
            "nothing kept once no session is being opened"
        );
    }

    #[test]
    fn early_updates_are_kept_only_while_a_session_opens_and_bounded() {
        let mut st = state();
        // No session being opened: an update for an unknown (closed) session is dropped.
        apply(&mut st, "a", &commands("gone", "web"));
        assert!(opening(&mut st).early.is_empty());
        opening(&mut st).started();
        opening(&mut st).started();
        for i in 0..(EARLY_UPDATES + 10) {
            apply(&mut st, "a", &commands(&format!("x{i}"), "web"));
        }
        apply(&mut st, "a", &commands("s3", "review"));
        assert_eq!(opening(&mut st).early.len(), EARLY_UPDATES);
        // Another session's updates stay for its own opener.
        let view = session_opened(conn(&mut st), opened_view("s3"), false);
        assert_eq!(view.available_commands[0].name, "review");
        assert_eq!(opening(&mut st).early.len(), EARLY_UPDATES - 1);
        opening(&mut st).ended();
        assert_eq!(
            opening(&mut st).early.len(),
            EARLY_UPDATES - 1,
            "the other opener is still waiting"
        );
        opening(&mut st).ended();
        assert!(opening(&mut st).early.is_empty());
        // An opening that ends more often than it started does not underflow.
        opening(&mut st).ended();
    }

    #[test]
    fn a_loads_answer_keeps_what_its_replay_said() {
        let mut st = state();
        session_opened(conn(&mut st), opened_view("old"), false);
        apply(&mut st, "a", &commands("old", "web"));
        let view = session_opened(conn(&mut st), opened_view("old"), true);
        assert_eq!(view.available_commands[0].name, "web");
        // A new session that happens to reuse an id starts afresh.
        let view = session_opened(conn(&mut st), opened_view("old"), false);
        assert!(view.available_commands.is_empty());
    }

    fn run_state(state: &str, busy: bool, stop_reason: Option<&str>) -> Event {
        Event::SessionUpdate {
            session_id: "s".into(),
            update: Box::new(TranscriptUpdate::Session(SessionState::State(
                porthole_core::transcript::RunState {
                    state: state.into(),
                    busy,
                    stop_reason: stop_reason.map(str::to_string),
                    background: Some(vec![json!({"id": "b1", "kind": "terminal", "title": "npm test"})]),
                },
            ))),
        }
    }

    #[test]
    fn a_v2_running_state_is_kept_in_the_session_view_as_the_last_one_said() {
        let mut st = state();
        assert!(
            sessions(&st)["s"].run_state.is_none(),
            "none until the agent says one"
        );
        assert!(apply(&mut st, "a", &run_state("requires_action", true, None)).snapshot_changed);
        let kept = sessions(&st)["s"].run_state.clone().expect("kept");
        assert_eq!((kept.state.as_str(), kept.busy), ("requires_action", true));
        assert_eq!(kept.background.unwrap()[0]["title"], "npm test");
        apply(&mut st, "a", &run_state("idle", false, Some("end_turn")));
        let kept = sessions(&st)["s"].run_state.clone().expect("kept");
        assert_eq!(
            (kept.state.as_str(), kept.busy, kept.stop_reason.as_deref()),
            ("idle", false, Some("end_turn"))
        );
    }

    #[test]
    fn a_dialog_waits_until_dismissed_once() {
        let mut st = state();
        let asked = file_access(7);
        let fx = apply(&mut st, "a", &asked);
        assert!(fx.dismissed.is_none() && !fx.snapshot_changed);
        assert_eq!(conn(&mut st).dialogs.len(), 1);
        assert_eq!(conn(&mut st).dialogs[&7].agent_id(), "a");

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
        assert!(conn(&mut st).dialogs.is_empty());
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
        assert!(!sessions(&st)["s"].turn_running);
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
        st.conns
            .get_mut("a")
            .unwrap()
            .auth_terminals
            .insert("login".into());
        assert!(!apply(&mut st, "a", &exited("other", Some(0))).reconnect);
        assert!(apply(&mut st, "a", &exited("login", Some(0))).reconnect);
        assert!(st.conns["a"].auth_terminals.is_empty());
        st.conns
            .get_mut("a")
            .unwrap()
            .auth_terminals
            .insert("login".into());
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
