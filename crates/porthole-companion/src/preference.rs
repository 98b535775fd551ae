//! Who answers the agent's questions when the editor can answer them itself (it advertised
//! elicitation): the person's choice in Porthole's Settings, `editorQuestions` in the app's
//! settings file ("editor", the default, or "porthole"), read by the proxy when the editor's
//! `initialize` arrives. `--always` is "porthole" for one proxy.
//!
//! The file is the app's (porthole-app `settings.rs` writes it; its path is this module's
//! [`settings_path`], one definition for both); the proxy only reads this one field, and a
//! missing or unreadable file means the default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Names another settings file (tests, several set-ups).
pub const SETTINGS_ENV: &str = "PORTHOLE_SETTINGS_FILE";

/// `~/.config/porthole/settings.json` (the platform's config folder), or `PORTHOLE_SETTINGS_FILE`.
pub fn settings_path() -> Option<PathBuf> {
    std::env::var_os(SETTINGS_ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::config_dir().map(|d| d.join("porthole").join("settings.json")))
}

/// Who answers when the editor can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhoAnswers {
    Editor,
    Porthole,
}

impl WhoAnswers {
    /// The settings value's words.
    pub const VALUES: [&str; 2] = ["editor", "porthole"];
}

/// The choice in the settings file at `path`; the editor when there is none.
pub fn read(path: Option<&Path>) -> WhoAnswers {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Field {
        editor_questions: Option<String>,
    }
    let chosen = path
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice::<Field>(&bytes).ok())
        .and_then(|f| f.editor_questions);
    match chosen.as_deref() {
        Some("porthole") => WhoAnswers::Porthole,
        _ => WhoAnswers::Editor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_is_read_from_the_apps_settings_and_defaults_to_the_editor() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        assert_eq!(read(Some(&file)), WhoAnswers::Editor, "no file");
        assert_eq!(read(None), WhoAnswers::Editor);
        std::fs::write(
            &file,
            r#"{"formMode": true, "editorQuestions": "porthole", "theme": "dark"}"#,
        )
        .unwrap();
        assert_eq!(read(Some(&file)), WhoAnswers::Porthole);
        std::fs::write(&file, r#"{"editorQuestions": "editor"}"#).unwrap();
        assert_eq!(read(Some(&file)), WhoAnswers::Editor);
        for broken in [
            r#"{"editorQuestions": 3}"#,
            "not json",
            r#"{"editorQuestions": "someone"}"#,
        ] {
            std::fs::write(&file, broken).unwrap();
            assert_eq!(read(Some(&file)), WhoAnswers::Editor, "{broken}");
        }
    }
}
