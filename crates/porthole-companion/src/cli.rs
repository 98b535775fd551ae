//! `porthole proxy [--always] -- AGENT [ARGS...]`: the proxy's command line, shared by the
//! app's `proxy` subcommand and the standalone `porthole-proxy`.

use crate::launcher::Launcher;
use crate::mcp_hook::ConnectionsHook;
use crate::relay::{ProxyOptions, run_proxy};

pub const USAGE: &str = "usage: porthole proxy [--always] [--connections] -- AGENT [ARGS...]\n\
  Runs AGENT for an ACP editor and answers its elicitations (forms, sign-in links) in\n\
  Porthole's window when the editor cannot. --always: even when the editor can.\n\
  --connections: add your MCP connections (docs/connections.md) to the editor's sessions.";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    pub always: bool,
    pub connections: bool,
    pub agent: Vec<String>,
}

/// Parse the arguments after `proxy`: `Err` is the usage message.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut parsed = Parsed {
        always: false,
        connections: false,
        agent: Vec::new(),
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--always" => parsed.always = true,
            "--connections" => parsed.connections = true,
            "--" => return agent(parsed, rest.cloned().collect()),
            "-h" | "--help" => return Err(USAGE.into()),
            a if a.starts_with('-') => return Err(format!("unknown option `{a}`\n{USAGE}")),
            _ => {
                let mut agent_args = vec![arg.clone()];
                agent_args.extend(rest.cloned());
                return agent(parsed, agent_args);
            }
        }
    }
    Err(USAGE.into())
}

fn agent(mut parsed: Parsed, command: Vec<String>) -> Result<Parsed, String> {
    if command.is_empty() {
        Err(format!("no agent command\n{USAGE}"))
    } else {
        parsed.agent = command;
        Ok(parsed)
    }
}

/// Run the proxy on this process's stdin and stdout; returns the exit code.
/// `launcher` starts the app when none runs (`None`: look for it, see [`Launcher::find`]).
/// `connections` makes the person's MCP connections for `--connections`; `None` (the slim
/// `porthole-proxy`, which does not link them): `--connections` runs `porthole-proxy-connections`
/// in place of this process (`helper.rs`).
pub fn main(args: &[String], launcher: Option<Launcher>, connections: Option<ConnectionsHook>) -> i32 {
    let parsed = match parse(args) {
        Ok(parsed) => parsed,
        Err(usage) => {
            eprintln!("{usage}");
            return 2;
        }
    };
    if parsed.connections && connections.is_none() {
        // Before any thread or runtime: the helper gets this process as it came.
        return crate::helper::exec(args);
    }
    let mut opts = ProxyOptions::new(parsed.agent);
    opts.always = parsed.always;
    opts.connections = connections.filter(|_| parsed.connections);
    if launcher.is_some() {
        opts.launcher = launcher;
    }
    // One thread: the agent is spawned from it, so its parent-death signal is tied to the
    // process, not to a worker thread that may end.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("porthole proxy: {e}");
            return 1;
        }
    };
    let code = runtime.block_on(run_proxy(opts, tokio::io::stdin(), tokio::io::stdout()));
    // The read of the editor's stdin blocks a thread until the editor writes or closes it;
    // when the agent ended first, the proxy exits without waiting for that.
    runtime.shutdown_background();
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_agent_command_follows_the_options() {
        assert_eq!(
            parse(&args(&["--always", "--", "npx", "-y", "x", "--acp"])).unwrap(),
            Parsed {
                always: true,
                connections: false,
                agent: args(&["npx", "-y", "x", "--acp"])
            }
        );
        assert_eq!(
            parse(&args(&["--connections", "gemini", "--acp"])).unwrap(),
            Parsed {
                always: false,
                connections: true,
                agent: args(&["gemini", "--acp"])
            }
        );
        assert!(parse(&args(&["--"])).is_err());
        assert!(
            parse(&args(&["--frob", "--", "a"]))
                .unwrap_err()
                .contains("unknown option `--frob`")
        );
        assert!(parse(&args(&[])).is_err());
    }
}
