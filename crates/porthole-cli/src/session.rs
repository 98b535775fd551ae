//! Opening the session: sign in if asked, then list, load, resume or create it, and apply
//! `--model`, `--config` and `--mode`, each checked against what the agent advertised before
//! anything is sent.

use porthole_core::{AgentClient, AgentCommand, Workspace};

use crate::args::Args;
use crate::output;
use crate::sign_in::{self, OpenError, SignedIn};

/// Authenticate if asked, then list, load, resume or create the session, and apply `--model`,
/// `--config` and `--mode`, each checked against what the agent advertised before anything is
/// sent. `None`: nothing to prompt (the listing was the whole job).
pub(crate) async fn open_session(
    args: &Args,
    client: &AgentClient,
    out: &output::Output,
    workspace: Workspace,
    command: &AgentCommand,
    profile: Option<&str>,
    signed_in: &mut Option<SignedIn>,
) -> Result<Option<String>, OpenError> {
    if let Some(method) = &args.auth {
        sign_in::sign_in(client, command, method, profile, signed_in).await?;
    }
    // Requests the agent did not advertise are never sent: a usage error (exit 2) instead.
    let unsupported = |e: porthole_core::ClientError| match e {
        porthole_core::ClientError::Unsupported(what) => {
            OpenError::Usage(format!("the agent does not advertise `{what}`"))
        }
        e => OpenError::Failed(e.to_string()),
    };
    if args.logout {
        client.logout().await.map_err(unsupported)?;
        out.done("logout");
        return Ok(None);
    }
    if let Some(id) = &args.delete_session {
        client.delete_session(id).await.map_err(unsupported)?;
        out.done("session/delete");
        return Ok(None);
    }
    if args.list_sessions {
        let mut cursor = None;
        loop {
            let page = client
                .list_sessions(Some(workspace.cwd.clone()), cursor)
                .await
                .map_err(|e| e.to_string())?;
            out.session_listing(&page);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(None),
            }
        }
    }
    let auth_hint = |e: porthole_core::ClientError| match e {
        porthole_core::ClientError::Unsupported(_) => unsupported(e),
        e if e.is_auth_required() => OpenError::Failed(format!("{e} (auth_required)")),
        e => OpenError::Failed(e.to_string()),
    };
    let opened = match (&args.load, &args.resume, &args.fork) {
        (Some(id), _, _) => client.load_session(id, workspace).await.map_err(auth_hint)?,
        (_, Some(id), _) => client.resume_session(id, workspace).await.map_err(auth_hint)?,
        (_, _, Some(id)) => client.fork_session(id, workspace).await.map_err(auth_hint)?,
        _ => client.open_session(workspace).await.map_err(auth_hint)?,
    };
    let session_id = opened.session_id.clone();
    // Checked before any of them is sent.
    if args.close
        && client.protocol_version() == porthole_core::acp::schema::ProtocolVersion::V1
        && client.agent_capabilities().session_capabilities.close.is_none()
    {
        return Err(unsupported(porthole_core::ClientError::Unsupported(
            "session/close",
        )));
    }
    if let Some(mode) = &args.mode {
        check_mode(&opened, mode).map_err(OpenError::Usage)?;
    }
    for (id, value) in &args.config {
        config_value(&opened.config_options, id, value).map_err(OpenError::Usage)?;
    }
    let mut models = opened.models.clone();
    if let Some(model) = &args.model {
        models = Some(
            client
                .set_model(&session_id, model)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    out.session(&session_id, models.as_ref());
    if !args.config.is_empty() {
        let mut options = opened.config_options.clone();
        for (id, value) in &args.config {
            // Against the latest list: setting one option may change the others.
            let value = config_value(&options, id, value).map_err(OpenError::Usage)?;
            options = client
                .set_config_option(&session_id, id, value)
                .await
                .map_err(|e| format!("--config {id}: {e}"))?;
        }
        out.config_options(&session_id, &options);
    }
    if let Some(mode) = &args.mode {
        client
            .set_mode(&session_id, mode)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(session_id))
}

/// `--mode` must be one of the session's advertised modes.
fn check_mode(opened: &porthole_core::OpenedSession, mode: &str) -> Result<(), String> {
    use porthole_core::acp::v1::schema::SessionConfigOptionCategory;
    let available: Vec<&str> = opened
        .modes
        .iter()
        .flat_map(|m| m.available_modes.iter().map(|m| m.id.0.as_ref()))
        .collect();
    if available.contains(&mode) {
        return Ok(());
    }
    if available.is_empty() {
        let as_option = opened
            .config_options
            .iter()
            .find(|o| o.category == Some(SessionConfigOptionCategory::Mode))
            .map(|o| {
                format!(
                    "; its mode is the config option `{0}` (--config {0}=VALUE)",
                    o.id.0
                )
            })
            .unwrap_or_default();
        return Err(format!(
            "--mode {mode}: the agent advertises no session modes{as_option}"
        ));
    }
    Err(format!(
        "--mode {mode}: the agent does not offer this mode; its modes: {}",
        available.join(", ")
    ))
}

/// `--config ID=VALUE` checked against the advertised options: the value to send.
fn config_value(
    options: &[porthole_core::acp::v1::schema::SessionConfigOption],
    id: &str,
    value: &str,
) -> Result<porthole_core::sessions::ConfigValue, String> {
    use porthole_core::acp::v1::schema::{SessionConfigKind, SessionConfigSelectOptions};
    use porthole_core::sessions::ConfigValue;
    let Some(option) = options.iter().find(|o| o.id.0.as_ref() == id) else {
        if options.is_empty() {
            return Err(format!("--config {id}: the agent advertises no config options"));
        }
        let ids: Vec<&str> = options.iter().map(|o| o.id.0.as_ref()).collect();
        return Err(format!(
            "--config {id}: the agent has no such config option; its options: {}",
            ids.join(", ")
        ));
    };
    match &option.kind {
        SessionConfigKind::Select(select) => {
            let values: Vec<&str> = match &select.options {
                SessionConfigSelectOptions::Ungrouped(o) => o.iter().map(|o| o.value.0.as_ref()).collect(),
                SessionConfigSelectOptions::Grouped(groups) => groups
                    .iter()
                    .flat_map(|g| g.options.iter().map(|o| o.value.0.as_ref()))
                    .collect(),
                _ => Vec::new(),
            };
            if values.contains(&value) {
                Ok(ConfigValue::Select(value.to_string()))
            } else {
                Err(format!(
                    "--config {id}={value}: not one of the option's values: {}",
                    values.join(", ")
                ))
            }
        }
        SessionConfigKind::Boolean(_) => match value {
            "true" => Ok(ConfigValue::Boolean(true)),
            "false" => Ok(ConfigValue::Boolean(false)),
            _ => Err(format!(
                "--config {id}={value}: a boolean option takes true or false"
            )),
        },
        _ => Err(format!(
            "--config {id}: an option of a kind porthole-cli does not know"
        )),
    }
}
