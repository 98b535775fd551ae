//! The agent as a child process: spawn it (in its own process group, through
//! `porthole-process`), keep a bounded tail of its stderr, and report how it exited.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use porthole_process::Group;
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};

/// How to start an agent: a program with arguments, extra environment and a working directory.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentCommand {
    pub program: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: Vec<(String, String)>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

impl AgentCommand {
    /// Parse a shell-style command line (`npx -y some-agent --acp`), with POSIX quoting rules.
    pub fn parse(command_line: &str) -> Result<Self, String> {
        let words =
            shell_words::split(command_line).map_err(|e| format!("cannot parse agent command line: {e}"))?;
        let mut words = words.into_iter();
        let program = words
            .next()
            .ok_or_else(|| "the agent command line is empty".to_string())?;
        Ok(Self {
            program,
            args: words.collect(),
            env: Vec::new(),
            cwd: None,
        })
    }

    /// A short name for the agent when it gives none: the program's file name, or for a package
    /// runner (`npx -y @scope/agent@1.2`, `uvx agent`) the package it runs.
    pub fn file_name(&self) -> String {
        let base = |s: &str| s.rsplit(['/', '\\']).next().unwrap_or(s).to_string();
        let program = base(&self.program);
        let runner = matches!(
            program.trim_end_matches(".exe").trim_end_matches(".cmd"),
            "npx" | "uvx" | "bunx" | "pnpx" | "pipx" | "node" | "deno" | "bun" | "python" | "python3"
        );
        if runner
            && let Some(package) = self
                .args
                .iter()
                .find(|a| !a.starts_with('-') && a.as_str() != "run")
        {
            // Drop a version (`agent@1.2`, but keep a leading `@scope`), then the scope or path.
            let unversioned = match package.rfind('@') {
                Some(at) if at > 0 => &package[..at],
                _ => package.as_str(),
            };
            return base(unversioned);
        }
        program
    }

    /// The command as one line, for messages.
    pub fn display(&self) -> String {
        let mut all = vec![self.program.clone()];
        all.extend(self.args.iter().cloned());
        shell_words::join(all)
    }
}

/// How many bytes of stderr we keep for error messages and the log view.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// A bounded ring of the agent's most recent stderr output.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<TailState>>);

#[derive(Default)]
struct TailState {
    bytes: VecDeque<u8>,
    dropped: u64,
}

impl StderrTail {
    fn push(&self, chunk: &[u8]) {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        state.bytes.extend(chunk);
        let excess = state.bytes.len().saturating_sub(STDERR_TAIL_BYTES);
        if excess > 0 {
            state.bytes.drain(..excess);
            state.dropped += excess as u64;
        }
    }

    /// The kept tail as text (lossy UTF-8), prefixed with a note when older output was dropped.
    pub fn text(&self) -> String {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let text = String::from_utf8_lossy(state.bytes.make_contiguous()).into_owned();
        if state.dropped > 0 {
            format!("[{} earlier bytes of stderr not kept]\n{text}", state.dropped)
        } else {
            text
        }
    }

    /// The last `lines` lines, for short error messages.
    pub fn last_lines(&self, lines: usize) -> String {
        let text = self.text();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// A running agent process with its pipes taken apart.
pub struct AgentProcess {
    /// The agent, leading its own process group (`porthole-process`): stopping it reaches
    /// whatever it started.
    pub group: Group,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr_tail: StderrTail,
    /// Fires once stderr reached EOF (so the tail is complete).
    pub stderr_done: tokio::sync::watch::Receiver<bool>,
}

/// Start the agent, in its own process group so shutdown can reach its children; dropping the
/// group before the agent was waited for kills it.
pub fn spawn(command: &AgentCommand) -> Result<AgentProcess, String> {
    let mut cmd = Command::new(&command.program);
    cmd.args(&command.args)
        .envs(command.env.iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &command.cwd {
        cmd.current_dir(cwd);
    }
    let mut group = porthole_process::spawn(cmd, None)
        .map_err(|e| format!("cannot start agent `{}`: {e}", command.display()))?;
    let child = group.child_mut();
    let stdin = child.stdin.take().ok_or("agent stdin unavailable")?;
    let stdout = child.stdout.take().ok_or("agent stdout unavailable")?;
    // The pipe holds 64 KiB by default, so a streaming agent and the client take turns every
    // ~400 short updates; 1 MiB lets each run longer per wakeup.
    #[cfg(unix)]
    porthole_process::widen_pipe(&stdout, 1 << 20);
    let mut stderr = child.stderr.take().ok_or("agent stderr unavailable")?;
    let stderr_tail = StderrTail::default();
    let (done_tx, stderr_done) = tokio::sync::watch::channel(false);
    let tail = stderr_tail.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let chunk = &buf[..n];
                    tracing::debug!(target: "porthole::agent_stderr", "{}", String::from_utf8_lossy(chunk));
                    tail.push(chunk);
                }
            }
        }
        let _ = done_tx.send(true);
    });
    Ok(AgentProcess {
        group,
        stdin,
        stdout,
        stderr_tail,
        stderr_done,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_is_the_program_or_the_package_a_runner_runs() {
        let name = |line: &str| AgentCommand::parse(line).unwrap().file_name();
        assert_eq!(name("/opt/agents/my-agent --acp"), "my-agent");
        assert_eq!(name("gemini --acp"), "gemini");
        assert_eq!(
            name("npx -y @agentclientprotocol/claude-agent-acp@0.49.0"),
            "claude-agent-acp"
        );
        assert_eq!(name("uvx fast-agent-acp@1.0 --acp"), "fast-agent-acp");
        assert_eq!(name("node ./dist/agent.js"), "agent.js");
        assert_eq!(name("npx"), "npx");
    }

    #[test]
    fn parses_command_lines_with_quotes() {
        let c = AgentCommand::parse("npx -y 'my agent' --flag=\"a b\"").unwrap();
        assert_eq!(c.program, "npx");
        assert_eq!(c.args, vec!["-y", "my agent", "--flag=a b"]);
        assert!(AgentCommand::parse("   ").is_err());
        assert!(AgentCommand::parse("unterminated 'quote").is_err());
    }

    #[test]
    fn stderr_tail_is_bounded() {
        let tail = StderrTail::default();
        for _ in 0..100 {
            tail.push(&[b'x'; 4096]);
        }
        tail.push(b"\nlast line\n");
        let text = tail.text();
        assert!(text.len() <= STDERR_TAIL_BYTES + 100);
        assert!(text.starts_with('['));
        assert_eq!(tail.last_lines(1), "last line");
    }
}
