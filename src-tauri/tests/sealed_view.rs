//! End-to-end tests of `porthole sealed-view`, the separate process that opens URL-mode
//! elicitations. Those that open a window need a display: they are `#[ignore]`d with that
//! reason, so a plain `cargo test` reports them as ignored rather than passed, and
//! `scripts/test` runs them under `xvfb-run` with `--include-ignored`, where a missing display
//! fails them (see [`need_display`]). By hand:
//! `xvfb-run -a cargo test -p porthole --test sealed_view -- --include-ignored`.
//!
//! A tiny HTTP server on 127.0.0.1 serves probe pages whose scripts report what they can see back
//! to the server (`/report?...`); the tests assert on those reports and on the process's stdout.

#![cfg(target_os = "linux")]

#[path = "sealed_view/kills.rs"]
mod kills;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_porthole");
const ALLOWED_EVENTS: [&str; 4] = ["opened", "navigation_blocked", "load_failed", "closed"];
/// A secret in the query, like OAuth state: it must never show on stdout.
const SECRET: &str = "SECRETSTATE42";
const TIMEOUT: Duration = Duration::from_secs(40);

const PROBE_PAGE: &str = r#"<!doctype html><html><head><title>probe title</title></head><body>
<h1>Probe</h1><input id="pw" type="password" value="hunter2">
<script>
(async () => {
  const q = 'ipc=' + typeof window.ipc
    + '&tauri=' + typeof window.__TAURI__
    + '&internals=' + typeof window.__TAURI_INTERNALS__
    + '&wkipc=' + typeof (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.ipc)
    + '&ls=' + localStorage.getItem('k');
  localStorage.setItem('k', '1');
  let t = 'unreachable';
  try { const r = await fetch('tauri://localhost/'); t = 'reachable-' + r.status; } catch (e) { t = 'unreachable'; }
  await fetch('/report?' + q + '&tauriFetch=' + t);
})();
</script></body></html>"#;

/// WebKit itself refuses http -> file: before any policy decision (so our handler never sees it);
/// tauri: and data: reach the navigation handler, which blocks and reports them.
const NAV_PAGE: &str = r#"<!doctype html><html><body><p>navigations</p>
<script>
const later = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  await later(200);
  location.href = 'file:///etc/hostname';
  await later(800);
  await fetch('/report?step=file&protocol=' + location.protocol);
  location.href = 'tauri://localhost/';
  await later(500);
  location.href = 'data:text/html,<p>data</p>';
  await later(500);
  await fetch('/report?step=end&protocol=' + location.protocol);
})();
</script></body></html>"#;

/// One big link with target=_blank; the test clicks it (pop-ups need a user gesture).
const POPUP_PAGE: &str = r#"<!doctype html><html><body style="margin:0">
<a id="a" href="/popup?landed=1" target="_blank"
   style="position:fixed;left:0;top:0;width:100vw;height:100vh;display:block;background:#cde">open</a>
<script>
if (location.search.indexOf('landed') < 0) {
  fetch('/report?ready=1');
} else {
  fetch('/report?popupLanded=1&opener=' + (window.opener === null ? 'null' : typeof window.opener));
}
</script></body></html>"#;

/// GUI tests run one at a time: two cores, one WebKit each is plenty.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// A test that opens a window is `#[ignore]`d, with "needs a display" as the reason, and runs
/// only when asked for (`--include-ignored`); asked for without a display, it fails rather
/// than pass without checking anything.
fn need_display() {
    let test = std::thread::current()
        .name()
        .unwrap_or("a sealed-view test")
        .to_string();
    assert!(
        std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()),
        "{test}: DISPLAY is not set; run it under xvfb-run"
    );
}

/// A tiny HTTP/1.0 server; each `/report?query` request's query is sent on the channel.
struct Server {
    port: u16,
    reports: Receiver<HashMap<String, String>>,
}

fn serve() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    let (tx, reports) = channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let tx = tx.clone();
            std::thread::spawn(move || handle(stream, &tx));
        }
    });
    Server { port, reports }
}

fn handle(mut stream: TcpStream, tx: &std::sync::mpsc::Sender<HashMap<String, String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    if path == "/slow" {
        return kills::trickle(stream, query, tx);
    }
    let (status, body) = match path {
        "/probe" => ("200 OK", PROBE_PAGE),
        "/nav" => ("200 OK", NAV_PAGE),
        "/popup" => ("200 OK", POPUP_PAGE),
        "/kill-probe" => ("200 OK", kills::PROBE_PAGE),
        "/report" => {
            let _ = tx.send(parse_query(query));
            ("200 OK", "ok")
        }
        _ => ("404 Not Found", "not found"),
    };
    let response = format!(
        "HTTP/1.0 {status}\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

fn parse_query(query: &str) -> HashMap<String, String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.replace("%3A", ":")))
        .collect()
}

/// A private TMPDIR/HOME/XDG tree for one run, so we can check nothing is left behind.
struct Sandbox(PathBuf);

impl Sandbox {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("porthole-sealed-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["tmp", "home", "data", "cache", "config"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        Sandbox(dir)
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("sealed-view")
            .env("TMPDIR", self.0.join("tmp"))
            .env("HOME", self.0.join("home"))
            .env("XDG_DATA_HOME", self.0.join("data"))
            .env("XDG_CACHE_HOME", self.0.join("cache"))
            .env("XDG_CONFIG_HOME", self.0.join("config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        cmd
    }

    /// Files left anywhere in the sandbox (directories themselves do not count).
    fn leftover_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.0, &mut out);
        out
    }

    /// Entries left in TMPDIR (the per-run data directory must be gone).
    fn tmp_entries(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.0.join("tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running sealed view and every stdout line it printed so far.
struct Sealed {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Sealed {
    fn start(sandbox: &Sandbox, url: &str) -> Self {
        let mut child = sandbox.command().spawn().expect("spawn porthole sealed-view");
        let mut stdin = child.stdin.take().unwrap();
        let request = serde_json::json!({"url": url, "agent": "Probe Agent", "dialogId": 7});
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let lines = read_lines(child.stdout.take().unwrap());
        Sealed {
            child,
            stdin: Some(stdin),
            lines,
            seen: Vec::new(),
        }
    }

    /// Wait for a lifecycle line with this event; returns its detail.
    fn expect_event(&mut self, event: &str) -> Option<String> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no `{event}` event; stdout so far: {:?}", self.seen));
            self.seen.push(line.clone());
            let value: serde_json::Value = serde_json::from_str(&line).expect("stdout line is JSON");
            if value["event"] == event {
                return value.get("detail").and_then(|d| d.as_str()).map(str::to_string);
            }
        }
    }

    /// Send `{"cmd":"close"}` and wait for the process to exit; returns all of stdout.
    fn close(mut self) -> Vec<String> {
        let mut stdin = self.stdin.take().unwrap();
        stdin.write_all(b"{\"cmd\":\"close\"}\n").unwrap();
        stdin.flush().unwrap();
        let status = wait_timeout(&mut self.child, Duration::from_secs(15)).expect("exits after close");
        assert!(status.success(), "sealed-view exit status {status}");
        drop(stdin);
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        std::mem::take(&mut self.seen)
    }
}

impl Drop for Sealed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_lines(stdout: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_timeout(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    None
}

fn report(server: &Server) -> HashMap<String, String> {
    server
        .reports
        .recv_timeout(TIMEOUT)
        .expect("the probe page reported back")
}

/// Every stdout line is exactly one allowed lifecycle object, with no page data in it.
fn assert_lifecycle_only(lines: &[String]) {
    for line in lines {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("non-JSON stdout line {line:?}"));
        let obj = value
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {line}"));
        let event = obj["event"].as_str().unwrap_or_default();
        assert!(ALLOWED_EVENTS.contains(&event), "unexpected event in {line}");
        for key in obj.keys() {
            assert!(key == "event" || key == "detail", "unexpected key in {line}");
        }
        for needle in [SECRET, "state=", "http", "127.0.0.1", "probe", "hunter2", "/"] {
            assert!(!line.contains(needle), "stdout leaks {needle:?}: {line}");
        }
    }
}

#[test]
#[ignore = "needs a display: run under xvfb-run with --include-ignored (scripts/test does)"]
fn probe_sees_no_ipc_no_tauri_no_storage_and_stdout_is_lifecycle_only() {
    need_display();
    let _serial = serial();
    let server = serve();
    let url = format!("http://127.0.0.1:{}/probe?state={SECRET}&code=abc", server.port);

    // Both runs share HOME/XDG/TMPDIR: without incognito the second would see the first's storage.
    let sandbox = Sandbox::new("probe");
    for run in 1..=2 {
        let mut sealed = Sealed::start(&sandbox, &url);
        let probe = report(&server);
        eprintln!("probe run {run}: {probe:?}");
        assert_eq!(probe["ipc"], "undefined", "window.ipc");
        assert_eq!(probe["tauri"], "undefined", "window.__TAURI__");
        assert_eq!(probe["internals"], "undefined", "window.__TAURI_INTERNALS__");
        assert_eq!(probe["wkipc"], "undefined", "webkit.messageHandlers.ipc");
        assert_eq!(probe["tauriFetch"], "unreachable", "fetch('tauri://localhost/')");
        assert_eq!(probe["ls"], "null", "localStorage must be empty on run {run}");
        sealed.expect_event("opened");
        let lines = sealed.close();
        eprintln!("probe run {run} stdout: {lines:?}");
        assert_lifecycle_only(&lines);
        assert_eq!(lines.first().map(String::as_str), Some(r#"{"event":"opened"}"#));
        assert_eq!(lines.last().map(String::as_str), Some(r#"{"event":"closed"}"#));
        assert!(
            sandbox.tmp_entries().is_empty(),
            "temporary data directory left behind: {:?}",
            sandbox.tmp_entries()
        );
        // GTK's settings cache (dconf) and Mesa's GPU shader cache are written by every GTK/GL
        // program and hold no page data; anything else (cookies, storage, cache) would.
        let left: Vec<PathBuf> = sandbox
            .leftover_files()
            .into_iter()
            .filter(|p| {
                !["dconf", "mesa_shader_cache"]
                    .iter()
                    .any(|d| p.starts_with(sandbox.0.join("cache").join(d)))
            })
            .collect();
        assert!(left.is_empty(), "files left on disk: {left:?}");
    }
}

#[test]
#[ignore = "needs a display: run under xvfb-run with --include-ignored (scripts/test does)"]
fn non_web_navigations_are_blocked_and_reported_by_scheme_only() {
    need_display();
    let _serial = serial();
    let server = serve();
    let sandbox = Sandbox::new("nav");
    let url = format!("http://127.0.0.1:{}/nav?state={SECRET}", server.port);
    let mut sealed = Sealed::start(&sandbox, &url);
    sealed.expect_event("opened");
    let after_file = report(&server);
    eprintln!("after location.href='file:///etc/hostname': {after_file:?}");
    assert_eq!(after_file["protocol"], "http:", "file: navigation did not happen");
    assert_eq!(
        sealed.expect_event("navigation_blocked").as_deref(),
        Some("tauri")
    );
    assert_eq!(sealed.expect_event("navigation_blocked").as_deref(), Some("data"));
    let end = report(&server);
    eprintln!("after tauri: and data: navigations: {end:?}");
    assert_eq!(end["protocol"], "http:", "still on the http page");
    let lines = sealed.close();
    eprintln!("navigation stdout: {lines:?}");
    assert_lifecycle_only(&lines);
    assert!(sandbox.tmp_entries().is_empty());
}

/// Click at (x, y) on the X display with XTest, as a user would.
fn click(x: i32, y: i32) {
    use x11_dl::{xlib, xtest};
    let xlib = xlib::Xlib::open().expect("libX11");
    let xtst = xtest::Xf86vmode::open().expect("libXtst");
    // SAFETY: plain Xlib calls on a display we open and close here.
    unsafe {
        let display = (xlib.XOpenDisplay)(std::ptr::null());
        assert!(!display.is_null(), "cannot open the X display");
        (xtst.XTestFakeMotionEvent)(display, -1, x, y, 0);
        (xlib.XFlush)(display);
        std::thread::sleep(Duration::from_millis(100));
        (xtst.XTestFakeButtonEvent)(display, 1, 1, 0);
        (xtst.XTestFakeButtonEvent)(display, 1, 0, 0);
        (xlib.XFlush)(display);
        (xlib.XCloseDisplay)(display);
    }
}

#[test]
#[ignore = "needs a display: run under xvfb-run with --include-ignored (scripts/test does)"]
fn popup_opens_in_the_same_view() {
    need_display();
    let _serial = serial();
    let server = serve();
    let sandbox = Sandbox::new("popup");
    let url = format!("http://127.0.0.1:{}/popup", server.port);
    let mut sealed = Sealed::start(&sandbox, &url);
    sealed.expect_event("opened");
    assert_eq!(report(&server).get("ready").map(String::as_str), Some("1"));
    // The window opens at the top left of the (window-manager-less) Xvfb screen.
    let mut landed = None;
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(300));
        click(300, 300);
        if let Ok(r) = server.reports.recv_timeout(Duration::from_secs(3)) {
            landed = Some(r);
            break;
        }
    }
    let landed = landed.expect("the pop-up URL loaded");
    eprintln!("pop-up: {landed:?}");
    assert_eq!(landed["popupLanded"], "1");
    assert_eq!(
        landed["opener"], "null",
        "loaded in the same view, not as a real pop-up"
    );
    let lines = sealed.close();
    assert_lifecycle_only(&lines);
}

#[test]
#[ignore = "needs a display: run under xvfb-run with --include-ignored (scripts/test does)"]
fn load_failure_is_reported_and_is_not_opened() {
    need_display();
    let _serial = serial();
    // A port with nothing listening: connection refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let sandbox = Sandbox::new("loadfail");
    let mut sealed = Sealed::start(&sandbox, &format!("http://127.0.0.1:{port}/?state={SECRET}"));
    sealed.expect_event("load_failed");
    std::thread::sleep(Duration::from_millis(500));
    let lines = sealed.close();
    eprintln!("load failure stdout: {lines:?}");
    assert_lifecycle_only(&lines);
    assert_eq!(lines, [r#"{"event":"load_failed"}"#, r#"{"event":"closed"}"#]);
}

#[test]
fn non_web_url_is_refused_without_a_window() {
    // No display needed: the request is refused before any window is created.
    let sandbox = Sandbox::new("refused");
    let mut child = sandbox.command().spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"url":"file:///etc/hostname","agent":"x","dialogId":1}}"#
    )
    .unwrap();
    drop(stdin);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(out.trim(), r#"{"event":"navigation_blocked","detail":"file"}"#);
}

/// Parent id and state of a process, from /proc; None once it is gone.
fn proc_stat(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state))
}

#[test]
#[ignore = "needs a display: run under xvfb-run with --include-ignored (scripts/test does)"]
fn sealed_view_dies_with_its_parent() {
    need_display();
    let _serial = serial();
    let server = serve();
    let sandbox = Sandbox::new("pdeathsig");
    let request = serde_json::json!({
        "url": format!("http://127.0.0.1:{}/probe", server.port), "agent": "x", "dialogId": 1,
    });
    // The request writer keeps the pipe open (sleep), so stdin does NOT reach EOF when the shell
    // dies: only PR_SET_PDEATHSIG can end the sealed view.
    let cmd = sandbox.command();
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(r#"(printf '%s\n' "$REQ"; exec sleep 20) | "$BIN" sealed-view"#)
        .env("REQ", request.to_string())
        .env("BIN", BIN)
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = read_lines(shell.stdout.take().unwrap());
    report(&server);
    let line = lines.recv_timeout(TIMEOUT).expect("opened");
    assert_eq!(line, r#"{"event":"opened"}"#);
    // Find the sealed view: the shell's child running our binary.
    let shell_pid = shell.id();
    let sealed_pid = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            proc_stat(*pid).is_some_and(|(ppid, _)| ppid == shell_pid)
                && std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == Path::new(BIN))
        })
        .expect("the sealed view is a child of the shell");
    shell.kill().unwrap();
    shell.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match proc_stat(sealed_pid) {
            None | Some((_, 'Z')) => break,
            Some(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Some(s) => panic!("sealed view {sealed_pid} outlived its parent: {s:?}"),
        }
    }
    eprintln!("sealed view {sealed_pid} died with its parent shell {shell_pid}");
}
