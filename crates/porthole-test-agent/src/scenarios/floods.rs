//! Floods: more requests, notifications or stderr than a client should hold, to check its bounds.

use super::super::*;

/// `stderr-flood`
pub(crate) fn stderr_flood(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `stderr-flood MB`: that many MiB on stderr, in lines, then a normal reply.
    let line = format!("{}\n", "e".repeat(1023));
    let mut err = std::io::stderr().lock();
    for _ in 0..arg.unwrap_or(200) * 1024 {
        let _ = err.write_all(line.as_bytes());
    }
    let _ = writeln!(err, "stderr flood done");
    drop(err);
    agent.say("still alive");
}

/// `elicit-flood`
pub(crate) fn elicit_flood(agent: &mut Agent, arg: Option<u64>, results: &mut Vec<Value>) {
    // `elicit-flood N`: N form requests at once, then every answer, summarized.
    let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
        .map(|_| {
            let p = agent.form(json!({}));
            agent.request("elicitation/create", p)
        })
        .collect();
    results.push(agent.summarize(&ids, |r| r["result"]["action"].as_str().map(str::to_string)));
}

/// `permission-flood`
pub(crate) fn permission_flood(agent: &mut Agent, arg: Option<u64>, results: &mut Vec<Value>) {
    // `permission-flood N`: N permission requests at once, then every answer, summarized.
    let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
        .map(|i| {
            agent.request(
                "session/request_permission",
                json!({"sessionId":agent.session,
                    "toolCall":{"toolCallId":format!("flood-{i}"),"title":format!("Step {i}")},
                    "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},
                               {"optionId":"no","name":"Reject","kind":"reject_once"}]}),
            )
        })
        .collect();
    let summary = agent.summarize(&ids, |r| {
        r["result"]["outcome"]["outcome"].as_str().map(str::to_string)
    });
    results.push(summary);
}

/// `file-flood`
pub(crate) fn file_flood(agent: &mut Agent, arg: Option<u64>, results: &mut Vec<Value>) {
    // `file-flood N`: N reads outside the workspace at once (each asks the user),
    // then every answer, summarized.
    let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
        .map(|_| {
            agent.request(
                "fs/read_text_file",
                json!({"sessionId":agent.session,
                    "path":"/etc/hostname"}),
            )
        })
        .collect();
    let summary = agent.summarize(&ids, |r| {
        r["result"]["content"].as_str().map(|_| "read".to_string())
    });
    results.push(summary);
}

/// `update-flood`
pub(crate) fn update_flood(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `update-flood N`: N message chunks as fast as the pipe takes them.
    let head = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"{}\",\"update\":{{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{{\"type\":\"text\",\"text\":\"",
        agent.session
    );
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for i in 0..arg.unwrap_or(1_000_000) {
        let _ = writeln!(out, "{head}{i} \"}}}}}}}}");
    }
    let _ = out.flush();
}

/// `noise-flood`
pub(crate) fn noise_flood(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `noise-flood N`: N lines of about 200 bytes on stdout that are not JSON (a chatty log),
    // as fast as the pipe takes them, then a normal message.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let filler = "n".repeat(180);
    for i in 0..arg.unwrap_or(1_000_000) {
        let _ = writeln!(out, "log line {i:>10} {filler}");
    }
    let _ = out.flush();
    drop(out);
    agent.say("noise flood done");
}

/// Set by `stdin-flood`: the thread that reads stdin stops for good.
pub(crate) static STOP_READING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `stdin-flood`
pub(crate) fn stdin_flood(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `stdin-flood N`: stop reading stdin, then send N requests the client answers at once
    // (an unknown method), and wait. A client that queues every answer grows without bound.
    STOP_READING.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for i in 0..arg.unwrap_or(1_000_000) {
        let _ = writeln!(
            out,
            "{{\"jsonrpc\":\"2.0\",\"id\":\"flood-{i}\",\"method\":\"_porthole_test/flood\",\"params\":{{\"sessionId\":\"{}\",\"n\":{i}}}}}",
            agent.session
        );
    }
    let _ = out.flush();
    drop(out);
    loop {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}
