//! Signing in: `--auth METHOD` (an `env_var` method, an API key sent in `authenticate`, or a
//! plain `authenticate`), the API keys saved in the OS keyring, and the hint printed when the
//! agent still asks the user to sign in.

use porthole_core::{AgentClient, AgentCommand};

use crate::term::{self, note};

/// Why the session could not be opened (signing in is its first step): a request the agent
/// did not advertise, or a bad flag (exit 2, nothing sent), or a failure (exit 1).
pub(crate) enum OpenError {
    Usage(String),
    Failed(String),
}

impl From<String> for OpenError {
    fn from(e: String) -> Self {
        OpenError::Failed(e)
    }
}

/// The variable an API key is read from for `--auth` with an API-key method.
pub(crate) const API_KEY_VAR: &str = "PORTHOLE_API_KEY";

/// After `auth_required` (when opening a session, or at a turn): how to sign in with each
/// method the agent advertised. A terminal method is the agent's own login command, which
/// the user runs in a terminal (the CLI is not one). `used` is the method this run already
/// signed in with (`--auth`): telling the user to run again with it would send them in a
/// circle, so it is named for what it is.
pub(crate) fn print_sign_in_hint(client: &AgentClient, command: &AgentCommand, signed_in: Option<&SignedIn>) {
    let used = signed_in.map(|s| s.method.as_str());
    use porthole_core::acp::v1::schema::AuthMethod;
    let methods = client.auth_methods();
    let env_methods = porthole_profiles::sign_in::env_var_methods(client.raw_auth_methods());
    if methods.is_empty() {
        note!("porthole-cli: the agent needs you to sign in, and advertises no sign-in method");
        return;
    }
    if let Some(used) = used {
        let what = if let Some(source) = signed_in.and_then(|s| s.key_source) {
            match source {
                KeySource::Env => format!("the API key from {API_KEY_VAR} was not accepted"),
                KeySource::Typed => "the API key typed was not accepted".to_string(),
                KeySource::NotGiven => format!(
                    "no API key was given (set {API_KEY_VAR}, or run porthole-cli in a terminal to \
                     type it), and the agent found none of its own"
                ),
                KeySource::Saved => format!(
                    "the API key saved in the OS keyring was not accepted; run with {API_KEY_VAR} set \
                     to the right key (it replaces the saved one once the agent accepts it)"
                ),
            }
        } else if env_methods.iter().any(|m| m.id == used) {
            "the values set in the environment were not accepted".to_string()
        } else {
            "the agent answered `authenticate` but did not sign you in".to_string()
        };
        note!("porthole-cli: signed in with --auth {used}, yet the agent still asks you to sign in: {what}");
    }
    note!(
        "porthole-cli: the agent needs you to sign in; its {}methods:",
        if used.is_some() { "other " } else { "" }
    );
    for m in methods {
        if Some(m.id().0.as_ref()) == used {
            continue;
        }
        if let Some(env_method) = env_methods.iter().find(|e| e.id == m.id().0.as_ref()) {
            let vars: Vec<String> = env_method
                .vars
                .iter()
                .map(|v| format!("{} ({})", term::line(&v.name), term::line(&v.label)))
                .collect();
            note!(
                "  {} ({}): set {} in the environment, then run again with --auth {}",
                term::line(&env_method.id),
                term::line(&env_method.name),
                vars.join(", "),
                term::line(&env_method.id)
            );
            continue;
        }
        if client.api_key_method(m.id().0.as_ref()).is_some() {
            note!(
                "  {} ({}): an API key; run again with --auth {} (the key from {API_KEY_VAR}, or typed when asked)",
                m.id().0,
                m.name(),
                m.id().0
            );
            continue;
        }
        match m {
            AuthMethod::Terminal(t) => {
                let mut login = AgentCommand {
                    args: command.args.iter().chain(t.args.iter()).cloned().collect(),
                    ..command.clone()
                };
                login.env.clear();
                let env: Vec<String> = t.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                note!(
                    "  {} ({}): in a terminal, run {}{}",
                    term::line(&m.id().0),
                    term::line(m.name()),
                    if env.is_empty() {
                        String::new()
                    } else {
                        format!("{} ", term::line(&env.join(" ")))
                    },
                    term::line(&login.display())
                );
            }
            _ => note!(
                "  {} ({}): run again with --auth {}",
                term::line(&m.id().0),
                term::line(m.name()),
                term::line(&m.id().0)
            ),
        }
    }
}

/// Where an API key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeySource {
    /// `PORTHOLE_API_KEY`.
    Env,
    /// The OS keyring, where an earlier run saved it for this agent.
    Saved,
    /// Typed at the terminal.
    Typed,
    /// None given (no variable, none saved, no terminal or an empty line): `authenticate` is sent
    /// without a key, for an agent that finds one itself (Gemini reads `GEMINI_API_KEY`).
    NotGiven,
}

/// The `--auth` method this run signed in with, and for an API-key method where its key came
/// from.
pub(crate) struct SignedIn {
    method: String,
    key_source: Option<KeySource>,
    /// A key to keep in the OS keyring once the agent has accepted it (the session opened): a
    /// typed one, or one from the environment that replaces a saved key.
    to_save: Option<String>,
}

impl SignedIn {
    pub(crate) fn save(&self, agent_id: &str) {
        use porthole_profiles::secrets::AgentSecrets;
        let Some(key) = &self.to_save else { return };
        let saved = AgentSecrets::default_index_path()
            .ok_or_else(|| "no config folder".to_string())
            .and_then(|index| AgentSecrets::os(index).map_err(|e| e.to_string()))
            .and_then(|s| {
                s.set_api_key(agent_id, &self.method, key)
                    .map_err(|e| e.to_string())
            });
        match saved {
            Ok(()) => note!(
                "porthole-cli: the API key of `{}` is saved in the OS keyring for `{agent_id}`",
                self.method
            ),
            Err(e) => note!("porthole-cli: the API key was not saved: {e}"),
        }
    }
}

/// The API key saved in the OS keyring for agent `profile`'s `method`, if any (no keyring is
/// opened when the index lists none).
fn saved_api_key(profile: &str, method: &str) -> Option<String> {
    use porthole_profiles::secrets::{self, AgentSecrets};
    let index = AgentSecrets::default_index_path()?;
    let listed = secrets::stored_names(&index).is_ok_and(|all| {
        all.get(profile)
            .is_some_and(|names| secrets::lists_api_key(names, method))
    });
    if !listed {
        return None;
    }
    match AgentSecrets::os(index).and_then(|s| s.api_key(profile, method)) {
        Ok(key) => key,
        Err(e) => {
            note!("porthole-cli: the saved API key of `{profile}` is not used: {e}");
            None
        }
    }
}

/// `--auth METHOD`. An `env_var` method is the CLI's own environment (nothing is sent); an
/// API-key method sends the key in `authenticate`'s `_meta["api-key"]`; any other method is
/// plain `authenticate`. `profile`: the configured agent's id, under which keys are saved.
pub(crate) async fn sign_in(
    client: &AgentClient,
    command: &AgentCommand,
    method: &str,
    profile: Option<&str>,
    signed_in: &mut Option<SignedIn>,
) -> Result<(), OpenError> {
    // Recorded only once the method was used without error (the hint then says so).
    let mut done = SignedIn {
        method: method.to_string(),
        key_source: None,
        to_save: None,
    };
    let env_methods = porthole_profiles::sign_in::env_var_methods(client.raw_auth_methods());
    if let Some(env_method) = env_methods.iter().find(|m| m.id == method) {
        // The agent was started with the CLI's own environment, so signing in means those
        // variables are set there.
        let missing: Vec<String> = env_method
            .vars
            .iter()
            .filter(|v| !v.optional && std::env::var_os(&v.name).is_none_or(|x| x.is_empty()))
            // Saved in the OS keyring by the window and set at spawn (add_saved_sign_in).
            .filter(|v| !command.env.iter().any(|(name, _)| name == &v.name))
            .map(|v| format!("{} ({})", v.name, v.label))
            .collect();
        if !missing.is_empty() {
            return Err(OpenError::Failed(format!(
                "sign-in method `{method}` needs these variables set in the environment: {}",
                missing.join(", ")
            )));
        }
        *signed_in = Some(done);
        return Ok(());
    }
    if client.api_key_method(method).is_some() {
        let saved = profile.and_then(|p| saved_api_key(p, method));
        let (key, source) = api_key(client, method, saved.clone())?;
        let to_save = match (source, &key) {
            (KeySource::Typed, Some(key)) => profile.map(|_| key.clone()),
            (KeySource::Env, Some(key)) if saved.is_some_and(|s| s != *key) => Some(key.clone()),
            _ => None,
        };
        match &key {
            Some(key) => client.authenticate_with_api_key(method, key).await,
            // Nothing to send: the agent may find its key itself.
            None => client.authenticate(method).await,
        }
        .map_err(|e| OpenError::Failed(e.to_string()))?;
        done.key_source = Some(source);
        done.to_save = to_save;
    } else {
        client
            .authenticate(method)
            .await
            .map_err(|e| OpenError::Failed(e.to_string()))?;
    }
    *signed_in = Some(done);
    Ok(())
}

/// The API key for `method`: from `PORTHOLE_API_KEY`, else the one saved in the OS keyring,
/// else typed at the terminal (not echoed).
fn api_key(
    client: &AgentClient,
    method: &str,
    saved: Option<String>,
) -> Result<(Option<String>, KeySource), OpenError> {
    if let Some(key) = std::env::var(API_KEY_VAR).ok().filter(|k| !k.trim().is_empty()) {
        return Ok((Some(key.trim().to_string()), KeySource::Env));
    }
    if let Some(key) = saved {
        return Ok((Some(key), KeySource::Saved));
    }
    let name = client
        .auth_methods()
        .iter()
        .find(|m| m.id().0.as_ref() == method)
        .map(|m| m.name().to_string())
        .unwrap_or_else(|| method.to_string());
    let prompt = format!("{name} (input hidden; empty: the agent's own, e.g. from its environment): ");
    match terminal::read_hidden(&prompt) {
        Some(Ok(key)) if !key.trim().is_empty() => Ok((Some(key.trim().to_string()), KeySource::Typed)),
        Some(Ok(_)) | None => Ok((None, KeySource::NotGiven)),
        Some(Err(e)) => Err(OpenError::Failed(format!(
            "--auth {method}: cannot read the API key from the terminal: {e}"
        ))),
    }
}

/// Reading a secret at the terminal without echoing it.
mod terminal {
    use std::io::IsTerminal;

    /// `None` when stdin is not a terminal; the line typed otherwise. The prompt goes to the
    /// terminal and echo is off while the line is typed (rpassword restores it, even on error).
    pub fn read_hidden(prompt: &str) -> Option<std::io::Result<String>> {
        if !std::io::stdin().is_terminal() {
            return None;
        }
        Some(rpassword::prompt_password(prompt))
    }
}
