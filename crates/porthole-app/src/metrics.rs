//! Counters for the app benchmarks (`perf_stats`, see `docs/benchmarks-app.md`): what crossed
//! IPC to the webview, how long an elicitation took from its wire line to an interactive
//! dialog, and how long an answer took from the UI's command to its response line.
//!
//! Everything here is cheap (a lock and a few integers per event); the latency samples are
//! bounded. The wire tap matches lines by substring, so with several agents connected the
//! latency pairs are only approximate; the benchmark uses one agent.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use porthole_core::transport::{Direction, TransportNote, WireTap};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// Most latency samples kept (oldest dropped first).
const MAX_SAMPLES: usize = 10_000;

#[derive(Default)]
struct Data {
    /// Events queued for the window (before text chunks are merged).
    queued: u64,
    /// IPC: batches emitted to the window, events in them, and JSON bytes.
    batches: u64,
    events: u64,
    bytes: u64,
    largest_batch_events: u64,
    largest_batch_bytes: u64,
    /// `elicitation/create` lines read and not yet delivered by core as an event.
    lines_read: VecDeque<Instant>,
    /// Line read -> event delivered to the backend, by dialog id (until the dialog is shown).
    read_to_delivered: HashMap<u64, f64>,
    dialogs: VecDeque<DialogSample>,
    /// Answers received from the UI, waiting for their response line.
    answering: VecDeque<(u64, Instant)>,
    answers: VecDeque<AnswerSample>,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub(crate) struct DialogSample {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    dialog_id: u64,
    /// The agent's line read by the transport -> core delivered the event to the backend.
    read_to_delivered_ms: Option<f64>,
    /// Core delivered the event -> the UI acknowledged the frame that shows the dialog.
    delivered_to_shown_ms: f64,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub(crate) struct AnswerSample {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    dialog_id: u64,
    /// `answer_dialog` for an elicitation started -> its response line handed to the writer.
    command_to_written_ms: f64,
    /// When the response line was written, in ms since the Unix epoch (to pair with UI clicks).
    written_at_epoch_ms: f64,
}

/// The backend's counters. Cheap to clone.
#[derive(Clone, Default)]
pub struct Metrics(Arc<Mutex<Data>>);

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1e3)
        .unwrap_or(0.0)
}

fn push_bounded<T>(q: &mut VecDeque<T>, v: T) {
    if q.len() == MAX_SAMPLES {
        q.pop_front();
    }
    q.push_back(v);
}

impl Metrics {
    fn data(&self) -> std::sync::MutexGuard<'_, Data> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Serialize one batch for the window, counting it (`queued`: events before merging).
    /// Serialized once: the raw JSON is what Tauri then puts into the webview.
    pub fn encode_batch(&self, queued: usize, events: Vec<Value>) -> Box<RawValue> {
        let count = events.len() as u64;
        let text = serde_json::to_string(&serde_json::json!({ "events": events }))
            .unwrap_or_else(|_| r#"{"events":[]}"#.to_string());
        let bytes = text.len() as u64;
        let mut d = self.data();
        d.queued += queued as u64;
        d.batches += 1;
        d.events += count;
        d.bytes += bytes;
        d.largest_batch_events = d.largest_batch_events.max(count);
        d.largest_batch_bytes = d.largest_batch_bytes.max(bytes);
        drop(d);
        RawValue::from_string(text)
            .unwrap_or_else(|_| RawValue::from_string(r#"{"events":[]}"#.into()).expect("valid JSON"))
    }

    /// Core delivered an elicitation event to the backend.
    pub fn elicitation_delivered(&self, dialog_id: u64) {
        let mut d = self.data();
        if let Some(read) = d.lines_read.pop_front() {
            d.read_to_delivered.insert(dialog_id, ms(read));
        }
    }

    /// The UI acknowledged the frame that shows the dialog; `delivered` is when core delivered it.
    pub fn dialog_shown(&self, dialog_id: u64, delivered: Instant) {
        let mut d = self.data();
        let sample = DialogSample {
            dialog_id,
            read_to_delivered_ms: d.read_to_delivered.remove(&dialog_id),
            delivered_to_shown_ms: ms(delivered),
        };
        push_bounded(&mut d.dialogs, sample);
    }

    /// The UI's answer to an elicitation reached the backend.
    pub fn answer_started(&self, dialog_id: u64) {
        push_bounded(&mut self.data().answering, (dialog_id, Instant::now()));
    }

    /// Wrap a connection's wire tap so the lines that matter for latency are timed.
    pub fn tap(&self, inner: Arc<dyn WireTap>) -> Arc<dyn WireTap> {
        Arc::new(TimingTap {
            inner,
            metrics: self.clone(),
        })
    }

    fn line(&self, direction: Direction, line: &str) {
        match direction {
            Direction::Incoming if line.contains("\"elicitation/create\"") => {
                push_bounded(&mut self.data().lines_read, Instant::now());
            }
            // A response to an elicitation: `{"id":..,"result":{"action":..}}`.
            Direction::Outgoing if line.contains("\"result\"") && line.contains("\"action\"") => {
                let mut d = self.data();
                if let Some((dialog_id, started)) = d.answering.pop_front() {
                    let sample = AnswerSample {
                        dialog_id,
                        command_to_written_ms: ms(started),
                        written_at_epoch_ms: epoch_ms(),
                    };
                    push_bounded(&mut d.answers, sample);
                }
            }
            _ => {}
        }
    }

    /// Everything counted so far, plus this process's start time (for start-up figures).
    pub fn snapshot(&self) -> PerfStats {
        let d = self.data();
        PerfStats {
            ipc: IpcStats {
                queued: d.queued,
                batches: d.batches,
                events: d.events,
                bytes: d.bytes,
                largest_batch_events: d.largest_batch_events,
                largest_batch_bytes: d.largest_batch_bytes,
            },
            dialogs: d.dialogs.iter().cloned().collect(),
            answers: d.answers.iter().cloned().collect(),
            now_epoch_ms: epoch_ms(),
            process_start_epoch_ms: process_start_epoch_ms(),
        }
    }
}

/// The benchmark counters (`perf_stats`), read by tests/bench-app.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct PerfStats {
    ipc: IpcStats,
    dialogs: Vec<DialogSample>,
    answers: Vec<AnswerSample>,
    now_epoch_ms: f64,
    /// `null` where the process's start time cannot be read (not Linux).
    process_start_epoch_ms: Option<f64>,
}

/// What crossed IPC to the window: events queued, batches sent with the events and JSON bytes
/// in them, and the largest batch.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub(crate) struct IpcStats {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    queued: u64,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    batches: u64,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    events: u64,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    bytes: u64,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    largest_batch_events: u64,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "number"))]
    largest_batch_bytes: u64,
}

struct TimingTap {
    inner: Arc<dyn WireTap>,
    metrics: Metrics,
}

impl WireTap for TimingTap {
    fn line(&self, direction: Direction, line: &str) {
        self.metrics.line(direction, line);
        self.inner.line(direction, line);
    }
    fn note(&self, note: TransportNote) {
        self.inner.note(note);
    }
}

/// When this process started, from /proc (clock-tick resolution, 10 ms), in ms since the epoch.
#[cfg(target_os = "linux")]
fn process_start_epoch_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = &stat[stat.rfind(')')? + 2..];
    let start_ticks: f64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let age_s = uptime - start_ticks / ticks;
    Some(epoch_ms() - age_s * 1e3)
}

#[cfg(not(target_os = "linux"))]
fn process_start_epoch_ms() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_counted_and_encoded_once() {
        let m = Metrics::default();
        let raw = m.encode_batch(3, vec![serde_json::json!({"type": "x"}), serde_json::json!(1)]);
        assert_eq!(raw.get(), r#"{"events":[{"type":"x"},1]}"#);
        let s = serde_json::to_value(m.snapshot()).unwrap();
        assert_eq!(s["ipc"]["queued"], 3);
        assert_eq!(s["ipc"]["batches"], 1);
        assert_eq!(s["ipc"]["events"], 2);
        assert_eq!(s["ipc"]["bytes"], raw.get().len());
    }

    #[test]
    fn elicitation_latencies_pair_lines_with_dialogs() {
        let m = Metrics::default();
        m.line(
            Direction::Incoming,
            r#"{"id":1,"method":"elicitation/create","params":{}}"#,
        );
        m.elicitation_delivered(7);
        m.dialog_shown(7, Instant::now());
        m.answer_started(7);
        m.line(Direction::Outgoing, r#"{"id":1,"result":{"action":"accept"}}"#);
        let s = serde_json::to_value(m.snapshot()).unwrap();
        assert_eq!(s["dialogs"][0]["dialogId"], 7);
        assert!(s["dialogs"][0]["readToDeliveredMs"].is_number());
        assert_eq!(s["answers"][0]["dialogId"], 7);
        assert!(s["processStartEpochMs"].as_f64().unwrap_or(0.0) > 0.0);
    }
}
