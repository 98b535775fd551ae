//! The MCP Registry in the window ("Add from the registry…"): the same engine as `porthole-cli
//! mcp search` / `mcp add --from-registry` (`porthole-mcp-registry`), called from here.
//!
//! Each registry's copy opens at once (kept in memory, else read from the disk cache) and is
//! brought up to date in the background with `updated_since` (at most every
//! [`REFRESH_EVERY`]); `mcp_registry_refreshed` tells the window to search again. A registry
//! with no copy at all is waited for until its first page only; the rest fills the copy in
//! behind (`filling`). Search runs over the copies (names, titles, descriptions; the registry
//! itself searches names only), a page at a time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use porthole_mcp_registry::{self as engine, AddForm, Cached, Entry, Registry};
use serde_json::{Map, Value};

use crate::agents::blocking;
use crate::app_event::AppEvent;
use crate::mcp::{file, load};
use crate::mcp_registry_view::{
    McpRegistryAdded, McpRegistryBundle, McpRegistryCheck, McpRegistryChoice, McpRegistryForm,
    McpRegistryResults, McpRegistrySignIn, McpRegistryState, entry_view,
};
use crate::mcp_sign_in::SignInBegun;
use crate::{AnswerError, Backend};

/// How long a copy counts as fresh before a search starts a background refresh.
const REFRESH_EVERY: Duration = Duration::from_secs(10 * 60);
/// How long a registry that could not be read is not asked again.
const RETRY_AFTER: Duration = Duration::from_secs(30);
/// Entries a page of results holds.
pub const PAGE: usize = 30;

/// The registries' copies this run has, by base address.
#[derive(Default)]
pub(crate) struct Copies {
    by_base: Mutex<HashMap<String, Copy>>,
    /// Held while a registry without any copy is fetched, so typing does not start a fetch a
    /// key.
    first_fetch: tokio::sync::Mutex<()>,
}

#[derive(Default, Clone)]
struct Copy {
    cached: Option<Arc<Cached>>,
    refreshing: bool,
    /// The first reading is under way: `cached` holds the pages read so far.
    filling: bool,
    refreshed: Option<Instant>,
    problem: Option<String>,
}

fn cache_dir() -> Option<PathBuf> {
    porthole_registry::default_cache_dir()
}

/// The registry addresses to read: `PORTHOLE_MCP_REGISTRY_URL` when set (as the CLI), else the
/// settings' list (default the official one).
pub(crate) fn addresses(settings: &crate::settings::Settings) -> Vec<String> {
    if std::env::var(engine::REGISTRY_URL_ENV).is_ok_and(|v| !v.trim().is_empty()) {
        return engine::registry_addresses();
    }
    if settings.mcp_registries.is_empty() {
        vec![engine::OFFICIAL.to_string()]
    } else {
        settings.mcp_registries.clone()
    }
}

/// Page `hits` from the offset `cursor` names.
fn page<T: Clone>(hits: &[T], cursor: Option<&str>) -> Result<(Vec<T>, Option<String>), AnswerError> {
    let from = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| AnswerError::msg("not a cursor of these results"))?,
    };
    let to = (from + PAGE).min(hits.len());
    let shown = hits.get(from..to).map(<[T]>::to_vec).unwrap_or_default();
    let next = (to < hits.len()).then(|| to.to_string());
    Ok((shown, next))
}

impl Backend {
    fn copies(&self) -> std::sync::MutexGuard<'_, HashMap<String, Copy>> {
        self.0
            .mcp_registry
            .by_base
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The registries of the settings, each with the bearer token kept for it (an
    /// organisation's; the official one is read without).
    fn mcp_registries(&self) -> Result<Vec<Registry>, AnswerError> {
        addresses(&self.settings())
            .iter()
            .map(|a| {
                let plain = Registry::new(a, None).map_err(|e| AnswerError::msg(e.to_string()))?;
                if plain.base() == engine::OFFICIAL {
                    return Ok(plain);
                }
                let token = self.connector().keyring().ok().and_then(|(secrets, _)| {
                    secrets
                        .get(engine::TOKEN_OWNER, &engine::token_key(plain.base()))
                        .ok()
                        .flatten()
                });
                Registry::new(a, token).map_err(|e| AnswerError::msg(e.to_string()))
            })
            .collect()
    }

    fn registry(&self, base: &str) -> Result<Registry, AnswerError> {
        self.mcp_registries()?
            .into_iter()
            .find(|r| r.base() == base.trim_end_matches('/'))
            .ok_or_else(|| AnswerError::msg(format!("`{base}` is not one of the registries in the settings")))
    }

    /// The copy of `registry`: this run's, else the disk's (a refresh starts behind it), else
    /// fetched now.
    async fn copy_of(&self, registry: &Registry) -> Option<Arc<Cached>> {
        let base = registry.base().to_string();
        // Bound first: the lock is let go before `refresh_behind` takes it again.
        let kept = self.copies().get(&base).and_then(|c| c.cached.clone());
        if let Some(cached) = kept {
            self.refresh_behind(registry);
            return Some(cached);
        }
        let _first = self.0.mcp_registry.first_fetch.lock().await;
        match self.copies().get(&base) {
            Some(Copy {
                cached: Some(cached), ..
            }) => return Some(cached.clone()),
            // A registry that just failed is not asked again at every key.
            Some(Copy {
                refreshed: Some(t), ..
            }) if t.elapsed() < RETRY_AFTER => return None,
            _ => {}
        }
        let from_disk = {
            let base = base.clone();
            blocking(move || Ok(cache_dir().and_then(|d| engine::load_cache(&d, &base)))).await
        };
        if let Ok(Some(cached)) = from_disk {
            let cached = Arc::new(cached);
            self.copies().entry(base).or_default().cached = Some(cached.clone());
            self.refresh_behind(registry);
            return Some(cached);
        }
        // No copy anywhere: read the registry behind, and answer with its first page as soon
        // as it is read (the rest fills in; each page says so to the window).
        {
            let mut copies = self.copies();
            let copy = copies.entry(base.clone()).or_default();
            copy.refreshing = true;
            copy.filling = true;
        }
        let (first, first_read) = tokio::sync::oneshot::channel();
        self.fetch_behind(registry, Some(first));
        // An error means the reading ended before a page (the copy is then whatever it left).
        let _ = first_read.await;
        self.copies().get(&base).and_then(|c| c.cached.clone())
    }

    /// Start a refresh of `registry`'s copy unless one runs or the copy is fresh.
    fn refresh_behind(&self, registry: &Registry) {
        {
            let mut copies = self.copies();
            let copy = copies.entry(registry.base().to_string()).or_default();
            if copy.refreshing || copy.refreshed.is_some_and(|t| t.elapsed() < REFRESH_EVERY) {
                return;
            }
            copy.refreshing = true;
        }
        self.fetch_behind(registry, None);
    }

    /// Read `registry` in the background into its copy, and tell the window when it is done. A
    /// first reading (`filling`) puts each page into the copy as it comes, `first` told at the
    /// first one, and the window told after each.
    fn fetch_behind(&self, registry: &Registry, first: Option<tokio::sync::oneshot::Sender<()>>) {
        let base = registry.base().to_string();
        let this = self.clone();
        let registry = registry.clone();
        // Told at the first page, else once the reading ended (its problem recorded), so the
        // first search says why a registry could not be read.
        let first = Arc::new(Mutex::new(first));
        let tell_first = |first: &Mutex<Option<tokio::sync::oneshot::Sender<()>>>| {
            first
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take()
                .map(|f| f.send(()))
        };
        self.0.runtime.spawn(async move {
            let fetched = {
                let (this, base, first) = (this.clone(), base.clone(), first.clone());
                blocking(move || {
                    engine::refresh_with(&registry, cache_dir().as_deref(), |so_far| {
                        {
                            let mut copies = this.copies();
                            let copy = copies.entry(base.clone()).or_default();
                            if !copy.filling {
                                return;
                            }
                            copy.cached = Some(Arc::new(so_far.clone()));
                        }
                        if tell_first(&first).is_none() {
                            this.push_app(AppEvent::McpRegistryRefreshed {
                                registry: base.clone(),
                                problem: None,
                            });
                        }
                    })
                    .map_err(|e| e.to_string())
                })
                .await
            };
            let problem = {
                let mut copies = this.copies();
                let copy = copies.entry(base.clone()).or_default();
                copy.refreshing = false;
                copy.filling = false;
                copy.refreshed = Some(Instant::now());
                match fetched {
                    Ok(cached) => {
                        copy.cached = Some(Arc::new(cached));
                        copy.problem = None;
                    }
                    Err(why) => copy.problem = Some(why),
                }
                copy.problem.clone()
            };
            tell_first(&first);
            this.push_app(AppEvent::McpRegistryRefreshed {
                registry: base,
                problem,
            });
        });
    }

    fn state_of(&self, base: &str) -> McpRegistryState {
        let copy = self.copies().get(base).cloned().unwrap_or_default();
        McpRegistryState {
            base: base.to_string(),
            updated_since: copy.cached.as_ref().and_then(|c| c.updated_since.clone()),
            refreshing: copy.refreshing,
            filling: copy.filling,
            problem: copy.problem,
            left_out: copy.cached.map(|c| c.problems.clone()).unwrap_or_default(),
        }
    }

    /// Search the registries' copies (every word in the name, title or description; an empty
    /// text lists everything), one page from `cursor` (`null`: the first).
    pub async fn mcp_registry_search(
        &self,
        text: &str,
        cursor: Option<&str>,
    ) -> Result<McpRegistryResults, AnswerError> {
        let mut copies = Vec::new();
        let mut registries = Vec::new();
        for registry in self.mcp_registries()? {
            if let Some(cached) = self.copy_of(&registry).await {
                copies.push((registry.base().to_string(), cached));
            }
            registries.push(self.state_of(registry.base()));
        }
        let hits: Vec<(&str, &Entry)> = (copies.iter())
            .flat_map(|(base, c)| c.search(text).into_iter().map(move |e| (base.as_str(), e)))
            .collect();
        // Only the page's entries become views (each looks for its runtimes on PATH), not
        // every entry of a registry of thousands.
        let (shown, next_cursor) = page(&hits, cursor)?;
        let entries = shown.into_iter().map(|(base, e)| entry_view(base, e)).collect();
        Ok(McpRegistryResults {
            entries,
            next_cursor,
            total: hits.len(),
            registries,
        })
    }

    /// `name` at `version` from `base`: the copy's when it is that version, else asked of the
    /// registry.
    pub(crate) async fn registry_entry(
        &self,
        base: &str,
        name: &str,
        version: &str,
    ) -> Result<(Registry, Entry), AnswerError> {
        let registry = self.registry(base)?;
        if let Some(cached) = self.copy_of(&registry).await
            && let Some(entry) = cached.servers.get(name).filter(|e| e.version == version)
        {
            return Ok((registry, entry.clone()));
        }
        let (name, version, asked) = (name.to_string(), version.to_string(), registry.clone());
        let entry = blocking(move || asked.version(&name, &version).map_err(|e| e.to_string()))
            .await
            .map_err(AnswerError::msg)?;
        Ok((registry, entry))
    }

    async fn add_form(
        &self,
        base: &str,
        name: &str,
        version: &str,
        choice: McpRegistryChoice,
    ) -> Result<(Registry, AddForm), AnswerError> {
        let (registry, entry) = self.registry_entry(base, name, version).await?;
        let choice = choice.into();
        if !AddForm::needs_download(&entry, choice) {
            let form = AddForm::new(&entry, choice).map_err(AnswerError::msg)?;
            return Ok((registry, form));
        }
        // An MCP bundle: downloaded (once: later calls find it in the cache, hashed again
        // only if it changed) and checked, its manifest read for the form.
        let form = blocking(move || {
            let bundles = engine::Bundles::from_env()?;
            AddForm::open(&entry, choice, &bundles)
        })
        .await
        .map_err(AnswerError::msg)?;
        Ok((registry, form))
    }

    /// The form of one way (package or remote) of an entry, for the window to render as it
    /// renders an elicitation's.
    pub async fn mcp_registry_form(
        &self,
        registry: &str,
        name: &str,
        version: &str,
        choice: McpRegistryChoice,
    ) -> Result<McpRegistryForm, AnswerError> {
        let (registry, form) = self.add_form(registry, name, version, choice).await?;
        let list = load(&file()?)?;
        let wanted = engine::suggested_name(&form.entry);
        let suggested_name = std::iter::once(wanted.clone())
            .chain((2..).map(|n| format!("{wanted}-{n}")))
            .find(|n| list.get(n).is_none())
            .unwrap_or(wanted);
        Ok(McpRegistryForm {
            entry: entry_view(registry.base(), &form.entry),
            choice,
            suggested_name,
            initial_values: form.schema.initial_values(),
            hints: form.schema.hints(),
            bundle: form.bundle.as_ref().map(McpRegistryBundle::of),
            schema: form.schema,
        })
    }

    /// Check the form's values with the elicitation validator and, when they pass, say exactly
    /// what saving as `connection_name` would write. Nothing is saved.
    pub async fn mcp_registry_check(
        &self,
        registry: &str,
        name: &str,
        version: &str,
        choice: McpRegistryChoice,
        connection_name: &str,
        values: Map<String, Value>,
    ) -> Result<McpRegistryCheck, AnswerError> {
        let (_, form) = self.add_form(registry, name, version, choice).await?;
        Ok(check(&form, &load(&file()?)?, connection_name, &values))
    }

    /// Save the entry as connection `connection_name`: the values validated again, the secrets
    /// into the keyring, one connection into connections.json (every agent gets it).
    pub async fn mcp_registry_add(
        &self,
        registry: &str,
        name: &str,
        version: &str,
        choice: McpRegistryChoice,
        connection_name: &str,
        values: Map<String, Value>,
    ) -> Result<McpRegistryAdded, AnswerError> {
        let (_, form) = self.add_form(registry, name, version, choice).await?;
        let path = file()?;
        let checked = check(&form, &load(&path)?, connection_name, &values);
        if !checked.validation.is_valid() {
            return Err(AnswerError::Invalid {
                validation: serde_json::to_value(&checked.validation).unwrap_or_default(),
            });
        }
        if !checked.problems.is_empty() {
            return Err(AnswerError::msg(checked.problems.join("; ")));
        }
        let plan = form
            .plan(connection_name.trim(), &values)
            .map_err(|e| AnswerError::msg(e.join("; ")))?;
        let store = if plan.secrets.is_empty() {
            None
        } else {
            Some(self.connector().keyring().map_err(AnswerError::msg)?.0)
        };
        let saved = plan.clone();
        blocking(move || engine::save_plan(&path, &saved, store.as_deref()).map_err(|e| e.to_string()))
            .await
            .map_err(AnswerError::msg)?;
        let remote = matches!(form.choice, engine::Choice::Remote(_));
        let secrets: Vec<String> = plan.secrets.into_iter().map(|(k, _)| k).collect();
        let sign_in = if !remote {
            McpRegistrySignIn::NotRemote
        } else if secrets.iter().any(|k| k.starts_with("header:")) {
            McpRegistrySignIn::ByHeader
        } else {
            self.sign_in_after_adding(&plan.connection.name).await
        };
        Ok(McpRegistryAdded {
            name: plan.connection.name.clone(),
            shown: plan.shown,
            secrets,
            remote,
            sign_in,
        })
    }

    /// A remote server just added goes straight on to its sign-in (the MCP connections view's
    /// own, with its consent dialog) when it asks for one; the save stands either way.
    async fn sign_in_after_adding(&self, name: &str) -> McpRegistrySignIn {
        match self.begin_sign_in(name, None).await {
            Ok(SignInBegun::Asked(dialog_id)) => McpRegistrySignIn::Asked { dialog_id },
            Ok(SignInBegun::NotNeeded(_)) => McpRegistrySignIn::NotAsked,
            Err(AnswerError::Error { message }) => McpRegistrySignIn::Failed { reason: message },
            Err(AnswerError::Invalid { .. }) => McpRegistrySignIn::Failed {
                reason: "the sign-in could not start".into(),
            },
        }
    }
}

/// The validator's verdict on `values` (defaults filling what is left out, as the form shows
/// them) and, when it passes, the plan's command or URL; the name is checked against `list`.
fn check(
    form: &AddForm,
    list: &porthole_connections::list::Connections,
    connection_name: &str,
    values: &Map<String, Value>,
) -> McpRegistryCheck {
    let mut filled = form.schema.initial_values();
    filled.extend(values.clone());
    let validation = form.schema.validate(&filled);
    let mut out = McpRegistryCheck {
        validation,
        shown: None,
        problems: Vec::new(),
        secrets: Vec::new(),
    };
    let name = connection_name.trim();
    if list.get(name).is_some() {
        out.problems
            .push(format!("a connection named `{name}` exists already"));
    }
    if !out.validation.is_valid() {
        return out;
    }
    match form.plan(name, values) {
        Ok(plan) => {
            out.shown = Some(plan.shown);
            out.secrets = plan.secrets.into_iter().map(|(k, _)| k).collect();
        }
        Err(problems) => out.problems.extend(problems),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_paged_by_offset_and_a_bad_cursor_is_refused() {
        let hits: Vec<usize> = (0..PAGE * 2 + 5).collect();
        let (first, next) = page(&hits, None).unwrap();
        assert_eq!(first.len(), PAGE);
        let (second, next) = page(&hits, next.as_deref()).unwrap();
        assert_eq!(second[0], PAGE);
        let (last, next) = page(&hits, next.as_deref()).unwrap();
        assert_eq!((last.len(), next), (5, None));
        assert!(page(&hits, Some("x")).is_err());
        assert_eq!(page(&hits, Some("9999")).unwrap(), (vec![], None));
    }
}
