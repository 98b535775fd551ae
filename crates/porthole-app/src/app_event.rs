//! The events the app model itself sends the window, besides the core events it forwards:
//! typed here, and their TypeScript generated from these types (`ui_contract.rs`), so the
//! window's `UiEvent` cannot drift from what is sent.

use porthole_registry::Progress;
use serde::{Deserialize, Serialize};

use crate::snapshot::AppSnapshot;

/// A file the user attached to a prompt (`send_prompt` takes them; `user_prompt` shows them).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct Attachment {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"file\" | \"image\""))]
    pub kind: String,
    pub path: String,
}

/// One of the app model's own events, as the window receives it (`type` names the kind).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub(crate) enum AppEvent {
    /// The whole snapshot, after anything in it changed.
    Connection { snapshot: Box<AppSnapshot> },
    /// The dialogs waiting for the user, in arrival order: the whole list, after it changed
    /// (a dialog asked, answered, withdrawn, or gone with its agent).
    Dialogs {
        dialogs: Vec<crate::dialog_view::DialogView>,
    },
    /// The user's prompt, as sent (the transcript shows it before the agent answers).
    #[serde(rename_all = "camelCase")]
    UserPrompt {
        session_id: String,
        text: String,
        attachments: Vec<Attachment>,
    },
    /// The sealed URL view of a URL elicitation the user opened: its lifecycle.
    #[serde(rename_all = "camelCase")]
    UrlView {
        dialog_id: u64,
        #[cfg_attr(
            any(test, feature = "ts"),
            ts(type = "\"opened\" | \"closed\" | \"load_failed\" | \"navigation_blocked\" | \"crashed\"")
        )]
        state: String,
        detail: Option<String>,
    },
    /// An MCP connection failed for the sessions that use it: its sign-in expired and refresh
    /// did not help (`needs_sign_in`), or it could not be started or handed over.
    #[serde(rename_all = "camelCase")]
    McpConnectionProblem {
        connection: String,
        reason: String,
        needs_sign_in: bool,
        /// The sessions it was handed to (none: it concerns every session).
        sessions: Vec<String>,
    },
    /// A sign-in the window started (`mcp_sign_in`) ended: signed in (`error` null; the
    /// dialog also gets `elicitation_complete`), or failed with why.
    #[serde(rename_all = "camelCase")]
    McpSignInEnded {
        dialog_id: u64,
        connection: String,
        error: Option<String>,
    },
    /// An MCP App a session's tool call brought, when its call started and again when it
    /// finished (with its result, and the agent's tool call it belongs to).
    McpApp { app: Box<crate::mcp_apps::McpAppView> },
    /// An MCP Registry's copy was brought up to date in the background (`problem`: why it
    /// could not be; the copy from before stays): the registry view searches again.
    McpRegistryRefreshed {
        registry: String,
        problem: Option<String>,
    },
    /// A registry install is downloading or unpacking (for its progress bar).
    #[serde(rename_all = "camelCase")]
    InstallProgress {
        registry_id: String,
        #[serde(flatten)]
        progress: InstallPhase,
    },
}

/// How far a registry install is: the registry's [`Progress`], typed for the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "phase", rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
#[cfg_attr(any(test, feature = "ts"), ts(rename = "InstallProgress"))]
pub(crate) enum InstallPhase {
    /// `total` is unknown when the server does not say.
    Downloading {
        done: u64,
        total: Option<u64>,
    },
    Extracting,
}

impl From<Progress> for InstallPhase {
    fn from(p: Progress) -> Self {
        match p {
            Progress::Downloading { done, total } => Self::Downloading { done, total },
            Progress::Extracting => Self::Extracting,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The shapes the window read before these were typed (hand-built `json!` values).
    #[test]
    fn the_events_keep_their_wire_shapes() {
        let prompt = AppEvent::UserPrompt {
            session_id: "s".into(),
            text: "hi".into(),
            attachments: vec![Attachment {
                kind: "file".into(),
                path: "/w/a.txt".into(),
            }],
        };
        assert_eq!(
            serde_json::to_value(&prompt).unwrap(),
            json!({"type": "user_prompt", "sessionId": "s", "text": "hi",
                   "attachments": [{"kind": "file", "path": "/w/a.txt"}]})
        );
        let view = AppEvent::UrlView {
            dialog_id: 3,
            state: "opened".into(),
            detail: None,
        };
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            json!({"type": "url_view", "dialogId": 3, "state": "opened", "detail": null})
        );
        let progress = |p| AppEvent::InstallProgress {
            registry_id: "goose".into(),
            progress: InstallPhase::from(p),
        };
        assert_eq!(
            serde_json::to_value(progress(Progress::Downloading { done: 5, total: None })).unwrap(),
            json!({"type": "install_progress", "registryId": "goose", "phase": "downloading", "done": 5, "total": null})
        );
        assert_eq!(
            serde_json::to_value(progress(Progress::Extracting)).unwrap(),
            json!({"type": "install_progress", "registryId": "goose", "phase": "extracting"})
        );
    }
}
