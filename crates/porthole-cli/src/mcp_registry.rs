//! `porthole-cli mcp search` and `mcp add NAME --from-registry SERVER`: MCP servers from an MCP
//! Registry (`porthole-mcp-registry`). The server's inputs are the same form the window shows,
//! filled from `--set KEY=VALUE` (defaults for the rest; a list field takes one value per
//! `--set`, repeated), validated by the elicitation validator; secret fields are read from the
//! terminal (hidden) or from stdin, one line each, never from the command line.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use porthole_connections::secrets::SecretStore;
use porthole_mcp_registry::{self as mcpreg, AddForm, Choice, Entry, Registry};
use serde_json::{Map, Value, json};

use crate::term::{self, say};

pub enum Failure {
    Usage(String),
    Failed(String),
}
use Failure::{Failed, Usage};

/// The registries to read: `--registry` (repeatable), else `PORTHOLE_MCP_REGISTRY_URL`, else
/// the official one. An organisation's registry gets the bearer token kept for it in the
/// keyring (`porthole-cli mcp registry-token URL`); the official one is read without.
pub fn registries(given: &[String]) -> Result<Vec<Registry>, Failure> {
    let addresses = if given.is_empty() {
        mcpreg::registry_addresses()
    } else {
        given.to_vec()
    };
    addresses
        .iter()
        .map(|a| {
            let token = if a.trim_end_matches('/') == mcpreg::OFFICIAL {
                None
            } else {
                stored_token(a)
            };
            Registry::new(a, token).map_err(|e| Usage(e.to_string()))
        })
        .collect()
}

fn stored_token(base: &str) -> Option<String> {
    let normalized = Registry::new(base, None).ok()?.base().to_string();
    let store = SecretStore::os().ok()?;
    store
        .get(mcpreg::TOKEN_OWNER, &mcpreg::token_key(&normalized))
        .ok()
        .flatten()
}

/// `mcp registry-token URL`: keep the bearer token of an organisation's registry (read from the
/// terminal or stdin) in the OS keyring.
pub fn set_token(base: &str) -> Result<(), Failure> {
    let registry = Registry::new(base, None).map_err(|e| Usage(e.to_string()))?;
    let token = read_secret(&format!("bearer token for {}", registry.base()))
        .map_err(Failed)?
        .ok_or_else(|| Usage("no token given (type it, or pipe it on stdin)".into()))?;
    let store = SecretStore::os().map_err(|e| Failed(e.to_string()))?;
    store
        .set(mcpreg::TOKEN_OWNER, &mcpreg::token_key(registry.base()), &token)
        .map_err(|e| Failed(e.to_string()))?;
    say!(
        "kept the token for {} in the OS keyring",
        term::line(registry.base())
    );
    Ok(())
}

/// `mcp search TEXT [--json] [--versions NAME]`.
pub fn search(
    text: &str,
    json_out: bool,
    versions_of: Option<&str>,
    given: &[String],
) -> Result<(), Failure> {
    let cache_dir = porthole_registry::default_cache_dir();
    let mut found: Vec<(String, Entry)> = Vec::new();
    for registry in registries(given)? {
        if let Some(name) = versions_of {
            let page = registry.versions(name).map_err(|e| Failed(e.to_string()))?;
            found.extend(page.entries.into_iter().map(|e| (registry.base().to_string(), e)));
            continue;
        }
        let cached = match mcpreg::refresh(&registry, cache_dir.as_deref()) {
            Ok(c) => c,
            Err(e) => match cache_dir
                .as_deref()
                .and_then(|d| mcpreg::load_cache(d, registry.base()))
            {
                Some(c) => {
                    crate::term::note!(
                        "porthole-cli mcp: {}; using the copy kept from before",
                        term::line(&e.to_string())
                    );
                    c
                }
                None => return Err(Failed(e.to_string())),
            },
        };
        found.extend(
            cached
                .search(text)
                .into_iter()
                .map(|e| (registry.base().to_string(), e.clone())),
        );
    }
    for (base, e) in &found {
        if json_out {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            v["registry"] = json!(base);
            v["offered"] = json!(e.is_offered());
            v["runtimesFound"] = json!(
                e.runtimes()
                    .iter()
                    .filter(|r| r.is_installed())
                    .map(|r| r.program())
                    .collect::<Vec<_>>()
            );
            // Exact JSON (escapes for every control and hidden character), one object a line.
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", crate::json_line::to_line(&v));
        } else {
            let how: Vec<String> = e
                .runtimes()
                .iter()
                .map(|r| {
                    format!(
                        "{}{}",
                        r.program(),
                        if r.is_installed() { "" } else { " (not found here)" }
                    )
                })
                .chain((!e.remotes.is_empty()).then(|| "remote".to_string()))
                .collect();
            let state = match e.status {
                mcpreg::Status::Active if e.is_offered() => String::new(),
                mcpreg::Status::Active => " [nothing Porthole can add]".into(),
                mcpreg::Status::Deprecated => " [deprecated]".into(),
                mcpreg::Status::Deleted => " [deleted]".into(),
            };
            say!(
                "{} {}{}  {}",
                term::line(&e.name),
                term::line(&e.version),
                state,
                term::line(&how.join(", "))
            );
            let title = e.title.as_deref().map(|t| format!("{t}: ")).unwrap_or_default();
            say!("    {}{}", term::line(&title), term::line(&e.description));
            for p in &e.problems {
                say!("    left out: {}", term::line(p));
            }
        }
    }
    if found.is_empty() && !json_out {
        say!("no server matches `{}`", term::line(text));
    }
    Ok(())
}

pub struct AddFromRegistry<'a> {
    pub name: &'a str,
    pub server: &'a str,
    pub version: Option<&'a str>,
    pub sets: &'a [String],
    pub remote: bool,
    pub registries: &'a [String],
    /// `--agent`: only these agents get it (default every agent).
    pub agents: &'a [String],
    /// `--browser`: a remote that asks for sign-in is signed in at once, this command opening
    /// the sign-in page (as `mcp login --browser`).
    pub browser: Option<&'a str>,
}

/// `mcp add NAME --from-registry SERVER [--version V] [--set KEY=VALUE ...] [--remote]`.
pub fn add(path: &Path, a: AddFromRegistry<'_>) -> Result<(), Failure> {
    let registry = registries(a.registries)?
        .into_iter()
        .next()
        .ok_or_else(|| Usage("no registry".into()))?;
    let entry = registry
        .version(a.server, a.version.unwrap_or("latest"))
        .map_err(|e| Failed(e.to_string()))?;
    if !entry.is_offered() {
        let why = if entry.problems.is_empty() {
            format!("it is {}", format!("{:?}", entry.status).to_lowercase())
        } else {
            entry.problems.join("; ")
        };
        return Err(Failed(format!(
            "`{}` {} cannot be added: {why}",
            entry.name, entry.version
        )));
    }
    let choice = if a.remote {
        if entry.remotes.is_empty() {
            return Err(Usage(format!(
                "`{}` has no remote; leave out --remote",
                entry.name
            )));
        }
        Choice::Remote(0)
    } else if entry.packages.is_empty() {
        Choice::Remote(0)
    } else {
        // A package whose runtime is here, else the first.
        let i = entry
            .packages
            .iter()
            .position(|p| p.runtime.is_installed())
            .unwrap_or(0);
        Choice::Package(i)
    };
    let form = if AddForm::needs_download(&entry, choice) {
        // An MCP bundle: downloaded, checked against its SHA-256, its manifest read (the form
        // is its settings); unpacked when saved.
        let bundles = mcpreg::Bundles::from_env().map_err(Failed)?;
        AddForm::open(&entry, choice, &bundles).map_err(Failed)?
    } else {
        AddForm::new(&entry, choice).map_err(Failed)?
    };
    let fields = form.fields();
    let mut values = Map::new();
    for set in a.sets {
        let (key, value) = set
            .split_once('=')
            .ok_or_else(|| Usage(format!("--set is KEY=VALUE, not `{}`", term::line(set))))?;
        let Some((_, secret, _)) = fields.iter().find(|f| f.0 == key) else {
            return Err(Usage(format!(
                "`{}` is not one of this server's values: {}",
                term::line(key),
                fields.iter().map(|f| f.0.as_str()).collect::<Vec<_>>().join(", ")
            )));
        };
        if *secret {
            return Err(Usage(format!(
                "`{key}` is secret: it is read from the terminal or stdin, never from the command line"
            )));
        }
        let kind = form.requested_schema["properties"][key]["type"]
            .as_str()
            .unwrap_or("string");
        if kind == "array" {
            // A list (a repeated argument, a bundle's folders): each `--set KEY=VALUE` one
            // value, in order.
            let list = values.entry(key.to_string()).or_insert_with(|| json!([]));
            if let Some(items) = list.as_array_mut() {
                items.push(json!(value));
            }
            continue;
        }
        let v = match kind {
            "number" => value
                .parse::<f64>()
                .map(|n| json!(n))
                .unwrap_or_else(|_| json!(value)),
            "boolean" => value
                .parse::<bool>()
                .map(|b| json!(b))
                .unwrap_or_else(|_| json!(value)),
            _ => json!(value),
        };
        values.insert(key.to_string(), v);
    }
    for (key, secret, required) in &fields {
        if !secret {
            continue;
        }
        let label = format!(
            "{key}{}",
            if *required {
                ""
            } else {
                " (optional, empty to leave out)"
            }
        );
        if let Some(v) = read_secret(&label).map_err(Failed)? {
            values.insert(key.clone(), json!(v));
        }
    }
    let mut plan = form.plan(a.name, &values).map_err(|errors| {
        Usage(format!(
            "{} {}: {}",
            entry.name,
            entry.version,
            errors
                .iter()
                .map(|e| term::line(e))
                .collect::<Vec<_>>()
                .join("; ")
        ))
    })?;
    if !a.agents.is_empty() {
        plan.connection.agents = porthole_connections::list::AgentScope::Only(a.agents.to_vec());
        plan.connection.validate().map_err(|e| Usage(e.to_string()))?;
    }
    let store = if plan.secrets.is_empty() {
        None
    } else {
        Some(SecretStore::os().map_err(|e| Failed(e.to_string()))?)
    };
    mcpreg::save_plan(path, &plan, store.as_ref()).map_err(|e| Failed(e.to_string()))?;
    say!(
        "added `{}` from {} ({} {}):",
        term::line(a.name),
        term::line(registry.base()),
        term::line(&entry.name),
        term::line(&entry.version)
    );
    for line in plan.shown.lines() {
        say!("  {}", term::line(line));
    }
    if let Some(bundle) = &form.bundle {
        say!(
            "  the bundle {} (SHA-256 {}) is unpacked in {}",
            term::line(&bundle.url),
            bundle.sha256,
            term::line(&bundle.dir.to_string_lossy())
        );
        if !bundle.runtime_found()
            && let Some(program) = bundle.program()
        {
            say!(
                "  {} is not found on this computer: install it before the connection is used",
                term::line(&program)
            );
        }
    }
    if !plan.secrets.is_empty() {
        let keys: Vec<&str> = plan.secrets.iter().map(|(k, _)| k.as_str()).collect();
        say!("  kept in the OS keyring, not in the file: {}", keys.join(", "));
    }
    let by_header = plan.secrets.iter().any(|(k, _)| k.starts_with("header:"));
    if matches!(choice, Choice::Remote(_)) && !by_header {
        sign_in_after_adding(path, a.name, a.browser)?;
    }
    Ok(())
}

/// A remote server just added, that sends no key of its own, goes straight on to its sign-in
/// when it asks for one: `mcp login`'s, at once when a browser command was given or someone
/// is at the terminal; otherwise the command to run is printed. The connection stays saved
/// whatever the sign-in does.
fn sign_in_after_adding(path: &Path, name: &str, browser: Option<&str>) -> Result<(), Failure> {
    let login = format!("porthole-cli mcp login {}", term::line(name));
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if browser.is_some() || interactive {
        let list = porthole_connections::list::Connections::load(path).map_err(|e| Failed(e.to_string()))?;
        return match crate::mcp_live::sign_in(&list, name, browser, None) {
            Ok(crate::mcp_live::SignIn::Done) => Ok(()),
            Ok(crate::mcp_live::SignIn::NotAsked(_)) => {
                say!("  its server asks for no sign-in");
                Ok(())
            }
            Err(e) => Err(Failed(format!(
                "`{}` is added, but its sign-in did not finish: {e}; try again: {login}",
                term::line(name)
            ))),
        };
    }
    let list = porthole_connections::list::Connections::load(path).map_err(|e| Failed(e.to_string()))?;
    let Some(porthole_connections::list::Server::Remote { url, .. }) = list.get(name).map(|c| &c.server)
    else {
        return Ok(());
    };
    match crate::mcp_live::asks_for_sign_in(url) {
        Ok(true) => say!("  its server asks you to sign in: {login}"),
        Ok(false) => say!("  its server asks for no sign-in"),
        Err(e) => say!(
            "  cannot ask its server whether it wants sign-in ({}); if it does: {login}",
            term::line(&e)
        ),
    }
    Ok(())
}

/// A secret: typed at the terminal (hidden), else one line of stdin; `None` when empty.
fn read_secret(label: &str) -> Result<Option<String>, String> {
    let line = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("{label} (input hidden): ")).map_err(|e| e.to_string())?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| format!("cannot read {label} from stdin: {e}"))?;
        line
    };
    let line = line.trim_end_matches(['\r', '\n']).to_string();
    Ok((!line.is_empty()).then_some(line))
}
