//! SCRATCH (reverted): a fake `_porthole/confirm` request, to trace what a new dialog kind costs.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use serde_json::{Value, json};

use super::{invalid_params, refuse_new_dialog, reply_error};
use crate::client::dialogs::{self, Waiting, wrong_kind};
use crate::client::errors::RespondError;
use crate::client::state::{Shared, State, next_dialog_id};
use crate::events::*;

pub(crate) struct PendingConfirm {
    responder: Responder<Value>,
    session_id: String,
}

impl Waiting for PendingConfirm {
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
            DialogAnswer::Confirm { .. } => Ok(answer),
            other => Err(wrong_kind(dialog_id, &other)),
        }
    }

    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError> {
        let yes = matches!(answer, Some(DialogAnswer::Confirm { yes: true }));
        self.responder
            .respond(json!({ "confirmed": yes }))
            .map_err(|e| RespondError::Send(e.message))
    }
}

pub(crate) async fn handle(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    let (Some(session_id), Some(question)) = (
        params
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string),
        params.get("question").and_then(Value::as_str).map(str::to_string),
    ) else {
        return reply_error(responder, invalid_params("sessionId and question are required"));
    };
    let dialog_id = next_dialog_id();
    let prompt = ConfirmPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.clone(),
        question,
    };
    dialogs::open(
        shared,
        dialog_id,
        responder,
        refuse_new_dialog(shared, &session_id, "confirmation"),
        |responder| PendingConfirm {
            responder,
            session_id,
        },
        DialogPrompt::Confirm(Box::new(prompt)),
    )
    .await
}
