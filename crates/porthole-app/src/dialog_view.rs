//! The one list of waiting dialogs, as the window renders it. The app model keeps the list
//! (`AppState::pending`); each change sends the whole list (`AppEvent::Dialogs`), and
//! `app_state` returns it after a reload, so the window never keeps a list of its own.
//! `DialogView` wraps core's `DialogPrompt` whatever its kind, so a new kind of dialog needs
//! nothing here; its TypeScript (`ui_contract.rs`) names the window's `Dialog` union, over
//! which the window's `DialogHost` switches exhaustively.

use porthole_core::events::DialogPrompt;
use porthole_history::DomainMemory;
use serde::Serialize;

/// A dialog waiting for the user: the prompt as core reported it (of any kind: core's
/// `DialogPrompt`, generated for the window in `generated/core.ts`), and what the app model
/// adds: the connection that asked, the editor it came through (`porthole proxy`), and for URL
/// elicitations what the consent history knows of the domain. Nothing here is per kind.
#[derive(Clone, Serialize)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub(crate) struct DialogView {
    #[serde(flatten)]
    pub(crate) prompt: DialogPrompt,
    #[serde(flatten)]
    pub(crate) origin: Origin,
    /// URL elicitations only: earlier consents to this domain for this agent (`null` without a
    /// history); absent for every other dialog.
    #[serde(rename = "domainMemory", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(any(test, feature = "ts"), ts(optional))]
    pub(crate) domain_memory: Option<Option<DomainMemory>>,
}

/// Who asked: the same for every kind of dialog.
#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "DialogOrigin"))]
pub(crate) struct Origin {
    /// The connection that asked (the app model's id).
    pub(crate) agent_id: String,
    /// The editor's name, for a connection an editor drives through `porthole proxy`.
    pub(crate) through: Option<String>,
}

#[cfg(test)]
mod tests {
    use porthole_core::events::{AgentIdentity, FileAccessPrompt, FileOperation};
    use serde_json::json;

    use super::*;

    /// The shape the window read before the list was typed (core's event, with `agentId` and
    /// `through` added to the JSON).
    #[test]
    fn a_dialog_keeps_the_shape_of_cores_event() {
        let view = DialogView {
            prompt: DialogPrompt::FileAccess(Box::new(FileAccessPrompt {
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
            })),
            origin: Origin {
                agent_id: "a".into(),
                through: Some("Zed".into()),
            },
            domain_memory: None,
        };
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            json!({"type": "file_access", "dialogId": 4, "agent": {"name": "a", "title": null, "version": null},
                   "sessionId": "s", "path": "/etc/hosts", "operation": "read", "reason": "outside",
                   "agentId": "a", "through": "Zed"})
        );
    }
}
