//! The local "Porthole Demo service" sign-in page used by `/connect`.
//!
//! It is a tiny HTTP server on `127.0.0.1:<random port>` (tiny_http in a
//! background thread) that plays the part of an OAuth-style authorization
//! page opened through a URL-mode elicitation.
//!
//! Security model (what a real agent must do too):
//! * every sign-in has a one-time, unguessable `state` (128 bits, hex) that is
//!   bound to the agent-client connection and the elicitation that created it;
//! * the first browser to load `/authorize?state=S` gets a random
//!   `porthole_demo_session` cookie bound to `S` (HttpOnly, SameSite=Lax), and
//!   only that browser can load the page again or submit the decision, so a
//!   leaked link cannot be completed by somebody else;
//! * the state becomes invalid once used, on timeout, or when the turn ends;
//! * nothing obtained here (cookie, state, decision details) is ever sent back
//!   over ACP: the agent side only learns "authorized" or "denied".

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Name of the browser session cookie.
pub const COOKIE_NAME: &str = "porthole_demo_session";

/// The outcome of a sign-in, delivered to the waiting turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Authorized,
    Denied,
}

struct Pending {
    /// Cookie value bound on first load of the authorize page.
    cookie: Option<String>,
    used: bool,
    notify: Option<oneshot::Sender<Outcome>>,
}

/// A minimal HTTP reply, independent of the server library (for tests).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Outcome to deliver to the waiting turn once the page has been sent.
    pub notify: Option<(oneshot::Sender<Outcome>, Outcome)>,
}

impl Reply {
    /// Delivers the outcome (if any) to the waiting turn.
    pub fn deliver(&mut self) {
        if let Some((tx, outcome)) = self.notify.take() {
            let _ = tx.send(outcome);
        }
    }
}

/// Shared state machine of the sign-in service.
#[derive(Default)]
pub struct SigninState {
    pending: Mutex<HashMap<String, Pending>>,
}

/// A running sign-in service.
pub struct SigninService {
    port: u16,
    state: Arc<SigninState>,
}

/// Returns `n` random bytes as lowercase hex.
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("OS random number generator unavailable");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

impl SigninService {
    /// Binds `127.0.0.1:0` and serves requests on a background thread.
    pub fn start() -> anyhow::Result<Arc<Self>> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| anyhow::anyhow!("cannot start sign-in service: {e}"))?;
        let port = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| anyhow::anyhow!("sign-in service has no IP address"))?
            .port();
        let state = Arc::new(SigninState::default());
        let thread_state = state.clone();
        std::thread::Builder::new()
            .name("porthole-demo-signin".into())
            .spawn(move || serve(server, port, thread_state))?;
        Ok(Arc::new(Self { port, state }))
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Registers a new one-time sign-in. Returns its `state` and a receiver
    /// for the outcome.
    pub fn begin(&self) -> (String, oneshot::Receiver<Outcome>) {
        self.state.begin()
    }

    /// The authorization URL for a state (no credentials in it).
    pub fn authorize_url(&self, state: &str) -> String {
        format!("http://127.0.0.1:{}/authorize?state={state}", self.port)
    }

    /// Invalidates a state (timeout, cancellation, declined elicitation).
    pub fn forget(&self, state: &str) {
        self.state.forget(state);
    }
}

fn serve(server: tiny_http::Server, port: u16, state: Arc<SigninState>) {
    for mut request in server.incoming_requests() {
        let method = request.method().as_str().to_ascii_uppercase();
        let url = request.url().to_owned();
        let header = |name: &'static str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.equiv(name))
                .map(|h| h.value.as_str().to_owned())
        };
        let cookie = header("Cookie");
        let origin = header("Origin");
        let host = header("Host");
        let mut body = String::new();
        if method == "POST" {
            use std::io::Read;
            let _ = request.as_reader().take(8 * 1024).read_to_string(&mut body);
        }
        // Reject other Host names (DNS-rebinding defence): the page is
        // only meant to be reached as 127.0.0.1 / localhost.
        if !host.is_none_or(|h| host_ok(&h, port)) {
            let r = page(400, "Bad request", "Unexpected host.");
            let mut response = tiny_http::Response::from_string(r.body).with_status_code(400);
            for (name, value) in r.headers {
                if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                    response.add_header(h);
                }
            }
            let _ = request.respond(response);
            continue;
        }
        let mut reply = state.handle(&method, &url, cookie.as_deref(), origin.as_deref(), &body, port);
        let mut response =
            tiny_http::Response::from_string(std::mem::take(&mut reply.body)).with_status_code(reply.status);
        for (name, value) in std::mem::take(&mut reply.headers) {
            if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        if let Err(e) = request.respond(response) {
            eprintln!("porthole-demo-agent: sign-in service response failed: {e}");
        }
        // Notify the agent only after the "you can close this window" page
        // has been written.
        reply.deliver();
    }
}

impl SigninState {
    pub fn begin(&self) -> (String, oneshot::Receiver<Outcome>) {
        let state = random_hex(16);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(
            state.clone(),
            Pending {
                cookie: None,
                used: false,
                notify: Some(tx),
            },
        );
        (state, rx)
    }

    pub fn forget(&self, state: &str) {
        self.pending.lock().unwrap().remove(state);
    }

    /// Handles one HTTP request. `port` is used for the Origin check.
    pub fn handle(
        &self,
        method: &str,
        url: &str,
        cookie_header: Option<&str>,
        origin: Option<&str>,
        body: &str,
        port: u16,
    ) -> Reply {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        if path != "/authorize" {
            return page(404, "Not found", "There is nothing here.");
        }
        let cookie = cookie_header.and_then(|h| find_cookie(h, COOKIE_NAME));
        match method {
            "GET" | "HEAD" => {
                let state = form_value(query, "state").unwrap_or_default();
                self.get_authorize(&state, cookie.as_deref())
            }
            "POST" => {
                if let Some(origin) = origin {
                    let ok = [
                        format!("http://127.0.0.1:{port}"),
                        format!("http://localhost:{port}"),
                    ];
                    if !ok.iter().any(|o| o == origin) {
                        return page(403, "Forbidden", "This request came from another site.");
                    }
                }
                let state = form_value(body, "state").unwrap_or_default();
                let decision = form_value(body, "decision").unwrap_or_default();
                self.post_authorize(&state, &decision, cookie.as_deref())
            }
            _ => {
                let mut r = page(405, "Method not allowed", "Use GET or POST.");
                r.headers.push(("Allow".into(), "GET, POST".into()));
                r
            }
        }
    }

    fn get_authorize(&self, state: &str, cookie: Option<&str>) -> Reply {
        let mut pending = self.pending.lock().unwrap();
        let Some(entry) = pending.get_mut(state).filter(|e| !e.used) else {
            return invalid_link();
        };
        let mut set_cookie = None;
        match (&entry.cookie, cookie) {
            (None, _) => {
                let value = random_hex(16);
                set_cookie = Some(format!("{COOKIE_NAME}={value}; HttpOnly; SameSite=Lax; Path=/"));
                entry.cookie = Some(value);
            }
            (Some(bound), Some(got)) if bound == got => {}
            _ => return other_browser(),
        }
        let mut reply = authorize_page(state);
        if let Some(c) = set_cookie {
            reply.headers.push(("Set-Cookie".into(), c));
        }
        reply
    }

    fn post_authorize(&self, state: &str, decision: &str, cookie: Option<&str>) -> Reply {
        let outcome = match decision {
            "authorize" => Outcome::Authorized,
            "deny" => Outcome::Denied,
            _ => return page(400, "Bad request", "Unknown decision."),
        };
        let mut pending = self.pending.lock().unwrap();
        let Some(entry) = pending.get_mut(state).filter(|e| !e.used) else {
            return invalid_link();
        };
        match (&entry.cookie, cookie) {
            (Some(bound), Some(got)) if bound == got => {}
            _ => return other_browser(),
        }
        entry.used = true;
        let notify = entry.notify.take().map(|tx| (tx, outcome));
        let what = match outcome {
            Outcome::Authorized => "Porthole Demo is now connected to your account.",
            Outcome::Denied => "You denied access to the Porthole Demo service.",
        };
        let mut reply = page(200, "Done", &format!("{what}</p><p>You can close this window."));
        reply.notify = notify;
        reply
    }
}

fn invalid_link() -> Reply {
    page(
        400,
        "Invalid link",
        "This sign-in link is invalid or has expired.",
    )
}

fn other_browser() -> Reply {
    page(
        403,
        "Forbidden",
        "This sign-in was started in another browser. Open the link again from Porthole.",
    )
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;background:#f4f5f7;\
color:#1d2330;display:flex;min-height:100vh;margin:0;align-items:center;justify-content:center}\
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:32px 40px;max-width:420px}\
h1{font-size:1.4rem;margin-top:0}button{font-size:1rem;padding:8px 20px;border-radius:6px;border:1px solid #9aa3b5;\
background:#fff;cursor:pointer;margin-right:8px}button.primary{background:#2f5bea;border-color:#2f5bea;color:#fff}";

fn html(title: &str, inner: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title}</title><style>{STYLE}</style></head><body><main>{inner}</main></body></html>"
    )
}

fn base_headers() -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), "text/html; charset=utf-8".into()),
        ("Cache-Control".into(), "no-store".into()),
        ("X-Frame-Options".into(), "DENY".into()),
        ("Referrer-Policy".into(), "same-origin".into()),
        (
            "Content-Security-Policy".into(),
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
                .into(),
        ),
    ]
}

fn page(status: u16, title: &str, message: &str) -> Reply {
    Reply {
        status,
        headers: base_headers(),
        body: html(title, &format!("<h1>{title}</h1><p>{message}</p>")),
        notify: None,
    }
}

fn authorize_page(state: &str) -> Reply {
    // `state` is only ever our own hex string here (looked up in the map).
    let inner = format!(
        "<h1>Authorize Porthole Demo</h1>\
<p><strong>Porthole Demo Agent</strong> wants to connect to your Porthole Demo account.</p>\
<p>It will be able to read your demo projects.</p>\
<form method=\"post\" action=\"/authorize\">\
<input type=\"hidden\" name=\"state\" value=\"{state}\">\
<button class=\"primary\" type=\"submit\" name=\"decision\" value=\"authorize\">Authorize</button>\
<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>\
</form>"
    );
    Reply {
        status: 200,
        headers: base_headers(),
        body: html("Authorize Porthole Demo", &inner),
        notify: None,
    }
}

/// Whether a `Host` header names this loopback service.
fn host_ok(host: &str, port: u16) -> bool {
    let (name, host_port) = match host.rsplit_once(':') {
        Some((name, p)) => (name, Some(p)),
        None => (host, None),
    };
    matches!(name, "127.0.0.1" | "localhost") && host_port.is_none_or(|p| p == port.to_string())
}

/// Finds a cookie value in a `Cookie:` header.
fn find_cookie(header: &str, name: &str) -> Option<String> {
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then(|| v.to_owned())
    })
}

/// Finds a value in an `application/x-www-form-urlencoded` string.
fn form_value(input: &str, name: &str) -> Option<String> {
    input.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k) == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    struct HttpResponse {
        status: u16,
        head: String,
        body: String,
    }

    impl HttpResponse {
        fn header(&self, name: &str) -> Option<String> {
            self.head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
        }
    }

    fn http(port: u16, method: &str, path: &str, cookie: Option<&str>, body: Option<&str>) -> HttpResponse {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
        if let Some(c) = cookie {
            req.push_str(&format!("Cookie: {c}\r\n"));
        }
        let body = body.unwrap_or("");
        if method == "POST" {
            req.push_str(&format!(
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        req.push_str("\r\n");
        req.push_str(body);
        stream.write_all(req.as_bytes()).unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        HttpResponse {
            status,
            head: head.to_owned(),
            body: body.to_owned(),
        }
    }

    fn session_cookie(resp: &HttpResponse) -> String {
        let set = resp.header("Set-Cookie").expect("Set-Cookie on first load");
        assert!(set.contains("HttpOnly"));
        assert!(set.contains("SameSite=Lax"));
        assert!(set.contains("Path=/"));
        set.split(';').next().unwrap().to_owned()
    }

    #[test]
    fn sign_in_state_machine_over_http() {
        let service = SigninService::start().unwrap();
        let port = service.port();
        assert_ne!(port, 0);

        // Unknown state.
        let r = http(port, "GET", "/authorize?state=deadbeef", None, None);
        assert_eq!(r.status, 400);
        assert!(r.body.contains("This sign-in link is invalid or has expired."));

        let (state, mut rx) = service.begin();
        assert_eq!(state.len(), 32);
        let url = service.authorize_url(&state);
        assert!(url.starts_with("http://127.0.0.1:"));
        let path = url.split_once(&format!("{port}")).unwrap().1.to_owned();

        // First load binds a cookie and renders the page.
        let first = http(port, "GET", &path, None, None);
        assert_eq!(first.status, 200);
        assert!(first.body.contains("Authorize Porthole Demo"));
        assert!(first.body.contains("value=\"authorize\""));
        assert!(first.body.contains("value=\"deny\""));
        assert!(!first.body.contains("<script"));
        let cookie = session_cookie(&first);

        // Same browser may reload; another browser may not.
        assert_eq!(http(port, "GET", &path, Some(&cookie), None).status, 200);
        let other = http(port, "GET", &path, None, None);
        assert_eq!(other.status, 403);
        assert!(other.body.contains("This sign-in was started in another browser"));
        let wrong = format!("{COOKIE_NAME}=0123");
        assert_eq!(http(port, "GET", &path, Some(&wrong), None).status, 403);

        // POST with the wrong or no cookie is rejected and does not consume the state.
        let form = format!("state={state}&decision=authorize");
        assert_eq!(
            http(port, "POST", "/authorize", Some(&wrong), Some(&form)).status,
            403
        );
        assert_eq!(http(port, "POST", "/authorize", None, Some(&form)).status, 403);
        assert!(rx.try_recv().is_err());

        // Right cookie: outcome delivered.
        let ok = http(port, "POST", "/authorize", Some(&cookie), Some(&form));
        assert_eq!(ok.status, 200, "{}", ok.body);
        assert!(ok.body.contains("You can close this window."));
        assert_eq!(rx.blocking_recv().unwrap(), Outcome::Authorized);

        // Reuse is rejected.
        assert_eq!(
            http(port, "POST", "/authorize", Some(&cookie), Some(&form)).status,
            400
        );
        assert_eq!(http(port, "GET", &path, Some(&cookie), None).status, 400);

        // Deny path, and forgetting a state.
        let (state2, rx2) = service.begin();
        let first = http(port, "GET", &format!("/authorize?state={state2}"), None, None);
        let cookie2 = session_cookie(&first);
        let deny = format!("state={state2}&decision=deny");
        assert_eq!(
            http(port, "POST", "/authorize", Some(&cookie2), Some(&deny)).status,
            200
        );
        assert_eq!(rx2.blocking_recv().unwrap(), Outcome::Denied);

        let (state3, _rx3) = service.begin();
        service.forget(&state3);
        assert_eq!(
            http(port, "GET", &format!("/authorize?state={state3}"), None, None).status,
            400
        );

        assert_eq!(http(port, "GET", "/", None, None).status, 404);

        // DNS-rebinding defence: foreign Host names are refused.
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .write_all(b"GET /authorize?state=x HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        assert!(raw.starts_with("HTTP/1.1 400"), "{raw}");
    }

    #[test]
    fn cross_origin_post_rejected() {
        let st = SigninState::default();
        let (state, rx) = st.begin();
        let first = st.get_authorize(&state, None);
        let set = &first.headers.iter().find(|(k, _)| k == "Set-Cookie").unwrap().1;
        let cookie = set.split(';').next().unwrap().to_owned();
        let body = format!("state={state}&decision=authorize");
        let r = st.handle(
            "POST",
            "/authorize",
            Some(&cookie),
            Some("https://evil.example"),
            &body,
            1,
        );
        assert_eq!(r.status, 403);
        let mut r = st.handle(
            "POST",
            "/authorize",
            Some(&cookie),
            Some("http://127.0.0.1:1"),
            &body,
            1,
        );
        assert_eq!(r.status, 200);
        r.deliver();
        assert_eq!(rx.blocking_recv().unwrap(), Outcome::Authorized);
    }

    #[test]
    fn parsing_helpers() {
        assert_eq!(
            form_value("a=1&state=ab%20c+d", "state").as_deref(),
            Some("ab c d")
        );
        assert_eq!(
            find_cookie("x=1; porthole_demo_session=abc", COOKIE_NAME).as_deref(),
            Some("abc")
        );
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(random_hex(16).len(), 32);
        assert!(host_ok("127.0.0.1:8080", 8080));
        assert!(host_ok("localhost", 8080));
        assert!(!host_ok("127.0.0.1:8081", 8080));
        assert!(!host_ok("evil.example:8080", 8080));
    }
}
