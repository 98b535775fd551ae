//! Counts the flood with the official `agent-client-protocol` crate alone: a typed
//! `SessionNotification` handler that checks each chunk's sequence number. The baseline
//! core is compared with. Prints one JSON report line.
//!
//! Usage: `raw-sdk-consumer <flood-agent> [N]`.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, NewSessionRequest, PromptRequest, SessionNotification, SessionUpdate,
};
use agent_client_protocol::{Agent, Client, Lines};
use futures::SinkExt;
use porthole_bench::{DEFAULT_N, Report, parse_seq, proc_status_kb};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let agent = args.first().expect("usage: raw-sdk-consumer <flood-agent> [N]");
    let n: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(DEFAULT_N);
    let mut child = tokio::process::Command::new(agent)
        .arg(n.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the flood agent");
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();

    // The plainest line framing: BufReader lines in, write + newline out.
    let incoming = futures::stream::unfold(BufReader::new(stdout).lines(), |mut lines| async move {
        match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(e) => Some((Err(e), lines)),
        }
    });
    let outgoing = futures::sink::unfold(stdin, |mut w, line: String| async move {
        w.write_all(line.as_bytes()).await?;
        w.write_all(b"\n").await?;
        w.flush().await?;
        Ok::<_, std::io::Error>(w)
    });
    let outgoing = Box::pin(outgoing).sink_map_err(|e| e);

    let count = Arc::new(AtomicU64::new(0));
    let in_order = Arc::new(AtomicBool::new(true));
    let (c, o) = (count.clone(), in_order.clone());
    Client
        .v1()
        .on_receive_notification(
            async move |note: SessionNotification, _cx| {
                if let SessionUpdate::AgentMessageChunk(chunk) = note.update
                    && let ContentBlock::Text(text) = chunk.content
                {
                    let seen = c.fetch_add(1, Ordering::Relaxed);
                    if parse_seq(&text.text) != Some(seen) {
                        o.store(false, Ordering::Relaxed);
                    }
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_with(
            Lines::new(outgoing, incoming),
            async move |cx: ConnectionTo<Agent>| {
                cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                let session = cx
                    .send_request(NewSessionRequest::new(std::env::temp_dir()))
                    .block_task()
                    .await?;
                let rss_before_kb = proc_status_kb("VmRSS");
                let start = Instant::now();
                cx.send_request(PromptRequest::new(
                    session.session_id,
                    vec![ContentBlock::from("flood".to_string())],
                ))
                .block_task()
                .await?;
                let flood = start.elapsed();
                let count = count.load(Ordering::Relaxed);
                Report {
                    consumer: "raw-sdk",
                    count,
                    in_order: in_order.load(Ordering::Relaxed) && count == n,
                    flood,
                    rss_before_kb,
                }
                .print();
                Ok(())
            },
        )
        .await
        .expect("ACP connection");
    let _ = child.kill().await;
}
