//! Counts the flood through `porthole-cli --json`: the CLI runs the flood agent and prints one
//! JSON line per event; this reads them from a pipe, as a script would, and checks that text
//! chunk *i* carries sequence number *i*. The figures are the CLI's: its CPU seconds and peak
//! RSS are read from /proc at its `turn_end` line, and the flood is timed from its `session`
//! line (printed just before it sends the prompt) to that line. Prints one JSON report line.
//!
//! Usage: `cli-consumer <porthole-cli> <flood-agent> [N]`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

use memchr::memmem;
use porthole_bench::{DEFAULT_N, Report, parse_seq, pid_cpu_seconds, pid_status_kb};

/// What the CLI reported at its `turn_end` line.
struct AtTurnEnd {
    flood: std::time::Duration,
    cpu: (f64, f64),
    hwm_kb: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: cli-consumer <porthole-cli> <flood-agent> [N]";
    let (cli, agent) = (args.first().expect(usage), args.get(1).expect(usage));
    let n: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(DEFAULT_N);
    // The CLI runs the agent in the session's folder: a relative path would not be found.
    let agent = std::fs::canonicalize(agent).expect("the flood agent's path");
    let mut child = Command::new(cli)
        .args(["--json", "--agent", &format!("{} {n}", agent.display()), "--cwd"])
        .arg(std::env::temp_dir())
        .arg("flood")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn porthole-cli");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");

    let text_key = memmem::Finder::new(br#""text":""#);
    let (mut count, mut in_order) = (0u64, true);
    let (mut start, mut rss_before_kb, mut end) = (None, 0, None);
    let mut buf = vec![0u8; 1 << 20];
    let (mut filled, mut eof) = (0usize, false);
    while !eof {
        let read = stdout.read(&mut buf[filled..]).expect("read the CLI's output");
        eof = read == 0;
        filled += read;
        let mut from = 0;
        while let Some(nl) = memchr::memchr(b'\n', &buf[from..filled]) {
            let line = &buf[from..from + nl];
            from += nl + 1;
            if line.starts_with(br#"{"type":"session_update""#) {
                if let Some(at) = text_key.find(line) {
                    let text = std::str::from_utf8(&line[at + 8..]).unwrap_or("");
                    in_order &= parse_seq(text) == Some(count);
                    count += 1;
                }
            } else if line.starts_with(br#"{"type":"session""#) {
                rss_before_kb = pid_status_kb(pid, "VmRSS");
                start = Some(Instant::now());
            } else if line.starts_with(br#"{"type":"turn_end""#) {
                end = Some(AtTurnEnd {
                    flood: start.expect("a session line before the turn").elapsed(),
                    cpu: pid_cpu_seconds(pid),
                    hwm_kb: pid_status_kb(pid, "VmHWM"),
                });
            }
        }
        buf.copy_within(from..filled, 0);
        filled -= from;
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
    }
    let status = child.wait().expect("wait for porthole-cli");
    assert!(status.success(), "porthole-cli failed: {status}");
    let end = end.expect("a turn_end line");
    Report {
        consumer: "cli-json",
        count,
        in_order: in_order && count == n,
        flood: end.flood,
        rss_before_kb,
    }
    .print_with(end.cpu.0, end.cpu.1, end.hwm_kb);
}
