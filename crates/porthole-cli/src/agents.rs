//! `porthole-cli agents ...`: the configured agents, and agents from the ACP registry listed,
//! installed, updated and removed headless (so installs are scriptable and testable).

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use porthole_core::AgentCommand;
use porthole_profiles::agents_config::{self, AgentProfile};
use porthole_registry::{
    self as registry, Cancel, Fetched, InstallOutcome, Installer, Progress, RegistryAgent, RegistryError,
    Status,
};
use serde_json::json;

use crate::term::{self, note, say};

#[derive(Parser, Debug)]
#[command(
    name = "porthole-cli agents",
    about = "Agents: the configured ones, and the ACP registry's (install, update, remove)",
    after_help = "Environment: PORTHOLE_REGISTRY_URL (the registry: http(s) URL or file), \
                  PORTHOLE_AGENTS_DIR (where agents are installed), PORTHOLE_CACHE_DIR (the \
                  cached registry). An installed agent runs with `porthole-cli --agent ID`."
)]
struct AgentsArgs {
    /// Warnings and errors on stderr too (they always go to the log file).
    #[arg(long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: AgentsCommand,
}

#[derive(Subcommand, Debug)]
enum AgentsCommand {
    /// The configured agents (agents.json) and the installed ones.
    List {
        /// The agents settings file; default ~/.config/porthole/agents.json.
        #[arg(long, value_name = "FILE")]
        agents_file: Option<PathBuf>,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// The registry's agents, marked installed or with an update available.
    Available {
        #[command(flatten)]
        registry: RegistryArg,
        #[arg(long)]
        json: bool,
    },
    /// Install an agent from the registry (or update it when the registry has a newer version).
    Install {
        id: String,
        #[command(flatten)]
        registry: RegistryArg,
    },
    /// Update one installed agent, or all of them, to the registry's version.
    Update {
        id: Option<String>,
        #[command(flatten)]
        registry: RegistryArg,
    },
    /// Remove an installed agent and its files.
    Remove { id: String },
}

#[derive(clap::Args, Debug)]
struct RegistryArg {
    /// The registry: an http(s) URL or a file; default $PORTHOLE_REGISTRY_URL, else the public ACP registry.
    #[arg(long, value_name = "URL")]
    registry: Option<String>,
}

impl RegistryArg {
    /// Read the registry, saying on stderr when the cached copy stands in for it.
    fn load(&self) -> Result<Fetched, RegistryError> {
        let source = self.registry.clone().unwrap_or_else(registry::registry_source);
        let fetched = registry::load_registry(&source, registry::default_cache_dir().as_deref())?;
        if let Some(note) = &fetched.offline {
            note!("porthole-cli: offline: {}", term::line(note));
        }
        for problem in &fetched.registry.problems {
            note!("porthole-cli: registry entry skipped: {}", term::line(problem));
        }
        Ok(fetched)
    }
}

/// `args` starts with `agents`.
pub fn main(args: impl Iterator<Item = OsString>) -> ExitCode {
    let parsed =
        AgentsArgs::parse_from(std::iter::once(OsString::from("porthole-cli agents")).chain(args.skip(1)));
    crate::start_logging(parsed.verbose);
    let result = match parsed.command {
        AgentsCommand::List { agents_file, json } => list(agents_file, json),
        AgentsCommand::Available { registry, json } => available(&registry, json),
        AgentsCommand::Install { id, registry } => install(&id, &registry),
        AgentsCommand::Update { id, registry } => update(id.as_deref(), &registry),
        AgentsCommand::Remove { id } => remove(&id),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            note!("porthole-cli: {}", term::line(&e));
            ExitCode::FAILURE
        }
    }
}

/// How to start the agent of a profile (a configured or installed agent), in this folder.
pub fn command_of(profile: &AgentProfile) -> AgentCommand {
    AgentCommand {
        program: profile.command.clone(),
        args: profile.args.clone(),
        env: profile.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        cwd: None,
    }
}

fn installer() -> Result<Installer, String> {
    Installer::from_env().map_err(|e| e.to_string())
}

/// The command of an installed agent named by its id, for `--agent`. Never by its name: the
/// name comes from the registry, and `--agent 'my-agent --acp'` is the user's own command line.
pub fn installed_command(agent: &str) -> Option<(AgentCommand, String)> {
    let installed = match installer().and_then(|i| i.installed().map_err(|e| e.to_string())) {
        Ok(installed) => installed,
        Err(e) => {
            note!("porthole-cli: ignoring the installed agents: {}", term::line(&e));
            return None;
        }
    };
    installed
        .iter()
        .find(|a| a.id == agent)
        .map(|a| (command_of(&a.to_profile()), a.id.clone()))
}

fn list(agents_file: Option<PathBuf>, json: bool) -> Result<(), String> {
    let mut config = match agents_file.or_else(agents_config::default_path) {
        Some(path) => agents_config::load(&path).map_err(|e| e.to_string())?,
        None => agents_config::AgentsConfig::default(),
    };
    for problem in &config.problems {
        note!("porthole-cli: agents.json: {}", term::line(problem));
    }
    let dir = installer()?.dir;
    let installed = registry::installed_profiles(&dir).map_err(|e| e.to_string())?;
    registry::merge_profiles(&mut config, installed);
    let mut out = std::io::stdout().lock();
    for agent in &config.agents {
        let command = command_of(agent).display();
        let _ = if json {
            let line = json!({ "agent": agent, "commandLine": command });
            writeln!(out, "{}", crate::json_line::to_line(&line))
        } else {
            let source = match &agent.registry {
                Some(mark) => format!("registry {} ({})", mark.version, mark.kind),
                None => "agents.json".to_string(),
            };
            writeln!(
                out,
                "{}",
                term::text(&format!(
                    "{:<20} {:<24} {:<24} {}",
                    term::line(&agent.id),
                    term::line(&agent.name),
                    term::line(&source),
                    term::line(&command)
                ))
            )
        };
    }
    Ok(())
}

fn available(registry: &RegistryArg, json: bool) -> Result<(), String> {
    let fetched = registry.load().map_err(|e| e.to_string())?;
    let installed = installer()?.installed().map_err(|e| e.to_string())?;
    let target = registry::current_target();
    let mut out = std::io::stdout().lock();
    for agent in &fetched.registry.agents {
        let status = Status::of(agent, &installed);
        let kind = agent.kind_for(target);
        let _ = if json {
            writeln!(
                out,
                "{}",
                crate::json_line::to_line(&json!({ "agent": agent, "installAs": kind, "status": status }))
            )
        } else {
            let status = match &status {
                Status::NotInstalled => String::new(),
                // The version column is the registry's: name the installed one when it differs.
                Status::Installed { installed } if *installed == agent.version => "installed".into(),
                Status::Installed { installed } => format!("{installed} installed"),
                Status::UpdateAvailable { installed } => {
                    format!("update available ({installed} installed)")
                }
            };
            let kind = kind.map_or("not for this platform".to_string(), |k| k.to_string());
            writeln!(
                out,
                "{}",
                term::text(&format!(
                    "{:<20} {:<12} {:<8} {:<32} {} - {}",
                    term::line(&agent.id),
                    term::line(&agent.version),
                    kind,
                    term::line(&status),
                    term::line(&agent.name),
                    term::line(&agent.description)
                ))
            )
        };
    }
    Ok(())
}

fn install(id: &str, registry: &RegistryArg) -> Result<(), String> {
    let fetched = registry.load().map_err(|e| e.to_string())?;
    let agent = fetched
        .registry
        .agent(id)
        .ok_or_else(|| RegistryError::UnknownAgent(id.to_string()).to_string())?;
    let installer = installer()?;
    let mut interrupts = Interrupts::new().map_err(|e| e.to_string())?;
    let mut bar = ProgressBar::new(&agent.id);
    let outcome = install_interruptibly(&installer, agent, &mut bar, &mut interrupts);
    bar.finish();
    let outcome = outcome.map_err(|e| format!("cannot install `{}`: {e}", term::line(id)))?;
    report(&outcome);
    Ok(())
}

/// The exit status after Ctrl-C, as a shell reports a SIGINT death.
const INTERRUPTED: i32 = 130;

/// How long Ctrl-C waits for the install to stop by itself before cleaning up after it.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Ctrl-C during `agents install` / `update`: one runtime and one listener for the whole command,
/// so a press between two installs of an update is not lost (it ends the next one at once).
struct Interrupts {
    runtime: tokio::runtime::Runtime,
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    fn new() -> Result<Self, RegistryError> {
        let io = |context: &str| {
            let context = context.to_string();
            move |error| RegistryError::Io { context, error }
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(io("cannot start the async runtime"))?;
        #[cfg(unix)]
        let signal = {
            let _inside = runtime.enter();
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
                .map_err(io("cannot listen for Ctrl-C"))?
        };
        Ok(Self {
            runtime,
            #[cfg(unix)]
            signal,
        })
    }

    /// Run `work` to its end, or until Ctrl-C (`true`).
    fn until_pressed(&mut self, work: impl std::future::Future<Output = ()>) -> bool {
        #[cfg(unix)]
        let pressed = async {
            self.signal.recv().await;
        };
        #[cfg(not(unix))]
        let pressed = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        self.runtime.block_on(async {
            tokio::select! {
                _ = work => false,
                _ = pressed => true,
            }
        })
    }
}

/// Install on a worker thread while this one waits for Ctrl-C. Ctrl-C cancels the install:
/// it stops at its next step and leaves what was installed before; one blocked in a read (a
/// stalled server) is not waited for: what it created so far (its temporary files, a new empty
/// agent folder) is deleted, and the CLI exits with 130.
fn install_interruptibly(
    installer: &Installer,
    agent: &RegistryAgent,
    bar: &mut ProgressBar,
    interrupts: &mut Interrupts,
) -> Result<InstallOutcome, RegistryError> {
    let cancel = Cancel::new();
    std::thread::scope(|scope| {
        let (done_tx, mut done_rx) = tokio::sync::oneshot::channel::<()>();
        let worker = scope.spawn(|| {
            let result = installer.install_cancellable(agent, &mut |p| bar.show(p), &cancel);
            let _ = done_tx.send(());
            result
        });
        let interrupted = interrupts.until_pressed(async {
            let _ = (&mut done_rx).await;
        });
        if !interrupted {
            return worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        cancel.cancel();
        let stopped = interrupts
            .runtime
            .block_on(async { tokio::time::timeout(CANCEL_GRACE, done_rx).await.is_ok() });
        if !stopped {
            cancel.clean_up();
        }
        let kept = match worker.is_finished().then(|| worker.join()) {
            // Finished before it noticed: the new version is in place.
            Some(Ok(Ok(outcome))) => format!(
                "; it had finished: {} {} is installed",
                term::line(&outcome.agent().id),
                term::line(&outcome.agent().version)
            ),
            _ => "; what was installed before is kept".to_string(),
        };
        note!();
        note!(
            "porthole-cli: interrupted: the install of `{}` was cancelled{kept}",
            term::line(&agent.id)
        );
        std::process::exit(INTERRUPTED);
    })
}

fn report(outcome: &InstallOutcome) {
    let agent = outcome.agent();
    let command = term::line(&command_of(&agent.to_profile()).display());
    let (id, version) = (term::line(&agent.id), term::line(&agent.version));
    match outcome {
        InstallOutcome::Installed { .. } => {
            say!("installed {id} {version} ({}): {command}", agent.kind)
        }
        InstallOutcome::Updated { from, .. } => {
            say!("updated {id} from {} to {version}: {command}", term::line(from))
        }
        InstallOutcome::AlreadyInstalled { .. } => {
            say!("{id} {version} is already installed: {command}")
        }
    }
}

fn update(id: Option<&str>, registry: &RegistryArg) -> Result<(), String> {
    let installer = installer()?;
    let installed = installer.installed().map_err(|e| e.to_string())?;
    let chosen: Vec<_> = match id {
        Some(id) => {
            let one = installed.iter().find(|a| a.id == id).cloned();
            vec![one.ok_or_else(|| RegistryError::NotInstalled(id.to_string()).to_string())?]
        }
        None => installed,
    };
    if chosen.is_empty() {
        say!("no agents installed from the registry");
        return Ok(());
    }
    let fetched = registry.load().map_err(|e| e.to_string())?;
    let mut interrupts = Interrupts::new().map_err(|e| e.to_string())?;
    let mut failed = Vec::new();
    for current in chosen {
        let Some(agent) = fetched.registry.agent(&current.id) else {
            note!(
                "porthole-cli: `{}` is no longer in the registry; kept as it is",
                term::line(&current.id)
            );
            continue;
        };
        if !matches!(
            Status::of(agent, std::slice::from_ref(&current)),
            Status::UpdateAvailable { .. }
        ) {
            say!(
                "{} {} is up to date",
                term::line(&current.id),
                term::line(&current.version)
            );
            continue;
        }
        let mut bar = ProgressBar::new(&agent.id);
        match install_interruptibly(&installer, agent, &mut bar, &mut interrupts) {
            Ok(outcome) => {
                bar.finish();
                report(&outcome);
            }
            Err(e) => {
                bar.finish();
                note!(
                    "porthole-cli: cannot update `{}`: {}",
                    term::line(&current.id),
                    term::line(&e.to_string())
                );
                failed.push(current.id);
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("not updated: {}", failed.join(", ")))
    }
}

fn remove(id: &str) -> Result<(), String> {
    let gone = installer()?.remove(id).map_err(|e| e.to_string())?;
    say!("removed {} {}", term::line(&gone.id), term::line(&gone.version));
    Ok(())
}

/// Download progress on stderr: a redrawn bar on a terminal, else a line per quarter.
struct ProgressBar {
    id: String,
    tty: bool,
    /// The last quarter printed (non-terminal) or the last percent drawn (terminal).
    shown: Option<u64>,
    drawn: bool,
}

impl ProgressBar {
    fn new(id: &str) -> Self {
        Self {
            id: term::line(id),
            tty: std::io::stderr().is_terminal(),
            shown: None,
            drawn: false,
        }
    }

    fn show(&mut self, progress: Progress) {
        let mut err = std::io::stderr().lock();
        match progress {
            Progress::Downloading { done, total } => {
                let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
                let (percent, text) = match total {
                    Some(total) if total > 0 => {
                        // Clamped: a server may send more than its Content-Length says (core
                        // refuses such a body, but the bar must not panic before it does).
                        let percent = (done.saturating_mul(100) / total).min(100);
                        let filled = (percent / 5).min(20) as usize;
                        (
                            Some(percent),
                            format!(
                                "[{}{}] {percent:>3}% {:.1}/{:.1} MiB",
                                "#".repeat(filled),
                                " ".repeat(20 - filled),
                                mib(done),
                                mib(total)
                            ),
                        )
                    }
                    _ => (None, format!("{:.1} MiB", mib(done))),
                };
                if self.tty {
                    if percent.is_none() || percent != self.shown {
                        let _ = write!(err, "\rdownloading {}: {text}", self.id);
                        self.shown = percent;
                        self.drawn = true;
                    }
                } else {
                    // Logs get a line at 0, 25, 50, 75 and 100 %, not one per chunk.
                    let quarter = percent.map(|p| p / 25);
                    if quarter.is_some() && quarter != self.shown {
                        let _ = writeln!(err, "downloading {}: {text}", self.id);
                        self.shown = quarter;
                    }
                }
            }
            Progress::Extracting => {
                if self.drawn {
                    let _ = writeln!(err);
                    self.drawn = false;
                }
                let _ = writeln!(err, "unpacking {}", self.id);
            }
        }
        let _ = err.flush();
    }

    fn finish(&mut self) {
        if self.drawn {
            note!();
            self.drawn = false;
        }
    }
}
