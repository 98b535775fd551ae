//! Child side of the sealed URL view: `porthole sealed-view`.
//!
//! The spec requires a URL-mode elicitation to be opened where neither the client nor the agent's
//! model can inspect the page or what the user types. A Tauri window cannot promise that (a remote
//! page there still gets `window.__TAURI_INTERNALS__` / `window.ipc` and can read
//! `tauri://localhost`), so the URL opens here, in a separate process built on wry + tao directly:
//!
//! - The request (`{"url", "agent", "dialogId"}`) is ONE JSON line on stdin, never argv, so the URL
//!   (which carries OAuth state) is not visible in `/proc/*/cmdline`.
//! - The webview has no IPC handler, no custom protocol, no initialization script; devtools only in
//!   debug builds; downloads are refused; only http/https navigations are allowed (plus
//!   `about:blank` / `about:srcdoc`, which load nothing and which sign-in pages use for iframes).
//!   Anything else (file:, data:, javascript:, tauri:, custom schemes) is blocked and reported.
//! - Pop-ups (`window.open`, `target=_blank`) never open a second window: an http/https pop-up URL
//!   is loaded in this same view instead (so "Sign in with…" flows that use a pop-up still work);
//!   any other scheme is blocked and reported.
//! - Storage is incognito (ephemeral: on Linux WebKit keeps nothing on disk) and the webview also
//!   gets a `WebContext` whose data directory is a fresh temporary directory (mode 0700), deleted
//!   on exit.
//! - The trusted chrome strip is a second child webview of the same window, above the page: static
//!   HTML written by this process (JavaScript disabled, a CSP that loads nothing, every navigation
//!   refused), which the page can neither draw over nor script. It shows the ORIGIN only (scheme
//!   and host, registrable domain in bold), never path or query, and this process rewrites it on
//!   every committed navigation of the page.
//! - stdout carries only lifecycle lines, one JSON object each, never page data (no URLs, titles or
//!   content): `{"event":"opened"}`, `{"event":"navigation_blocked","detail":"<scheme>"}`,
//!   `{"event":"load_failed"}`, `{"event":"closed"}`. Later stdin lines accept `{"cmd":"close"}`.
//! - It dies with its parent: it exits when stdin reaches EOF (every platform), and on Linux
//!   `PR_SET_PDEATHSIG(SIGKILL)` also covers a parent that dies without closing the pipe.
//!
//! The layout and the event loop are the same on every platform; `linux.rs` holds everything
//! GTK/WebKitGTK-specific (the container the two webviews are packed in, the engine's load-failure
//! and crash signals, the parent-death signal), `other.rs` the wry child-webview equivalent.

use std::io::Write;

use serde::Deserialize;

/// The one line the parent writes on stdin.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub url: String,
    #[serde(default)]
    pub agent: String,
    #[serde(default)]
    #[allow(dead_code)] // read by the parent; kept in the request for diagnostics
    pub dialog_id: u64,
}

/// The lifecycle events the sealed process may print (the parent, porthole-app's `sealed`,
/// accepts nothing else).
use porthole_app::sealed::LIFECYCLE_EVENTS;

/// Exit code when the request line is missing or invalid.
const EXIT_BAD_REQUEST: i32 = 2;
/// Exit code when the web content process died (the parent reports "crashed").
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const EXIT_WEB_PROCESS_GONE: i32 = 3;

/// Print one lifecycle line. If the parent is gone there is nobody to work for: exit.
fn emit(event: &str, detail: Option<&str>) {
    debug_assert!(LIFECYCLE_EVENTS.contains(&event));
    let line = match detail {
        Some(d) => serde_json::json!({"event": event, "detail": d}),
        None => serde_json::json!({"event": event}),
    };
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// The scheme of a URL, lowercased, for reports: only the scheme ever leaves the process.
pub fn scheme_of(url: &str) -> String {
    match url.split_once(':') {
        Some((s, _))
            if !s.is_empty()
                && s.len() <= 32
                && s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            s.to_ascii_lowercase()
        }
        _ => "unknown".to_string(),
    }
}

/// http and https only.
pub fn is_web_url(url: &str) -> bool {
    matches!(scheme_of(url).as_str(), "http" | "https")
}

/// Navigations the view allows: web pages, and the two `about:` documents that load nothing.
pub fn navigation_allowed(url: &str) -> bool {
    is_web_url(url) || url == "about:blank" || url == "about:srcdoc"
}

/// Entry point of `porthole sealed-view`; returns the process exit code.
/// Removes the web data directories that killed views left behind. Each view sweeps them as it
/// starts, and the app does so at its own start too: after the app itself was killed (its views
/// die with it), the next view may be days away.
pub fn sweep_left_behind() -> usize {
    window::sweep_stale_data_dirs(&std::env::temp_dir(), platform::is_running)
}

pub fn run() -> i32 {
    platform::die_with_parent();
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(n) if n > 0 => {}
        _ => {
            eprintln!("porthole sealed-view: expected one JSON request line on stdin");
            return EXIT_BAD_REQUEST;
        }
    }
    let request: Request = match serde_json::from_str(line.trim()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("porthole sealed-view: invalid request line: {e}");
            return EXIT_BAD_REQUEST;
        }
    };
    if !is_web_url(&request.url) {
        emit("navigation_blocked", Some(&scheme_of(&request.url)));
        return EXIT_BAD_REQUEST;
    }
    window::run(request)
}

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod platform;
#[cfg(not(target_os = "linux"))]
#[path = "other.rs"]
mod platform;
mod strip;
mod window;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        assert_eq!(scheme_of("https://example.com/a?b"), "https");
        assert_eq!(scheme_of("FILE:///etc/hostname"), "file");
        assert_eq!(scheme_of("javascript:alert(1)"), "javascript");
        assert_eq!(scheme_of("tauri://localhost/"), "tauri");
        assert_eq!(scheme_of("no scheme here"), "unknown");
        assert_eq!(scheme_of("/relative:thing"), "unknown");
        assert!(is_web_url("http://127.0.0.1:8080/"));
        assert!(!is_web_url("data:text/html,hi"));
        assert!(navigation_allowed("about:blank"));
        assert!(!navigation_allowed("about:config"));
    }
}
