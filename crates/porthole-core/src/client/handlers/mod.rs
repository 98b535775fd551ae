//! Every request and notification the agent sends, routed to its handler. Handlers never wait
//! for a person: a request that needs a decision is put in its dialog table and the handler
//! returns, so the SDK's dispatch loop keeps reading.
//!
//! A new kind of request is one route here and one handler module. If it asks the user, the
//! module's pending dialog implements [`super::dialogs::Waiting`] and is put before the user
//! with [`super::dialogs::open`] (the bound, the table, the cancellation watcher and the
//! prompt event, written once), and `events.rs` gets its
//! prompt (a `DialogPrompt` variant) and its answer (a `DialogAnswer` variant), whose
//! description there (summary, record, outcome, undecided answer) front ends print and answer
//! with; the one table, `AgentClient::respond` and the dismissals need nothing more.

pub(crate) mod elicitation;
pub(crate) mod fs;
pub(crate) mod host_input;
pub(crate) mod permission;
pub(crate) mod terminal;
pub(crate) mod updates;
pub(crate) mod v2;

use std::sync::Arc;

use agent_client_protocol::UntypedMessage;
use agent_client_protocol::v1::Responder;
use serde_json::Value;

use super::state::{Shared, State};
use crate::transport;

/// Named JSON-RPC error codes this client answers with.
pub(crate) mod codes {
    /// Malformed or unacceptable parameters (`elicitation/create` rules, bad paths).
    pub const INVALID_PARAMS: i32 = crate::broker::INVALID_PARAMS;
    /// A request refused for a reason of ours: the connection is closing, too many dialogs wait.
    pub const INTERNAL_ERROR: i32 = -32603;
}

/// Where an incoming request goes. Requests for something we did not advertise (fs, terminals)
/// find no route and are answered "method not found".
enum Route {
    Elicitation,
    Permission,
    /// Gemini CLI's questions (`host_input.rs`), when we advertised form elicitation.
    HostInput,
    ReadFile,
    WriteFile,
    Terminal,
    /// A line over the size limit, turned into a request by the transport to be refused.
    Oversized,
}

fn route(method: &str, shared: &Shared) -> Option<Route> {
    let opts = &shared.opts;
    Some(match method {
        "elicitation/create" => Route::Elicitation,
        "session/request_permission" => Route::Permission,
        m if opts.modes.form && crate::form::gemini::METHODS.contains(&m) => Route::HostInput,
        "fs/read_text_file" if opts.fs => Route::ReadFile,
        "fs/write_text_file" if opts.fs => Route::WriteFile,
        m if opts.terminals && m.starts_with("terminal/") => Route::Terminal,
        transport::OVERSIZED_METHOD => Route::Oversized,
        _ => return None,
    })
}

pub(crate) async fn handle_request(shared: &Arc<Shared>, req: UntypedMessage, responder: Responder<Value>) {
    let (method, params) = req.into_parts();
    match route(&method, shared) {
        Some(Route::Elicitation) => elicitation::handle(shared, params, responder).await,
        Some(Route::Permission) => permission::handle(shared, params, responder).await,
        Some(Route::HostInput) => host_input::handle(shared, params, responder).await,
        Some(Route::ReadFile) => fs::handle_read(shared, params, responder).await,
        Some(Route::WriteFile) => fs::handle_write(shared, params, responder).await,
        Some(Route::Terminal) => {
            terminal::handle(shared, &shared.terminals, &method, params, responder).await
        }
        Some(Route::Oversized) => refuse_oversized(&params, responder),
        None => reply_error(
            responder,
            agent_client_protocol::Error::method_not_found()
                .data(Value::String(format!("porthole does not implement `{method}`"))),
        ),
    }
}

pub(crate) async fn handle_notification(shared: &Arc<Shared>, note: UntypedMessage) {
    let (method, params) = note.into_parts();
    match method.as_str() {
        "session/update" => updates::handle(shared, params).await,
        "elicitation/complete" => elicitation::complete(shared, &params).await,
        crate::client::barrier::BARRIER_METHOD => shared.barrier.ack(&params),
        "$/cancel_request" => {} // recorded on the responder by the SDK before we see it
        other => tracing::debug!("ignoring notification `{other}`"),
    }
}

fn refuse_oversized(params: &Value, responder: Responder<Value>) {
    let original = params.get("method").and_then(Value::as_str).unwrap_or("request");
    let bytes = params.get("bytes").and_then(Value::as_u64).unwrap_or(0);
    let limit = params.get("limit").and_then(Value::as_u64).unwrap_or(0);
    reply_error(
        responder,
        agent_client_protocol::Error::invalid_request().data(Value::String(format!(
            "{original}: message of {bytes} bytes exceeds this client's limit of {limit} bytes per line"
        ))),
    );
}

pub(crate) fn reply_error<T: agent_client_protocol::JsonRpcResponse>(
    responder: Responder<T>,
    error: agent_client_protocol::Error,
) {
    let _ = responder.respond_with_error(error);
}

/// For a request that arrives after the agent's exit was handled (still in the pipe).
pub(crate) fn closing_error() -> agent_client_protocol::Error {
    agent_client_protocol::Error::internal_error().data(Value::String("the connection is closing".into()))
}

pub(crate) fn invalid_params(e: impl std::fmt::Display) -> agent_client_protocol::Error {
    agent_client_protocol::Error::invalid_params().data(Value::String(e.to_string()))
}

/// Why a permission or file-access dialog must not open: the agent's exit was already handled
/// (nothing would ever dismiss it), or the session holds its bound of waiting dialogs, which
/// keeps an agent from holding an unlimited number open (elicitations have their own count, in
/// `elicitation::admit`). The refusal rule `dialogs::open` applies under the state lock.
pub(crate) fn refuse_new_dialog<'a>(
    shared: &'a Shared,
    session_id: &str,
    what: &'static str,
) -> impl FnOnce(&State) -> Option<agent_client_protocol::Error> + 'a {
    let session_id = session_id.to_string();
    move |state| refuse_in_session(shared, state, &session_id, what)
}

fn refuse_in_session(
    shared: &Shared,
    state: &State,
    session_id: &str,
    what: &str,
) -> Option<agent_client_protocol::Error> {
    if state.closed {
        return Some(closing_error());
    }
    let waiting = state.dialogs.bounded_in_session(session_id);
    let limit = shared.opts.max_pending_per_session;
    (waiting >= limit).then(|| {
        tracing::warn!("refused a {what} in session {session_id}: {waiting} dialogs already waiting");
        agent_client_protocol::Error::new(
            codes::INTERNAL_ERROR,
            format!(
                "too many pending dialogs: {waiting} permission and file access requests are already waiting for the user in this session (limit {limit}); this {what} was refused"
            ),
        )
    })
}
