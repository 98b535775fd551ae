//! Adding agents from the ACP registry (list, install with progress, remove) and the sign-in
//! values of `env_var` methods kept in the OS keyring. `porthole-registry` and
//! `porthole-profiles`' `secrets` do the work; they block (downloads, D-Bus), so they run on the blocking pool.

use std::collections::BTreeMap;

use porthole_profiles::secrets::{self, AgentSecrets};
use porthole_profiles::sign_in;
use porthole_registry::{self as registry, Cancel, Installer, Progress, Status};

use super::app_event::AppEvent;
use super::results::{RegistryAgentView, RegistryListing};
use super::snapshot::API_KEY_FIELD;
use super::{AnswerError, Backend, launch};

fn index_path() -> Result<std::path::PathBuf, String> {
    AgentSecrets::default_index_path()
        .ok_or_else(|| "no config folder to keep the names of sign-in values in".into())
}

/// The stored sign-in values of `agent_id`, for its environment at start. An agent with none
/// stored never touches the keyring (no D-Bus call for most users).
pub(super) async fn sign_in_env(agent_id: &str) -> Result<Vec<(String, String)>, String> {
    let agent_id = agent_id.to_string();
    blocking(move || {
        let index = index_path()?;
        let stored = secrets::stored_names(&index).map_err(|e| e.to_string())?;
        if !stored.contains_key(&agent_id) {
            return Ok(Vec::new());
        }
        AgentSecrets::os(index)
            .and_then(|s| s.env_for(&agent_id))
            .map_err(|e| format!("the saved sign-in values could not be read: {e}"))
    })
    .await
}

/// The API keys saved for `agent_id`'s API-key methods: (method id, key). An agent with none
/// saved never touches the keyring.
pub(super) async fn saved_api_keys(
    agent_id: &str,
    methods: Vec<String>,
) -> Result<Vec<(String, String)>, String> {
    let agent_id = agent_id.to_string();
    blocking(move || {
        let index = index_path()?;
        let stored = secrets::stored_names(&index).map_err(|e| e.to_string())?;
        let Some(names) = stored.get(&agent_id) else {
            return Ok(Vec::new());
        };
        let methods: Vec<String> = methods
            .into_iter()
            .filter(|m| secrets::lists_api_key(names, m))
            .collect();
        if methods.is_empty() {
            return Ok(Vec::new());
        }
        let store = AgentSecrets::os(index).map_err(|e| e.to_string())?;
        let mut keys = Vec::new();
        for method in methods {
            if let Some(key) = store
                .api_key(&agent_id, &method)
                .map_err(|e| format!("the saved API key could not be read: {e}"))?
            {
                keys.push((method, key));
            }
        }
        Ok(keys)
    })
    .await
}

/// The variable names stored per shown agent (the snapshot's `storedSignIn`).
pub(super) fn stored_names(profiles: &[launch::Profile]) -> BTreeMap<String, Vec<String>> {
    let Some(Ok(mut all)) = AgentSecrets::default_index_path().map(|p| secrets::stored_names(&p)) else {
        return BTreeMap::new();
    };
    all.retain(|id, _| profiles.iter().any(|p| &p.id == id));
    all
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| format!("the task failed: {e}"))?
}

/// How to cancel an install under way: the install stops at its next step (`cancel`); the
/// waiting `install_agent` call returns at once (`wake`) after deleting what the install made.
#[derive(Clone, Default)]
pub(crate) struct InstallHandle {
    cancel: Cancel,
    wake: std::sync::Arc<tokio::sync::Notify>,
}

/// Takes an install out of the map when `install_agent` returns, however it returns.
struct Registered<'a> {
    backend: &'a Backend,
    id: String,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.backend.installs().remove(&self.id);
    }
}

fn installer() -> Result<Installer, String> {
    Installer::from_env().map_err(|e| e.to_string())
}

impl Backend {
    /// The registry's agents with whether each is installed here, for the "Add agent" view.
    pub async fn registry_agents(&self) -> Result<RegistryListing, AnswerError> {
        blocking(|| {
            let fetched = registry::load_registry(
                &registry::registry_source(),
                registry::default_cache_dir().as_deref(),
            )
            .map_err(|e| e.to_string())?;
            let installed = installer()?.installed().map_err(|e| e.to_string())?;
            let target = registry::current_target();
            let agents = fetched
                .registry
                .agents
                .iter()
                .map(|a| RegistryAgentView {
                    id: a.id.clone(),
                    name: a.name.clone(),
                    version: a.version.clone(),
                    description: a.description.clone(),
                    icon: a.icon.clone(),
                    website: a.website.clone(),
                    license: a.license.clone(),
                    kind: a.kind_for(target).map(|k| k.to_string()),
                    status: Status::of(a, &installed),
                })
                .collect();
            Ok(RegistryListing {
                source: fetched.source,
                offline: fetched.offline,
                problems: fetched.registry.problems,
                agents,
            })
        })
        .await
        .map_err(AnswerError::msg)
    }

    /// A registry icon as a `data:` URL (see core's `registry::icon_data_url`).
    pub async fn registry_icon(&self, url: String) -> Result<String, AnswerError> {
        blocking(move || {
            registry::icon_data_url(&url, &registry::registry_source()).map_err(|e| e.to_string())
        })
        .await
        .map_err(AnswerError::msg)
    }

    fn installs(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, InstallHandle>> {
        self.0.installs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cancel the install of `registry_id` under way: its `install_agent` call fails with
    /// "cancelled" at once, what it had made is deleted, and what was installed before stays.
    /// `false` when no install of that agent is under way.
    pub fn cancel_install(&self, registry_id: &str) -> bool {
        let Some(handle) = self.installs().get(registry_id).cloned() else {
            return false;
        };
        handle.cancel.cancel();
        handle.wake.notify_one();
        true
    }

    /// Install (or update) a registry agent; progress arrives as `install_progress` events.
    /// Returns the id of its profile, which the sidebar now lists. [`Backend::cancel_install`]
    /// ends it.
    pub async fn install_agent(&self, registry_id: String) -> Result<String, AnswerError> {
        let handle = InstallHandle::default();
        {
            let mut installs = self.installs();
            if installs.contains_key(&registry_id) {
                return Err(AnswerError::msg(format!(
                    "`{registry_id}` is being installed already"
                )));
            }
            installs.insert(registry_id.clone(), handle.clone());
        }
        let _registered = Registered {
            backend: self,
            id: registry_id.clone(),
        };
        let this = self.clone();
        let id = registry_id.clone();
        let cancel = handle.cancel.clone();
        let work = blocking(move || {
            let fetched = registry::load_registry(
                &registry::registry_source(),
                registry::default_cache_dir().as_deref(),
            )
            .map_err(|e| e.to_string())?;
            let agent = fetched
                .registry
                .agent(&id)
                .ok_or_else(|| format!("no agent `{id}` in the registry"))?
                .clone();
            let installer = installer()?;
            // At most ~30 progress events a second reach the window.
            let mut last: Option<std::time::Instant> = None;
            installer
                .install_cancellable(
                    &agent,
                    &mut |p| {
                        let done =
                            matches!(p, Progress::Downloading { done, total: Some(total) } if done == total);
                        if done || last.is_none_or(|t| t.elapsed() >= std::time::Duration::from_millis(33)) {
                            last = Some(std::time::Instant::now());
                            this.push_app(AppEvent::InstallProgress {
                                registry_id: id.clone(),
                                progress: p.into(),
                            });
                            this.0.flush_now.notify_one();
                        }
                    },
                    &cancel,
                )
                .map_err(|e| e.to_string())
        });
        let outcome = tokio::select! {
            outcome = work => outcome.map_err(AnswerError::msg)?,
            _ = handle.wake.notified() => {
                // The install may be blocked in a read of a stalled download: not waited for.
                // It stops at its next step; what it made so far goes now.
                handle.cancel.clean_up();
                return Err(AnswerError::msg(registry::RegistryError::Cancelled.to_string()));
            }
        };
        tracing::info!("registry agent {registry_id}: {outcome:?}");
        let profile_id = self.reload_agents(Some(&registry_id));
        // An updated agent that is connected runs the new version from its next start.
        if let Some(id) = &profile_id
            && matches!(outcome, registry::InstallOutcome::Updated { .. })
            && self.state().conns.contains_key(id)
        {
            self.connect(id, Some(self.0.launch.cwd.clone()));
        }
        profile_id.ok_or_else(|| AnswerError::msg("the agent was installed but is not in the agent list"))
    }

    /// Remove an installed registry agent: disconnect it, delete its files and its sign-in values.
    pub async fn remove_agent(&self, registry_id: String) -> Result<(), AnswerError> {
        let profile_id = self
            .profiles()
            .into_iter()
            .find(|p| p.registry.as_ref().is_some_and(|r| r.id == registry_id))
            .map(|p| p.id);
        if let Some(id) = &profile_id {
            self.disconnect_quietly(id).await;
        }
        let id = registry_id.clone();
        blocking(move || installer()?.remove(&id).map(drop).map_err(|e| e.to_string()))
            .await
            .map_err(AnswerError::msg)?;
        if let Some(id) = profile_id {
            let _ = self.forget_sign_in(&id).await;
        }
        self.reload_agents(None);
        Ok(())
    }

    /// Store the values the user typed for an `env_var` sign-in method in the OS keyring, then
    /// restart the agent with them in its environment (that is how such a method signs in).
    /// For an API-key method the one value (`api-key`) is sent in `authenticate` at once, and
    /// kept in the OS keyring for the next start; with none, `authenticate` goes without a key
    /// (the agent may have its own).
    pub async fn save_sign_in(
        &self,
        agent_id: &str,
        method_id: &str,
        values: BTreeMap<String, String>,
    ) -> Result<(), AnswerError> {
        let client = self.client_of_agent(agent_id)?;
        if client.api_key_method(method_id).is_some() {
            return self
                .sign_in_with_api_key(agent_id, &client, method_id, values)
                .await;
        }
        let method = sign_in::env_var_methods(client.raw_auth_methods())
            .into_iter()
            .find(|m| m.id == method_id)
            .ok_or_else(|| {
                AnswerError::msg(format!("`{method_id}` is not a sign-in method that takes values"))
            })?;
        let mut to_store = Vec::new();
        for var in &method.vars {
            match values.get(&var.name).map(|v| v.trim()) {
                Some(v) if !v.is_empty() => to_store.push((var.name.clone(), v.to_string())),
                _ if var.optional => {}
                _ => return Err(AnswerError::msg(format!("{} is required", var.label))),
            }
        }
        if let Some(extra) = values.keys().find(|k| !method.vars.iter().any(|v| &v.name == *k)) {
            return Err(AnswerError::msg(format!(
                "`{extra}` is not asked for by this method"
            )));
        }
        let id = agent_id.to_string();
        blocking(move || {
            AgentSecrets::os(index_path()?)
                .and_then(|s| s.set(&id, &to_store))
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(AnswerError::msg)?;
        self.connect(agent_id, Some(self.0.launch.cwd.clone()));
        Ok(())
    }

    async fn sign_in_with_api_key(
        &self,
        agent_id: &str,
        client: &porthole_core::AgentClient,
        method_id: &str,
        values: BTreeMap<String, String>,
    ) -> Result<(), AnswerError> {
        if let Some(extra) = values.keys().find(|k| k.as_str() != API_KEY_FIELD) {
            return Err(AnswerError::msg(format!(
                "`{extra}` is not asked for by this method"
            )));
        }
        let key = values
            .get(API_KEY_FIELD)
            .map(|v| v.trim().to_string())
            .filter(|k| !k.is_empty());
        match &key {
            Some(key) => client.authenticate_with_api_key(method_id, key).await?,
            None => client.authenticate(method_id).await?,
        }
        if let Some(conn) = self.state().conns.get_mut(agent_id) {
            conn.needs_auth = false;
            conn.error = None;
            conn.sign_in_problem = None;
        }
        let Some(key) = key else {
            self.push_snapshot();
            return Ok(());
        };
        // Signed in for this run whatever happens; the keyring keeps the key for the next.
        let (id, method) = (agent_id.to_string(), method_id.to_string());
        let saved = blocking(move || {
            AgentSecrets::os(index_path()?)
                .and_then(|s| s.set_api_key(&id, &method, &key))
                .map_err(|e| e.to_string())
        })
        .await;
        if let (Err(problem), Some(conn)) = (saved, self.state().conns.get_mut(agent_id)) {
            conn.sign_in_problem = Some(format!(
                "Signed in for now; the key was not kept for the next start: {problem}"
            ));
        }
        self.push_snapshot();
        Ok(())
    }

    /// Delete the stored sign-in values of an agent from the keyring.
    pub async fn forget_sign_in(&self, agent_id: &str) -> Result<(), AnswerError> {
        let id = agent_id.to_string();
        blocking(move || {
            let index = index_path()?;
            if !secrets::stored_names(&index)
                .map_err(|e| e.to_string())?
                .contains_key(&id)
            {
                return Ok(());
            }
            AgentSecrets::os(index)
                .and_then(|s| s.forget(&id))
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(AnswerError::msg)?;
        self.push_snapshot();
        Ok(())
    }

    /// Re-read agents.json and the installed agents; returns the profile id of `registry_id`.
    fn reload_agents(&self, registry_id: Option<&str>) -> Option<String> {
        let (user_agents, _problems) = launch::user_agents(self.0.launch.settings_path.as_deref());
        let mut profiles: Vec<launch::Profile> = self
            .0
            .launch
            .profiles
            .iter()
            .filter(|p| p.built_in || p.id == launch::COMMAND_LINE_ID)
            .cloned()
            .collect();
        profiles.extend(user_agents);
        let found = registry_id.and_then(|rid| {
            profiles
                .iter()
                .find(|p| p.registry.as_ref().is_some_and(|r| r.id == rid))
                .map(|p| p.id.clone())
        });
        *self.0.profiles.lock().unwrap_or_else(|p| p.into_inner()) = profiles;
        self.push_snapshot();
        found
    }

    pub(super) fn set_sign_in_problem(&self, agent_id: &str, generation: u64, problem: Option<String>) {
        // Sign-in stops here: the window names the log (the callers log what is safe to).
        let problem = problem.map(porthole_core::logging::with_log_hint);
        if let Some(conn) = self
            .state()
            .conns
            .get_mut(agent_id)
            .filter(|c| c.generation == generation)
        {
            conn.sign_in_problem = problem;
        }
    }
}
