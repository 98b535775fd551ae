//! The bound on what waits to be written to the agent.
//!
//! The SDK queues our answers and requests on an unbounded channel before its writer hands
//! them to our line sink. If the sink waited for the agent's stdin, an agent that floods
//! requests and never reads its stdin would grow that channel by one answer per request.
//! So the sink never waits: it puts each line on a queue that a writer task drains into the
//! pipe, and counts the bytes on it. Once more than the budget would be waiting, the sink
//! fails (the SDK ends the connection with that error) and [`Fault`] records a clear reason
//! and wakes whoever must stop the agent.

use std::future::Future as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use futures::Sink;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, mpsc, oneshot};

use crate::transport::{Direction, WireTap};

/// Default budget of bytes waiting for the agent to read them. Well above any burst a working
/// agent causes (our answers follow its requests), small enough to be a flat line in memory.
pub const DEFAULT_MAX_OUTGOING_BYTES: usize = 16 * 1024 * 1024;

/// Why the connection was closed by us, once: set by the outgoing bound.
#[derive(Default)]
pub struct Fault {
    reason: OnceLock<String>,
    raised: Notify,
}

impl Fault {
    pub fn reason(&self) -> Option<&str> {
        self.reason.get().map(String::as_str)
    }

    /// Resolves once a reason is set (at once if it already is).
    pub async fn raised(&self) {
        loop {
            let notified = self.raised.notified();
            if self.reason.get().is_some() {
                return;
            }
            notified.await;
        }
    }

    fn raise(&self, reason: String) {
        if self.reason.set(reason).is_ok() {
            self.raised.notify_waiters();
        }
    }
}

/// The text of the error when the budget is exceeded.
pub fn overflow_reason(waiting: usize, limit: usize) -> String {
    format!(
        "the agent stopped reading its input: {} of messages to it are waiting (limit {}); Porthole closed the connection",
        mib(waiting),
        mib(limit)
    )
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// A line sink with a byte budget in front of `writer`. See the module docs.
pub struct BoundedLines {
    tx: Option<mpsc::UnboundedSender<String>>,
    waiting: Arc<AtomicUsize>,
    limit: usize,
    /// A write error from the writer task, returned by the next send.
    write_error: Arc<Mutex<Option<std::io::Error>>>,
    fault: Arc<Fault>,
    tap: Arc<dyn WireTap>,
    /// Resolves when the writer task has written everything (or failed).
    drained: Option<oneshot::Receiver<()>>,
}

impl BoundedLines {
    pub fn new<W>(writer: W, limit: usize, tap: Arc<dyn WireTap>, fault: Arc<Fault>) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel::<String>();
        let waiting = Arc::new(AtomicUsize::new(0));
        let write_error = Arc::new(Mutex::new(None));
        let (drained_tx, drained) = oneshot::channel();
        tokio::spawn(write_all(
            writer,
            rx,
            waiting.clone(),
            write_error.clone(),
            drained_tx,
        ));
        BoundedLines {
            tx: Some(tx),
            waiting,
            limit,
            write_error,
            fault,
            tap,
            drained: Some(drained),
        }
    }

    /// A second sender to the same writer (a connection tried before the one that stays, see
    /// `client::pipes`): the budget and the fault are shared; closing it does not close the
    /// agent's input while another sender lives, nor wait for the writer.
    pub fn share(&self) -> BoundedLines {
        BoundedLines {
            tx: self.tx.clone(),
            waiting: self.waiting.clone(),
            limit: self.limit,
            write_error: self.write_error.clone(),
            fault: self.fault.clone(),
            tap: self.tap.clone(),
            drained: None,
        }
    }

    fn check(&self) -> Result<(), std::io::Error> {
        if let Some(reason) = self.fault.reason() {
            return Err(std::io::Error::other(reason.to_string()));
        }
        if let Some(e) = self.write_error.lock().unwrap().take() {
            return Err(e);
        }
        Ok(())
    }
}

async fn write_all<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<String>,
    waiting: Arc<AtomicUsize>,
    write_error: Arc<Mutex<Option<std::io::Error>>>,
    drained: oneshot::Sender<()>,
) {
    while let Some(line) = rx.recv().await {
        let cost = line.len() + 1;
        let result = async {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await
        }
        .await;
        drop(line);
        waiting.fetch_sub(cost, Ordering::SeqCst);
        if let Err(e) = result {
            *write_error.lock().unwrap() = Some(e);
            break;
        }
    }
    // Dropping the writer closes the agent's stdin.
    drop(writer);
    let _ = drained.send(());
}

impl Sink<String> for BoundedLines {
    type Error = std::io::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(self.check())
    }

    fn start_send(self: Pin<&mut Self>, line: String) -> Result<(), Self::Error> {
        let this = self.get_mut();
        this.check()?;
        let cost = line.len() + 1;
        // One line always goes when nothing waits, however large (prompts carry images).
        let before = this.waiting.fetch_add(cost, Ordering::SeqCst);
        if before > 0 && before + cost > this.limit {
            this.waiting.fetch_sub(cost, Ordering::SeqCst);
            let reason = overflow_reason(before + cost, this.limit);
            tracing::warn!("{reason}");
            this.fault.raise(reason.clone());
            this.tx = None;
            return Err(std::io::Error::other(reason));
        }
        this.tap.line(Direction::Outgoing, &line);
        match this.tx.as_ref().map(|tx| tx.send(line)) {
            Some(Ok(())) => Ok(()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the agent's input is closed",
            )),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Queued is as far as the SDK's writer needs to know: waiting here is what the queue avoids.
        Poll::Ready(self.check())
    }

    /// Closing waits for what was queued to be written, as the direct writer did.
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        let this = self.get_mut();
        this.tx = None;
        if let Some(drained) = this.drained.as_mut() {
            let _ = futures::ready!(Pin::new(drained).poll(cx));
            this.drained = None;
        }
        Poll::Ready(this.check())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::NoTap;
    use futures::SinkExt;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn a_reader_that_stops_fails_the_sink_at_the_budget() {
        // A 4 KiB pipe nobody reads, a 64 KiB budget.
        let (writer, _reader) = tokio::io::duplex(4096);
        let fault = Arc::new(Fault::default());
        let mut sink = BoundedLines::new(writer, 64 * 1024, Arc::new(NoTap), fault.clone());
        let line = "x".repeat(999);
        let mut sent = 0usize;
        let err = loop {
            match sink.send(line.clone()).await {
                Ok(()) => sent += 1,
                Err(e) => break e,
            }
            assert!(sent < 1000, "the budget was never hit");
        };
        // 4 KiB in the pipe plus 64 KiB waiting: about 68 lines of 1 KB.
        assert!((60..=72).contains(&sent), "sent {sent} lines");
        assert!(err.to_string().contains("stopped reading its input"), "{err}");
        assert!(
            fault.reason().unwrap().contains("limit 0.1 MiB"),
            "{:?}",
            fault.reason()
        );
        tokio::time::timeout(std::time::Duration::from_secs(1), fault.raised())
            .await
            .expect("the fault is raised");
        // Later sends fail with the same reason.
        let again = sink.send("y".into()).await.unwrap_err();
        assert!(again.to_string().contains("stopped reading"));
    }

    #[tokio::test]
    async fn a_reader_that_keeps_up_gets_everything_in_order_and_close_waits_for_it() {
        let (writer, mut reader) = tokio::io::duplex(1024);
        let fault = Arc::new(Fault::default());
        let mut sink = BoundedLines::new(writer, 8 * 1024, Arc::new(NoTap), fault.clone());
        let read = tokio::spawn(async move {
            let mut all = String::new();
            reader.read_to_string(&mut all).await.unwrap();
            all
        });
        for i in 0..2000 {
            // Pace the sender a little so the reader keeps the queue under the budget.
            if i % 50 == 0 {
                tokio::task::yield_now().await;
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            sink.send(format!("line {i}")).await.unwrap();
        }
        sink.close().await.unwrap();
        let all = read.await.unwrap();
        let lines: Vec<&str> = all.lines().collect();
        assert_eq!(lines.len(), 2000);
        assert_eq!(lines[1999], "line 1999");
        assert!(fault.reason().is_none());
    }

    #[tokio::test]
    async fn one_line_over_the_budget_goes_when_nothing_waits() {
        let (writer, mut reader) = tokio::io::duplex(1 << 20);
        let mut sink = BoundedLines::new(writer, 1024, Arc::new(NoTap), Arc::new(Fault::default()));
        sink.send("z".repeat(100_000)).await.unwrap();
        sink.close().await.unwrap();
        let mut all = Vec::new();
        reader.read_to_end(&mut all).await.unwrap();
        assert_eq!(all.len(), 100_001);
    }
}
