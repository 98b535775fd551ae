//! One request from an agent to a remote connection: forwarded with the connection's token,
//! the answer streamed back as it comes. A 401 gets one refresh and one retry, never a loop.

use bytes::{Bytes, BytesMut};
use futures::{StreamExt, TryStreamExt};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use url::Url;

use super::{Body, GatewayEvent, Inner, plain};

/// An MCP client message is small; a paste of a whole file as a tool argument still fits.
const REQUEST_CAP: usize = 8 * 1024 * 1024;
/// Headers an agent's request may carry upstream. Anything else (its own `Authorization`,
/// cookies) stays here: the connection's credentials are the gateway's alone.
const REQUEST_HEADERS: [&str; 5] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];
/// Headers of the server's answer passed back. Not `WWW-Authenticate` (the agent must not
/// start a sign-in of its own against the gateway) nor `Location` or cookies.
const RESPONSE_HEADERS: [&str; 4] = [
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "cache-control",
];

pub(super) async fn forward(
    inner: &Inner,
    name: &str,
    url: &Url,
    headers: &[(String, String)],
    req: Request<Incoming>,
) -> Response<Body> {
    let method = req.method().clone();
    if ![Method::POST, Method::GET, Method::DELETE].contains(&method) {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "MCP uses POST, GET and DELETE");
    }
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, REQUEST_CAP).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request is larger than the gateway takes",
            );
        }
    };
    let request_id = jsonrpc_id(&body);
    let fail = |reason: String, status: StatusCode| failure(request_id.as_ref(), status, &reason);

    let token = match inner.tokens.token(name).await {
        Ok(t) => t,
        Err(lost) => return lost_sign_in(inner, name, lost.0, request_id.as_ref()),
    };
    let send = |token: Option<String>| {
        let mut upstream = inner
            .client
            .request(method.clone(), url.clone())
            .body(body.clone());
        for h in REQUEST_HEADERS {
            if let Some(v) = parts.headers.get(h) {
                upstream = upstream.header(h, v);
            }
        }
        for (h, v) in headers {
            upstream = upstream.header(h, v);
        }
        if let Some(t) = token {
            upstream = upstream.bearer_auth(t);
        }
        upstream.send()
    };
    let mut answer = match send(token.clone()).await {
        Ok(a) => a,
        Err(e) => return fail(unreachable(name, &e), StatusCode::BAD_GATEWAY),
    };
    if answer.status() == StatusCode::UNAUTHORIZED
        && let Some(failed) = token
    {
        let fresh = match inner.tokens.refreshed(name, &failed).await {
            Ok(t) => t,
            Err(lost) => return lost_sign_in(inner, name, lost.0, request_id.as_ref()),
        };
        answer = match send(Some(fresh)).await {
            Ok(a) => a,
            Err(e) => return fail(unreachable(name, &e), StatusCode::BAD_GATEWAY),
        };
        if answer.status() == StatusCode::UNAUTHORIZED {
            return lost_sign_in(
                inner,
                name,
                "the server refused a freshly refreshed token".into(),
                request_id.as_ref(),
            );
        }
    }
    if answer.status() == StatusCode::UNAUTHORIZED {
        // Not signed in here, and the server wants it: the person signs in in Porthole.
        return lost_sign_in(
            inner,
            name,
            "the server asks for sign-in".into(),
            request_id.as_ref(),
        );
    }
    stream_back(answer)
}

fn stream_back(answer: reqwest::Response) -> Response<Body> {
    let mut response = Response::builder().status(answer.status().as_u16());
    for h in RESPONSE_HEADERS {
        if let Some(v) = answer.headers().get(h) {
            response = response.header(h, v);
        }
    }
    let frames = answer
        .bytes_stream()
        .ready_chunks(READY_CHUNKS)
        .flat_map(|ready| futures::stream::iter(coalesce(ready)))
        .map_ok(Frame::data)
        .map_err(std::io::Error::other);
    response
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .unwrap_or_else(|_| {
            plain(
                StatusCode::BAD_GATEWAY,
                "the server's answer could not be passed on",
            )
        })
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

fn lost_sign_in(inner: &Inner, name: &str, reason: String, id: Option<&serde_json::Value>) -> Response<Body> {
    tracing::warn!(connection = name, %reason, "MCP connection needs sign-in again");
    let _ = inner.events.send(GatewayEvent::SignInNeeded {
        connection: name.to_string(),
        reason: reason.clone(),
    });
    failure(
        id,
        StatusCode::SERVICE_UNAVAILABLE,
        &format!(
            "The sign-in to `{name}` has expired ({reason}). Sign in to `{name}` again in Porthole's Connections."
        ),
    )
}

/// A JSON-RPC request gets a JSON-RPC error the model can read; anything else a plain status.
fn failure(id: Option<&serde_json::Value>, status: StatusCode, message: &str) -> Response<Body> {
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
