//! Every request and notification the agent sends, routed to its handler. Handlers never wait
//! for a person: a request that needs a decision is put in its dialog table and the handler
//! returns, so the SDK's dispatch loop keeps reading.
//!
//! What Porthole serves is said here once for both wires: the routes (`route`, which a v2
//! request reaches too, after `v2.rs` converted its shape) and the capabilities that advertise
//! them in `initialize` (`advertised_v1`, `advertised_v2`).
//!
//! A new kind of request is one route here (with its capability, when it has one) and one
//! handler module. If it asks the user, the
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

use agent_client_protocol::v1::schema::{
    AuthCapabilities, BooleanConfigOptionCapabilities, ClientCapabilities, ClientSessionCapabilities,
    ElicitationCapabilities, ElicitationFormCapabilities, ElicitationUrlCapabilities, FileSystemCapabilities,
    SessionConfigOptionsCapabilities,
};
use agent_client_protocol::v2::schema as v2_schema;

use super::options::ClientOptions;
use super::state::{Shared, State, Wire};
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

/// `wire`: the version of the connection the request came on. v2 has no `fs/*` or
/// `terminal/*` requests (its terminals are display-only updates), nor Gemini CLI's questions.
fn route(method: &str, opts: &ClientOptions, wire: Wire) -> Option<Route> {
    let v1 = wire == Wire::V1;
    Some(match method {
        "elicitation/create" => Route::Elicitation,
        "session/request_permission" => Route::Permission,
        m if v1 && opts.modes.form && crate::form::gemini::METHODS.contains(&m) => Route::HostInput,
        "fs/read_text_file" if v1 && opts.fs => Route::ReadFile,
        "fs/write_text_file" if v1 && opts.fs => Route::WriteFile,
        m if v1 && opts.terminals && m.starts_with("terminal/") => Route::Terminal,
        transport::OVERSIZED_METHOD => Route::Oversized,
        _ => return None,
    })
}

/// What v1's `initialize` advertises: the routes above, as v1 names them.
pub(crate) fn advertised_v1(opts: &ClientOptions) -> ClientCapabilities {
    let modes = opts.modes;
    let mut elicitation = ElicitationCapabilities::new();
    if modes.form {
        elicitation = elicitation.form(ElicitationFormCapabilities::new());
    }
    if modes.url {
        elicitation = elicitation.url(ElicitationUrlCapabilities::new());
    }
    // Gemini CLI asks its `ask_user` / `exit_plan_mode` questions only of a client that
    // declares this (`host_input.rs` answers them as forms).
    let mut meta = serde_json::Map::new();
    if modes.form {
        meta.insert(
            crate::form::gemini::CAPABILITY_KEY.into(),
            crate::form::gemini::capability(),
        );
    }
    ClientCapabilities::new()
        .meta(Some(meta).filter(|m| !m.is_empty()))
        .fs(FileSystemCapabilities::new()
            .read_text_file(opts.fs)
            .write_text_file(opts.fs))
        .terminal(opts.terminals)
        .auth(AuthCapabilities::new().terminal(opts.terminal_auth))
        .elicitation(elicitation)
        // Boolean config options: agents may offer them only to clients that opt in, and a
        // client may set them only then. The window and porthole-cli (`--config ID=true`)
        // both handle them.
        .session(ClientSessionCapabilities::new().config_options(
            SessionConfigOptionsCapabilities::new().boolean(BooleanConfigOptionCapabilities::new()),
        ))
}

/// What v2's `initialize` advertises (`capabilities`): the routes above that v2 has. Its
/// config options need no capability.
pub(crate) fn advertised_v2(opts: &ClientOptions) -> v2_schema::ClientCapabilities {
    let mut elicitation = v2_schema::ElicitationCapabilities::new();
    if opts.modes.form {
        elicitation = elicitation.form(v2_schema::ElicitationFormCapabilities::new());
    }
    if opts.modes.url {
        elicitation = elicitation.url(v2_schema::ElicitationUrlCapabilities::new());
    }
    let mut capabilities = v2_schema::ClientCapabilities::new();
    if opts.modes.form || opts.modes.url {
        capabilities = capabilities.elicitation(elicitation);
    }
    if opts.terminal_auth {
        capabilities = capabilities.auth(
            v2_schema::ClientAuthCapabilities::new().terminal(v2_schema::TerminalAuthCapabilities::new()),
        );
    }
    capabilities
}

pub(crate) async fn handle_request(shared: &Arc<Shared>, req: UntypedMessage, responder: Responder<Value>) {
    let (method, params) = req.into_parts();
    dispatch(shared, Wire::V1, method, params, responder).await;
}

/// A request, in v1's shape, to its handler by `route`.
pub(crate) async fn dispatch(
    shared: &Arc<Shared>,
    wire: Wire,
    method: String,
    params: Value,
    responder: Responder<Value>,
) {
    match route(&method, &shared.opts, wire) {
        Some(Route::Elicitation) => elicitation::handle(shared, params, responder).await,
        Some(Route::Permission) => permission::handle(shared, params, responder).await,
        Some(Route::HostInput) => host_input::handle(shared, params, responder).await,
        Some(Route::ReadFile) => fs::handle_read(shared, params, responder).await,
        Some(Route::WriteFile) => fs::handle_write(shared, params, responder).await,
        Some(Route::Terminal) => {
            terminal::handle(shared, &shared.terminals, &method, params, responder).await
        }
        Some(Route::Oversized) => refuse_oversized(&params, responder),
        None => {
            let version = if wire == Wire::V2 { " in ACP v2" } else { "" };
            reply_error(
                responder,
                agent_client_protocol::Error::method_not_found().data(Value::String(format!(
                    "porthole does not implement `{method}`{version}"
                ))),
            )
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_routes_what_v1_does_except_the_requests_v2_has_not() {
        let opts = ClientOptions::default();
        for method in ["elicitation/create", "session/request_permission"] {
            assert!(route(method, &opts, Wire::V1).is_some(), "{method}");
            assert!(route(method, &opts, Wire::V2).is_some(), "{method}");
        }
        let v1_only = [
            "fs/read_text_file",
            "fs/write_text_file",
            "terminal/create",
            crate::form::gemini::METHODS[0],
        ];
        for method in v1_only {
            assert!(route(method, &opts, Wire::V1).is_some(), "{method}");
            assert!(route(method, &opts, Wire::V2).is_none(), "{method} on v2");
        }
    }
}
