//! The `terminal/*` requests of ACP, served by [`crate::terminal::Terminals`].
//! `wait_for_exit` is answered from its own task so the dispatch loop keeps reading.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse,
    ReleaseTerminalRequest, ReleaseTerminalResponse, TerminalExitStatus, TerminalOutputRequest,
    TerminalOutputResponse, WaitForTerminalExitRequest, WaitForTerminalExitResponse,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::client::state::Shared;
use crate::terminal::{ExitStatus, Spec, TerminalError, Terminals};

type RpcError = agent_client_protocol::Error;

fn parse<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params().data(Value::String(e.to_string())))
}

fn terminal_error(e: TerminalError) -> RpcError {
    let error = match e {
        TerminalError::Spawn { .. } => RpcError::internal_error(),
        _ => RpcError::invalid_params(),
    };
    error.data(Value::String(e.to_string()))
}

fn acp_status(status: ExitStatus) -> TerminalExitStatus {
    TerminalExitStatus::new()
        .exit_code(status.exit_code)
        .signal(status.signal)
}

/// The session must be open; its cwd is the default working directory.
fn session_cwd(shared: &Shared, session_id: &str) -> Result<Option<std::path::PathBuf>, RpcError> {
    let state = shared.lock();
    let session = state.sessions.get(session_id).ok_or_else(|| {
        RpcError::from(agent_client_protocol::v1::schema::Error::session_not_found(
            agent_client_protocol::v1::schema::SessionId::new(session_id.to_string()),
        ))
    })?;
    Ok(session.roots.first().cloned())
}

pub(crate) async fn handle(
    shared: &Arc<Shared>,
    terminals: &Terminals,
    method: &str,
    params: Value,
    responder: Responder<Value>,
) {
    match method {
        "terminal/create" => {
            let result = async {
                let r: CreateTerminalRequest = parse(params)?;
                let default_cwd = session_cwd(shared, &r.session_id.0)?;
                let spec = Spec {
                    session_id: Some(r.session_id.0.to_string()),
                    command: r.command,
                    args: r.args,
                    env: r.env.into_iter().map(|v| (v.name, v.value)).collect(),
                    cwd: r.cwd.or(default_cwd),
                    output_byte_limit: r.output_byte_limit.map(|n| n.min(usize::MAX as u64) as usize),
                    interactive: false,
                };
                let id = terminals.create(spec).await.map_err(terminal_error)?;
                Ok::<_, RpcError>(CreateTerminalResponse::new(id))
            }
            .await;
            let _ = responder
                .cast::<CreateTerminalResponse>()
                .respond_with_result(result);
        }
        "terminal/output" => {
            let result = parse::<TerminalOutputRequest>(params).and_then(|r| {
                session_cwd(shared, &r.session_id.0)?;
                let (output, truncated, exit) = terminals.output(&r.terminal_id.0).map_err(terminal_error)?;
                Ok(TerminalOutputResponse::new(output, truncated).exit_status(exit.map(acp_status)))
            });
            let _ = responder
                .cast::<TerminalOutputResponse>()
                .respond_with_result(result);
        }
        "terminal/wait_for_exit" => {
            let waiting = parse::<WaitForTerminalExitRequest>(params).and_then(|r| {
                session_cwd(shared, &r.session_id.0)?;
                terminals.wait_for_exit(&r.terminal_id.0).map_err(terminal_error)
            });
            let responder = responder.cast::<WaitForTerminalExitResponse>();
            match waiting {
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                }
                Ok(exit) => {
                    tokio::spawn(async move {
                        let result = exit
                            .await
                            .map(|s| WaitForTerminalExitResponse::new(acp_status(s)))
                            .ok_or_else(|| {
                                RpcError::internal_error().data(Value::String(
                                    "the terminal's process could not be waited for".into(),
                                ))
                            });
                        let _ = responder.respond_with_result(result);
                    });
                }
            }
        }
        "terminal/kill" => {
            let result = parse::<KillTerminalRequest>(params).and_then(|r| {
                session_cwd(shared, &r.session_id.0)?;
                terminals.kill(&r.terminal_id.0).map_err(terminal_error)?;
                Ok(KillTerminalResponse::new())
            });
            let _ = responder
                .cast::<KillTerminalResponse>()
                .respond_with_result(result);
        }
        "terminal/release" => {
            let result = async {
                let r: ReleaseTerminalRequest = parse(params)?;
                session_cwd(shared, &r.session_id.0)?;
                terminals
                    .release(&r.terminal_id.0)
                    .await
                    .map_err(terminal_error)?;
                Ok::<_, RpcError>(ReleaseTerminalResponse::new())
            }
            .await;
            let _ = responder
                .cast::<ReleaseTerminalResponse>()
                .respond_with_result(result);
        }
        other => {
            let _ = responder.respond_with_error(
                RpcError::method_not_found()
                    .data(Value::String(format!("porthole does not implement `{other}`"))),
            );
        }
    }
}
