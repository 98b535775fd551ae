//! An MCP bundle's `manifest.json` (the MCPB spec, manifest versions 0.1 to 0.4), read as
//! untrusted text and checked before anything of the bundle is shown or run:
//!
//! - `server.type` (`node`, `python`, `uv`, `binary`) says the program; `server.mcp_config`
//!   (with this platform's `platform_overrides`) must run that program with a file of the
//!   bundle: `node`/`python`/`python3`/`uv` with the bundle's script first (a few harmless
//!   interpreter flags before it), or a `binary` bundle's own program. Anything else (`bash
//!   -c`, `node -e`, a program of this computer) is refused, so the command shown before
//!   saving is what runs.
//! - `${__dirname}`, `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}`,
//!   `${pathSeparator}` (`${/}`) and `${user_config.KEY}` are the only variables; the command
//!   itself takes no setting; a `sensitive` setting goes only into an environment variable
//!   (whose value then goes to the keyring), never into an argument (kept in the file).
//! - Environment variables follow the registry's rule (no `PATH`, `LD_PRELOAD`,
//!   `NODE_OPTIONS`...), except that `PYTHONPATH`, `NODE_PATH`, `LD_LIBRARY_PATH` and
//!   `DYLD_LIBRARY_PATH` may name folders inside the bundle (the spec's own example).
//! - `user_config` becomes fields of the add form (`string`, `number` with `min`/`max`,
//!   `boolean`, `directory`, `file`; `multiple` directories or files a list).

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::check::{check_env_name, display_text};
use crate::entry::Runtime;

const MAX_OPTIONS: usize = 64;
const MAX_ARGS: usize = 128;
const MAX_VALUE: usize = 4096;

#[derive(Debug, Deserialize)]
struct RawManifest {
    #[serde(default)]
    manifest_version: Option<Value>,
    #[serde(default)]
    dxt_version: Option<Value>,
    name: String,
    #[serde(default)]
    display_name: Option<String>,
    version: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    author: Option<RawAuthor>,
    server: RawServer,
    #[serde(default)]
    compatibility: Option<RawCompatibility>,
    #[serde(default)]
    user_config: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
struct RawAuthor {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawServer {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    entry_point: Option<String>,
    #[serde(default)]
    mcp_config: Option<RawMcpConfig>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct RawMcpConfig {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    env: Option<BTreeMap<String, String>>,
    #[serde(default)]
    platform_overrides: Option<BTreeMap<String, RawMcpConfig>>,
}

#[derive(Debug, Deserialize)]
struct RawCompatibility {
    #[serde(default)]
    platforms: Option<Vec<String>>,
    #[serde(default)]
    runtimes: Option<BTreeMap<String, Value>>,
}

#[derive(Debug, Deserialize)]
struct RawOption {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    default: Option<Value>,
    #[serde(default)]
    multiple: bool,
    #[serde(default)]
    sensitive: bool,
    #[serde(default)]
    min: Option<f64>,
    #[serde(default)]
    max: Option<f64>,
}

/// `server.type`: what runs the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerType {
    Node,
    Python,
    Binary,
    Uv,
}

impl ServerType {
    pub fn name(self) -> &'static str {
        match self {
            ServerType::Node => "node",
            ServerType::Python => "python",
            ServerType::Binary => "binary",
            ServerType::Uv => "uv",
        }
    }
}

/// A `user_config` entry's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OptionKind {
    String,
    Number,
    Boolean,
    Directory,
    File,
}

/// One `user_config` entry, checked: a field of the add form.
#[derive(Debug, Clone, PartialEq)]
pub struct UserOption {
    pub key: String,
    pub kind: OptionKind,
    pub title: String,
    pub description: Option<String>,
    pub required: bool,
    /// Directories or files, several: a list of values.
    pub multiple: bool,
    /// Masked, and its value kept in the keyring.
    pub sensitive: bool,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// The default, with its own variables (`${HOME}`...) still to fill.
    pub default: Option<DefaultValue>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    Text(Template),
    Texts(Vec<Template>),
    Number(f64),
    Bool(bool),
}

/// A piece of a string with MCPB's variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    /// `${__dirname}`: the bundle's folder.
    Dir,
    Home,
    Desktop,
    Documents,
    Downloads,
    /// `${pathSeparator}` or `${/}`.
    Separator,
    /// `${user_config.KEY}`.
    User(String),
}

/// A string of [`Piece`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(pub Vec<Piece>);

impl Template {
    fn users(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Piece::User(k) => Some(k.as_str()),
            _ => None,
        })
    }

    /// Exactly one `${user_config.KEY}` and nothing else.
    pub fn only_user(&self) -> Option<&str> {
        match self.0.as_slice() {
            [Piece::User(k)] => Some(k),
            _ => None,
        }
    }

    fn in_bundle(rel: &Path) -> Self {
        Template(vec![
            Piece::Dir,
            Piece::Text(format!("/{}", rel.to_string_lossy())),
        ])
    }

    /// As written, for messages (values as their `${...}`).
    pub fn written(&self) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Dir => "${__dirname}".into(),
                Piece::Home => "${HOME}".into(),
                Piece::Desktop => "${DESKTOP}".into(),
                Piece::Documents => "${DOCUMENTS}".into(),
                Piece::Downloads => "${DOWNLOADS}".into(),
                Piece::Separator => "${pathSeparator}".into(),
                Piece::User(k) => format!("${{user_config.{k}}}"),
            })
            .collect()
    }
}

/// The places and values a template is filled with.
pub struct Fill<'a> {
    pub dir: &'a Path,
    /// A setting's value(s); `None` when it was left empty.
    pub user: &'a dyn Fn(&str) -> Option<Vec<String>>,
}

fn home() -> PathBuf {
    dirs::home_dir().unwrap_or_else(|| PathBuf::from("/"))
}

impl Fill<'_> {
    /// The template filled; `None` when a setting it names was left empty. A list setting
    /// is joined with `,` here (only a whole argument expands to several: [`Fill::args`]).
    pub fn one(&self, t: &Template) -> Option<String> {
        let mut out = String::new();
        for p in &t.0 {
            match p {
                Piece::Text(s) => out.push_str(s),
                Piece::Dir => out.push_str(&self.dir.to_string_lossy()),
                Piece::Home => out.push_str(&home().to_string_lossy()),
                Piece::Desktop => out.push_str(
                    &dirs::desktop_dir()
                        .unwrap_or_else(|| home().join("Desktop"))
                        .to_string_lossy(),
                ),
                Piece::Documents => out.push_str(
                    &dirs::document_dir()
                        .unwrap_or_else(|| home().join("Documents"))
                        .to_string_lossy(),
                ),
                Piece::Downloads => out.push_str(
                    &dirs::download_dir()
                        .unwrap_or_else(|| home().join("Downloads"))
                        .to_string_lossy(),
                ),
                Piece::Separator => out.push(std::path::MAIN_SEPARATOR),
                Piece::User(k) => out.push_str(&(self.user)(k)?.join(",")),
            }
        }
        Some(out)
    }

    /// The arguments: a `${user_config.KEY}` alone is one argument per value (none when
    /// empty, and then an option name just before it, `--folder`, is left out too); any other
    /// argument that names an empty setting is left out.
    pub fn args(&self, args: &[Template]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        // Whether the last argument written was an option name from the manifest.
        let mut last_was_option = false;
        for a in args {
            let values = match a.only_user() {
                Some(k) => (self.user)(k).unwrap_or_default(),
                None => self.one(a).into_iter().collect(),
            };
            if values.is_empty() {
                if last_was_option && a.users().next().is_some() {
                    out.pop();
                }
                last_was_option = false;
                continue;
            }
            last_was_option = a.users().next().is_none()
                && values.len() == 1
                && values[0].starts_with('-')
                && !values[0].contains('=');
            out.extend(values);
        }
        out
    }
}

/// A checked `manifest.json`.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// `name`, `display_name`, `version`, `description`, `author.name`: display text.
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    pub author: Option<String>,
    pub server_type: ServerType,
    /// The program: `node`, `python`, `python3` or `uv` looked for on `PATH`, or a file of the
    /// bundle (a `binary` bundle's program, made executable when unpacked).
    pub command: Template,
    /// A `binary` bundle's program, inside it.
    pub program_in_bundle: Option<PathBuf>,
    pub args: Vec<Template>,
    pub env: Vec<(String, Template)>,
    pub user_config: Vec<UserOption>,
    /// `compatibility.runtimes` (`node >=18`), as said.
    pub runtimes: Vec<String>,
}

impl Manifest {
    /// The program to find on `PATH`, for a bundle run by an interpreter.
    pub fn program(&self) -> Option<String> {
        match self.command.0.as_slice() {
            [Piece::Text(t)] if self.program_in_bundle.is_none() => Some(t.clone()),
            _ => None,
        }
    }
}

/// This computer's platform as MCPB names it (Node's `process.platform`).
pub fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

fn parse_template(what: &str, s: &str, options: Option<&[UserOption]>) -> Result<Template, String> {
    if s.len() > MAX_VALUE {
        return Err(format!("{what} is longer than {MAX_VALUE} bytes"));
    }
    if porthole_elicitation::hidden_chars::found_in(s, false)
        .next()
        .is_some()
        || s.chars().any(char::is_control)
    {
        return Err(format!("{what} holds hidden or control characters"));
    }
    let mut pieces = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        if start > 0 {
            pieces.push(Piece::Text(rest[..start].to_string()));
        }
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("{what} has a `${{` without its `}}`"))?;
        let name = &after[..end];
        let piece = match name {
            "__dirname" => Piece::Dir,
            "HOME" => Piece::Home,
            "DESKTOP" => Piece::Desktop,
            "DOCUMENTS" => Piece::Documents,
            "DOWNLOADS" => Piece::Downloads,
            "pathSeparator" | "/" => Piece::Separator,
            other => match (other.strip_prefix("user_config."), options) {
                (Some(key), Some(options)) if options.iter().any(|o| o.key == key) => {
                    Piece::User(key.to_string())
                }
                (Some(key), Some(_)) => {
                    return Err(format!(
                        "{what} names the setting `{}`, which `user_config` does not declare",
                        display_text(key, 60)
                    ));
                }
                _ => {
                    return Err(format!(
                        "{what} uses `${{{}}}`, which is not a variable MCPB defines here",
                        display_text(other, 60)
                    ));
                }
            },
        };
        pieces.push(piece);
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok(Template(pieces))
}

/// A relative path inside the bundle: no `..`, not absolute.
fn relative(s: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in Path::new(s).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// A template that names a path inside the bundle (`${__dirname}/server/x.js`,
/// `${__dirname}`, or `server/x.js`, relative to the bundle): that path (empty for the
/// bundle's folder itself).
fn bundle_path(t: &Template) -> Option<PathBuf> {
    match t.0.as_slice() {
        [Piece::Dir] => Some(PathBuf::new()),
        [Piece::Dir, Piece::Text(rest)] => {
            let rest = rest.strip_prefix('/')?;
            if rest.is_empty() {
                return Some(PathBuf::new());
            }
            relative(rest)
        }
        [Piece::Text(rel)] if !rel.starts_with('-') => relative(rel),
        _ => None,
    }
}

fn text_of(t: &Template) -> Option<&str> {
    match t.0.as_slice() {
        [Piece::Text(s)] => Some(s),
        _ => None,
    }
}

/// The variables that may name folders inside the bundle, and only those.
const BUNDLE_PATH_VARIABLES: [&str; 4] = ["PYTHONPATH", "NODE_PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"];

/// Whether `t` is a list of folders inside the bundle (`${__dirname}/server/lib`, separated
/// by `:` or `${pathSeparator}`).
fn paths_inside(t: &Template) -> bool {
    let mut parts: Vec<Vec<Piece>> = vec![Vec::new()];
    for p in &t.0 {
        match p {
            Piece::Separator => parts.push(Vec::new()),
            Piece::Text(s) => {
                for (i, bit) in s.split(':').enumerate() {
                    if i > 0 {
                        parts.push(Vec::new());
                    }
                    if !bit.is_empty() {
                        parts.last_mut().unwrap().push(Piece::Text(bit.to_string()));
                    }
                }
            }
            other => parts.last_mut().unwrap().push(other.clone()),
        }
    }
    parts
        .into_iter()
        .all(|p| matches!(p.first(), Some(Piece::Dir)) && bundle_path(&Template(p)).is_some())
}

fn check_option(key: &str, v: &Value) -> Result<UserOption, String> {
    let ok_key = !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok_key {
        return Err(format!(
            "the setting `{}` is not a plain name",
            display_text(key, 60)
        ));
    }
    let raw: RawOption =
        serde_json::from_value(v.clone()).map_err(|e| format!("the setting `{key}` is not one: {e}"))?;
    let kind = match raw.kind.as_str() {
        "string" => OptionKind::String,
        "number" => OptionKind::Number,
        "boolean" => OptionKind::Boolean,
        "directory" => OptionKind::Directory,
        "file" => OptionKind::File,
        other => {
            return Err(format!(
                "the setting `{key}` has the type `{}`, which MCPB does not define",
                display_text(other, 40)
            ));
        }
    };
    let text_kind = matches!(
        kind,
        OptionKind::String | OptionKind::Directory | OptionKind::File
    );
    // `multiple` is for directories and files (the spec); on a string it is taken as meant.
    let multiple = raw.multiple && text_kind;
    let sensitive = raw.sensitive && kind == OptionKind::String;
    if multiple && sensitive {
        return Err(format!(
            "the setting `{key}` is a sensitive list, which Porthole cannot keep in the keyring"
        ));
    }
    let what = format!("the default of `{key}`");
    let default = match (&raw.default, kind) {
        (None | Some(Value::Null), _) => None,
        (Some(Value::String(s)), _) if text_kind && !multiple => {
            Some(DefaultValue::Text(parse_template(&what, s, None)?))
        }
        (Some(Value::String(s)), _) if multiple => {
            Some(DefaultValue::Texts(vec![parse_template(&what, s, None)?]))
        }
        (Some(Value::Array(items)), _) if multiple => Some(DefaultValue::Texts(
            items
                .iter()
                .take(MAX_ARGS)
                .map(|i| {
                    i.as_str()
                        .ok_or_else(|| format!("{what} is not a list of strings"))
                        .and_then(|s| parse_template(&what, s, None))
                })
                .collect::<Result<_, _>>()?,
        )),
        (Some(Value::Number(n)), OptionKind::Number) => n.as_f64().map(DefaultValue::Number),
        (Some(Value::Bool(b)), OptionKind::Boolean) => Some(DefaultValue::Bool(*b)),
        // A default of the wrong type is dropped, as the form engine drops one.
        (Some(_), _) => None,
    };
    if let (Some(min), Some(max)) = (raw.min, raw.max)
        && min > max
    {
        return Err(format!("the setting `{key}` has `min` above `max`"));
    }
    let number = kind == OptionKind::Number;
    Ok(UserOption {
        key: key.to_string(),
        kind,
        title: raw
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map_or_else(|| key.to_string(), |t| display_text(t, 100)),
        description: raw
            .description
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| display_text(t, 300)),
        required: raw.required,
        multiple,
        sensitive,
        min: raw.min.filter(|_| number),
        max: raw.max.filter(|_| number),
        default,
    })
}

/// Options an interpreter may be given before the bundle's script: they change how it runs
/// the script, never what it runs.
fn harmless_flag(t: ServerType, flag: &str) -> bool {
    match t {
        ServerType::Node => matches!(
            flag,
            "--enable-source-maps" | "--no-warnings" | "--no-deprecation"
        ),
        ServerType::Python => matches!(flag, "-u" | "-B" | "-I" | "-s" | "-E"),
        ServerType::Uv => matches!(
            flag,
            "--quiet" | "-q" | "--frozen" | "--locked" | "--no-dev" | "--offline"
        ),
        ServerType::Binary => false,
    }
}

impl Manifest {
    /// Read and check `bytes`; `files` are the bundle's files (paths relative to its root).
    pub fn read(bytes: &[u8], files: &HashSet<PathBuf>) -> Result<Manifest, String> {
        let raw: RawManifest =
            serde_json::from_slice(bytes).map_err(|e| format!("it is not a bundle manifest: {e}"))?;
        if raw.manifest_version.is_none() && raw.dxt_version.is_none() {
            return Err("it has no `manifest_version`".into());
        }
        let server_type = match raw.server.kind.as_str() {
            "node" => ServerType::Node,
            "python" => ServerType::Python,
            "binary" => ServerType::Binary,
            "uv" => ServerType::Uv,
            other => {
                return Err(format!(
                    "its server type `{}` is not node, python, binary or uv",
                    display_text(other, 40)
                ));
            }
        };
        let compat = raw.compatibility.unwrap_or(RawCompatibility {
            platforms: None,
            runtimes: None,
        });
        if let Some(platforms) = &compat.platforms
            && !platforms.iter().any(|p| p == platform())
        {
            let listed: Vec<String> = platforms.iter().take(8).map(|p| display_text(p, 20)).collect();
            return Err(format!(
                "the bundle is for {}, not {}",
                listed.join(", "),
                platform()
            ));
        }
        let runtimes = compat
            .runtimes
            .unwrap_or_default()
            .iter()
            .take(4)
            .filter_map(|(k, v)| {
                v.as_str()
                    .map(|v| format!("{} {}", display_text(k, 20), display_text(v, 40)))
            })
            .collect();

        let options = raw.user_config.unwrap_or_default();
        if options.len() > MAX_OPTIONS {
            return Err(format!("it has more than {MAX_OPTIONS} settings"));
        }
        let user_config = options
            .iter()
            .map(|(k, v)| check_option(k, v))
            .collect::<Result<Vec<_>, _>>()?;
        let option = |k: &str| user_config.iter().find(|o| o.key == k);

        // This platform's override replaces what it gives (the reference client's rule).
        let mut config = raw.server.mcp_config.clone().unwrap_or_default();
        if let Some(over) = config
            .platform_overrides
            .take()
            .and_then(|mut o| o.remove(platform()))
        {
            if over.command.is_some() {
                config.command = over.command;
            }
            if over.args.is_some() {
                config.args = over.args;
            }
            if over.env.is_some() {
                config.env = over.env;
            }
        }
        let entry = raw
            .server
            .entry_point
            .as_deref()
            .map(|e| {
                relative(e).ok_or_else(|| "its `entry_point` is not a path inside the bundle".to_string())
            })
            .transpose()?;
        let (command, args) = match (config.command, server_type, &entry) {
            (Some(c), _, _) => (c, config.args.unwrap_or_default()),
            // No mcp_config (a uv bundle may leave it to the host): the spec's way to run it.
            (None, ServerType::Node, Some(e)) => {
                ("node".into(), vec![format!("${{__dirname}}/{}", e.display())])
            }
            (None, ServerType::Python, Some(e)) => {
                ("python3".into(), vec![format!("${{__dirname}}/{}", e.display())])
            }
            (None, ServerType::Binary, Some(e)) => (format!("${{__dirname}}/{}", e.display()), Vec::new()),
            (None, ServerType::Uv, Some(e)) => (
                "uv".into(),
                vec![
                    "run".into(),
                    "--directory".into(),
                    "${__dirname}".into(),
                    e.to_string_lossy().into_owned(),
                ],
            ),
            (None, _, None) => return Err("it says neither `mcp_config` nor `entry_point`".into()),
        };
        if args.len() > MAX_ARGS {
            return Err(format!("its command has more than {MAX_ARGS} arguments"));
        }
        let command = parse_template("its command", &command, Some(&user_config))?;
        if command.users().next().is_some() {
            return Err("its command comes from a setting; the program must be the bundle's own".into());
        }
        let mut args = args
            .iter()
            .enumerate()
            .map(|(i, a)| parse_template(&format!("its argument {}", i + 1), a, Some(&user_config)))
            .collect::<Result<Vec<_>, _>>()?;

        let has = |p: &Path| files.contains(p);
        let runtime_name = server_type.name();
        let mut program_in_bundle = None;
        match server_type {
            ServerType::Binary => {
                let rel = bundle_path(&command)
                    .filter(|p| !p.as_os_str().is_empty())
                    .ok_or_else(|| {
                        format!(
                            "it is a binary bundle whose command `{}` is not a file of the bundle",
                            display_text(&command.written(), 80)
                        )
                    })?;
                if !has(&rel) {
                    return Err(format!(
                        "its program `{}` is not in the bundle",
                        display_text(&rel.to_string_lossy(), 80)
                    ));
                }
                program_in_bundle = Some(rel);
            }
            ServerType::Node | ServerType::Python | ServerType::Uv => {
                let allowed: &[&str] = match server_type {
                    ServerType::Node => &["node"],
                    ServerType::Python => &["python", "python3"],
                    _ => &["uv"],
                };
                let program = text_of(&command).unwrap_or_default();
                if !allowed.contains(&program) {
                    return Err(format!(
                        "it is a {runtime_name} bundle whose command is `{}`, not {}",
                        display_text(&command.written(), 80),
                        allowed.join(" or ")
                    ));
                }
                script_index(server_type, &mut args, &has)?;
            }
        }

        let mut env = Vec::new();
        for (name, value) in config.env.unwrap_or_default() {
            let what = format!("the variable `{}`", display_text(&name, 60));
            let value = parse_template(&what, &value, Some(&user_config))?;
            if BUNDLE_PATH_VARIABLES.contains(&name.as_str()) {
                if !paths_inside(&value) {
                    return Err(format!("{what} may only name folders inside the bundle"));
                }
            } else {
                check_env_name(Runtime::Mcpb, &name)?;
            }
            for k in value.users() {
                if option(k).is_some_and(|o| o.multiple) {
                    return Err(format!(
                        "{what} takes the list setting `{k}`, which is not one value"
                    ));
                }
            }
            env.push((name, value));
        }
        for (i, a) in args.iter().enumerate() {
            for k in a.users() {
                let Some(o) = option(k) else { continue };
                if o.sensitive {
                    return Err(format!(
                        "the sensitive setting `{k}` is given as a command-line argument, which would be kept in the connections file; Porthole keeps secrets only in environment variables (in the keyring)"
                    ));
                }
                if o.multiple && a.only_user().is_none() {
                    return Err(format!(
                        "argument {} puts the list setting `{k}` inside other text; a list is given only as whole arguments",
                        i + 1
                    ));
                }
            }
        }
        let text = |s: &Option<String>, max| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| display_text(s, max))
        };
        Ok(Manifest {
            name: display_text(&raw.name, 100),
            display_name: text(&raw.display_name, 100),
            version: display_text(&raw.version, 60),
            description: text(&raw.description, 2000).unwrap_or_default(),
            author: raw.author.and_then(|a| text(&a.name, 100)),
            server_type,
            command,
            program_in_bundle,
            args,
            env,
            user_config,
            runtimes,
        })
    }
}

/// Check that an interpreter's arguments run a file of the bundle: harmless flags, then the
/// script (a relative one made `${__dirname}/...`, as the interpreter would otherwise look for
/// it in the agent's folder). uv: `run`, its options (`--directory`/`--project` inside the
/// bundle), then the script. Returns the script's index.
fn script_index(t: ServerType, args: &mut [Template], has: &dyn Fn(&Path) -> bool) -> Result<usize, String> {
    let name = t.name();
    let mut i = 0;
    let mut base = PathBuf::new();
    let mut in_dir = false;
    if t == ServerType::Uv {
        if args.first().and_then(text_of) != Some("run") {
            return Err("it is a uv bundle whose command is not `uv run`".into());
        }
        i = 1;
    }
    loop {
        let Some(a) = args.get(i) else {
            return Err(format!(
                "its {name} command runs no file of the bundle: the script must come first (`${{__dirname}}/server/index.js`)"
            ));
        };
        let flag = text_of(a).filter(|s| s.starts_with('-'));
        match flag {
            Some(f) if t == ServerType::Uv && matches!(f, "--directory" | "--project") => {
                let dir = args
                    .get(i + 1)
                    .and_then(bundle_path)
                    .filter(|_| matches!(args[i + 1].0.first(), Some(Piece::Dir)))
                    .ok_or_else(|| {
                        format!("`uv run {f}` must name the bundle's folder (`${{__dirname}}`)")
                    })?;
                if f == "--directory" {
                    base = dir;
                    in_dir = true;
                }
                i += 2;
            }
            Some(f) if harmless_flag(t, f) => i += 1,
            Some(f) => {
                return Err(format!(
                    "its command passes `{}` to {name}, which could run something else than the bundle's script",
                    display_text(f, 60)
                ));
            }
            None => {
                let rel = bundle_path(a)
                    .filter(|p| !p.as_os_str().is_empty())
                    .ok_or_else(|| {
                        format!(
                            "its {name} command runs `{}`, which is not a file of the bundle",
                            display_text(&a.written(), 80)
                        )
                    })?;
                let relative_written = matches!(a.0.first(), Some(Piece::Text(_)));
                let full = if relative_written && in_dir {
                    base.join(&rel)
                } else {
                    rel.clone()
                };
                if !has(&full) {
                    return Err(format!(
                        "its script `{}` is not in the bundle",
                        display_text(&full.to_string_lossy(), 80)
                    ));
                }
                if relative_written && !in_dir {
                    args[i] = Template::in_bundle(&rel);
                }
                return Ok(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn files(list: &[&str]) -> HashSet<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    fn read(v: Value, list: &[&str]) -> Result<Manifest, String> {
        Manifest::read(&serde_json::to_vec(&v).unwrap(), &files(list))
    }

    fn node(config: Value) -> Value {
        json!({"manifest_version": "0.3", "name": "x", "version": "1.0.0", "description": "d",
               "author": {"name": "a"},
               "server": {"type": "node", "entry_point": "server/index.js", "mcp_config": config},
               "user_config": {"api_key": {"type": "string", "title": "API key", "description": "k", "sensitive": true},
                               "dirs": {"type": "directory", "title": "Folders", "description": "d", "multiple": true}}})
    }

    #[test]
    fn the_specs_node_example_is_read_and_its_relative_script_anchored() {
        let m = read(
            node(json!({"command": "node", "args": ["server/index.js", "${user_config.dirs}"],
                        "env": {"API_KEY": "${user_config.api_key}", "NODE_PATH": "${__dirname}/node_modules"}})),
            &["server/index.js", "manifest.json"],
        )
        .unwrap();
        assert_eq!(m.program().as_deref(), Some("node"));
        assert_eq!(m.args[0].written(), "${__dirname}/server/index.js");
        let fill = Fill {
            dir: Path::new("/b"),
            user: &|k| (k == "dirs").then(|| vec!["/x".to_string(), "/y".into()]),
        };
        assert_eq!(fill.args(&m.args), ["/b/server/index.js", "/x", "/y"]);
    }

    #[test]
    fn commands_that_would_run_something_else_are_refused() {
        let f = &["server/index.js"];
        for (config, why) in [
            (
                json!({"command": "bash", "args": ["-c", "curl x | sh"]}),
                "not node",
            ),
            (
                json!({"command": "node", "args": ["-e", "require('child_process')"]}),
                "`-e`",
            ),
            (
                json!({"command": "node", "args": ["/etc/passwd"]}),
                "not a file of the bundle",
            ),
            (
                json!({"command": "node", "args": ["../outside.js"]}),
                "not a file of the bundle",
            ),
            (
                json!({"command": "node", "args": ["server/missing.js"]}),
                "not in the bundle",
            ),
            (
                json!({"command": "node", "args": ["${user_config.api_key}"]}),
                "not a file of the bundle",
            ),
            (
                json!({"command": "${user_config.api_key}"}),
                "comes from a setting",
            ),
            (
                json!({"command": "node", "args": ["server/index.js", "--key", "${user_config.api_key}"]}),
                "sensitive",
            ),
            (
                json!({"command": "node", "args": ["server/index.js", "--d=${user_config.dirs}"]}),
                "list setting",
            ),
            (
                json!({"command": "node", "args": ["server/index.js"], "env": {"NODE_OPTIONS": "--require x"}}),
                "`NODE_OPTIONS` would configure",
            ),
            (
                json!({"command": "node", "args": ["server/index.js"], "env": {"PYTHONPATH": "/usr/lib"}}),
                "folders inside the bundle",
            ),
            (
                json!({"command": "node", "args": ["server/index.js"], "env": {"LD_PRELOAD": "${__dirname}/x.so"}}),
                "`LD_PRELOAD`",
            ),
            (
                json!({"command": "node", "args": ["server/index.js", "${nope}"]}),
                "not a variable MCPB defines",
            ),
            (
                json!({"command": "node", "args": ["server/index.js", "${user_config.other}"]}),
                "does not declare",
            ),
        ] {
            let err = read(node(config.clone()), f).unwrap_err();
            assert!(err.contains(why), "{config}: {err}");
        }
    }

    #[test]
    fn a_binary_bundle_runs_its_own_program_and_uv_runs_in_the_bundle() {
        let v = json!({"manifest_version": "0.3", "name": "b", "version": "1", "description": "",
            "author": {"name": "a"},
            "server": {"type": "binary", "entry_point": "server/srv",
                       "mcp_config": {"command": "${__dirname}/server/srv", "args": ["--stdio"]}}});
        let m = read(v.clone(), &["server/srv"]).unwrap();
        assert_eq!(m.program_in_bundle, Some(PathBuf::from("server/srv")));
        assert_eq!(m.program(), None);
        let mut outside = v.clone();
        outside["server"]["mcp_config"]["command"] = json!("/bin/sh");
        assert!(
            read(outside, &["server/srv"])
                .unwrap_err()
                .contains("not a file of the bundle")
        );

        let uv = json!({"manifest_version": "0.4", "name": "u", "version": "1", "description": "",
            "author": {"name": "a"}, "server": {"type": "uv", "entry_point": "src/server.py"}});
        let m = read(uv.clone(), &["src/server.py", "pyproject.toml"]).unwrap();
        let fill = Fill {
            dir: Path::new("/b"),
            user: &|_| None,
        };
        assert_eq!(fill.one(&m.command).unwrap(), "uv");
        assert_eq!(fill.args(&m.args), ["run", "--directory", "/b", "src/server.py"]);
        let mut away = uv;
        away["server"]["mcp_config"] =
            json!({"command": "uv", "args": ["run", "--with", "evil", "src/server.py"]});
        assert!(read(away, &["src/server.py"]).unwrap_err().contains("`--with`"));
    }

    #[test]
    fn another_platform_only_bundle_and_this_platforms_override() {
        let mut v = node(json!({"command": "node", "args": ["server/index.js"],
            "platform_overrides": {platform(): {"args": ["server/other.js"]}}}));
        let m = read(v.clone(), &["server/index.js", "server/other.js"]).unwrap();
        assert_eq!(m.args[0].written(), "${__dirname}/server/other.js");
        v["compatibility"] = json!({"platforms": ["plan9"]});
        assert!(
            read(v, &["server/index.js", "server/other.js"])
                .unwrap_err()
                .contains("is for plan9")
        );
    }

    #[test]
    fn an_empty_setting_leaves_its_argument_and_its_option_name_out() {
        let m = read(
            node(json!({"command": "node", "args": ["server/index.js", "--dirs", "${user_config.dirs}", "--v"]})),
            &["server/index.js"],
        )
        .unwrap();
        let fill = Fill {
            dir: Path::new("/b"),
            user: &|_| None,
        };
        assert_eq!(fill.args(&m.args), ["/b/server/index.js", "--v"]);
    }
}
