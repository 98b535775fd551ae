//! Connection secrets (a server's token variable, an `Authorization` header, OAuth tokens) in
//! the OS keyring (the Secret Service on Linux), never in the connections file.
//!
//! Each value is one keyring entry, service `porthole-connections`, user `<connection>/<key>`.
//! The file marks a secret value `{"secret": true}`; its key is [`env_key`] for a variable and
//! [`header_key`] for a header. The OAuth sign-in stores its tokens under its own keys (`oauth`).
//!
//! No value ever appears in an error (keyring-core's errors that carry stored bytes are reduced
//! to words here) or in a log line.

use std::sync::Arc;

use keyring_core::{CredentialStore, Entry};

const SERVICE: &str = "porthole-connections";
/// Bigger than any token (OAuth tokens with their refresh token included), small enough that
/// a paste accident is refused.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;
const MAX_KEY_CHARS: usize = 128;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no OS keyring is available ({0}). Porthole keeps connection secrets only there; start a \
         keyring (on Linux: GNOME Keyring or KWallet's Secret Service)"
    )]
    Unavailable(String),
    #[error("the OS keyring refused: {0}")]
    Keyring(String),
    #[error("the OS keyring holds a damaged value for {0}")]
    Damaged(String),
    #[error("`{0}` is not a connection name secrets can be kept for")]
    BadConnection(String),
    #[error("`{0}` is not a secret key (1 to {MAX_KEY_CHARS} visible characters, no spaces)")]
    BadKey(String),
    #[error("the value of {0} is empty")]
    Empty(String),
    #[error("the value of {0} is longer than {MAX_VALUE_BYTES} bytes")]
    TooLong(String),
}

/// The keyring key of the secret environment variable `name`.
pub fn env_key(name: &str) -> String {
    format!("env:{name}")
}

/// The keyring key of the secret header `name` (header names are case-insensitive: lower case).
pub fn header_key(name: &str) -> String {
    format!("header:{}", name.to_ascii_lowercase())
}

/// The connections' secrets in a keyring.
pub struct SecretStore {
    store: Arc<CredentialStore>,
}

impl SecretStore {
    /// The OS keyring.
    pub fn os() -> Result<Self, SecretError> {
        let store = porthole_profiles::keyring::os_store().map_err(|e| SecretError::Unavailable(e.0))?;
        Ok(Self::with_store(store))
    }

    /// Any keyring-core store (tests use `keyring_core::sample::Store`).
    pub fn with_store(store: Arc<CredentialStore>) -> Self {
        Self { store }
    }

    /// The value kept for `connection`'s `key`, if any.
    pub fn get(&self, connection: &str, key: &str) -> Result<Option<String>, SecretError> {
        let entry = self.entry(connection, key)?;
        match entry.get_password() {
            Ok(value) => Ok(Some(value)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(error(e, connection, key)),
        }
    }

    /// Keep `value` for `connection`'s `key`, replacing an earlier one.
    pub fn set(&self, connection: &str, key: &str, value: &str) -> Result<(), SecretError> {
        let entry = self.entry(connection, key)?;
        if value.is_empty() {
            return Err(SecretError::Empty(format!("{connection}/{key}")));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Err(SecretError::TooLong(format!("{connection}/{key}")));
        }
        entry.set_password(value).map_err(|e| error(e, connection, key))
    }

    /// Forget `connection`'s `key`; one that is not there is fine.
    pub fn delete(&self, connection: &str, key: &str) -> Result<(), SecretError> {
        match self.entry(connection, key)?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(e) => Err(error(e, connection, key)),
        }
    }

    fn entry(&self, connection: &str, key: &str) -> Result<Entry, SecretError> {
        if !crate::names::valid_name(connection) {
            return Err(SecretError::BadConnection(connection.to_string()));
        }
        let key_fine = !key.is_empty()
            && key.chars().count() <= MAX_KEY_CHARS
            && key.chars().all(|c| c.is_ascii_graphic());
        if !key_fine {
            return Err(SecretError::BadKey(key.to_string()));
        }
        Entry::new_in_store(&self.store, SERVICE, &format!("{connection}/{key}"))
            .map_err(|e| error(e, connection, key))
    }
}

/// keyring-core's error in words, without the stored bytes some of its variants carry.
fn error(e: keyring_core::Error, connection: &str, key: &str) -> SecretError {
    use keyring_core::Error as E;
    match e {
        E::NoStorageAccess(inner) => SecretError::Unavailable(inner.to_string()),
        E::NoDefaultStore => SecretError::Unavailable("no keyring store is set up".into()),
        E::BadEncoding(_) | E::BadDataFormat(..) => SecretError::Damaged(format!("{connection}/{key}")),
        E::PlatformFailure(inner) => SecretError::Keyring(inner.to_string()),
        E::Ambiguous(entries) => {
            SecretError::Keyring(format!("{} entries match {connection}/{key}", entries.len()))
        }
        E::NoEntry => SecretError::Keyring(format!("no entry for {connection}/{key}")),
        other => SecretError::Keyring(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> SecretStore {
        SecretStore::with_store(keyring_core::sample::Store::new().expect("in-memory sample store"))
    }

    #[test]
    fn values_round_trip_per_connection_and_key() {
        let s = store();
        assert_eq!(s.get("github", "oauth").unwrap(), None);
        s.set("github", "oauth", "fake-token-1").unwrap();
        s.set("github", &env_key("GITHUB_TOKEN"), "fake-token-2").unwrap();
        s.set("files", "oauth", "fake-token-3").unwrap();
        assert_eq!(s.get("github", "oauth").unwrap().as_deref(), Some("fake-token-1"));
        assert_eq!(
            s.get("github", "env:GITHUB_TOKEN").unwrap().as_deref(),
            Some("fake-token-2")
        );
        s.set("github", "oauth", "fake-token-4").unwrap();
        assert_eq!(s.get("github", "oauth").unwrap().as_deref(), Some("fake-token-4"));
        s.delete("github", "oauth").unwrap();
        s.delete("github", "oauth").unwrap();
        assert_eq!(s.get("github", "oauth").unwrap(), None);
        assert_eq!(s.get("files", "oauth").unwrap().as_deref(), Some("fake-token-3"));
    }

    #[test]
    fn header_keys_ignore_case() {
        assert_eq!(header_key("Authorization"), header_key("authorization"));
        assert_eq!(env_key("API_KEY"), "env:API_KEY");
    }

    #[test]
    fn refusals_name_the_entry_never_the_value() {
        let s = store();
        let big = "fake-secret-".repeat(MAX_VALUE_BYTES / 12 + 1);
        let errors = [
            s.set("github", "oauth", "").unwrap_err(),
            s.set("github", "oauth", &big).unwrap_err(),
            s.set("", "oauth", "fake-secret").unwrap_err(),
            s.set("a/b", "oauth", "fake-secret").unwrap_err(),
            s.set("github", "", "fake-secret").unwrap_err(),
            s.set("github", "with space", "fake-secret").unwrap_err(),
            s.get("github", "line\nbreak").unwrap_err(),
        ];
        for e in &errors {
            assert!(!e.to_string().contains("fake-secret"), "{e}");
        }
        assert!(errors[1].to_string().contains("github/oauth"), "{}", errors[1]);
        assert_eq!(s.get("github", "oauth").unwrap(), None, "nothing was kept");
    }
}
