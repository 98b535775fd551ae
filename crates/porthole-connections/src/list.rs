//! The connections file and its model.
