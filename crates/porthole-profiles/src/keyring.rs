//! The OS keyring, opened once here for every kind of secret Porthole keeps (the agents'
//! sign-in values in [`crate::secrets`], porthole-connections' connection secrets).

use std::sync::Arc;

use keyring_core::CredentialStore;

/// No OS keyring could be opened; the reason, in the store's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

/// The OS keyring: the Secret Service on Linux.
#[cfg(target_os = "linux")]
pub fn os_store() -> Result<Arc<CredentialStore>, Unavailable> {
    let store = zbus_secret_service_keyring_store::Store::new().map_err(|e| Unavailable(e.to_string()))?;
    Ok(store)
}

/// The OS keyring: none is supported on this platform yet.
#[cfg(not(target_os = "linux"))]
pub fn os_store() -> Result<Arc<CredentialStore>, Unavailable> {
    Err(Unavailable(
        "only the Linux Secret Service is supported in this build".into(),
    ))
}
