//! Helpers shared by the CLI's integration tests.

pub use porthole_test_bins::package_bin as workspace_bin;
