//! The file itself: schema versions, damage, several writers.

use std::path::PathBuf;

use rusqlite::Connection;

use super::*;

fn user_version(path: &Path) -> i64 {
    let conn = Connection::open(path).unwrap_or_else(|e| panic!("{e}"));
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A file made by hand, the way another tool or an older build would have left it.
fn hand_made(path: &Path, sql: &str) {
    let conn = Connection::open(path).unwrap_or_else(|e| panic!("{e}"));
    conn.execute_batch(sql).unwrap_or_else(|e| panic!("{e}"));
}

fn corrupt_copies(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.to_string_lossy().contains(".corrupt-"));
    found.sort();
    found
}

/// Deterministic noise (xorshift), so the test needs no RNG crate.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn migrates_a_version_0_file() {
    let dir = temp_dir();
    let path = dir.path().join("h.sqlite3");
    hand_made(
        &path,
        "CREATE TABLE unrelated (x); INSERT INTO unrelated VALUES (1);",
    );
    assert_eq!(user_version(&path), 0);
    let store = open(&path).store;
    assert_eq!(user_version(&path), 1);
    ok(store.record(&url_entry(
        "a",
        "https://example.com/",
        ElicitationOutcome::Accept,
    )));
    assert_eq!(all(&store).total, 1);
}

#[test]
fn opens_a_hand_made_version_1_file_and_upgrades_it_to_a_next_version() {
    let dir = temp_dir();
    let path = dir.path().join("h.sqlite3");
    hand_made(
        &path,
        &format!(
            "{}
             INSERT INTO entries (time_ms, agent_id, agent_name, kind, message, url, domain, action)
             VALUES (5, 'a', 'Agent A', 'url', 'Sign in', 'https://example.com/', 'example.com', 'accept');
             PRAGMA user_version = 1;",
            schema::MIGRATIONS[0]
        ),
    );
    {
        let store = open(&path).store;
        let page = all(&store);
        assert_eq!(page.total, 1);
        assert_eq!(page.entries[0].warnings, Vec::<String>::new());
        assert_eq!(
            ok(store.domain_memory("a", "Agent A", "example.com")).times_opened,
            1
        );
    }
    // What a version 2 would be: one more migration, applied once, keeping the rows.
    let v2 = "ALTER TABLE entries ADD COLUMN note TEXT;";
    let mut conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    ok(schema::migrate(&mut conn, &[schema::MIGRATIONS[0], v2]));
    ok(schema::migrate(&mut conn, &[schema::MIGRATIONS[0], v2]));
    drop(conn);
    assert_eq!(user_version(&path), 2);
    let conn = Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let (n, note): (i64, Option<String>) = conn
        .query_row("SELECT COUNT(*), MAX(note) FROM entries", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((n, note), (1, None));
}

#[test]
fn a_file_from_a_newer_version_is_left_alone() {
    let dir = temp_dir();
    let path = dir.path().join("h.sqlite3");
    hand_made(&path, "CREATE TABLE future (x); PRAGMA user_version = 9;");
    match HistoryStore::open(&path) {
        Err(HistoryError::Newer { found: 9, known: 1 }) => {}
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a newer file must not be opened"),
    }
    assert_eq!(user_version(&path), 9);
    assert!(corrupt_copies(dir.path()).is_empty(), "nothing moved aside");
}

#[test]
fn a_corrupt_file_is_moved_aside_and_replaced() {
    let dir = temp_dir();
    let path = dir.path().join("history.sqlite3");
    let garbage = noise(8192);
    std::fs::write(&path, &garbage).unwrap_or_else(|e| panic!("{e}"));

    let opened = open(&path);
    let notice = opened.notice.clone().unwrap_or_default();
    let copies = corrupt_copies(dir.path());
    assert_eq!(copies.len(), 1, "{copies:?}");
    let aside = &copies[0];
    let name = aside.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    assert!(name.starts_with("history.sqlite3.corrupt-"), "{name}");
    assert_eq!(
        std::fs::read(aside).unwrap_or_default(),
        garbage,
        "kept byte for byte"
    );
    assert!(notice.contains(&aside.display().to_string()), "{notice}");

    ok(opened.store.record(&url_entry(
        "a",
        "https://example.com/",
        ElicitationOutcome::Accept,
    )));
    assert_eq!(all(&opened.store).total, 1);
    drop(opened);
    // The new file is healthy: it opens again without a notice.
    assert_eq!(open(&path).notice, None);
}

#[test]
fn a_damaged_page_behind_a_valid_header_is_caught_at_open() {
    let dir = temp_dir();
    let path = dir.path().join("history.sqlite3");
    {
        let store = open(&path).store;
        for i in 0..200 {
            ok(store.record(&url_entry(
                "a",
                &format!("https://example.com/{i}"),
                ElicitationOutcome::Accept,
            )));
        }
        // Fold the WAL into the main file so the damage below hits real pages.
        let conn = store.conn();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut bytes = std::fs::read(&path).unwrap_or_default();
    assert!(bytes.len() > 4096 * 3, "{}", bytes.len());
    // Keep page 1 (the header and schema), wreck the rest.
    let tail = bytes.len() - 4096;
    bytes[4096..].copy_from_slice(&noise(tail));
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let opened = open(&path);
    assert!(opened.notice.is_some());
    assert_eq!(all(&opened.store).total, 0);
}

#[test]
fn two_instances_write_interleaved_without_losing_rows() {
    let dir = temp_dir();
    let path = dir.path().join("shared.sqlite3");
    let first = open(&path).store;
    let second = open(&path).store;
    let mode: String = first
        .conn()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap_or_default();
    assert_eq!(mode, "wal");
    const EACH: usize = 150;
    std::thread::scope(|s| {
        for (agent_id, store) in [("one", &first), ("two", &second)] {
            s.spawn(move || {
                for i in 0..EACH {
                    let entry = url_entry(
                        agent_id,
                        &format!("https://example.com/{i}"),
                        ElicitationOutcome::Accept,
                    );
                    ok(store.record(&entry));
                    // Read through the same connection in between, like the app's queries.
                    if i % 10 == 0 {
                        ok(store.domain_memory(agent_id, agent_id, "example.com"));
                    }
                }
            });
        }
    });
    let page = all(&second);
    assert_eq!(page.total, 2 * EACH as u64);
    for agent_id in ["one", "two"] {
        let mut urls: Vec<String> = page
            .entries
            .iter()
            .filter(|e| e.agent_id == agent_id)
            .filter_map(|e| e.url.clone())
            .collect();
        urls.sort();
        let mut expected: Vec<String> = (0..EACH).map(|i| format!("https://example.com/{i}")).collect();
        expected.sort();
        assert_eq!(urls, expected, "{agent_id}");
    }
}

#[test]
fn file_stamps_are_utc() {
    assert_eq!(file_stamp(0), "19700101-000000");
    assert_eq!(file_stamp(1_764_755_400_123), "20251203-095000");
}
