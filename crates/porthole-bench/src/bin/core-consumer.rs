//! Counts the flood through porthole-core: N typed session updates (Porthole's model), each checked for
//! its sequence number, ended by `TurnEnded`. Prints one JSON report line.
//!
//! Usage: `core-consumer <flood-agent> [N]`.

use std::sync::Arc;
use std::time::Instant;

use porthole_bench::{DEFAULT_N, Report, parse_seq, proc_status_kb};
use porthole_core::inspector::Inspector;
use porthole_core::transport::WireTap;
use porthole_core::{AgentClient, AgentCommand, ClientOptions, Event};

fn main() {
    // PORTHOLE_BENCH_RT=current runs everything on one thread (no cross-thread wakeups).
    let mut rt = match std::env::var("PORTHOLE_BENCH_RT").as_deref() {
        Ok("current") => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let rt = rt.enable_all().build().expect("tokio runtime");
    // Consume on a worker, as a front end's forwarding task would.
    rt.block_on(async { tokio::spawn(run()).await.expect("consumer task") });
}

async fn run() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let agent = args.first().expect("usage: core-consumer <flood-agent> [N]");
    let n: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(DEFAULT_N);
    let command = AgentCommand {
        program: agent.clone(),
        args: vec![n.to_string()],
        env: Vec::new(),
        cwd: None,
    };
    // PORTHOLE_BENCH_INSPECTOR=1 records every line in a protocol inspector, as the desktop
    // app does (4 MiB, its INSPECTOR_BYTES).
    let opts = ClientOptions {
        tap: std::env::var_os("PORTHOLE_BENCH_INSPECTOR")
            .map(|_| Arc::new(Inspector::new(4 << 20)) as Arc<dyn WireTap>),
        ..ClientOptions::default()
    };
    let (client, mut events) = AgentClient::start(command, opts)
        .await
        .expect("start the flood agent");
    let session = client
        .new_session(std::env::temp_dir())
        .await
        .expect("session/new");
    let rss_before_kb = proc_status_kb("VmRSS");
    let start = Instant::now();
    client.prompt_text(&session, "flood").expect("prompt");
    let (mut count, mut in_order) = (0u64, true);
    loop {
        match events.recv().await.expect("event stream ended early") {
            Event::SessionUpdate { update, .. } => {
                if let Some(text) = update.agent_text() {
                    in_order &= parse_seq(text) == Some(count);
                    count += 1;
                }
            }
            Event::TurnEnded { .. } => break,
            _ => {}
        }
    }
    let flood = start.elapsed();
    Report {
        consumer: "core",
        count,
        in_order: in_order && count == n,
        flood,
        rss_before_kb,
    }
    .print();
    client.shutdown().await;
}
