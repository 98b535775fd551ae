use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};

use super::*;

fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        // The shell's "Terminated" for a child the test stops is not the test's output.
        .stderr(Stdio::null());
    command
}

/// The first line the child printed.
async fn first_line(group: &mut Group) -> String {
    let stdout = group.child_mut().stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("the child printed within 10 s")
        .unwrap()
        .unwrap()
}

/// The process is gone: no such pid, or a zombie nobody reaped yet (it runs no more).
fn dead(pid: u32) -> bool {
    if !is_running(pid) {
        return true;
    }
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

async fn dies_within(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// The process group `pid` is in, from /proc.
fn pgid_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // pid (comm) state ppid pgrp ...
    let after = stat.rsplit(')').next().unwrap();
    after.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_child_leads_its_own_group_and_is_killed_with_its_grandchildren() {
    let mut group = spawn(sh("sleep 1000 & echo $!; wait"), None).unwrap();
    let leader = group.id().unwrap();
    let grandchild: u32 = first_line(&mut group).await.parse().unwrap();
    assert_eq!(pgid_of(leader.raw()), leader.raw(), "the child leads a new group");
    assert_ne!(leader.raw(), std::process::id());
    assert_eq!(pgid_of(grandchild), leader.raw(), "its children are in its group");

    group.kill();
    let status = tokio::time::timeout(Duration::from_secs(5), group.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9));
    assert!(
        dies_within(grandchild, Duration::from_secs(5)).await,
        "the grandchild died with the group"
    );
}

#[tokio::test]
async fn what_is_left_of_a_group_after_its_leader_exited_can_still_be_killed() {
    // The leader exits at once; its child keeps the group.
    let mut group = spawn(sh("sleep 1000 & echo $!"), None).unwrap();
    let grandchild: u32 = first_line(&mut group).await.parse().unwrap();
    assert!(group.wait().await.unwrap().success());
    assert!(!dead(grandchild));
    group.kill();
    assert!(dies_within(grandchild, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn dropping_a_group_never_waited_for_kills_it() {
    let mut group = spawn(sh("sleep 1000 & echo $!; wait"), None).unwrap();
    let grandchild: u32 = first_line(&mut group).await.parse().unwrap();
    drop(group);
    assert!(dies_within(grandchild, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn stop_asks_first_and_a_child_that_listens_exits_its_own_way() {
    let mut group = spawn(
        sh("trap 'exit 7' TERM; echo ready; while :; do sleep 0.05; done"),
        None,
    )
    .unwrap();
    first_line(&mut group).await;
    let started = Instant::now();
    let status = group.stop(Duration::from_secs(10)).await.unwrap();
    assert_eq!(status.code(), Some(7), "SIGTERM was handled: {status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn stop_kills_the_group_once_the_deadline_passed() {
    // Neither the shell nor its child listens to SIGTERM.
    let mut group = spawn(
        sh("trap '' TERM; sh -c \"trap '' TERM; sleep 1000\" & echo $!; while :; do sleep 0.05; done"),
        None,
    )
    .unwrap();
    let grandchild: u32 = first_line(&mut group).await.parse().unwrap();
    // Its trap is set once it printed; give the inner shell a moment to set its own.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let grace = Duration::from_millis(400);
    let started = Instant::now();
    let status = group.stop(grace).await.unwrap();
    let took = started.elapsed();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9));
    assert!(took >= grace, "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(dies_within(grandchild, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn a_zero_grace_kills_at_once() {
    let mut group = spawn(sh("trap '' TERM; echo ready; sleep 1000"), None).unwrap();
    first_line(&mut group).await;
    let status = group.stop(Duration::ZERO).await.unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9));
}

/// Spawns `sleep 1000` from a thread of its own that then ends, the group forgotten (so its
/// drop does not kill it); returns the child's pid.
fn spawn_from_a_thread_that_ends(parent_death: Option<Signal>) -> u32 {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut command = Command::new("sleep");
            command.arg("1000");
            let group = spawn(command, parent_death).unwrap();
            let pid = group.id().unwrap().raw();
            std::mem::forget(group);
            pid
        })
    })
    .join()
    .unwrap()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_child_tied_to_its_parent_gets_the_signal_when_the_spawning_thread_ends() {
    let tied = spawn_from_a_thread_that_ends(Some(Signal::Kill));
    let free = spawn_from_a_thread_that_ends(None);
    assert!(
        dies_within(tied, Duration::from_secs(5)).await,
        "PR_SET_PDEATHSIG ended the child"
    );
    assert!(!dead(free), "without it the child runs on");
    GroupId(free).kill();
    assert!(dies_within(free, Duration::from_secs(5)).await);
}

#[test]
fn signals_are_named() {
    assert_eq!(signal_name(9), "SIGKILL");
    assert_eq!(signal_name(15), "SIGTERM");
    assert_eq!(signal_name(1), "SIGHUP");
    assert_eq!(signal_name(200), "signal 200");
}

#[test]
fn a_pid_that_is_not_used_is_not_running() {
    assert!(is_running(std::process::id()));
    assert!(!is_running(i32::MAX as u32 - 1));
}
