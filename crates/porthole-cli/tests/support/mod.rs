//! Helpers shared by the CLI's integration tests.

use std::path::PathBuf;

pub use porthole_test_bins::package_bin as workspace_bin;
