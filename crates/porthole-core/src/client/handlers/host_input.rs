//! Gemini CLI's `gemini/requestUserInput` (its `ask_user` and `exit_plan_mode`, asked of a
//! client that declared `geminiCli.hostInput` in `initialize`): translated by
//! `form::gemini` into a form elicitation, shown and answered like one, and answered to
//! Gemini in its own shape.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use serde_json::Value;

use super::{invalid_params, reply_error};
use crate::client::state::Shared;
use crate::form::gemini;

pub(crate) async fn handle(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    match gemini::translate(&params) {
        Ok(asked) => {
            let translated = crate::form::Translated::from(asked);
            let reply = Some(translated.reply.clone());
            super::elicitation::open(shared, translated.elicitation_params(), responder, reply).await
        }
        Err(e) => reply_error(responder, invalid_params(format!("gemini/requestUserInput: {e}"))),
    }
}
