//! Saving a [`Plan`]: the connections list's own add path (`Connections::add` and `save`),
//! secrets first into the keyring (`SecretStore::set`), undone if the list cannot be written.

use std::path::Path;

use porthole_connections::list::Connections;
use porthole_connections::secrets::SecretStore;

use crate::form::Plan;

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("a connection named `{0}` exists already")]
    Taken(String),
    #[error("{0}")]
    List(#[from] porthole_connections::list::ListError),
    #[error("{0}")]
    Keyring(#[from] porthole_connections::secrets::SecretError),
    #[error("the server has secret values and no keyring was given")]
    NoKeyring,
    #[error("{0}")]
    Bundle(String),
}

/// Add `plan`'s connection to the list at `path`, its secrets to `store`; a bundle is
/// unpacked first (and removed again if the rest fails, unless it was there before).
pub fn save_plan(path: &Path, plan: &Plan, store: Option<&SecretStore>) -> Result<(), SaveError> {
    let mut list = Connections::load(path)?;
    let name = &plan.connection.name;
    if list.get(name).is_some() {
        return Err(SaveError::Taken(name.clone()));
    }
    if !plan.secrets.is_empty() && store.is_none() {
        return Err(SaveError::NoKeyring);
    }
    let unpacked = match &plan.bundle {
        Some(bundle) => bundle.run().map_err(SaveError::Bundle)?,
        None => false,
    };
    let undo = || {
        if let (true, Some(bundle)) = (unpacked, &plan.bundle) {
            bundle.undo();
        }
    };
    if let Some(store) = store.filter(|_| !plan.secrets.is_empty()) {
        for (i, (key, value)) in plan.secrets.iter().enumerate() {
            if let Err(e) = store.set(name, key, value) {
                forget(store, name, &plan.secrets[..i]);
                undo();
                return Err(e.into());
            }
        }
    }
    let saved = list.add(plan.connection.clone()).and_then(|()| list.save(path));
    if let Err(e) = saved {
        if let Some(store) = store {
            forget(store, name, &plan.secrets);
        }
        undo();
        return Err(e.into());
    }
    Ok(())
}

fn forget(store: &SecretStore, name: &str, secrets: &[(String, String)]) {
    for (key, _) in secrets {
        if let Err(e) = store.delete(name, key) {
            tracing::warn!("cannot remove {name}/{key} from the keyring: {e}");
        }
    }
}
