//! One v2 turn: its session updates (message upserts keyed by `messageId`, the `state_update`
//! around every question to the person), and requests to the client raced against
//! `session/cancel`. A turn runs in a task spawned outside the SDK's dispatch loop.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::v2::{ConnectionTo, schema};
use agent_client_protocol::{Client, Error, JsonRpcRequest};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::v2::session::V2Session;
use crate::v2::{V2Agent, typed};

pub struct Turn {
    pub cx: ConnectionTo<Client>,
    pub agent: Arc<V2Agent>,
    pub session: Arc<V2Session>,
    /// The agent message `say` appends to; `None` starts a new one.
    message: Option<String>,
    cancel: watch::Receiver<u64>,
    cancelled: bool,
}

/// The answer to a request that raced against `session/cancel`.
pub enum Reply<T> {
    Ok(T),
    Err(Error),
    Cancelled,
}

impl Turn {
    pub fn new(cx: ConnectionTo<Client>, agent: Arc<V2Agent>, session: Arc<V2Session>) -> Self {
        // Subscribing marks the current cancel generation as seen: only a later
        // `session/cancel` cancels this turn.
        let cancel = session.base.cancel.subscribe();
        Self {
            cx,
            agent,
            session,
            message: None,
            cancel,
            cancelled: false,
        }
    }

    pub fn session_id(&self) -> &str {
        self.session.id()
    }

    /// Sends an update of this turn's session (and keeps it for a replay, but the state).
    pub fn send(&self, update: schema::SessionUpdate) -> Result<(), Error> {
        send_update(&self.cx, &self.session, update)
    }

    /// Sends `update`, given as JSON, once it parsed as a v2 session update.
    pub fn update(&self, update: Value) -> Result<(), Error> {
        self.send(typed(update)?)
    }

    /// The session's state with its background work listed.
    pub fn state(&self, state: &str) -> Result<(), Error> {
        send_state(&self.cx, &self.session, state, None)
    }

    /// Streams text into the current agent message (one `messageId` until [`Self::new_message`]).
    pub fn say(&mut self, text: impl AsRef<str>) -> Result<(), Error> {
        let id = match &self.message {
            Some(id) => id.clone(),
            None => {
                let id = self.agent.message_id("agent");
                self.message = Some(id.clone());
                id
            }
        };
        self.update(json!({
            "sessionUpdate": "agent_message_chunk",
            "messageId": id,
            "content": { "type": "text", "text": text.as_ref() }
        }))
    }

    /// What follows `say` goes into a new agent message (after a tool call, a question...).
    pub fn new_message(&mut self) {
        self.message = None;
    }

    /// A thought, as one message of its own.
    pub fn think(&self, text: impl AsRef<str>) -> Result<(), Error> {
        self.update(json!({
            "sessionUpdate": "agent_thought_chunk",
            "messageId": self.agent.message_id("thought"),
            "content": { "type": "text", "text": text.as_ref() }
        }))
    }

    /// A `tool_call_update` with `fields` (the first one for an id creates the call).
    pub fn tool(&self, tool_call_id: &str, fields: Value) -> Result<(), Error> {
        let mut update = json!({ "sessionUpdate": "tool_call_update", "toolCallId": tool_call_id });
        if let (Some(update), Some(fields)) = (update.as_object_mut(), fields.as_object()) {
            update.extend(fields.clone());
        }
        self.update(update)
    }

    pub fn tool_status(&self, tool_call_id: &str, status: &str) -> Result<(), Error> {
        self.tool(tool_call_id, json!({ "status": status }))
    }

    /// Whether `session/cancel` (or `session/close`) arrived during the turn.
    pub fn is_cancelled(&mut self) -> bool {
        if !self.cancelled && self.cancel.has_changed().unwrap_or(false) {
            self.cancelled = true;
        }
        self.cancelled
    }

    /// Resolves when the turn is cancelled.
    pub async fn cancelled(&mut self) {
        if self.is_cancelled() {
            return;
        }
        if self.cancel.changed().await.is_ok() {
            self.cancelled = true;
        } else {
            futures::future::pending::<()>().await;
        }
    }

    /// Sleeps; `false` if the turn was cancelled meanwhile.
    pub async fn sleep(&mut self, ms: u64) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => !self.is_cancelled(),
            _ = self.cancelled() => false,
        }
    }

    /// Asks the person through the client: the state is `requires_action` while the request
    /// waits, `running` again after. `session/cancel` cancels the request too.
    /// What the agent says after the answer is a new message.
    pub async fn ask<Req: JsonRpcRequest>(&mut self, request: Req) -> Result<Reply<Req::Response>, Error> {
        self.new_message();
        self.state("requires_action")?;
        let sent = self.cx.send_request(request);
        let handle = sent.cancellation_handle();
        let reply = tokio::select! {
            r = sent.block_task() => match r {
                Ok(v) => Reply::Ok(v),
                Err(e) => Reply::Err(e),
            },
            _ = self.cancelled() => {
                let _ = handle.cancel();
                Reply::Cancelled
            }
        };
        if !matches!(reply, Reply::Cancelled) {
            self.state("running")?;
        }
        Ok(reply)
    }
}

/// Sends an update of `session`, kept for a replay unless it is a state.
pub fn send_update(
    cx: &ConnectionTo<Client>,
    session: &V2Session,
    update: schema::SessionUpdate,
) -> Result<(), Error> {
    if !matches!(update, schema::SessionUpdate::StateUpdate(_)) {
        session.record(update.clone());
    }
    cx.send_notification(schema::UpdateSessionNotification::new(
        session.id().to_owned(),
        update,
    ))
}

/// `state_update` for `session` (its background work listed); `stop` only with `idle`.
pub fn send_state(
    cx: &ConnectionTo<Client>,
    session: &V2Session,
    state: &str,
    stop: Option<&str>,
) -> Result<(), Error> {
    let mut update = json!({
        "sessionUpdate": "state_update",
        "state": state,
        "background": session.background_work(),
    });
    if let Some(stop) = stop {
        update["stopReason"] = json!(stop);
    }
    send_update(cx, session, typed(update)?)
}
