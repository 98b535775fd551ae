//! `elicitation/create` and `elicitation/complete`: the broker's rules decide what reaches the
//! user, the rules that depend on what else is pending (unique URL ids, the per-session bound)
//! are applied here, and the front end answers through `AgentClient::respond_elicitation`.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    CreateElicitationResponse, ElicitationAcceptAction, ElicitationAction, ElicitationContentValue,
};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::{closing_error, codes};
use crate::broker::{self, ParsedElicitation};
use crate::client::dialogs::{self, Waiting, wrong_kind};
use crate::client::errors::RespondError;
use crate::client::state::{ScopeView, Shared, State, UrlOutstanding, next_dialog_id};
use crate::events::*;
use crate::form::{AgentReply, Decision, Validation};

/// Who gets the answer: the agent, for its request, or the gateway's owner, for an MCP
/// connection's question (`ask_for_connection`). Both live in the dialog table, where the
/// size of one entry does not matter (a handful wait at a time).
#[allow(clippy::large_enum_variant)]
enum Answerer {
    Agent(Responder<Value>),
    Connection(oneshot::Sender<Value>),
}

impl Answerer {
    fn respond(self, value: Value) -> Result<(), RespondError> {
        match self {
            Answerer::Agent(responder) => responder
                .respond(value)
                .map_err(|e| RespondError::Send(e.message)),
            Answerer::Connection(tx) => tx
                .send(value)
                .map_err(|_| RespondError::Send("the MCP connection's question has ended".into())),
        }
    }
}

/// An `elicitation/create` waiting for the user, or an agent's question request of its own
/// translated into one (`reply` says how that agent is answered), or an MCP connection's
/// question taken out by Porthole's gateway.
pub(crate) struct PendingElicitation {
    answerer: Answerer,
    parsed: ParsedElicitation,
    /// `None`: an `elicitation/create`, answered as one. Else the agent's own shape.
    reply: Option<AgentReply>,
    /// What its bound counts against: its session, or all request-scoped elicitations.
    pool: String,
    /// `elicitation/complete` arrived while the user had not answered yet.
    completed: bool,
}

impl Waiting for PendingElicitation {
    fn session_id(&self) -> Option<&str> {
        self.parsed.scope.session_id()
    }

    /// Elicitations have their own bound per pool (`admit`).
    fn bounded(&self) -> bool {
        false
    }

    /// An agent's question request of its own belongs to its turn: Qwen's is a
    /// `session/request_permission` on the wire, which `session/cancel` must answer `cancelled`.
    fn ends_with_turn(&self) -> bool {
        self.reply.is_some()
    }

    /// A form is accepted only with valid content, which is what the agent then gets.
    fn check(
        &self,
        dialog_id: DialogId,
        answer: DialogAnswer,
        _: &State,
    ) -> Result<DialogAnswer, RespondError> {
        let DialogAnswer::Elicitation { action, content } = answer else {
            return Err(wrong_kind(dialog_id, &answer));
        };
        let (Action::Accept, Some(schema)) = (action, self.parsed.form()) else {
            return Ok(DialogAnswer::Elicitation { action, content });
        };
        if !schema.can_accept() {
            return Err(RespondError::CannotAccept(
                schema.blocking_reason().unwrap_or_default(),
            ));
        }
        let validation = schema.validate(&content.unwrap_or_default());
        if !validation.is_valid() {
            return Err(RespondError::Invalid(validation));
        }
        Ok(DialogAnswer::Elicitation {
            action,
            content: Some(validation.content),
        })
    }

    /// Frees its place in its pool's bound, and its URL id unless the user accepted the URL:
    /// an accepted URL elicitation stays outstanding until `elicitation/complete`.
    fn left(&self, state: &mut State, answer: Option<&DialogAnswer>) {
        if let Some(count) = state.pending_per_pool.get_mut(&self.pool) {
            *count = count.saturating_sub(1);
        }
        // Still outstanding: accepted and not yet completed.
        let outstanding = !self.completed
            && matches!(
                answer,
                Some(DialogAnswer::Elicitation {
                    action: Action::Accept,
                    ..
                })
            );
        if let Some(url_id) = self.parsed.url_id()
            && !outstanding
        {
            state.url_ids.remove(url_id);
        }
    }

    /// No decision: the agent gets `cancel` (or its own shape's "no answer").
    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError> {
        if let Some(reply) = &self.reply {
            let nothing = serde_json::Map::new();
            let value = reply.response(match &answer {
                Some(DialogAnswer::Elicitation {
                    action: Action::Accept,
                    content: Some(content),
                }) => Decision::Accept(content),
                Some(DialogAnswer::Elicitation {
                    action: Action::Accept,
                    content: None,
                }) => Decision::Accept(&nothing),
                Some(DialogAnswer::Elicitation {
                    action: Action::Decline,
                    ..
                }) => Decision::Decline,
                Some(_) => Decision::Cancel,
                None => Decision::Undecided,
            });
            return self.answerer.respond(value);
        }
        let action = match answer {
            Some(DialogAnswer::Elicitation {
                action: Action::Accept,
                content,
            }) => match (content, self.parsed.form()) {
                // Validated content holds only strings, numbers, booleans and string arrays.
                (Some(content), Some(_)) => {
                    let content: std::collections::BTreeMap<String, ElicitationContentValue> = content
                        .into_iter()
                        .filter_map(|(k, v)| {
                            serde_json::from_value::<ElicitationContentValue>(v)
                                .ok()
                                .map(|v| (k, v))
                        })
                        .collect();
                    ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
                }
                _ => ElicitationAction::Accept(ElicitationAcceptAction::new()),
            },
            Some(DialogAnswer::Elicitation {
                action: Action::Decline,
                ..
            }) => ElicitationAction::Decline,
            _ => ElicitationAction::Cancel,
        };
        let value = serde_json::to_value(CreateElicitationResponse::new(action))
            .map_err(|e| RespondError::Send(e.to_string()))?;
        self.answerer.respond(value)
    }
}

pub(crate) async fn handle(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    open(shared, params, responder, None).await
}

/// Put a form elicitation before the user: an `elicitation/create`'s params, or the ones an
/// agent's question request was translated into (with `reply`, how that agent is answered).
/// The same rules apply to both (`broker::parse_request`, `admit`); a refusal is answered
/// with a JSON-RPC error either way.
pub(crate) async fn open(
    shared: &Arc<Shared>,
    params: Value,
    responder: Responder<Value>,
    reply: Option<AgentReply>,
) {
    if let Some(reply) = &reply {
        tracing::debug!("{} asked as a form elicitation", reply.agent());
    }
    let dialog_id = next_dialog_id();
    let admitted = parse_and_admit(shared, &params, dialog_id);
    let (parsed, pool) = match admitted {
        Ok(admitted) => admitted,
        Err(rejection) => {
            let rejection = *rejection;
            let error =
                agent_client_protocol::Error::new(rejection.error.code, rejection.error.message.clone());
            let _ = responder.respond_with_error(error);
            shared
                .emit(Event::ElicitationRejected {
                    mode: rejection.mode,
                    message: rejection.message,
                    url: rejection.url,
                    elicitation_id: rejection.elicitation_id,
                    session_id: rejection.session_id,
                    tool_call_id: rejection.tool_call_id,
                    error: rejection.error,
                })
                .await;
            return;
        }
    };
    let prompt = ElicitationPrompt {
        dialog_id,
        agent: shared.agent(),
        scope: parsed.scope.clone(),
        message: parsed.message.clone(),
        kind: parsed.kind.clone(),
        warnings: parsed.warnings.clone(),
        mcp: None,
    };
    dialogs::open(
        shared,
        dialog_id,
        responder,
        // Its bound was counted at admission; only an exit handled since turns it away.
        |state| state.closed.then(closing_error),
        |responder| PendingElicitation {
            answerer: Answerer::Agent(responder),
            parsed,
            reply,
            pool,
            completed: false,
        },
        DialogPrompt::Elicitation(Box::new(prompt)),
    )
    .await
}

/// The broker's rules, then `admit`'s, under one state lock; an admitted question counts
/// against its pool's bound and holds its URL id from here on.
fn parse_and_admit(
    shared: &Shared,
    params: &Value,
    dialog_id: DialogId,
) -> Result<(ParsedElicitation, String), Box<broker::Rejection>> {
    let mut state = shared.lock();
    let (parsed, pool) = broker::parse_request(params, shared.opts.modes, &ScopeView(&state))
        .and_then(|parsed| admit(shared, &state, parsed))?;
    *state.pending_per_pool.entry(pool.clone()).or_default() += 1;
    if let Some(url_id) = parsed.url_id() {
        state
            .url_ids
            .insert(url_id.to_string(), UrlOutstanding { dialog_id });
    }
    Ok((parsed, pool))
}

/// The rules that depend on what else is pending: unique URL ids, the per-session bound.
fn admit(
    shared: &Shared,
    state: &State,
    parsed: ParsedElicitation,
) -> Result<(ParsedElicitation, String), Box<broker::Rejection>> {
    let reject = |code: i32, message: String| {
        let mut r = rejection_from(&parsed);
        r.error.code = code;
        r.error.message = message;
        Err(Box::new(r))
    };
    if state.closed {
        return reject(codes::INVALID_PARAMS, "the connection is closing".into());
    }
    if let Some(url_id) = parsed.url_id()
        && state.url_ids.contains_key(url_id)
    {
        return reject(
            codes::INVALID_PARAMS,
            format!(
                "elicitationId `{url_id}` is already outstanding on this connection; ids must be unique among outstanding URL elicitations"
            ),
        );
    }
    let pool = parsed.scope.session_id().unwrap_or("(request scope)").to_string();
    let count = state.pending_per_pool.get(&pool).copied().unwrap_or(0);
    let limit = shared.opts.max_pending_per_session;
    if count >= limit {
        return reject(
            codes::INTERNAL_ERROR,
            format!(
                "too many pending elicitations: {count} are already waiting for the user in this session (limit {limit})"
            ),
        );
    }
    Ok((parsed, pool))
}

fn rejection_from(parsed: &ParsedElicitation) -> broker::Rejection {
    broker::Rejection {
        error: RpcError {
            code: codes::INVALID_PARAMS,
            message: String::new(),
        },
        mode: Some(
            match parsed.kind {
                ElicitationKind::Form { .. } => "form",
                ElicitationKind::Url { .. } => "url",
            }
            .into(),
        ),
        message: Some(parsed.message.clone()),
        url: match &parsed.kind {
            ElicitationKind::Url { url, .. } => Some(url.full.clone()),
            _ => None,
        },
        elicitation_id: parsed.url_id().map(str::to_string),
        session_id: parsed.scope.session_id().map(str::to_string),
        tool_call_id: parsed.scope.tool_call_id().map(str::to_string),
    }
}

/// `elicitation/complete`: the URL interaction finished out of band. Unknown ids are reported
/// as such and otherwise ignored (the spec asks clients to tolerate them).
pub(crate) async fn complete(shared: &Shared, params: &Value) {
    let Some(id) = params.get("elicitationId").and_then(Value::as_str) else {
        tracing::warn!("elicitation/complete without an elicitationId: ignored");
        return;
    };
    let found = {
        let mut state = shared.lock();
        let found = state.url_ids.remove(id);
        if let Some(f) = &found
            && let Some(pending) = state.dialogs.get_mut::<PendingElicitation>(f.dialog_id)
        {
            pending.completed = true;
        }
        found
    };
    shared
        .emit(Event::ElicitationComplete {
            elicitation_id: id.to_string(),
            known: found.is_some(),
            dialog_id: found.map(|f| f.dialog_id),
        })
        .await;
}

/// Validate form content for a pending form elicitation (the UI's one source of truth).
pub(crate) fn validate_form(
    shared: &Shared,
    dialog_id: DialogId,
    content: &serde_json::Map<String, Value>,
) -> Result<Validation, RespondError> {
    let state = shared.lock();
    let pending = state
        .dialogs
        .get::<PendingElicitation>(dialog_id)
        .ok_or(RespondError::NoSuchDialog(dialog_id))?;
    match pending.parsed.form() {
        Some(schema) => Ok(schema.validate(content)),
        None => Ok(Validation {
            content: serde_json::Map::new(),
            errors: Vec::new(),
        }),
    }
}

/// The id an MCP connection's URL question is kept under on this agent connection: apart
/// from the agent's own ids, so neither can complete (or block) the other's.
fn connection_url_id(connection: &str, id: &str) -> String {
    format!("mcp/{connection}/{id}")
}

/// Put a question an MCP connection asked through Porthole's gateway, in `session_id`, before
/// the user: `params` are its `elicitation/create` params. The agent's rules apply to it
/// (`broker::parse_request`, `admit`: form schema, secret detection, URL analysis, the
/// session's bound), the dialog names the connection ([`McpAsker`]), and the answer is
/// validated as an agent's is. Returns the `ElicitResult`; `Err` with the reason it was
/// refused. Dropping the future dismisses the dialog (the tool call that asked has ended).
pub(crate) async fn ask_for_connection(
    shared: &Arc<Shared>,
    asker: McpAsker,
    session_id: &str,
    tool_call_id: Option<&str>,
    params: &Value,
) -> Result<Value, RpcError> {
    let refused = |message: String| RpcError {
        code: codes::INVALID_PARAMS,
        message,
    };
    let Some(fields) = params.as_object() else {
        return Err(refused("elicitation/create params must be an object".into()));
    };
    // The server's own scope keys mean nothing here: the question belongs to the session
    // whose tool call it came through.
    let mut fields = fields.clone();
    for scope in ["sessionId", "requestId", "toolCallId"] {
        fields.remove(scope);
    }
    fields.insert("sessionId".into(), json!(session_id));
    if let Some(id) = tool_call_id {
        fields.insert("toolCallId".into(), json!(id));
    }
    if let Some(id) = fields.get("elicitationId").and_then(Value::as_str) {
        let kept = connection_url_id(&asker.connection, id);
        fields.insert("elicitationId".into(), json!(kept));
    }
    let params = Value::Object(fields);

    let dialog_id = next_dialog_id();
    let admitted = parse_and_admit(shared, &params, dialog_id);
    let (parsed, pool) = admitted.map_err(|rejection| rejection.error)?;
    let prompt = ElicitationPrompt {
        dialog_id,
        agent: shared.agent(),
        scope: parsed.scope.clone(),
        message: parsed.message.clone(),
        kind: parsed.kind.clone(),
        warnings: parsed.warnings.clone(),
        mcp: Some(asker),
    };
    let (tx, rx) = oneshot::channel();
    let pending = PendingElicitation {
        answerer: Answerer::Connection(tx),
        parsed,
        reply: None,
        pool,
        completed: false,
    };
    // Dismissed (the user's dialog closes) when the gateway stops waiting, however it stops.
    let _dismiss = DismissOnDrop::new(shared, dialog_id);
    let shown = dialogs::open_owned(
        shared,
        dialog_id,
        |state| state.closed.then(|| "the connection is closing".to_string()),
        pending,
        DialogPrompt::Elicitation(Box::new(prompt)),
    )
    .await;
    if let Err(message) = shown {
        return Err(refused(message));
    }
    rx.await.map_err(|_| RpcError {
        code: codes::INTERNAL_ERROR,
        message: "the agent's connection closed before the user answered".into(),
    })
}

/// Dismisses a dialog no agent request stands behind when its asker stops waiting.
pub(super) struct DismissOnDrop {
    shared: std::sync::Weak<Shared>,
    dialog_id: DialogId,
}

impl DismissOnDrop {
    pub(super) fn new(shared: &Arc<Shared>, dialog_id: DialogId) -> Self {
        Self {
            shared: Arc::downgrade(shared),
            dialog_id,
        }
    }
}

impl Drop for DismissOnDrop {
    fn drop(&mut self) {
        // A no-op once answered: the dialog has left the table.
        if let Some(shared) = self.shared.upgrade() {
            dialogs::dismiss(&shared, self.dialog_id, DismissReason::QuestionEnded);
        }
    }
}

/// The server's `notifications/elicitation/complete` for a URL question `connection` asked.
pub(crate) async fn connection_completed(shared: &Shared, connection: &str, elicitation_id: &str) {
    let id = connection_url_id(connection, elicitation_id);
    complete(shared, &json!({ "elicitationId": id })).await
}
