//! Crash consistency of the consent history (issue 24, part 2): the app model answers a stream
//! of dialogs (a form, a permission and a URL elicitation at a time, from the test agent's
//! `consent-loop`) and is killed with SIGKILL at a random moment; separately, the agent is
//! killed under a live app. After every kill:
//!
//! - the history opens (no damage notice, no `.corrupt-` file), and the next start is clean;
//! - every answer the agent received (its `PORTHOLE_TEST_AGENT_LOG`) is in the history, once,
//!   with the same action or option;
//! - no dialog has two entries (every message is unique per round and kind);
//! - with the agent killed: every dialog the app showed has exactly one entry (answered or
//!   `dismissed` with `agent_exited`), and the app stops cleanly afterwards;
//! - no process is left behind (the agent of a killed app exits).
//!
//! The app model runs in a child process: this test binary again, running [`crash_child`].
//! `cargo test -p porthole-app --test crash_consistency` does 20 app kills and 10 agent kills;
//! `PORTHOLE_CRASH_ROUNDS=200 cargo test -p porthole-app --test crash_consistency -- --ignored
//! two_hundred --nocapture` does 200 of each and prints the counts.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{FakeShell, workspace_bin};
use porthole_app::{Backend, Launch};
use porthole_history::HistoryStore;
use serde_json::{Value, json};

const CHILD_DIR: &str = "PORTHOLE_CRASH_CHILD";
const CHILD_ROUND: &str = "PORTHOLE_CRASH_ROUND";
const CHILD_AGENT: &str = "PORTHOLE_CRASH_AGENT";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kill {
    App,
    Agent,
}

#[derive(Default, Debug)]
struct Counts {
    rounds: usize,
    /// Answers the agent received, each checked against the history.
    acknowledged: usize,
    /// Answers recorded ahead of sending that the agent never received (the kill came between).
    written_ahead: usize,
    /// Dialogs recorded as dismissed (the agent died with them open).
    dismissed: usize,
    entries: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_app_kills_and_ten_agent_kills_keep_the_history_consistent() {
    let counts = run(Kill::App, 20);
    assert!(
        counts.acknowledged > 0,
        "the kills came before any answer: {counts:?}"
    );
    run(Kill::Agent, 10);
}

/// `PORTHOLE_CRASH_ROUNDS` (default 200) kills of each kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run by hand (see the module docs)"]
async fn two_hundred_kills_of_each_kind() {
    let rounds = std::env::var("PORTHOLE_CRASH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    run(Kill::App, rounds);
    run(Kill::Agent, rounds);
}

fn run(kill: Kill, rounds: usize) -> Counts {
    let agent = workspace_bin("porthole-test-agent", "porthole-test-agent");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("work")).unwrap();
    let (mut rng, seed) = seeded_rng();
    println!("{kill:?} kills: {rounds} rounds, seed {seed}");
    let mut counts = Counts::default();
    let started = Instant::now();
    for round in 0..rounds {
        // 150-1500 ms into the run: start-up, the session, and a few to a few dozen answers.
        let delay = Duration::from_millis(150 + rng.u64(..1350));
        one_round(kill, round, delay, &agent, dir.path(), &mut counts);
    }
    let history = dir.path().join("history.sqlite3");
    let total = entries(&history).len();
    counts.entries = total;
    println!(
        "{kill:?} kills: {} rounds in {:.0} s; {} answers the agent received, all in the history once; \
         {} recorded ahead and never delivered; {} dismissed; {} entries, no duplicates; no orphan, no damaged file",
        counts.rounds,
        started.elapsed().as_secs_f64(),
        counts.acknowledged,
        counts.written_ahead,
        counts.dismissed,
        counts.entries
    );
    counts
}

fn one_round(kill: Kill, round: usize, delay: Duration, agent: &Path, dir: &Path, counts: &mut Counts) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "crash_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir)
        .env(CHILD_ROUND, round.to_string())
        .env(CHILD_AGENT, agent)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child_pid = child.id();
    std::thread::sleep(delay);
    // The agent is the child's only child process.
    let agent_pid = wait_for(Duration::from_secs(10), || children(child_pid).into_iter().next())
        .unwrap_or_else(|| panic!("round {round}: the agent did not start"));
    match kill {
        Kill::App => {
            sigkill(child_pid);
            let _ = child.wait();
            // The agent's stdin closes with the app: it must exit on its own.
            assert!(
                wait_for(Duration::from_secs(5), || (!alive(agent_pid)).then_some(())).is_some(),
                "round {round}: the agent {agent_pid} outlived the killed app"
            );
        }
        Kill::Agent => {
            sigkill(agent_pid);
            // The app records the open dialogs as dismissed and stops cleanly.
            let status =
                wait_for(Duration::from_secs(20), || child.try_wait().unwrap()).unwrap_or_else(|| {
                    let _ = child.kill();
                    panic!("round {round}: the app did not stop after the agent died")
                });
            assert!(status.success(), "round {round}: the app model failed: {status}");
            assert!(!alive(agent_pid));
        }
    }
    check_round(kill, round, dir, counts);
}

/// Checks the history against what the agent received (and, for agent kills, what was shown).
fn check_round(kill: Kill, round: usize, dir: &Path, counts: &mut Counts) {
    let history = dir.join("history.sqlite3");
    let all = entries(&history);
    for name in std::fs::read_dir(dir).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().to_string();
        assert!(
            !name.contains(".corrupt-"),
            "round {round}: a damaged history was moved aside: {name}"
        );
    }
    // Every message at most once, over every round so far.
    let mut by_message: HashMap<String, Value> = HashMap::new();
    for e in &all {
        let message = e["message"].as_str().unwrap().to_string();
        assert!(
            by_message.insert(message.clone(), e.clone()).is_none(),
            "round {round}: two entries for {message}"
        );
    }
    let received = received_answers(&dir.join(format!("agent-{round}.log")));
    for (message, answer) in &received {
        let entry = by_message.get(message).unwrap_or_else(|| {
            panic!("round {round}: the agent got an answer to {message:?} ({answer}) the history lacks")
        });
        assert_eq!(
            &expected_record(answer),
            &(entry["action"].clone(), entry["permission"]["optionId"].clone()),
            "round {round}: {message}: the agent got {answer}, the history has {entry}"
        );
    }
    let this_round: Vec<&Value> = all
        .iter()
        .filter(|e| round_of(e["message"].as_str().unwrap()) == Some(round))
        .collect();
    let dismissed = this_round.iter().filter(|e| e["action"] == "dismissed").count();
    counts.rounds += 1;
    counts.acknowledged += received.len();
    counts.dismissed += dismissed;
    counts.written_ahead += this_round.len() - dismissed - received.len();
    match kill {
        Kill::App => assert_eq!(dismissed, 0, "round {round}: nothing dismisses after SIGKILL"),
        Kill::Agent => {
            // Every dialog the window was shown has its one entry: answered or dismissed.
            let shown = std::fs::read_to_string(dir.join(format!("shown-{round}.txt"))).unwrap_or_default();
            // Those the agent did not get an answer to are dismissed (agent_exited), or were
            // answered as it died (recorded ahead of a send that never arrived).
            for message in shown.lines() {
                let entry = by_message
                    .get(message)
                    .unwrap_or_else(|| panic!("round {round}: the dialog {message:?} has no entry"));
                if entry["action"] == "dismissed" {
                    assert_eq!(entry["detail"], "agent_exited", "round {round}: {entry}");
                }
            }
        }
    }
}

/// What the history should hold for an answer the agent got: (action, option id).
fn expected_record(answer: &Value) -> (Value, Value) {
    if let Some(action) = answer.get("action") {
        return (action.clone(), Value::Null);
    }
    match answer["outcome"]["outcome"].as_str() {
        Some("selected") => (json!("selected"), answer["outcome"]["optionId"].clone()),
        _ => (json!("cancel"), Value::Null),
    }
}

/// Every entry of the history at `path`, opened as the next start would open it.
fn entries(path: &Path) -> Vec<Value> {
    let opened = HistoryStore::open(path).expect("the history opens");
    assert!(opened.notice.is_none(), "{:?}", opened.notice);
    let export = opened.store.export_json().unwrap();
    export["entries"].as_array().unwrap().clone()
}

/// The answers in the agent's log of what the client sent, by the dialog's message.
fn received_answers(log: &Path) -> HashMap<String, Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut answers = HashMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (Some(id), Some(result)) = (v["id"].as_str(), v.get("result")) else {
            continue;
        };
        let kind = match id.get(..3) {
            Some("cf-") => "form",
            Some("cp-") => "permission",
            Some("cu-") => "url",
            _ => continue,
        };
        answers.insert(format!("consent {kind} {}", &id[3..]), result.clone());
    }
    answers
}

/// `consent form 12-3` -> 12.
fn round_of(message: &str) -> Option<usize> {
    let key = message.rsplit(' ').next()?;
    key.split('-').next()?.parse().ok()
}

fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    out
}

/// Running (a zombie waiting for its reaper counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn sigkill(pid: u32) {
    let status = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {pid}");
}

fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The random source for when to kill: fastrand (already in the dependency graph), seeded
/// from `PORTHOLE_CRASH_SEED` to repeat a run, else at random; the seed is printed.
fn seeded_rng() -> (fastrand::Rng, u64) {
    let seed = std::env::var("PORTHOLE_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    (fastrand::Rng::with_seed(seed), seed)
}

/// The app model under test, in a child process (see the module docs). Does nothing unless
/// started by [`one_round`].
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the child process of the crash tests"]
async fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_DIR).map(PathBuf::from) else {
        return;
    };
    let round: usize = std::env::var(CHILD_ROUND).unwrap().parse().unwrap();
    let agent = std::env::var(CHILD_AGENT).unwrap();
    let home = dir.join("home");
    // SAFETY: set before the app model starts any thread that reads the environment.
    unsafe {
        std::env::set_var("HOME", &home);
        std::env::set_var("XDG_CONFIG_HOME", home.join(".config"));
        std::env::set_var("XDG_DATA_HOME", home.join(".local/share"));
        std::env::set_var("XDG_CACHE_HOME", home.join(".cache"));
        std::env::set_var("PORTHOLE_HISTORY_FILE", dir.join("history.sqlite3"));
        std::env::set_var("PORTHOLE_TEST_AGENT_LOG", dir.join(format!("agent-{round}.log")));
        std::env::remove_var("PORTHOLE_AGENT");
    }
    let launch = Launch::from_args(Some(&agent), Some(dir.join("work"))).expect("launch");
    let shell = Arc::new(FakeShell::default());
    let backend = Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    backend.start();
    let snapshot = shell
        .wait_for("a session", |e| {
            e["type"] == "connection"
                && e["snapshot"]["sessions"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty())
        })
        .await;
    let session = snapshot["snapshot"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    backend
        .send_prompt(&session, &format!("consent-loop {round}"), &[])
        .unwrap();
    let mut shown = std::fs::File::create(dir.join(format!("shown-{round}.txt"))).unwrap();
    let mut answered = HashSet::new();
    let mut n = 0usize;
    let mut last_check = Instant::now();
    loop {
        let events = std::mem::take(&mut *shell.events.lock().unwrap());
        // Dialogs reach the window in the app model's list of waiting dialogs (`dialogs`).
        let listed = events
            .iter()
            .filter(|e| e["type"] == "dialogs")
            .flat_map(|e| e["dialogs"].as_array().cloned().unwrap_or_default());
        for e in listed {
            let Some(dialog) = e["dialogId"].as_u64() else {
                continue;
            };
            let message = match e["type"].as_str() {
                Some("elicitation") => e["message"].as_str().unwrap_or_default().to_string(),
                Some("permission") => e["toolCall"]["title"].as_str().unwrap_or_default().to_string(),
                _ => continue,
            };
            if !answered.insert(dialog) {
                continue;
            }
            use std::io::Write;
            writeln!(shown, "{message}").unwrap();
            n += 1;
            // Answers fail once the agent is gone: that is the agent-kill case.
            let _ = if e["type"] == "permission" {
                let option = [Some("yes"), Some("no"), None][n % 3].map(str::to_string);
                backend.answer_permission(dialog, option)
            } else {
                let action = ["accept", "decline", "cancel"][n % 3];
                let content = (action == "accept" && e["mode"] == "form").then(|| {
                    serde_json::Map::from_iter([
                        ("name".to_string(), json!("alpha")),
                        ("port".to_string(), json!(8080)),
                        ("fast".to_string(), json!(true)),
                    ])
                });
                backend.answer_elicitation(dialog, action, content)
            };
        }
        if last_check.elapsed() > Duration::from_millis(50) {
            last_check = Instant::now();
            let state = serde_json::to_value(backend.app_state()).unwrap();
            if state["snapshot"]["connections"][0]["state"] == "failed" {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    backend.stop().await;
}
