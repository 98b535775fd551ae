//! Where warnings and errors go. Both front ends install the same set-up ([`init`], behind the
//! `logging` feature, so crates that only use core compile no subscriber and no file
//! appender): every `warn!` and `error!` to a log file that rotates daily in the platform's
//! state folder (`dirs::state_dir()`, else `dirs::data_local_dir()`, then `porthole/logs/`),
//! and to stderr too with `--verbose`.
//!
//! Nothing below warnings is written: the agent's stderr (a `debug!`, it may print its
//! environment) never reaches the log. What is written is shown like any agent text (agents
//! supply some of it): controls, bidi and invisible characters as code points.
//!
//! Messages that stop a feature name the folder ([`with_log_hint`]), so a person finds why.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static LOG_DIR: OnceLock<PathBuf> = OnceLock::new();

/// The folder of the log file in use, once [`init`] installed it.
pub fn log_dir() -> Option<&'static Path> {
    LOG_DIR.get().map(PathBuf::as_path)
}

/// `message`, naming the log folder when there is one: for an error that stops a feature.
pub fn with_log_hint(message: impl std::fmt::Display) -> String {
    match log_dir() {
        Some(dir) => format!("{message} (details in the log in {})", dir.display()),
        None => message.to_string(),
    }
}

#[cfg(feature = "logging")]
pub use setup::{Logging, default_dir, init};

#[cfg(feature = "logging")]
mod setup {
    use std::io::{self, Write};
    use std::path::PathBuf;

    use tracing_appender::rolling::{RollingFileAppender, Rotation};
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::fmt::MakeWriter;
    use tracing_subscriber::prelude::*;

    /// The folder logs go to: `PORTHOLE_LOG_DIR` when set, else `<state dir>/porthole/logs`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("PORTHOLE_LOG_DIR").filter(|d| !d.is_empty()) {
            return Some(dir.into());
        }
        dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .map(|d| d.join("porthole").join("logs"))
    }

    /// Log files of this many days are kept.
    const KEPT_FILES: usize = 7;

    /// What [`init`] set up.
    pub struct Logging {
        /// The folder of the log files (`None`: no file, see `problem`).
        pub dir: Option<PathBuf>,
        /// Why there is no log file, to tell the user once.
        pub problem: Option<String>,
    }

    /// Install the process's subscriber: warnings and errors to `<dir>/<name>.<date>.log`
    /// (rotated daily, a week kept), and to stderr with `verbose`. Call once, first thing.
    pub fn init(name: &str, verbose: bool) -> Logging {
        let (file, dir, problem) = match default_dir() {
            None => (None, None, Some("no folder for log files".to_string())),
            Some(dir) => match open(&dir, name) {
                Ok(appender) => (Some(appender), Some(dir), None),
                Err(e) => (
                    None,
                    None,
                    Some(format!("cannot write log files in {}: {e}", dir.display())),
                ),
            },
        };
        // Written as it happens, no background thread: warnings are few (the noisy ones are
        // rate limited where they arise), and nothing is lost when a process exits at once.
        let file_layer = file.map(|appender| {
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(Shown(appender))
                .with_filter(LevelFilter::WARN)
        });
        let stderr_layer = verbose.then(|| {
            tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(Shown(io::stderr))
                .with_filter(LevelFilter::WARN)
        });
        let installed = tracing_subscriber::registry()
            .with(file_layer)
            .with(stderr_layer)
            .try_init()
            .is_ok();
        if installed && let Some(dir) = &dir {
            let _ = super::LOG_DIR.set(dir.clone());
        }
        Logging { dir, problem }
    }

    fn open(dir: &std::path::Path, name: &str) -> Result<RollingFileAppender, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        RollingFileAppender::builder()
            .rotation(Rotation::DAILY)
            .filename_prefix(name)
            .filename_suffix("log")
            .max_log_files(KEPT_FILES)
            .build(dir)
            .map_err(|e| e.to_string())
    }

    /// A writer of log lines with hidden characters shown as code points.
    struct Shown<M>(M);

    impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Shown<M> {
        type Writer = ShownWriter<M::Writer>;
        fn make_writer(&'a self) -> Self::Writer {
            ShownWriter(self.0.make_writer())
        }
    }

    struct ShownWriter<W>(W);

    impl<W: Write> Write for ShownWriter<W> {
        /// The formatter hands over one whole event at a time.
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let shown = crate::hidden_chars::neutralize(&String::from_utf8_lossy(buf));
            self.0.write_all(shown.as_bytes())?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.0.flush()
        }
    }
}
