//! Shared pieces of the throughput fixture: the flood's line format and the figures every
//! consumer reports about itself.

use std::time::Duration;

/// The session id the flood agent hands out.
pub const SESSION_ID: &str = "flood";

/// Default number of updates in the flood.
pub const DEFAULT_N: u64 = 1_000_000;

/// Padding that brings each update line to about 170 bytes (the issue's figure).
const FILLER: &str = "chunk";

/// The chunk text of update `seq`: the sequence number first, so consumers can check order.
pub fn chunk_text(seq: u64) -> String {
    format!("{seq:08} {FILLER}")
}

/// The sequence number at the start of a chunk text.
pub fn parse_seq(text: &str) -> Option<u64> {
    text.get(..8)?.parse().ok()
}

/// One `session/update` notification line (without the newline).
pub fn update_line(seq: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{SESSION_ID}","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{}"}}}}}}}}"#,
        chunk_text(seq)
    )
}

/// What a consumer prints as its one JSON line on stdout.
pub struct Report {
    pub consumer: &'static str,
    pub count: u64,
    pub in_order: bool,
    pub flood: Duration,
    pub rss_before_kb: u64,
}

impl Report {
    /// The report with this process's own CPU seconds and peak RSS.
    pub fn print(&self) {
        let (user, sys) = cpu_seconds();
        self.print_with(user, sys, proc_status_kb("VmHWM"));
    }

    /// The report with figures measured of another process (the CLI a consumer reads).
    pub fn print_with(&self, user: f64, sys: f64, hwm_kb: u64) {
        let line = serde_json::json!({
            "consumer": self.consumer,
            "count": self.count,
            "in_order": self.in_order,
            "seconds": self.flood.as_secs_f64(),
            "updates_per_s": self.count as f64 / self.flood.as_secs_f64(),
            "cpu_user_s": user,
            "cpu_sys_s": sys,
            "rss_before_kb": self.rss_before_kb,
            "hwm_kb": hwm_kb,
        });
        println!("{line}");
    }
}

/// User and system CPU seconds of this process (threads included, children excluded).
pub fn cpu_seconds() -> (f64, f64) {
    // SAFETY: getrusage only writes into the struct we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

/// User and system CPU seconds of process `pid` (its threads, not its children), from
/// /proc/`pid`/stat; zero when unavailable.
pub fn pid_cpu_seconds(pid: u32) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces), from field 3 (state) on:
    // utime and stime are fields 14 and 15, in clock ticks.
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0) / ticks;
    (field(11), field(12))
}

/// A `kB` field of /proc/self/status (`VmRSS`, `VmHWM`), 0 when unavailable.
pub fn proc_status_kb(field: &str) -> u64 {
    status_kb("/proc/self/status", field)
}

/// A `kB` field of /proc/`pid`/status, 0 when unavailable.
pub fn pid_status_kb(pid: u32, field: &str) -> u64 {
    status_kb(&format!("/proc/{pid}/status"), field)
}

fn status_kb(path: &str, field: &str) -> u64 {
    let status = std::fs::read_to_string(path).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_their_sequence_and_are_about_170_bytes() {
        let line = update_line(123);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let text = v["params"]["update"]["content"]["text"].as_str().unwrap();
        assert_eq!(parse_seq(text), Some(123));
        assert!((165..=180).contains(&line.len()), "{}", line.len());
    }
}
