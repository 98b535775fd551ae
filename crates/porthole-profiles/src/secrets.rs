//! Sign-in values an agent needs in its environment (the API keys of `env_var` sign-in
//! methods), kept in the OS keyring (the Secret Service on Linux), never in a settings file.
//!
//! Each value is one keyring entry, service `porthole`, user `<agent id>:<VARIABLE>`. Which
//! variables are stored for which agent is kept beside the settings (`secret-names.json`, names
//! only) so the app knows what to read at spawn without searching the keyring; a name whose
//! entry is gone from the keyring (deleted in the desktop's keyring manager) is dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use keyring_core::{CredentialStore, Entry};
use serde::{Deserialize, Serialize};

const SERVICE: &str = "porthole";
const INDEX_FILE: &str = "secret-names.json";
/// Bigger than any API key or token, small enough that a paste accident is refused.
const MAX_VALUE_BYTES: usize = 16 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no OS keyring is available ({0}). Porthole keeps sign-in values only there; \
         start a keyring (on Linux: GNOME Keyring or KWallet's Secret Service), or set the \
         variable in Porthole's environment instead"
    )]
    Unavailable(String),
    #[error("the OS keyring refused: {0}")]
    Keyring(String),
    #[error("`{0}` is not a variable name Porthole sets for an agent")]
    BadName(String),
    #[error("the value of {0} is empty")]
    Empty(String),
    #[error("the value of {0} is longer than {MAX_VALUE_BYTES} bytes")]
    TooLong(String),
    #[error("{context}: {error}")]
    Index { context: String, error: String },
}

impl From<keyring_core::Error> for SecretError {
    fn from(e: keyring_core::Error) -> Self {
        match e {
            keyring_core::Error::NoStorageAccess(inner) => SecretError::Unavailable(inner.to_string()),
            other => SecretError::Keyring(other.to_string()),
        }
    }
}

/// The names stored per agent id.
#[derive(Default, Serialize, Deserialize)]
struct Index {
    agents: BTreeMap<String, Vec<String>>,
}

/// The agents' sign-in values in a keyring.
pub struct AgentSecrets {
    store: Arc<CredentialStore>,
    index_path: PathBuf,
}

impl AgentSecrets {
    /// The OS keyring, with the names index at `index_path`.
    pub fn os(index_path: PathBuf) -> Result<Self, SecretError> {
        let store = crate::keyring::os_store().map_err(|e| SecretError::Unavailable(e.0))?;
        Ok(Self::with_store(store, index_path))
    }

    /// Any keyring-core store (tests use the in-memory sample store).
    pub fn with_store(store: Arc<CredentialStore>, index_path: PathBuf) -> Self {
        Self { store, index_path }
    }

    /// `secret-names.json` in Porthole's config folder.
    pub fn default_index_path() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("porthole").join(INDEX_FILE))
    }

    /// Store `values` (variable name, value) for `agent_id`, replacing earlier ones of the same
    /// names. Nothing is stored unless every name and value is acceptable.
    pub fn set(&self, agent_id: &str, values: &[(String, String)]) -> Result<(), SecretError> {
        for (name, value) in values {
            if !crate::sign_in::valid_name(name) {
                return Err(SecretError::BadName(name.clone()));
            }
            if value.is_empty() {
                return Err(SecretError::Empty(name.clone()));
            }
            if value.len() > MAX_VALUE_BYTES {
                return Err(SecretError::TooLong(name.clone()));
            }
        }
        for (name, value) in values {
            self.entry(agent_id, name)?.set_password(value)?;
        }
        let mut index = self.read_index()?;
        let names = index.agents.entry(agent_id.to_string()).or_default();
        for (name, _) in values {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names.sort();
        self.write_index(&index)
    }

    /// Store the API key of `agent_id`'s sign-in method `method_id` (an API-key method, whose
    /// key is sent in `authenticate`, see `porthole_core::api_key`), replacing an earlier one. It is
    /// listed among the agent's names as `api-key:<method id>`, which is not a variable name:
    /// it is never set in the agent's environment, and [`AgentSecrets::forget`] deletes it too.
    pub fn set_api_key(&self, agent_id: &str, method_id: &str, key: &str) -> Result<(), SecretError> {
        let name = api_key_name(method_id)?;
        if key.is_empty() {
            return Err(SecretError::Empty(name));
        }
        if key.len() > MAX_VALUE_BYTES {
            return Err(SecretError::TooLong(name));
        }
        self.entry(agent_id, &name)?.set_password(key)?;
        let mut index = self.read_index()?;
        let names = index.agents.entry(agent_id.to_string()).or_default();
        if !names.contains(&name) {
            names.push(name);
        }
        names.sort();
        self.write_index(&index)
    }

    /// The API key stored for `agent_id`'s method `method_id`, if any. The keyring is opened
    /// only when the index lists one.
    pub fn api_key(&self, agent_id: &str, method_id: &str) -> Result<Option<String>, SecretError> {
        let name = api_key_name(method_id)?;
        if !self.names(agent_id).contains(&name) {
            return Ok(None);
        }
        match self.entry(agent_id, &name)?.get_password() {
            Ok(key) => Ok(Some(key)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The variable names stored for `agent_id` (from the index; values are not read).
    pub fn names(&self, agent_id: &str) -> Vec<String> {
        self.read_index()
            .ok()
            .and_then(|mut i| i.agents.remove(agent_id))
            .unwrap_or_default()
    }

    /// The stored values of `agent_id`, to set in its environment when it starts. Names whose
    /// entry is gone from the keyring are left out and dropped from the index.
    pub fn env_for(&self, agent_id: &str) -> Result<Vec<(String, String)>, SecretError> {
        let names = self.read_index()?.agents.remove(agent_id).unwrap_or_default();
        let mut env = Vec::new();
        let mut gone = Vec::new();
        // API keys (`api-key:<method>`) are sent in `authenticate`, never set in the environment.
        for name in names.into_iter().filter(|n| crate::sign_in::valid_name(n)) {
            match self.entry(agent_id, &name)?.get_password() {
                Ok(value) => env.push((name, value)),
                Err(keyring_core::Error::NoEntry) => gone.push(name),
                Err(e) => return Err(e.into()),
            }
        }
        if !gone.is_empty() {
            let mut index = self.read_index()?;
            if let Some(names) = index.agents.get_mut(agent_id) {
                names.retain(|n| !gone.contains(n));
                if names.is_empty() {
                    index.agents.remove(agent_id);
                }
            }
            self.write_index(&index)?;
        }
        Ok(env)
    }

    /// Delete every value stored for `agent_id`; returns the names deleted.
    pub fn forget(&self, agent_id: &str) -> Result<Vec<String>, SecretError> {
        let names = self.names(agent_id);
        for name in &names {
            match self.entry(agent_id, name)?.delete_credential() {
                Ok(()) | Err(keyring_core::Error::NoEntry) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut index = self.read_index()?;
        index.agents.remove(agent_id);
        self.write_index(&index)?;
        Ok(names)
    }

    fn entry(&self, agent_id: &str, name: &str) -> Result<Entry, SecretError> {
        Ok(Entry::new_in_store(
            &self.store,
            SERVICE,
            &format!("{agent_id}:{name}"),
        )?)
    }

    fn read_index(&self) -> Result<Index, SecretError> {
        read_index(&self.index_path)
    }

    fn write_index(&self, index: &Index) -> Result<(), SecretError> {
        let path = &self.index_path;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| index_error(dir, "cannot create", e))?;
        }
        let mut bytes = serde_json::to_vec_pretty(index).expect("plain data serializes");
        bytes.push(b'\n');
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, &bytes)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| index_error(path, "cannot write", e))
    }
}

/// The index name of an API-key method's key.
fn api_key_name(method_id: &str) -> Result<String, SecretError> {
    let fine = !method_id.is_empty()
        && method_id.len() <= 128
        && method_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fine {
        Ok(format!("{API_KEY_PREFIX}{method_id}"))
    } else {
        Err(SecretError::BadName(method_id.to_string()))
    }
}

/// How an API-key method's key is listed among an agent's stored names.
const API_KEY_PREFIX: &str = "api-key:";

/// Whether `names` (an agent's stored names, from [`stored_names`]) list a key for the API-key
/// method `method_id`: so a front end opens the keyring only when there is one to read.
pub fn lists_api_key(names: &[String], method_id: &str) -> bool {
    api_key_name(method_id).is_ok_and(|name| names.contains(&name))
}

/// The variable names stored per agent, read from the index alone (no keyring is opened): for
/// showing what is stored, and for not touching the keyring for agents with nothing stored.
pub fn stored_names(index_path: &Path) -> Result<BTreeMap<String, Vec<String>>, SecretError> {
    read_index(index_path).map(|i| i.agents)
}

fn read_index(path: &Path) -> Result<Index, SecretError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| SecretError::Index {
            context: format!("{} is damaged", path.display()),
            error: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Index::default()),
        Err(e) => Err(index_error(path, "cannot read", e)),
    }
}

fn index_error(path: &Path, what: &str, e: std::io::Error) -> SecretError {
    SecretError::Index {
        context: format!("{what} {}", path.display()),
        error: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(dir: &Path) -> AgentSecrets {
        let store = keyring_core::sample::Store::new().expect("in-memory sample store");
        AgentSecrets::with_store(store, dir.join(INDEX_FILE))
    }

    #[test]
    fn values_round_trip_and_only_names_reach_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = secrets(dir.path());
        s.set("codex", &[("OPENAI_API_KEY".into(), "sk-secret-1".into())])
            .unwrap();
        s.set("other", &[("TOKEN".into(), "t".into())]).unwrap();
        assert_eq!(
            s.env_for("codex").unwrap(),
            vec![("OPENAI_API_KEY".into(), "sk-secret-1".into())]
        );
        assert_eq!(s.names("other"), vec!["TOKEN".to_string()]);
        let file = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        assert!(
            file.contains("OPENAI_API_KEY") && !file.contains("sk-secret-1"),
            "{file}"
        );
        // A new value replaces the old one under the same name.
        s.set("codex", &[("OPENAI_API_KEY".into(), "sk-secret-2".into())])
            .unwrap();
        assert_eq!(s.env_for("codex").unwrap()[0].1, "sk-secret-2");
        assert_eq!(s.names("codex").len(), 1);
    }

    #[test]
    fn refused_names_and_values_store_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let s = secrets(dir.path());
        let good = ("GOOD_KEY".to_string(), "v".to_string());
        for bad in [
            ("LD_PRELOAD".to_string(), "x".to_string()),
            ("PATH".into(), "x".into()),
            ("1BAD".into(), "x".into()),
            ("EMPTY".into(), String::new()),
            ("BIG".into(), "x".repeat(MAX_VALUE_BYTES + 1)),
        ] {
            assert!(s.set("a", &[good.clone(), bad.clone()]).is_err(), "{}", bad.0);
        }
        assert!(s.names("a").is_empty());
        assert!(s.env_for("a").unwrap().is_empty());
    }

    #[test]
    fn forget_deletes_values_and_names_and_a_vanished_entry_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let s = secrets(dir.path());
        s.set("a", &[("K1".into(), "1".into()), ("K2".into(), "2".into())])
            .unwrap();
        // Deleted behind Porthole's back (e.g. in the desktop's keyring manager).
        s.entry("a", "K1").unwrap().delete_credential().unwrap();
        assert_eq!(s.env_for("a").unwrap(), vec![("K2".into(), "2".into())]);
        assert_eq!(s.names("a"), vec!["K2".to_string()]);
        assert_eq!(s.forget("a").unwrap(), vec!["K2".to_string()]);
        assert!(s.env_for("a").unwrap().is_empty());
        assert!(matches!(
            s.entry("a", "K2").unwrap().get_password(),
            Err(keyring_core::Error::NoEntry)
        ));
    }

    #[test]
    fn api_keys_are_kept_beside_the_variables_and_never_reach_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let s = secrets(dir.path());
        assert_eq!(s.api_key("gemini", "gemini-api-key").unwrap(), None);
        s.set("gemini", &[("GOOGLE_CLOUD_PROJECT".into(), "p".into())])
            .unwrap();
        s.set_api_key("gemini", "gemini-api-key", "key-1").unwrap();
        s.set_api_key("gemini", "gemini-api-key", "key-2").unwrap();
        assert_eq!(
            s.api_key("gemini", "gemini-api-key").unwrap().as_deref(),
            Some("key-2")
        );
        assert_eq!(s.api_key("gemini", "other").unwrap(), None);
        assert_eq!(s.api_key("codex", "gemini-api-key").unwrap(), None);
        assert_eq!(
            s.names("gemini"),
            vec![
                "GOOGLE_CLOUD_PROJECT".to_string(),
                "api-key:gemini-api-key".to_string()
            ]
        );
        // Only real variables go into the agent's environment.
        assert_eq!(
            s.env_for("gemini").unwrap(),
            vec![("GOOGLE_CLOUD_PROJECT".into(), "p".into())]
        );
        assert_eq!(s.names("gemini").len(), 2, "an API key is not taken as gone");
        let file = std::fs::read_to_string(dir.path().join(INDEX_FILE)).unwrap();
        assert!(!file.contains("key-2"), "{file}");
        assert!(lists_api_key(&s.names("gemini"), "gemini-api-key"));
        assert!(!lists_api_key(&s.names("gemini"), "other"));
        for bad in ["", "a:b", "a b", "../x"] {
            assert!(s.set_api_key("gemini", bad, "k").is_err(), "{bad:?}");
        }
        assert!(s.set_api_key("gemini", "m", "").is_err());
        assert_eq!(s.forget("gemini").unwrap().len(), 2);
        assert_eq!(s.api_key("gemini", "gemini-api-key").unwrap(), None);
    }

    #[test]
    fn a_damaged_index_is_an_error_not_an_empty_keyring() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(INDEX_FILE), "{ not json").unwrap();
        let s = secrets(dir.path());
        assert!(s.env_for("a").unwrap_err().to_string().contains("damaged"));
        let err = s.set("a", &[("K".into(), "v".into())]).unwrap_err();
        assert!(err.to_string().contains("damaged"), "{err}");
    }
}
