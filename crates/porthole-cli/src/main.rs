//! porthole-cli: a headless front end over porthole-core, for agent authors and tests.
//! It answers every dialog by a fixed policy and prints events (JSON lines with `--json`).

// Every human line goes through `term` (its say!/note! macros); a raw print would skip it.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agents;
mod output;
mod policy;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use porthole_core::{AgentClient, AgentCommand, ClientOptions, Event, Modes};
use term::note;

#[derive(Parser, Debug)]
#[command(
    name = "porthole-cli",
    version,
    about = "Run an ACP agent headless and script its elicitations",
    after_help = "Agents from the ACP registry: porthole-cli agents list|available|install ID|update|remove ID (see porthole-cli agents --help)"
)]
pub struct Args {
    /// The agent's command line, e.g. 'npx -y @agentclientprotocol/claude-agent-acp', or the
    /// name or id of an agent in the agents settings file.
    #[arg(long)]
    agent: String,
    /// The agents settings file (Zed's `agent_servers` shape); default ~/.config/porthole/agents.json.
    #[arg(long, value_name = "FILE")]
    agents_file: Option<PathBuf>,
    /// Working directory of the session (and the only folder fs requests may touch).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Elicitation modes to advertise: form,url | form | url | none.
    #[arg(long, default_value = "form,url", value_parser = parse_modes)]
    modes: Modes,
    /// How to answer elicitations.
    #[arg(long, value_enum, default_value_t = ElicitPolicy::Decline)]
    elicit: ElicitPolicy,
    /// JSON object of property -> value, overlaid on form defaults when accepting.
    #[arg(long)]
    answers: Option<PathBuf>,
    /// How to answer permission requests (reject is the fallback when an option is missing).
    #[arg(long, value_enum, default_value_t = PermissionPolicy::Reject)]
    permission: PermissionPolicy,
    /// Allow fs requests for files outside --cwd (denied by default).
    #[arg(long)]
    allow_files_outside: bool,
    /// Call `authenticate` with this advertised method before opening the session.
    #[arg(long, value_name = "METHOD_ID")]
    auth: Option<String>,
    /// Load this earlier session (`session/load`, history replayed) instead of a new one.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "resume")]
    load: Option<String>,
    /// Resume this earlier session (`session/resume`, no replay) instead of a new one.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "fork")]
    resume: Option<String>,
    /// Fork this session (`session/fork`, when the agent advertises it; one of its stored
    /// sessions, see --list-sessions) and prompt in the fork.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "load")]
    fork: Option<String>,
    /// Switch the session to this model (`session/set_model`, when the agent offers models).
    #[arg(long, value_name = "MODEL_ID")]
    model: Option<String>,
    /// Print the agent's sessions (`session/list`, all pages) and exit.
    #[arg(long, conflicts_with_all = ["load", "resume"])]
    list_sessions: bool,
    /// Switch the session to this mode (`session/set_mode`) before the prompts.
    #[arg(long, value_name = "MODE_ID")]
    mode: Option<String>,
    /// Cancel each turn (`session/cancel`) after its N-th session update; the turn must still
    /// end, with stop reason `cancelled`. For testing an agent's cancellation.
    #[arg(long, value_name = "N")]
    cancel_after_updates: Option<u64>,
    /// Seconds to wait for the agent's answer to `initialize`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    init_timeout: u64,
    /// One JSON object per line on stdout.
    #[arg(long)]
    json: bool,
    /// Prompts to send, one turn each, in order.
    prompts: Vec<String>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ElicitPolicy {
    Decline,
    Cancel,
    Accept,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PermissionPolicy {
    Reject,
    AllowOnce,
    AllowAlways,
}

fn parse_modes(s: &str) -> Result<Modes, String> {
    Modes::parse(s)
}

fn main() -> ExitCode {
    // `agents ...` is its own command line; anything else is the agent runner's.
    if std::env::args_os().nth(1).is_some_and(|a| a == "agents") {
        return agents::main(std::env::args_os().skip(1));
    }
    let args = Args::parse();
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
    let mut command = match resolve_agent(&args) {
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
    runtime.block_on(run(args, command, cwd, answers))
}

/// A configured or installed agent by id or name (with the sign-in values the window saved for
/// it in the OS keyring), else the value as a command line.
fn resolve_agent(args: &Args) -> Result<AgentCommand, String> {
    let (mut command, profile_id) = resolve_agent_command(args)?;
    if let Some(id) = profile_id {
        add_saved_sign_in(&id, &mut command);
    }
    Ok(command)
}

/// Values saved in the OS keyring by the window's sign-in for agent `id`, added to its
/// environment unless this process's environment already sets them (an explicit value wins).
fn add_saved_sign_in(id: &str, command: &mut AgentCommand) {
    use porthole_core::secrets::{self, AgentSecrets};
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
    use porthole_core::agents_config;
    let path = args.agents_file.clone().or_else(agents_config::default_path);
    if let Some(path) = path {
        let config = agents_config::load(&path).map_err(|e| e.to_string())?;
        if let Some(profile) = config
            .agents
            .iter()
            .find(|a| a.id == args.agent || a.name == args.agent)
        {
            return Ok((profile.to_command(None), Some(profile.id.clone())));
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

/// After `auth_required` (when opening a session, or at a turn): how to sign in with each
/// method the agent advertised. A terminal method is the agent's own login command, which
/// the user runs in a terminal (the CLI is not one).
fn print_sign_in_hint(client: &AgentClient, command: &AgentCommand) {
    use porthole_core::acp::v1::schema::AuthMethod;
    let methods = client.auth_methods();
    if methods.is_empty() {
        note!("porthole-cli: the agent needs you to sign in, and advertises no sign-in method");
        return;
    }
    note!("porthole-cli: the agent needs you to sign in; its methods:");
    for m in methods {
        if let Some(env_method) = client
            .env_var_methods()
            .iter()
            .find(|e| e.id == m.id().0.as_ref())
        {
            let vars: Vec<String> = env_method
                .vars
                .iter()
                .map(|v| format!("{} ({})", term::line(&v.name), term::line(&v.label)))
                .collect();
            note!(
                "  {} ({}): set {} in the environment, then run again with --auth {}",
                term::line(&env_method.id),
                term::line(&env_method.name),
                vars.join(", "),
                term::line(&env_method.id)
            );
            continue;
        }
        match m {
            AuthMethod::Terminal(t) => {
                let mut login = AgentCommand {
                    args: command.args.iter().chain(t.args.iter()).cloned().collect(),
                    ..command.clone()
                };
                login.env.clear();
                let env: Vec<String> = t.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                note!(
                    "  {} ({}): in a terminal, run {}{}",
                    term::line(&m.id().0),
                    term::line(m.name()),
                    if env.is_empty() {
                        String::new()
                    } else {
                        format!("{} ", term::line(&env.join(" ")))
                    },
                    term::line(&login.display())
                );
            }
            _ => note!(
                "  {} ({}): run again with --auth {}",
                term::line(&m.id().0),
                term::line(m.name()),
                term::line(&m.id().0)
            ),
        }
    }
}

async fn run(
    args: Args,
    command: AgentCommand,
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
    match open_session(&args, &client, &out, cwd, &command).await {
        Ok(Some(id)) => run_prompts(args, client, events, out, id, answers, &command).await,
        Ok(None) => {
            client.shutdown().await;
            ExitCode::SUCCESS
        }
        Err(e) => {
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
                print_sign_in_hint(&client, &command);
            }
            client.shutdown().await;
            ExitCode::FAILURE
        }
    }
}

/// Authenticate if asked, then list, load, resume or create the session. `None`: nothing to
/// prompt (the listing was the whole job).
async fn open_session(
    args: &Args,
    client: &AgentClient,
    out: &output::Output,
    cwd: PathBuf,
    command: &AgentCommand,
) -> Result<Option<String>, String> {
    if let Some(method) = &args.auth {
        match client.env_var_methods().iter().find(|m| m.id == *method) {
            // An env_var method: the agent was started with the CLI's own environment, so
            // signing in means those variables are set there; nothing is sent.
            Some(env_method) => {
                let missing: Vec<String> = env_method
                    .vars
                    .iter()
                    .filter(|v| !v.optional && std::env::var_os(&v.name).is_none_or(|x| x.is_empty()))
                    // Saved in the OS keyring by the window and set at spawn (add_saved_sign_in).
                    .filter(|v| !command.env.iter().any(|(name, _)| name == &v.name))
                    .map(|v| format!("{} ({})", term::line(&v.name), term::line(&v.label)))
                    .collect();
                if !missing.is_empty() {
                    return Err(format!(
                        "sign-in method `{method}` needs these variables set in the environment: {}",
                        missing.join(", ")
                    ));
                }
            }
            None => client.authenticate(method).await.map_err(|e| e.to_string())?,
        }
    }
    if args.list_sessions {
        let mut cursor = None;
        loop {
            let page = client
                .list_sessions(Some(cwd.clone()), cursor)
                .await
                .map_err(|e| e.to_string())?;
            out.session_listing(&page);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(None),
            }
        }
    }
    let auth_hint = |e: porthole_core::ClientError| {
        if e.is_auth_required() {
            format!("{e} (auth_required)")
        } else {
            e.to_string()
        }
    };
    let opened = match (&args.load, &args.resume, &args.fork) {
        (Some(id), _, _) => client.load_session(id, cwd).await.map_err(auth_hint)?,
        (_, Some(id), _) => client.resume_session(id, cwd).await.map_err(auth_hint)?,
        (_, _, Some(id)) => client.fork_session(id, cwd).await.map_err(auth_hint)?,
        _ => client.open_session(cwd).await.map_err(auth_hint)?,
    };
    let session_id = opened.session_id.clone();
    let mut models = opened.models;
    if let Some(model) = &args.model {
        models = Some(
            client
                .set_model(&session_id, model)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    out.session(&session_id, models.as_ref());
    if let Some(mode) = &args.mode {
        client
            .set_mode(&session_id, mode)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(session_id))
}

async fn run_prompts(
    args: Args,
    client: AgentClient,
    mut events: tokio::sync::mpsc::Receiver<Event>,
    out: output::Output,
    session_id: String,
    answers: serde_json::Map<String, serde_json::Value>,
    command: &AgentCommand,
) -> ExitCode {
    let policy = policy::Policy {
        elicit: args.elicit,
        permission: args.permission,
        files_outside: args.allow_files_outside,
        answers,
    };

    for prompt in &args.prompts {
        if let Err(e) = client.prompt_text(&session_id, prompt) {
            note!(
                "porthole-cli: session/prompt failed: {}",
                term::line(&e.to_string())
            );
            client.shutdown().await;
            return ExitCode::FAILURE;
        }
        let mut updates_seen = 0u64;
        loop {
            let Some(event) = events.recv().await else {
                note!("porthole-cli: the connection closed unexpectedly");
                return ExitCode::FAILURE;
            };
            match &event {
                Event::TurnEnded {
                    session_id: s, error, ..
                } if *s == session_id => {
                    out.event(&event, None);
                    if let Some(error) = error {
                        note!(
                            "porthole-cli: turn failed: {} (code {})",
                            term::line(&error.message),
                            error.code
                        );
                        if error.code == porthole_core::sessions::AUTH_REQUIRED {
                            print_sign_in_hint(&client, command);
                        }
                        client.shutdown().await;
                        return ExitCode::FAILURE;
                    }
                    break;
                }
                Event::AgentExited(info) => {
                    out.event(&event, None);
                    note!(
                        "porthole-cli: the agent exited before the turn ended: {}",
                        porthole_core::client::describe_exit(info)
                    );
                    return ExitCode::FAILURE;
                }
                _ => {
                    let decision = policy.decide(&client, &event);
                    out.event(&event, decision.as_ref());
                    if matches!(&event, Event::SessionUpdate { session_id: s, .. } if *s == session_id) {
                        updates_seen += 1;
                        if args.cancel_after_updates == Some(updates_seen)
                            && let Err(e) = client.cancel(&session_id)
                        {
                            note!(
                                "porthole-cli: session/cancel failed: {}",
                                term::line(&e.to_string())
                            );
                        }
                    }
                }
            }
        }
    }
    client.shutdown().await;
    ExitCode::SUCCESS
}
