//! Floods from a hostile agent: stderr, elicitation requests, session updates and a line that
//! does not end. Each runs against the real test agent over real pipes, with no wire tap (a tap
//! would keep every line), and measures how much the client's resident memory grows: memory
//! bounds are asserted (generously), times are only printed.
//!
//! The tests share one process, whose memory they measure, so they run one at a time.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::test_agent;
use porthole_core::events::{DialogPrompt, Event};
use porthole_core::transport::{Direction, TransportNote, WireTap};
use porthole_core::{AgentClient, AgentCommand, Answer, ClientOptions};
use serde_json::Value;

const MIB: u64 = 1024 * 1024;

async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// This process's resident memory, and its peak since [`Rss::reset_peak`], from /proc.
struct Rss;

impl Rss {
    fn field(name: &str) -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let line = status
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in /proc/self/status"));
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kib * 1024
    }
    fn now() -> u64 {
        Self::field("VmRSS:")
    }
    /// Resets the peak to the current size (Linux: `echo 5 > /proc/self/clear_refs`).
    fn reset_peak() -> bool {
        std::fs::write("/proc/self/clear_refs", "5").is_ok()
    }
    fn peak() -> u64 {
        Self::field("VmHWM:")
    }
}

/// Measures the growth of resident memory during a flood: the peak when it can be reset,
/// else the size at the end.
struct Growth {
    start: u64,
    peak_resettable: bool,
}

impl Growth {
    fn start() -> Self {
        let peak_resettable = Rss::reset_peak();
        Growth {
            start: Rss::now(),
            peak_resettable,
        }
    }
    fn end(self, what: &str, elapsed: Duration) -> u64 {
        let end = if self.peak_resettable {
            Rss::peak()
        } else {
            Rss::now()
        };
        let growth = end.saturating_sub(self.start);
        println!(
            "{what}: {:.1} s, resident memory {} MiB -> {} MiB ({}), growth {:.1} MiB",
            elapsed.as_secs_f64(),
            self.start / MIB,
            end / MIB,
            if self.peak_resettable { "peak" } else { "at end" },
            growth as f64 / MIB as f64,
        );
        growth
    }
}

/// Keeps transport notes only (a line tap would hold the whole flood), and counts the
/// refusals of dialogs beyond the per-session bound the client sends.
#[derive(Default)]
struct Notes(Mutex<Vec<TransportNote>>, AtomicUsize);
impl WireTap for Notes {
    fn line(&self, direction: Direction, line: &str) {
        if matches!(direction, Direction::Outgoing) && line.contains("too many pending dialogs") {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn note(&self, note: TransportNote) {
        self.0.lock().unwrap().push(note);
    }
}

struct Agent {
    client: AgentClient,
    events: tokio::sync::mpsc::Receiver<Event>,
    session: String,
    notes: Arc<Notes>,
    _dir: tempfile::TempDir,
}

async fn start() -> Agent {
    let notes = Arc::new(Notes::default());
    let mut agent = start_with(notes.clone()).await;
    agent.notes = notes;
    agent
}

/// The test agent with `tap` as the wire tap (its `notes` then stay empty).
async fn start_with(tap: Arc<dyn WireTap>) -> Agent {
    let dir = tempfile::tempdir().unwrap();
    let notes = Arc::new(Notes::default());
    let command = AgentCommand {
        program: test_agent().display().to_string(),
        args: vec![],
        env: vec![],
        cwd: Some(dir.path().to_path_buf()),
    };
    let opts = ClientOptions {
        tap: Some(tap),
        ..ClientOptions::default()
    };
    let (client, events) = AgentClient::start(command, opts).await.expect("agent starts");
    let session = client
        .new_session(dir.path().canonicalize().unwrap())
        .await
        .unwrap();
    Agent {
        client,
        events,
        session,
        notes,
        _dir: dir,
    }
}

impl Agent {
    async fn next(&mut self) -> Event {
        tokio::time::timeout(Duration::from_secs(300), self.events.recv())
            .await
            .expect("an event within 300 s")
            .expect("event stream open")
    }
}

/// The text of an agent message chunk.
fn chunk_text(event: &Event) -> Option<&str> {
    match event {
        Event::SessionUpdate { update, .. } => update.agent_text(),
        _ => None,
    }
}

fn turn_ended_ok(event: &Event) -> bool {
    match event {
        Event::TurnEnded { error, .. } => {
            assert!(error.is_none(), "the turn failed: {error:?}");
            true
        }
        Event::AgentExited(info) => panic!("the agent exited: {info:?}"),
        _ => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_mib_stderr_flood_keeps_only_the_tail() {
    let _serial = one_at_a_time().await;
    let mut a = start().await;
    let growth = Growth::start();
    let t = Instant::now();
    a.client.prompt_text(&a.session, "stderr-flood 200").unwrap();
    let mut alive = false;
    loop {
        let event = a.next().await;
        alive |= chunk_text(&event) == Some("still alive");
        if turn_ended_ok(&event) {
            break;
        }
    }
    let grown = growth.end("200 MiB on stderr", t.elapsed());
    assert!(alive, "the connection kept working during the flood");
    let tail = a.client.stderr_tail();
    // 64 KiB of output, after a one-line note that the rest was dropped.
    assert!(
        tail.len() <= porthole_core::process::STDERR_TAIL_BYTES + 100,
        "tail of {} bytes",
        tail.len()
    );
    assert!(tail.starts_with("["), "{}", &tail[..100]);
    assert!(
        tail.contains("earlier bytes of stderr not kept"),
        "{}",
        &tail[..100]
    );
    // The tail is the end of the output (the reader may still be a few lines behind).
    assert!(
        tail.contains("eeee"),
        "{}",
        &tail[tail.len().saturating_sub(200)..]
    );
    assert!(grown < 64 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_10000_elicitations_is_bounded_by_the_pending_queue() {
    let _serial = one_at_a_time().await;
    let mut a = start().await;
    let limit = ClientOptions::default().max_pending_per_session;
    let growth = Growth::start();
    let t = Instant::now();
    a.client.prompt_text(&a.session, "elicit-flood 10000").unwrap();
    let mut pending = Vec::new();
    let mut refused = 0usize;
    // Nobody answers until every request has been seen: exactly `limit` wait for the user.
    while pending.len() + refused < 10_000 {
        match a.next().await {
            Event::Dialog(DialogPrompt::Elicitation(p)) => pending.push(p.dialog_id),
            Event::ElicitationRejected { error, .. } => {
                assert_eq!(error.code, -32603);
                assert!(
                    error.message.contains("too many pending elicitations")
                        && error.message.contains(&format!("limit {limit}")),
                    "{}",
                    error.message
                );
                refused += 1;
            }
            e @ (Event::TurnEnded { .. } | Event::AgentExited(_)) => panic!("too early: {e:?}"),
            _ => {}
        }
    }
    let burst = t.elapsed();
    for id in &pending {
        a.client.respond_elicitation(*id, Answer::Decline).unwrap();
    }
    let mut report = Value::Null;
    loop {
        let event = a.next().await;
        if let Some(text) = chunk_text(&event) {
            report = serde_json::from_str(text).unwrap_or(report);
        }
        if turn_ended_ok(&event) {
            break;
        }
    }
    let grown = growth.end("10,000 elicitation/create in a burst", t.elapsed());
    println!("the burst was read and answered in {:.2} s", burst.as_secs_f64());
    assert_eq!(pending.len(), limit);
    assert_eq!(refused, 10_000 - limit);
    // What the agent received: `limit` declines and a clear error for each of the others.
    let summary = &report["results"][0];
    assert_eq!(summary["decline"], limit);
    let errors: Vec<(&String, &Value)> = summary
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("error"))
        .collect();
    assert_eq!(errors.len(), 1, "{summary}");
    assert!(
        errors[0].0.contains("-32603: too many pending elicitations"),
        "{}",
        errors[0].0
    );
    assert_eq!(errors[0].1, &Value::from(10_000 - limit));
    assert!(grown < 128 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
}

/// Permission and file-access dialogs are bounded per session like elicitations: an agent
/// cannot hold an unlimited number open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_10000_permission_requests_is_bounded_per_session() {
    let summary = dialog_burst("permission-flood", "session/request_permission").await;
    assert_eq!(
        summary["selected"],
        ClientOptions::default().max_pending_per_session,
        "{summary}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_10000_file_reads_outside_the_workspace_is_bounded_per_session() {
    let summary = dialog_burst("file-flood", "fs/read_text_file outside the workspace").await;
    // Denied by the user: invalid params (the reason is in the error's data).
    let denied = summary
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.starts_with("error -32602"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(
        denied.1,
        &Value::from(ClientOptions::default().max_pending_per_session)
    );
}

/// Runs a test-agent burst of 10,000 requests that each open a dialog. Nobody answers until
/// the whole burst has been handled: then exactly `limit` dialogs wait for the user and every
/// other request was refused with a clear error. Those are answered (allow / deny); returns
/// the agent's summary of the answers it got.
async fn dialog_burst(scenario: &str, what: &str) -> Value {
    let _serial = one_at_a_time().await;
    let mut a = start().await;
    let limit = ClientOptions::default().max_pending_per_session;
    let growth = Growth::start();
    let t = Instant::now();
    a.client
        .prompt_text(&a.session, &format!("{scenario} 10000"))
        .unwrap();
    // Refusals raise no dialog: the tap counts them on the wire.
    let mut pending = Vec::new();
    while pending.len() < limit || a.notes.1.load(Ordering::SeqCst) < 10_000 - limit {
        match tokio::time::timeout(Duration::from_millis(50), a.events.recv()).await {
            Ok(Some(Event::Dialog(DialogPrompt::Permission(p)))) => pending.push((p.dialog_id, true)),
            Ok(Some(Event::Dialog(DialogPrompt::FileAccess(p)))) => pending.push((p.dialog_id, false)),
            Ok(Some(e @ (Event::TurnEnded { .. } | Event::AgentExited(_)))) => panic!("too early: {e:?}"),
            Ok(None) => panic!("event stream closed"),
            _ => assert!(
                t.elapsed() < Duration::from_secs(300),
                "the burst was not handled in 300 s"
            ),
        }
        assert!(pending.len() <= limit, "more than {limit} dialogs at once");
    }
    for (id, permission) in &pending {
        if *permission {
            a.client.respond_permission(*id, Some("no".into())).unwrap();
        } else {
            a.client.respond_file_access(*id, false).unwrap();
        }
    }
    let mut report = Value::Null;
    loop {
        let event = a.next().await;
        assert!(
            !matches!(
                event,
                Event::Dialog(DialogPrompt::Permission(_)) | Event::Dialog(DialogPrompt::FileAccess(_))
            ),
            "a dialog beyond the bound: {event:?}"
        );
        if let Some(text) = chunk_text(&event) {
            report = serde_json::from_str(text).unwrap_or(report);
        }
        if turn_ended_ok(&event) {
            break;
        }
    }
    let grown = growth.end(&format!("10,000 {what} in a burst"), t.elapsed());
    // What the agent received: `limit` answers and a clear error for each of the others.
    let summary = report["results"][0].clone();
    let refused: Vec<(&String, &Value)> = summary
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.contains("too many pending dialogs"))
        .collect();
    assert_eq!(refused.len(), 1, "{summary}");
    assert!(
        refused[0].0.contains("error -32603") && refused[0].0.contains(&format!("limit {limit}")),
        "{}",
        refused[0].0
    );
    assert_eq!(refused[0].1, &Value::from(10_000 - limit));
    assert!(grown < 128 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
    summary
}

/// How many updates the flood test sends: 1,000,000 by default, `PORTHOLE_UPDATE_FLOOD` to change.
fn update_flood_size() -> u64 {
    std::env::var("PORTHOLE_UPDATE_FLOOD")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

/// About 20 s in a debug build. Updates take core's typed fast path, whose backpressure reaches
/// the agent's pipe (before it, the SDK's unbounded queue grew 148 MiB here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_session_updates_keep_memory_bounded() {
    let _serial = one_at_a_time().await;
    let n = update_flood_size();
    let mut a = start().await;
    let growth = Growth::start();
    let t = Instant::now();
    a.client
        .prompt_text(&a.session, &format!("update-flood {n}"))
        .unwrap();
    let mut received = 0u64;
    let mut in_order = true;
    loop {
        let event = a.next().await;
        if let Some(text) = chunk_text(&event)
            && let Ok(i) = text.trim().parse::<u64>()
        {
            in_order &= i == received;
            received += 1;
        }
        if turn_ended_ok(&event) {
            break;
        }
    }
    let elapsed = t.elapsed();
    let grown = growth.end(&format!("{n} session/update"), elapsed);
    println!(
        "{:.0} updates per second (debug or release as built)",
        n as f64 / elapsed.as_secs_f64()
    );
    assert_eq!(received, n, "every update arrived");
    assert!(in_order, "in wire order");
    assert!(grown < 64 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_does_not_end_hits_the_line_cap() {
    let _serial = one_at_a_time().await;
    let mut a = start().await;
    let growth = Growth::start();
    let t = Instant::now();
    a.client.prompt_text(&a.session, "endless-line 256").unwrap();
    let mut survived = false;
    loop {
        let event = a.next().await;
        survived |= chunk_text(&event) == Some("survived the endless line");
        if turn_ended_ok(&event) {
            break;
        }
    }
    let grown = growth.end("a 256 MiB line", t.elapsed());
    assert!(survived, "the connection works after the oversized line");
    let notes = a.notes.0.lock().unwrap().clone();
    let oversized: Vec<usize> = notes
        .iter()
        .filter_map(|n| match n {
            TransportNote::Oversized { bytes, .. } => Some(*bytes),
            _ => None,
        })
        .collect();
    assert_eq!(oversized.len(), 1, "{notes:?}");
    assert!(oversized[0] > 256 * MIB as usize, "{oversized:?}");
    // The line was dropped at the 16 MiB cap instead of being held: far below its size.
    assert!(grown < 64 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
}

/// An agent that stops reading its stdin and floods requests the client answers at once: the
/// answers wait in the outgoing queue until its budget (16 MiB) is hit, then the connection is
/// closed and the agent stopped with a reason that says so. Without the bound the answers to
/// 1,000,000 requests pile up in the SDK's unbounded channel (hundreds of MiB).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_never_reads_its_stdin_is_cut_off_at_the_outgoing_bound() {
    let _serial = one_at_a_time().await;
    let mut a = start().await;
    let growth = Growth::start();
    let t = Instant::now();
    a.client.prompt_text(&a.session, "stdin-flood 1000000").unwrap();
    let mut exit = None;
    let mut turn_error = None;
    while exit.is_none() || turn_error.is_none() {
        match a.next().await {
            Event::AgentExited(info) => exit = Some(info),
            Event::TurnEnded { error, .. } => turn_error = Some(error.expect("the turn ends with an error")),
            _ => {}
        }
    }
    let grown = growth.end("stdin-flood (agent never reads)", t.elapsed());
    let exit = exit.unwrap();
    println!("exit: {}", exit.status);
    assert!(
        exit.status
            .starts_with("the agent stopped reading its input: 16.0 MiB of messages to it are waiting (limit 16.0 MiB); Porthole closed the connection"),
        "{exit:?}"
    );
    assert!(!exit.requested, "not a stop the user asked for");
    assert_eq!(exit.signal, Some(9), "stopped without a grace period");
    let turn_error = turn_error.unwrap();
    assert!(
        turn_error.message.contains("stopped reading its input"),
        "{turn_error:?}"
    );
    // The 16 MiB budget plus the SDK's and the allocator's share; unbounded, it is hundreds.
    assert!(grown < 64 * MIB, "memory grew by {} MiB", grown / MIB);
}

/// Counts the non-JSON lines the transport framed, keeping none of them.
#[derive(Default)]
struct NoiseCount(std::sync::atomic::AtomicU64);
impl WireTap for NoiseCount {
    fn line(&self, _: Direction, _: &str) {}
    fn note(&self, note: TransportNote) {
        if let TransportNote::Banner(_) = note {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// How many lines the noise flood test sends: 2,000,000 by default, `PORTHOLE_NOISE_FLOOD` to change.
fn noise_flood_size() -> u64 {
    std::env::var("PORTHOLE_NOISE_FLOOD")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000_000)
}

/// Millions of non-JSON lines on stdout while the front end reads no event: the test reads
/// nothing until the transport has framed every line (the tap counts them), so the event
/// stream is full for all but its first 1024. Before issue 32 each of the others waited in a
/// task of its own holding its line (2,000,000 lines of 200 bytes: about 1 GiB); now they are
/// counted, and the count arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn millions_of_non_json_lines_keep_memory_bounded_and_are_counted() {
    let _serial = one_at_a_time().await;
    let n = noise_flood_size();
    let framed = Arc::new(NoiseCount::default());
    let mut a = start_with(framed.clone()).await;
    let growth = Growth::start();
    let t = Instant::now();
    a.client
        .prompt_text(&a.session, &format!("noise-flood {n}"))
        .unwrap();
    while framed.0.load(Ordering::SeqCst) < n {
        if framed.0.load(Ordering::SeqCst) == 0 && t.elapsed() > Duration::from_secs(30) {
            // Not a single line: say what the agent did instead (a test agent built from
            // another tree, sharing this target dir, answers "unknown scenario").
            panic!("no noise in 30 s; the agent sent {:?}", a.next().await);
        }
        assert!(
            t.elapsed() < Duration::from_secs(300),
            "the flood was framed within 300 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let grown = growth.end(&format!("{n} non-JSON lines, no event read"), t.elapsed());
    // Every line is accounted for: shown one by one, or in a count of lines not shown.
    let (mut shown, mut not_shown, mut done) = (0u64, 0u64, false);
    loop {
        match a.next().await {
            Event::StdoutNoise { .. } => shown += 1,
            Event::StdoutNotShown { lines } => not_shown += lines,
            event => {
                done |= chunk_text(&event) == Some("noise flood done");
                if turn_ended_ok(&event) {
                    break;
                }
            }
        }
    }
    println!("{shown} lines shown, {not_shown} counted");
    assert!(done, "the connection works after the flood");
    assert_eq!(shown + not_shown, n, "every line is shown or counted");
    assert!(shown <= 1024 + 1, "the stream held at most its capacity: {shown}");
    assert!(grown < 64 * MIB, "memory grew by {} MiB", grown / MIB);
    a.client.shutdown().await;
}
