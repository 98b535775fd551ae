//! Cancelling an install from another thread, and cleaning up what it made so far. Its own
//! module because both the download (`fetch`) and the install check it.

use std::path::PathBuf;

use super::RegistryError;

/// Cancels an install from another thread (the window's Cancel, the CLI's Ctrl-C). The install
/// stops at its next step (a download at its next read, at the latest after the idle timeout)
/// and leaves what was installed before. [`Cancel::clean_up`] is for a front end that cannot
/// wait that long (a process about to exit): it deletes what this install created so far.
#[derive(Debug, Clone, Default)]
pub struct Cancel(std::sync::Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: std::sync::atomic::AtomicBool,
    /// What the install created, in order: removed in reverse by `clean_up`.
    made: std::sync::Mutex<Vec<Made>>,
}

#[derive(Debug)]
pub(crate) enum Made {
    /// The agent's folder, created by this install: removed only if empty.
    Folder(PathBuf),
    /// A temporary file or folder of this install: removed whole.
    Temporary(PathBuf),
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub(crate) fn made(&self, what: Made) {
        self.0.made.lock().unwrap_or_else(|p| p.into_inner()).push(what);
    }

    pub(crate) fn check(&self) -> Result<(), RegistryError> {
        if self.is_cancelled() {
            Err(RegistryError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Cancel, and delete the temporary files and the (empty) agent folder this install
    /// created. Nothing else: the installed versions and the record are untouched.
    pub fn clean_up(&self) {
        self.cancel();
        let made = std::mem::take(&mut *self.0.made.lock().unwrap_or_else(|p| p.into_inner()));
        for what in made.into_iter().rev() {
            match what {
                Made::Temporary(path) => {
                    let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
                }
                Made::Folder(path) => {
                    let _ = std::fs::remove_dir(&path);
                }
            }
        }
    }
}
