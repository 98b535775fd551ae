//! The one list of waiting dialogs, as the window renders it. The app model keeps the list
//! (`AppState::pending`); each change sends the whole list (`AppEvent::Dialogs`), and
//! `app_state` returns it after a reload, so the window never keeps a list of its own.
//! `DialogView` is an enum whose TypeScript is generated (`ui_contract.rs`): a new dialog kind
//! is a compile error in `Pending::view` and in the window's `DialogHost`.

use porthole_core::events::{ElicitationPrompt, FileAccessPrompt, PermissionPrompt};
use porthole_history::DomainMemory;
use serde::Serialize;

/// A dialog waiting for the user: the prompt as core reported it, and who asked.
#[derive(Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) enum DialogView {
    Elicitation(#[cfg_attr(test, ts(type = "Elicitation & DialogOrigin"))] Asked<ElicitationPrompt>),
    Permission(#[cfg_attr(test, ts(type = "PermissionRequest & DialogOrigin"))] Asked<PermissionPrompt>),
    FileAccess(#[cfg_attr(test, ts(type = "FileAccessRequest & DialogOrigin"))] Asked<FileAccessPrompt>),
}

/// A core prompt with what the app model adds: the connection that asked, the editor it came
/// through (`porthole proxy`), and for URL elicitations what the consent history knows of the
/// domain.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Asked<P> {
    #[serde(flatten)]
    pub(crate) prompt: Box<P>,
    #[serde(flatten)]
    pub(crate) origin: Origin,
    /// URL elicitations only: earlier consents to this domain for this agent (`null` without a
    /// history); absent for every other dialog.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) domain_memory: Option<Option<DomainMemory>>,
}

/// Who asked: the same for every kind of dialog.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "DialogOrigin"))]
pub(crate) struct Origin {
    /// The connection that asked (the app model's id).
    pub(crate) agent_id: String,
    /// The editor's name, for a connection an editor drives through `porthole proxy`.
    pub(crate) through: Option<String>,
}

#[cfg(test)]
mod tests {
    use porthole_core::events::{AgentIdentity, FileOperation};
    use serde_json::json;

    use super::*;

    /// The shape the window read before the list was typed (core's event, with `agentId` and
    /// `through` added to the JSON).
    #[test]
    fn a_dialog_keeps_the_shape_of_cores_event() {
        let view = DialogView::FileAccess(Asked {
            prompt: Box::new(FileAccessPrompt {
                dialog_id: 4,
                agent: AgentIdentity {
                    name: "a".into(),
                    title: None,
                    version: None,
                },
                session_id: "s".into(),
                path: "/etc/hosts".into(),
                operation: FileOperation::Read,
                reason: "outside".into(),
            }),
            origin: Origin {
                agent_id: "a".into(),
                through: Some("Zed".into()),
            },
            domain_memory: None,
        });
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            json!({"type": "file_access", "dialogId": 4, "agent": {"name": "a", "title": null, "version": null},
                   "sessionId": "s", "path": "/etc/hosts", "operation": "read", "reason": "outside",
                   "agentId": "a", "through": "Zed"})
        );
    }
}
