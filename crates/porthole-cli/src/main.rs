//! porthole-cli: a headless front end over porthole-core, for agent authors and tests.
//! It answers every dialog by a fixed policy and prints events (JSON lines with `--json`).

// Every human line goes through `term` (its say!/note! macros); a raw print would skip it.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod agents;
mod json_line;
mod mcp;
mod mcp_live;
mod output;
mod policy;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use porthole_core::{AgentClient, AgentCommand, ClientOptions, Event, Modes, Workspace};
use term::note;

#[derive(Parser, Debug)]
#[command(
    name = "porthole-cli",
    version,
    about = "Run an ACP agent headless and script its elicitations",
    after_help = "Agents from the ACP registry: porthole-cli agents list|available|install ID|update|remove ID (see porthole-cli agents --help)\nMCP connections for every agent: porthole-cli mcp add|import|list|remove|enable|disable (see porthole-cli mcp --help)"
)]
pub struct Args {
    /// The agent's command line, e.g. 'npx -y @agentclientprotocol/claude-agent-acp', or the
    /// name or id of an agent in the agents settings file.
    #[arg(long)]
    agent: String,
    /// The agents settings file (Zed's `agent_servers` shape); default ~/.config/porthole/agents.json.
    #[arg(long, value_name = "FILE")]
    agents_file: Option<PathBuf>,
    /// Working directory of the session (with --add-dir, the only folders fs requests may touch).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Another folder the session works in (`additionalDirectories`, when the agent advertises
    /// it); repeatable. fs requests may touch it as they may --cwd.
    #[arg(long = "add-dir", value_name = "DIR", conflicts_with = "fork")]
    add_dirs: Vec<PathBuf>,
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
    /// Allow fs requests for files outside --cwd and --add-dir (denied by default).
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
    /// Delete one of the agent's stored sessions (`session/delete`, when advertised) and exit.
    #[arg(long, value_name = "SESSION_ID", conflicts_with_all = ["load", "resume", "fork", "list_sessions"])]
    delete_session: Option<String>,
    /// Sign out of the agent (`logout`, when advertised) and exit.
    #[arg(long, conflicts_with_all = ["load", "resume", "fork", "list_sessions", "delete_session", "auth"])]
    logout: bool,
    /// Switch the session to this mode (`session/set_mode`) before the prompts; it must be one
    /// of the modes the agent advertised.
    #[arg(long, value_name = "MODE_ID")]
    mode: Option<String>,
    /// Set a session config option (`session/set_config_option`) after the session opens;
    /// repeatable. ID and VALUE must be an option and one of its values the agent advertised
    /// (`true` or `false` for a boolean option).
    #[arg(long = "config", value_name = "ID=VALUE", value_parser = parse_config)]
    config: Vec<(String, String)>,
    /// Cancel each turn (`session/cancel`) after its N-th update of the turn's own content
    /// (message and thought chunks, tool calls, plans, after the prompt was sent); the turn must
    /// still end, with stop reason `cancelled`. For testing an agent's cancellation.
    #[arg(long, value_name = "N")]
    cancel_after_updates: Option<u64>,
    /// After `--load`, print the replayed history until the agent has been quiet this long
    /// (milliseconds): agents may send it after answering `session/load`.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    load_quiet_ms: u64,
    /// Seconds to wait for the agent's answer to `initialize`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    init_timeout: u64,
    /// Hand the agent this MCP connection (see `porthole-cli mcp list`); repeatable.
    #[arg(long = "mcp", value_name = "NAME")]
    mcp: Vec<String>,
    /// Hand the agent every enabled MCP connection it gets.
    #[arg(long)]
    mcp_all: bool,
    /// The MCP connections file; default $PORTHOLE_CONNECTIONS_FILE, else ~/.config/porthole/connections.json.
    #[arg(long, value_name = "FILE")]
    connections_file: Option<PathBuf>,
    /// One JSON object per line on stdout.
    #[arg(long)]
    json: bool,
    /// Warnings and errors on stderr too (they always go to the log file).
    #[arg(long)]
    verbose: bool,
    /// Prompts to send, one turn each, in order.
    prompts: Vec<String>,
}

/// Warnings and errors to the log file (and stderr with `--verbose`): core's one set-up.
pub(crate) fn start_logging(verbose: bool) {
    let logging = porthole_core::logging::init("porthole-cli", verbose);
    if let (true, Some(problem)) = (verbose, logging.problem) {
        note!("porthole-cli: {}", term::line(&problem));
    }
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

fn parse_config(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((id, value)) if !id.is_empty() => Ok((id.to_string(), value.to_string())),
        _ => Err(format!("expected ID=VALUE, got `{s}`")),
    }
}

/// The variable an API key is read from for `--auth` with an API-key method.
const API_KEY_VAR: &str = "PORTHOLE_API_KEY";

/// Why the session could not be opened: a request the agent did not advertise, or a bad flag
/// (exit 2, nothing sent), or a failure (exit 1).
enum OpenError {
    Usage(String),
    Failed(String),
}

impl From<String> for OpenError {
    fn from(e: String) -> Self {
        OpenError::Failed(e)
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
    let offered = &client.agent_capabilities().mcp_capabilities;
    let caps = porthole_connections::handoff::AgentMcp {
        http: offered.http,
        sse: offered.sse,
    };
    let session = mcp_live::Session::open(&chosen, Some(caps)).await?;
    for (name, why) in &session.handed.skipped {
        note!(
            "porthole-cli: MCP connection `{name}` is not handed to the agent: {}",
            term::line(why)
        );
    }
    Ok(Some(session))
}

/// A configured or installed agent by id or name (with the sign-in values the window saved for
/// it in the OS keyring) and its id, else the value as a command line.
fn resolve_agent(args: &Args) -> Result<(AgentCommand, Option<String>), String> {
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

/// After `auth_required` (when opening a session, or at a turn): how to sign in with each
/// method the agent advertised. A terminal method is the agent's own login command, which
/// the user runs in a terminal (the CLI is not one). `used` is the method this run already
/// signed in with (`--auth`): telling the user to run again with it would send them in a
/// circle, so it is named for what it is.
fn print_sign_in_hint(client: &AgentClient, command: &AgentCommand, signed_in: Option<&SignedIn>) {
    let used = signed_in.map(|s| s.method.as_str());
    use porthole_core::acp::v1::schema::AuthMethod;
    let methods = client.auth_methods();
    let env_methods = porthole_profiles::sign_in::env_var_methods(client.raw_auth_methods());
    if methods.is_empty() {
        note!("porthole-cli: the agent needs you to sign in, and advertises no sign-in method");
        return;
    }
    if let Some(used) = used {
        let what = if let Some(source) = signed_in.and_then(|s| s.key_source) {
            match source {
                KeySource::Env => format!("the API key from {API_KEY_VAR} was not accepted"),
                KeySource::Typed => "the API key typed was not accepted".to_string(),
                KeySource::NotGiven => format!(
                    "no API key was given (set {API_KEY_VAR}, or run porthole-cli in a terminal to \
                     type it), and the agent found none of its own"
                ),
                KeySource::Saved => format!(
                    "the API key saved in the OS keyring was not accepted; run with {API_KEY_VAR} set \
                     to the right key (it replaces the saved one once the agent accepts it)"
                ),
            }
        } else if env_methods.iter().any(|m| m.id == used) {
            "the values set in the environment were not accepted".to_string()
        } else {
            "the agent answered `authenticate` but did not sign you in".to_string()
        };
        note!("porthole-cli: signed in with --auth {used}, yet the agent still asks you to sign in: {what}");
    }
    note!(
        "porthole-cli: the agent needs you to sign in; its {}methods:",
        if used.is_some() { "other " } else { "" }
    );
    for m in methods {
        if Some(m.id().0.as_ref()) == used {
            continue;
        }
        if let Some(env_method) = env_methods.iter().find(|e| e.id == m.id().0.as_ref()) {
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
        if client.api_key_method(m.id().0.as_ref()).is_some() {
            note!(
                "  {} ({}): an API key; run again with --auth {} (the key from {API_KEY_VAR}, or typed when asked)",
                m.id().0,
                m.name(),
                m.id().0
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
    // Kept until the run ends: the gateway and the session's pass live as long as this does.
    let mcp = match hand_connections(&args, profile.as_deref(), &client).await {
        Ok(handed) => handed,
        Err(e) => {
            note!("porthole-cli: {}", term::line(&e));
            client.shutdown().await;
            return ExitCode::from(2);
        }
    };
    let mcp_servers = mcp.as_ref().map(mcp_live::Session::servers).unwrap_or_default();
    let policy = policy::Policy {
        elicit: args.elicit,
        permission: args.permission,
        files_outside: args.allow_files_outside,
        answers,
    };
    let mut reader = Reader {
        client: &client,
        events,
        out: &out,
        policy: &policy,
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
    if let (Ok(Some(_)), Some(signed_in), Some(profile)) = (&opened, &signed_in, &profile) {
        signed_in.save(profile);
    }
    match opened {
        Ok(Some(id)) => run_prompts(&args, reader, id, (&command, signed_in.as_ref())).await,
        Ok(None) => {
            client.shutdown().await;
            ExitCode::SUCCESS
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

/// Where an API key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeySource {
    /// `PORTHOLE_API_KEY`.
    Env,
    /// The OS keyring, where an earlier run saved it for this agent.
    Saved,
    /// Typed at the terminal.
    Typed,
    /// None given (no variable, none saved, no terminal or an empty line): `authenticate` is sent
    /// without a key, for an agent that finds one itself (Gemini reads `GEMINI_API_KEY`).
    NotGiven,
}

/// The `--auth` method this run signed in with, and for an API-key method where its key came
/// from.
struct SignedIn {
    method: String,
    key_source: Option<KeySource>,
    /// A key to keep in the OS keyring once the agent has accepted it (the session opened): a
    /// typed one, or one from the environment that replaces a saved key.
    to_save: Option<String>,
}

impl SignedIn {
    fn save(&self, agent_id: &str) {
        use porthole_profiles::secrets::AgentSecrets;
        let Some(key) = &self.to_save else { return };
        let saved = AgentSecrets::default_index_path()
            .ok_or_else(|| "no config folder".to_string())
            .and_then(|index| AgentSecrets::os(index).map_err(|e| e.to_string()))
            .and_then(|s| {
                s.set_api_key(agent_id, &self.method, key)
                    .map_err(|e| e.to_string())
            });
        match saved {
            Ok(()) => note!(
                "porthole-cli: the API key of `{}` is saved in the OS keyring for `{agent_id}`",
                self.method
            ),
            Err(e) => note!("porthole-cli: the API key was not saved: {e}"),
        }
    }
}

/// The API key saved in the OS keyring for agent `profile`'s `method`, if any (no keyring is
/// opened when the index lists none).
fn saved_api_key(profile: &str, method: &str) -> Option<String> {
    use porthole_profiles::secrets::{self, AgentSecrets};
    let index = AgentSecrets::default_index_path()?;
    let listed = secrets::stored_names(&index).is_ok_and(|all| {
        all.get(profile)
            .is_some_and(|names| secrets::lists_api_key(names, method))
    });
    if !listed {
        return None;
    }
    match AgentSecrets::os(index).and_then(|s| s.api_key(profile, method)) {
        Ok(key) => key,
        Err(e) => {
            note!("porthole-cli: the saved API key of `{profile}` is not used: {e}");
            None
        }
    }
}

/// `--auth METHOD`. An `env_var` method is the CLI's own environment (nothing is sent); an
/// API-key method sends the key in `authenticate`'s `_meta["api-key"]`; any other method is
/// plain `authenticate`. `profile`: the configured agent's id, under which keys are saved.
async fn sign_in(
    client: &AgentClient,
    command: &AgentCommand,
    method: &str,
    profile: Option<&str>,
    signed_in: &mut Option<SignedIn>,
) -> Result<(), OpenError> {
    // Recorded only once the method was used without error (the hint then says so).
    let mut done = SignedIn {
        method: method.to_string(),
        key_source: None,
        to_save: None,
    };
    let env_methods = porthole_profiles::sign_in::env_var_methods(client.raw_auth_methods());
    if let Some(env_method) = env_methods.iter().find(|m| m.id == method) {
        // The agent was started with the CLI's own environment, so signing in means those
        // variables are set there.
        let missing: Vec<String> = env_method
            .vars
            .iter()
            .filter(|v| !v.optional && std::env::var_os(&v.name).is_none_or(|x| x.is_empty()))
            // Saved in the OS keyring by the window and set at spawn (add_saved_sign_in).
            .filter(|v| !command.env.iter().any(|(name, _)| name == &v.name))
            .map(|v| format!("{} ({})", v.name, v.label))
            .collect();
        if !missing.is_empty() {
            return Err(OpenError::Failed(format!(
                "sign-in method `{method}` needs these variables set in the environment: {}",
                missing.join(", ")
            )));
        }
        *signed_in = Some(done);
        return Ok(());
    }
    if client.api_key_method(method).is_some() {
        let saved = profile.and_then(|p| saved_api_key(p, method));
        let (key, source) = api_key(client, method, saved.clone())?;
        let to_save = match (source, &key) {
            (KeySource::Typed, Some(key)) => profile.map(|_| key.clone()),
            (KeySource::Env, Some(key)) if saved.is_some_and(|s| s != *key) => Some(key.clone()),
            _ => None,
        };
        match &key {
            Some(key) => client.authenticate_with_api_key(method, key).await,
            // Nothing to send: the agent may find its key itself.
            None => client.authenticate(method).await,
        }
        .map_err(|e| OpenError::Failed(e.to_string()))?;
        done.key_source = Some(source);
        done.to_save = to_save;
    } else {
        client
            .authenticate(method)
            .await
            .map_err(|e| OpenError::Failed(e.to_string()))?;
    }
    *signed_in = Some(done);
    Ok(())
}

/// The API key for `method`: from `PORTHOLE_API_KEY`, else the one saved in the OS keyring,
/// else typed at the terminal (not echoed).
fn api_key(
    client: &AgentClient,
    method: &str,
    saved: Option<String>,
) -> Result<(Option<String>, KeySource), OpenError> {
    if let Some(key) = std::env::var(API_KEY_VAR).ok().filter(|k| !k.trim().is_empty()) {
        return Ok((Some(key.trim().to_string()), KeySource::Env));
    }
    if let Some(key) = saved {
        return Ok((Some(key), KeySource::Saved));
    }
    let name = client
        .auth_methods()
        .iter()
        .find(|m| m.id().0.as_ref() == method)
        .map(|m| m.name().to_string())
        .unwrap_or_else(|| method.to_string());
    let prompt = format!("{name} (input hidden; empty: the agent's own, e.g. from its environment): ");
    match terminal::read_hidden(&prompt) {
        Some(Ok(key)) if !key.trim().is_empty() => Ok((Some(key.trim().to_string()), KeySource::Typed)),
        Some(Ok(_)) | None => Ok((None, KeySource::NotGiven)),
        Some(Err(e)) => Err(OpenError::Failed(format!(
            "--auth {method}: cannot read the API key from the terminal: {e}"
        ))),
    }
}

/// Authenticate if asked, then list, load, resume or create the session, and apply `--model`,
/// `--config` and `--mode`, each checked against what the agent advertised before anything is
/// sent. `None`: nothing to prompt (the listing was the whole job).
async fn open_session(
    args: &Args,
    client: &AgentClient,
    out: &output::Output,
    workspace: Workspace,
    command: &AgentCommand,
    profile: Option<&str>,
    signed_in: &mut Option<SignedIn>,
) -> Result<Option<String>, OpenError> {
    if let Some(method) = &args.auth {
        sign_in(client, command, method, profile, signed_in).await?;
    }
    // Requests the agent did not advertise are never sent: a usage error (exit 2) instead.
    let unsupported = |e: porthole_core::ClientError| match e {
        porthole_core::ClientError::Unsupported(what) => {
            OpenError::Usage(format!("the agent does not advertise `{what}`"))
        }
        e => OpenError::Failed(e.to_string()),
    };
    if args.logout {
        client.logout().await.map_err(unsupported)?;
        out.done("logout");
        return Ok(None);
    }
    if let Some(id) = &args.delete_session {
        client.delete_session(id).await.map_err(unsupported)?;
        out.done("session/delete");
        return Ok(None);
    }
    if args.list_sessions {
        let mut cursor = None;
        loop {
            let page = client
                .list_sessions(Some(workspace.cwd.clone()), cursor)
                .await
                .map_err(|e| e.to_string())?;
            out.session_listing(&page);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(None),
            }
        }
    }
    let auth_hint = |e: porthole_core::ClientError| match e {
        porthole_core::ClientError::Unsupported(_) => unsupported(e),
        e if e.is_auth_required() => OpenError::Failed(format!("{e} (auth_required)")),
        e => OpenError::Failed(e.to_string()),
    };
    let opened = match (&args.load, &args.resume, &args.fork) {
        (Some(id), _, _) => client.load_session(id, workspace).await.map_err(auth_hint)?,
        (_, Some(id), _) => client.resume_session(id, workspace).await.map_err(auth_hint)?,
        (_, _, Some(id)) => client.fork_session(id, workspace).await.map_err(auth_hint)?,
        _ => client.open_session(workspace).await.map_err(auth_hint)?,
    };
    let session_id = opened.session_id.clone();
    // Checked before any of them is sent.
    if let Some(mode) = &args.mode {
        check_mode(&opened, mode).map_err(OpenError::Usage)?;
    }
    for (id, value) in &args.config {
        config_value(&opened.config_options, id, value).map_err(OpenError::Usage)?;
    }
    let mut models = opened.models.clone();
    if let Some(model) = &args.model {
        models = Some(
            client
                .set_model(&session_id, model)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    out.session(&session_id, models.as_ref());
    if !args.config.is_empty() {
        let mut options = opened.config_options.clone();
        for (id, value) in &args.config {
            // Against the latest list: setting one option may change the others.
            let value = config_value(&options, id, value).map_err(OpenError::Usage)?;
            options = client
                .set_config_option(&session_id, id, value)
                .await
                .map_err(|e| format!("--config {id}: {e}"))?;
        }
        out.config_options(&session_id, &options);
    }
    if let Some(mode) = &args.mode {
        client
            .set_mode(&session_id, mode)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(session_id))
}

/// `--mode` must be one of the session's advertised modes.
fn check_mode(opened: &porthole_core::OpenedSession, mode: &str) -> Result<(), String> {
    use porthole_core::acp::v1::schema::SessionConfigOptionCategory;
    let available: Vec<&str> = opened
        .modes
        .iter()
        .flat_map(|m| m.available_modes.iter().map(|m| m.id.0.as_ref()))
        .collect();
    if available.contains(&mode) {
        return Ok(());
    }
    if available.is_empty() {
        let as_option = opened
            .config_options
            .iter()
            .find(|o| o.category == Some(SessionConfigOptionCategory::Mode))
            .map(|o| {
                format!(
                    "; its mode is the config option `{0}` (--config {0}=VALUE)",
                    o.id.0
                )
            })
            .unwrap_or_default();
        return Err(format!(
            "--mode {mode}: the agent advertises no session modes{as_option}"
        ));
    }
    Err(format!(
        "--mode {mode}: the agent does not offer this mode; its modes: {}",
        available.join(", ")
    ))
}

/// `--config ID=VALUE` checked against the advertised options: the value to send.
fn config_value(
    options: &[porthole_core::acp::v1::schema::SessionConfigOption],
    id: &str,
    value: &str,
) -> Result<porthole_core::sessions::ConfigValue, String> {
    use porthole_core::acp::v1::schema::{SessionConfigKind, SessionConfigSelectOptions};
    use porthole_core::sessions::ConfigValue;
    let Some(option) = options.iter().find(|o| o.id.0.as_ref() == id) else {
        if options.is_empty() {
            return Err(format!("--config {id}: the agent advertises no config options"));
        }
        let ids: Vec<&str> = options.iter().map(|o| o.id.0.as_ref()).collect();
        return Err(format!(
            "--config {id}: the agent has no such config option; its options: {}",
            ids.join(", ")
        ));
    };
    match &option.kind {
        SessionConfigKind::Select(select) => {
            let values: Vec<&str> = match &select.options {
                SessionConfigSelectOptions::Ungrouped(o) => o.iter().map(|o| o.value.0.as_ref()).collect(),
                SessionConfigSelectOptions::Grouped(groups) => groups
                    .iter()
                    .flat_map(|g| g.options.iter().map(|o| o.value.0.as_ref()))
                    .collect(),
                _ => Vec::new(),
            };
            if values.contains(&value) {
                Ok(ConfigValue::Select(value.to_string()))
            } else {
                Err(format!(
                    "--config {id}={value}: not one of the option's values: {}",
                    values.join(", ")
                ))
            }
        }
        SessionConfigKind::Boolean(_) => match value {
            "true" => Ok(ConfigValue::Boolean(true)),
            "false" => Ok(ConfigValue::Boolean(false)),
            _ => Err(format!(
                "--config {id}={value}: a boolean option takes true or false"
            )),
        },
        _ => Err(format!(
            "--config {id}: an option of a kind porthole-cli does not know"
        )),
    }
}

/// A session update that is the turn's own content (what `--cancel-after-updates` counts):
/// not commands, mode or config notices, session info, usage, or the user's message echoed.
fn is_turn_content(update: &porthole_core::acp::v1::schema::SessionUpdate) -> bool {
    use porthole_core::acp::v1::schema::SessionUpdate as U;
    matches!(
        update,
        U::AgentMessageChunk(_)
            | U::AgentThoughtChunk(_)
            | U::ToolCall(_)
            | U::ToolCallUpdate(_)
            | U::Plan(_)
    )
}

/// How long the CLI goes on reading a replay that never falls quiet.
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Events outside a turn (a replay, notices): answered by the policy and printed.
struct Reader<'a> {
    client: &'a AgentClient,
    events: tokio::sync::mpsc::Receiver<Event>,
    out: &'a output::Output,
    policy: &'a policy::Policy,
}

impl Reader<'_> {
    /// Print an event and answer it if it is a dialog. `Err` when the agent is gone.
    fn passive(&self, event: &Event, during: &str) -> Result<(), ExitCode> {
        if let Event::AgentExited(info) = event {
            self.out.event(event, None);
            note!(
                "porthole-cli: the agent exited {during}: {}",
                porthole_core::client::describe_exit(info)
            );
            return Err(ExitCode::FAILURE);
        }
        let decision = self.policy.decide(self.client, event);
        self.out.event(event, decision.as_ref());
        Ok(())
    }

    /// Read until the agent has sent nothing for `quiet` (replays may come after the answer
    /// to `session/load`).
    async fn settle(&mut self, quiet: std::time::Duration) -> Result<(), ExitCode> {
        let deadline = tokio::time::Instant::now() + SETTLE_LIMIT;
        loop {
            let wait = quiet.min(deadline.saturating_duration_since(tokio::time::Instant::now()));
            if wait.is_zero() {
                note!(
                    "porthole-cli: the agent was still sending updates after {}s; going on",
                    SETTLE_LIMIT.as_secs()
                );
                return Ok(());
            }
            match tokio::time::timeout(wait, self.events.recv()).await {
                Ok(Some(event)) => self.passive(&event, "while replaying the session")?,
                Ok(None) => {
                    note!("porthole-cli: the connection closed unexpectedly");
                    return Err(ExitCode::FAILURE);
                }
                Err(_) => return Ok(()),
            }
        }
    }

    /// What has arrived and not been read yet, printed (before a prompt is sent).
    fn drain_pending(&mut self) -> Result<(), ExitCode> {
        while let Ok(event) = self.events.try_recv() {
            self.passive(&event, "between turns")?;
        }
        Ok(())
    }
}

async fn run_prompts(
    args: &Args,
    mut reader: Reader<'_>,
    session_id: String,
    // For the sign-in hint after `auth_required` at a turn.
    (command, signed_in): (&AgentCommand, Option<&SignedIn>),
) -> ExitCode {
    let (client, out) = (reader.client, reader.out);
    if args.load.is_some()
        && let Err(code) = reader
            .settle(std::time::Duration::from_millis(args.load_quiet_ms))
            .await
    {
        return code;
    }

    for prompt in &args.prompts {
        // Whatever came before this turn (a late replay, notices) is not the turn's.
        if let Err(code) = reader.drain_pending() {
            return code;
        }
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
            let Some(event) = reader.events.recv().await else {
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
                            print_sign_in_hint(client, command, signed_in);
                        }
                        client.shutdown().await;
                        return ExitCode::FAILURE;
                    }
                    break;
                }
                _ => {
                    if let Err(code) = reader.passive(&event, "before the turn ended") {
                        return code;
                    }
                    if let Event::SessionUpdate {
                        session_id: s,
                        update,
                    } = &event
                        && *s == session_id
                        && is_turn_content(update)
                    {
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

/// Reading a secret at the terminal without echoing it.
mod terminal {
    use std::io::{BufRead, IsTerminal, Write};

    /// `None` when stdin is not a terminal; the line typed otherwise.
    pub fn read_hidden(prompt: &str) -> Option<std::io::Result<String>> {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return None;
        }
        Some((|| {
            let mut stderr = std::io::stderr();
            write!(stderr, "{prompt}")?;
            stderr.flush()?;
            let _echo_off = EchoOff::new()?;
            let mut line = String::new();
            stdin.lock().read_line(&mut line)?;
            writeln!(stderr)?;
            Ok(line.trim_end_matches(['\r', '\n']).to_string())
        })())
    }

    /// Terminal echo turned off until dropped.
    struct EchoOff(libc::termios);

    impl EchoOff {
        fn new() -> std::io::Result<Self> {
            // SAFETY: tcgetattr/tcsetattr on stdin with a termios we own.
            unsafe {
                let mut term: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(libc::STDIN_FILENO, &mut term) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let saved = term;
                term.c_lflag &= !libc::ECHO;
                term.c_lflag |= libc::ECHONL;
                if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &term) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(EchoOff(saved))
            }
        }
    }

    impl Drop for EchoOff {
        fn drop(&mut self) {
            // SAFETY: restores the settings read in `new`.
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.0);
            }
        }
    }
}
