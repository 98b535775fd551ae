//! The barrier that keeps wire order between the fast path (`hot_path`) and the SDK's
//! dispatch: the transport hands the SDK a private notification and waits until the
//! notification handler acknowledges it. Its own module so the connection's state can hold one
//! without importing the fast path (which imports the state).

use std::hash::{BuildHasher, Hasher};

use tokio::sync::watch;

/// The private notification that marks a point in the SDK's dispatch.
pub(crate) const BARRIER_METHOD: &str = "_porthole/barrier";

/// The connection's barrier: the transport asks, the notification handler acknowledges.
pub(crate) struct Barrier {
    /// Unguessable per connection, so an agent cannot acknowledge a barrier early.
    nonce: String,
    pub(super) acked: watch::Sender<u64>,
}

impl Barrier {
    pub(crate) fn new() -> Self {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_usize(&hasher as *const _ as usize);
        Self {
            nonce: format!("{:016x}", hasher.finish()),
            acked: watch::channel(0).0,
        }
    }

    pub(super) fn line(&self, seq: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"{BARRIER_METHOD}","params":{{"nonce":"{}","seq":{seq}}}}}"#,
            self.nonce
        )
    }

    /// Called by the notification handler when the SDK dispatches a barrier.
    pub(crate) fn ack(&self, params: &serde_json::Value) {
        if params.get("nonce").and_then(|n| n.as_str()) != Some(self.nonce.as_str()) {
            tracing::debug!("ignoring a {BARRIER_METHOD} notification that is not ours");
            return;
        }
        if let Some(seq) = params.get("seq").and_then(|s| s.as_u64()) {
            self.acked.send_modify(|acked| *acked = (*acked).max(seq));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_acks_only_its_own_nonce() {
        let barrier = Barrier::new();
        let line: serde_json::Value = serde_json::from_str(&barrier.line(3)).unwrap();
        barrier.ack(&serde_json::json!({"nonce": "0000", "seq": 9}));
        assert_eq!(*barrier.acked.borrow(), 0);
        barrier.ack(&line["params"]);
        assert_eq!(*barrier.acked.borrow(), 3);
    }
}
