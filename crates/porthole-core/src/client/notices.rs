//! The transport's notices to the front end (a line on stdout that is not JSON, a line over
//! the size cap), delivered without ever blocking the reader and within a fixed amount of
//! memory.
//!
//! The reader cannot wait for the front end here (the notices come from inside the framing),
//! and it must not queue one task per notice either: an agent printing millions of lines would
//! then grow memory by a line each (issue 32: 1.5 million lines, 1.48 GB). So when the event
//! stream is full, a notice about a line over the cap waits here (a few of them: each stands
//! for 16 MiB of input), a non-JSON line is only counted, and what is held goes out as soon as
//! the stream has room: at the next notice or line read, and before the next event that may
//! wait (the agent's exit is one). Nothing is lost silently: the count arrives as
//! [`Event::StdoutNotShown`].

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc::{self, error::TrySendError};

use crate::events::Event;

/// Notices about lines over the cap kept while the stream is full; more are only counted.
const MAX_HELD_NOTICES: usize = 16;

/// What waits for room in the event stream.
#[derive(Default)]
struct Held {
    notices: VecDeque<Event>,
    /// Lines not shown: non-JSON lines, and notices beyond [`MAX_HELD_NOTICES`].
    not_shown: u64,
}

impl Held {
    fn hold(&mut self, event: Event) {
        match event {
            Event::StdoutNoise { .. } => self.not_shown += 1,
            Event::StdoutNotShown { lines } => self.not_shown += lines,
            event if self.notices.len() < MAX_HELD_NOTICES => self.notices.push_back(event),
            _ => self.not_shown += 1,
        }
    }

    fn is_empty(&self) -> bool {
        self.notices.is_empty() && self.not_shown == 0
    }

    /// The next event to deliver (the count last), taken out.
    fn pop(&mut self) -> Option<Event> {
        if let Some(event) = self.notices.pop_front() {
            return Some(event);
        }
        let lines = std::mem::take(&mut self.not_shown);
        (lines > 0).then_some(Event::StdoutNotShown { lines })
    }
}

#[derive(Default)]
pub(crate) struct Notices {
    held: Mutex<Held>,
    /// Something is held: lets the reader check for it on every line without the lock.
    any_held: AtomicBool,
}

impl Notices {
    /// Deliver `event` now if the stream has room (after what is held, to keep the order),
    /// else hold or count it.
    pub(crate) fn notice(&self, events: &mpsc::Sender<Event>, event: Event) {
        let mut held = self.lock();
        // While something is held, a line goes after it: sent only once all of that was.
        let delivered = held.is_empty() || (has_room(events) && self.drain(events, &mut held));
        if !delivered {
            held.hold(event);
            return;
        }
        match events.try_send(event) {
            Ok(()) | Err(TrySendError::Closed(_)) => {}
            Err(TrySendError::Full(event)) => {
                held.hold(event);
                self.any_held.store(true, Ordering::Release);
            }
        }
    }

    /// Deliver what is held, as far as the stream has room. Cheap when nothing is held.
    pub(crate) fn flush(&self, events: &mpsc::Sender<Event>) {
        if self.any_held.load(Ordering::Acquire) && has_room(events) {
            self.drain(events, &mut self.lock());
        }
    }

    /// Everything held, to deliver with waiting (before an event that may wait for room).
    /// Cheap when nothing is held.
    pub(crate) fn take_all(&self) -> Vec<Event> {
        if !self.any_held.load(Ordering::Acquire) {
            return Vec::new();
        }
        let mut held = self.lock();
        self.any_held.store(false, Ordering::Release);
        std::iter::from_fn(|| held.pop()).collect()
    }

    /// Send what is held while there is room; true when nothing is left.
    fn drain(&self, events: &mpsc::Sender<Event>, held: &mut Held) -> bool {
        while let Some(event) = held.pop() {
            match events.try_send(event) {
                Ok(()) => {}
                // Nobody listens: nothing to keep it for.
                Err(TrySendError::Closed(_)) => {
                    *held = Held::default();
                    break;
                }
                Err(TrySendError::Full(event)) => {
                    match event {
                        Event::StdoutNotShown { lines } => held.not_shown += lines,
                        event => held.notices.push_front(event),
                    }
                    break;
                }
            }
        }
        let empty = held.is_empty();
        self.any_held.store(!empty, Ordering::Release);
        empty
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Counting goes on until the front end has read half the stream: a flood then shows as runs
/// of lines with one count between them, not as a count after every line it read.
fn has_room(events: &mpsc::Sender<Event>) -> bool {
    events.capacity() * 2 >= events.max_capacity()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(i: u32) -> Event {
        Event::StdoutNoise {
            line: format!("line {i}"),
        }
    }

    #[test]
    fn a_full_stream_counts_lines_instead_of_holding_them() {
        let (tx, mut rx) = mpsc::channel(2);
        let notices = Notices::default();
        for i in 0..100_000 {
            notices.notice(&tx, noise(i));
        }
        notices.notice(
            &tx,
            Event::LineTooLong {
                bytes: 1 << 25,
                limit: 1 << 24,
            },
        );
        // Two lines went out; the rest is one count and the one notice, whatever the number.
        {
            let held = notices.lock();
            assert_eq!((held.notices.len(), held.not_shown), (1, 99_998));
        }
        assert!(matches!(rx.try_recv(), Ok(Event::StdoutNoise { line }) if line == "line 0"));
        assert!(matches!(rx.try_recv(), Ok(Event::StdoutNoise { line }) if line == "line 1"));
        notices.flush(&tx);
        assert!(matches!(rx.try_recv(), Ok(Event::LineTooLong { bytes, .. }) if bytes == 1 << 25));
        assert!(matches!(
            rx.try_recv(),
            Ok(Event::StdoutNotShown { lines: 99_998 })
        ));
        assert!(rx.try_recv().is_err());
        assert!(notices.take_all().is_empty());
    }

    #[test]
    fn counting_goes_on_until_half_the_stream_is_read() {
        let (tx, mut rx) = mpsc::channel(4);
        let notices = Notices::default();
        for i in 0..10 {
            notices.notice(&tx, noise(i));
        }
        // One read leaves the stream a quarter free: still counting.
        rx.try_recv().unwrap();
        notices.notice(&tx, noise(10));
        assert_eq!(notices.lock().not_shown, 7);
        // Half free: the count goes out, then lines show again.
        rx.try_recv().unwrap();
        notices.notice(&tx, noise(11));
        let rest: Vec<Event> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert!(matches!(&rest[2], Event::StdoutNotShown { lines: 7 }), "{rest:?}");
        assert!(
            matches!(&rest[3], Event::StdoutNoise { line } if line == "line 11"),
            "{rest:?}"
        );
    }

    #[test]
    fn notices_beyond_the_held_few_are_counted() {
        let (tx, _rx) = mpsc::channel(1);
        let notices = Notices::default();
        tx.try_send(noise(0)).unwrap();
        for _ in 0..MAX_HELD_NOTICES + 3 {
            notices.notice(&tx, Event::LineTooLong { bytes: 1, limit: 0 });
        }
        let held = notices.take_all();
        assert_eq!(held.len(), MAX_HELD_NOTICES + 1);
        assert!(matches!(held.last(), Some(Event::StdoutNotShown { lines: 3 })));
    }
}
