//! A GET for synchronous callers (the registries): the async client driven on a thread of its
//! own, with its own small runtime, so it works the same from a plain thread, a
//! `spawn_blocking` task or a test, and never nests a runtime in the caller's. The body comes
//! back chunk by chunk through a bounded channel, so a large download is never held whole and
//! a caller that stops reading (cancelled, over its cap) ends the request.

use std::sync::mpsc;
use std::time::Duration;

use bytes::Bytes;

/// How long a GET may take to connect, to answer (its headers), and in all, and how long it may
/// go without a byte once answering.
#[derive(Debug, Clone)]
pub struct Limits {
    pub connect: Duration,
    pub response: Duration,
    pub total: Duration,
    pub idle: Duration,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum GetError {
    /// Could not connect, TLS failed, the connection broke, a redirect loop...
    #[error("{0}")]
    Transport(String),
    #[error("no answer within {} s", .0.as_secs_f32())]
    NoAnswer(Duration),
    #[error("nothing arrived for {} s", .0.as_secs_f32())]
    Idle(Duration),
    #[error("the server answered HTTP {0}")]
    Status(u16),
}

enum Message {
    Head {
        /// The `Content-Length` header as the server sent it (even beside chunked encoding,
        /// where it is not the body's length: the caller checks the body against it).
        declared_length: Option<u64>,
    },
    Chunk(Bytes),
    End,
    Failed(GetError),
}

/// A GET whose answer is being read.
pub struct Get {
    rx: mpsc::Receiver<Message>,
    /// The length the server declared, if it did.
    pub declared_length: Option<u64>,
}

/// What [`Get::next`] found.
pub enum Next {
    Chunk(Bytes),
    /// The body is complete.
    End,
    /// Nothing yet within the wait asked for (the idle limit is kept by the reader).
    Waiting,
}

impl Get {
    /// GET `url` (with `Authorization: Bearer TOKEN` when given), following up to 10 redirects;
    /// returns once the answer's headers came. A status outside 2xx is an error.
    pub fn start(url: &str, bearer: Option<&str>, limits: &Limits) -> Result<Get, GetError> {
        let (tx, rx) = mpsc::sync_channel::<Message>(8);
        let url = url.to_string();
        let bearer = bearer.map(str::to_string);
        let limits = limits.clone();
        std::thread::Builder::new()
            .name("porthole-http-get".into())
            .spawn(move || read(url, bearer, limits, tx))
            .map_err(|e| GetError::Transport(format!("cannot start the download: {e}")))?;
        match rx.recv() {
            Ok(Message::Head { declared_length }) => Ok(Get { rx, declared_length }),
            Ok(Message::Failed(e)) => Err(e),
            _ => Err(GetError::Transport("the download ended before its answer".into())),
        }
    }

    /// The next chunk, waiting at most `wait` (so a caller can check for cancellation).
    pub fn next(&self, wait: Duration) -> Result<Next, GetError> {
        match self.rx.recv_timeout(wait) {
            Ok(Message::Chunk(c)) => Ok(Next::Chunk(c)),
            Ok(Message::End) => Ok(Next::End),
            Ok(Message::Failed(e)) => Err(e),
            Ok(Message::Head { .. }) => Err(GetError::Transport("a second answer".into())),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(Next::Waiting),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(GetError::Transport("the download stopped".into()))
            }
        }
    }
}

/// The reading thread: sends the head, then chunks, then the end or what failed. Ends early
/// when the caller dropped its [`Get`].
fn read(url: String, bearer: Option<String>, limits: Limits, tx: mpsc::SyncSender<Message>) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Message::Failed(GetError::Transport(format!(
                "cannot start the download: {e}"
            ))));
            return;
        }
    };
    runtime.block_on(async move {
        let fail = |e: GetError| {
            let _ = tx.send(Message::Failed(e));
        };
        let client = match super::builder()
            .connect_timeout(limits.connect)
            .timeout(limits.total)
            .build()
        {
            Ok(c) => c,
            Err(e) => return fail(GetError::Transport(super::transport(&url, e).to_string())),
        };
        let mut request = client.get(&url);
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let mut response = match tokio::time::timeout(limits.response, request.send()).await {
            Err(_) => return fail(GetError::NoAnswer(limits.response)),
            Ok(Err(e)) => return fail(GetError::Transport(super::transport(&url, e).to_string())),
            Ok(Ok(r)) => r,
        };
        if !response.status().is_success() {
            return fail(GetError::Status(response.status().as_u16()));
        }
        let declared_length = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if tx.send(Message::Head { declared_length }).is_err() {
            return;
        }
        loop {
            let message = match tokio::time::timeout(limits.idle, response.chunk()).await {
                Err(_) => Message::Failed(GetError::Idle(limits.idle)),
                Ok(Err(e)) => Message::Failed(GetError::Transport(super::transport(&url, e).to_string())),
                Ok(Ok(None)) => Message::End,
                Ok(Ok(Some(chunk))) => Message::Chunk(chunk),
            };
            let last = !matches!(message, Message::Chunk(_));
            // The caller stopped reading: dropping the response ends the request.
            if tx.send(message).is_err() || last {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A one-connection server that reads the request and then plays `answer`.
    fn serve(answer: impl FnOnce(std::net::TcpStream) + Send + 'static) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/x", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            answer(stream);
        });
        url
    }

    fn limits() -> Limits {
        Limits {
            connect: Duration::from_secs(5),
            response: Duration::from_secs(1),
            total: Duration::from_secs(10),
            idle: Duration::from_millis(500),
        }
    }

    fn read_all(get: &Get) -> Result<Vec<u8>, GetError> {
        let mut body = Vec::new();
        loop {
            match get.next(Duration::from_millis(50))? {
                Next::Chunk(c) => body.extend_from_slice(&c),
                Next::End => return Ok(body),
                Next::Waiting => {}
            }
        }
    }

    #[test]
    fn a_body_comes_whole_with_its_declared_length() {
        let url = serve(|mut s| {
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
                .unwrap();
        });
        let get = Get::start(&url, Some("t"), &limits()).unwrap();
        assert_eq!(get.declared_length, Some(5));
        assert_eq!(read_all(&get).unwrap(), b"hello");
    }

    #[test]
    fn a_status_outside_2xx_is_an_error_naming_it() {
        let url = serve(|mut s| {
            s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
        });
        let err = Get::start(&url, None, &limits()).err().unwrap();
        assert_eq!(err.to_string(), "the server answered HTTP 404");
    }

    #[test]
    fn no_answer_and_no_byte_end_at_their_limits() {
        let silent = serve(|s| {
            std::thread::sleep(Duration::from_secs(3));
            drop(s);
        });
        assert!(matches!(
            Get::start(&silent, None, &limits()),
            Err(GetError::NoAnswer(_))
        ));
        let stalled = serve(|mut s| {
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
                .unwrap();
            std::thread::sleep(Duration::from_secs(3));
        });
        let get = Get::start(&stalled, None, &limits()).unwrap();
        let err = read_all(&get).unwrap_err();
        assert_eq!(err.to_string(), "nothing arrived for 0.5 s");
    }
}
