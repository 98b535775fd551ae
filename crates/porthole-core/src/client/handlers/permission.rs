//! `session/request_permission`: answered at once by a remembered "always" decision, or shown
//! to the user, who answers through `AgentClient::respond_permission`. Qwen Code's question
//! dialog, which comes as one, is shown as the form it is (`elicitation::open`).

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    PermissionOption, RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome,
};
use serde_json::Value;
use tokio::sync::oneshot;

use super::updates::tool_kind_name;
use super::{invalid_params, refuse_new_dialog, reply_error};
use crate::client::dialogs::{self, Waiting, wrong_kind};
use crate::client::errors::RespondError;
use crate::client::state::{Shared, State, next_dialog_id};
use crate::events::*;

/// A `session/request_permission` waiting for the user.
pub(crate) struct PendingPermission {
    responder: Responder<RequestPermissionResponse>,
    session_id: String,
    tool_kind: String,
    options: Vec<PermissionOption>,
}

impl Waiting for PendingPermission {
    fn session_id(&self) -> Option<&str> {
        Some(&self.session_id)
    }

    fn ends_with_turn(&self) -> bool {
        true
    }

    /// The option must be one of the request's.
    fn check(
        &self,
        dialog_id: DialogId,
        answer: DialogAnswer,
        _: &State,
    ) -> Result<DialogAnswer, RespondError> {
        one_of(&self.options, dialog_id, answer)
    }

    /// An "always" option becomes a rule of the session.
    fn left(&self, state: &mut State, answer: Option<&DialogAnswer>) {
        if let Some(DialogAnswer::Permission { option_id: Some(id) }) = answer
            && let Some(chosen) = self.options.iter().find(|o| o.option_id.0.as_ref() == id)
        {
            state.rules.remember(&self.session_id, &self.tool_kind, chosen);
        }
    }

    /// No decision: the agent gets the `cancelled` outcome.
    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError> {
        let outcome = match answer {
            Some(DialogAnswer::Permission { option_id: Some(id) }) => {
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id))
            }
            _ => RequestPermissionOutcome::Cancelled,
        };
        self.responder
            .respond(RequestPermissionResponse::new(outcome))
            .map_err(|e| RespondError::Send(e.message))
    }
}

/// A permission answer, with no option or one of `options`.
fn one_of(
    options: &[PermissionOption],
    dialog_id: DialogId,
    answer: DialogAnswer,
) -> Result<DialogAnswer, RespondError> {
    let DialogAnswer::Permission { option_id } = &answer else {
        return Err(wrong_kind(dialog_id, &answer));
    };
    if let Some(id) = option_id
        && !options.iter().any(|o| o.option_id.0.as_ref() == id)
    {
        return Err(RespondError::NoSuchOption(id.clone()));
    }
    Ok(answer)
}

pub(crate) async fn handle(shared: &Arc<Shared>, params: Value, responder: Responder<Value>) {
    // Qwen Code's questions come as a permission request: they are a form (`form::qwen`).
    if shared.opts.modes.form
        && let Some(asked) = crate::form::qwen::translate(&params)
    {
        let translated = crate::form::Translated::from(asked);
        let reply = Some(translated.reply.clone());
        return super::elicitation::open(shared, translated.elicitation_params(), responder, reply).await;
    }
    let mut request = match serde_json::from_value::<RequestPermissionRequest>(params) {
        Ok(request) => request,
        Err(e) => return reply_error(responder, invalid_params(e)),
    };
    let responder: Responder<RequestPermissionResponse> = responder.cast();
    let session_id = request.session_id.0.to_string();
    if !shared.lock().sessions.contains_key(&session_id) {
        let _ = responder.respond_with_error(
            agent_client_protocol::v1::schema::Error::session_not_found(request.session_id.clone()).into(),
        );
        return;
    }
    let tool_call_id = request.tool_call.tool_call_id.0.to_string();
    let (tool_kind, auto) = {
        let state = shared.lock();
        // A request may name its tool call by id alone (a `ToolCallUpdate` carries only what
        // changed): the kind and title come from the tool call's own updates.
        if let Some(known) = state
            .sessions
            .get(&session_id)
            .and_then(|s| s.tool_calls.get(&tool_call_id))
        {
            let fields = &mut request.tool_call.fields;
            fields.kind.get_or_insert(known.kind);
            fields.title.get_or_insert_with(|| known.title.clone());
        }
        let tool_kind = request
            .tool_call
            .fields
            .kind
            .as_ref()
            .map(tool_kind_name)
            .unwrap_or_else(|| "other".to_string());
        let auto = state
            .rules
            .answer(&session_id, &tool_kind, &request.options)
            .map(|(rule, option)| (rule.rule_id, option.clone()));
        (tool_kind, auto)
    };
    if let Some((rule_id, option)) = auto {
        let _ = responder.respond(RequestPermissionResponse::new(
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.option_id.clone())),
        ));
        shared
            .emit(Event::PermissionAuto {
                session_id,
                tool_call: Box::new(request.tool_call),
                option_id: option.option_id.0.to_string(),
                option_name: option.name,
                option_kind: option.kind,
                tool_kind,
                rule_id,
            })
            .await;
        return;
    }
    let dialog_id = next_dialog_id();
    let prompt = PermissionPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.clone(),
        tool_call: request.tool_call.clone(),
        tool_kind: tool_kind.clone(),
        options: request.options.clone(),
        warnings: PermissionPrompt::text_warnings(&request.tool_call, &request.options),
        mcp: None,
    };
    dialogs::open(
        shared,
        dialog_id,
        responder,
        refuse_new_dialog(shared, &session_id, "permission request"),
        |responder| PendingPermission {
            responder,
            session_id,
            tool_kind,
            options: request.options,
        },
        DialogPrompt::Permission(Box::new(prompt)),
    )
    .await
}

/// The options of an MCP App's tool call: the window remembers "for this app" per server and
/// tool (an agent's "always" rules are keyed on the session and tool kind instead).
pub const APP_ALLOW_ONCE: &str = "allow_once";
pub const APP_ALLOW_ALWAYS: &str = "allow_for_app";
pub const APP_REJECT: &str = "reject";

/// A tool call an MCP App asks to make, waiting for the user: its asker gets the option chosen.
struct PendingAppPermission {
    answer: oneshot::Sender<Option<String>>,
    session_id: String,
    options: Vec<PermissionOption>,
}

impl Waiting for PendingAppPermission {
    fn session_id(&self) -> Option<&str> {
        Some(&self.session_id)
    }

    fn check(
        &self,
        dialog_id: DialogId,
        answer: DialogAnswer,
        _: &State,
    ) -> Result<DialogAnswer, RespondError> {
        one_of(&self.options, dialog_id, answer)
    }

    fn reply(self: Box<Self>, answer: Option<DialogAnswer>) -> Result<(), RespondError> {
        let chosen = match answer {
            Some(DialogAnswer::Permission { option_id }) => option_id,
            _ => None,
        };
        self.answer
            .send(chosen)
            .map_err(|_| RespondError::Send("the app's tool call has ended".into()))
    }
}

/// Ask the user whether an MCP App of `asker`'s connection, shown in `session_id`, may call
/// `tool` with `arguments` on its server. Returns the option chosen ([`APP_ALLOW_ONCE`],
/// [`APP_ALLOW_ALWAYS`], [`APP_REJECT`]) or `None` when dismissed. Dropping the future
/// dismisses the dialog.
pub(crate) async fn ask_app_permission(
    shared: &Arc<Shared>,
    asker: McpAsker,
    session_id: &str,
    tool: &str,
    arguments: &Value,
) -> Result<Option<String>, String> {
    if !shared.lock().sessions.contains_key(session_id) {
        return Err(format!("no session {session_id}"));
    }
    let dialog_id = next_dialog_id();
    let title = format!(
        "The app of MCP server “{}” wants to call its tool “{tool}”",
        asker.connection
    );
    let tool_call = agent_client_protocol::v1::schema::ToolCallUpdate::new(
        format!("mcp-app/{}/{dialog_id}", asker.connection),
        agent_client_protocol::v1::schema::ToolCallUpdateFields::new()
            .title(title)
            .kind(agent_client_protocol::v1::schema::ToolKind::Other)
            .raw_input(arguments.clone()),
    );
    use agent_client_protocol::v1::schema::PermissionOptionKind as Kind;
    let options = vec![
        PermissionOption::new(APP_ALLOW_ONCE, "Allow once", Kind::AllowOnce),
        PermissionOption::new(APP_ALLOW_ALWAYS, "Allow for this app", Kind::AllowAlways),
        PermissionOption::new(APP_REJECT, "Deny", Kind::RejectOnce),
    ];
    let prompt = PermissionPrompt {
        dialog_id,
        agent: shared.agent(),
        session_id: session_id.to_string(),
        warnings: PermissionPrompt::text_warnings(&tool_call, &options),
        tool_call,
        tool_kind: "other".into(),
        options: options.clone(),
        mcp: Some(asker),
    };
    let (tx, rx) = oneshot::channel();
    let pending = PendingAppPermission {
        answer: tx,
        session_id: session_id.to_string(),
        options,
    };
    let _dismiss = super::elicitation::DismissOnDrop::new(shared, dialog_id);
    dialogs::open_owned(
        shared,
        dialog_id,
        |state| state.closed.then(|| "the connection is closing".to_string()),
        pending,
        DialogPrompt::Permission(Box::new(prompt)),
    )
    .await?;
    rx.await
        .map_err(|_| "the agent's connection closed before the user answered".to_string())
}
