//! Which agents the app knows: the built-in demo agent, the one named on the command line
//! (or `PORTHOLE_AGENT`), those in the agents settings file, and those installed from the ACP
//! registry.

use std::path::{Path, PathBuf};

use porthole_profiles::agents_config::{self, AgentProfile};
use serde::Serialize;

/// An agent the user can connect to, as the UI shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS), ts(rename = "AgentProfile"))]
pub struct Profile {
    pub id: String,
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: std::collections::BTreeMap<String, String>,
    pub built_in: bool,
    /// Installed from the ACP registry: its registry id and version.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(any(test, feature = "ts"), ts(optional))]
    pub registry: Option<RegistryInfo>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct RegistryInfo {
    pub id: String,
    pub version: String,
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

    /// `registry_id`: the id in the registry, for an installed agent (its profile id may differ
    /// when a configured agent already has that id).
    pub fn from_config(p: AgentProfile, registry_id: Option<&str>) -> Self {
        Self {
            registry: p.registry.as_ref().map(|mark| RegistryInfo {
                id: registry_id.unwrap_or(&p.id).to_string(),
                version: mark.version.clone(),
            }),
            id: p.id,
            name: p.name,
            command: p.command,
            args: p.args,
            env: p.env,
            built_in: false,
        }
    }
}

/// The configured agents (agents.json) followed by the installed ones, with unique ids.
pub fn configured_and_installed(
    config: agents_config::AgentsConfig,
    installed: Vec<porthole_registry::InstalledAgent>,
) -> Vec<Profile> {
    let configured = config.agents.len();
    let registry_ids: Vec<String> = installed.iter().map(|i| i.id.clone()).collect();
    let mut config = config;
    porthole_registry::merge_profiles(&mut config, installed.iter().map(|i| i.to_profile()).collect());
    config
        .agents
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let registry_id = i.checked_sub(configured).map(|k| registry_ids[k].as_str());
            Profile::from_config(p, registry_id)
        })
        .collect()
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
    /// The sealed view's program and arguments; `None`: `<this executable> sealed-view`.
    /// (The app model's tests put a script that speaks its lifecycle lines in its place.)
    pub sealed_view: Option<(PathBuf, Vec<String>)>,
}

pub const DEMO_ID: &str = "demo";

/// Where the packages install the demo agent's own binary, beside the app's (`/usr/bin/porthole`
/// -> `/usr/lib/porthole/porthole-demo-agent`; `scripts/package` puts it there). That binary
/// maps neither GTK nor WebKit: ~3 MB of memory where the app's `demo-agent` mode holds ~55 MB,
/// all day beside an editor (issue 34). A build in a checkout has no such file and runs the
/// mode, so a demo agent older than the app is never started.
const INSTALLED_DEMO_AGENT: &str = "lib/porthole/porthole-demo-agent";

/// The demo agent's command line: the installed small binary when there is one, else this
/// binary's `demo-agent` mode.
fn demo_agent_command(exe: &Path) -> (PathBuf, Vec<String>) {
    let installed = exe
        .parent()
        .and_then(Path::parent)
        .map(|prefix| prefix.join(INSTALLED_DEMO_AGENT));
    match installed {
        Some(path) if path.is_file() => (path, Vec::new()),
        _ => (exe.to_path_buf(), vec!["demo-agent".into()]),
    }
}
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
        let (demo_command, demo_args) = demo_agent_command(&exe);
        let mut profiles = vec![Profile {
            id: DEMO_ID.into(),
            name: "Demo agent".into(),
            command: demo_command.display().to_string(),
            args: demo_args,
            env: Default::default(),
            built_in: true,
            registry: None,
        }];

        let settings_path = std::env::var_os("PORTHOLE_AGENTS_FILE")
            .map(PathBuf::from)
            .or_else(agents_config::default_path);
        let (user_agents, settings_error) = user_agents(settings_path.as_deref());
        profiles.extend(user_agents);

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
                            registry: None,
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
            sealed_view: None,
        })
    }
}

/// The agents of the settings file and the installed ones, and what went wrong reading them.
pub fn user_agents(settings_path: Option<&std::path::Path>) -> (Vec<Profile>, Option<String>) {
    let mut problems = Vec::new();
    let config = match settings_path.map(agents_config::load) {
        Some(Ok(config)) => {
            problems.extend(config.problems.iter().cloned());
            config
        }
        Some(Err(e)) => {
            problems.push(e.to_string());
            Default::default()
        }
        None => Default::default(),
    };
    let installed = porthole_registry::Installer::from_env()
        .and_then(|installer| installer.installed())
        .unwrap_or_else(|e| {
            problems.push(format!("installed agents: {e}"));
            Vec::new()
        });
    let problems = (!problems.is_empty()).then(|| problems.join("\n"));
    (configured_and_installed(config, installed), problems)
}

#[cfg(test)]
mod demo_agent_tests {
    use super::*;

    #[test]
    fn the_installed_demo_agent_binary_is_preferred_to_the_apps_own_mode() {
        let prefix = tempfile::tempdir().unwrap();
        let exe = prefix.path().join("bin/porthole");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "").unwrap();
        // A checkout's build: nothing installed beside it, so the app's own mode.
        assert_eq!(
            demo_agent_command(&exe),
            (exe.clone(), vec!["demo-agent".to_string()])
        );

        let installed = prefix.path().join("lib/porthole/porthole-demo-agent");
        std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
        std::fs::write(&installed, "").unwrap();
        assert_eq!(demo_agent_command(&exe), (installed, Vec::new()));
    }
}
