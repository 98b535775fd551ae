//! Other clients' MCP settings, read into the connections model, from a file's text or pasted
//! text (all JSONC: comments and trailing commas are fine). The format is told by its top-level
//! key:
//!
//! - `mcpServers`: Claude Desktop, Claude Code (`.mcp.json`), Cursor, Windsurf:
//!   `{name: {command, args, env} | {url | serverUrl, headers, type}}`;
//! - `servers` (VS Code's `mcp.json`) or `mcp.servers` (VS Code's settings):
//!   `{name: {type: "stdio" | "http" | "sse", command, args, env, url, headers}}`;
//! - `context_servers` (Zed's settings): `{name: {command, args, env} | {command: {path, args,
//!   env}} | {url, headers}}`; extension-managed servers have no command and are skipped.
//!
//! Every entry is reported: imported (under which name, which values went to the keyring, which
//! fields were left out) or skipped and why. Nothing is dropped silently. Values that look secret
//! ([`looks_secret_name`], [`looks_secret_header`]) go to the OS keyring and the file keeps
//! `{"secret": true}`. A name already in the list is skipped (importing the same file twice adds
//! nothing); names the file repeats after being made valid get `-2`, `-3`, ...

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use crate::list::{
    AgentScope, Connection, Connections, EnvValue, MAX_NAME_CHARS, Ordered, RemoteTransport, Server,
};
use crate::secrets::{SecretStore, env_key, header_key};

/// Far more than any client's settings file.
pub const MAX_TEXT_BYTES: usize = 4 << 20;

/// Where the servers were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `mcpServers`: Claude Desktop, Claude Code, Cursor, Windsurf.
    McpServers,
    /// `servers`: VS Code's `mcp.json`.
    VsCode,
    /// `mcp.servers`: VS Code's user settings.
    VsCodeSettings,
    /// `context_servers`: Zed's settings.
    Zed,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::McpServers => "`mcpServers` (Claude Desktop, Claude Code, Cursor)",
            Format::VsCode => "`servers` (VS Code mcp.json)",
            Format::VsCodeSettings => "`mcp.servers` (VS Code settings)",
            Format::Zed => "`context_servers` (Zed settings)",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("not valid JSON (comments and trailing commas are fine): {0}")]
    Parse(String),
    #[error(
        "no MCP servers found: the text has none of `mcpServers` (Claude Desktop, Claude Code, \
         Cursor), `servers` (VS Code mcp.json), `mcp.servers` (VS Code settings) or \
         `context_servers` (Zed) at its top level"
    )]
    NoServers,
    #[error("the text is longer than {} MiB", MAX_TEXT_BYTES >> 20)]
    TooBig,
}

/// What the text holds, before anything is stored.
#[derive(Debug)]
pub struct Found {
    /// The formats found (usually one).
    pub formats: Vec<Format>,
    pub entries: Vec<FoundEntry>,
}

#[derive(Debug)]
pub enum FoundEntry {
    Ready(Candidate),
    Skipped { source_name: String, reason: String },
}

/// A server that can be imported: the connection and the secret values it needs kept.
pub struct Candidate {
    /// The server's name in the imported text.
    pub source_name: String,
    pub connection: Connection,
    /// What was changed or left out on the way (a new name, an ignored field).
    pub notes: Vec<String>,
    /// (keyring key, display name, value).
    secrets: Vec<(String, String, String)>,
}

impl Candidate {
    /// The names of the variables and headers whose values go to the keyring.
    pub fn secret_names(&self) -> Vec<String> {
        self.secrets.iter().map(|(_, shown, _)| shown.clone()).collect()
    }
}

/// Never the secret values.
impl fmt::Debug for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Candidate")
            .field("source_name", &self.source_name)
            .field("connection", &self.connection)
            .field("notes", &self.notes)
            .field("secrets", &self.secret_names())
            .finish()
    }
}

impl Found {
    /// Whether importing stores anything in the keyring (open it only then).
    pub fn needs_keyring(&self) -> bool {
        self.entries
            .iter()
            .any(|e| matches!(e, FoundEntry::Ready(c) if !c.secrets.is_empty()))
    }
}

/// What an import did, per entry in the text's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Imported {
        source_name: String,
        /// The name in the list (differs from `source_name` when that was not a valid name).
        name: String,
        /// Variables and headers whose values went to the keyring.
        secrets: Vec<String>,
        notes: Vec<String>,
    },
    Skipped {
        source_name: String,
        reason: String,
    },
}

/// Which secret-looking words a variable or header name holds: the name is cut into words (at
/// `_`, `-`, other punctuation and lower-to-upper case changes), and a word is secret when it is
/// `PAT`, `KEY`, `AUTH`, `PASS`, `PWD`, `COOKIE` or `JWT`, ends with `KEY` (`APIKEY`), or holds
/// `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `CREDENTIAL` or `AUTHORIZATION`. Words, not
/// substrings: `PATH`, `KEYBOARD` and `AUTHOR` are not secret.
pub fn looks_secret_name(name: &str) -> bool {
    words(name).iter().any(|w| {
        matches!(
            w.as_str(),
            "PAT" | "KEY" | "AUTH" | "PASS" | "PWD" | "COOKIE" | "JWT"
        ) || w.ends_with("KEY")
            || [
                "TOKEN",
                "SECRET",
                "PASSWORD",
                "PASSWD",
                "CREDENTIAL",
                "AUTHORIZATION",
            ]
            .iter()
            .any(|s| w.contains(s))
    })
}

/// A header to keep in the keyring: its name looks secret ([`looks_secret_name`]: `Authorization`,
/// `X-API-Key`, `Cookie`, ...) or its value is a credential (`Bearer ...`, `Basic ...`).
pub fn looks_secret_header(name: &str, value: &str) -> bool {
    let scheme = value.split_whitespace().next().unwrap_or("");
    looks_secret_name(name)
        || ["bearer", "basic", "token", "digest"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s))
}

fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphanumeric() || (prev_lower && c.is_ascii_uppercase());
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_uppercase());
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A name agents accept made from another client's name: other characters become `-`.
fn mcp_name(source: &str) -> String {
    let mut name = String::new();
    for c in source.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_matches(|c| c == '-' || c == '_');
    let name: String = name.chars().take(MAX_NAME_CHARS).collect();
    let name = name.trim_end_matches('-');
    if name.is_empty() {
        "server".into()
    } else {
        name.into()
    }
}

/// The top level: the members naming servers, others ignored (Zed's and VS Code's settings hold
/// much else).
#[derive(Deserialize)]
struct TopLevel {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<Ordered>,
    servers: Option<Ordered>,
    mcp: Option<VsCodeMcp>,
    context_servers: Option<Ordered>,
}

#[derive(Deserialize)]
struct VsCodeMcp {
    servers: Option<Ordered>,
}

/// Read the text: every server found, each ready to import or skipped with why.
pub fn read(text: &str) -> Result<Found, ImportError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(ImportError::TooBig);
    }
    let top: TopLevel =
        porthole_profiles::jsonc::from_str(text).map_err(|e| ImportError::Parse(e.to_string()))?;
    let mut sections = Vec::new();
    if let Some(s) = top.mcp_servers {
        sections.push((Format::McpServers, s));
    }
    if let Some(s) = top.servers {
        sections.push((Format::VsCode, s));
    }
    if let Some(s) = top.mcp.and_then(|m| m.servers) {
        sections.push((Format::VsCodeSettings, s));
    }
    if let Some(s) = top.context_servers {
        sections.push((Format::Zed, s));
    }
    if sections.is_empty() {
        return Err(ImportError::NoServers);
    }
    let mut found = Found {
        formats: sections.iter().map(|(f, _)| *f).collect(),
        entries: Vec::new(),
    };
    // A name that is valid as it is keeps it; a name made valid avoids those.
    let mut reserved: Vec<String> = sections
        .iter()
        .flat_map(|(_, servers)| servers.0.iter().map(|(name, _)| name))
        .filter(|name| crate::names::valid_name(name))
        .cloned()
        .collect();
    let mut taken: Vec<String> = Vec::new();
    for (format, servers) in sections {
        for (source_name, value) in servers.0 {
            let entry = match entry(format, &source_name, &value) {
                Ok((connection, secrets, mut notes)) => {
                    let mut connection = connection;
                    let base = mcp_name(&source_name);
                    let mut name = base.clone();
                    let own = name == source_name && !taken.contains(&name);
                    let mut n = 2;
                    while !own && (taken.contains(&name) || reserved.contains(&name)) {
                        let suffix = format!("-{n}");
                        let keep = MAX_NAME_CHARS - suffix.len();
                        name = format!("{}{suffix}", &base[..base.len().min(keep)]);
                        n += 1;
                    }
                    if own {
                        reserved.retain(|r| r != &name);
                    }
                    if name != source_name {
                        notes.insert(
                            0,
                            if base == source_name {
                                format!("named `{name}`: the text names another server `{source_name}` too")
                            } else {
                                format!("named `{name}` (agents accept only letters, digits, `-` and `_`)")
                            },
                        );
                    }
                    taken.push(name.clone());
                    connection.name = name;
                    // The secrets' keys follow the connection's name; the values stay as read.
                    match connection.validate() {
                        Ok(()) => FoundEntry::Ready(Candidate {
                            source_name,
                            connection,
                            notes,
                            secrets,
                        }),
                        Err(e) => FoundEntry::Skipped {
                            source_name,
                            reason: problem_of(e),
                        },
                    }
                }
                Err(reason) => FoundEntry::Skipped { source_name, reason },
            };
            found.entries.push(entry);
        }
    }
    Ok(found)
}

fn problem_of(e: crate::list::ListError) -> String {
    match e {
        crate::list::ListError::Invalid { problem, .. } => problem,
        other => other.to_string(),
    }
}

/// [`merge`] into `list` and save it at `path` when anything was added. When the file cannot
/// be written, the secret values this import put in the keyring leave it again (nothing half
/// done; a value that cannot be deleted is named in the error).
pub fn merge_and_save(
    found: Found,
    list: &mut Connections,
    path: &std::path::Path,
    secrets: Option<&SecretStore>,
) -> Result<Vec<Outcome>, String> {
    let outcomes = merge(found, list, secrets);
    let added: Vec<&str> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Imported { name, .. } => Some(name.as_str()),
            Outcome::Skipped { .. } => None,
        })
        .collect();
    if added.is_empty() {
        return Ok(outcomes);
    }
    let Err(e) = list.save(path) else {
        return Ok(outcomes);
    };
    let mut left = Vec::new();
    if let Some(secrets) = secrets {
        for name in &added {
            for key in list.get(name).map(Connection::secret_keys).unwrap_or_default() {
                if let Err(e) = secrets.delete(name, &key) {
                    left.push(format!("`{name}` {key} ({e})"));
                }
            }
        }
    }
    if left.is_empty() {
        Err(e.to_string())
    } else {
        Err(format!("{e}; still in the OS keyring: {}", left.join(", ")))
    }
}

/// Put what was found into `list`, the secret values into `secrets` (which must be open when
/// [`Found::needs_keyring`]). The list is not saved here.
pub fn merge(found: Found, list: &mut Connections, secrets: Option<&SecretStore>) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for entry in found.entries {
        let candidate = match entry {
            FoundEntry::Ready(c) => c,
            FoundEntry::Skipped { source_name, reason } => {
                outcomes.push(Outcome::Skipped { source_name, reason });
                continue;
            }
        };
        let name = candidate.connection.name.clone();
        let skip = |reason: String| Outcome::Skipped {
            source_name: candidate.source_name.clone(),
            reason,
        };
        if list.get(&name).is_some() {
            outcomes.push(skip(format!(
                "a connection named `{name}` exists already (remove it first to import it again)"
            )));
            continue;
        }
        if let Err(reason) = keep_secrets(&candidate, secrets) {
            outcomes.push(skip(reason));
            continue;
        }
        let secret_names = candidate.secret_names();
        match list.add(candidate.connection.clone()) {
            Ok(()) => outcomes.push(Outcome::Imported {
                source_name: candidate.source_name,
                name,
                secrets: secret_names,
                notes: candidate.notes,
            }),
            Err(e) => {
                forget_secrets(&candidate, secrets);
                outcomes.push(skip(e.to_string()));
            }
        }
    }
    outcomes
}

/// Store a candidate's secrets, all or none.
fn keep_secrets(candidate: &Candidate, store: Option<&SecretStore>) -> Result<(), String> {
    if candidate.secrets.is_empty() {
        return Ok(());
    }
    let Some(store) = store else {
        return Err(format!(
            "its secret values ({}) need the OS keyring, which is not open",
            candidate.secret_names().join(", ")
        ));
    };
    for (key, _, value) in &candidate.secrets {
        if let Err(e) = store.set(&candidate.connection.name, key, value) {
            forget_secrets(candidate, Some(store));
            return Err(format!("cannot keep its secret values: {e}"));
        }
    }
    Ok(())
}

fn forget_secrets(candidate: &Candidate, store: Option<&SecretStore>) {
    if let Some(store) = store {
        for (key, _, _) in &candidate.secrets {
            if let Err(e) = store.delete(&candidate.connection.name, key) {
                tracing::warn!(connection = %candidate.connection.name, %key, "cannot delete a secret: {e}");
            }
        }
    }
}

type Secrets = Vec<(String, String, String)>;

/// One server of `format`: the connection (named as in the text for now), its secret values,
/// notes; or why it is skipped.
fn entry(format: Format, name: &str, value: &Value) -> Result<(Connection, Secrets, Vec<String>), String> {
    let Value::Object(fields) = value else {
        return Err("is not an object".into());
    };
    let mut fields = fields.clone();
    let mut notes = Vec::new();
    let mut enabled = true;
    if let Some(v) = fields.remove("disabled") {
        enabled = v != Value::Bool(true);
    }
    if let Some(v) = fields.remove("enabled") {
        enabled &= v != Value::Bool(false);
    }
    if format == Format::Zed {
        // `"source": "custom"` marks a server of the user's own; extensions have none of theirs.
        let source = fields.remove("source");
        let settings = fields.remove("settings");
        if !fields.contains_key("command") && !fields.contains_key("url") {
            return Err(match source.as_ref().and_then(Value::as_str) {
                Some("extension") | None if settings.is_some() || source.is_some() => {
                    "managed by a Zed extension (it has no command here); add it with \
                     `porthole-cli mcp add` and the extension's command"
                        .into()
                }
                _ => "has no `command` or `url`".into(),
            });
        }
        if settings
            .as_ref()
            .is_some_and(|s| s.as_object().is_some_and(|o| !o.is_empty()))
        {
            notes.push("its `settings` were left out (they are a Zed extension's)".into());
        }
        // Zed's older `"command": {"path", "args", "env"}`.
        if let Some(Value::Object(command)) = fields.get("command").cloned() {
            let mut command = command;
            let path = command.remove("path").ok_or("`command.path` is missing")?;
            fields.insert("command".into(), path);
            for key in ["args", "env"] {
                if let Some(v) = command.remove(key) {
                    fields.insert(key.into(), v);
                }
            }
            for key in command.keys() {
                notes.push(format!("`command.{key}` was left out (Porthole does not use it)"));
            }
        }
    }
    if format == Format::McpServers
        && let Some(url) = fields.remove("serverUrl")
    {
        fields.entry("url").or_insert(url);
    }
    let kind = match fields.remove("type").or_else(|| fields.remove("transport")) {
        None => None,
        Some(Value::String(t)) => Some(t),
        Some(_) => return Err("`type` is not a string".into()),
    };
    let remote = match kind.as_deref() {
        Some("stdio") => false,
        Some("http" | "streamable-http" | "streamableHttp" | "sse") => true,
        Some(other) => {
            return Err(format!(
                "its type `{other}` is not one Porthole knows (stdio, http, sse)"
            ));
        }
        None => match (fields.contains_key("command"), fields.contains_key("url")) {
            (true, false) => false,
            (false, true) => true,
            (true, true) => return Err("has both `command` and `url`".into()),
            (false, false) => return Err("has no `command` or `url`".into()),
        },
    };
    let variables = variables_in(&fields);
    if !variables.is_empty() {
        return Err(format!(
            "uses {}, which the other client fills in and Porthole does not; add it with \
             `porthole-cli mcp add` and the values",
            variables.join(", ")
        ));
    }
    let mut secrets = Vec::new();
    let server = if remote {
        let url = match fields.remove("url") {
            Some(Value::String(u)) => u,
            Some(_) => return Err("`url` is not a string".into()),
            None => return Err("has no `url`".into()),
        };
        let url = Url::parse(&url).map_err(|e| format!("its URL is not valid ({e})"))?;
        let transport = if kind.as_deref() == Some("sse") {
            RemoteTransport::Sse
        } else {
            RemoteTransport::StreamableHttp
        };
        let mut headers = BTreeMap::new();
        for (header, value) in string_map(fields.remove("headers"), "headers")? {
            let value = if !value.is_empty() && looks_secret_header(&header, &value) {
                secrets.push((header_key(&header), format!("header {header}"), value));
                EnvValue::Secret
            } else {
                EnvValue::Plain(value)
            };
            headers.insert(header, value);
        }
        Server::Remote {
            url,
            transport,
            headers,
        }
    } else {
        let command = match fields.remove("command") {
            Some(Value::String(c)) => c,
            Some(_) => return Err("`command` is not a string".into()),
            None => return Err("has no `command`".into()),
        };
        let args = match fields.remove("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(scalar)
                .collect::<Option<Vec<_>>>()
                .ok_or("`args` is not a list of strings")?,
            Some(_) => return Err("`args` is not a list".into()),
        };
        let mut env = BTreeMap::new();
        for (var, value) in string_map(fields.remove("env"), "env")? {
            let value = if !value.is_empty() && looks_secret_name(&var) {
                secrets.push((env_key(&var), var.clone(), value));
                EnvValue::Secret
            } else {
                EnvValue::Plain(value)
            };
            env.insert(var, value);
        }
        Server::Stdio { command, args, env }
    };
    notes.extend(secrets_left_in_place(&server));
    for key in fields.keys() {
        let why = match key.as_str() {
            "envFile" => "Porthole does not read env files; put its variables in `env`",
            "cwd" => "Porthole starts servers in its own folder",
            _ => "Porthole does not use it",
        };
        notes.push(format!("`{key}` was left out ({why})"));
    }
    let connection = Connection {
        name: name.to_string(),
        enabled,
        agents: AgentScope::All,
        server,
    };
    Ok((connection, secrets, notes))
}

/// Secret-looking values that stay where they are written, in the file: a command-line option
/// named like a secret (`--api-key=...`, `--token ...`) or a URL query parameter (`?api_key=...`).
/// Porthole cannot move them to the keyring (the server reads them there), so it says so.
pub fn secrets_left_in_place(server: &Server) -> Vec<String> {
    match server {
        Server::Stdio { args, .. } => args
            .iter()
            .filter_map(|a| {
                let option = a.split('=').next()?;
                let name = option.trim_start_matches('-');
                (a.starts_with('-') && !name.is_empty() && looks_secret_name(name)).then(|| {
                    format!(
                        "its option `{option}` looks like it passes a secret, which stays in the                          file as written (give it in `env` if the server reads one there)"
                    )
                })
            })
            .collect(),
        Server::Remote { url, .. } => url
            .query_pairs()
            .filter(|(name, _)| looks_secret_name(name))
            .map(|(name, _)| {
                format!(
                    "its URL's query parameter `{name}` looks like a secret, which stays in the                      file as written (give it in a header if the server accepts one)"
                )
            })
            .collect(),
    }
}

/// The `${...}` variables in a server's strings (VS Code's `${input:...}`, `${env:...}`,
/// `${workspaceFolder}`, Claude Code's `${VAR}`), by name only.
fn variables_in(fields: &Map<String, Value>) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => {
                let mut rest = s.as_str();
                while let Some(at) = rest.find("${") {
                    let tail = &rest[at..];
                    let end = tail.find('}').map_or(tail.len(), |e| e + 1);
                    let var = format!("`{}`", &tail[..end]);
                    if !out.contains(&var) {
                        out.push(var);
                    }
                    rest = &tail[end..];
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(o) => o.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (key, value) in fields {
        if ["command", "args", "env", "url", "headers"].contains(&key.as_str()) {
            walk(value, &mut out);
        }
    }
    out
}

/// A string, or a number or boolean written for one.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_map(v: Option<Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(members)) => members
            .into_iter()
            .map(|(k, v)| match scalar(&v) {
                Some(s) => Ok((k, s)),
                None => Err(format!("`{what}.{k}` is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{what}` is not an object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_words_not_substrings() {
        for secret in [
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "GITHUB_PAT",
            "API_KEY",
            "OPENAI_APIKEY",
            "apiKey",
            "DB_PASSWORD",
            "CLIENT_SECRET",
            "AWS_SECRET_ACCESS_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SLACK_BOT_TOKEN",
            "authToken",
            "AUTH",
            "Authorization",
            "Proxy-Authorization",
            "X-API-Key",
            "X-Auth-Token",
            "Cookie",
        ] {
            assert!(looks_secret_name(secret), "{secret}");
        }
        for plain in [
            "PATH",
            "HOME",
            "KEYBOARD",
            "DEBUG",
            "PATTERN",
            "ROOT",
            "AUTHOR",
            "NODE_ENV",
            "Accept",
            "Content-Type",
            "X-Request-Id",
            "SPATIAL_INDEX",
        ] {
            assert!(!looks_secret_name(plain), "{plain}");
        }
        assert!(looks_secret_header("X-Custom", "Bearer fake-token"));
        assert!(looks_secret_header("X-Custom", "basic ZmFrZQ=="));
        assert!(!looks_secret_header("Accept", "application/json"));
    }

    #[test]
    fn names_are_made_valid() {
        assert_eq!(mcp_name("github"), "github");
        assert_eq!(mcp_name("My Server (beta)"), "My-Server-beta");
        assert_eq!(mcp_name("@scope/pkg.name"), "scope-pkg-name");
        assert_eq!(mcp_name("ünï"), "n");
        assert_eq!(mcp_name("日本"), "server");
        assert_eq!(mcp_name(&"a".repeat(100)).len(), MAX_NAME_CHARS);
    }

    fn names(text: &str) -> Vec<String> {
        read(text)
            .unwrap()
            .entries
            .into_iter()
            .map(|e| match e {
                FoundEntry::Ready(c) => c.connection.name,
                FoundEntry::Skipped { reason, .. } => panic!("{reason}"),
            })
            .collect()
    }

    #[test]
    fn repeated_names_get_numbers_and_valid_names_stay() {
        let text = r#"{"mcpServers": {"a b": {"command": "1"}, "a-b": {"command": "2"},
            "a!b": {"command": "3"}, "a-b-2": {"command": "4"}},
            "servers": {"a-b": {"command": "5"}}}"#;
        assert_eq!(names(text), ["a-b-3", "a-b", "a-b-4", "a-b-2", "a-b-5"]);
    }

    #[test]
    fn secrets_that_cannot_move_are_named_not_hidden() {
        let text = r#"{"mcpServers": {
            "a": {"command": "srv", "args": ["--api-key=fake-arg-1", "--port", "80", "--token", "fake-arg-2", "-e", "GITHUB_TOKEN"]},
            "b": {"url": "https://e.com/mcp?api_key=fake-query-3&lang=en"}}}"#;
        let found = read(text).unwrap();
        let notes: Vec<Vec<String>> = found
            .entries
            .iter()
            .map(|e| match e {
                FoundEntry::Ready(c) => c.notes.clone(),
                FoundEntry::Skipped { reason, .. } => panic!("{reason}"),
            })
            .collect();
        assert_eq!(notes[0].len(), 2, "{notes:?}");
        assert!(notes[0][0].contains("`--api-key`") && notes[0][1].contains("`--token`"));
        assert_eq!(notes[1].len(), 1, "{notes:?}");
        assert!(notes[1][0].contains("`api_key`"));
        assert!(!format!("{notes:?}").contains("fake-"), "{notes:?}");
    }

    #[test]
    fn candidates_never_show_their_values() {
        let found =
            read(r#"{"mcpServers": {"x": {"command": "c", "env": {"TOKEN": "fake-value-1"}}}}"#).unwrap();
        let shown = format!("{found:?}");
        assert!(
            shown.contains("TOKEN") && !shown.contains("fake-value-1"),
            "{shown}"
        );
    }

    #[test]
    fn text_without_servers_says_what_it_looked_for() {
        let err = read(r#"{"theme": "One Dark"}"#).unwrap_err().to_string();
        assert!(
            err.contains("mcpServers") && err.contains("context_servers"),
            "{err}"
        );
        let err = read("{ nope: [ }").unwrap_err().to_string();
        assert!(err.contains("not valid JSON"), "{err}");
    }
}
