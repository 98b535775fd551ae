//! A tool call answered with -32042 (URL elicitation required, MCP 2025-11-25): the server
//! needs the person to open pages first (a sign-in, a payment confirmation). Agents here do
//! nothing with it, so the gateway asks the pass owner about each URL (consent, as for a URL
//! question), waits for the server's `notifications/elicitation/complete` of each (up to
//! [`PassOwner::url_wait`](super::PassOwner)), then retries the call once and hands the agent
//! the retry's answer, whatever it is (a second -32042 goes to the agent as it came: no loop).
//! Declined, cancelled or not completed in time: the agent gets the original error, once.
//! The same retry carries the answers to an `input_required` result ([`input_required`]).

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::{Method, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Body;
use super::input_required;
use super::questions::{Answering, InFlight};
use super::resume::HeldAnswer;
use super::sse::{SseFilter, Taken, URL_REQUIRED};

/// A tool call the gateway may send again: once after a -32042, and up to
/// [`input_required::ROUNDS`] times with the answers to an `input_required` result.
#[derive(Clone)]
pub(crate) struct Retry {
    pub id: Value,
    /// The call as it is sent next (the agent's, or the last round's with its answers).
    pub body: Bytes,
    pub endpoint: super::Endpoint,
    pub pass_headers: Vec<(&'static str, String)>,
    /// A -32042 may still be retried (once per call: a second goes to the agent as it came).
    pub url_retry: bool,
    /// `input_required` rounds left.
    pub rounds: u8,
}

impl Retry {
    /// `body` when it is a `tools/call` request.
    pub(crate) fn of(
        body: &Bytes,
        endpoint: &super::Endpoint,
        pass_headers: &[(&'static str, String)],
    ) -> Option<Retry> {
        let message: Value = serde_json::from_slice(body).ok()?;
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        Some(Retry {
            id: message.get("id").filter(|id| !id.is_null())?.clone(),
            body: body.clone(),
            endpoint: endpoint.clone(),
            pass_headers: pass_headers.to_vec(),
            url_retry: true,
            rounds: input_required::ROUNDS,
        })
    }
}

/// The answer to a tool call the gateway may retry, as the agent gets it.
pub(crate) async fn answer(
    answer: reqwest::Response,
    answering: Answering,
    retry: Retry,
    in_flight: Option<InFlight>,
) -> Response<Body> {
    let status = answer.status();
    let content_type = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if content_type.starts_with("text/event-stream") {
        return event_stream(answer, answering, retry, in_flight);
    }
    if !content_type.starts_with("application/json") {
        let response = super::forward::stream_back(answer, Some(answering));
        return super::forward::kept_while_passed_on(response, in_flight);
    }
    // A JSON answer is one message: read whole to see whether it is -32042 (an error is small;
    // past `JSON_CAP` it is a result, passed on as it streams).
    let headers = answer.headers().clone();
    let mut body = answer.bytes_stream();
    let mut read = bytes::BytesMut::new();
    let mut rest = None;
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(c) => read.extend_from_slice(&c),
            Err(e) => return super::plain(StatusCode::BAD_GATEWAY, &e.to_string()),
        }
        if read.len() > JSON_CAP {
            rest = Some(body);
            break;
        }
    }
    let read = read.freeze();
    if rest.is_none()
        && let Some(message) = serde_json::from_slice::<Value>(&read).ok()
        && let Some((again, next)) = next_call(&answering, &retry, &message).await
    {
        return Box::pin(self::answer(again, answering, next, in_flight)).await;
    }
    let mut response = Response::builder().status(status.as_u16());
    for (name, value) in headers.iter() {
        if super::forward::RESPONSE_HEADERS.contains(&name.as_str()) {
            response = response.header(name, value);
        }
    }
    let first = futures::stream::once(async move { Ok::<_, reqwest::Error>(read) });
    let frames = match rest {
        Some(rest) => first.chain(rest).left_stream(),
        None => first.right_stream(),
    }
    .map(|chunk| chunk.map(Frame::data).map_err(std::io::Error::other));
    let response = response
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap_or_else(|_| super::plain(StatusCode::BAD_GATEWAY, "the answer could not be passed on"));
    super::forward::kept_while_passed_on(response, in_flight)
}

/// The most of a JSON answer read before deciding it is no -32042.
const JSON_CAP: usize = 1024 * 1024;

fn is_url_required(message: &Value, id: &Value) -> bool {
    message.get("id") == Some(id) && message["error"]["code"].as_i64() == Some(URL_REQUIRED)
}

/// What to do with the answer `message` to `retry`'s call: the call sent again (with the
/// retry's state after it), or `None` to pass `message` on to the agent as it came.
async fn next_call(
    answering: &Answering,
    retry: &Retry,
    message: &Value,
) -> Option<(reqwest::Response, Retry)> {
    let next = if retry.url_retry && is_url_required(message, &retry.id) {
        if !resolved(answering, message).await {
            return None;
        }
        Retry {
            url_retry: false,
            ..retry.clone()
        }
    } else if retry.rounds > 0 && input_required::is_input_required(message, &retry.id) {
        Retry {
            body: input_required::retry_body(answering, &retry.body, message).await?,
            rounds: retry.rounds - 1,
            ..retry.clone()
        }
    } else {
        return None;
    };
    send_again(answering, &next).await.map(|again| (again, next))
}

/// An event stream read by a task of its own: the gateway may have to wait for the person and
/// the server in the middle of it. The task reads the server's stream to its end even when the
/// agent dropped its side (it may come back with `Last-Event-ID`, `resume.rs`), and keeps the
/// request `in_flight` meanwhile: a question on it is still its call's.
fn event_stream(
    answer: reqwest::Response,
    answering: Answering,
    retry: Retry,
    in_flight: Option<InFlight>,
) -> Response<Body> {
    let mut response = Response::builder().status(answer.status().as_u16());
    for h in super::forward::RESPONSE_HEADERS {
        if let Some(v) = answer.headers().get(h) {
            response = response.header(h, v);
        }
    }
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        let _in_flight = in_flight;
        let mut agent = Agent { tx, gone: false };
        let mut retry = retry;
        let Some((message, raw)) = pump(
            answer,
            &mut SseFilter::holding(retry.id.clone()),
            &answering,
            &mut agent,
            None,
        )
        .await
        else {
            return;
        };
        // From here the agent's answer is the gateway's to give, once (a replay asks for it).
        let conn = answering.pass.conn(&answering.connection);
        let outcome = conn
            .replays
            .hold(answering.session.id.as_deref(), &retry.id, &raw);
        let original = raw.clone();
        let mut held = Some((message, raw));
        while let Some((message, raw)) = held.take() {
            match next_call(&answering, &retry, &message).await {
                Some((again, next)) => {
                    retry = next;
                    held = again_as_events(again, &answering, &retry.id, &mut agent, &outcome).await;
                }
                None => {
                    outcome.settle_event(raw.clone());
                    agent.send(raw).await;
                }
            }
        }
        // A retry that broke off gave no whole answer: a replay gets the original one.
        outcome.settle_event(original);
    });
    let frames = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (b.map(Frame::data), rx))
    });
    response
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap_or_else(|_| super::plain(StatusCode::BAD_GATEWAY, "the answer could not be passed on"))
}

/// The agent's side of a tool call's event stream; it may have gone.
struct Agent {
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
    gone: bool,
}

impl Agent {
    async fn send(&mut self, bytes: Bytes) {
        if !self.gone && self.tx.send(Ok(bytes)).await.is_err() {
            self.gone = true;
        }
    }

    async fn fail(&mut self, e: reqwest::Error) {
        if !self.gone {
            let _ = self.tx.send(Err(std::io::Error::other(e))).await;
            self.gone = true;
        }
    }
}

/// Pass `answer`'s events on through `filter` until it ends; the held answer taken (a -32042 or
/// an `input_required` result), if any, is returned instead of passed on. With `outcome`, the
/// request's other answer is remembered as what the agent got.
async fn pump(
    answer: reqwest::Response,
    filter: &mut SseFilter,
    answering: &Answering,
    agent: &mut Agent,
    outcome: Option<&HeldAnswer>,
) -> Option<(Value, Bytes)> {
    let mut body = answer.bytes_stream();
    let mut held = None;
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                agent.fail(e).await;
                return None;
            }
        };
        let (out, taken) = filter.push(&chunk);
        if !out.is_empty() {
            agent.send(out).await;
        }
        for t in taken {
            match t {
                Taken::Held(message, raw) => held = Some((message, raw)),
                Taken::Answer(message) => {
                    if let Some(outcome) = outcome {
                        outcome.settle(&message);
                    }
                }
                other => answering.spawn(other),
            }
        }
    }
    let tail = filter.finish();
    if !tail.is_empty() {
        agent.send(tail).await;
    }
    held
}

/// The retry's answer on the first answer's event stream: its events read for questions, or its
/// JSON message as one event. An answer the gateway may act on again (a -32042, an
/// `input_required` result) is returned instead of passed on; any other is remembered in
/// `outcome`.
async fn again_as_events(
    again: reqwest::Response,
    answering: &Answering,
    id: &Value,
    agent: &mut Agent,
    outcome: &HeldAnswer,
) -> Option<(Value, Bytes)> {
    let is_sse = again
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    if is_sse {
        let mut filter = SseFilter::holding_reporting(id.clone());
        return pump(again, &mut filter, answering, agent, Some(outcome)).await;
    }
    let message = match again.bytes().await {
        Ok(b) => serde_json::from_slice::<Value>(&b).ok()?,
        Err(e) => {
            agent.fail(e).await;
            return None;
        }
    };
    if is_url_required(&message, id) || input_required::is_input_required(&message, id) {
        let event = Bytes::from(format!("event: message\ndata: {message}\n\n"));
        return Some((message, event));
    }
    // In the held event's place, under its id.
    agent.send(outcome.settle(&message)).await;
    None
}

/// Ask about each URL of the -32042 `message` and wait for the server to complete each: true
/// when every one was accepted and completed in time.
async fn resolved(answering: &Answering, message: &Value) -> bool {
    let Some(elicitations) = message["error"]["data"]["elicitations"].as_array() else {
        return false;
    };
    let conn = answering.pass.conn(&answering.connection);
    let mut completions = Vec::new();
    for (i, params) in elicitations.iter().enumerate() {
        let Some(id) = params["elicitationId"].as_str() else {
            return false;
        };
        // Registered before asking: the server may complete at once.
        completions.push(conn.completion(id));
        let request = json!({"jsonrpc": "2.0", "id": format!("porthole-url-required-{i}"),
            "method": "elicitation/create", "params": params});
        match answering.answer(&request).await {
            Ok(result) if result["action"] == "accept" => {}
            Ok(_) => return false,
            Err((_, reason)) => {
                tracing::warn!(connection = answering.connection, %reason, "a -32042 URL Porthole refuses");
                return false;
            }
        }
    }
    let wait = answering.pass.owner.url_wait;
    let all = futures::future::join_all(completions);
    match tokio::time::timeout(wait, all).await {
        Ok(done) => done.iter().all(Result::is_ok),
        Err(_) => {
            tracing::warn!(
                connection = answering.connection,
                "the server did not complete its URL elicitation within {} s: the agent gets its error",
                wait.as_secs()
            );
            false
        }
    }
}

/// The tool call sent once more, as the agent sent it.
async fn send_again(answering: &Answering, retry: &Retry) -> Option<reqwest::Response> {
    super::forward::send(
        &answering.inner,
        &answering.connection,
        &retry.endpoint,
        Method::POST,
        &retry.pass_headers,
        retry.body.clone(),
    )
    .await
    .inspect_err(
        |e| tracing::warn!(connection = answering.connection, reason = %e, "the retry after -32042 failed"),
    )
    .ok()
}
