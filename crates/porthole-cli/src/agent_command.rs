//! Which agent to run: a configured or installed agent named by `--agent` (with the sign-in
//! values the window saved for it), else the value as a command line.

use std::path::PathBuf;

use porthole_core::AgentCommand;

use crate::agents;
use crate::args::Args;
use crate::term::note;

/// A configured or installed agent by id or name (with the sign-in values the window saved for
/// it in the OS keyring) and its id, else the value as a command line.
pub(crate) fn resolve_agent(args: &Args) -> Result<(AgentCommand, Option<String>), String> {
    let (mut command, profile_id) = resolve_agent_command(args)?;
    if let Some(id) = &profile_id {
        add_saved_sign_in(id, &mut command);
    }
    Ok((command, profile_id))
}

/// Values saved in the OS keyring by the window's sign-in for agent `id`, added to its
/// environment unless this process's environment already sets them (an explicit value wins).
fn add_saved_sign_in(id: &str, command: &mut AgentCommand) {
    use porthole_profiles::secrets::{self, AgentSecrets};
    let Some(index) = AgentSecrets::default_index_path() else {
        return;
    };
    // No keyring is opened for an agent without saved values.
    if !secrets::stored_names(&index).is_ok_and(|names| names.contains_key(id)) {
        return;
    }
    match AgentSecrets::os(index).and_then(|s| s.env_for(id)) {
        Ok(values) => command.env.extend(
            values
                .into_iter()
                .filter(|(name, _)| std::env::var_os(name).is_none_or(|v| v.is_empty())),
        ),
        Err(e) => note!("porthole-cli: the saved sign-in values of `{id}` are not used: {e}"),
    }
}

/// The agent's command, and its profile id when it is a configured or installed agent.
fn resolve_agent_command(args: &Args) -> Result<(AgentCommand, Option<String>), String> {
    use porthole_profiles::agents_config;
    let path = args.agents_file.clone().or_else(agents_config::default_path);
    if let Some(path) = path {
        let config = agents_config::load(&path).map_err(|e| e.to_string())?;
        if let Some(profile) = config
            .agents
            .iter()
            .find(|a| a.id == args.agent || a.name == args.agent)
        {
            return Ok((agents::command_of(profile), Some(profile.id.clone())));
        }
        if let Some((command, id)) = agents::installed_command(&args.agent) {
            return Ok((command, Some(id)));
        }
        if args.agents_file.is_some() && !args.agent.contains(char::is_whitespace) {
            let names: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
            if !std::path::Path::new(&args.agent).exists() && which(&args.agent).is_none() {
                return Err(format!(
                    "`{}` is neither a configured agent ({}) nor a program",
                    args.agent,
                    names.join(", ")
                ));
            }
        }
    }
    AgentCommand::parse(&args.agent).map(|c| (c, None))
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}
