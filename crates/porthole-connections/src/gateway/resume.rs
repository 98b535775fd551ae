//! An agent that reconnects to a stream with `Last-Event-ID` (MCP streamable HTTP,
//! "Resumability and Redelivery") gets the server's events after that id again. Some of them
//! the gateway took out of the first delivery and handled itself: a server's question (asked
//! of the person, answered upstream) and a tool call's -32042 or `input_required` answer
//! (asked, waited for, retried). A replay must not ask the person again, nor hand the agent an
//! error the gateway already resolved, nor an answer it already had:
//! - a question is asked once per MCP session and request id ([`Replays::first_ask`]), whether
//!   it comes again in a replay or a server sends it twice;
//! - a held answer is replaced by its outcome (the retry's answer, or the original error when
//!   the gateway gave up) under the held event's id ([`HeldAnswer`]): an agent that got it
//!   resumes after it, one that did not gets it in the replay, in its place; a replay that
//!   comes while the gateway still waits for the person waits with it.
//!
//! The gateway keeps reading a tool call's stream after the agent dropped it
//! (`url_required::pump`), so what the server sends meanwhile is handled as it comes and a
//! replay finds it known.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::Body;
use super::questions::Answering;
use super::sse::{SseFilter, Taken};

/// How many question ids and held answers a connection remembers per pass: replays come
/// within a session's life, and a server that asks more than this has long been rate-capped.
const REMEMBERED: usize = 256;

/// A request id within an MCP session (ids repeat across sessions).
type Key = (Option<String>, String);

fn key(session: Option<&str>, id: &Value) -> Key {
    (session.map(str::to_string), id.to_string())
}

/// What one connection of a pass remembers of the events it took out of streams.
#[derive(Default)]
pub(crate) struct Replays {
    asked: Mutex<Bounded<()>>,
    held: Mutex<Bounded<Arc<HeldAnswer>>>,
}

impl Replays {
    /// True the first time the server's question `id` comes in `session`; false for a replay.
    pub(crate) fn first_ask(&self, session: Option<&str>, id: &Value) -> bool {
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        asked.insert_new(key(session, id), ())
    }

    /// The held answer to the agent's request `id` in `session`, taken from its first stream
    /// as `event`.
    pub(crate) fn hold(&self, session: Option<&str>, id: &Value, event: &[u8]) -> Arc<HeldAnswer> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let answer = Arc::new(HeldAnswer {
            event_id: super::sse::event_id(event),
            outcome: watch::channel(None).0,
        });
        held.insert(key(session, id), answer.clone());
        answer
    }

    fn held(&self, session: Option<&str>, id: &Value) -> Option<Arc<HeldAnswer>> {
        let held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        held.get(&key(session, id)).cloned()
    }
}

/// A map that forgets its oldest entries past [`REMEMBERED`].
struct Bounded<T> {
    order: VecDeque<Key>,
    map: HashMap<Key, T>,
}

impl<T> Default for Bounded<T> {
    fn default() -> Self {
        Self {
            order: VecDeque::new(),
            map: HashMap::new(),
        }
    }
}

impl<T> Bounded<T> {
    /// Inserts `key` unless present: whether it was new.
    fn insert_new(&mut self, key: Key, value: T) -> bool {
        if self.map.contains_key(&key) {
            return false;
        }
        self.insert(key, value);
        true
    }

    fn insert(&mut self, key: Key, value: T) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }

    fn get(&self, key: &Key) -> Option<&T> {
        self.map.get(key)
    }
}

/// A tool call's answer the gateway held (-32042, `input_required`) and what became of it.
/// The agent's answer takes the held event's place in the stream, under its event id: an agent
/// that got it resumes after that id, and one that did not gets it in the replay.
pub(crate) struct HeldAnswer {
    /// The held event's `id`, if it had one.
    event_id: Option<String>,
    /// The event the agent gets instead, once the gateway knows it.
    outcome: watch::Sender<Option<Bytes>>,
}

impl HeldAnswer {
    /// `message` is the agent's answer: as the held event's replacement.
    pub(crate) fn settle(&self, message: &Value) -> Bytes {
        let id = match &self.event_id {
            Some(id) => format!("id: {id}\n"),
            None => String::new(),
        };
        let event = Bytes::from(format!("{id}event: message\ndata: {message}\n\n"));
        self.settle_event(event.clone());
        event
    }

    /// The held event itself is the agent's answer (the gateway did not retry).
    pub(crate) fn settle_event(&self, event: Bytes) {
        self.outcome.send_if_modified(|outcome| {
            let first = outcome.is_none();
            if first {
                *outcome = Some(event);
            }
            first
        });
    }

    /// The outcome, once known (`None` if the gateway stopped before knowing it).
    async fn for_replay(&self) -> Option<Bytes> {
        let mut outcome = self.outcome.subscribe();
        outcome.wait_for(Option::is_some).await.ok()?.clone()
    }
}

/// The answer to an agent's GET with `Last-Event-ID`: the server's replay, with what the gateway
/// took out of the first delivery handled as the module says and every other event as it came.
pub(crate) fn replayed(answer: reqwest::Response, answering: Answering) -> Response<Body> {
    let mut response = Response::builder().status(answer.status().as_u16());
    for h in super::forward::RESPONSE_HEADERS {
        if let Some(v) = answer.headers().get(h) {
            response = response.header(h, v);
        }
    }
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        let conn = answering.pass.conn(&answering.connection);
        let session = answering.session.id.clone();
        let mut filter = SseFilter::holding_any();
        let mut body = answer.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    let _ = tx.send(Err(std::io::Error::other(e))).await;
                    return;
                }
            };
            let (out, taken) = filter.push(&chunk);
            // Events before a held answer go first: the order is the server's.
            let mut sent = out.is_empty() || tx.send(Ok(out)).await.is_ok();
            for t in taken {
                match t {
                    Taken::Held(message, raw) => {
                        let event = match conn.replays.held(session.as_deref(), &message["id"]) {
                            Some(held) => held.for_replay().await,
                            // Not one the gateway held (it was not reading then): as it came.
                            None => Some(raw),
                        };
                        // The agent gets the answer it did not get (its `Last-Event-ID` is
                        // before it), never the error the gateway resolved.
                        if let Some(event) = event {
                            sent &= tx.send(Ok(event)).await.is_ok();
                        }
                    }
                    other => answering.spawn(other),
                }
            }
            if !sent {
                return;
            }
        }
        let tail = filter.finish();
        if !tail.is_empty() {
            let _ = tx.send(Ok(tail)).await;
        }
    });
    let frames = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (b.map(Frame::data), rx))
    });
    response
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap_or_else(|_| super::plain(StatusCode::BAD_GATEWAY, "the replay could not be passed on"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_question_is_asked_once_per_session_and_the_oldest_are_forgotten() {
        let replays = Replays::default();
        assert!(replays.first_ask(Some("s1"), &json!(1)));
        assert!(!replays.first_ask(Some("s1"), &json!(1)));
        assert!(replays.first_ask(Some("s2"), &json!(1)), "another session");
        assert!(
            replays.first_ask(Some("s1"), &json!("1")),
            "a string id is another id"
        );
        for i in 2..REMEMBERED as i64 + 10 {
            replays.first_ask(Some("s1"), &json!(i));
        }
        let asked = replays.asked.lock().unwrap();
        assert_eq!(asked.map.len(), REMEMBERED);
        assert!(asked.get(&key(Some("s1"), &json!(1))).is_none(), "forgotten");
    }

    #[tokio::test]
    async fn a_held_answer_is_replaced_under_its_event_id_by_the_first_outcome() {
        let replays = Replays::default();
        let held = replays.hold(Some("s1"), &json!(7), b"id: c3\ndata: {}\n\n");
        let event = held.settle(&json!({"id": 7, "result": {}}));
        assert_eq!(
            event,
            "id: c3\nevent: message\ndata: {\"id\":7,\"result\":{}}\n\n"
        );
        held.settle_event(Bytes::from_static(b"data: other\n\n"));
        let found = replays.held(Some("s1"), &json!(7)).unwrap();
        assert_eq!(
            found.for_replay().await.unwrap(),
            event,
            "the first outcome stays"
        );
        assert!(replays.held(Some("s2"), &json!(7)).is_none());
        let no_id = replays.hold(None, &json!(8), b"data: {}\n\n");
        assert_eq!(no_id.settle(&json!(1)), "event: message\ndata: 1\n\n");
    }

    #[tokio::test]
    async fn a_replay_waits_for_the_outcome() {
        let held = Replays::default().hold(None, &json!(1), b"");
        let replay = tokio::spawn({
            let held = held.clone();
            async move { held.for_replay().await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!replay.is_finished());
        held.settle_event(Bytes::from_static(b"data: paid\n\n"));
        assert_eq!(replay.await.unwrap().unwrap(), "data: paid\n\n");
    }
}
