//! One agent's connection and what lives as long as it does: its state and client, the
//! protocol inspector's log, the sessions it opened and those it is opening, its login
//! terminals and its sessions' recent tool calls. A (re)start makes a new `Conn`, so what the
//! old connection held goes with it at once, and an event of one agent cannot reach another's
//! session (two agents may name their sessions alike).

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;
use porthole_core::AgentClient;
use porthole_core::events::AgentIdentity;

use crate::apply::Opening;
use crate::mcp;
use crate::proxied::ProxyView;
use crate::snapshot::ConnectionState;
use crate::tool_calls::{self, SeenToolCall};
use crate::{AppState, Pending, SessionView};

/// One agent's connection.
pub(crate) struct Conn {
    pub(crate) state: ConnectionState,
    pub(crate) agent: Option<AgentIdentity>,
    pub(crate) error: Option<(String, String)>,
    pub(crate) client: Option<AgentClient>,
    /// Bumped on every (re)start so events of an old connection are ignored.
    pub(crate) generation: u64,
    /// The last session request failed with `auth_required`.
    pub(crate) needs_auth: bool,
    /// Why the stored sign-in values could not be read (no keyring, ...).
    pub(crate) sign_in_problem: Option<String>,
    /// The raw traffic, redacted, for the protocol inspector.
    pub(crate) inspector: porthole_core::inspector::Inspector,
    /// Set for an agent an editor drives through `porthole proxy`.
    pub(crate) proxy: Option<ProxyView>,
    /// The sessions open on this connection, in the order they opened.
    pub(crate) sessions: IndexMap<String, SessionView>,
    /// The session requests in flight, and the session-level updates that arrived before
    /// their answers (`apply::session_opened`).
    pub(crate) opening: Opening,
    /// The login terminals of terminal authentication, by terminal id.
    pub(crate) auth_terminals: HashSet<String>,
    /// Each session's recent tool calls, which MCP Apps are matched against.
    pub(crate) tool_calls: tool_calls::Recent,
    /// What each session got of the person's MCP connections, by session id: its pass lives
    /// as long as its entry.
    pub(crate) mcp: HashMap<String, mcp::Kept>,
    /// This agent's dialogs waiting for the user, by dialog id, in arrival order.
    pub(crate) dialogs: IndexMap<u64, Pending>,
}

/// What a connection let go of: the sessions' MCP passes, to drop once the state lock is
/// released (closing a pass kills the gateway's stdio servers for it).
#[must_use = "drop it after the state lock is released"]
pub(crate) struct LetGo {
    _passes: Vec<mcp::Kept>,
}

impl Conn {
    /// A connection in `state`, holding nothing yet.
    pub(crate) fn new(
        state: ConnectionState,
        generation: u64,
        inspector: porthole_core::inspector::Inspector,
    ) -> Self {
        Conn {
            state,
            agent: None,
            error: None,
            client: None,
            generation,
            needs_auth: false,
            sign_in_problem: None,
            inspector,
            proxy: None,
            sessions: IndexMap::new(),
            opening: Opening::default(),
            auth_terminals: HashSet::new(),
            tool_calls: tool_calls::Recent::default(),
            mcp: HashMap::new(),
            dialogs: IndexMap::new(),
        }
    }

    /// The agent is gone: its sessions, login terminals, tool calls and MCP passes go with
    /// it; the connection itself stays (the window shows why it stopped).
    pub(crate) fn forget_sessions(&mut self) -> LetGo {
        self.sessions.clear();
        self.auth_terminals.clear();
        self.tool_calls.clear();
        LetGo {
            _passes: self.mcp.drain().map(|(_, kept)| kept).collect(),
        }
    }

    /// A session closed (or was deleted): it, its tool calls and its MCP pass go.
    pub(crate) fn close_session(&mut self, session_id: &str) -> LetGo {
        self.sessions.shift_remove(session_id);
        tool_calls::forget(&mut self.tool_calls, session_id);
        LetGo {
            _passes: self.mcp.remove(session_id).into_iter().collect(),
        }
    }

    /// What the session got of the MCP connections (`None`: nothing); what it had before goes.
    pub(crate) fn keep_mcp(&mut self, session_id: &str, kept: Option<mcp::Kept>) -> LetGo {
        let before = match kept {
            Some(kept) => self.mcp.insert(session_id.to_string(), kept),
            None => self.mcp.remove(session_id),
        };
        LetGo {
            _passes: before.into_iter().collect(),
        }
    }

    /// The whole connection is let go of (replaced by a restart, or removed).
    pub(crate) fn let_go(mut self) -> LetGo {
        self.forget_sessions()
    }
}

/// Sessions are found through the connection that owns them.
impl AppState {
    /// Every open session: by connection, each connection's in the order they opened.
    pub(crate) fn sessions(&self) -> impl Iterator<Item = &SessionView> {
        self.conns.values().flat_map(|c| c.sessions.values())
    }

    /// The open session `session_id` (the first connection's, should two agents name theirs
    /// alike: the window's commands name a session by its id alone).
    pub(crate) fn session(&self, session_id: &str) -> Option<&SessionView> {
        self.conns.values().find_map(|c| c.sessions.get(session_id))
    }

    pub(crate) fn session_mut(&mut self, session_id: &str) -> Option<&mut SessionView> {
        self.conns
            .values_mut()
            .find_map(|c| c.sessions.get_mut(session_id))
    }

    /// The connection that holds the open session `session_id`.
    pub(crate) fn conn_of_session(&mut self, session_id: &str) -> Option<&mut Conn> {
        self.conns
            .values_mut()
            .find(|c| c.sessions.contains_key(session_id))
    }

    /// Every dialog waiting for the user, the agents' and Porthole's own, in arrival order
    /// (dialog ids are handed out in order, one sequence for the whole process).
    pub(crate) fn waiting(&self) -> Vec<&Pending> {
        let mut all: Vec<(&u64, &Pending)> = self
            .own_dialogs
            .iter()
            .chain(self.conns.values().flat_map(|c| c.dialogs.iter()))
            .collect();
        all.sort_by_key(|(id, _)| **id);
        all.into_iter().map(|(_, p)| p).collect()
    }

    /// How many dialogs wait for the user.
    pub(crate) fn waiting_count(&self) -> usize {
        self.own_dialogs.len() + self.conns.values().map(|c| c.dialogs.len()).sum::<usize>()
    }

    /// The waiting dialog `dialog_id`, whoever asked.
    pub(crate) fn dialog(&self, dialog_id: u64) -> Option<&Pending> {
        self.own_dialogs
            .get(&dialog_id)
            .or_else(|| self.conns.values().find_map(|c| c.dialogs.get(&dialog_id)))
    }

    /// The dialog `dialog_id` leaves the list (answered or dismissed).
    pub(crate) fn take_dialog(&mut self, dialog_id: u64) -> Option<Pending> {
        self.own_dialogs.shift_remove(&dialog_id).or_else(|| {
            self.conns
                .values_mut()
                .find_map(|c| c.dialogs.shift_remove(&dialog_id))
        })
    }

    /// The recent tool calls of `session_id`.
    pub(crate) fn tool_calls(&self, session_id: &str) -> Option<&std::collections::VecDeque<SeenToolCall>> {
        self.conns.values().find_map(|c| c.tool_calls.get(session_id))
    }
}

#[cfg(test)]
mod tests {
    use porthole_core::events::{AgentIdentity, DialogPrompt, FileAccessPrompt, FileOperation};

    use super::*;

    fn asked(agent_id: &str, dialog_id: u64) -> Pending {
        Pending {
            agent_id: agent_id.into(),
            prompt: DialogPrompt::FileAccess(Box::new(FileAccessPrompt {
                dialog_id,
                agent: AgentIdentity {
                    name: agent_id.into(),
                    title: None,
                    version: None,
                },
                session_id: "s".into(),
                path: "/etc/hosts".into(),
                operation: FileOperation::Read,
                reason: "outside the workspace".into(),
            })),
            arrived: None,
        }
    }

    fn conn() -> Conn {
        Conn::new(
            ConnectionState::Connected,
            1,
            porthole_core::inspector::Inspector::new(1024),
        )
    }

    /// Each connection holds its own dialogs, Porthole its own; the window gets them as one
    /// list in the order they arrived, and each leaves it once, from whoever holds it.
    #[test]
    fn the_waiting_dialogs_of_every_owner_are_one_list_in_arrival_order() {
        let mut state = AppState::default();
        let (mut a, mut b) = (conn(), conn());
        a.dialogs.insert(1, asked("a", 1));
        b.dialogs.insert(2, asked("b", 2));
        a.dialogs.insert(4, asked("a", 4));
        state.conns.insert("a".into(), a);
        state.conns.insert("b".into(), b);
        state.own_dialogs.insert(3, asked("porthole", 3));

        let order =
            |state: &AppState| -> Vec<u64> { state.waiting().iter().map(|p| p.prompt.dialog_id()).collect() };
        assert_eq!(order(&state), [1, 2, 3, 4]);
        assert_eq!(state.waiting_count(), 4);
        assert_eq!(state.dialog(2).map(Pending::agent_id), Some("b"));
        assert_eq!(state.dialog(3).map(Pending::agent_id), Some("porthole"));

        assert_eq!(state.take_dialog(2).map(|p| p.agent_id), Some("b".into()));
        assert!(state.take_dialog(2).is_none(), "a dialog leaves the list once");
        assert_eq!(state.take_dialog(3).map(|p| p.agent_id), Some("porthole".into()));
        assert_eq!(order(&state), [1, 4]);
        assert_eq!(state.waiting_count(), 2);
    }
}
