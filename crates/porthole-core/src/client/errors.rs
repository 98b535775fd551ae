//! The errors the client returns: answering a dialog ([`RespondError`]) and everything else a
//! connection can fail at ([`ClientError`]).

use std::time::Duration;

use crate::events::{DialogId, ExitInfo, RpcError};
use crate::form::Validation;

#[derive(Debug, thiserror::Error)]
pub enum RespondError {
    #[error("no pending dialog {0} (already answered, withdrawn, or unknown)")]
    NoSuchDialog(DialogId),
    #[error("the form content is invalid")]
    Invalid(Validation),
    #[error("this form cannot be accepted: {0}")]
    CannotAccept(String),
    #[error("dialog {dialog_id} is not a {answer} dialog")]
    WrongKind {
        dialog_id: DialogId,
        answer: &'static str,
    },
    #[error("no such option `{0}` in this permission request")]
    NoSuchOption(String),
    #[error("could not send the answer: {0}")]
    Send(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Start(String),
    #[error("the agent did not answer `initialize` within {0:?}")]
    InitTimeout(Duration),
    #[error("the agent exited: {}", describe_exit(.0))]
    Exited(ExitInfo),
    #[error("{method} failed: {} (code {})", .error.message, .error.code)]
    Rpc { method: &'static str, error: RpcError },
    #[error("unknown session `{0}`")]
    UnknownSession(String),
    #[error("the agent does not support `{0}`")]
    Unsupported(&'static str),
    #[error("the agent did not advertise the authentication method `{0}`")]
    UnknownAuthMethod(String),
    #[error("the agent does not offer the model `{0}` for this session")]
    UnknownModel(String),
    #[error("the agent answered `initialize` with ACP protocol version {selected}, and version 2 was required (choose auto or 1 to speak v1 with it)")]
    NotV2 { selected: u16 },
}

/// "exit status 3; stderr: ..." for error messages.
pub fn describe_exit(exit: &ExitInfo) -> String {
    let tail = exit.stderr_tail.trim();
    let lines: Vec<&str> = tail.lines().collect();
    let short = lines[lines.len().saturating_sub(12)..].join("\n");
    if short.is_empty() {
        exit.status.clone()
    } else {
        format!("{}; last stderr lines:\n{short}", exit.status)
    }
}
