//! `fs/read_text_file` and `fs/write_text_file`: served inside the session's workspace roots;
//! a path outside them is shown to the user (where it really leads) and served only if allowed
//! through `AgentClient::respond_file_access`.

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    ReadTextFileRequest, ReadTextFileResponse, SessionId, WriteTextFileRequest, WriteTextFileResponse,
};
use serde_json::Value;

use super::{invalid_params, refuse_new_dialog, reply_error};
use crate::client::dialogs::{self, Waiting, wrong_kind};
use crate::client::errors::RespondError;
use crate::client::state::{Shared, State, next_dialog_id};
use crate::events::*;
use crate::fs_access::{self, FsError};

/// An `fs/*` request outside the workspace roots, waiting for the user.
pub(crate) struct PendingFileAccess {
    responder: Responder<Value>,
    session_id: String,
    /// The real location the user is shown (symlinks and `..` resolved); the one we touch.
    resolved: PathBuf,
    op: FileOp,
}

enum FileOp {
    Read { line: Option<u32>, limit: Option<u32> },
    Write { content: String },
}

impl Waiting for PendingFileAccess {
    fn session_id(&self) -> Option<&str> {
        Some(&self.session_id)
    }

    fn check(
        &self,
        dialog_id: DialogId,
        answer: DialogAnswer,
        _: &State,
    ) -> Result<DialogAnswer, RespondError> {
        match answer {
            DialogAnswer::FileAccess { .. } => Ok(answer),
            other => Err(wrong_kind(dialog_id, &other)),
        }
    }

    /// Allowed: the read or write happens on the path shown. Otherwise (denied, or no
    /// decision) the agent gets an error: nothing was read or written.
    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError> {
        let PendingFileAccess {
            responder,
            resolved: shown,
            op,
            ..
        } = *self;
        let allow = matches!(answer, Some(DialogAnswer::FileAccess { allow: true }));
        let refused = || {
            let why = match answer {
                Some(_) => format!(
                    "the user did not allow access to {} (outside the session's workspace)",
                    shown.display()
                ),
                None => format!(
                    "{}: the request went away before the user decided",
                    shown.display()
                ),
            };
            agent_client_protocol::Error::invalid_params().data(Value::String(why))
        };
        let sent = match op {
            FileOp::Read { line, limit } => {
                let result = if allow {
                    fs_access::read_resolved(&shown, &shown, line, limit)
                        .map(ReadTextFileResponse::new)
                        .map_err(fs_error)
                } else {
                    Err(refused())
                };
                responder
                    .cast::<ReadTextFileResponse>()
                    .respond_with_result(result)
            }
            FileOp::Write { content } => {
                let result = if allow {
                    fs_access::write_resolved(&shown, &shown, &content)
                        .map(|()| WriteTextFileResponse::new())
                        .map_err(fs_error)
                } else {
                    Err(refused())
                };
                responder
                    .cast::<WriteTextFileResponse>()
                    .respond_with_result(result)
            }
        };
        sent.map_err(|e| RespondError::Send(e.message))
    }
}

pub(crate) async fn handle_read(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    let request = match serde_json::from_value::<ReadTextFileRequest>(params) {
        Ok(r) => r,
        Err(e) => return reply_error(responder, invalid_params(e)),
    };
    let session_id = request.session_id.0.to_string();
    let roots = match session_roots(shared, &session_id) {
        Ok(r) => r,
        Err(e) => return reply_error(responder, e),
    };
    match fs_access::read_text(&request.path, &roots, request.line, request.limit) {
        Err(FsError::OutsideWorkspace(_)) => {
            let op = FileOp::Read {
                line: request.line,
                limit: request.limit,
            };
            ask(shared, session_id, &request.path, op, responder).await
        }
        // A file inside the workspace that does not exist yet, for an agent that takes only
        // content as "you may create it" (see `new_file_reads_as_empty`).
        Err(FsError::NotFound(_)) if new_file_reads_as_empty(&shared.agent().name) => {
            let _ = responder
                .cast::<ReadTextFileResponse>()
                .respond_with_result(Ok(ReadTextFileResponse::new(String::new())));
        }
        result => {
            let _ = responder
                .cast::<ReadTextFileResponse>()
                .respond_with_result(result.map(ReadTextFileResponse::new).map_err(fs_error));
        }
    }
}

/// Agents (by their `agentInfo.name`) that read a file before writing it and cannot tell a
/// missing file from a failure: ACP's answer for a missing file is the error `-32002`
/// (resource not found), which Gemini CLI checks by its message on an `Error` object, while its
/// TypeScript SDK rejects with the plain JSON-RPC error object; so `write_file` of a new file
/// fails ("Error checking existing file: Resource not found"). For these agents a missing file
/// inside the workspace reads as empty, which is what Zed (the reference client) answers for a
/// new file in the project. Outside the workspace nothing changes. docs/interop.md.
pub(crate) fn new_file_reads_as_empty(agent_name: &str) -> bool {
    matches!(agent_name, "gemini-cli")
}

pub(crate) async fn handle_write(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    let request = match serde_json::from_value::<WriteTextFileRequest>(params) {
        Ok(r) => r,
        Err(e) => return reply_error(responder, invalid_params(e)),
    };
    let session_id = request.session_id.0.to_string();
    let roots = match session_roots(shared, &session_id) {
        Ok(r) => r,
        Err(e) => return reply_error(responder, e),
    };
    match fs_access::write_text(&request.path, &roots, &request.content) {
        Err(FsError::OutsideWorkspace(_)) => {
            let op = FileOp::Write {
                content: request.content,
            };
            ask(shared, session_id, &request.path, op, responder).await
        }
        result => {
            let _ = responder
                .cast::<WriteTextFileResponse>()
                .respond_with_result(result.map(|()| WriteTextFileResponse::new()).map_err(fs_error));
        }
    }
}

/// A path outside the workspace: show the user where it really leads and wait for a decision.
async fn ask(
    shared: &Arc<Shared>,
    session_id: String,
    path: &std::path::Path,
    op: FileOp,
    responder: Responder<Value>,
) {
    let resolved = match fs_access::resolve_anywhere(path, matches!(op, FileOp::Write { .. })) {
        Ok(p) => p,
        Err(e) => return reply_error(responder, fs_error(e)),
    };
    let dialog_id = next_dialog_id();
    let (operation, verb) = match op {
        FileOp::Read { .. } => (FileOperation::Read, "read"),
        FileOp::Write { .. } => (FileOperation::Write, "write"),
    };
    let shown = resolved.display().to_string();
    let reason = if shown == path.display().to_string() {
        format!("The agent wants to {verb} a file outside this session's workspace.")
    } else {
        format!(
            "The agent wants to {verb} {}, which leads outside this session's workspace to the path shown.",
            path.display()
        )
    };
    let prompt = FileAccessPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.clone(),
        path: shown,
        operation,
        reason,
    };
    dialogs::open(
        shared,
        dialog_id,
        responder,
        refuse_new_dialog(shared, &session_id, "file access request"),
        |responder| PendingFileAccess {
            responder,
            session_id,
            resolved,
            op,
        },
        DialogPrompt::FileAccess(Box::new(prompt)),
    )
    .await
}

pub(crate) fn fs_error(e: FsError) -> agent_client_protocol::Error {
    match &e {
        FsError::NotFound(path) => {
            agent_client_protocol::v1::schema::Error::resource_not_found(Some(path.clone())).into()
        }
        FsError::Io { .. } => {
            agent_client_protocol::Error::internal_error().data(Value::String(e.to_string()))
        }
        _ => agent_client_protocol::Error::invalid_params().data(Value::String(e.to_string())),
    }
}

fn session_roots(shared: &Shared, session_id: &str) -> Result<Vec<PathBuf>, agent_client_protocol::Error> {
    shared
        .lock()
        .sessions
        .get(session_id)
        .map(|s| s.roots.clone())
        .ok_or_else(|| {
            agent_client_protocol::v1::schema::Error::session_not_found(SessionId::new(
                session_id.to_string(),
            ))
            .into()
        })
}
