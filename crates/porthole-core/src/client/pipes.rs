//! The agent's lines, read once, for the SDK connections run over them in turn.
//!
//! Negotiating the ACP version may take two SDK connections on one agent process: a v2 one
//! for the `initialize` that offers v2, then, when the agent answers 1, a v1 one (the SDK never
//! turns a v2 connection into a v1 one). So the incoming lines cannot belong to the first
//! connection: a pump task reads them (framing, the tap, the v1 fast path) into a small
//! channel, and each connection reads the channel while it is current. A connection retired
//! after the fallback stops reading before it ends, so nothing the agent wrote is lost or read
//! twice. The outgoing side is one writer task (`outgoing`), shared by both senders.

use std::sync::Arc;

use futures::{Stream, StreamExt};
use tokio::sync::{Mutex, mpsc, watch};

use super::hot_path;
use super::state::Shared;
use crate::outgoing::{BoundedLines, Fault};
use crate::transport::{self, WireTap};

type Line = std::io::Result<String>;

/// Lines of the agent ready for the SDK (the fast path's updates are already delivered).
pub(super) struct Pipes {
    incoming: Arc<Mutex<mpsc::Receiver<Line>>>,
    outgoing: BoundedLines,
}

impl Pipes {
    /// Start reading `reader`; the end of its lines sets `shared.output_ended`.
    pub(super) fn new(
        shared: &Arc<Shared>,
        reader: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
        writer: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
        tap: Arc<dyn WireTap>,
        fault: Arc<Fault>,
    ) -> Pipes {
        let opts = &shared.opts;
        let framed = Box::pin(transport::incoming_lines(reader, opts.max_line_bytes, tap.clone()));
        let lines = hot_path::split(framed, shared.clone());
        // One line ahead: the fast path's barrier already bounds what the SDK is behind.
        let (tx, rx) = mpsc::channel::<Line>(1);
        let ended = shared.clone();
        tokio::spawn(async move {
            futures::pin_mut!(lines);
            while let Some(line) = lines.next().await {
                if tx.send(line).await.is_err() {
                    break;
                }
            }
            ended.output_ended.send_replace(true);
        });
        let outgoing = BoundedLines::new(writer, opts.max_outgoing_bytes, tap, fault);
        Pipes {
            incoming: Arc::new(Mutex::new(rx)),
            outgoing,
        }
    }

    /// Lines for a connection that may be retired: once `retired` is true it reads no more
    /// (its stream ends), leaving the rest for the next connection. Sends go to the same
    /// writer; dropping this sender does not close the agent's input.
    pub(super) fn for_attempt(
        &self,
        retired: watch::Receiver<bool>,
    ) -> (BoundedLines, impl Stream<Item = Line> + Send + 'static) {
        (self.outgoing.share(), read(self.incoming.clone(), Some(retired)))
    }

    /// Lines for the connection that stays: it ends with the agent's output, and closing its
    /// sender closes the agent's input.
    pub(super) fn into_final(self) -> (BoundedLines, impl Stream<Item = Line> + Send + 'static) {
        (self.outgoing, read(self.incoming, None))
    }
}

fn read(
    incoming: Arc<Mutex<mpsc::Receiver<Line>>>,
    retired: Option<watch::Receiver<bool>>,
) -> impl Stream<Item = Line> + Send + 'static {
    futures::stream::unfold((incoming, retired), |(incoming, mut retired)| async move {
        let line = {
            let mut rx = incoming.lock().await;
            match retired.as_mut() {
                Some(retired) => tokio::select! {
                    biased;
                    () = is_retired(retired) => None,
                    line = rx.recv() => line,
                },
                None => rx.recv().await,
            }
        }?;
        Some((line, (incoming, retired)))
    })
}

async fn is_retired(retired: &mut watch::Receiver<bool>) {
    if retired.wait_for(|r| *r).await.is_err() {
        // The sender went with an attempt that was kept: never retired.
        std::future::pending::<()>().await;
    }
}
