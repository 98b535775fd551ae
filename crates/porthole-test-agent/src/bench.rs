//! Scenarios for the app benchmarks (`scripts/bench-app`): prompts with arguments.
//!
//! - `flood <rate> <seconds> [chunks-per-message]`: `agent_message_chunk` updates at `rate`
//!   per second; chunk `n` says `"n "`, and every `chunks-per-message` chunks start a new
//!   message (default 1000), so the transcript's words must read 0, 1, 2, ... in order. With the
//!   word `tools`, every new message is preceded by a tool call (`tool_call`, then its
//!   `tool_call_update` to completed), so the transcript alternates tool cards and messages.
//! - `messages <n>`: `n` agent messages (one chunk each, own `messageId`), as fast as the
//!   client reads them; message `i` says `"message i ..."`.
//! - `elicit <n>`: `n` form elicitations one after another, each waiting for its answer.
//! - `long-message <n>`: one agent message of `n` chunks (default 1,000,000, ~21 MB), as fast as
//!   the client reads them. Chunk `i` carries the word `n<i>`; paragraphs, headings, lists and code
//!   blocks come at fixed intervals, so the text is markdown with many blocks. The report gives
//!   its length and FNV-1a hash, for the client's copy to be checked against. With the word
//!   `plain` (`long-message 1000000 plain`) the text has no structure: one huge paragraph.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Agent;

/// Runs a benchmark scenario; `None` when `text` is not one.
pub(crate) fn run(agent: &mut Agent, text: &str) -> Option<Vec<Value>> {
    let mut words = text.split_whitespace();
    let name = words.next()?;
    let args: Vec<f64> = words.filter_map(|w| w.parse().ok()).collect();
    let arg = |i: usize, default: f64| args.get(i).copied().unwrap_or(default);
    Some(match name {
        "flood" => vec![flood(
            &agent.session,
            arg(0, 100_000.0),
            arg(1, 10.0),
            arg(2, 1000.0).max(1.0) as u64,
            text.split_whitespace().any(|w| w == "tools"),
        )],
        "messages" => vec![messages(&agent.session, arg(0, 10_000.0) as u64)],
        "elicit" => elicit(agent, arg(0, 100.0) as u64),
        "long-message" => vec![long_message(
            &agent.session,
            arg(0, 1_000_000.0) as u64,
            !text.split_whitespace().any(|w| w == "plain"),
        )],
        _ => return None,
    })
}

/// A message chunk line; `text` must already be escaped for a JSON string.
fn chunk_line(session: &str, message: &str, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{{"sessionUpdate":"agent_message_chunk","messageId":"{message}","content":{{"type":"text","text":"{text}"}}}}}}}}"#
    )
}

fn write_all(buf: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(buf.as_bytes());
    let _ = out.flush();
}

/// Streams at the target rate, writing what is due every half millisecond. The pipe's
/// back-pressure slows us down if the client does not keep up: the achieved rate is reported.
fn flood(session: &str, rate: f64, seconds: f64, per_message: u64, tools: bool) -> Value {
    let total = (rate * seconds) as u64;
    let start = Instant::now();
    let mut seq = 0u64;
    let mut tool_calls = 0u64;
    let mut buf = String::new();
    while seq < total {
        let due = ((start.elapsed().as_secs_f64() * rate) as u64).min(total);
        if due <= seq {
            std::thread::sleep(Duration::from_micros(500));
            continue;
        }
        buf.clear();
        for n in seq..due {
            if tools && n.is_multiple_of(per_message) {
                tool_call_lines(&mut buf, session, n / per_message);
                tool_calls += 1;
            }
            buf.push_str(&chunk_line(
                session,
                &format!("bench-{}", n / per_message),
                &format!("{n} "),
            ));
            buf.push('\n');
        }
        seq = due;
        write_all(&buf);
    }
    let secs = start.elapsed().as_secs_f64();
    json!({"sent": total, "seconds": secs, "rate": total as f64 / secs, "toolCalls": tool_calls})
}

/// A tool call that starts and completes: two updates.
fn tool_call_lines(buf: &mut String, session: &str, k: u64) {
    let update = |u: String| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{u}}}}}"#
        )
    };
    buf.push_str(&update(format!(
        r#"{{"sessionUpdate":"tool_call","toolCallId":"bench-tool-{k}","title":"Read part {k}","kind":"read","status":"in_progress"}}"#
    )));
    buf.push('\n');
    buf.push_str(&update(format!(
        r#"{{"sessionUpdate":"tool_call_update","toolCallId":"bench-tool-{k}","status":"completed"}}"#
    )));
    buf.push('\n');
}

fn messages(session: &str, n: u64) -> Value {
    let start = Instant::now();
    let mut buf = String::new();
    for i in 0..n {
        buf.push_str(&chunk_line(
            session,
            &format!("bench-{i}"),
            &format!("message {i}: the quick brown fox jumps over the lazy dog."),
        ));
        buf.push('\n');
        if buf.len() > 256 * 1024 {
            write_all(&buf);
            buf.clear();
        }
    }
    write_all(&buf);
    json!({"sent": n, "seconds": start.elapsed().as_secs_f64()})
}

/// Chunk `i` of `long-message`: `"n<i> lorem ipsum "` (~20 bytes), with markdown structure at
/// fixed intervals: a paragraph ends every 40 chunks, a heading every 1,000, a list and a code
/// block every 2,000, each between two paragraphs (where a paragraph has just ended).
fn long_chunk(i: u64, structured: bool) -> String {
    let mut s = String::new();
    if !structured {
        return format!("n{i} lorem ipsum ");
    }
    if i.is_multiple_of(1000) {
        s.push_str(&format!("## Part {}\n\n", i / 1000));
    }
    if i % 2000 == 520 {
        s.push_str("- first point\n- second point\n  with more words\n\n");
    }
    if i % 2000 == 1520 {
        s.push_str(&format!("```rust\nlet part = {};\n```\n\n", i / 1000));
    }
    s.push_str(&format!("n{i} lorem ipsum"));
    s.push_str(if i % 40 == 39 { ".\n\n" } else { " " });
    s
}

/// FNV-1a (32-bit) over bytes; the bench computes the same over the window's text (ASCII here).
fn fnv1a(hash: u32, bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(hash, |h, b| (h ^ u32::from(*b)).wrapping_mul(16_777_619))
}

fn long_message(session: &str, n: u64, structured: bool) -> Value {
    let start = Instant::now();
    let mut buf = String::new();
    let (mut hash, mut bytes) = (2_166_136_261u32, 0usize);
    for i in 0..n {
        let text = long_chunk(i, structured);
        hash = fnv1a(hash, text.as_bytes());
        bytes += text.len();
        // The text has newlines: escape it as JSON does.
        let escaped = text.replace('\n', "\\n");
        buf.push_str(&chunk_line(session, "long-1", &escaped));
        buf.push('\n');
        if buf.len() > 256 * 1024 {
            write_all(&buf);
            buf.clear();
        }
    }
    write_all(&buf);
    json!({"sent": n, "bytes": bytes, "fnv1a": hash, "seconds": start.elapsed().as_secs_f64()})
}

fn elicit(agent: &mut Agent, n: u64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let p = json!({"sessionId": agent.session, "mode": "form", "message": format!("Benchmark request {i}"),
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string", "title": "Name", "default": "alpha"}}}});
            let r = agent.call("elicitation/create", p);
            json!({"i": i, "action": r["result"]["action"]})
        })
        .collect()
}
