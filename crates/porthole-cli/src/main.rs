//! porthole-cli: a headless front end over porthole-core, for agent authors and tests.
//! It answers every dialog by a fixed policy and prints events (JSON lines with `--json`).

mod output;
mod policy;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use porthole_core::{AgentClient, AgentCommand, ClientOptions, Event, Modes};

#[derive(Parser, Debug)]
#[command(
    name = "porthole-cli",
    version,
    about = "Run an ACP agent headless and script its elicitations"
)]
pub struct Args {
    /// The agent's command line, e.g. 'npx -y @agentclientprotocol/claude-agent-acp'.
    #[arg(long)]
    agent: String,
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

fn parse_modes(s: &str) -> Result<Modes, String> {
    Modes::parse(s)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let answers = match policy::load_answers(args.answers.as_deref()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("porthole-cli: {e}");
            return ExitCode::from(2);
        }
    };
    let cwd = match args.cwd.clone().map(Ok).unwrap_or_else(std::env::current_dir) {
        Ok(dir) => match dir.canonicalize() {
            Ok(dir) if dir.is_dir() => dir,
            _ => {
                eprintln!("porthole-cli: --cwd {} is not a directory", dir.display());
                return ExitCode::from(2);
            }
        },
        Err(e) => {
            eprintln!("porthole-cli: cannot determine the working directory: {e}");
            return ExitCode::from(2);
        }
    };
    let mut command = match AgentCommand::parse(&args.agent) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("porthole-cli: --agent: {e}");
            return ExitCode::from(2);
        }
    };
    command.cwd = Some(cwd.clone());
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("porthole-cli: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(args, command, cwd, answers))
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
        ..ClientOptions::default()
    };
    let (client, mut events) = match AgentClient::start(command.clone(), opts).await {
        Ok(started) => started,
        Err(e) => {
            eprintln!("porthole-cli: agent `{}` failed to start: {e}", command.display());
            return ExitCode::FAILURE;
        }
    };
    out.initialized(&client);
    let session_id = match client.new_session(cwd).await {
        Ok(id) => id,
        Err(e) => {
            eprintln!("porthole-cli: session/new failed: {e}");
            client.shutdown().await;
            return ExitCode::FAILURE;
        }
    };
    out.session(&session_id);
    let policy = policy::Policy {
        elicit: args.elicit,
        answers,
    };

    for prompt in &args.prompts {
        if let Err(e) = client.prompt_text(&session_id, prompt) {
            eprintln!("porthole-cli: session/prompt failed: {e}");
            client.shutdown().await;
            return ExitCode::FAILURE;
        }
        loop {
            let Some(event) = events.recv().await else {
                eprintln!("porthole-cli: the connection closed unexpectedly");
                return ExitCode::FAILURE;
            };
            match &event {
                Event::TurnEnded {
                    session_id: s, error, ..
                } if *s == session_id => {
                    out.event(&event, None);
                    if let Some(error) = error {
                        eprintln!(
                            "porthole-cli: turn failed: {} (code {})",
                            error.message, error.code
                        );
                        client.shutdown().await;
                        return ExitCode::FAILURE;
                    }
                    break;
                }
                Event::AgentExited(info) => {
                    out.event(&event, None);
                    eprintln!(
                        "porthole-cli: the agent exited before the turn ended: {}",
                        porthole_core::client::describe_exit(info)
                    );
                    return ExitCode::FAILURE;
                }
                _ => {
                    let decision = policy.decide(&client, &event);
                    out.event(&event, decision.as_ref());
                }
            }
        }
    }
    client.shutdown().await;
    ExitCode::SUCCESS
}
