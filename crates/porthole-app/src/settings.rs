//! The app's own settings (not the agents file): which elicitation modes to advertise, where
//! consented URLs open, notifications, theme, and whether form values go into the history.
//! Stored as JSON in the platform config dir; a broken file falls back to defaults with a
//! message, and is only replaced when the user saves.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "AppSettings"))]
pub struct Settings {
    /// Advertise form-mode elicitation (takes effect when an agent next connects).
    pub form_mode: bool,
    /// Advertise URL-mode elicitation (takes effect when an agent next connects).
    pub url_mode: bool,
    /// Where an accepted URL opens by default: "sealed" (isolated window) or "system".
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"sealed\" | \"system\""))]
    pub url_opener: String,
    /// OS notification and window attention when a dialog waits in the background.
    pub notifications: bool,
    /// "system" (follow the OS), "light" or "dark".
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"system\" | \"light\" | \"dark\""))]
    pub theme: String,
    /// Keep submitted form values (never secret fields) in the consent history.
    pub store_form_values: bool,
    /// Who answers the agent's questions when an editor that can ask itself runs it through
    /// `porthole proxy`: "editor", "porthole", or "ask" once per agent (read by the proxy,
    /// porthole-companion `preference.rs`).
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"editor\" | \"porthole\" | \"ask\""))]
    pub editor_questions: String,
    /// With "ask": each agent's answer ("editor" or "porthole"), by its command line.
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(type = "Record<string, \"editor\" | \"porthole\">")
    )]
    pub editor_questions_by_agent: std::collections::BTreeMap<String, String>,
    /// Who answers an MCP connection's questions when the agent declared elicitation to the
    /// server itself: "porthole" (the default: the dialog can say truthfully which server asks)
    /// or "agent". Agents that declared none always get Porthole's answers. Sessions opened
    /// from now on.
    #[cfg_attr(any(test, feature = "ts"), ts(type = "\"porthole\" | \"agent\""))]
    pub mcp_questions: String,
    /// Show MCP Apps (a connection's interactive views) under the tool calls that bring them.
    /// Off: the gateway declares no MCP Apps to servers. Sessions opened from now on.
    pub mcp_apps: bool,
    /// Connections whose apps are not shown though apps are on: the gateway declares nothing of
    /// MCP Apps to them (sessions opened from now on) and notes none of their calls (at once).
    pub mcp_apps_off: Vec<String>,
    /// The tools each connection's apps may call without asking ("Allow for this app").
    pub mcp_app_tools: std::collections::BTreeMap<String, Vec<String>>,
    /// The devices each connection's app resources may use ("Allow for this app"), by
    /// connection and resource URI.
    pub mcp_app_permissions: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, Vec<crate::mcp_apps::AppPermission>>,
    >,
    /// The MCP Registries the "Add from the registry" view reads (base addresses, default the
    /// official one; `PORTHOLE_MCP_REGISTRY_URL` overrides them, as for the CLI). An
    /// organisation's registry token is kept in the keyring (`porthole-cli mcp registry-token`).
    pub mcp_registries: Vec<String>,
    /// The ACP version each agent is spoken to in, by agent id: "1" or "2" forces that
    /// version, "auto" (or no entry, the default) offers v2 and falls back to v1 (core's
    /// `ClientOptions::protocol`). Read when the agent's connection starts: a change applies
    /// at its next start or restart. Set one at a time with `set_agent_protocol`.
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(type = "Record<string, \"auto\" | \"1\" | \"2\">")
    )]
    pub agent_protocols: std::collections::BTreeMap<String, String>,
}

/// More registries than anyone lists; each is read at every search.
const MAX_REGISTRIES: usize = 8;

impl Default for Settings {
    fn default() -> Self {
        Self {
            form_mode: true,
            url_mode: true,
            url_opener: "sealed".into(),
            notifications: true,
            theme: "system".into(),
            store_form_values: false,
            editor_questions: "editor".into(),
            editor_questions_by_agent: Default::default(),
            mcp_questions: "porthole".into(),
            mcp_apps: true,
            mcp_apps_off: Vec::new(),
            mcp_app_tools: Default::default(),
            mcp_app_permissions: Default::default(),
            mcp_registries: vec![porthole_mcp_registry::OFFICIAL.to_string()],
            agent_protocols: Default::default(),
        }
    }
}

impl Settings {
    /// Refuse values the UI should never send.
    pub fn check(&self) -> Result<(), String> {
        if !matches!(self.url_opener.as_str(), "sealed" | "system") {
            return Err(format!(
                "urlOpener must be \"sealed\" or \"system\", not {:?}",
                self.url_opener
            ));
        }
        if !matches!(self.theme.as_str(), "system" | "light" | "dark") {
            return Err(format!(
                "theme must be \"system\", \"light\" or \"dark\", not {:?}",
                self.theme
            ));
        }
        if !matches!(self.mcp_questions.as_str(), "porthole" | "agent") {
            return Err(format!(
                "mcpQuestions must be \"porthole\" or \"agent\", not {:?}",
                self.mcp_questions
            ));
        }
        if self.mcp_registries.len() > MAX_REGISTRIES {
            return Err(format!("at most {MAX_REGISTRIES} MCP registries"));
        }
        for base in &self.mcp_registries {
            porthole_mcp_registry::Registry::new(base, None).map_err(|e| e.to_string())?;
        }
        for (agent, protocol) in &self.agent_protocols {
            protocol_choice(protocol).map_err(|e| format!("agentProtocols[{agent:?}]: {e}"))?;
        }
        use porthole_companion::preference::WhoAnswers;
        if !WhoAnswers::VALUES.contains(&self.editor_questions.as_str()) {
            return Err(format!(
                "editorQuestions must be \"editor\", \"porthole\" or \"ask\", not {:?}",
                self.editor_questions
            ));
        }
        if let Some((agent, who)) = (self.editor_questions_by_agent.iter())
            .find(|(_, who)| !WhoAnswers::ANSWERS.contains(&who.as_str()))
        {
            return Err(format!(
                "editorQuestionsByAgent[{agent:?}] must be \"editor\" or \"porthole\", not {who:?}"
            ));
        }
        Ok(())
    }

    /// The ACP version agent `agent_id`'s connection asks for (`agentProtocols`, else auto).
    pub fn protocol_of(&self, agent_id: &str) -> porthole_core::ProtocolChoice {
        self.agent_protocols
            .get(agent_id)
            .and_then(|p| protocol_choice(p).ok())
            .unwrap_or_default()
    }

    pub fn modes(&self) -> porthole_core::Modes {
        porthole_core::Modes {
            form: self.form_mode,
            url: self.url_mode,
        }
    }
}

/// An `agentProtocols` value: exactly "auto", "1" or "2" (core also reads "v1" and "v2" on
/// its command line; the file keeps one spelling).
pub fn protocol_choice(value: &str) -> Result<porthole_core::ProtocolChoice, String> {
    match value {
        "auto" | "1" | "2" => value.parse(),
        other => Err(format!(
            "the ACP version must be \"auto\", \"1\" or \"2\", not {other:?}"
        )),
    }
}

/// `~/.config/porthole/settings.json` (or `PORTHOLE_SETTINGS_FILE`): where editors' proxies
/// read `editorQuestions` too, so the path is defined once, in porthole-companion.
pub fn default_path() -> Option<PathBuf> {
    porthole_companion::preference::settings_path()
}

/// The settings, and a message when the file could not be used.
pub fn load(path: &Path) -> (Settings, Option<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Settings::default(), None),
        Err(e) => {
            return (
                Settings::default(),
                Some(format!("cannot read {}: {e}", path.display())),
            );
        }
    };
    match serde_json::from_str::<Settings>(&text) {
        Ok(s) => match s.check() {
            Ok(()) => (s, None),
            Err(e) => (
                Settings::default(),
                Some(format!("{}: {e}; using defaults", path.display())),
            ),
        },
        Err(e) => (
            Settings::default(),
            Some(format!(
                "{} is not valid settings JSON ({e}); using defaults",
                path.display()
            )),
        ),
    }
}

/// Write atomically: a crash mid-save leaves the old file.
pub fn save(path: &Path, settings: &Settings) -> Result<(), String> {
    settings.check()?;
    let dir = path.parent().ok_or("the settings path has no directory")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let text = serde_json::to_string_pretty(settings).map_err(|e| e.to_string())?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_gives_defaults_and_saved_settings_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("settings.json");
        assert_eq!(load(&path), (Settings::default(), None));
        let s = Settings {
            url_mode: false,
            theme: "dark".into(),
            ..Settings::default()
        };
        save(&path, &s).unwrap();
        assert_eq!(load(&path), (s, None));
    }

    #[test]
    fn the_mcp_registries_are_checked_as_registry_addresses() {
        let with = |list: &[&str]| Settings {
            mcp_registries: list.iter().map(|s| s.to_string()).collect(),
            ..Settings::default()
        };
        assert_eq!(
            Settings::default().mcp_registries,
            [porthole_mcp_registry::OFFICIAL]
        );
        assert!(
            with(&["https://mcp.example.org/registry", "http://127.0.0.1:8765"])
                .check()
                .is_ok()
        );
        // Plain http to another computer, a query, not a URL: refused, as the CLI refuses them.
        for bad in [
            "http://mcp.example.org",
            "https://mcp.example.org/?q=1",
            "registry",
        ] {
            assert!(with(&[bad]).check().is_err(), "{bad}");
        }
        assert!(
            with(&["https://mcp.example.org"; 9]).check().is_err(),
            "at most 8"
        );
    }

    #[test]
    fn a_broken_file_falls_back_with_a_message_and_bad_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{not json").unwrap();
        let (s, problem) = load(&path);
        assert_eq!(s, Settings::default());
        assert!(problem.unwrap().contains("not valid settings JSON"));
        std::fs::write(&path, r#"{"theme":"neon"}"#).unwrap();
        assert!(load(&path).1.unwrap().contains("theme"));
        let bad = Settings {
            url_opener: "telnet".into(),
            ..Settings::default()
        };
        assert!(save(&path, &bad).is_err());
        // Partial files keep the defaults for what they omit.
        std::fs::write(&path, r#"{"notifications":false}"#).unwrap();
        let (s, problem) = load(&path);
        assert!(problem.is_none());
        assert!(!s.notifications && s.form_mode && s.url_opener == "sealed");
    }

    #[test]
    fn each_agents_acp_version_is_auto_1_or_2_and_a_bad_one_is_refused_by_name() {
        use porthole_core::ProtocolChoice;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let mut s = Settings::default();
        assert_eq!(s.protocol_of("claude"), ProtocolChoice::Auto);
        s.agent_protocols.insert("claude".into(), "1".into());
        s.agent_protocols.insert("codex".into(), "2".into());
        s.agent_protocols.insert("gemini".into(), "auto".into());
        save(&path, &s).unwrap();
        let (loaded, problem) = load(&path);
        assert!(problem.is_none(), "{problem:?}");
        assert_eq!(loaded.protocol_of("claude"), ProtocolChoice::V1);
        assert_eq!(loaded.protocol_of("codex"), ProtocolChoice::V2);
        assert_eq!(loaded.protocol_of("gemini"), ProtocolChoice::Auto);
        assert_eq!(loaded.protocol_of("goose"), ProtocolChoice::Auto);
        for bad in ["3", "v2", "", "Auto"] {
            let mut wrong = Settings::default();
            wrong.agent_protocols.insert("claude".into(), bad.into());
            let e = save(&path, &wrong).unwrap_err();
            assert!(
                e.contains("agentProtocols[\"claude\"]") && e.contains("\"auto\", \"1\" or \"2\""),
                "{e}"
            );
        }
        std::fs::write(&path, r#"{"agentProtocols": {"claude": 2}}"#).unwrap();
        assert!(load(&path).1.unwrap().contains("not valid settings JSON"));
        std::fs::write(&path, r#"{"agentProtocols": {"claude": "two"}}"#).unwrap();
        assert!(load(&path).1.unwrap().contains("agentProtocols"));
    }

    /// Who answers an editor's agent's questions is saved here and read by the proxy there.
    #[test]
    fn the_proxy_reads_who_answers_from_the_saved_settings() {
        use porthole_companion::preference::{WhoAnswers, read};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        assert_eq!(Settings::default().editor_questions, "editor");
        let s = Settings {
            editor_questions: "porthole".into(),
            ..Settings::default()
        };
        save(&path, &s).unwrap();
        assert_eq!(read(Some(&path), "claude"), WhoAnswers::Porthole);
        save(&path, &Settings::default()).unwrap();
        assert_eq!(read(Some(&path), "claude"), WhoAnswers::Editor);
        let bad = Settings {
            editor_questions: "someone".into(),
            ..Settings::default()
        };
        assert!(save(&path, &bad).is_err());
        // Asked once per agent: each agent's answer is kept.
        let mut asking = Settings {
            editor_questions: "ask".into(),
            ..Settings::default()
        };
        asking
            .editor_questions_by_agent
            .insert("claude".into(), "porthole".into());
        save(&path, &asking).unwrap();
        assert_eq!(read(Some(&path), "claude"), WhoAnswers::Porthole);
        assert_eq!(read(Some(&path), "codex"), WhoAnswers::Ask);
        asking
            .editor_questions_by_agent
            .insert("codex".into(), "maybe".into());
        assert!(save(&path, &asking).is_err());
    }
}
