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
//! - The trusted chrome strip is a native GTK label above the webview, which the page can neither
//!   draw over nor script. It shows the ORIGIN only (scheme and host, registrable domain in bold),
//!   never path or query, and is updated on every committed navigation.
//! - stdout carries only lifecycle lines, one JSON object each, never page data (no URLs, titles or
//!   content): `{"event":"opened"}`, `{"event":"navigation_blocked","detail":"<scheme>"}`,
//!   `{"event":"load_failed"}`, `{"event":"closed"}`. Later stdin lines accept `{"cmd":"close"}`.
//! - It dies with its parent: `PR_SET_PDEATHSIG(SIGKILL)` on Linux, and it exits when stdin
//!   reaches EOF.

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

/// The lifecycle events the sealed process may print. The parent accepts nothing else.
pub const LIFECYCLE_EVENTS: [&str; 4] = ["opened", "navigation_blocked", "load_failed", "closed"];

/// Exit code when the request line is missing or invalid.
const EXIT_BAD_REQUEST: i32 = 2;
/// Exit code when the web content process died (the parent reports "crashed").
#[cfg(target_os = "linux")]
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
pub fn run() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_PDEATHSIG only sets a flag on this process.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        }
    }
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
    imp::run(request)
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn run(_request: super::Request) -> i32 {
        eprintln!("porthole sealed-view: not available on this platform yet");
        super::emit("load_failed", None);
        1
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::path::{Path, PathBuf};

    use gtk::glib;
    use gtk::prelude::*;
    use porthole_core::url_safety::{analyze_url, neutralize};
    use tao::dpi::LogicalSize;
    use tao::event::{Event, WindowEvent};
    use tao::event_loop::{ControlFlow, EventLoopBuilder, EventLoopProxy};
    use tao::platform::unix::WindowExtUnix;
    use tao::window::WindowBuilder;
    use wry::{
        NewWindowResponse, PageLoadEvent, WebContext, WebViewBuilder, WebViewBuilderExtUnix, WebViewExtUnix,
    };

    use super::{EXIT_WEB_PROCESS_GONE, emit, is_web_url, navigation_allowed, scheme_of};

    #[derive(Debug)]
    enum UserEvent {
        /// `{"cmd":"close"}` on stdin.
        Close,
        /// stdin reached EOF: the parent is gone.
        ParentGone,
        /// A navigation was allowed and is starting.
        NavigationStarted,
        /// A page was committed at this URL (for the chrome strip only).
        Committed(String),
        Finished,
        LoadFailed,
        Blocked(String),
        /// An http/https pop-up URL, to load in this same view.
        PopUp(String),
    }

    /// The origin for the chrome strip as Pango markup: scheme + host (+ port), registrable
    /// domain in bold; never path or query. Everything from the URL is escaped.
    pub(super) fn origin_markup(url: &str) -> String {
        let esc = |s: &str| glib::markup_escape_text(s).to_string();
        match analyze_url(url, "") {
            Ok(a) => {
                let host = a.host_unicode.as_str();
                let host_markup = match a.registrable_domain.as_deref() {
                    Some(rd) if host.len() > rd.len() && host.ends_with(rd) => {
                        let prefix = &host[..host.len() - rd.len()];
                        format!("{}<b>{}</b>", esc(prefix), esc(rd))
                    }
                    _ => format!("<b>{}</b>", esc(host)),
                };
                let port = a.port.map(|p| format!(":{p}")).unwrap_or_default();
                let lock = if a.scheme == "https" {
                    "🔒 https"
                } else {
                    "⚠ not encrypted (http)"
                };
                let warn = if a.warnings.is_empty() {
                    String::new()
                } else {
                    let codes: Vec<&str> = a.warnings.iter().map(|w| w.code()).collect();
                    format!("   ⚠ {}", esc(&codes.join(", ")))
                };
                format!("{lock}   {}://{host_markup}{}{warn}", esc(&a.scheme), esc(&port))
            }
            Err(_) => "⚠ unusual address (not shown)".to_string(),
        }
    }

    /// A fresh private directory for this run's web data.
    fn make_data_dir() -> std::io::Result<PathBuf> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("porthole-sealed-{}-{nanos:09}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        Ok(dir)
    }

    fn remove_data_dir(dir: &Path) {
        if let Err(e) = std::fs::remove_dir_all(dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("porthole sealed-view: cannot remove the temporary data directory: {e}");
        }
    }

    fn send(proxy: &EventLoopProxy<UserEvent>, event: UserEvent) {
        let _ = proxy.send_event(event);
    }

    pub fn run(request: super::Request) -> i32 {
        let data_dir = match make_data_dir() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("porthole sealed-view: cannot create a temporary data directory: {e}");
                emit("load_failed", None);
                return 1;
            }
        };
        match open(request, data_dir.clone()) {
            Ok(never) => match never {},
            Err(e) => {
                eprintln!("porthole sealed-view: {e}");
                remove_data_dir(&data_dir);
                emit("load_failed", None);
                1
            }
        }
    }

    fn open(request: super::Request, data_dir: PathBuf) -> Result<std::convert::Infallible, String> {
        let event_loop = EventLoopBuilder::<UserEvent>::with_user_event().build();
        let proxy = event_loop.create_proxy();

        // Later stdin lines: `{"cmd":"close"}`; EOF means the parent is gone.
        let stdin_proxy = proxy.clone();
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                let cmd = serde_json::from_str::<serde_json::Value>(&line).ok();
                if cmd.as_ref().and_then(|v| v.get("cmd")).and_then(|c| c.as_str()) == Some("close") {
                    send(&stdin_proxy, UserEvent::Close);
                }
            }
            send(&stdin_proxy, UserEvent::ParentGone);
        });

        let agent: String = neutralize(request.agent.trim()).chars().take(80).collect();
        let title = if agent.is_empty() {
            "Sign in".to_string()
        } else {
            format!("Sign in — {agent}")
        };
        let window = WindowBuilder::new()
            .with_title(title)
            .with_inner_size(LogicalSize::new(960.0, 760.0))
            .build(&event_loop)
            .map_err(|e| format!("cannot create the window: {e}"))?;
        let vbox = window
            .default_vbox()
            .ok_or("the window has no default vbox")?
            .clone();

        // The trusted chrome strip: native GTK, outside the page.
        let strip = gtk::Box::new(gtk::Orientation::Horizontal, 8);
        let origin = gtk::Label::new(None);
        origin.set_xalign(0.0);
        origin.set_selectable(false);
        origin.set_ellipsize(gtk::pango::EllipsizeMode::Start);
        origin.set_markup(&super::imp::origin_markup(&request.url));
        let badge = gtk::Label::new(Some("Porthole sealed view — the agent cannot see this page"));
        badge.set_opacity(0.7);
        strip.pack_start(&origin, true, true, 0);
        strip.pack_end(&badge, false, false, 0);
        strip.set_margin_start(10);
        strip.set_margin_end(10);
        strip.set_margin_top(6);
        strip.set_margin_bottom(6);
        vbox.pack_start(&strip, false, false, 0);
        vbox.pack_start(
            &gtk::Separator::new(gtk::Orientation::Horizontal),
            false,
            false,
            0,
        );

        let mut context = WebContext::new(Some(data_dir.clone()));
        let nav_proxy = proxy.clone();
        let popup_proxy = proxy.clone();
        let load_proxy = proxy.clone();
        let webview = WebViewBuilder::new_with_web_context(&mut context)
            .with_url(&request.url)
            .with_incognito(true)
            .with_devtools(cfg!(debug_assertions))
            .with_download_started_handler(|_, _| false)
            .with_new_window_req_handler(move |url, _features| {
                if is_web_url(&url) {
                    send(&popup_proxy, UserEvent::PopUp(url));
                } else {
                    send(&popup_proxy, UserEvent::Blocked(scheme_of(&url)));
                }
                NewWindowResponse::Deny
            })
            .with_navigation_handler(move |url| {
                if navigation_allowed(&url) {
                    if is_web_url(&url) {
                        send(&nav_proxy, UserEvent::NavigationStarted);
                    }
                    true
                } else {
                    send(&nav_proxy, UserEvent::Blocked(scheme_of(&url)));
                    false
                }
            })
            .with_on_page_load_handler(move |event, url| match event {
                PageLoadEvent::Started => send(&load_proxy, UserEvent::Committed(url)),
                PageLoadEvent::Finished => send(&load_proxy, UserEvent::Finished),
            })
            .build_gtk(&vbox)
            .map_err(|e| format!("cannot create the web view: {e}"))?;

        let fail_proxy = proxy.clone();
        let wk = webview.webview();
        wk.connect_local("load-failed", false, move |args| {
            // (webview, load_event, failing_uri, error): cancellations and policy decisions (our
            // own blocks, already reported) are not load failures.
            let ignorable = args
                .get(3)
                .and_then(|v| v.get::<glib::Error>().ok())
                .map(|e| {
                    let domain = e.domain();
                    let domain = domain.as_str();
                    domain == "WebKitPolicyError"
                        || (domain == "WebKitNetworkError" && e.message().contains("cancel"))
                })
                .unwrap_or(false);
            if !ignorable {
                send(&fail_proxy, UserEvent::LoadFailed);
            }
            Some(false.to_value())
        });
        let gone_dir = data_dir.clone();
        wk.connect_local("web-process-terminated", false, move |_| {
            // No "closed": the parent sees the exit without it and reports "crashed".
            remove_data_dir(&gone_dir);
            std::process::exit(EXIT_WEB_PROCESS_GONE);
        });
        vbox.show_all();

        let mut webview = Some(webview);
        let mut context = Some(context);
        let mut opened = false;
        let mut failed = false;
        event_loop.run(move |event, _, control_flow| {
            *control_flow = ControlFlow::Wait;
            let close = |webview: &mut Option<wry::WebView>, context: &mut Option<WebContext>| {
                drop(webview.take());
                drop(context.take());
                remove_data_dir(&data_dir);
            };
            match event {
                Event::WindowEvent {
                    event: WindowEvent::CloseRequested,
                    ..
                }
                | Event::UserEvent(UserEvent::Close) => {
                    close(&mut webview, &mut context);
                    emit("closed", None);
                    *control_flow = ControlFlow::Exit;
                }
                Event::UserEvent(UserEvent::ParentGone) => {
                    close(&mut webview, &mut context);
                    *control_flow = ControlFlow::Exit;
                }
                Event::UserEvent(UserEvent::NavigationStarted) => failed = false,
                Event::UserEvent(UserEvent::Committed(url)) => origin.set_markup(&origin_markup(&url)),
                Event::UserEvent(UserEvent::Finished) if !opened && !failed => {
                    opened = true;
                    emit("opened", None);
                }
                Event::UserEvent(UserEvent::LoadFailed) => {
                    failed = true;
                    emit("load_failed", None);
                }
                Event::UserEvent(UserEvent::Blocked(scheme)) => emit("navigation_blocked", Some(&scheme)),
                Event::UserEvent(UserEvent::PopUp(url)) => {
                    if let Some(w) = &webview
                        && w.load_url(&url).is_err()
                    {
                        emit("load_failed", None);
                    }
                }
                _ => {}
            }
        })
    }
}

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

    #[cfg(target_os = "linux")]
    #[test]
    fn origin_markup_shows_origin_only_and_escapes() {
        let m = imp::origin_markup("https://accounts.example.co.uk/oauth?state=SECRET#frag");
        assert_eq!(m, "🔒 https   https://accounts.<b>example.co.uk</b>");
        let m = imp::origin_markup("http://127.0.0.1:8080/x?state=SECRET");
        assert!(m.starts_with("⚠ not encrypted (http)"), "{m}");
        assert!(m.contains("<b>127.0.0.1</b>:8080"), "{m}");
        assert!(!m.contains("SECRET"));
        assert_eq!(imp::origin_markup("not a url"), "⚠ unusual address (not shown)");
    }
}
