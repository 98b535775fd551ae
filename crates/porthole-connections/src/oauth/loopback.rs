//! The one-shot loopback listener the authorization server redirects the person's browser to
//! (RFC 8252 §7.3: an IP literal, any port). It takes exactly one answer that belongs to this
//! sign-in and then closes; an answer with the wrong `state` or issuer ends the sign-in.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use url::Url;

use super::SignInError;

const CALLBACK_PATH: &str = "/callback";

/// What the redirect carried, once it was checked.
#[derive(Debug)]
pub struct Callback {
    pub code: String,
}

/// What the answer must carry to be accepted.
#[derive(Debug, Clone)]
pub struct Expect {
    pub state: String,
    pub issuer: String,
    /// RFC 9207: the server said it sends `iss`, so an answer without it is refused.
    pub iss_required: bool,
}

pub struct Listener {
    listener: TcpListener,
    redirect_uri: Url,
}

impl Listener {
    /// Listen on 127.0.0.1, on `port` when given (the port a stored registration names) and
    /// free, else on any port.
    pub async fn bind(port: Option<u16>) -> Result<Self, SignInError> {
        let listener = match port {
            Some(p) => match TcpListener::bind(("127.0.0.1", p)).await {
                Ok(l) => l,
                Err(_) => TcpListener::bind(("127.0.0.1", 0)).await?,
            },
            None => TcpListener::bind(("127.0.0.1", 0)).await?,
        };
        let addr: SocketAddr = listener.local_addr()?;
        let redirect_uri = Url::parse(&format!("http://127.0.0.1:{}{CALLBACK_PATH}", addr.port()))
            .expect("a loopback URL parses");
        Ok(Self {
            listener,
            redirect_uri,
        })
    }

    pub fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// Wait up to `timeout` for the one answer.
    pub async fn wait(self, expect: Expect, timeout: Duration) -> Result<Callback, SignInError> {
        let (tx, mut rx) = mpsc::channel::<Result<Callback, SignInError>>(1);
        let accept = async {
            loop {
                let Ok((stream, _)) = self.listener.accept().await else {
                    continue;
                };
                let tx = tx.clone();
                let expect = expect.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let tx = tx.clone();
                        let expect = expect.clone();
                        async move { Ok::<_, Infallible>(answer(req, &expect, &tx)) }
                    });
                    let _ = http1::Builder::new()
                        .keep_alive(false)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        tokio::select! {
            outcome = rx.recv() => outcome.unwrap_or(Err(SignInError::Cancelled)),
            _ = accept => Err(SignInError::Cancelled),
            _ = tokio::time::sleep(timeout) => Err(SignInError::TimedOut(timeout)),
        }
        // The listener is dropped here: a second (replayed) answer finds nothing listening.
    }
}

fn answer(
    req: Request<Incoming>,
    expect: &Expect,
    tx: &mpsc::Sender<Result<Callback, SignInError>>,
) -> Response<Full<Bytes>> {
    if req.uri().path() != CALLBACK_PATH {
        return page(
            StatusCode::NOT_FOUND,
            "Not found",
            "This address is only Porthole's sign-in answer.",
        );
    }
    let outcome = check(req.uri().query().unwrap_or(""), expect);
    let response = match &outcome {
        Ok(_) => page(
            StatusCode::OK,
            "Signed in",
            "Porthole has the answer. You can close this page and go back to Porthole.",
        ),
        Err(e) => page(StatusCode::BAD_REQUEST, "Sign-in refused", &e.to_string()),
    };
    // Only the first outcome counts; the channel holds one.
    let _ = tx.try_send(outcome);
    response
}

fn check(query: &str, expect: &Expect) -> Result<Callback, SignInError> {
    let mut code = None;
    let mut state = None;
    let mut iss = None;
    let mut error = None;
    let mut description = None;
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        match k.as_ref() {
            "code" => code = Some(v.into_owned()),
            "state" => state = Some(v.into_owned()),
            "iss" => iss = Some(v.into_owned()),
            "error" => error = Some(v.into_owned()),
            "error_description" => description = Some(v.into_owned()),
            _ => {}
        }
    }
    // The state is checked before anything else is believed, the error too.
    if state.as_deref() != Some(expect.state.as_str()) {
        return Err(SignInError::Callback(
            "the answer's `state` does not match this sign-in (an answer from another sign-in, or forged); nothing was stored".into(),
        ));
    }
    match (&iss, expect.iss_required) {
        (Some(i), _) if i.trim_end_matches('/') != expect.issuer.trim_end_matches('/') => {
            return Err(SignInError::Callback(format!(
                "the answer comes from issuer `{i}`, not `{}` (an issuer mix-up); nothing was stored",
                expect.issuer
            )));
        }
        (None, true) => {
            return Err(SignInError::Callback(
                "the answer lacks the `iss` its server promised (RFC 9207); nothing was stored".into(),
            ));
        }
        _ => {}
    }
    if let Some(error) = error {
        let more = description.map(|d| format!(": {d}")).unwrap_or_default();
        return Err(SignInError::Callback(format!(
            "the authorization server said `{error}`{more}"
        )));
    }
    match code {
        Some(code) if !code.is_empty() => Ok(Callback { code }),
        _ => Err(SignInError::Callback(
            "the answer carries no authorization code".into(),
        )),
    }
}

fn page(status: StatusCode, title: &str, text: &str) -> Response<Full<Bytes>> {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>Porthole: {t}</title>\
         <body style=\"font:16px system-ui;margin:3em\"><h1>{t}</h1><p>{x}</p>",
        t = escape(title),
        x = escape(text)
    );
    Response::builder()
        .status(status)
        .header("Content-Type", "text/html; charset=utf-8")
        .header(
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'",
        )
        .header("Cache-Control", "no-store")
        .header("Referrer-Policy", "no-referrer")
        .body(Full::new(Bytes::from(body)))
        .expect("a static response builds")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(iss_required: bool) -> Expect {
        Expect {
            state: "s1".into(),
            issuer: "https://auth.example.com".into(),
            iss_required,
        }
    }

    #[test]
    fn only_an_answer_with_this_state_and_issuer_is_taken() {
        assert_eq!(check("code=abc&state=s1", &expect(false)).unwrap().code, "abc");
        assert_eq!(
            check(
                "code=abc&state=s1&iss=https%3A%2F%2Fauth.example.com",
                &expect(true)
            )
            .unwrap()
            .code,
            "abc"
        );
        let wrong_state = check("code=abc&state=s2", &expect(false))
            .unwrap_err()
            .to_string();
        assert!(wrong_state.contains("state"), "{wrong_state}");
        assert!(check("code=abc", &expect(false)).is_err());
        let mixup = check("code=abc&state=s1&iss=https%3A%2F%2Fevil.example", &expect(false))
            .unwrap_err()
            .to_string();
        assert!(mixup.contains("mix-up"), "{mixup}");
        assert!(check("code=abc&state=s1", &expect(true)).is_err());
        let denied = check("error=access_denied&state=s1", &expect(false))
            .unwrap_err()
            .to_string();
        assert!(denied.contains("access_denied"), "{denied}");
        // An error with a forged state says nothing of the error: the state is wrong first.
        let forged = check("error=access_denied&state=zz", &expect(false))
            .unwrap_err()
            .to_string();
        assert!(forged.contains("state"), "{forged}");
    }
}
