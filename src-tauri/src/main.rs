// Hide the console window on Windows release builds; harmless elsewhere.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

//! The Porthole desktop app: a thin Tauri shell (commands, event delivery, notifications, the
//! sealed view) over the app model in porthole-app and the protocol in porthole-core.
//!
//! The same binary also runs the embedded demo agent (`porthole demo-agent`), so the app
//! finds its default agent wherever it is installed.

#[macro_use]
mod command_list;
mod app_page;
mod commands;
mod notify;
mod sealed_view;
mod shell;
mod webkit_env;
mod wire;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "porthole",
    version,
    about = "A desktop client for Agent Client Protocol agents"
)]
struct Args {
    /// The agent to run, as a command line (default: the built-in demo agent).
    #[arg(long)]
    agent: Option<String>,
    /// Working directory of the session (default: the current directory).
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Start as the companion of your editors only (how `porthole proxy` starts the app): the
    /// window takes proxied sessions and connects no agent of its own until asked.
    #[arg(long)]
    companion: bool,
    /// Warnings and errors on stderr too (they always go to the log file).
    #[arg(long)]
    verbose: bool,
    #[command(subcommand)]
    mode: Option<Mode>,
}

#[derive(Subcommand, Debug)]
enum Mode {
    /// Serve the built-in demo agent over stdin/stdout (used by the app itself).
    DemoAgent,
    /// Open one URL in the sealed view (used by the app itself; reads its request on stdin).
    SealedView,
    /// What an agent runs for an MCP connection it reaches through Porthole's gateway
    /// (the app hands it over; not for people): `porthole mcp-bridge [--pipe] URL`.
    #[command(hide = true)]
    McpBridge {
        /// Pipe to a stdio server the gateway starts.
        #[arg(long)]
        pipe: bool,
        url: String,
    },
    /// Run an ACP agent for an editor and answer its elicitations in Porthole's window (the
    /// editor runs this instead of the agent): `porthole proxy [--always] -- AGENT [ARGS...]`.
    #[command(disable_help_flag = true)]
    Proxy {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() {
    let args = Args::parse();
    // The modes that show a web view; before anything starts a thread.
    let webkit_note = if matches!(args.mode, None | Some(Mode::SealedView)) {
        webkit_env::apply()
    } else {
        None
    };
    // One log per role: the app's, and each editor's proxy's (its stderr is the editor's).
    let name = match args.mode {
        Some(Mode::Proxy { .. }) => "porthole-proxy",
        Some(Mode::SealedView) => "porthole-sealed-view",
        Some(Mode::DemoAgent) => "porthole-demo-agent",
        Some(Mode::McpBridge { .. }) => "porthole-mcp-bridge",
        None => "porthole",
    };
    // The sealed view leaves nothing on disk (its parent logs what it reports): no log file.
    if !matches!(args.mode, Some(Mode::SealedView)) {
        let logging = porthole_core::logging::init(name, args.verbose);
        if let (true, Some(problem)) = (args.verbose, logging.problem) {
            eprintln!("porthole: {problem}");
        }
        if let Some(note) = webkit_note {
            tracing::warn!("{note}");
        }
    }
    if let Some(Mode::Proxy { args }) = &args.mode {
        // This program is the app the proxy starts when none runs.
        let launcher = porthole_companion::launcher::Launcher::this_program();
        // With the connections linked in (this program has them anyway): `--connections` runs
        // here, where the slim `porthole-proxy` execs `porthole-proxy-connections`.
        std::process::exit(porthole_proxy_connections::proxy_main(args, launcher));
    }
    if let Some(Mode::McpBridge { pipe, url }) = &args.mode {
        std::process::exit(porthole_app::mcp_bridge(url, *pipe));
    }
    if let Some(Mode::SealedView) = args.mode {
        std::process::exit(sealed_view::run());
    }
    if let Some(Mode::DemoAgent) = args.mode {
        let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
        if let Err(e) = runtime.block_on(porthole_demo_agent::run_stdio()) {
            eprintln!("porthole demo agent: {e:#}");
            std::process::exit(1);
        }
        return;
    }
    let launch = match porthole_app::Launch::from_args(args.agent.as_deref(), args.cwd) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("porthole: {e}");
            std::process::exit(2);
        }
    };
    commands::run(launch, args.companion);
}
