//! A hostile agent swaps a *directory* on a workspace path between a real folder and a symlink
//! to outside while it asks to read or write a file under it. Confinement must hold for every
//! try: no read returns the outside file, no write lands outside, and no temporary file is left.
//!
//! `PORTHOLE_FS_RACE_TRIES` sets the number of tries of each kind (10,000 by default).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use porthole_core::fs_access::{FsError, read_text, write_text};

fn tries() -> usize {
    std::env::var("PORTHOLE_FS_RACE_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// `ws/sub` flips between the real folder (moved aside to `ws/.away` meanwhile) and a symlink
/// to `outside`, as fast as it can, until `stop` is set.
fn swapper(ws: PathBuf, outside: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let sub = ws.join("sub");
        let away = ws.join(".away");
        let mut flips = 0;
        // Each state is held for a moment, so checks and opens fall on both sides of a flip.
        let hold = || {
            let start = std::time::Instant::now();
            while start.elapsed() < std::time::Duration::from_micros(20) {
                std::hint::spin_loop();
            }
        };
        while !stop.load(Ordering::Relaxed) {
            std::fs::rename(&sub, &away).unwrap();
            std::os::unix::fs::symlink(&outside, &sub).unwrap();
            hold();
            std::fs::remove_file(&sub).unwrap();
            std::fs::rename(&away, &sub).unwrap();
            hold();
            flips += 1;
        }
        flips
    })
}

struct Race {
    ws: tempfile::TempDir,
    outside: tempfile::TempDir,
    roots: Vec<PathBuf>,
}

fn race() -> Race {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("sub")).unwrap();
    std::fs::write(ws.path().join("sub/file.txt"), "inside\n").unwrap();
    std::fs::write(outside.path().join("file.txt"), "OUTSIDE SECRET\n").unwrap();
    let roots = vec![ws.path().to_path_buf()];
    Race { ws, outside, roots }
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, top: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                walk(&path, top, found);
            } else {
                found.push(path.strip_prefix(top).unwrap().display().to_string());
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

#[test]
fn swapping_a_directory_on_the_path_never_lets_a_read_out() {
    let r = race();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = swapper(r.ws.path().into(), r.outside.path().into(), stop.clone());
    let path = r.ws.path().join("sub/file.txt");
    let (mut escapes, mut served, mut refused) = (0, 0, 0);
    for _ in 0..tries() {
        match read_text(&path, &r.roots, None, None) {
            Ok(text) if text.contains("OUTSIDE") => escapes += 1,
            Ok(_) => served += 1,
            Err(_) => refused += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flips.join().unwrap();
    eprintln!("reads: {escapes} escapes, {served} served, {refused} refused, {flips} swaps");
    assert_eq!(escapes, 0, "{escapes} reads returned the outside file");
    assert!(flips > 0, "the swapper never ran");
}

#[test]
fn swapping_a_directory_on_the_path_never_lets_a_write_out_or_leaves_a_temp_file() {
    let r = race();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = swapper(r.ws.path().into(), r.outside.path().into(), stop.clone());
    let path = r.ws.path().join("sub/new.txt");
    let (mut written, mut refused) = (0, 0);
    for i in 0..tries() {
        match write_text(&path, &r.roots, &format!("try {i}\n")) {
            Ok(()) => written += 1,
            Err(_) => refused += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = flips.join().unwrap();
    // Without the swapper the same write goes through (the race is what refused the others).
    write_text(&path, &r.roots, "settled\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "settled\n");
    let inside = files(r.ws.path());
    let outside = files(r.outside.path());
    eprintln!(
        "writes: {written} written, {refused} refused, {flips} swaps; files inside {}, outside {}",
        inside.len(),
        outside.len()
    );
    assert_eq!(outside, ["file.txt"], "a write landed outside the workspace");
    assert_eq!(inside, ["sub/file.txt", "sub/new.txt"], "temporary files left");
    assert!(flips > 0, "the swapper never ran");
}

#[test]
fn a_symlink_swapped_in_for_the_file_itself_is_not_followed_out() {
    let r = race();
    let path = r.ws.path().join("sub/file.txt");
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(r.outside.path().join("file.txt"), &path).unwrap();
    assert!(matches!(
        read_text(&path, &r.roots, None, None),
        Err(FsError::OutsideWorkspace(_))
    ));
}
