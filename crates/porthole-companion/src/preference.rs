//! Who answers the agent's questions when the editor can answer them itself (it advertised
//! elicitation): the person's choice in Porthole's Settings, `editorQuestions` in the app's
//! settings file ("editor", the default, "porthole", or "ask": once per agent, the answers
//! kept in `editorQuestionsByAgent` by the agent's command line), read by the proxy when the
//! editor's `initialize` arrives. `--always` is "porthole" for one proxy.
//!
//! The file is the app's (porthole-app `settings.rs` writes it; its path is this module's
//! [`settings_path`], one definition for both); the proxy only reads this one field, and a
//! missing or unreadable file means the default.

use std::collections::HashMap;
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
    /// "ask", and the person has not answered for this agent yet: the editor answers this
    /// session, and the window asks who should from the next one.
    Ask,
}

impl WhoAnswers {
    /// The words of `editorQuestions`.
    pub const VALUES: [&str; 3] = ["editor", "porthole", "ask"];
    /// The words of an answer kept in `editorQuestionsByAgent`.
    pub const ANSWERS: [&str; 2] = ["editor", "porthole"];
}

/// How an agent is known in `editorQuestionsByAgent`: its command line, as the editor runs it
/// through the proxy (the same agent in another editor's set-up is asked about again).
pub fn agent_key(command: &[String]) -> String {
    command.join(" ")
}

/// The choice in the settings file at `path` for the agent known as `agent` ([`agent_key`]);
/// the editor when there is none.
pub fn read(path: Option<&Path>, agent: &str) -> WhoAnswers {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Fields {
        editor_questions: Option<String>,
        #[serde(default)]
        editor_questions_by_agent: HashMap<String, String>,
    }
    let Some(fields) = path
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice::<Fields>(&bytes).ok())
    else {
        return WhoAnswers::Editor;
    };
    match fields.editor_questions.as_deref() {
        Some("porthole") => WhoAnswers::Porthole,
        Some("ask") => match fields.editor_questions_by_agent.get(agent).map(String::as_str) {
            Some("porthole") => WhoAnswers::Porthole,
            Some("editor") => WhoAnswers::Editor,
            _ => WhoAnswers::Ask,
        },
        _ => WhoAnswers::Editor,
    }
}

/// Whether Porthole answers an MCP connection's questions when the agent declared elicitation
/// to the server itself: `mcpQuestions` in the settings file at `path` ("porthole", the default,
/// or "agent"; the same setting the window's sessions follow).
pub fn porthole_answers_mcp(path: Option<&Path>) -> bool {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Fields {
        mcp_questions: Option<String>,
    }
    let choice = path
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice::<Fields>(&bytes).ok())
        .and_then(|f| f.mcp_questions);
    choice.as_deref() != Some("agent")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_answers_mcp_questions_is_read_from_the_settings_and_defaults_to_porthole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        assert!(porthole_answers_mcp(None));
        assert!(porthole_answers_mcp(Some(&file)), "no file");
        std::fs::write(&file, r#"{"mcpQuestions": "agent"}"#).unwrap();
        assert!(!porthole_answers_mcp(Some(&file)));
        std::fs::write(&file, r#"{"mcpQuestions": "porthole", "theme": "dark"}"#).unwrap();
        assert!(porthole_answers_mcp(Some(&file)));
        std::fs::write(&file, r#"{"mcpQuestions": 3}"#).unwrap();
        assert!(porthole_answers_mcp(Some(&file)), "a broken value is the default");
    }

    #[test]
    fn the_choice_is_read_from_the_apps_settings_and_defaults_to_the_editor() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        let read = |path: Option<&Path>| read(path, "claude");
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

    #[test]
    fn asking_once_per_agent_keeps_each_agents_answer() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(
            &file,
            r#"{"editorQuestions": "ask", "editorQuestionsByAgent": {"claude": "porthole", "codex": "editor", "odd": "?"}}"#,
        )
        .unwrap();
        assert_eq!(read(Some(&file), "claude"), WhoAnswers::Porthole);
        assert_eq!(read(Some(&file), "codex"), WhoAnswers::Editor);
        assert_eq!(read(Some(&file), "gemini"), WhoAnswers::Ask, "not asked yet");
        assert_eq!(read(Some(&file), "odd"), WhoAnswers::Ask);
        let command = ["npx".to_string(), "-y".into(), "claude-agent-acp".into()];
        assert_eq!(agent_key(&command), "npx -y claude-agent-acp");
    }
}
