//! Per-turn helper: streaming session updates, sending requests to the
//! client, and observing `session/cancel` for the session.
//!
//! A [`Turn`] always runs in a task spawned outside the SDK dispatch loop, so
//! awaiting client responses here cannot deadlock the connection.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::{Client, Error, UntypedMessage, v1::ConnectionTo};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::state::{AgentState, Session};

pub struct Turn {
    pub cx: ConnectionTo<Client>,
    pub agent: Arc<AgentState>,
    pub session: Arc<Session>,
    /// JSON-RPC id of the `session/prompt` request this turn answers.
    pub prompt_request_id: Value,
    cancel: watch::Receiver<u64>,
    cancelled: bool,
}

/// Result of a request that raced against `session/cancel`.
pub enum Reply {
    Ok(Value),
    Err(Error),
    Cancelled,
}

impl Turn {
    pub fn new(
        cx: ConnectionTo<Client>,
        agent: Arc<AgentState>,
        session: Arc<Session>,
        prompt_request_id: Value,
    ) -> Self {
        // Subscribing marks the current cancel generation as seen, so only a
        // `session/cancel` that arrives after the prompt cancels this turn.
        let cancel = session.cancel.subscribe();
        Self {
            cx,
            agent,
            session,
            prompt_request_id,
            cancel,
            cancelled: false,
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// Sends a `session/update` notification with the given `update` object.
    pub fn update(&self, update: Value) -> Result<(), Error> {
        let params = json!({ "sessionId": self.session.id, "update": update });
        self.cx
            .send_notification(UntypedMessage::new("session/update", params)?)
    }

    /// Streams an `agent_message_chunk` of markdown text.
    pub fn say(&self, text: impl AsRef<str>) -> Result<(), Error> {
        self.update(json!({
            "sessionUpdate": "agent_message_chunk",
            "content": { "type": "text", "text": text.as_ref() }
        }))
    }

    /// Streams an `agent_thought_chunk`.
    pub fn think(&self, text: impl AsRef<str>) -> Result<(), Error> {
        self.update(json!({
            "sessionUpdate": "agent_thought_chunk",
            "content": { "type": "text", "text": text.as_ref() }
        }))
    }

    /// Sends a `tool_call_update` with the given status and extra fields.
    pub fn tool_status(&self, tool_call_id: &str, status: &str) -> Result<(), Error> {
        self.update(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_call_id,
            "status": status
        }))
    }

    /// Sends a notification to the client.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), Error> {
        self.cx.send_notification(UntypedMessage::new(method, params)?)
    }

    /// Whether `session/cancel` arrived for this session during the turn.
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
            // Session state dropped: never resolves.
            futures::future::pending::<()>().await;
        }
    }

    /// Sleeps; returns `false` if the turn was cancelled meanwhile.
    pub async fn sleep(&mut self, ms: u64) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(ms)) => !self.is_cancelled(),
            _ = self.cancelled() => false,
        }
    }

    /// Sends a request to the client and waits for the answer or for
    /// `session/cancel`, whichever comes first. On cancellation the request
    /// is also cancelled with `$/cancel_request`.
    pub async fn request(&mut self, method: &str, params: Value) -> Reply {
        let message = match UntypedMessage::new(method, params) {
            Ok(m) => m,
            Err(e) => return Reply::Err(e),
        };
        let sent = self.cx.send_request(message);
        let handle = sent.cancellation_handle();
        let response = sent.block_task();
        tokio::select! {
            r = response => match r {
                Ok(v) => Reply::Ok(v),
                Err(e) => Reply::Err(e),
            },
            _ = self.cancelled() => {
                let _ = handle.cancel();
                Reply::Cancelled
            }
        }
    }
}
