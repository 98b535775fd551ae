//! The agent's process, as the proxy runs it (see the module's docs in `mod.rs`): started in
//! its own process group with the proxy's parent-death signal, fed the editor's lines, and
//! stopped when the editor leaves or the proxy is signalled. Its exit status is the proxy's.

use std::future::Future;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use porthole_process::{Group, Signal};
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// What goes to the agent's stdin.
pub(super) enum AgentInput {
    Bytes(Vec<u8>),
    /// The editor's input ended: close the agent's stdin.
    Close,
}

/// Start the agent (`command`: program and arguments) with piped stdin and stdout and the
/// proxy's stderr. `Err`: the proxy's exit code, the reason said on stderr.
pub(super) fn start(command: &[String]) -> Result<(Group, ChildStdin, ChildStdout), i32> {
    let Some((program, args)) = command.split_first() else {
        eprintln!("porthole proxy: no agent command (usage: porthole proxy -- AGENT [ARGS...])");
        return Err(2);
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // Its own group, so its children go with it; and SIGTERM if the proxy is killed (its
    // parent-death signal: this runs on the proxy's one thread, see `cli::main`).
    let mut agent = match porthole_process::spawn(command, Some(Signal::Terminate)) {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("porthole proxy: cannot start the agent `{program}`: {e}");
            return Err(127);
        }
    };
    let child = agent.child_mut();
    match (child.stdin.take(), child.stdout.take()) {
        (Some(stdin), Some(stdout)) => Ok((agent, stdin, stdout)),
        _ => Err(1),
    }
}

/// Until the agent is gone: it exits by itself; or the editor's input ended (`editor_gone`),
/// then it has [`EOF_GRACE`] to exit on the EOF before its group is stopped; or the proxy was
/// signalled, and its group is stopped now.
pub(super) async fn until_end(
    agent: &mut Group,
    editor_gone: impl Future<Output = ()>,
) -> io::Result<ExitStatus> {
    enum End {
        Exited(io::Result<ExitStatus>),
        /// Stop the agent's group, SIGKILL after this long.
        Stop(Duration),
    }
    let end = tokio::select! {
        status = agent.wait() => End::Exited(status),
        _ = async {
            editor_gone.await;
            tokio::time::sleep(EOF_GRACE).await;
        } => End::Stop(EXIT_GRACE - EOF_GRACE),
        _ = terminated() => End::Stop(EXIT_GRACE),
    };
    match end {
        End::Exited(status) => status,
        // SIGTERM to the agent's group, SIGKILL after `grace`.
        End::Stop(grace) => agent.stop(grace).await,
    }
}

/// The exit code the editor would have seen from the agent itself (128 + the signal for one
/// that was killed).
pub(super) fn exit_code(status: &io::Result<ExitStatus>) -> i32 {
    match status {
        Ok(s) => s
            .code()
            .unwrap_or_else(|| 128 + std::os::unix::process::ExitStatusExt::signal(s).unwrap_or(0)),
        Err(_) => 1,
    }
}

pub(super) async fn write_agent(agent_in: ChildStdin, mut rx: mpsc::Receiver<AgentInput>) {
    let mut agent_in = BufWriter::new(agent_in);
    while let Some(input) = rx.recv().await {
        match input {
            AgentInput::Bytes(bytes) => {
                if agent_in.write_all(&bytes).await.is_err() {
                    break;
                }
                if rx.is_empty() && agent_in.flush().await.is_err() {
                    break;
                }
            }
            AgentInput::Close => break,
        }
    }
    let _ = agent_in.flush().await;
    let _ = agent_in.shutdown().await;
}

async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}

/// How long an agent has to go once it is asked to (the docs' "3 s"): when the editor left,
/// counted from the end of its input, SIGTERM at [`EOF_GRACE`] and SIGKILL at the end; when the
/// proxy is stopped, from SIGTERM. An agent that ignores both is gone in 3 s, not 6.
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// After the editor's input ended: the agent's own time to exit on EOF, before SIGTERM.
const EOF_GRACE: Duration = Duration::from_secs(2);

/// The agent's end, for the app.
pub(super) fn describe(status: &io::Result<ExitStatus>) -> String {
    match status {
        Ok(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(s)) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            _ => "exited".into(),
        },
        Err(e) => format!("could not wait for the agent: {e}"),
    }
}
