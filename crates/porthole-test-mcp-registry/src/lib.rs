//! A fake MCP Registry serving API v0.1 on 127.0.0.1, as the official registry answers:
//!
//! - `GET /v0.1/servers?search=&cursor=&limit=&updated_since=&version=latest`:
//!   `{"servers": [{"server": server.json, "_meta": {"io.modelcontextprotocol.registry/official":
//!   {"status", "publishedAt", "updatedAt", "isLatest"}}}], "metadata": {"nextCursor", "count"}}`,
//!   `search` a case-insensitive substring of the name, deleted entries only when
//!   `updated_since` is sent;
//! - `GET /v0.1/servers/{name}/versions` and `/versions/{version}` (`latest` too).
//!
//! It can require a bearer token (401 without it) and misbehave (too large, dripping, stalled,
//! endless, a cursor that comes round again). The entries are the fixtures in `fixtures/`
//! (see `fixtures/official-docs/SOURCES.md`) or whatever a test adds.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// One version of one server as the registry keeps it.
#[derive(Debug, Clone)]
pub struct Stored {
    pub server: Value,
    /// `active`, `deprecated` or `deleted`.
    pub status: String,
    pub updated_at: String,
    pub is_latest: bool,
}

/// How the listing answers, for the caps' tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Misbehave {
    None,
    /// A body of this many bytes (valid JSON padding), with a true Content-Length.
    Oversize(usize),
    /// Headers without Content-Length, then a byte every `ms` milliseconds.
    Drip {
        ms: u64,
    },
    /// Headers, a few bytes, then nothing for 5 minutes.
    Stall,
    /// Chunked, for ever (until the client hangs up).
    Endless,
    /// Every page's `nextCursor` is the same cursor.
    CursorLoop,
}

#[derive(Default)]
struct State {
    entries: Vec<Stored>,
    token: Option<String>,
    misbehave: Option<Misbehave>,
    requests: Vec<String>,
    authorizations: Vec<Option<String>>,
    /// Pages after the first (a listing's requests with a cursor) wait while this is set: a
    /// registry whose whole listing takes long.
    hold_later_pages: bool,
    /// Files served at `/files/NAME` (MCP bundles).
    files: HashMap<String, Vec<u8>>,
}

pub struct Server {
    port: u16,
    state: Arc<Mutex<State>>,
    stopped: Arc<AtomicBool>,
}

/// This crate's fixture folder, found at run time from the running test's package folder (or
/// the current one): the path baked in when this library was compiled names the clone it was
/// compiled in, which a shared target dir may reuse for another clone.
pub fn fixtures_dir() -> PathBuf {
    const FIXTURES: &str = "crates/porthole-test-mcp-registry/fixtures";
    let from = |start: PathBuf| {
        start
            .ancestors()
            .map(|dir| dir.join(FIXTURES))
            .find(|dir| dir.is_dir())
    };
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .and_then(from)
        .or_else(|| std::env::current_dir().ok().and_then(from))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
}

/// The server.json files copied from the registry's documentation, by file name.
pub fn official_fixtures() -> Vec<(String, Value)> {
    let dir = fixtures_dir().join("official-docs");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("the fixture folder")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).expect("fixture JSON");
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The hand-written hostile entries: `(case, server.json)`.
pub fn hostile_fixtures() -> Vec<(String, Value)> {
    let path = fixtures_dir().join("hostile").join("entries.json");
    let all: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .map(|c| (c["case"].as_str().unwrap().to_string(), c["server"].clone()))
        .collect()
}

/// The entry for the real npm package `@modelcontextprotocol/server-everything` (written for
/// these tests; see SOURCES.md).
pub fn server_everything() -> Value {
    serde_json::from_slice(&std::fs::read(fixtures_dir().join("server-everything.json")).unwrap()).unwrap()
}

/// An MCP bundle, its `manifest.json` first, then `files` (path, bytes, Unix mode). Names are
/// written as given, so tests can build hostile ones.
/// Stored, not compressed: a debug build deflates a 35 MB program slowly.
pub fn bundle(manifest: &Value, files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let manifest = serde_json::to_vec_pretty(manifest).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes, mode) in
        std::iter::once(("manifest.json", &manifest[..], 0o644)).chain(files.iter().copied())
    {
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(bytes.len() > u32::MAX as usize / 2)
            .unix_permissions(mode);
        zip.start_file(name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A bundle whose `manifest.json` is followed by `entries` (symlinks among them).
pub fn bundle_with(manifest: &Value, entries: &[porthole_test_registry::Entry]) -> Vec<u8> {
    let manifest = serde_json::to_vec_pretty(manifest).unwrap();
    let mut all = vec![porthole_test_registry::Entry::File(
        "manifest.json",
        &manifest,
        0o644,
    )];
    for e in entries {
        all.push(match e {
            porthole_test_registry::Entry::File(n, b, m) => porthole_test_registry::Entry::File(n, b, *m),
            porthole_test_registry::Entry::Dir(n) => porthole_test_registry::Entry::Dir(n),
            porthole_test_registry::Entry::Symlink(n, t) => porthole_test_registry::Entry::Symlink(n, t),
            porthole_test_registry::Entry::HardLink(n, t) => porthole_test_registry::Entry::HardLink(n, t),
        });
    }
    porthole_test_registry::zip(&all)
}

/// The SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    porthole_test_registry::sha256_hex(bytes)
}

/// A binary bundle of `program` (a stdio MCP server: `porthole-test-mcp`, which is run with
/// `--stdio`), with one optional sensitive setting, `api_key`, given to it as
/// `TEST_MCP_SECRET` (its `env` tool says whether that is set).
pub fn binary_bundle(program: &[u8]) -> Vec<u8> {
    bundle(
        &json!({
            "manifest_version": "0.3",
            "name": "porthole-test-mcp",
            "display_name": "Porthole's test MCP server",
            "version": "1.0.0",
            "description": "The workspace's test MCP server as a binary MCP bundle.",
            "author": {"name": "Porthole's tests"},
            "server": {
                "type": "binary",
                "entry_point": "server/porthole-test-mcp",
                "mcp_config": {
                    "command": "${__dirname}/server/porthole-test-mcp",
                    "args": ["--stdio"],
                    "env": {"TEST_MCP_SECRET": "${user_config.api_key}"}
                }
            },
            "user_config": {
                "api_key": {"type": "string", "title": "API key", "description": "The key the server is given.", "sensitive": true, "required": false}
            },
            "compatibility": {"platforms": ["linux", "darwin"]}
        }),
        &[("server/porthole-test-mcp", program, 0o644)],
    )
}

/// A server.json entry for the bundle at `url` with SHA-256 `sha256`.
pub fn bundle_entry(name: &str, version: &str, url: &str, sha256: &str) -> Value {
    json!({
        "name": name,
        "description": "An MCP bundle served by the test registry.",
        "version": version,
        "packages": [{
            "registryType": "mcpb",
            "identifier": url,
            "version": version,
            "fileSha256": sha256,
            "transport": {"type": "stdio"}
        }]
    })
}

/// A remote entry with no header, at `url` (a test server on 127.0.0.1): whether it asks for
/// sign-in is the server's to say.
pub fn remote_entry(name: &str, url: &str) -> Value {
    serde_json::json!({
        "name": name,
        "description": "A remote MCP server on this computer.",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": url}]
    })
}

impl Server {
    pub fn start() -> Self {
        Self::start_on("127.0.0.1:0")
    }

    pub fn start_on(addr: &str) -> Self {
        let listener = TcpListener::bind(addr).expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let server = Self {
            port,
            state: Arc::default(),
            stopped: Arc::default(),
        };
        let (state, stopped) = (server.state.clone(), server.stopped.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = state.clone();
                std::thread::spawn(move || answer(stream, &state));
            }
        });
        server
    }

    /// Every official fixture and the server-everything entry, active, latest.
    pub fn with_fixtures() -> Self {
        let s = Self::start();
        for (_, v) in official_fixtures() {
            s.add(v);
        }
        s.add(server_everything());
        s
    }

    /// The base address (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Add an active, latest entry updated now-ish (a fixed 2025 date unless set otherwise).
    pub fn add(&self, server: Value) {
        self.add_as(server, "active", "2025-10-01T00:00:00Z", true);
    }

    /// Add an entry with its status, `updatedAt` and whether it is the latest version (the
    /// version that was the latest stops being it, updated at the same time, as the official
    /// registry does).
    pub fn add_as(&self, server: Value, status: &str, updated_at: &str, is_latest: bool) {
        let mut state = self.state.lock().unwrap();
        if is_latest {
            let name = server["name"].clone();
            for e in state
                .entries
                .iter_mut()
                .filter(|e| e.server["name"] == name && e.is_latest)
            {
                e.is_latest = false;
                e.updated_at = updated_at.into();
            }
        }
        state.entries.push(Stored {
            server,
            status: status.into(),
            updated_at: updated_at.into(),
            is_latest,
        });
    }

    /// Change an entry's status (every version of `name`) as of `updated_at`.
    pub fn set_status(&self, name: &str, status: &str, updated_at: &str) {
        let mut state = self.state.lock().unwrap();
        for e in state.entries.iter_mut().filter(|e| e.server["name"] == name) {
            e.status = status.into();
            e.updated_at = updated_at.into();
        }
    }

    /// Answer only requests with `Authorization: Bearer TOKEN`.
    pub fn require_token(&self, token: &str) {
        self.state.lock().unwrap().token = Some(token.into());
    }

    pub fn misbehave(&self, how: Misbehave) {
        self.state.lock().unwrap().misbehave = Some(how);
    }

    /// Hold the answers to every listing page after the first until [`Server::release_pages`].
    pub fn hold_later_pages(&self) {
        self.state.lock().unwrap().hold_later_pages = true;
    }

    pub fn release_pages(&self) {
        self.state.lock().unwrap().hold_later_pages = false;
    }

    /// Serve `bytes` at `/files/NAME`; returns its URL.
    pub fn serve_file(&self, name: &str, bytes: Vec<u8>) -> String {
        self.state.lock().unwrap().files.insert(name.to_string(), bytes);
        format!("{}/files/{name}", self.url())
    }

    /// The paths and queries asked so far.
    pub fn requests(&self) -> Vec<String> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The `Authorization` header of each request, in order.
    pub fn authorizations(&self) -> Vec<Option<String>> {
        self.state.lock().unwrap().authorizations.clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn wrap(e: &Stored) -> Value {
    json!({
        "server": e.server,
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": e.status,
            "publishedAt": "2025-09-01T00:00:00Z",
            "updatedAt": e.updated_at,
            "isLatest": e.is_latest,
        }}
    })
}

fn answer(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    let mut authorization = None;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {
                if let Some((k, v)) = line.split_once(':')
                    && k.eq_ignore_ascii_case("authorization")
                {
                    authorization = Some(v.trim().to_string());
                }
            }
        }
    }
    let target = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut stream = reader.into_inner();
    while target.contains("cursor=") && state.lock().unwrap().hold_later_pages {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if let Some(name) = target.strip_prefix("/files/") {
        let file = {
            let mut st = state.lock().unwrap();
            st.requests.push(target.clone());
            st.files.get(name).cloned()
        };
        let _ = match file {
            Some(bytes) => write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            )
            .and_then(|()| stream.write_all(&bytes)),
            None => send(&mut stream, 404, &json!({"title": "Not Found", "status": 404}), None),
        };
        return;
    }
    let (status, body, misbehave) = {
        let mut st = state.lock().unwrap();
        st.requests.push(target.clone());
        st.authorizations.push(authorization.clone());
        if let Some(token) = &st.token
            && authorization.as_deref() != Some(&format!("Bearer {token}"))
        {
            (401, json!({"title": "Unauthorized", "status": 401}), None)
        } else {
            let (status, body) = route(&target, &st);
            (status, body, st.misbehave)
        }
    };
    let _ = send(&mut stream, status, &body, misbehave.filter(|_| status == 200));
}

fn route(target: &str, st: &State) -> (u16, Value) {
    let url = url::Url::parse(&format!("http://x{target}")).unwrap();
    let q: HashMap<String, String> = url.query_pairs().into_owned().collect();
    let segments: Vec<String> = url
        .path_segments()
        .map(|s| {
            s.map(|x| {
                url::form_urlencoded::parse(format!("a={x}").as_bytes())
                    .next()
                    .unwrap()
                    .1
                    .into_owned()
            })
            .collect()
        })
        .unwrap_or_default();
    let segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    match segs.as_slice() {
        ["v0.1", "servers"] => list(&q, st),
        ["v0.1", "servers", name, "versions"] => {
            let servers: Vec<Value> = st
                .entries
                .iter()
                .filter(|e| e.server["name"] == *name && e.status != "deleted")
                .map(wrap)
                .collect();
            if servers.is_empty() {
                return (404, json!({"title": "Not Found", "status": 404}));
            }
            (
                200,
                json!({"servers": servers, "metadata": {"count": servers.len()}}),
            )
        }
        ["v0.1", "servers", name, "versions", version] => st
            .entries
            .iter()
            .find(|e| {
                e.server["name"] == *name
                    && (if *version == "latest" {
                        e.is_latest
                    } else {
                        e.server["version"] == *version
                    })
            })
            .map_or((404, json!({"title": "Not Found", "status": 404})), |e| {
                (200, wrap(e))
            }),
        _ => (404, json!({"title": "Not Found", "status": 404})),
    }
}

fn list(q: &HashMap<String, String>, st: &State) -> (u16, Value) {
    let limit: usize = match q.get("limit").map(|l| l.parse::<usize>()) {
        None => 30,
        Some(Ok(n)) if (1..=100).contains(&n) => n,
        Some(_) => return (422, json!({"title": "limit must be 1 to 100", "status": 422})),
    };
    let since = q.get("updated_since");
    let latest = q.get("version").is_some_and(|v| v == "latest");
    let search = q.get("search").map(|s| s.to_lowercase());
    let mut matching: Vec<&Stored> = st
        .entries
        .iter()
        .filter(|e| match since {
            Some(s) => e.updated_at.as_str() > s.as_str(),
            None => e.status != "deleted",
        })
        .filter(|e| !latest || e.is_latest)
        .filter(|e| {
            search.as_ref().is_none_or(|s| {
                e.server["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_lowercase()
                    .contains(s)
            })
        })
        .collect();
    let key = |e: &Stored| {
        format!(
            "{}:{}",
            e.server["name"].as_str().unwrap_or_default(),
            e.server["version"].as_str().unwrap_or_default()
        )
    };
    matching.sort_by_key(|e| key(e));
    if let Some(cursor) = q.get("cursor") {
        matching.retain(|e| key(e).as_str() > cursor.as_str());
    }
    let page: Vec<&Stored> = matching.iter().take(limit).copied().collect();
    let next = if matching.len() > limit {
        page.last().map(|e| key(e))
    } else {
        None
    };
    let next = match st.misbehave {
        Some(Misbehave::CursorLoop) => Some("loop".to_string()),
        _ => next,
    };
    let mut metadata = json!({"count": page.len()});
    if let Some(n) = next {
        metadata["nextCursor"] = json!(n);
    }
    (
        200,
        json!({"servers": page.iter().map(|e| wrap(e)).collect::<Vec<_>>(), "metadata": metadata}),
    )
}

fn send(stream: &mut TcpStream, status: u16, body: &Value, how: Option<Misbehave>) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        401 => "Unauthorized",
        404 => "Not Found",
        _ => "Unprocessable Entity",
    };
    let bytes = serde_json::to_vec(body).unwrap();
    match how.unwrap_or(Misbehave::None) {
        Misbehave::None | Misbehave::CursorLoop => {
            write!(
                stream,
                "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            )?;
            stream.write_all(&bytes)
        }
        Misbehave::Oversize(n) => {
            let mut padded = br#"{"servers":[],"padding":""#.to_vec();
            padded.resize(n.saturating_sub(2), b'x');
            padded.extend_from_slice(b"\"}");
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
            )?;
            stream.write_all(&padded)
        }
        Misbehave::Drip { ms } => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
            )?;
            for b in bytes {
                stream.write_all(&[b])?;
                stream.flush()?;
                std::thread::sleep(std::time::Duration::from_millis(ms));
            }
            Ok(())
        }
        Misbehave::Stall => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{{\"ser"
            )?;
            stream.flush()?;
            std::thread::sleep(std::time::Duration::from_secs(300));
            Ok(())
        }
        Misbehave::Endless => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )?;
            let chunk = vec![b' '; 64 * 1024];
            loop {
                write!(stream, "{:x}\r\n", chunk.len())?;
                stream.write_all(&chunk)?;
                stream.write_all(b"\r\n")?;
            }
        }
    }
}
