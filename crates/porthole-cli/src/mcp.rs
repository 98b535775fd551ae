//! `porthole-cli mcp ...`: the MCP connections every agent gets (docs/connections.md), added,
//! imported from other clients, listed, removed, switched on and off headless.
//!
//! Secret-looking values (`--env GITHUB_TOKEN=...`, `--header 'Authorization: ...'`, and the
//! same in imports) go to the OS keyring; the keyring is opened only when one must be stored
//! or deleted. Exit status: 0 done, 1 failed (a name taken or unknown, an unreadable file, the
//! keyring), 2 a usage error (arguments, or a value no connection may have).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use porthole_connections::import::{self, Outcome};
use porthole_connections::list::{
    self, AgentScope, Connection, Connections, EnvValue, RemoteTransport, Server,
};
use porthole_connections::secrets::{SecretStore, env_key, header_key};

use crate::term::{self, note, say};

#[derive(Parser, Debug)]
#[command(
    name = "porthole-cli mcp",
    about = "MCP connections: the servers every agent gets, signed in once (docs/connections.md)",
    after_help = "Environment: PORTHOLE_CONNECTIONS_FILE (the connections file). Secret-looking \
                  values (variables and headers named like TOKEN, KEY, SECRET, PASSWORD, PAT, \
                  AUTH, CREDENTIAL; Authorization headers) are kept in the OS keyring, never in \
                  the file."
)]
struct McpArgs {
    /// The connections file; default $PORTHOLE_CONNECTIONS_FILE, else ~/.config/porthole/connections.json.
    #[arg(long, value_name = "FILE", global = true)]
    connections_file: Option<PathBuf>,
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(Subcommand, Debug)]
enum McpCommand {
    /// Add a server at a URL (`add NAME --url URL`) or one Porthole starts (`add NAME -- COMMAND ARGS...`).
    Add(AddArgs),
    /// Search an MCP Registry (names, titles and descriptions of its servers, cached and
    /// refreshed with `updated_since`); `--versions NAME` lists a server's versions.
    Search {
        /// Words every match has in its name, title or description (empty: everything).
        #[arg(default_value = "")]
        text: String,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        /// List the versions of this server (its registry name) instead.
        #[arg(long, value_name = "SERVER_NAME")]
        versions: Option<String>,
        /// The registry to read (repeatable); default $PORTHOLE_MCP_REGISTRY_URL, else the official one.
        #[arg(long = "registry", value_name = "URL")]
        registries: Vec<String>,
    },
    /// Keep the bearer token of an organisation's MCP Registry in the OS keyring (read from
    /// the terminal or stdin).
    RegistryToken { url: String },
    /// Import the servers of Claude Desktop, Claude Code, Cursor, VS Code or Zed settings (`-`: stdin).
    Import { file: PathBuf },
    /// The connections, in order.
    List {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Remove a connection (and its values in the keyring).
    Remove { name: String },
    /// Hand a connection to agents again.
    Enable { name: String },
    /// Keep a connection in the list but hand it to no agent.
    Disable { name: String },
    /// Sign in to a remote server (OAuth, in a browser); the tokens go to the OS keyring.
    Login {
        name: String,
        /// Run this command with the authorization URL as its last argument (default: print
        /// the URL and wait for the browser to come back).
        #[arg(long, value_name = "CMD")]
        browser: Option<String>,
        /// A client id the server's owner registered for you (when the server offers no
        /// registration); a client secret, if any, in PORTHOLE_MCP_CLIENT_SECRET.
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
    },
    /// Sign out: the server revokes the tokens where it can, and Porthole deletes them.
    Logout { name: String },
    /// The server's tools (`tools/list`), reached the way agents reach it.
    Tools {
        name: String,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// What an agent runs for a connection through Porthole's gateway (not for people).
    #[command(hide = true)]
    Bridge {
        /// Pipe to a stdio server the gateway starts.
        #[arg(long)]
        pipe: bool,
        url: String,
    },
}

#[derive(clap::Args, Debug)]
struct AddArgs {
    /// The name agents see: letters, digits, `-` and `_`.
    name: String,
    /// The server's URL: https, or http on this computer (localhost, 127.0.0.1, ::1).
    #[arg(long, value_name = "URL", conflicts_with_all = ["env", "command"])]
    url: Option<String>,
    /// How the server is spoken to: `http` (Streamable HTTP, the default) or `sse` (the older
    /// HTTP+SSE transport).
    #[arg(long, value_name = "TRANSPORT", value_parser = transport_name)]
    transport: Option<RemoteTransport>,
    /// A header sent with every request, 'Name: value'; repeatable.
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    headers: Vec<String>,
    /// A variable in the server's environment, NAME=VALUE; repeatable.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// Only this agent (an agent id) gets the server; repeatable. Default: every agent.
    #[arg(long = "agent", value_name = "ID")]
    agents: Vec<String>,
    /// The server's command line, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// Add this server of the MCP Registry (its registry name, `mcp search` lists them).
    #[arg(long, value_name = "SERVER_NAME", conflicts_with_all = ["url", "env", "command", "headers", "transport"])]
    from_registry: Option<String>,
    /// With --from-registry: the server's version (`mcp search --versions SERVER_NAME`); default the latest.
    #[arg(long, value_name = "V", requires = "from_registry")]
    version: Option<String>,
    /// With --from-registry: a value of the server's form, KEY=VALUE; repeatable (a list
    /// field, such as a repeated argument, takes one value per --set). Secret values are read
    /// from the terminal or stdin instead.
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "from_registry")]
    sets: Vec<String>,
    /// With --from-registry: add the server's remote (URL) rather than its package.
    #[arg(long, requires = "from_registry")]
    remote: bool,
    /// With --from-registry: the registry to read; default $PORTHOLE_MCP_REGISTRY_URL, else the official one.
    #[arg(long = "registry", value_name = "URL", requires = "from_registry")]
    registries: Vec<String>,
    /// With --from-registry: a remote that asks for sign-in is signed in at once, this command
    /// opening the sign-in page (as `mcp login --browser`). Without it, the sign-in starts at
    /// once only at a terminal; otherwise the `mcp login` command is printed.
    #[arg(long, value_name = "CMD", requires = "from_registry")]
    browser: Option<String>,
}

enum Failure {
    /// Exit 2.
    Usage(String),
    /// Exit 1.
    Failed(String),
}

use Failure::{Failed, Usage};

/// `args` starts with `mcp`.
pub fn main(args: impl Iterator<Item = OsString>) -> ExitCode {
    let parsed = McpArgs::parse_from(std::iter::once(OsString::from("porthole-cli mcp")).chain(args.skip(1)));
    let path = match parsed.connections_file.or_else(list::default_path) {
        Some(path) => path,
        None => {
            note!("porthole-cli: no config folder for the connections file; give --connections-file");
            return ExitCode::from(2);
        }
    };
    let result = match parsed.command {
        McpCommand::Add(args) if args.from_registry.is_some() => crate::mcp_registry::add(
            &path,
            crate::mcp_registry::AddFromRegistry {
                name: &args.name,
                server: args.from_registry.as_deref().unwrap_or_default(),
                version: args.version.as_deref(),
                sets: &args.sets,
                remote: args.remote,
                registries: &args.registries,
                agents: &args.agents,
                browser: args.browser.as_deref(),
            },
        )
        .map_err(from_registry_failure),
        McpCommand::Add(args) => add(&path, args),
        McpCommand::Search {
            text,
            json,
            versions,
            registries,
        } => crate::mcp_registry::search(&text, json, versions.as_deref(), &registries)
            .map_err(from_registry_failure),
        McpCommand::RegistryToken { url } => {
            crate::mcp_registry::set_token(&url).map_err(from_registry_failure)
        }
        McpCommand::Import { file } => import(&path, &file),
        McpCommand::List { json } => show(&path, json),
        McpCommand::Remove { name } => remove(&path, &name),
        McpCommand::Enable { name } => enable(&path, &name, true),
        McpCommand::Disable { name } => enable(&path, &name, false),
        McpCommand::Login {
            name,
            browser,
            client_id,
        } => load(&path).and_then(|list| {
            crate::mcp_live::login(&list, &name, browser.as_deref(), client_id).map_err(Failed)
        }),
        McpCommand::Logout { name } => {
            load(&path).and_then(|list| crate::mcp_live::logout(&list, &name).map_err(Failed))
        }
        McpCommand::Tools { name, json } => {
            load(&path).and_then(|list| crate::mcp_live::tools(&list, &name, json).map_err(Failed))
        }
        McpCommand::Bridge { pipe, url } => crate::mcp_live::bridge(&url, pipe).map_err(Failed),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Usage(e)) => {
            note!("porthole-cli mcp: {}", term::line(&e));
            ExitCode::from(2)
        }
        Err(Failed(e)) => {
            note!("porthole-cli mcp: {}", term::line(&e));
            ExitCode::FAILURE
        }
    }
}

fn from_registry_failure(f: crate::mcp_registry::Failure) -> Failure {
    match f {
        crate::mcp_registry::Failure::Usage(e) => Usage(e),
        crate::mcp_registry::Failure::Failed(e) => Failed(e),
    }
}

fn load(path: &Path) -> Result<Connections, Failure> {
    Connections::load(path).map_err(|e| Failed(e.to_string()))
}

/// (keyring key, value) pairs to store for a new connection.
type Secrets = Vec<(String, String)>;

/// `--transport`'s value: a transport's name, the error listing them.
fn transport_name(name: &str) -> Result<RemoteTransport, String> {
    name.parse()
}

fn add(path: &Path, args: AddArgs) -> Result<(), Failure> {
    let AddArgs {
        name,
        url,
        transport,
        headers,
        env,
        agents,
        command,
        ..
    } = args;
    if url.is_none() && (transport.is_some() || !headers.is_empty()) {
        return Err(Usage("--transport and --header go with --url".into()));
    }
    let mut secrets: Secrets = Vec::new();
    let server = match url {
        Some(url) => {
            let url = url::Url::parse(&url).map_err(|e| Usage(format!("--url is not a URL ({e})")))?;
            let mut map = BTreeMap::new();
            for header in &headers {
                let (header, value) = header
                    .split_once(':')
                    .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
                    .ok_or_else(|| Usage("--header is 'Name: value'".into()))?;
                let value = if import::looks_secret_header(&header, &value) {
                    secrets.push((header_key(&header), value));
                    EnvValue::Secret
                } else {
                    EnvValue::Plain(value)
                };
                map.insert(header, value);
            }
            Server::Remote {
                url,
                transport: transport.unwrap_or_default(),
                headers: map,
            }
        }
        None => {
            let mut words = command.into_iter();
            let Some(program) = words.next() else {
                return Err(Usage(
                    "give the server's URL (--url URL) or its command after `--` \
                     (porthole-cli mcp add NAME -- COMMAND ARGS...)"
                        .into(),
                ));
            };
            let mut map = BTreeMap::new();
            for var in &env {
                let (var, value) = var
                    .split_once('=')
                    .ok_or_else(|| Usage("--env is NAME=VALUE".into()))?;
                let value = if import::looks_secret_name(var) && !value.is_empty() {
                    secrets.push((env_key(var), value.to_string()));
                    EnvValue::Secret
                } else {
                    EnvValue::Plain(value.to_string())
                };
                map.insert(var.to_string(), value);
            }
            Server::Stdio {
                command: program,
                args: words.collect(),
                env: map,
            }
        }
    };
    let connection = Connection {
        name,
        enabled: true,
        agents: if agents.is_empty() {
            AgentScope::All
        } else {
            AgentScope::Only(agents)
        },
        server,
    };
    connection.validate().map_err(|e| Usage(e.to_string()))?;
    for warning in import::secrets_left_in_place(&connection.server) {
        note!(
            "porthole-cli mcp: `{}`: {}",
            term::line(&connection.name),
            term::line(&warning)
        );
    }
    let mut list = load(path)?;
    let name = connection.name.clone();
    if list.get(&name).is_some() {
        return Err(Failed(format!(
            "a connection named `{name}` exists already (porthole-cli mcp remove {name} first)"
        )));
    }
    let store = if secrets.is_empty() {
        None
    } else {
        let store = SecretStore::os().map_err(|e| Failed(e.to_string()))?;
        for (i, (key, value)) in secrets.iter().enumerate() {
            if let Err(e) = store.set(&name, key, value) {
                forget(&store, &name, secrets[..i].iter().map(|(k, _)| k));
                return Err(Failed(e.to_string()));
            }
        }
        Some(store)
    };
    let summary = describe(&connection);
    let saved = list
        .add(connection)
        .and_then(|()| list.save(path))
        .map_err(|e| Failed(e.to_string()));
    if let Err(e) = saved {
        if let Some(store) = &store {
            forget(store, &name, secrets.iter().map(|(k, _)| k));
        }
        return Err(e);
    }
    say!("added `{}`: {}", term::line(&name), term::line(&summary));
    if !secrets.is_empty() {
        say!(
            "  kept in the OS keyring, not in the file: {}",
            shown_keys(secrets.iter().map(|(k, _)| k))
        );
    }
    Ok(())
}

/// Delete `keys` of `connection` from the keyring, saying which could not be.
fn forget<'a>(store: &SecretStore, connection: &str, keys: impl Iterator<Item = &'a String>) {
    for key in keys {
        if let Err(e) = store.delete(connection, key) {
            note!(
                "porthole-cli mcp: `{}` {key} is still in the OS keyring: {}",
                term::line(connection),
                term::line(&e.to_string())
            );
        }
    }
}

/// `env:TOKEN, header:authorization` as `TOKEN, header authorization`.
fn shown_keys<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    keys.map(|k| match k.split_once(':') {
        Some(("env", var)) => var.to_string(),
        Some((kind, name)) => format!("{kind} {name}"),
        None => k.clone(),
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// A connection in one line: its URL or command line, and where it goes.
fn describe(c: &Connection) -> String {
    let mut out = match &c.server {
        // The default transport goes unsaid; any other by its name.
        Server::Remote { url, transport, .. } if *transport == RemoteTransport::default() => url.to_string(),
        Server::Remote { url, transport, .. } => format!("{url} ({transport})"),
        Server::Stdio { command, args, .. } => std::iter::once(command)
            .chain(args)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" "),
    };
    let secrets = c.secret_keys();
    if !secrets.is_empty() {
        out.push_str(&format!(" [keyring: {}]", shown_keys(secrets.iter())));
    }
    out
}

fn import(path: &Path, file: &Path) -> Result<(), Failure> {
    let (text, from) = read_input(file)?;
    let found = import::read(&text).map_err(|e| Failed(format!("{from}: {e}")))?;
    let mut list = load(path)?;
    let store = if found.needs_keyring() {
        match SecretStore::os() {
            Ok(store) => Some(store),
            Err(e) => {
                note!(
                    "porthole-cli mcp: servers with secret values are skipped: {}",
                    term::line(&e.to_string())
                );
                None
            }
        }
    } else {
        None
    };
    let formats: Vec<String> = found.formats.iter().map(ToString::to_string).collect();
    let outcomes = import::merge_and_save(found, &mut list, path, store.as_ref()).map_err(Failed)?;
    say!("{}: {}", term::line(&from), term::line(&formats.join(", ")));
    for outcome in &outcomes {
        match outcome {
            Outcome::Imported {
                source_name,
                name,
                secrets,
                notes,
            } => {
                let shown = list.get(name).map(describe).unwrap_or_default();
                if source_name == name {
                    say!("imported `{}`: {}", term::line(name), term::line(&shown));
                } else {
                    say!(
                        "imported `{}` as `{}`: {}",
                        term::line(source_name),
                        term::line(name),
                        term::line(&shown)
                    );
                }
                if !secrets.is_empty() {
                    say!(
                        "  kept in the OS keyring, not in the file: {}",
                        term::line(&secrets.join(", "))
                    );
                }
                for n in notes {
                    say!("  note: {}", term::line(n));
                }
            }
            Outcome::Skipped { source_name, reason } => {
                say!("skipped `{}`: {}", term::line(source_name), term::line(reason))
            }
        }
    }
    let added = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Imported { .. }))
        .count();
    say!(
        "{} imported, {} skipped; the list is {}",
        added,
        outcomes.len() - added,
        path.display()
    );
    Ok(())
}

/// The text to import, and how to name where it came from; a missing file is a usage error.
fn read_input(file: &Path) -> Result<(String, String), Failure> {
    let limit = import::MAX_TEXT_BYTES as u64 + 1;
    let mut text = String::new();
    let from = if file == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_string(&mut text)
            .map_err(|e| Failed(format!("cannot read stdin: {e}")))?;
        "stdin".to_string()
    } else {
        std::fs::File::open(file)
            .and_then(|f| f.take(limit).read_to_string(&mut text))
            .map_err(|e| Usage(format!("cannot read {}: {e}", file.display())))?;
        file.display().to_string()
    };
    if text.len() > import::MAX_TEXT_BYTES {
        return Err(Failed(format!("{from}: {}", import::ImportError::TooBig)));
    }
    Ok((text, from))
}

fn show(path: &Path, json: bool) -> Result<(), Failure> {
    let list = load(path)?;
    if list.is_empty() && !json {
        note!("porthole-cli mcp: no connections in {}", path.display());
    }
    let states = if json {
        crate::mcp_live::sign_in_states(&list)
    } else {
        BTreeMap::new()
    };
    let mut out = std::io::stdout().lock();
    for c in list.iter() {
        let _ = if json {
            let mut line = list::connection_json(c);
            if let (Some(state), Some(object)) = (states.get(&c.name), line.as_object_mut()) {
                object.insert("signIn".into(), state.clone());
            }
            writeln!(out, "{}", crate::json_line::to_line(&line))
        } else {
            let agents = match &c.agents {
                AgentScope::All => "all agents".to_string(),
                AgentScope::Only(ids) => ids.join(","),
            };
            writeln!(
                out,
                "{}",
                term::text(&format!(
                    "{:<24} {:<4} {:<24} {}",
                    term::line(&c.name),
                    if c.enabled { "on" } else { "off" },
                    term::line(&agents),
                    term::line(&describe(c))
                ))
            )
        };
    }
    Ok(())
}

fn remove(path: &Path, name: &str) -> Result<(), Failure> {
    let mut list = load(path)?;
    let removed = list.remove(name).map_err(|e| Failed(e.to_string()))?;
    list.save(path).map_err(|e| Failed(e.to_string()))?;
    say!("removed `{}`", term::line(name));
    // The MCP bundle it ran from, unless another connection runs from it too.
    match porthole_mcp_registry::Bundles::from_env().and_then(|b| b.forget(&removed, &list)) {
        Ok(Some(folder)) => say!(
            "removed its MCP bundle {}",
            term::line(&folder.display().to_string())
        ),
        Ok(None) => {}
        Err(e) => note!(
            "porthole-cli mcp: its MCP bundle's folder is left: {}",
            term::line(&e)
        ),
    }
    let keys = removed.secret_keys();
    if !keys.is_empty() {
        match SecretStore::os() {
            Ok(store) => forget(&store, name, keys.iter()),
            Err(e) => note!(
                "porthole-cli mcp: its values are still in the OS keyring (service \
                 porthole-connections): {}",
                term::line(&e.to_string())
            ),
        }
    }
    Ok(())
}

fn enable(path: &Path, name: &str, on: bool) -> Result<(), Failure> {
    let mut list = load(path)?;
    list.set_enabled(name, on).map_err(|e| Failed(e.to_string()))?;
    list.save(path).map_err(|e| Failed(e.to_string()))?;
    say!(
        "`{}` {}",
        term::line(name),
        if on { "enabled" } else { "disabled" }
    );
    Ok(())
}
