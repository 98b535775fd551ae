//! The agents settings file: which agents the user has configured, in the same shape as
//! Zed's `agent_servers` so an entry can be pasted from Zed's settings:
//!
//! ```json
//! { "agent_servers": {
//!     "Claude Code": { "command": "npx", "args": ["-y", "@agentclientprotocol/claude-agent-acp"] },
//!     "Gemini": { "type": "custom", "command": "gemini", "args": ["--acp"], "env": {"X": "1"} } } }
//! ```
//!
//! The file may hold comments and trailing commas (Zed's settings are JSONC): it is read by
//! `crate::jsonc`. Entries without a command (Zed's registry or extension agents) are reported,
//! not silently dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One configured agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentProfile {
    /// Stable id derived from the name (the map key), for the UI and the history.
    pub id: String,
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Set for an agent installed from the ACP registry (by the `porthole-registry` crate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry: Option<RegistryMark>,
}

/// On an [`AgentProfile`] installed from the registry: which version, installed how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryMark {
    pub version: String,
    pub kind: DistributionKind,
}

/// How an agent is installed and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DistributionKind {
    Binary,
    Npx,
    Uvx,
}

impl std::fmt::Display for DistributionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Binary => "binary",
            Self::Npx => "npx",
            Self::Uvx => "uvx",
        })
    }
}

/// What loading the file gave: the usable agents, and a problem per entry that was skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentsConfig {
    pub agents: Vec<AgentProfile>,
    pub problems: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: String },
    #[error("{path} is not valid JSON (comments and trailing commas are fine): {error}")]
    Parse { path: String, error: String },
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    agent_servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<serde_json::Value>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// `~/.config/porthole/agents.json` on Linux (the platform config dir elsewhere).
pub fn default_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("porthole").join("agents.json"))
}

/// A name as an id: lower case, runs of other characters as `-`.
pub fn slug(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            id.extend(c.to_lowercase());
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    let id = id.trim_matches('-').to_string();
    if id.is_empty() { "agent".into() } else { id }
}

/// Parse the settings text. Entries are kept in name order; ids are made unique.
pub fn parse(text: &str, path_for_errors: &str) -> Result<AgentsConfig, ConfigError> {
    let file: File = crate::jsonc::from_str(text).map_err(|e| ConfigError::Parse {
        path: path_for_errors.to_string(),
        error: e.to_string(),
    })?;
    let mut config = AgentsConfig::default();
    for (name, entry) in file.agent_servers {
        if let Some(kind) = entry.kind.as_deref()
            && kind != "custom"
        {
            config.problems.push(format!(
                "`{name}`: agents of type `{kind}` are managed by Zed; give it a `command` to use it here"
            ));
            continue;
        }
        // Zed also accepts `"command": {"path": ..., "args": [...]}` in older settings.
        let (command, args) = match entry.command {
            Some(serde_json::Value::String(c)) if !c.trim().is_empty() => (c, entry.args),
            Some(serde_json::Value::Object(o)) => match o.get("path").and_then(|p| p.as_str()) {
                Some(p) => {
                    let args = o
                        .get("args")
                        .and_then(|a| serde_json::from_value::<Vec<String>>(a.clone()).ok())
                        .unwrap_or(entry.args);
                    (p.to_string(), args)
                }
                None => {
                    config
                        .problems
                        .push(format!("`{name}`: `command.path` is missing"));
                    continue;
                }
            },
            _ => {
                config.problems.push(format!("`{name}`: no `command` to run"));
                continue;
            }
        };
        let mut id = slug(&name);
        let base = id.clone();
        let mut n = 2;
        while config.agents.iter().any(|a| a.id == id) || id == "demo" {
            id = format!("{base}-{n}");
            n += 1;
        }
        config.agents.push(AgentProfile {
            id,
            name,
            command,
            args,
            env: entry.env,
            registry: None,
        });
    }
    Ok(config)
}

/// Load the settings file; a missing file is an empty configuration, not an error.
pub fn load(path: &Path) -> Result<AgentsConfig, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &path.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AgentsConfig::default()),
        Err(e) => Err(ConfigError::Read {
            path: path.display().to_string(),
            error: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_zed_shaped_entries_with_comments_and_trailing_commas() {
        let text = r#"{
            // pasted from Zed
            "agent_servers": {
                "Claude Code": {
                    "type": "custom",
                    "command": "npx",
                    "args": ["-y", "@agentclientprotocol/claude-agent-acp"],
                    "env": {"DEBUG": "1"},
                },
                "Gemini CLI": { "command": "gemini", "args": ["--acp"] },
            },
            "theme": "One Dark",
        }"#;
        let config = parse(text, "agents.json").unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        assert_eq!(config.agents.len(), 2);
        let claude = &config.agents[0];
        assert_eq!(claude.id, "claude-code");
        assert_eq!(claude.command, "npx");
        assert_eq!(claude.args, vec!["-y", "@agentclientprotocol/claude-agent-acp"]);
        assert_eq!(claude.env.get("DEBUG").map(String::as_str), Some("1"));
        assert_eq!(config.agents[1].command, "gemini");
        assert_eq!(config.agents[1].args, vec!["--acp"]);
    }

    #[test]
    fn entries_without_a_command_are_reported_not_dropped_silently() {
        let text = r#"{"agent_servers": {
            "From registry": {"type": "registry"},
            "Empty": {"command": ""},
            "Old style": {"command": {"path": "/usr/bin/agent", "args": ["--stdio"]}},
            "No path": {"command": {"args": []}}
        }}"#;
        let config = parse(text, "f").unwrap();
        assert_eq!(config.agents.len(), 1);
        assert_eq!(config.agents[0].command, "/usr/bin/agent");
        assert_eq!(config.agents[0].args, vec!["--stdio"]);
        assert_eq!(config.problems.len(), 3, "{:?}", config.problems);
        assert!(
            config
                .problems
                .iter()
                .any(|p| p.contains("From registry") && p.contains("registry"))
        );
    }

    #[test]
    fn a_parse_error_names_its_place_with_a_short_excerpt() {
        // One 200 KB line, broken near its end: the message stays short (issue 32: it held
        // the whole line).
        let text = format!(
            r#"{{"agent_servers": {{"A": {{"command": "{}" ! }}}}}}"#,
            "x".repeat(200_000)
        );
        let error = parse(&text, "agents.json").unwrap_err().to_string();
        assert!(
            error.len() < 400,
            "{} bytes: {}",
            error.len(),
            &error[..400.min(error.len())]
        );
        assert!(error.contains("line 1, column "), "{error}");
        // The excerpt is around the place, cut short: the `!` with some of the line before it.
        assert!(
            error.contains("(at `…xxxx") && error.contains("\" ! }"),
            "{error}"
        );
        let error = parse("{\n  \"agent_servers\": [,]\n}", "agents.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 2, column"), "{error}");
    }

    #[test]
    fn ids_are_unique_and_never_the_built_in_demo() {
        let text = r#"{"agent_servers": {"Demo": {"command": "a"}, "demo!": {"command": "b"}, "DEMO": {"command": "c"}}}"#;
        let ids: Vec<String> = parse(text, "f")
            .unwrap()
            .agents
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, vec!["demo-2", "demo-3", "demo-4"]);
    }

    #[test]
    fn missing_file_is_empty_and_bad_json_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agents.json");
        assert_eq!(load(&path).unwrap(), AgentsConfig::default());
        std::fs::write(&path, "{ agent_servers: [ }").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(
            err.contains("agents.json") && err.contains("not valid JSON"),
            "{err}"
        );
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Claude Code (beta)"), "claude-code-beta");
        assert_eq!(slug("!!!"), "agent");
        assert_eq!(slug("Ünïcode Agent"), "ünïcode-agent");
    }
}
