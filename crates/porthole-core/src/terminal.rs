//! Terminals the agent asks for (`terminal/*`): real processes whose stdout and stderr are
//! kept in a bounded buffer, streamed to the front end as they arrive, and killed with their
//! process group on kill, release, session end and agent exit.
//!
//! Nothing here waits on the ACP dispatch loop: `wait_for_exit` hands back a future the
//! caller runs on its own task.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, watch};

use crate::events::Event;
use porthole_process::GroupId;

/// Output kept when the agent sets no `outputByteLimit`: terminals must not grow without bound.
pub const DEFAULT_OUTPUT_LIMIT: usize = 4 * 1024 * 1024;

/// How a terminal's process ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExitStatus {
    pub exit_code: Option<u32>,
    pub signal: Option<String>,
}

/// What the agent (or the auth flow) asks to run.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub session_id: Option<String>,
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    pub output_byte_limit: Option<usize>,
    /// Keep stdin open so the user can type into it (interactive login); otherwise stdin is null.
    pub interactive: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TerminalError {
    #[error("unknown terminal `{0}` (never created, or already released)")]
    Unknown(String),
    #[error("the terminal's working directory must be an absolute path: {0}")]
    RelativeCwd(String),
    #[error("cannot start `{command}`: {error}")]
    Spawn { command: String, error: String },
    #[error("this terminal does not accept input")]
    NoInput,
    #[error("could not write to the terminal: {0}")]
    Input(String),
}

/// The retained output of one terminal: at most `limit` bytes, cut at a character boundary.
#[derive(Debug, Default)]
pub struct OutputBuffer {
    text: String,
    limit: usize,
    truncated: bool,
}

impl OutputBuffer {
    pub fn new(limit: usize) -> Self {
        Self {
            text: String::new(),
            limit,
            truncated: false,
        }
    }

    /// Append, then drop from the start until within the limit (the spec's truncation rule).
    pub fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
        if self.text.len() > self.limit {
            let mut cut = self.text.len() - self.limit;
            while !self.text.is_char_boundary(cut) {
                cut += 1;
            }
            self.text.drain(..cut);
            self.truncated = true;
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

struct Terminal {
    session_id: Option<String>,
    /// Its process group: `kill` reaches what the command started, too.
    group: Option<GroupId>,
    output: Mutex<OutputBuffer>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
}

impl Terminal {
    fn kill(&self) {
        if self.exit.borrow().is_none()
            && let Some(group) = self.group
        {
            group.kill();
        }
    }
}

/// All live terminals of one connection.
#[derive(Clone)]
pub struct Terminals {
    live: Arc<Mutex<HashMap<String, Arc<Terminal>>>>,
    events: mpsc::Sender<Event>,
}

impl Terminals {
    pub fn new(events: mpsc::Sender<Event>) -> Self {
        Self {
            live: Arc::default(),
            events,
        }
    }

    fn get(&self, id: &str) -> Result<Arc<Terminal>, TerminalError> {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
            .ok_or_else(|| TerminalError::Unknown(id.to_string()))
    }

    /// Start the process and return its terminal id at once; output streams in the background.
    pub async fn create(&self, spec: Spec) -> Result<String, TerminalError> {
        if let Some(cwd) = &spec.cwd
            && !cwd.is_absolute()
        {
            return Err(TerminalError::RelativeCwd(cwd.display().to_string()));
        }
        let mut command = if spec.args.is_empty() && spec.command.contains(char::is_whitespace) {
            // Agents often send a whole command line with no args; run it the way a shell would.
            let mut c = Command::new("/bin/sh");
            c.arg("-c").arg(&spec.command);
            c
        } else {
            let mut c = Command::new(&spec.command);
            c.args(&spec.args);
            c
        };
        command
            .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(if spec.interactive {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        // Its own process group; dropped before its exit was seen (the connection went), the
        // group is killed.
        let mut group = porthole_process::spawn(command, None).map_err(|e| TerminalError::Spawn {
            command: spec.command.clone(),
            error: e.to_string(),
        })?;

        // Unique in the process, like dialog ids: several connections share one window.
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = format!("term-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let (exit_tx, exit_rx) = watch::channel(None);
        let terminal = Arc::new(Terminal {
            session_id: spec.session_id.clone(),
            group: group.id(),
            output: Mutex::new(OutputBuffer::new(
                spec.output_byte_limit.unwrap_or(DEFAULT_OUTPUT_LIMIT).max(1),
            )),
            exit: exit_rx,
            stdin: tokio::sync::Mutex::new(group.child_mut().stdin.take()),
        });
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), terminal.clone());
        let _ = self
            .events
            .send(Event::TerminalCreated {
                terminal_id: id.clone(),
                session_id: spec.session_id,
                command: spec.command,
                args: spec.args,
                cwd: spec.cwd.map(|c| c.display().to_string()),
            })
            .await;

        let child = group.child_mut();
        let readers = [
            child
                .stdout
                .take()
                .map(|s| self.pump(id.clone(), terminal.clone(), s)),
            child
                .stderr
                .take()
                .map(|s| self.pump(id.clone(), terminal.clone(), s)),
        ];
        let events = self.events.clone();
        let exit_id = id.clone();
        tokio::spawn(async move {
            let status = group.wait().await;
            // Deliver the last output before the exit, as a person reading it would expect.
            for reader in readers.into_iter().flatten() {
                let _ = reader.await;
            }
            let status = match status {
                Ok(s) => exit_status(s),
                Err(_) => ExitStatus {
                    exit_code: None,
                    signal: None,
                },
            };
            let _ = exit_tx.send(Some(status.clone()));
            let _ = events
                .send(Event::TerminalExited {
                    terminal_id: exit_id,
                    exit_code: status.exit_code,
                    signal: status.signal,
                })
                .await;
        });
        Ok(id)
    }

    fn pump<R: AsyncRead + Unpin + Send + 'static>(
        &self,
        id: String,
        terminal: Arc<Terminal>,
        mut reader: R,
    ) -> tokio::task::JoinHandle<()> {
        let events = self.events.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 16 * 1024];
            let mut pending: Vec<u8> = Vec::new();
            loop {
                let n = match reader.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&buf[..n]);
                let text = take_utf8(&mut pending);
                if text.is_empty() {
                    continue;
                }
                let truncated = {
                    let mut out = terminal.output.lock().unwrap_or_else(|p| p.into_inner());
                    out.push(&text);
                    out.truncated()
                };
                let _ = events
                    .send(Event::TerminalOutput {
                        terminal_id: id.clone(),
                        data: text,
                        truncated,
                    })
                    .await;
            }
            if !pending.is_empty() {
                let text = String::from_utf8_lossy(&pending).into_owned();
                terminal
                    .output
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(&text);
                let _ = events
                    .send(Event::TerminalOutput {
                        terminal_id: id,
                        data: text,
                        truncated: false,
                    })
                    .await;
            }
        })
    }

    /// `terminal/output`: the retained output, whether it was truncated, and the exit if any.
    pub fn output(&self, id: &str) -> Result<(String, bool, Option<ExitStatus>), TerminalError> {
        let t = self.get(id)?;
        let out = t.output.lock().unwrap_or_else(|p| p.into_inner());
        Ok((out.text().to_string(), out.truncated(), t.exit.borrow().clone()))
    }

    /// `terminal/wait_for_exit`: a future resolving when the process exits. Run it on its own
    /// task, never on the dispatch loop.
    pub fn wait_for_exit(
        &self,
        id: &str,
    ) -> Result<impl std::future::Future<Output = Option<ExitStatus>> + Send + use<>, TerminalError> {
        let mut exit = self.get(id)?.exit.clone();
        Ok(async move { exit.wait_for(|e| e.is_some()).await.ok().and_then(|e| e.clone()) })
    }

    /// `terminal/kill`: stop the process; the terminal stays valid until released.
    pub fn kill(&self, id: &str) -> Result<(), TerminalError> {
        self.get(id)?.kill();
        Ok(())
    }

    /// `terminal/release`: kill if still running and forget the id.
    pub async fn release(&self, id: &str) -> Result<(), TerminalError> {
        let t = self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
            .ok_or_else(|| TerminalError::Unknown(id.to_string()))?;
        t.kill();
        let _ = self
            .events
            .send(Event::TerminalReleased {
                terminal_id: id.to_string(),
            })
            .await;
        Ok(())
    }

    /// Type into an interactive terminal (the login flow of terminal authentication).
    pub async fn write_input(&self, id: &str, text: &str) -> Result<(), TerminalError> {
        let t = self.get(id)?;
        let mut stdin = t.stdin.lock().await;
        let stdin = stdin.as_mut().ok_or(TerminalError::NoInput)?;
        stdin
            .write_all(text.as_bytes())
            .await
            .map_err(|e| TerminalError::Input(e.to_string()))?;
        stdin
            .flush()
            .await
            .map_err(|e| TerminalError::Input(e.to_string()))
    }

    /// Release every terminal of a session (or all, for `None`): the session or agent is gone.
    pub async fn release_all(&self, session_id: Option<&str>) {
        let ids: Vec<String> = self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, t)| session_id.is_none() || t.session_id.as_deref() == session_id)
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            let _ = self.release(&id).await;
        }
    }
}

/// The longest valid UTF-8 prefix of `pending` as text; an incomplete trailing character waits
/// for the next read, invalid bytes become U+FFFD.
fn take_utf8(pending: &mut Vec<u8>) -> String {
    match std::str::from_utf8(pending) {
        Ok(s) => {
            let s = s.to_string();
            pending.clear();
            s
        }
        Err(e) if e.error_len().is_none() => {
            let valid = e.valid_up_to();
            let s = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            s
        }
        Err(_) => {
            let s = String::from_utf8_lossy(pending).into_owned();
            pending.clear();
            s
        }
    }
}

fn exit_status(status: std::process::ExitStatus) -> ExitStatus {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status).map(porthole_process::signal_name);
    #[cfg(not(unix))]
    let signal = None;
    ExitStatus {
        exit_code: status.code().map(|c| c as u32),
        signal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(command: &str, args: &[&str]) -> Spec {
        Spec {
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            ..Spec::default()
        }
    }

    #[test]
    fn buffer_truncates_from_the_start_at_a_char_boundary() {
        let mut b = OutputBuffer::new(5);
        b.push("ab");
        assert!(!b.truncated());
        b.push("cdé"); // 'é' is two bytes: 6 bytes in all
        assert!(b.truncated());
        assert_eq!(b.text(), "bcdé");
        b.push("€"); // three bytes
        assert_eq!(b.text(), "é€");
    }

    #[test]
    fn partial_utf8_waits_for_the_rest() {
        let mut pending = vec![b'a', 0xE2, 0x82];
        assert_eq!(take_utf8(&mut pending), "a");
        pending.push(0xAC);
        assert_eq!(take_utf8(&mut pending), "€");
        assert!(pending.is_empty());
    }

    #[tokio::test]
    async fn runs_a_command_and_reports_output_and_exit_code() {
        let (tx, mut rx) = mpsc::channel(64);
        let terms = Terminals::new(tx);
        let id = terms
            .create(spec("/bin/sh", &["-c", "echo out; echo err >&2; exit 3"]))
            .await
            .unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(10), terms.wait_for_exit(&id).unwrap())
            .await
            .unwrap();
        assert_eq!(
            exit,
            Some(ExitStatus {
                exit_code: Some(3),
                signal: None
            })
        );
        let (text, truncated, status) = terms.output(&id).unwrap();
        assert!(text.contains("out\n") && text.contains("err\n"), "{text:?}");
        assert!(!truncated);
        assert_eq!(status.unwrap().exit_code, Some(3));
        let mut kinds = Vec::new();
        while let Ok(e) = rx.try_recv() {
            kinds.push(match e {
                Event::TerminalCreated { .. } => "created",
                Event::TerminalOutput { .. } => "output",
                Event::TerminalExited { .. } => "exited",
                _ => "other",
            });
        }
        assert_eq!(kinds.first(), Some(&"created"));
        assert_eq!(kinds.last(), Some(&"exited"));
        assert!(kinds.contains(&"output"));
    }

    #[tokio::test]
    async fn output_limit_truncates_and_says_so() {
        let (tx, _rx) = mpsc::channel(1024);
        let terms = Terminals::new(tx);
        let mut s = spec(
            "/bin/sh",
            &[
                "-c",
                "i=0; while [ $i -lt 200 ]; do echo line-$i; i=$((i+1)); done",
            ],
        );
        s.output_byte_limit = Some(64);
        let id = terms.create(s).await.unwrap();
        terms.wait_for_exit(&id).unwrap().await;
        let (text, truncated, _) = terms.output(&id).unwrap();
        assert!(truncated);
        assert!(text.len() <= 64);
        assert!(text.ends_with("line-199\n"), "{text:?}");
    }

    #[tokio::test]
    async fn kill_stops_a_process_that_never_exits_and_release_forgets_it() {
        let (tx, _rx) = mpsc::channel(64);
        let terms = Terminals::new(tx);
        let id = terms.create(spec("sleep", &["1000"])).await.unwrap();
        terms.kill(&id).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(10), terms.wait_for_exit(&id).unwrap())
            .await
            .expect("killed process exits")
            .unwrap();
        assert_eq!(exit.signal.as_deref(), Some("SIGKILL"));
        assert!(terms.output(&id).is_ok(), "still valid after kill");
        terms.release(&id).await.unwrap();
        assert_eq!(terms.output(&id).unwrap_err(), TerminalError::Unknown(id.clone()));
        assert!(terms.release(&id).await.is_err());
    }

    #[tokio::test]
    async fn relative_cwd_and_missing_program_are_clear_errors() {
        let (tx, _rx) = mpsc::channel(64);
        let terms = Terminals::new(tx);
        let mut s = spec("true", &[]);
        s.cwd = Some("relative/dir".into());
        assert!(matches!(
            terms.create(s).await,
            Err(TerminalError::RelativeCwd(_))
        ));
        let err = terms.create(spec("/nonexistent/program", &[])).await.unwrap_err();
        assert!(err.to_string().contains("/nonexistent/program"), "{err}");
    }

    #[tokio::test]
    async fn interactive_terminal_takes_input() {
        let (tx, _rx) = mpsc::channel(64);
        let terms = Terminals::new(tx);
        let mut s = spec("/bin/sh", &["-c", "read name; echo hello-$name"]);
        s.interactive = true;
        let id = terms.create(s).await.unwrap();
        terms.write_input(&id, "porthole\n").await.unwrap();
        terms.wait_for_exit(&id).unwrap().await;
        assert!(terms.output(&id).unwrap().0.contains("hello-porthole"));
        let plain = terms.create(spec("true", &[])).await.unwrap();
        assert_eq!(terms.write_input(&plain, "x").await, Err(TerminalError::NoInput));
    }
}
