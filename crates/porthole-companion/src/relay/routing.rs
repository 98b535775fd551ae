//! What each line is and where it goes (see the module's docs in `mod.rs`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

use super::{EditorRequest, Relay, line_of};
use crate::link::{self, Control};
use crate::peek::{SESSION_UPDATE_PREFIX, peek};
use crate::questions::Kind;
use porthole_framing::{LineReader, Piece};

/// Questions held while the app is being reached; beyond this the agent gets `cancel` at once.
const MAX_QUEUED: usize = 64;
/// The editor's requests in flight that are tracked (for request-scoped elicitations).
const MAX_TRACKED: usize = 4096;

impl Relay {
    async fn from_editor(self: &Arc<Self>, line: &[u8]) {
        let mut rewritten = None;
        if let Some(p) = peek(line)
            && p.is_request()
        {
            let id = p.id_key().unwrap_or_default().to_string();
            let method = p.method().to_string();
            if method == "initialize" && self.on_initialize(p.params.map(|r| r.get())) {
                rewritten = crate::capabilities::merge_into_initialize(line);
            }
            if let Some(mcp) = &self.mcp
                && matches!(
                    method.as_str(),
                    "session/new" | "session/load" | "session/resume" | "session/fork"
                )
            {
                let agent_init = self.state().agent_init.clone();
                rewritten = mcp.add_to(line, &id, agent_init.as_ref()).await;
            }
            let params = method
                .starts_with("session/")
                .then(|| p.params.and_then(|r| serde_json::from_str(r.get()).ok()))
                .flatten();
            let session_id = params
                .as_ref()
                .and_then(|p: &Value| p.get("sessionId"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let tracked = {
                let mut state = self.state();
                let room = state.requests.len() < MAX_TRACKED;
                if room {
                    let request = EditorRequest {
                        method: method.clone(),
                        session_id: session_id.clone(),
                        params,
                    };
                    state.requests.insert(id.clone(), request);
                }
                room
            };
            if tracked {
                self.tell_app(Control::Request {
                    id,
                    method,
                    session_id,
                })
                .await;
            }
        }
        self.to_agent(line_of(rewritten.as_deref().unwrap_or(line))).await;
    }

    /// Decides whether the proxy answers the agent's questions; true when the line must gain
    /// Porthole's capabilities.
    fn on_initialize(&self, params: Option<&str>) -> bool {
        use crate::preference::{WhoAnswers, agent_key, read};
        let params: Value = params
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or(Value::Null);
        // The person's choice is read only when it matters: the editor can ask, `--always` is off.
        let who = if self.opts.always || !crate::capabilities::editor_elicits(&params) {
            WhoAnswers::Porthole
        } else {
            read(self.opts.settings_file.as_deref(), &agent_key(&self.opts.agent))
        };
        let answering = who == WhoAnswers::Porthole;
        let mut state = self.state();
        state.answering = answering;
        state.asking = who == WhoAnswers::Ask;
        state.editor_info = params.get("clientInfo").cloned();
        answering
    }

    /// What to do with one of the agent's lines; `true` when it goes on to the editor.
    async fn from_agent(self: &Arc<Self>, line: &[u8]) -> bool {
        if line.starts_with(SESSION_UPDATE_PREFIX) {
            self.copy_to_view(line);
            return true;
        }
        let Some(p) = peek(line) else { return true };
        if p.is_response() {
            self.on_agent_response(&p).await;
            return true;
        }
        let answering = self.state().answering;
        if !answering {
            return true;
        }
        if let (Some(id), Some(kind)) = (p.id_key(), Kind::of(p.method(), p.params))
            && is_request_id(id)
        {
            self.take_question(id.to_string(), kind, line).await;
            return false;
        }
        match (p.method(), p.id_key()) {
            ("elicitation/create", _) => {
                // No id, `"id": null`, or an object: not a request anyone can answer. The
                // proxy answers the questions here; the editor is not handed this one.
                tracing::warn!("dropped an elicitation/create without a valid id");
                false
            }
            ("elicitation/complete", None) => {
                if let Some(link) = self.link() {
                    let _ = link.send(link::frame(link::ACP, line)).await;
                }
                false
            }
            ("$/cancel_request", None) => {
                let target = p
                    .params
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .and_then(|v| v.get("requestId").map(Value::to_string));
                match target {
                    Some(id) => !self.withdraw(&id, line).await,
                    None => true,
                }
            }
            ("session/update", None) => {
                self.copy_to_view(line);
                true
            }
            _ => true,
        }
    }

    /// The live view's copy: never waited for; dropped when the app falls behind.
    fn copy_to_view(&self, line: &[u8]) {
        if let Some(link) = self.link() {
            let _ = link.try_send(link::frame(link::ACP, line));
        }
    }

    async fn on_agent_response(&self, p: &crate::peek::Peeked<'_>) {
        let Some(id) = p.id_key() else { return };
        let Some(request) = self.state().requests.remove(id) else {
            return;
        };
        let ok = p.result.is_some() && p.error.is_none();
        let result: Value = p
            .result
            .filter(|_| ok)
            .and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or(Value::Null);
        let params = request.params.unwrap_or(Value::Null);
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let mut messages = Vec::new();
        match request.method.as_str() {
            "initialize" if ok => {
                self.state().agent_init = Some(result.clone());
                // A running app can be linked now (one that starts later is found on a retry).
                self.wanted.notify_one();
            }
            "session/new" | "session/fork" if ok => {
                if let (Some(session_id), Some(cwd)) = (text(&result, "sessionId"), text(&params, "cwd")) {
                    messages.push(self.opened(session_id, cwd));
                }
            }
            "session/load" | "session/resume" if ok => {
                if let (Some(session_id), Some(cwd)) = (text(&params, "sessionId"), text(&params, "cwd")) {
                    messages.push(self.opened(session_id, cwd));
                }
            }
            "session/close" | "session/delete" if ok => {
                if let Some(session_id) = text(&params, "sessionId") {
                    self.state().sessions.retain(|(s, _)| *s != session_id);
                    if let Some(mcp) = &self.mcp {
                        mcp.session_closed(&session_id);
                    }
                    messages.push(Control::SessionClosed { session_id });
                }
            }
            _ => {}
        }
        // The connections made for this session request know their session from now on.
        if let Some(mcp) = &self.mcp {
            let opened = match request.method.as_str() {
                "session/new" | "session/fork" => Some(text(&result, "sessionId")),
                "session/load" | "session/resume" => Some(text(&params, "sessionId")),
                _ => None,
            };
            if let Some(opened) = opened {
                mcp.session_answered(id, opened.filter(|_| ok).as_deref());
            }
        }
        messages.push(Control::RequestDone { id: id.to_string() });
        for message in messages {
            self.tell_app(message).await;
        }
    }

    fn opened(&self, session_id: String, cwd: String) -> Control {
        let mut state = self.state();
        state.sessions.retain(|(s, _)| *s != session_id);
        state.sessions.push((session_id.clone(), cwd.clone()));
        Control::Session { session_id, cwd }
    }

    /// One of the agent's questions: to the app, or held until one is reached.
    async fn take_question(self: &Arc<Self>, id: String, kind: Kind, line: &[u8]) {
        enum Next {
            Send(mpsc::Sender<Vec<u8>>),
            Wait,
            Refuse,
        }
        let next = {
            let mut state = self.state();
            match state
                .link
                .clone()
                .filter(|_| self.link_up.load(Ordering::Acquire))
            {
                Some(link) => {
                    state.held.insert(id.clone(), kind);
                    Next::Send(link)
                }
                None if state.queued.len() < MAX_QUEUED => {
                    state.queued.push((id.clone(), kind, line.to_vec()));
                    Next::Wait
                }
                None => Next::Refuse,
            }
        };
        let link = match next {
            Next::Send(link) => Some(link),
            Next::Wait => None,
            Next::Refuse => {
                tracing::warn!("{MAX_QUEUED} questions already wait for the app; {id} answered cancel");
                return self.cancel(&id, kind).await;
            }
        };
        match link {
            Some(link) => {
                let lost = link.send(link::frame(link::ACP, line)).await.is_err();
                if lost && self.state().held.remove(&id).is_some() {
                    // The link went between the check and the send; its closing did not see this one.
                    self.cancel(&id, kind).await;
                }
            }
            None => self.wanted.notify_one(),
        }
    }

    /// `$/cancel_request` for request `id`: true when it was one of ours (not for the editor).
    async fn withdraw(&self, id: &str, line: &[u8]) -> bool {
        let (held, queued) = {
            let mut state = self.state();
            let queued = state.queued.iter().position(|(q, ..)| q == id);
            let queued = queued.map(|i| state.queued.remove(i).1);
            (state.held.contains_key(id), queued)
        };
        if let Some(kind) = queued {
            self.cancel(id, kind).await;
            return true;
        }
        if held {
            // The app dismisses its dialog and answers `cancel` itself.
            if let Some(link) = self.link() {
                let _ = link.send(link::frame(link::ACP, line)).await;
            }
            return true;
        }
        false
    }
}

/// The editor's lines to the agent, looked at on the way; its stdin closed when they end.
pub(super) async fn pump_editor<I: AsyncRead + Unpin>(relay: Arc<Relay>, editor_in: I) {
    let mut reader = LineReader::new(editor_in, relay.opts.max_line);
    while let Ok(Some(piece)) = reader.next().await {
        match piece {
            Piece::Line(line) => relay.from_editor(line).await,
            Piece::Oversized { chunk, end } => {
                let mut bytes = chunk.to_vec();
                if end {
                    bytes.push(b'\n');
                }
                relay.to_agent(bytes).await;
            }
        }
    }
    let _ = relay.to_agent.send(super::AgentInput::Close).await;
}

/// The agent's lines to the editor, unless they are the proxy's (`Relay::from_agent`).
pub(super) async fn pump_agent<R, O>(relay: Arc<Relay>, agent_out: R, editor_out: O)
where
    R: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut reader = LineReader::new(agent_out, relay.opts.max_line);
    let mut out = BufWriter::with_capacity(64 * 1024, editor_out);
    // After the editor's stdout fails the agent's output is still read (so it never blocks on
    // its pipe), and dropped.
    let mut editor_gone = false;
    while let Ok(Some(piece)) = reader.next().await {
        let (bytes, newline) = match piece {
            Piece::Line(line) => {
                if !relay.from_agent(line).await {
                    continue;
                }
                (line, true)
            }
            Piece::Oversized { chunk, end } => (chunk, end),
        };
        if !editor_gone {
            editor_gone =
                out.write_all(bytes).await.is_err() || (newline && out.write_all(b"\n").await.is_err());
        }
        if !reader.has_buffered() && !editor_gone {
            editor_gone = out.flush().await.is_err();
        }
    }
    let _ = out.flush().await;
    let _ = out.shutdown().await;
}

/// A JSON-RPC request id as the spec allows it: a number or a string (`null` is not one).
pub(super) fn is_request_id(id: &str) -> bool {
    id.starts_with('"') || id.starts_with(|c: char| c == '-' || c.is_ascii_digit())
}
