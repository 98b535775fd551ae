//! The bodies of Porthole's fuzz targets. `fuzz_targets/*.rs` hand libFuzzer's input to these
//! functions; `tests/corpus.rs` replays the checked-in corpus through them with a stable
//! toolchain, so the same code runs in CI without nightly or libFuzzer.
//!
//! Every target panics when an invariant is broken, which libFuzzer reports as a crash.

mod schema;
mod url;
mod wire;

pub use schema::schema_validate;
pub use url::url_analyze;
pub use wire::wire;
