//! The one way Porthole runs a child process tree: an agent (core), an agent's terminal (core),
//! the editor's agent behind `porthole proxy` (the companion), the app the proxy starts, and the
//! sealed URL view (the desktop shell).
//!
//! - [`spawn`]: the child leads a new process group, so one signal reaches everything it
//!   starts (an `npx` wrapper's node, a shell's pipeline); optionally it gets a signal when its
//!   parent dies ([`Signal`] for `PR_SET_PDEATHSIG` on Linux).
//! - [`Group::stop`]: SIGTERM to the group, SIGKILL to the group once the deadline passed;
//!   [`Group::kill`] and [`GroupId::kill`]: SIGKILL to the group now (also what is left of it
//!   after its leader exited). Dropping a [`Group`] whose leader was never waited for kills the
//!   group.
//! - [`spawn_detached`]: a program that outlives us (the app the proxy starts), in its own group
//!   so an editor's signals to the proxy's group do not reach it.
//! - [`die_with_parent`]: the same parent-death signal for the current process (the sealed
//!   view, a `porthole` subcommand that sets it itself).
//!
//! The parent-death signal fires when the *thread* that spawned the child ends, not the
//! process: spawn from a thread that lives as long as the parent should (the proxy runs on one
//! thread for this reason; the sealed view spawns from a thread of its own).
//!
//! Built on `nix` (safe bindings) rather than hand `unsafe` calls to libc; on platforms other
//! than Unix there are no groups: the leader alone is stopped and killed.

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::process::{Child, Command};

/// The signals Porthole sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM: asked to stop.
    Terminate,
    /// SIGKILL.
    Kill,
}

#[cfg(unix)]
impl Signal {
    fn nix(self) -> nix::sys::signal::Signal {
        match self {
            Signal::Terminate => nix::sys::signal::Signal::SIGTERM,
            Signal::Kill => nix::sys::signal::Signal::SIGKILL,
        }
    }
}

/// A child process group, named by its leader's pid. `Copy`, so whoever must stop the group
/// (a terminal's `kill`) can hold it while another task waits for the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupId(u32);

impl GroupId {
    pub fn raw(self) -> u32 {
        self.0
    }

    /// Send `signal` to every process of the group. A group that is gone is not an error.
    pub fn signal(self, signal: Signal) {
        #[cfg(unix)]
        {
            let pgid = nix::unistd::Pid::from_raw(self.0 as i32);
            let _ = nix::sys::signal::killpg(pgid, signal.nix());
        }
        #[cfg(not(unix))]
        let _ = signal;
    }

    pub fn terminate(self) {
        self.signal(Signal::Terminate)
    }

    pub fn kill(self) {
        self.signal(Signal::Kill)
    }
}

/// A spawned child leading its own process group.
#[derive(Debug)]
pub struct Group {
    child: Child,
    id: Option<GroupId>,
    /// The leader was waited for: dropping the group no longer kills it.
    reaped: bool,
}

/// Start `command` as the leader of a new process group (on Unix). With `parent_death`, the
/// child gets that signal when the thread that spawned it ends (Linux; elsewhere nothing).
/// Must be called inside a tokio runtime.
pub fn spawn(mut command: Command, parent_death: Option<Signal>) -> io::Result<Group> {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(target_os = "linux")]
    if let Some(signal) = parent_death {
        let parent = nix::unistd::getpid();
        let signal = signal.nix();
        // SAFETY: between fork and exec only async-signal-safe calls: prctl and getppid, and an
        // error built from an errno (no allocation).
        unsafe {
            command.pre_exec(move || {
                nix::sys::prctl::set_pdeathsig(signal).map_err(io::Error::from)?;
                // The parent may have gone between the fork and the prctl: no signal would come.
                if nix::unistd::getppid() != parent {
                    return Err(io::Error::from(nix::errno::Errno::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent_death;
    let child = command.spawn()?;
    let id = child.id().map(GroupId);
    Ok(Group {
        child,
        id,
        reaped: false,
    })
}

/// Start a program that is to outlive this process (its own process group, nothing waited for,
/// no parent-death signal). Its stdio is the caller's to set (to null, usually).
pub fn spawn_detached(mut command: std::process::Command) -> io::Result<()> {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.spawn().map(drop)
}

impl Group {
    /// The child, for its pipes (`child_mut().stdin.take()`).
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The group, for signalling it from elsewhere; `None` if the child had exited before its
    /// pid was read.
    pub fn id(&self) -> Option<GroupId> {
        self.id
    }

    /// Wait for the leader to exit (cancel-safe). Others of its group may still run: see
    /// [`Group::kill`].
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await;
        self.reaped |= status.is_ok();
        status
    }

    /// SIGKILL to the group now: the leader if it still runs, and whatever it started that
    /// kept its group.
    pub fn kill(&mut self) {
        match self.id {
            Some(id) => id.kill(),
            None => {
                let _ = self.child.start_kill();
            }
        }
    }

    /// SIGTERM to the group, then SIGKILL to the group if the leader has not exited within
    /// `grace` (at once for a zero `grace`). Returns the leader's exit status.
    pub async fn stop(&mut self, grace: Duration) -> io::Result<ExitStatus> {
        if grace.is_zero() {
            self.kill();
            return self.wait().await;
        }
        match self.id {
            Some(id) => id.terminate(),
            None => {
                let _ = self.child.start_kill();
            }
        }
        match tokio::time::timeout(grace, self.wait()).await {
            Ok(status) => status,
            Err(_) => {
                self.kill();
                self.wait().await
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
        }
    }
}

/// Have the current process get `signal` when its parent (the thread that spawned it) ends:
/// for a process that cannot be spawned through [`spawn`] with the signal set (the sealed
/// view sets it first thing in its own `main`). Linux only; elsewhere nothing.
pub fn die_with_parent(signal: Signal) {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_pdeathsig(signal.nix());
    #[cfg(not(target_os = "linux"))]
    let _ = signal;
}

/// Whether process `pid` exists (also when it runs as another user). A zombie exists.
pub fn is_running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        use nix::errno::Errno;
        match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None) {
            Ok(()) | Err(Errno::EPERM) => true,
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        false
    }
}

/// A signal number as its name (`SIGKILL`), or `signal N` for one without a name here.
pub fn signal_name(number: i32) -> String {
    #[cfg(unix)]
    if let Ok(signal) = nix::sys::signal::Signal::try_from(number) {
        return signal.as_str().to_string();
    }
    format!("signal {number}")
}

/// Ask for a larger pipe (Linux's `F_SETPIPE_SZ`), as for an agent's stdout: a streaming
/// agent and its reader take fewer turns. Best effort: the kernel may refuse (per-user pipe
/// limits), and the default is fine then.
#[cfg(unix)]
pub fn widen_pipe(pipe: &impl std::os::fd::AsFd, bytes: i32) {
    #[cfg(target_os = "linux")]
    let _ = nix::fcntl::fcntl(pipe, nix::fcntl::FcntlArg::F_SETPIPE_SZ(bytes));
    #[cfg(not(target_os = "linux"))]
    let _ = (pipe, bytes);
}

#[cfg(all(test, unix))]
mod tests;
