//! Fixtures for the registry tests, shared by the registry crate's and the CLI's: an HTTP server on
//! 127.0.0.1 serving whatever a test puts at a path, and archives built at run time (no binary
//! fixtures in the repository), including malicious ones.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use sha2::Digest;

#[derive(Clone)]
struct Route {
    body: Vec<u8>,
    /// Send a Content-Length header (without one the body ends when the connection closes).
    with_length: bool,
    how: Delivery,
}

/// How a body is sent, for the tests of misbehaving servers.
#[derive(Clone, Copy, Debug)]
pub enum Delivery {
    /// All at once.
    Whole,
    /// `Transfer-Encoding: chunked` *and* a Content-Length of `declared` bytes (smaller than the
    /// body): the chunked body wins, so more arrives than the length said.
    ChunkedWithShortLength { declared: usize },
    /// The first `after` bytes, then nothing at all (the connection stays open for a minute).
    Stall { after: usize },
    /// One byte every `every`.
    Drip { every: std::time::Duration },
}

/// A tiny HTTP/1.1 server: GET only, one response per connection.
pub struct Server {
    port: u16,
    routes: Arc<Mutex<HashMap<String, Route>>>,
    requests: Arc<Mutex<Vec<String>>>,
    stopped: Arc<AtomicBool>,
}

impl Server {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let server = Self {
            port,
            routes: Arc::default(),
            requests: Arc::default(),
            stopped: Arc::default(),
        };
        let (routes, requests, stopped) = (
            server.routes.clone(),
            server.requests.clone(),
            server.stopped.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break; // the listener is dropped: later connections are refused
                }
                let Ok(stream) = stream else { continue };
                let (routes, requests) = (routes.clone(), requests.clone());
                std::thread::spawn(move || answer(stream, &routes, &requests));
            }
        });
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn serve(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.route(path, body.into(), true, Delivery::Whole);
    }

    /// Serve without Content-Length, so only counting the bytes can enforce a size cap.
    pub fn serve_unsized(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.route(path, body.into(), false, Delivery::Whole);
    }

    /// Serve (with a true Content-Length unless `how` says otherwise) the way `how` says.
    pub fn serve_as(&self, path: &str, body: impl Into<Vec<u8>>, how: Delivery) {
        self.route(path, body.into(), true, how);
    }

    fn route(&self, path: &str, body: Vec<u8>, with_length: bool, how: Delivery) {
        self.routes.lock().unwrap().insert(
            path.to_string(),
            Route {
                body,
                with_length,
                how,
            },
        );
    }

    /// The paths requested so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// Close the port: from now on connecting fails, as offline.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        // Wait until the port refuses connections.
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", self.port)).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the fixture server did not stop");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !self.stopped.load(Ordering::SeqCst) {
            self.stopped.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect(("127.0.0.1", self.port));
        }
    }
}

fn answer(stream: TcpStream, routes: &Mutex<HashMap<String, Route>>, requests: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    requests.lock().unwrap().push(path.clone());
    let route = routes.lock().unwrap().get(&path).cloned();
    let mut stream = reader.into_inner();
    let _ = match route {
        Some(route) => {
            let length = match route.how {
                Delivery::ChunkedWithShortLength { declared } => {
                    format!("Transfer-Encoding: chunked\r\nContent-Length: {declared}\r\n")
                }
                _ if route.with_length => format!("Content-Length: {}\r\n", route.body.len()),
                _ => String::new(),
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n{length}Connection: close\r\n\r\n"
            );
            stream
                .write_all(head.as_bytes())
                .and_then(|_| send_body(&mut stream, &route.body, route.how))
        }
        None => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    };
    let _ = stream.flush();
}

fn send_body(stream: &mut TcpStream, body: &[u8], how: Delivery) -> std::io::Result<()> {
    match how {
        Delivery::Whole => stream.write_all(body),
        Delivery::ChunkedWithShortLength { .. } => {
            for chunk in body.chunks(16 * 1024) {
                write!(stream, "{:x}\r\n", chunk.len())?;
                stream.write_all(chunk)?;
                stream.write_all(b"\r\n")?;
                stream.flush()?;
            }
            stream.write_all(b"0\r\n\r\n")
        }
        Delivery::Stall { after } => {
            stream.write_all(&body[..after.min(body.len())])?;
            stream.flush()?;
            std::thread::sleep(std::time::Duration::from_secs(60));
            Ok(())
        }
        Delivery::Drip { every } => {
            for byte in body {
                stream.write_all(std::slice::from_ref(byte))?;
                stream.flush()?;
                std::thread::sleep(every);
            }
            Ok(())
        }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One archive entry; names are written as given, so tests can build malicious ones.
pub enum Entry<'a> {
    File(&'a str, &'a [u8], u32),
    Dir(&'a str),
    Symlink(&'a str, &'a str),
    HardLink(&'a str, &'a str),
}

/// A tar archive. Names go into the header's raw bytes: the tar crate's own setters refuse
/// `..` and absolute paths, which is exactly what these fixtures need.
pub fn tar(entries: &[Entry]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_old();
        let (name, kind, data, mode, link): (&str, tar::EntryType, &[u8], u32, &str) = match entry {
            Entry::File(name, data, mode) => (name, tar::EntryType::Regular, data, *mode, ""),
            Entry::Dir(name) => (name, tar::EntryType::Directory, b"", 0o755, ""),
            Entry::Symlink(name, to) => (name, tar::EntryType::Symlink, b"", 0o777, to),
            Entry::HardLink(name, to) => (name, tar::EntryType::Link, b"", 0o644, to),
        };
        let old = header.as_old_mut();
        old.name[..name.len()].copy_from_slice(name.as_bytes());
        old.linkname[..link.len()].copy_from_slice(link.as_bytes());
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_size(data.len() as u64);
        header.set_cksum();
        builder.append(&header, data).unwrap();
    }
    builder.into_inner().unwrap()
}

pub fn tar_gz(entries: &[Entry]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar(entries)).unwrap();
    gz.finish().unwrap()
}

pub fn tar_bz2(entries: &[Entry]) -> Vec<u8> {
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&tar(entries)).unwrap();
    bz.finish().unwrap()
}

pub fn zip(entries: &[Entry]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for entry in entries {
        match entry {
            Entry::File(name, data, mode) => {
                let options = SimpleFileOptions::default().unix_permissions(*mode);
                zip.start_file(*name, options).unwrap();
                zip.write_all(data).unwrap();
            }
            Entry::Dir(name) => zip.add_directory(*name, SimpleFileOptions::default()).unwrap(),
            Entry::Symlink(name, to) => zip.add_symlink(*name, *to, SimpleFileOptions::default()).unwrap(),
            Entry::HardLink(..) => panic!("zip has no hard links"),
        }
    }
    zip.finish().unwrap().into_inner()
}

/// A registry document with the given agent entries (JSON values).
pub fn registry(agents: Vec<serde_json::Value>) -> String {
    serde_json::json!({ "version": "1.0.0", "agents": agents, "extensions": [] }).to_string()
}

/// An agent entry distributed as a binary for this machine's platform target.
pub fn binary_agent(id: &str, version: &str, archive_url: &str, sha256: Option<&str>) -> serde_json::Value {
    let target = porthole_registry::current_target().expect("a platform the registry knows");
    let mut binary = serde_json::json!({
        "archive": archive_url,
        "cmd": "./bin/agent",
        "args": ["--from-registry"],
        "env": { "FIXTURE_FLAG": "from-registry" }
    });
    if let Some(sum) = sha256 {
        binary["sha256"] = sum.into();
    }
    serde_json::json!({
        "id": id,
        "name": format!("Fixture {id}"),
        "version": version,
        "description": "An agent for the tests",
        "icon": "https://example.invalid/icon.svg",
        "authors": ["Porthole tests"],
        "someFutureField": {"ignored": true},
        "distribution": { "binary": { target: binary } }
    })
}

/// A small agent program: a shell script that checks the registry's env and args arrived, then
/// runs `exec_line` (e.g. `exec /path/to/demo-agent`, or `echo ...`).
pub fn agent_script(exec_line: &str) -> Vec<u8> {
    format!(
        "#!/bin/sh\n\
         [ \"$FIXTURE_FLAG\" = from-registry ] || {{ echo 'FIXTURE_FLAG not set' >&2; exit 3; }}\n\
         [ \"$1\" = --from-registry ] || {{ echo \"unexpected args: $*\" >&2; exit 4; }}\n\
         shift\n\
         {exec_line}\n"
    )
    .into_bytes()
}
