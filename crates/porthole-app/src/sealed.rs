//! Parent side of the sealed URL view: spawns `porthole sealed-view` (see `sealed_view.rs`) once per
//! dialog, hands it the URL on stdin, and forwards its lifecycle lines.
//!
//! Only the known lifecycle events are forwarded, and only a scheme-like `detail` for
//! `navigation_blocked`: whatever else the child prints is dropped. A child that exits without
//! having said `closed` is reported as `crashed`. Children closed by [`SealedViews::close_all`]
//! (agent exit, restart, app exit) report nothing more.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The lifecycle events the sealed process may print (`porthole sealed-view`). The parent
/// accepts nothing else.
pub const LIFECYCLE_EVENTS: [&str; 4] = ["opened", "navigation_blocked", "load_failed", "closed"];

/// A sealed view keeps its web data in `<TMPDIR>/porthole-sealed-<pid>-<nanos>` (mode 0700) and
/// removes it when it closes. One that is killed cannot: the parent removes it when it sees the
/// view die, and the next view sweeps those of any view whose process is gone (the app itself
/// may have been killed).
pub const DATA_DIR_PREFIX: &str = "porthole-sealed-";

/// Called with (dialog id, state, detail) for every lifecycle event, from a reader thread.
pub type OnEvent = Arc<dyn Fn(u64, &str, Option<String>) + Send + Sync>;

struct View {
    /// Distinguishes this child from a later one for the same dialog.
    instance: u64,
    child: Child,
    stdin: Option<ChildStdin>,
}

/// What [`SealedViews::open`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Opened {
    New,
    /// A window for this dialog is already open; nothing was started.
    AlreadyOpen,
}

/// The sealed views currently open, by dialog id.
#[derive(Clone)]
pub struct SealedViews {
    views: Arc<Mutex<HashMap<u64, View>>>,
    next_instance: Arc<AtomicU64>,
    on_event: OnEvent,
    /// The program and arguments that run a sealed view: `porthole sealed-view` (tests swap it).
    command: Arc<(PathBuf, Vec<String>)>,
}

impl SealedViews {
    /// Sealed views run as `<this executable> sealed-view`.
    pub fn new(on_event: OnEvent) -> Self {
        let exe = std::env::current_exe().unwrap_or_else(|e| {
            tracing::warn!("cannot find the porthole binary ({e}); trying `porthole` on PATH");
            PathBuf::from("porthole")
        });
        Self::with_command(exe, vec!["sealed-view".into()], on_event)
    }

    pub fn with_command(program: PathBuf, args: Vec<String>, on_event: OnEvent) -> Self {
        Self {
            views: Arc::default(),
            next_instance: Arc::new(AtomicU64::new(1)),
            on_event,
            command: Arc::new((program, args)),
        }
    }

    fn views(&self) -> std::sync::MutexGuard<'_, HashMap<u64, View>> {
        self.views.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Open `url` in a sealed window for `dialog_id`, unless one is already open.
    pub fn open(&self, dialog_id: u64, url: &str, agent: &str) -> Result<Opened, String> {
        let mut views = self.views();
        if let Some(view) = views.get_mut(&dialog_id) {
            if matches!(view.child.try_wait(), Ok(None)) {
                return Ok(Opened::AlreadyOpen);
            }
            // Exited; its reader thread reports it. Forget it and start a new one.
            views.remove(&dialog_id);
        }
        let (program, args) = &*self.command;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // The child's stderr may carry WebKit messages about the page: keep it out of the app.
            .stderr(Stdio::null());
        let mut child = spawn_from_long_lived_thread(command)
            .map_err(|e| format!("cannot start the sealed window: {e}"))?;
        let mut stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let request = json!({"url": url, "agent": agent, "dialogId": dialog_id});
        if let Err(e) = writeln!(stdin, "{request}").and_then(|_| stdin.flush()) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("cannot talk to the sealed window: {e}"));
        }
        let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
        views.insert(
            dialog_id,
            View {
                instance,
                child,
                stdin: Some(stdin),
            },
        );
        drop(views);

        let this = self.clone();
        std::thread::Builder::new()
            .name(format!("sealed-view-{dialog_id}"))
            .spawn(move || this.read_events(dialog_id, instance, stdout))
            .map_err(|e| format!("cannot watch the sealed window: {e}"))?;
        Ok(Opened::New)
    }

    fn read_events(&self, dialog_id: u64, instance: u64, stdout: std::process::ChildStdout) {
        let mut saw_closed = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some((event, detail)) = parse_lifecycle(&line) else {
                tracing::warn!(dialog_id, "ignoring an unexpected line from the sealed window");
                continue;
            };
            if !self.is_current(dialog_id, instance) {
                continue;
            }
            saw_closed |= event == "closed";
            (self.on_event)(dialog_id, event, detail);
        }
        // stdout closed: the child is exiting. Reap it unless close_all already took it.
        let view = {
            let mut views = self.views();
            match views.get(&dialog_id) {
                Some(v) if v.instance == instance => views.remove(&dialog_id),
                _ => None,
            }
        };
        if let Some(mut view) = view {
            drop(view.stdin.take());
            let status = wait_or_kill(&mut view.child, Duration::from_secs(2));
            if !saw_closed {
                // Killed or crashed: its cookies and storage must not wait for the next view.
                remove_data_dirs_of(&std::env::temp_dir(), view.child.id());
                (self.on_event)(dialog_id, "crashed", Some(status));
            }
        }
    }

    fn is_current(&self, dialog_id: u64, instance: u64) -> bool {
        self.views()
            .get(&dialog_id)
            .is_some_and(|v| v.instance == instance)
    }

    /// Close the sealed window of one dialog, if it is open (the user is done with it).
    /// Close the sealed window of `dialog_id`; false when none was open.
    pub fn close(&self, dialog_id: u64) -> bool {
        let Some(mut view) = self.views().remove(&dialog_id) else {
            return false;
        };
        if let Some(mut stdin) = view.stdin.take() {
            let _ = stdin
                .write_all(b"{\"cmd\":\"close\"}\n")
                .and_then(|_| stdin.flush());
        }
        std::thread::spawn(move || {
            wait_or_kill(&mut view.child, Duration::from_secs(2));
        });
        true
    }

    /// Close every sealed window: ask politely, then kill after `grace`. Blocks up to `grace`.
    pub fn close_all(&self, grace: Duration) {
        let views: Vec<View> = self.views().drain().map(|(_, v)| v).collect();
        if views.is_empty() {
            return;
        }
        let mut views = views;
        for view in &mut views {
            if let Some(mut stdin) = view.stdin.take() {
                let _ = stdin
                    .write_all(b"{\"cmd\":\"close\"}\n")
                    .and_then(|_| stdin.flush());
            }
        }
        let deadline = Instant::now() + grace;
        for view in &mut views {
            let left = deadline.saturating_duration_since(Instant::now());
            wait_or_kill(&mut view.child, left);
        }
    }
}

/// Spawn on one thread that lives as long as the app. The sealed view sets PR_SET_PDEATHSIG,
/// which fires when the *thread* that forked it exits: spawning from a short-lived worker thread
/// would kill the window early.
fn spawn_from_long_lived_thread(command: Command) -> std::io::Result<Child> {
    type Job = (Command, std::sync::mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: std::sync::OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> = std::sync::OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sealed-view-spawner".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("spawn the sealed-view spawner thread");
        Mutex::new(tx)
    });
    let (reply, result) = std::sync::mpsc::channel();
    spawner
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
    result
        .recv()
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?
}

/// Wait up to `grace` for the child to exit, then kill it. Returns the exit status as text.
fn wait_or_kill(child: &mut Child, grace: Duration) -> String {
    let deadline = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.to_string(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => break,
        }
    }
    let _ = child.kill();
    match child.wait() {
        Ok(status) => status.to_string(),
        Err(e) => e.to_string(),
    }
}

/// Remove the data directories of the view that ran as `pid` (it has exited and been reaped).
fn remove_data_dirs_of(temp: &std::path::Path, pid: u32) {
    let prefix = format!("{DATA_DIR_PREFIX}{pid}-");
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let is_its_dir = entry.file_name().to_str().is_some_and(|n| n.starts_with(&prefix))
            && entry.file_type().is_ok_and(|t| t.is_dir());
        if is_its_dir && let Err(e) = std::fs::remove_dir_all(entry.path()) {
            tracing::warn!("cannot remove a crashed sealed window's data directory: {e}");
        }
    }
}

/// A lifecycle line: a known event and, for `navigation_blocked`, a scheme-like detail.
fn parse_lifecycle(line: &str) -> Option<(&'static str, Option<String>)> {
    let value: Value = serde_json::from_str(line).ok()?;
    let name = value.get("event")?.as_str()?;
    let event = *LIFECYCLE_EVENTS.iter().find(|e| **e == name)?;
    let detail = match event {
        "navigation_blocked" => value
            .get("detail")
            .and_then(Value::as_str)
            .filter(|d| {
                !d.is_empty()
                    && d.len() <= 32
                    && d.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            })
            .map(str::to_string),
        _ => None,
    };
    Some((event, detail))
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{Receiver, channel};

    use super::*;

    type Seen = (u64, String, Option<String>);

    /// A fake sealed view: a shell script in place of `porthole sealed-view`.
    fn fake(script: &str) -> (SealedViews, Receiver<Seen>) {
        let (tx, rx) = channel();
        let tx = Mutex::new(tx);
        let on_event: OnEvent = Arc::new(move |id, state, detail| {
            let _ = tx.lock().unwrap().send((id, state.to_string(), detail));
        });
        let views = SealedViews::with_command("sh".into(), vec!["-c".into(), script.into()], on_event);
        (views, rx)
    }

    fn next(rx: &Receiver<Seen>) -> Seen {
        rx.recv_timeout(Duration::from_secs(10)).expect("an event")
    }

    #[test]
    fn forwards_lifecycle_and_reports_a_crash() {
        // Checks the request line arrives on stdin, then prints junk and dies without "closed".
        let (views, rx) = fake(
            r#"read l; case "$l" in *'"dialogId":5'*'"url":"https://x.test/?s=1"'*|*'"url":"https://x.test/?s=1"'*'"dialogId":5'*) ;; *) exit 9;; esac
               echo '{"event":"opened"}'; echo 'https://leak.test/?state=1'
               echo '{"event":"navigation_blocked","detail":"file"}'; exit 4"#,
        );
        assert_eq!(views.open(5, "https://x.test/?s=1", "A"), Ok(Opened::New));
        assert_eq!(next(&rx), (5, "opened".into(), None));
        assert_eq!(next(&rx), (5, "navigation_blocked".into(), Some("file".into())));
        let (id, state, detail) = next(&rx);
        assert_eq!((id, state.as_str()), (5, "crashed"));
        assert!(detail.unwrap().contains('4'));
    }

    #[test]
    fn a_killed_views_data_directory_is_removed_before_crashed_is_reported() {
        // Like a view: a 0700 data directory named for its pid, then SIGKILL (it cannot clean up).
        let (views, rx) = fake(
            r#"read l; d="${TMPDIR:-/tmp}/porthole-sealed-$$-000000001"; mkdir -m 700 "$d"
               echo 'session=secret' > "$d/cookies"; echo '{"event":"opened"}'; kill -9 $$"#,
        );
        assert_eq!(views.open(6, "https://x.test/", "A"), Ok(Opened::New));
        assert_eq!(next(&rx), (6, "opened".into(), None));
        let (_, state, detail) = next(&rx);
        assert_eq!(state, "crashed");
        assert!(detail.unwrap().contains("SIGKILL"));
        let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with("-000000001"))
            .filter(|e| e.file_name().to_string_lossy().starts_with(DATA_DIR_PREFIX))
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn reopen_while_open_starts_nothing_and_close_all_closes() {
        let (views, rx) = fake(
            r#"read l; echo '{"event":"opened"}'; read c; [ "$c" = '{"cmd":"close"}' ] && echo '{"event":"closed"}'"#,
        );
        assert_eq!(views.open(1, "https://x.test/", "A"), Ok(Opened::New));
        assert_eq!(next(&rx), (1, "opened".into(), None));
        assert_eq!(views.open(1, "https://x.test/", "A"), Ok(Opened::AlreadyOpen));
        let started = Instant::now();
        views.close_all(Duration::from_secs(5));
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "closed politely, not killed"
        );
        assert!(views.views().is_empty());
        // Closed by us: nothing more is reported (no "crashed").
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    }

    #[test]
    fn close_all_kills_a_child_that_ignores_close() {
        let (views, _rx) = fake("read l; trap '' TERM; exec sleep 30");
        assert_eq!(views.open(2, "https://x.test/", "A"), Ok(Opened::New));
        let started = Instant::now();
        views.close_all(Duration::from_millis(300));
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(views.views().is_empty());
    }

    #[test]
    fn only_lifecycle_lines_pass() {
        assert_eq!(parse_lifecycle(r#"{"event":"opened"}"#), Some(("opened", None)));
        assert_eq!(
            parse_lifecycle(r#"{"event":"navigation_blocked","detail":"file"}"#),
            Some(("navigation_blocked", Some("file".into())))
        );
        assert_eq!(
            parse_lifecycle(r#"{"event":"navigation_blocked","detail":"https://x/?state=1"}"#),
            Some(("navigation_blocked", None))
        );
        assert_eq!(
            parse_lifecycle(r#"{"event":"opened","detail":"secret"}"#),
            Some(("opened", None))
        );
        assert_eq!(parse_lifecycle(r#"{"event":"crashed"}"#), None);
        assert_eq!(parse_lifecycle("https://example.com/?state=1"), None);
    }
}
