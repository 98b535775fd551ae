//! The connections file and its model: the MCP servers a person connects once, in the order
//! they listed them, keyed by the name an agent sees:
//!
//! ```json
//! { "connections": {
//!     "github": { "url": "https://api.githubcopilot.com/mcp/",
//!                 "headers": { "Authorization": { "secret": true } } },
//!     "docs": { "url": "http://127.0.0.1:8931/sse", "transport": "sse", "agents": ["claude-code"] },
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"],
//!                "env": { "ROOT": "/home/me", "TOKEN": { "secret": true } }, "enabled": false } } }
//! ```
//!
//! The file may hold comments and trailing commas, so it is read as JSONC
//! (`porthole_profiles::jsonc`); Porthole writes it
//! back plain (a temp file renamed over it, mode 0600). A file that cannot be read is an error
//! naming it, and is never overwritten. `{"secret": true}` marks a value kept in the OS keyring
//! ([`crate::secrets`]); the file never holds it. docs/connections.md describes every field.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use porthole_elicitation::loopback::is_loopback_host;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use url::Url;

pub use crate::names::{MAX_NAME_CHARS, valid_name};

/// Overrides the connections file's path.
pub const FILE_ENV: &str = "PORTHOLE_CONNECTIONS_FILE";
/// Far more than any list of connections; a bigger file is not one.
pub const MAX_FILE_BYTES: u64 = 4 << 20;
const MAX_AGENT_ID_CHARS: usize = 128;

/// One MCP server, as every agent gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    /// Unique in the list; the MCP server name agents see. See [`valid_name`].
    pub name: String,
    /// A disabled connection stays in the list but is handed to no agent.
    pub enabled: bool,
    pub agents: AgentScope,
    pub server: Server,
}

/// Which agents get a connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum AgentScope {
    #[default]
    All,
    /// These agent ids only (the ids of the agents file and of installed agents).
    Only(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// A process Porthole starts, talking MCP on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, EnvValue>,
    },
    /// A server at a URL.
    Remote {
        url: Url,
        transport: RemoteTransport,
        headers: BTreeMap<String, EnvValue>,
    },
}

/// How a remote server is spoken to: the one type the file, the hand-off, the window and the
/// CLI use, so a transport added here is a compiler error wherever one must be handled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RemoteTransport {
    /// MCP's Streamable HTTP (`"transport": "http"` in the file).
    #[default]
    #[serde(rename = "http")]
    StreamableHttp,
    /// The older HTTP+SSE transport (`"transport": "sse"`).
    #[serde(rename = "sse")]
    Sse,
}

impl RemoteTransport {
    /// Every transport, for choices offered (the CLI's `--transport`).
    pub const ALL: [RemoteTransport; 2] = [RemoteTransport::StreamableHttp, RemoteTransport::Sse];

    /// Its name in the file, the CLI and the window (`http`, `sse`).
    pub fn name(self) -> &'static str {
        match self {
            RemoteTransport::StreamableHttp => "http",
            RemoteTransport::Sse => "sse",
        }
    }
}

impl std::str::FromStr for RemoteTransport {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|t| t.name() == s).ok_or_else(|| {
            let names: Vec<String> = Self::ALL.iter().map(|t| format!("\"{}\"", t.name())).collect();
            format!("`transport` is {}", names.join(" or "))
        })
    }
}

/// A variable's or a header's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    Plain(String),
    /// Kept in the OS keyring ([`crate::secrets::env_key`] / [`crate::secrets::header_key`]),
    /// `{"secret": true}` in the file.
    Secret,
}

impl EnvValue {
    pub fn is_secret(&self) -> bool {
        matches!(self, EnvValue::Secret)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("cannot read {path}: {error}")]
    Read { path: String, error: String },
    #[error("{path} is not valid JSON (comments and trailing commas are fine): {error}")]
    Parse { path: String, error: String },
    #[error("{path}: {problem}")]
    Content { path: String, problem: String },
    #[error("connection `{name}`: {problem}")]
    Invalid { name: String, problem: String },
    #[error("a connection named `{0}` exists already")]
    Duplicate(String),
    #[error("no connection named `{0}`")]
    NotFound(String),
    #[error(
        "{path} is left as it is: it is not a connections file Porthole can read ({error}); \
         fix or move it first"
    )]
    WontOverwrite { path: String, error: String },
    #[error("cannot write {path}: {error}")]
    Write { path: String, error: String },
}

/// `$PORTHOLE_CONNECTIONS_FILE`, else `~/.config/porthole/connections.json` on Linux (the
/// platform config dir elsewhere).
pub fn default_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(FILE_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    dirs::config_dir().map(|d| d.join("porthole").join("connections.json"))
}

/// Why `url` cannot be a remote server's URL: https, or plain http only to this computer
/// (localhost, 127.0.0.0/8, ::1), and no user or password in it. The message never repeats the
/// URL (its query may hold a token).
pub fn check_url(url: &Url) -> Result<(), String> {
    let host = url.host();
    match (url.scheme(), &host) {
        (_, None) => return Err("the URL has no host".into()),
        ("https", _) => {}
        ("http", Some(host)) if is_loopback_host(host) => {}
        ("http", Some(host)) => {
            return Err(format!(
                "plain http is only for a server on this computer (localhost, 127.0.0.1, ::1), \
                 not {host}: use https"
            ));
        }
        (scheme, _) => {
            return Err(format!("the URL is `{scheme}:`; an MCP server's URL is https"));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "the URL holds a user name or password, which would be kept in the file; give it \
             in a header instead (its value goes to the keyring)"
                .into(),
        );
    }
    Ok(())
}

impl Connection {
    /// Enabled, for every agent.
    pub fn new(name: impl Into<String>, server: Server) -> Self {
        Self {
            name: name.into(),
            enabled: true,
            agents: AgentScope::All,
            server,
        }
    }

    /// Whether `agent_id` gets this connection (when it is enabled).
    pub fn includes(&self, agent_id: &str) -> bool {
        match &self.agents {
            AgentScope::All => true,
            AgentScope::Only(ids) => ids.iter().any(|id| id == agent_id),
        }
    }

    /// The keyring keys of its secret values (see [`crate::secrets`]), variables then headers.
    pub fn secret_keys(&self) -> Vec<String> {
        let (map, key): (_, fn(&str) -> String) = match &self.server {
            Server::Stdio { env, .. } => (env, crate::secrets::env_key),
            Server::Remote { headers, .. } => (headers, crate::secrets::header_key),
        };
        map.iter()
            .filter(|(_, v)| v.is_secret())
            .map(|(name, _)| key(name))
            .collect()
    }

    /// Every rule a connection in the list keeps.
    pub fn validate(&self) -> Result<(), ListError> {
        self.problem().map_err(|problem| ListError::Invalid {
            name: self.name.clone(),
            problem,
        })
    }

    fn problem(&self) -> Result<(), String> {
        if !valid_name(&self.name) {
            return Err(format!(
                "a name is 1 to {MAX_NAME_CHARS} ASCII letters, digits, `-` or `_`, starting \
                 with a letter or digit"
            ));
        }
        if let AgentScope::Only(ids) = &self.agents {
            if ids.is_empty() {
                return Err("the list of agents is empty (disable the connection instead)".into());
            }
            for id in ids {
                if id.is_empty()
                    || id.chars().count() > MAX_AGENT_ID_CHARS
                    || id.chars().any(|c| c.is_control() || c.is_whitespace())
                {
                    return Err(format!("`{id}` is not an agent id"));
                }
            }
        }
        match &self.server {
            Server::Stdio { command, args, env } => {
                if command.trim().is_empty() {
                    return Err("the command is empty".into());
                }
                if command.contains('\0') || args.iter().any(|a| a.contains('\0')) {
                    return Err("the command line holds a NUL character".into());
                }
                for (name, value) in env {
                    if name.is_empty() || name.contains(['=', '\0']) {
                        return Err(format!("`{name}` is not an environment variable name"));
                    }
                    if matches!(value, EnvValue::Plain(v) if v.contains('\0')) {
                        return Err(format!("the value of {name} holds a NUL character"));
                    }
                }
            }
            Server::Remote { url, headers, .. } => {
                check_url(url)?;
                for (name, value) in headers {
                    let token = !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c));
                    if !token {
                        return Err(format!("`{name}` is not a header name"));
                    }
                    if matches!(value, EnvValue::Plain(v) if v.contains(['\r', '\n', '\0'])) {
                        return Err(format!("the value of header {name} holds a line break"));
                    }
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for RemoteTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The list: ordered as the person listed them, names unique, every connection valid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Connections {
    list: Vec<Connection>,
}

impl Connections {
    pub fn new() -> Self {
        Self::default()
    }

    /// Read the file; a missing file is an empty list, anything unreadable an error naming it.
    pub fn load(path: &Path) -> Result<Self, ListError> {
        match read_limited(path) {
            Ok(Some(text)) => Self::parse(&text, &path.display().to_string()),
            Ok(None) => Ok(Self::default()),
            Err(error) => Err(ListError::Read {
                path: path.display().to_string(),
                error,
            }),
        }
    }

    /// Parse the file's text (`path_for_errors` names it in errors).
    pub fn parse(text: &str, path_for_errors: &str) -> Result<Self, ListError> {
        let file: RawFile = porthole_profiles::jsonc::from_str(text).map_err(|e| ListError::Parse {
            path: path_for_errors.to_string(),
            error: e.to_string(),
        })?;
        let content = |problem: String| ListError::Content {
            path: path_for_errors.to_string(),
            problem,
        };
        let mut list = Self::default();
        for (name, value) in file.connections.0 {
            let connection =
                from_json(&name, &value).map_err(|p| content(format!("connection `{name}`: {p}")))?;
            list.add(connection).map_err(|e| content(e.to_string()))?;
        }
        Ok(list)
    }

    /// The file's text: plain JSON, two-space indents, defaults left out.
    pub fn to_text(&self) -> String {
        let connections: Map<String, Value> =
            self.list.iter().map(|c| (c.name.clone(), to_json(c))).collect();
        let mut file = Map::new();
        file.insert("connections".into(), Value::Object(connections));
        let mut text = serde_json::to_string_pretty(&Value::Object(file)).expect("plain data serializes");
        text.push('\n');
        text
    }

    /// Write the file atomically (a temp file beside it, renamed over it), mode 0600. A file
    /// already there that cannot be read as a connections file is left as it is (an error):
    /// whatever it holds is not lost. A symlink is followed, so the file it points at is replaced.
    pub fn save(&self, path: &Path) -> Result<(), ListError> {
        let target = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => path.to_path_buf(),
        };
        let shown = path.display().to_string();
        if let Err(e) = Self::load(&target) {
            return Err(ListError::WontOverwrite {
                path: shown,
                error: e.to_string(),
            });
        }
        write_atomically(&target, self.to_text().as_bytes()).map_err(|e| ListError::Write {
            path: shown,
            error: e.to_string(),
        })
    }

    /// Append a connection; refuses an invalid one and a name already in the list.
    pub fn add(&mut self, connection: Connection) -> Result<(), ListError> {
        connection.validate()?;
        if self.get(&connection.name).is_some() {
            return Err(ListError::Duplicate(connection.name));
        }
        self.list.push(connection);
        Ok(())
    }

    /// Take a connection out of the list (its keyring secrets are the caller's to delete, see
    /// [`Connection::secret_keys`]).
    pub fn remove(&mut self, name: &str) -> Result<Connection, ListError> {
        let at = self
            .list
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| ListError::NotFound(name.to_string()))?;
        Ok(self.list.remove(at))
    }

    pub fn get(&self, name: &str) -> Option<&Connection> {
        self.list.iter().find(|c| c.name == name)
    }

    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> Result<(), ListError> {
        let connection = self
            .list
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| ListError::NotFound(name.to_string()))?;
        connection.enabled = enabled;
        Ok(())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Connection> {
        self.list.iter()
    }

    /// The enabled connections `agent_id` gets, in list order.
    pub fn for_agent<'a>(&'a self, agent_id: &'a str) -> impl Iterator<Item = &'a Connection> + 'a {
        self.list
            .iter()
            .filter(move |c| c.enabled && c.includes(agent_id))
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The file's text, `None` when there is no file; bigger than [`MAX_FILE_BYTES`] is an error.
fn read_limited(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("it is bigger than {} MiB", MAX_FILE_BYTES >> 20));
    }
    Ok(Some(text))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".connections-")
        .suffix(".tmp")
        .tempfile_in(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // The rename itself survives a crash once the folder is synced (best effort).
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The top level: an object with `connections` (or nothing) and no other member.
struct RawFile {
    connections: Ordered,
}

impl<'de> Deserialize<'de> for RawFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object with `connections`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFile, A::Error> {
                let mut connections = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "connections" {
                        return Err(serde::de::Error::unknown_field(&key, &["connections"]));
                    }
                    if connections.is_some() {
                        return Err(serde::de::Error::duplicate_field("connections"));
                    }
                    connections = Some(map.next_value::<Ordered>()?);
                }
                Ok(RawFile {
                    connections: connections.unwrap_or_default(),
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// A JSON object's members in file order, duplicates kept (a name twice is an error, not a
/// silent overwrite).
#[derive(Default)]
pub(crate) struct Ordered(pub(crate) Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of names to servers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, Value>()? {
                    members.push(member);
                }
                Ok(Ordered(members))
            }
        }
        d.deserialize_map(V)
    }
}

const STDIO_FIELDS: [&str; 3] = ["command", "args", "env"];
const REMOTE_FIELDS: [&str; 3] = ["url", "transport", "headers"];
const COMMON_FIELDS: [&str; 2] = ["agents", "enabled"];

fn from_json(name: &str, value: &Value) -> Result<Connection, String> {
    let Value::Object(entry) = value else {
        return Err("is not an object".into());
    };
    let remote = match (entry.contains_key("command"), entry.contains_key("url")) {
        (true, false) => false,
        (false, true) => true,
        (true, true) => return Err("has both `command` and `url`; a connection is one of them".into()),
        (false, false) => return Err("has neither `command` nor `url`".into()),
    };
    let (own, other) = if remote {
        (REMOTE_FIELDS, STDIO_FIELDS)
    } else {
        (STDIO_FIELDS, REMOTE_FIELDS)
    };
    for key in entry.keys() {
        if other.contains(&key.as_str()) {
            let kind = if remote { "a URL" } else { "a command" };
            return Err(format!("`{key}` does not go with {kind}"));
        }
        if !own.contains(&key.as_str()) && !COMMON_FIELDS.contains(&key.as_str()) {
            return Err(format!("unknown field `{key}`"));
        }
    }
    let string = |key: &str| match entry.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(format!("`{key}` is not a string")),
    };
    let server = if remote {
        let url = Url::parse(&string("url")?).map_err(|e| format!("`url` is not a URL ({e})"))?;
        let transport = match entry.get("transport") {
            None => RemoteTransport::default(),
            Some(Value::String(t)) => t.parse()?,
            Some(_) => return Err(RemoteTransport::from_str("").unwrap_err()),
        };
        Server::Remote {
            url,
            transport,
            headers: values(entry.get("headers"), "headers")?,
        }
    } else {
        let args = match entry.get("args") {
            None => Vec::new(),
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| "`args` is not a list of strings")?,
        };
        Server::Stdio {
            command: string("command")?,
            args,
            env: values(entry.get("env"), "env")?,
        }
    };
    let agents = match entry.get("agents") {
        None => AgentScope::All,
        Some(Value::String(all)) if all == "all" => AgentScope::All,
        Some(v) => AgentScope::Only(
            serde_json::from_value(v.clone()).map_err(|_| "`agents` is a list of agent ids (or \"all\")")?,
        ),
    };
    let enabled = match entry.get("enabled") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`enabled` is true or false".into()),
    };
    let connection = Connection {
        name: name.to_string(),
        enabled,
        agents,
        server,
    };
    connection.problem()?;
    Ok(connection)
}

/// `env` or `headers`: name to a string, or `{"secret": true}`.
fn values(value: Option<&Value>, what: &str) -> Result<BTreeMap<String, EnvValue>, String> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(members) = value else {
        return Err(format!("`{what}` is not an object"));
    };
    let mut out = BTreeMap::new();
    for (name, v) in members {
        let v = match v {
            Value::String(s) => EnvValue::Plain(s.clone()),
            Value::Object(o) if o.len() == 1 && o.get("secret") == Some(&Value::Bool(true)) => {
                EnvValue::Secret
            }
            _ => {
                return Err(format!("`{what}.{name}` is a string or {{\"secret\": true}}"));
            }
        };
        out.insert(name.clone(), v);
    }
    Ok(out)
}

fn to_json(c: &Connection) -> Value {
    let mut entry = Map::new();
    let values = |map: &BTreeMap<String, EnvValue>| -> Value {
        map.iter()
            .map(|(k, v)| {
                let v = match v {
                    EnvValue::Plain(s) => Value::String(s.clone()),
                    EnvValue::Secret => serde_json::json!({ "secret": true }),
                };
                (k.clone(), v)
            })
            .collect::<Map<_, _>>()
            .into()
    };
    match &c.server {
        Server::Stdio { command, args, env } => {
            entry.insert("command".into(), command.clone().into());
            if !args.is_empty() {
                entry.insert("args".into(), args.clone().into());
            }
            if !env.is_empty() {
                entry.insert("env".into(), values(env));
            }
        }
        Server::Remote {
            url,
            transport,
            headers,
        } => {
            entry.insert("url".into(), url.as_str().into());
            if *transport != RemoteTransport::StreamableHttp {
                entry.insert("transport".into(), transport.to_string().into());
            }
            if !headers.is_empty() {
                entry.insert("headers".into(), values(headers));
            }
        }
    }
    if let AgentScope::Only(ids) = &c.agents {
        entry.insert("agents".into(), ids.clone().into());
    }
    if !c.enabled {
        entry.insert("enabled".into(), false.into());
    }
    Value::Object(entry)
}

/// A connection as JSON, in the file's shape with its name and every default spelled out (for
/// `porthole-cli mcp list --json` and the window).
pub fn connection_json(c: &Connection) -> Value {
    let Value::Object(fields) = to_json(c) else {
        unreachable!("to_json makes an object")
    };
    let mut out = Map::new();
    out.insert("name".into(), c.name.clone().into());
    out.insert("enabled".into(), c.enabled.into());
    out.insert(
        "agents".into(),
        match &c.agents {
            AgentScope::All => "all".into(),
            AgentScope::Only(ids) => ids.clone().into(),
        },
    );
    if let Server::Remote { transport, .. } = &c.server {
        out.insert("transport".into(), transport.to_string().into());
    }
    for (k, v) in fields {
        if k != "agents" && k != "enabled" {
            out.entry(k).or_insert(v);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests;
