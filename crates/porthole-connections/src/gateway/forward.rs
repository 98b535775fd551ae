//! One request from an agent to a remote connection: forwarded with the connection's token,
//! the answer streamed back as it comes. A 401 gets one refresh and one retry, never a loop.
//! Where the gateway answers the connection's questions, the agent's `initialize` declares
//! elicitation and the server's event streams pass through the question filter (`sse`).

use bytes::{Bytes, BytesMut};
use futures::future::Either;
use futures::{StreamExt, TryStreamExt};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::apps;
use super::questions::{self, Answering, ConnState, SessionHeaders};
use super::resume;
use super::sse::SseFilter;
use super::url_required::{self, Retry};
use super::{Body, Endpoint, GatewayEvent, Inner, PassState, plain, standalone};

/// An MCP client message is small; a paste of a whole file as a tool argument still fits.
const REQUEST_CAP: usize = 8 * 1024 * 1024;
/// Headers an agent's request may carry upstream. Anything else (its own `Authorization`,
/// cookies) stays here: the connection's credentials are the gateway's alone.
/// `Mcp-Method` and `Mcp-Name` are the 2026-07-28 revision's copies of the body's method and
/// tool (or prompt, resource) name, which its servers require and check against the body.
const REQUEST_HEADERS: [&str; 7] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];
/// Headers of the server's answer passed back. Not `WWW-Authenticate` (the agent must not
/// start a sign-in of its own against the gateway) nor `Location` or cookies.
pub(super) const RESPONSE_HEADERS: [&str; 4] = [
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "cache-control",
];

pub(super) async fn forward(
    inner: &Arc<Inner>,
    pass: &Arc<PassState>,
    name: &str,
    endpoint: &Endpoint,
    req: Request<Incoming>,
) -> Response<Body> {
    let method = req.method().clone();
    if ![Method::POST, Method::GET, Method::DELETE].contains(&method) {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "MCP uses POST, GET and DELETE");
    }
    let (parts, body) = req.into_parts();
    let mut body = match Limited::new(body, REQUEST_CAP).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request is larger than the gateway takes",
            );
        }
    };
    let request_id = jsonrpc_id(&body);
    let fail = |reason: String, status: StatusCode| failure_response(request_id.as_ref(), status, &reason);
    let agent_header = |h: &str| {
        parts
            .headers
            .get(h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let session = SessionHeaders {
        id: agent_header("mcp-session-id"),
        protocol: agent_header("mcp-protocol-version"),
    };

    // Whether the gateway answers this connection's questions is decided at `initialize`.
    let conn = pass.conn(name);
    // The gateway answers from this `initialize` on: its own stream must open before requests.
    let mut answering_from_now = false;
    let elicitation = pass.owner.questions.is_some();
    let apps = (pass.owner.apps.as_ref()).is_some_and(|apps| apps.wanted(name));
    // A request of the 2026-07-28 revision, which has no `initialize`: it carries its client's
    // capabilities itself, and its questions come back in its own result (`input_required`).
    let mut answering_this = false;
    if method == Method::POST && (elicitation || apps) {
        let over_agent = pass.owner.over_agent;
        if let Some((sent, declared)) = questions::rewrite_initialize(&body, elicitation, over_agent, apps) {
            body = sent;
            if elicitation {
                answering_from_now = !declared || over_agent;
                conn.we_answer.store(answering_from_now, Ordering::SeqCst);
            }
        } else if let Some((sent, declared)) =
            questions::rewrite_request_capabilities(&body, elicitation, over_agent, apps)
        {
            body = sent;
            answering_this = elicitation && (!declared || over_agent);
        }
    }
    let we_answer = conn.we_answer.load(Ordering::SeqCst) || answering_this;
    let initialized = method == Method::POST && is_initialized(&body);
    let resuming = method == Method::GET && agent_header("last-event-id").is_some();
    // From before it is sent until its answer has been passed on, the server may ask while it
    // works on this request; a question when no request is left is declined.
    let in_flight = (method == Method::POST && request_id.is_some())
        .then(|| questions::InFlight::start(conn.clone(), &body));
    if we_answer && !initialized {
        conn.settled().await;
        // A GET with `Last-Event-ID` resumes a stream of the server's (a request's answer
        // that ended early): it goes upstream, read for questions like any stream.
        if method == Method::GET
            && !resuming
            && let Some(served) = serve_from_own(&conn, session.id.as_deref())
        {
            return served;
        }
    }

    // MCP Apps: a `tools/list`'s answer and a UI tool's call are read as they pass back.
    let note = match method == Method::POST {
        true => apps::Note::of(pass, &conn, name, &body, &inner.next_call),
        false => None,
    };
    let response = async {
        let pass_headers: Vec<(&'static str, String)> = REQUEST_HEADERS
            .iter()
            .filter_map(|h| Some((*h, agent_header(h)?)))
            .collect();
        let answer = match send(inner, name, endpoint, method.clone(), &pass_headers, body.clone()).await {
            Ok(a) => a,
            Err(Failure::Unreachable(e)) => return fail(e, StatusCode::BAD_GATEWAY),
            Err(Failure::Refused(e)) => return fail(e, StatusCode::FORBIDDEN),
            Err(failure @ (Failure::SignIn(_) | Failure::NotSignedIn(_) | Failure::MoreScopes(_))) => {
                return sign_in_answer(name, &failure, request_id.as_ref());
            }
        };
        if !we_answer {
            return stream_back(answer, None);
        }
        let answering = Answering {
            inner: inner.clone(),
            pass: pass.clone(),
            connection: name.to_string(),
            session: SessionHeaders {
                // The session `initialize` opened is in its answer.
                id: session.id.or_else(|| header(&answer, "mcp-session-id")),
                protocol: session.protocol,
            },
            call: in_flight.as_ref().and_then(questions::InFlight::call),
        };
        let retry = match method == Method::POST && answer.status().is_success() {
            true => Retry::of(&body, endpoint, &pass_headers),
            false => None,
        };
        if answer.status().is_success() {
            if initialized {
                standalone::open(answering.clone());
            } else if answering_from_now {
                // Until the agent says `notifications/initialized` and the gateway's stream is
                // open, its requests wait: a bridge that posts lines in parallel may send a tool
                // call first, whose question would then go to no stream.
                conn.opening.send_replace(true);
            }
        }
        match retry {
            Some(retry) => url_required::answer(answer, answering, retry, in_flight).await,
            // The agent came back to a stream with `Last-Event-ID`: the server's replay.
            None if resuming && is_event_stream(&answer) => resume::replayed(answer, answering),
            None => kept_while_passed_on(stream_back(answer, Some(answering)), in_flight),
        }
    }
    .await;
    apps::tap(response, note)
}

/// `response`, keeping `in_flight` until its body has been passed on (or dropped).
pub(super) fn kept_while_passed_on(
    response: Response<Body>,
    in_flight: Option<questions::InFlight>,
) -> Response<Body> {
    let (parts, body) = response.into_parts();
    let body = body.map_frame(move |frame| {
        let _kept = &in_flight;
        frame
    });
    Response::from_parts(parts, BodyExt::boxed(body))
}

/// The agent's GET served from the gateway's own standalone stream of the same session.
fn serve_from_own(conn: &ConnState, session: Option<&str>) -> Option<Response<Body>> {
    let own = conn.own_get.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
    if Some(own.session.as_str()) != session {
        return None;
    }
    Some(own.attach().unwrap_or_else(|| {
        plain(
            StatusCode::CONFLICT,
            "Conflict: Only one SSE stream is allowed per session",
        )
    }))
}

/// Why a request could not be sent upstream.
#[derive(Debug, thiserror::Error)]
pub(super) enum Failure {
    #[error("{0}")]
    Unreachable(String),
    /// Sign-in expired and a refresh did not help (already said to the owner).
    #[error("sign-in needed: {0}")]
    SignIn(String),
    /// The server asks for sign-in and none is kept (already said to the owner).
    #[error("sign-in needed: {0}")]
    NotSignedIn(String),
    /// The server answered 403 `insufficient_scope`: a sign-in for these scopes (the granted
    /// ones and the ones asked) is needed (already said to the owner).
    #[error("sign-in for more scopes needed: {0}")]
    MoreScopes(String),
    /// The server refused the token for its scope although the sign-in has every scope it
    /// named (or step-ups ran out): asking again would loop.
    #[error("{0}")]
    Refused(String),
}

/// One request upstream with the connection's headers and token: a 401 gets one refresh and
/// one retry. `pass_headers` are the MCP headers passed on (the agent's, or the session's).
pub(super) async fn send(
    inner: &Inner,
    name: &str,
    endpoint: &Endpoint,
    method: Method,
    pass_headers: &[(&'static str, String)],
    body: Bytes,
) -> Result<reqwest::Response, Failure> {
    let Endpoint { url, headers, .. } = endpoint;
    // A stdio server served on loopback has no sign-in: no token is looked up for it.
    let token = match endpoint.signs_in {
        true => match inner.tokens.token(name, url).await {
            Ok(t) => t,
            Err(lost) => return Err(lost_sign_in(inner, name, lost.0)),
        },
        false => None,
    };
    let send = |token: Option<String>| {
        let mut upstream = inner
            .client
            .request(method.clone(), url.clone())
            .body(body.clone());
        for (h, v) in pass_headers {
            upstream = upstream.header(*h, v);
        }
        for (h, v) in headers {
            upstream = upstream.header(h, v);
        }
        if let Some(t) = token {
            upstream = upstream.bearer_auth(t);
        }
        upstream.send()
    };
    let unreachable = |e: reqwest::Error| Failure::Unreachable(unreachable(name, &e));
    let mut answer = send(token.clone()).await.map_err(unreachable)?;
    if answer.status() == StatusCode::UNAUTHORIZED
        && let Some(failed) = token.clone()
    {
        let fresh = match inner.tokens.refreshed(name, url, &failed).await {
            Ok(t) => t,
            Err(lost) => return Err(lost_sign_in(inner, name, lost.0)),
        };
        answer = send(Some(fresh)).await.map_err(unreachable)?;
        if answer.status() == StatusCode::UNAUTHORIZED {
            return Err(lost_sign_in(
                inner,
                name,
                "the server refused a freshly refreshed token".into(),
            ));
        }
    }
    if answer.status() == StatusCode::UNAUTHORIZED {
        // Not signed in here, and the server wants it: the person signs in in Porthole, with
        // what its challenge said.
        if token.is_none()
            && let Some(challenge) = crate::oauth::bearer_challenge(answer.headers())
        {
            inner.tokens.challenged(name, &challenge);
        }
        let reason = "the server asks for sign-in".to_string();
        tell_sign_in(inner, name, &reason);
        return Err(Failure::NotSignedIn(reason));
    }
    if answer.status() == StatusCode::FORBIDDEN
        && token.is_some()
        && let Some(challenge) = crate::oauth::bearer_challenge(answer.headers())
        && challenge.error.as_deref() == Some("insufficient_scope")
    {
        return Err(step_up(inner, name, &challenge).await);
    }
    Ok(answer)
}

/// A 403 `insufficient_scope` (MCP authorization, "Scope Challenge Handling"): the scopes it
/// names are kept for the next sign-in, which asks for them with the granted ones, once; the
/// person is asked to sign in. When that cannot help (the grant has them all, or step-ups ran
/// out), the request is refused without a sign-in, so a server that always says so cannot
/// loop.
async fn step_up(inner: &Inner, name: &str, challenge: &crate::oauth::Challenge) -> Failure {
    let scopes: Vec<String> = challenge
        .scope
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    match inner.tokens.step_up(name, &scopes).await {
        Some(all) => {
            let reason = format!("the server asks for more scopes: {}", all.join(" "));
            tell_sign_in(inner, name, &reason);
            Failure::MoreScopes(reason)
        }
        None => {
            tracing::warn!(connection = name, scopes = %scopes.join(" "), "the server refused the token for its scope; not signing in again");
            Failure::Refused(format!(
                "The MCP server `{name}` refused the request: insufficient scope ({}), although Porthole's sign-in already asked for it; Porthole does not ask again.",
                scopes.join(" ")
            ))
        }
    }
}

fn is_event_stream(answer: &reqwest::Response) -> bool {
    header(answer, "content-type").is_some_and(|t| t.starts_with("text/event-stream"))
}

fn header(answer: &reqwest::Response, name: &str) -> Option<String> {
    answer.headers().get(name)?.to_str().ok().map(str::to_string)
}

/// The body is the `notifications/initialized` notification.
fn is_initialized(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .is_ok_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("notifications/initialized"))
}

/// The server's answer streamed back; with `answering`, an event stream goes through the
/// question filter first.
pub(super) fn stream_back(answer: reqwest::Response, answering: Option<Answering>) -> Response<Body> {
    let mut response = Response::builder().status(answer.status().as_u16());
    for h in RESPONSE_HEADERS {
        if let Some(v) = answer.headers().get(h) {
            response = response.header(h, v);
        }
    }
    let is_sse = is_event_stream(&answer);
    let chunks = answer
        .bytes_stream()
        .ready_chunks(READY_CHUNKS)
        .flat_map(|ready| futures::stream::iter(coalesce(ready)));
    let chunks = match answering {
        Some(answering) if is_sse => Either::Left(filtered(chunks, answering)),
        _ => Either::Right(chunks),
    };
    let frames = chunks.map_ok(Frame::data).map_err(std::io::Error::other);
    response
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap_or_else(|_| {
            plain(
                StatusCode::BAD_GATEWAY,
                "the server's answer could not be passed on",
            )
        })
}

/// `chunks` with the server's questions taken out and handed to `answering`; the rest as it
/// came, and what was left of an unfinished event when the stream ends.
fn filtered<E: Send + 'static>(
    chunks: impl futures::Stream<Item = Result<Bytes, E>> + Send + 'static,
    answering: Answering,
) -> impl futures::Stream<Item = Result<Bytes, E>> + Send + 'static {
    let filter = Arc::new(std::sync::Mutex::new(SseFilter::default()));
    let tail = filter.clone();
    chunks
        .map(move |chunk| {
            chunk.map(|bytes| {
                let (out, taken) = filter.lock().unwrap_or_else(|p| p.into_inner()).push(&bytes);
                for t in taken {
                    answering.spawn(t);
                }
                out
            })
        })
        .chain(futures::stream::once(async move {
            Ok(tail.lock().unwrap_or_else(|p| p.into_inner()).finish())
        }))
        .try_filter(|b| futures::future::ready(!b.is_empty()))
}

/// At most this many chunks that arrived together are sent on as one.
const READY_CHUNKS: usize = 64;

/// The chunks the server's answer had ready at once, as one write: a streamed answer of many
/// small events then costs the agent's side one write per read, not one per event. Nothing
/// waits for more data, so a lone event goes on at once; an error ends the batch after the
/// data before it.
fn coalesce<E>(ready: Vec<Result<Bytes, E>>) -> Vec<Result<Bytes, E>> {
    if ready.len() == 1 {
        return ready;
    }
    let mut out = Vec::new();
    let mut joined = BytesMut::new();
    for chunk in ready {
        match chunk {
            Ok(bytes) => joined.extend_from_slice(&bytes),
            Err(e) => {
                if !joined.is_empty() {
                    out.push(Ok(joined.split().freeze()));
                }
                out.push(Err(e));
            }
        }
    }
    if !joined.is_empty() {
        out.push(Ok(joined.freeze()));
    }
    out
}

fn unreachable(name: &str, e: &reqwest::Error) -> String {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message = format!("{message}: {s}");
        source = s.source();
    }
    format!("Porthole could not reach the connection `{name}`: {message}")
}

fn lost_sign_in(inner: &Inner, name: &str, reason: String) -> Failure {
    tell_sign_in(inner, name, &reason);
    Failure::SignIn(reason)
}

fn tell_sign_in(inner: &Inner, name: &str, reason: &str) {
    tracing::warn!(connection = name, %reason, "MCP connection needs sign-in");
    let _ = inner.events.send(GatewayEvent::SignInNeeded {
        connection: name.to_string(),
        reason: reason.to_string(),
    });
}

/// What the agent's model reads: the connection needs sign-in, in words that fit why.
fn sign_in_answer(name: &str, failure: &Failure, id: Option<&serde_json::Value>) -> Response<Body> {
    let message = match failure {
        Failure::SignIn(reason) => format!(
            "The sign-in to `{name}` has expired ({reason}). Sign in to `{name}` again in Porthole's Connections."
        ),
        Failure::MoreScopes(reason) => format!(
            "`{name}` needs a sign-in with more scopes ({reason}). Sign in to `{name}` again in Porthole's Connections."
        ),
        other => format!(
            "`{name}` needs sign-in ({}). Sign in to `{name}` in Porthole's Connections.",
            match other {
                Failure::NotSignedIn(reason) => reason.as_str(),
                _ => "the server asks for it",
            }
        ),
    };
    failure_response(id, StatusCode::SERVICE_UNAVAILABLE, &message)
}

/// A JSON-RPC request gets a JSON-RPC error the model can read; anything else a plain status.
fn failure_response(id: Option<&serde_json::Value>, status: StatusCode, message: &str) -> Response<Body> {
    let Some(id) = id else {
        return plain(status, message);
    };
    let error = serde_json::json!({
        "jsonrpc": "2.0", "id": id,
        "error": {"code": -32001, "message": message}
    });
    Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "application/json")
        .body(
            http_body_util::Full::new(Bytes::from(error.to_string()))
                .map_err(|never| match never {})
                .boxed(),
        )
        .expect("a JSON response builds")
}

/// The id of a single JSON-RPC request (not a notification or a response).
fn jsonrpc_id(body: &[u8]) -> Option<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    v.get("method")?;
    v.get("id").filter(|id| !id.is_null()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(v: &[Result<Bytes, &'static str>]) -> Vec<Result<Vec<u8>, &'static str>> {
        v.iter().map(|r| r.clone().map(|b| b.to_vec())).collect()
    }

    #[test]
    fn chunks_ready_together_go_as_one_and_an_error_keeps_what_came_before() {
        let one = vec![Ok(Bytes::from_static(b"a"))];
        assert_eq!(data(&coalesce(one)), vec![Ok(b"a".to_vec())]);
        let three = vec![
            Ok(Bytes::from_static(b"data: 1\n\n")),
            Ok(Bytes::from_static(b"data: 2\n\n")),
            Ok(Bytes::from_static(b"data: 3\n\n")),
        ];
        assert_eq!(
            data(&coalesce(three)),
            vec![Ok(b"data: 1\n\ndata: 2\n\ndata: 3\n\n".to_vec())]
        );
        let broken = vec![
            Ok(Bytes::from_static(b"x")),
            Ok(Bytes::from_static(b"y")),
            Err("reset"),
            Ok(Bytes::from_static(b"z")),
        ];
        assert_eq!(
            data(&coalesce(broken)),
            vec![Ok(b"xy".to_vec()), Err("reset"), Ok(b"z".to_vec())]
        );
    }
}
