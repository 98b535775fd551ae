//! The agent runner's command line: the flags, the dialog policies they choose, and their
//! parsers.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use porthole_core::Modes;

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
    pub(crate) agent: String,
    /// The agents settings file (Zed's `agent_servers` shape); default ~/.config/porthole/agents.json.
    #[arg(long, value_name = "FILE")]
    pub(crate) agents_file: Option<PathBuf>,
    /// Working directory of the session (with --add-dir, the only folders fs requests may touch).
    #[arg(long)]
    pub(crate) cwd: Option<PathBuf>,
    /// Another folder the session works in (`additionalDirectories`, when the agent advertises
    /// it); repeatable. fs requests may touch it as they may --cwd.
    #[arg(long = "add-dir", value_name = "DIR", conflicts_with = "fork")]
    pub(crate) add_dirs: Vec<PathBuf>,
    /// The ACP version to speak: 2 (v2 only; an agent that answers 1 is an error), 1 (today's
    /// v1 exactly) or auto (offer v2, fall back to v1 on the same process). docs/acp-v2.md.
    #[arg(long, value_name = "1|2|auto", default_value = "auto")]
    pub(crate) protocol: porthole_core::ProtocolChoice,
    /// Elicitation modes to advertise: form,url | form | url | none.
    #[arg(long, default_value = "form,url", value_parser = parse_modes)]
    pub(crate) modes: Modes,
    /// How to answer elicitations.
    #[arg(long, value_enum, default_value_t = ElicitPolicy::Decline)]
    pub(crate) elicit: ElicitPolicy,
    /// JSON object of property -> value, overlaid on form defaults when accepting.
    #[arg(long)]
    pub(crate) answers: Option<PathBuf>,
    /// How long a tool call of an --mcp connection answered with -32042 (URL elicitation
    /// required) waits for the server's completion of the URLs consented to, before its one
    /// retry; then the agent gets the original error.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(crate) url_wait: u64,
    /// Who answers an --mcp connection's questions when the agent declared elicitation to the
    /// server itself: porthole (this run's --elicit / --answers policy, the line naming the
    /// server) or agent (the agent forwards them as its own elicitation). Agents that declared
    /// none always get Porthole's answers.
    #[arg(long, value_enum, default_value_t = McpQuestions::Porthole)]
    pub(crate) mcp_questions: McpQuestions,
    /// MCP Apps of the --mcp connections: on (the gateway declares the UI extension to their
    /// servers and, with --json, an `mcp_app` line is printed for each UI tool call) or off
    /// (the gateway declares nothing of MCP Apps).
    #[arg(long, value_enum, default_value_t = McpApps::On)]
    pub(crate) mcp_apps: McpApps,
    /// How to answer permission requests (reject is the fallback when an option is missing).
    #[arg(long, value_enum, default_value_t = PermissionPolicy::Reject)]
    pub(crate) permission: PermissionPolicy,
    /// Allow fs requests for files outside --cwd and --add-dir (denied by default).
    #[arg(long)]
    pub(crate) allow_files_outside: bool,
    /// Call `authenticate` with this advertised method before opening the session.
    #[arg(long, value_name = "METHOD_ID")]
    pub(crate) auth: Option<String>,
    /// Load this earlier session (`session/load`, history replayed) instead of a new one.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "resume")]
    pub(crate) load: Option<String>,
    /// Resume this earlier session (`session/resume`, no replay) instead of a new one.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "fork")]
    pub(crate) resume: Option<String>,
    /// Fork this session (`session/fork`, when the agent advertises it; one of its stored
    /// sessions, see --list-sessions) and prompt in the fork.
    #[arg(long, value_name = "SESSION_ID", conflicts_with = "load")]
    pub(crate) fork: Option<String>,
    /// Switch the session to this model (`session/set_model`, when the agent offers models).
    #[arg(long, value_name = "MODEL_ID")]
    pub(crate) model: Option<String>,
    /// Print the agent's sessions (`session/list`, all pages) and exit.
    #[arg(long, conflicts_with_all = ["load", "resume"])]
    pub(crate) list_sessions: bool,
    /// Delete one of the agent's stored sessions (`session/delete`, when advertised) and exit.
    #[arg(long, value_name = "SESSION_ID", conflicts_with_all = ["load", "resume", "fork", "list_sessions"])]
    pub(crate) delete_session: Option<String>,
    /// Sign out of the agent (`logout`, when advertised) and exit.
    #[arg(long, conflicts_with_all = ["load", "resume", "fork", "list_sessions", "delete_session", "auth"])]
    pub(crate) logout: bool,
    /// Switch the session to this mode (`session/set_mode`) before the prompts; it must be one
    /// of the modes the agent advertised.
    #[arg(long, value_name = "MODE_ID")]
    pub(crate) mode: Option<String>,
    /// Set a session config option (`session/set_config_option`) after the session opens;
    /// repeatable. ID and VALUE must be an option and one of its values the agent advertised
    /// (`true` or `false` for a boolean option).
    #[arg(long = "config", value_name = "ID=VALUE", value_parser = parse_config)]
    pub(crate) config: Vec<(String, String)>,
    /// Cancel each turn (`session/cancel`) after its N-th update of the turn's own content
    /// (message and thought chunks, tool calls, plans, after the prompt was sent); the turn must
    /// still end, with stop reason `cancelled`. For testing an agent's cancellation.
    #[arg(long, value_name = "N")]
    pub(crate) cancel_after_updates: Option<u64>,
    /// After `--load`, print the replayed history until the agent has been quiet this long
    /// (milliseconds): agents may send it after answering `session/load`.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub(crate) load_quiet_ms: u64,
    /// Seconds to wait for the agent's answer to `initialize`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub(crate) init_timeout: u64,
    /// Hand the agent this MCP connection (see `porthole-cli mcp list`); repeatable.
    #[arg(long = "mcp", value_name = "NAME")]
    pub(crate) mcp: Vec<String>,
    /// Hand the agent every enabled MCP connection it gets.
    #[arg(long)]
    pub(crate) mcp_all: bool,
    /// The MCP connections file; default $PORTHOLE_CONNECTIONS_FILE, else ~/.config/porthole/connections.json.
    #[arg(long, value_name = "FILE")]
    pub(crate) connections_file: Option<PathBuf>,
    /// One JSON object per line on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// Warnings and errors on stderr too (they always go to the log file).
    #[arg(long)]
    pub(crate) verbose: bool,
    /// Prompts to send, one turn each, in order.
    pub(crate) prompts: Vec<String>,
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

/// `--mcp-questions`: who answers a connection's questions when the agent declared elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum McpQuestions {
    Porthole,
    Agent,
}

/// `--mcp-apps`: whether the --mcp connections' MCP Apps are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum McpApps {
    On,
    Off,
}
