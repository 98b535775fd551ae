//! porthole-cli: a headless front end over porthole-core, for agent authors and tests.
//! It answers every dialog by a fixed policy and prints events (JSON lines with `--json`).

// Every human line goes through `term` (its say!/note! macros); a raw print would skip it.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agent_command;
mod agents;
mod args;
mod json_line;
mod mcp;
mod mcp_apps;
mod mcp_live;
mod mcp_questions;
mod mcp_registry;
mod output;
mod policy;
mod session;
mod sign_in;
mod term;
mod turns;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use porthole_core::{AgentClient, AgentCommand, ClientOptions, Workspace};
use term::note;

use crate::agent_command::resolve_agent;
use crate::args::Args;
use crate::session::open_session;
use crate::sign_in::{OpenError, print_sign_in_hint};
use crate::turns::{Reader, run_prompts};

/// Warnings and errors to the log file (and stderr with `--verbose`): core's one set-up.
pub(crate) fn start_logging(verbose: bool) {
    let logging = porthole_core::logging::init("porthole-cli", verbose);
    if let (true, Some(problem)) = (verbose, logging.problem) {
        note!("porthole-cli: {}", term::line(&problem));
    }
}

fn main() -> ExitCode {
    // `agents ...` is its own command line; anything else is the agent runner's.
    if std::env::args_os().nth(1).is_some_and(|a| a == "agents") {
        return agents::main(std::env::args_os().skip(1));
    }
    // `mcp ...`: the MCP connections every agent gets.
    if std::env::args_os().nth(1).is_some_and(|a| a == "mcp") {
        start_logging(false);
        return mcp::main(std::env::args_os().skip(1));
    }
    let mut args = Args::parse();
    start_logging(args.verbose);
    // Absolute and real, as the spec wants each additional folder; a missing one is a usage error.
    for dir in &mut args.add_dirs {
        match dir.canonicalize() {
            Ok(real) if real.is_dir() => *dir = real,
            _ => {
                note!("porthole-cli: --add-dir {} is not a directory", dir.display());
                return ExitCode::from(2);
            }
        }
    }
    let answers = match policy::load_answers(args.answers.as_deref()) {
        Ok(a) => a,
        Err(e) => {
            note!("porthole-cli: {e}");
            return ExitCode::from(2);
        }
    };
    let cwd = match args.cwd.clone().map(Ok).unwrap_or_else(std::env::current_dir) {
        Ok(dir) => match dir.canonicalize() {
            Ok(dir) if dir.is_dir() => dir,
            _ => {
                note!("porthole-cli: --cwd {} is not a directory", dir.display());
                return ExitCode::from(2);
            }
        },
        Err(e) => {
            note!("porthole-cli: cannot determine the working directory: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut command, profile) = match resolve_agent(&args) {
        Ok(c) => c,
        Err(e) => {
            note!("porthole-cli: --agent: {e}");
            return ExitCode::from(2);
        }
    };
    command.cwd = Some(cwd.clone());
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            note!("porthole-cli: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(args, command, profile, cwd, answers))
}

/// The MCP connections `--mcp` / `--mcp-all` hand the agent (after `initialize`, whose
/// `mcpCapabilities` decide how each is reached). Skipped ones are named with why.
async fn hand_connections(
    args: &Args,
    profile: Option<&str>,
    client: &AgentClient,
    questions: Arc<mcp_questions::CliQuestions>,
    apps: Option<mcp_apps::Shared>,
    cwd: &std::path::Path,
) -> Result<Option<mcp_live::Session>, String> {
    if args.mcp.is_empty() && !args.mcp_all {
        return Ok(None);
    }
    let path = args
        .connections_file
        .clone()
        .or_else(porthole_connections::list::default_path)
        .ok_or("no config folder for the MCP connections file; give --connections-file")?;
    let chosen = mcp_live::select(&path, &args.mcp, args.mcp_all, profile)?;
    let offered = client.mcp_transports();
    let caps = porthole_connections::handoff::AgentMcp {
        stdio: offered.stdio,
        http: offered.http,
        sse: offered.sse,
    };
    // The connections' questions are answered by the run's policy, as the agent's are.
    let owner = porthole_connections::gateway::PassOwner {
        agent: client.agent().display_name(),
        questions: Some(questions),
        url_wait: std::time::Duration::from_secs(args.url_wait),
        over_agent: args.mcp_questions == args::McpQuestions::Porthole,
        apps: apps.map(|a| a as Arc<dyn porthole_connections::gateway::Apps>),
        // The session's directory: the stdio servers the gateway starts run there.
        cwd: Some(cwd.to_path_buf()),
    };
    let session = mcp_live::Session::open(&chosen, Some(caps), owner).await?;
    for (name, why) in &session.handed.skipped {
        note!(
            "porthole-cli: MCP connection `{name}` is not handed to the agent: {}",
            term::line(why)
        );
    }
    Ok(Some(session))
}

async fn run(
    args: Args,
    command: AgentCommand,
    profile: Option<String>,
    cwd: PathBuf,
    answers: serde_json::Map<String, serde_json::Value>,
) -> ExitCode {
    let out = output::Output::new(args.json);
    let opts = ClientOptions {
        modes: args.modes,
        client_name: "porthole-cli".into(),
        // Agents then list their terminal sign-in methods, which the CLI names (see
        // print_sign_in_hint).
        terminal_auth: true,
        init_timeout: std::time::Duration::from_secs(args.init_timeout),
        protocol: args.protocol,
        ..ClientOptions::default()
    };
    let (client, events) = match AgentClient::start(command.clone(), opts).await {
        Ok(started) => started,
        Err(e) => {
            note!(
                "porthole-cli: agent `{}` failed to start: {}",
                term::line(&command.display()),
                term::line(&e.to_string())
            );
            return ExitCode::FAILURE;
        }
    };
    out.initialized(&client);
    let policy = policy::Policy {
        elicit: args.elicit,
        permission: args.permission,
        files_outside: args.allow_files_outside,
        answers,
    };
    let questions = mcp_questions::CliQuestions::new(policy.clone(), args.json, &client);
    // Kept until the run ends: the gateway and the session's pass live as long as this does.
    // MCP Apps: the calls the gateway sees finish, printed as the reader matches them.
    let apps = (args.mcp_apps == args::McpApps::On).then(|| Arc::new(mcp_apps::CliApps::default()));
    let mcp = match hand_connections(
        &args,
        profile.as_deref(),
        &client,
        questions.clone(),
        apps.clone(),
        &cwd,
    )
    .await
    {
        Ok(handed) => handed,
        Err(e) => {
            note!("porthole-cli: {}", term::line(&e));
            client.shutdown().await;
            return ExitCode::from(2);
        }
    };
    let mcp_servers = mcp.as_ref().map(mcp_live::Session::servers).unwrap_or_default();
    let mut reader = Reader {
        client: &client,
        events,
        out: &out,
        policy: &policy,
        discarded: std::cell::Cell::new(0),
        apps: apps.map(|a| (a, std::cell::RefCell::default())),
        questions: questions.clone(),
    };
    let mut signed_in = None;
    // Dialogs are answered while the session opens too: an agent may ask during `authenticate`
    // (Codex's device-code sign-in is a URL elicitation scoped to it) or `session/new`, and
    // waits for the answer before it answers the request.
    let opened = {
        let open = open_session(
            &args,
            &client,
            &out,
            Workspace::new(cwd, args.add_dirs.clone()).with_mcp_servers(mcp_servers),
            &command,
            profile.as_deref(),
            &mut signed_in,
        );
        tokio::pin!(open);
        let mut events_open = true;
        loop {
            tokio::select! {
                opened = &mut open => break opened,
                event = reader.events.recv(), if events_open => match event {
                    Some(event) => {
                        if let Err(code) = reader.passive(&event, "while the session opened") {
                            client.shutdown().await;
                            return code;
                        }
                    }
                    None => events_open = false,
                },
            }
        }
    };
    // Lines of events read while it opened may still wait for more (see `Output::event`).
    out.flush();
    if let (Ok(Some(_)), Some(signed_in), Some(profile)) = (&opened, &signed_in, &profile) {
        signed_in.save(profile);
    }
    if let Ok(Some(id)) = &opened {
        questions.session_opened(id);
    }
    match opened {
        Ok(Some(id)) => run_prompts(&args, reader, id, (&command, signed_in.as_ref())).await,
        Ok(None) => {
            client.shutdown().await;
            reader.success()
        }
        Err(OpenError::Usage(e)) => {
            note!("porthole-cli: {}", term::line(&e));
            client.shutdown().await;
            ExitCode::from(2)
        }
        Err(OpenError::Failed(e)) => {
            note!("porthole-cli: {}", term::line(&e));
            let tail = client.stderr_tail();
            let lines: Vec<&str> = tail.trim().lines().collect();
            if !lines.is_empty() {
                note!("porthole-cli: the agent's last stderr lines:");
                for line in &lines[lines.len().saturating_sub(12)..] {
                    note!("  {}", term::line(line));
                }
            }
            if e.contains("auth_required") || e.contains("uthentication required") {
                print_sign_in_hint(&client, &command, signed_in.as_ref());
            }
            client.shutdown().await;
            ExitCode::FAILURE
        }
    }
}
