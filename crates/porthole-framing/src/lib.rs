//! Newline-delimited lines from a byte stream, with a size limit: the one framing of every
//! line Porthole reads from a peer. A line within the limit is handed over whole; a longer one
//! is handed over in pieces as it arrives (memory stays at the limit), so the companion's
//! relay can pass it through without looking at it, and core's transport can count it and
//! keep only its head.
//!
//! A crate of its own so that `porthole-proxy` (the companion) frames lines exactly as core
//! does without linking core, the ACP SDK or anything else of the engine.

use memchr::memchr;
use tokio::io::{AsyncRead, AsyncReadExt};

/// The default cap on one line from a peer (an agent, an editor, the proxy's link). Prompts and
/// replays carry images, so it is generous.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the reader produced.
#[derive(Debug, PartialEq)]
pub enum Piece<'a> {
    /// A whole line, without its newline.
    Line(&'a [u8]),
    /// Part of a line over the limit; `end` on the last part (its newline not included).
    Oversized { chunk: &'a [u8], end: bool },
}

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Where the search for the next newline resumes (everything before has none).
    scanned: usize,
    max: usize,
    /// Inside a line over the limit.
    passing: bool,
    eof: bool,
}

const INITIAL: usize = 64 * 1024;

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            buf: vec![0; INITIAL.min(max + 1).max(1024)],
            start: 0,
            end: 0,
            scanned: 0,
            max,
            passing: false,
            eof: false,
        }
    }

    /// Whether bytes are buffered past what was handed over (more lines may be ready without
    /// reading): the relay flushes its output when there are none.
    pub fn has_buffered(&self) -> bool {
        self.end > self.start
    }

    /// The next line or piece; `None` at the end of the stream.
    pub async fn next(&mut self) -> std::io::Result<Option<Piece<'_>>> {
        loop {
            if let Some(i) = memchr(b'\n', &self.buf[self.scanned..self.end]) {
                let nl = self.scanned + i;
                let (s, passing) = (self.start, self.passing);
                self.start = nl + 1;
                self.scanned = self.start;
                self.passing = false;
                return Ok(Some(if passing {
                    Piece::Oversized {
                        chunk: &self.buf[s..nl],
                        end: true,
                    }
                } else {
                    Piece::Line(&self.buf[s..nl])
                }));
            }
            self.scanned = self.end;
            if self.eof {
                if self.end == self.start {
                    return Ok(None);
                }
                let s = self.start;
                self.start = self.end;
                self.scanned = self.end;
                let passing = std::mem::take(&mut self.passing);
                return Ok(Some(if passing {
                    Piece::Oversized {
                        chunk: &self.buf[s..self.end],
                        end: true,
                    }
                } else {
                    Piece::Line(&self.buf[s..self.end])
                }));
            }
            let pending = self.end - self.start;
            if (self.passing || pending > self.max) && pending > 0 {
                // Hand over what is buffered of a line already known to be too long.
                self.passing = true;
                let s = self.start;
                self.start = self.end;
                self.scanned = self.end;
                return Ok(Some(Piece::Oversized {
                    chunk: &self.buf[s..self.end],
                    end: false,
                }));
            }
            // Room for more: move what is pending to the front, grow up to the limit.
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.scanned -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                let grown = (self.buf.len() * 2).min(self.max + 1).max(self.buf.len());
                if grown == self.buf.len() {
                    // Full at the limit with no newline: over the limit (handled above next).
                    self.passing = true;
                    continue;
                }
                self.buf.resize(grown, 0);
            }
            let n = self.inner.read(&mut self.buf[self.end..]).await?;
            if n == 0 {
                self.eof = true;
            }
            self.end += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(input: &[u8], max: usize) -> Vec<(String, bool)> {
        let mut r = LineReader::new(input, max);
        let mut out = Vec::new();
        let mut big = Vec::new();
        while let Some(p) = r.next().await.unwrap() {
            match p {
                Piece::Line(l) => out.push((String::from_utf8_lossy(l).into_owned(), false)),
                Piece::Oversized { chunk, end } => {
                    big.extend_from_slice(chunk);
                    if end {
                        out.push((String::from_utf8_lossy(&big).into_owned(), true));
                        big.clear();
                    }
                }
            }
        }
        out
    }

    #[tokio::test]
    async fn lines_within_the_limit_come_whole_and_longer_ones_in_pieces() {
        let long = "x".repeat(5000);
        let input = format!("a\n{long}\nb\n\nlast");
        let got = collect(input.as_bytes(), 1024).await;
        assert_eq!(
            got,
            vec![
                ("a".into(), false),
                (long, true),
                ("b".into(), false),
                ("".into(), false),
                ("last".into(), false)
            ]
        );
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_whole() {
        let line = "y".repeat(1024);
        let got = collect(format!("{line}\nz\n").as_bytes(), 1024).await;
        assert_eq!(got, vec![(line, false), ("z".into(), false)]);
    }

    #[tokio::test]
    async fn memory_stays_at_the_limit_for_a_huge_line() {
        let huge = vec![b'q'; 3 * 1024 * 1024];
        let mut input = huge.clone();
        input.extend_from_slice(b"\nok\n");
        let mut r = LineReader::new(&input[..], 4096);
        let mut total = 0;
        let mut lines = Vec::new();
        while let Some(p) = r.next().await.unwrap() {
            match p {
                Piece::Oversized { chunk, .. } => total += chunk.len(),
                Piece::Line(l) => lines.push(l.to_vec()),
            }
            assert!(r.buf.len() <= 4097);
        }
        assert_eq!(total, huge.len());
        assert_eq!(lines, vec![b"ok".to_vec()]);
    }
}
