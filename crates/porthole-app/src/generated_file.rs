//! The files the window gets from this crate (TypeScript types, the mock's JSON fixtures) are
//! written by tests: with `PORTHOLE_BLESS=1` a test rewrites its file, otherwise it fails when the
//! file in the repository differs from what the code generates now.

use std::path::PathBuf;

/// Writes `content` to `relative` (from the repository root) when blessing; else checks it is
/// there unchanged, and names `bless` (the command that rewrites it) when it is not.
pub(crate) fn bless_or_compare(relative: &str, content: &str, bless: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        std::fs::write(&path, content).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(current == content, "{relative} is out of date; run `{bless}`");
}
