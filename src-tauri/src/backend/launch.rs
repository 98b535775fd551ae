//! Which agents the app knows: the built-in demo agent, the one named on the command line
//! (or `PORTHOLE_AGENT`), and those in the agents settings file.

use std::path::PathBuf;

use porthole_core::agents_config::{self, AgentProfile};
use serde::Serialize;

/// An agent the user can connect to, as the UI shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: String,
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: std::collections::BTreeMap<String, String>,
    pub built_in: bool,
}

impl Profile {
    pub fn to_command(&self, cwd: PathBuf) -> porthole_core::AgentCommand {
        porthole_core::AgentCommand {
            program: self.command.clone(),
            args: self.args.clone(),
            env: self.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            cwd: Some(cwd),
        }
    }

    fn from_config(p: AgentProfile) -> Self {
        Self {
            id: p.id,
            name: p.name,
            command: p.command,
            args: p.args,
            env: p.env,
            built_in: false,
        }
    }
}

/// What to launch and where, decided once at start-up.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The agent connected at start-up.
    pub default_agent: String,
    pub profiles: Vec<Profile>,
    pub cwd: PathBuf,
    pub settings_path: Option<PathBuf>,
    pub settings_error: Option<String>,
}

pub const DEMO_ID: &str = "demo";
pub const COMMAND_LINE_ID: &str = "command-line";

impl Launch {
    /// `--agent` wins, then `PORTHOLE_AGENT`, then the demo agent embedded in this binary.
    /// `--agent` may also name an agent of the settings file.
    pub fn from_args(agent: Option<&str>, cwd: Option<PathBuf>) -> Result<Self, String> {
        let cwd = match cwd {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?,
        };
        let cwd = cwd
            .canonicalize()
            .map_err(|e| format!("--cwd {}: {e}", cwd.display()))?;
        if !cwd.is_dir() {
            return Err(format!("--cwd {} is not a directory", cwd.display()));
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find the porthole binary: {e}"))?;
        let mut profiles = vec![Profile {
            id: DEMO_ID.into(),
            name: "Demo agent".into(),
            command: exe.display().to_string(),
            args: vec!["demo-agent".into()],
            env: Default::default(),
            built_in: true,
        }];

        let settings_path = std::env::var_os("PORTHOLE_AGENTS_FILE")
            .map(PathBuf::from)
            .or_else(agents_config::default_path);
        let mut settings_error = None;
        if let Some(path) = &settings_path {
            match agents_config::load(path) {
                Ok(config) => {
                    if !config.problems.is_empty() {
                        settings_error = Some(config.problems.join("\n"));
                    }
                    profiles.extend(config.agents.into_iter().map(Profile::from_config));
                }
                Err(e) => settings_error = Some(e.to_string()),
            }
        }

        let from_env = std::env::var("PORTHOLE_AGENT")
            .ok()
            .filter(|s| !s.trim().is_empty());
        let default_agent = match agent.map(str::to_string).or(from_env) {
            None => DEMO_ID.to_string(),
            Some(wanted) => match profiles.iter().find(|p| p.id == wanted || p.name == wanted) {
                Some(p) => p.id.clone(),
                None => {
                    let command = porthole_core::AgentCommand::parse(&wanted)?;
                    profiles.insert(
                        1,
                        Profile {
                            id: COMMAND_LINE_ID.into(),
                            name: wanted.clone(),
                            command: command.program,
                            args: command.args,
                            env: Default::default(),
                            built_in: false,
                        },
                    );
                    COMMAND_LINE_ID.to_string()
                }
            },
        };
        Ok(Self {
            default_agent,
            profiles,
            cwd,
            settings_path,
            settings_error,
        })
    }

    pub fn profile(&self, id: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.id == id)
    }
}
