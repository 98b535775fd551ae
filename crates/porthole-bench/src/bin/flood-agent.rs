//! An ACP agent whose one trick is a flood: `session/prompt` answers with N
//! `agent_message_chunk` updates, written as fast as the pipe takes them, then ends the turn.
//!
//! Usage: `flood-agent [N]` (default 1,000,000). `flood-agent --raw [N]` writes the flood
//! without a handshake, to measure the pipe's ceiling.
//! With `FLOOD_STATS_FILE` set, it writes how long the flood took and how much of that it
//! spent blocked in `write(2)`: a consumer that applies backpressure makes it block.

use std::io::{BufRead, BufWriter, Write};
use std::os::fd::FromRawFd;
use std::time::{Duration, Instant};

use porthole_bench::{DEFAULT_N, SESSION_ID, update_line};
use serde_json::{Value, json};

/// stdout without std's line buffering, timing every `write(2)`.
struct TimedStdout {
    file: std::fs::File,
    blocked: Duration,
    writes: u64,
}

impl Write for TimedStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let start = Instant::now();
        let n = self.file.write(buf)?;
        self.blocked += start.elapsed();
        self.writes += 1;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let raw = args.first().is_some_and(|a| a == "--raw");
    let n = args
        .iter()
        .find_map(|a| a.parse::<u64>().ok())
        .unwrap_or(DEFAULT_N);
    // SAFETY: fd 1 is our stdout and nothing else in this process writes to it.
    let file = unsafe { std::fs::File::from_raw_fd(1) };
    let mut out = BufWriter::with_capacity(
        64 * 1024,
        TimedStdout {
            file,
            blocked: Duration::ZERO,
            writes: 0,
        },
    );
    if raw {
        flood(&mut out, n);
        return;
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str)) else {
            continue; // a notification or a response: nothing to do
        };
        let reply = match method {
            "initialize" => json!({"jsonrpc":"2.0","id":id,"result":{
                "protocolVersion":1,"agentCapabilities":{},
                "agentInfo":{"name":"flood-agent","version":"1"}}}),
            "session/new" => json!({"jsonrpc":"2.0","id":id,"result":{"sessionId":SESSION_ID}}),
            "session/prompt" => {
                flood(&mut out, n);
                json!({"jsonrpc":"2.0","id":id,"result":{"stopReason":"end_turn"}})
            }
            _ => json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"method not found"}}),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}

fn flood(out: &mut BufWriter<TimedStdout>, n: u64) {
    let start = Instant::now();
    let before = out.get_ref().blocked;
    let mut bytes = 0u64;
    for seq in 0..n {
        let line = update_line(seq);
        bytes += line.len() as u64 + 1;
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
    let _ = out.flush();
    let elapsed = start.elapsed();
    let inner = out.get_ref();
    if let Ok(path) = std::env::var("FLOOD_STATS_FILE") {
        let stats = json!({
            "updates": n,
            "bytes": bytes,
            "flood_s": elapsed.as_secs_f64(),
            "blocked_in_write_s": (inner.blocked - before).as_secs_f64(),
            "writes": inner.writes,
        });
        let _ = std::fs::write(path, stats.to_string());
    }
}
