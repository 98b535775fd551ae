//! `porthole proxy [--always] -- AGENT [ARGS...]`: the proxy's command line, shared by the
//! app's `proxy` subcommand and the standalone `porthole-proxy`.

use crate::launcher::Launcher;
use crate::relay::{ProxyOptions, run_proxy};

pub const USAGE: &str = "usage: porthole proxy [--always] -- AGENT [ARGS...]\n\
  Runs AGENT for an ACP editor and answers its elicitations (forms, sign-in links) in\n\
  Porthole's window when the editor cannot. --always: even when the editor can.";

/// Parse the arguments after `proxy`: `Err` is the usage message.
pub fn parse(args: &[String]) -> Result<(bool, Vec<String>), String> {
    let mut always = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--always" => always = true,
            "--" => return agent(always, rest.cloned().collect()),
            "-h" | "--help" => return Err(USAGE.into()),
            a if a.starts_with('-') => return Err(format!("unknown option `{a}`\n{USAGE}")),
            _ => {
                let mut agent_args = vec![arg.clone()];
                agent_args.extend(rest.cloned());
                return agent(always, agent_args);
            }
        }
    }
    Err(USAGE.into())
}

fn agent(always: bool, command: Vec<String>) -> Result<(bool, Vec<String>), String> {
    if command.is_empty() {
        Err(format!("no agent command\n{USAGE}"))
    } else {
        Ok((always, command))
    }
}

/// Run the proxy on this process's stdin and stdout; returns the exit code.
/// `launcher` starts the app when none runs (`None`: look for it, see [`Launcher::find`]).
pub fn main(args: &[String], launcher: Option<Launcher>) -> i32 {
    let (always, command) = match parse(args) {
        Ok(parsed) => parsed,
        Err(usage) => {
            eprintln!("{usage}");
            return 2;
        }
    };
    let mut opts = ProxyOptions::new(command);
    opts.always = always;
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
            (true, args(&["npx", "-y", "x", "--acp"]))
        );
        assert_eq!(
            parse(&args(&["gemini", "--acp"])).unwrap(),
            (false, args(&["gemini", "--acp"]))
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
