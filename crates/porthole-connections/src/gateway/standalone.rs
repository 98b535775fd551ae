//! The session's standalone GET stream, where servers send questions not tied to a request
//! (the TypeScript SDK sends every `elicitInput` there). Without one, the server drops the
//! question and the tool call hangs, so when the gateway answers a connection's questions and
//! the agent opens no GET stream of its own, the gateway opens one.
//!
//! A server allows one GET stream per session (the TypeScript SDK answers a second with 409),
//! and sends a question meant for that stream nowhere while none is open. So the gateway opens
//! its own as soon as `notifications/initialized` is answered, and the session's requests
//! between `initialize` and that stream's opening wait (10 s at most): a tool call cannot ask
//! before anyone listens. The
//! agent's own GET is then served from the gateway's stream (what the gateway does not take is
//! passed on to it), not sent upstream to a 409; once the gateway's stream ends, the agent's
//! next GET goes upstream as it is (the question filter still reads it). An agent's
//! `Last-Event-ID` on a GET served this way is not replayed.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::{Method, Response, StatusCode};
use tokio::sync::mpsc;

use super::Body;
use super::questions::{Answering, OPENING_WAIT};
use super::sse::SseFilter;

/// The gateway's own GET stream for one session, and the agent's stream it feeds, if any.
pub(crate) struct OwnGet {
    pub session: String,
    agent: Mutex<Option<mpsc::Sender<Bytes>>>,
}

impl OwnGet {
    /// A response serving the agent's GET from this stream; `None` when an agent stream is
    /// already attached (the server would have said 409 too).
    pub(crate) fn attach(&self) -> Option<Response<Body>> {
        let mut slot = self.agent.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        *slot = Some(tx);
        let frames = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|b| (Ok(Frame::data(b)), rx))
        });
        Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache")
            .header("mcp-session-id", &self.session)
            .body(BodyExt::boxed(StreamBody::new(frames)))
            .ok()
    }

    async fn pass_on(&self, bytes: Bytes) {
        let tx = self.agent.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(tx) = tx
            && tx.send(bytes).await.is_err()
        {
            // The agent closed its stream: what comes next has no one to go to.
            *self.agent.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// Open the gateway's own GET stream for `answering`'s session. Until it is open (or could
/// not be), the session's requests wait ([`super::questions::ConnState::settled`]).
pub(crate) fn open(answering: Answering) {
    let conn = answering.pass.conn(&answering.connection);
    conn.opening.send_replace(true);
    tokio::spawn(async move {
        let opened = opening(&answering).await;
        // However it went, requests need not wait any more. (Cleared here, not when the
        // stream ends: by then the agent may be opening another MCP session on this pass.)
        conn.opening.send_replace(false);
        if let Some((own, answer)) = opened {
            listen(&answering, own, answer).await;
        }
    });
}

/// The gateway's own GET stream, open and registered; `None` when the server has none.
async fn opening(answering: &Answering) -> Option<(Arc<OwnGet>, reqwest::Response)> {
    let conn = answering.pass.conn(&answering.connection);
    let session = answering.session.id.clone()?;
    let endpoint = answering.pass.remote(&answering.connection)?;
    let mut session_headers = answering.session.headers();
    session_headers.retain(|(h, _)| *h != "content-type" && *h != "accept");
    session_headers.push(("accept", "text/event-stream".into()));
    let send = super::forward::send(
        &answering.inner,
        &answering.connection,
        &endpoint,
        Method::GET,
        &session_headers,
        Bytes::new(),
    );
    let Ok(answer) = tokio::time::timeout(OPENING_WAIT, send).await else {
        tracing::warn!(
            connection = answering.connection,
            "the server did not open a standalone stream in time"
        );
        return None;
    };
    let answer = match answer {
        Ok(a) if a.status().is_success() => a,
        // 405: the server has no standalone stream.
        Ok(a) => {
            tracing::debug!(
                connection = answering.connection,
                status = a.status().as_u16(),
                "no standalone stream of the gateway's own"
            );
            return None;
        }
        Err(e) => {
            tracing::warn!(connection = answering.connection, reason = %e, "the gateway's standalone stream could not open");
            return None;
        }
    };
    let own = Arc::new(OwnGet {
        session,
        agent: Mutex::new(None),
    });
    *conn.own_get.lock().unwrap_or_else(|p| p.into_inner()) = Some(own.clone());
    Some((own, answer))
}

/// Read the gateway's own stream until it or the pass ends: questions taken, the rest passed
/// on to the agent's GET when one is served from it.
async fn listen(answering: &Answering, own: Arc<OwnGet>, answer: reqwest::Response) {
    let conn = answering.pass.conn(&answering.connection);
    let mut filter = SseFilter::default();
    let mut body = answer.bytes_stream();
    let mut closed = answering.pass.closed();
    loop {
        let chunk = tokio::select! {
            chunk = body.next() => chunk,
            _ = closed.wait_for(|c| *c) => None,
        };
        let Some(Ok(chunk)) = chunk else { break };
        let (out, taken) = filter.push(&chunk);
        for t in taken {
            answering.spawn(t);
        }
        if !out.is_empty() {
            own.pass_on(out).await;
        }
    }
    let mut slot = conn.own_get.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_some_and(|o| Arc::ptr_eq(o, &own)) {
        *slot = None;
    }
}
