//! Replays the checked-in corpus (and any crash reproducers kept as regressions) through each
//! target with a stable toolchain: what CI runs when libFuzzer is not available.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        println!("{target}: {}", path.display());
        run(&data);
        count += 1;
    }
    assert!(count > 0, "no corpus for {target}");
}

#[test]
fn schema_validate_corpus() {
    replay("schema_validate", porthole_fuzz::schema_validate);
}

#[test]
fn url_analyze_corpus() {
    replay("url_analyze", porthole_fuzz::url_analyze);
}

#[test]
fn wire_corpus() {
    replay("wire", porthole_fuzz::wire);
}
