//! An entry's inputs as a form: the same restricted JSON Schema an elicitation form is, parsed
//! and validated by `porthole-elicitation` (one engine: the same field types, the same
//! validator, secret fields masked and the form flagged), and the values it returns turned into
//! one connection, with its secrets set apart for the keyring.

use std::collections::BTreeMap;

use porthole_connections::list::{AgentScope, Connection, EnvValue, RemoteTransport, Server};
use porthole_connections::secrets::{env_key, header_key};
use porthole_elicitation::form::{FormSchema, parse_own_form_schema};
use serde_json::{Map, Value, json};

use crate::bundle::{Bundle, Bundles, Install};
use crate::check::fill_template;
use crate::entry::{ArgSpec, Entry, InputSpec, NamedInput, PackageChoice, RemoteChoice, RemoteKind, Runtime};
use crate::manifest::{DefaultValue, Fill, OptionKind, UserOption};

/// Which of an entry's ways to run it is being added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "index")]
pub enum Choice {
    Package(usize),
    Remote(usize),
}

/// The form of one choice of one entry.
#[derive(Debug, Clone)]
pub struct AddForm {
    pub entry: Entry,
    pub choice: Choice,
    /// The `requestedSchema` (what a window renders, as it renders an elicitation's).
    pub requested_schema: Value,
    pub schema: FormSchema,
    /// A bundle's download, checked, with its manifest (whose settings are fields of the form).
    pub bundle: Option<Bundle>,
    /// Form property of each input.
    keys: BTreeMap<Slot, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Env(usize),
    EnvVar(usize, String),
    RuntimeArg(usize),
    RuntimeVar(usize, String),
    PackageArg(usize),
    PackageVar(usize, String),
    Header(usize),
    HeaderVar(usize, String),
    UrlVar(String),
    /// A bundle's `user_config` setting.
    UserConfig(String),
}

/// What saving the form would write: the connection, the secrets for the keyring (key, value),
/// and the command or URL as shown before saving (secret values never in it).
#[derive(Debug, Clone)]
pub struct Plan {
    pub connection: Connection,
    pub secrets: Vec<(String, String)>,
    pub shown: String,
    /// A bundle to unpack before the connection is saved.
    pub bundle: Option<Install>,
}

struct Builder {
    properties: Map<String, Value>,
    required: Vec<String>,
    keys: BTreeMap<Slot, String>,
}

impl Builder {
    /// A free property name for `wanted`.
    fn key(&self, wanted: &str) -> String {
        let base: String = wanted
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if base.trim_matches('_').is_empty() {
            "value".to_string()
        } else {
            base
        };
        let mut key = base.clone();
        let mut n = 2;
        while self.properties.contains_key(&key) {
            key = format!("{base}-{n}");
            n += 1;
        }
        key
    }

    /// A bundle's setting: the manifest's type, title, description, default (its `${HOME}`
    /// and the like filled), `min`/`max`, `required`, and `sensitive` as the secret marker.
    fn option(&mut self, o: &UserOption) -> Result<(), String> {
        let key = self.key(&o.key);
        let mut p = Map::new();
        let kind = match o.kind {
            OptionKind::Number => "number",
            OptionKind::Boolean => "boolean",
            OptionKind::String | OptionKind::Directory | OptionKind::File => "string",
        };
        if o.multiple {
            p.insert("type".into(), json!("array"));
            p.insert("items".into(), json!({"type": "string"}));
        } else {
            p.insert("type".into(), json!(kind));
        }
        p.insert("title".into(), json!(o.title));
        let what = match o.kind {
            OptionKind::Directory if o.multiple => Some("Folders on this computer, one a row."),
            OptionKind::Directory => Some("A folder on this computer."),
            OptionKind::File if o.multiple => Some("Files on this computer, one a row."),
            OptionKind::File => Some("A file on this computer."),
            _ => None,
        };
        let description = match (&o.description, what) {
            (Some(d), Some(w)) => Some(format!("{d} ({w})")),
            (Some(d), None) => Some(d.clone()),
            (None, w) => w.map(str::to_string),
        };
        if let Some(d) = description {
            p.insert("description".into(), json!(d));
        }
        let fill = Fill {
            dir: std::path::Path::new(""),
            user: &|_| None,
        };
        let default = match &o.default {
            Some(DefaultValue::Text(t)) => fill.one(t).map(|s| json!(s)),
            Some(DefaultValue::Number(n)) => Some(json!(n)),
            Some(DefaultValue::Bool(b)) => Some(json!(b)),
            Some(DefaultValue::Texts(list)) => {
                Some(json!(list.iter().filter_map(|t| fill.one(t)).collect::<Vec<_>>()))
            }
            None => None,
        };
        if let Some(d) = default {
            p.insert("default".into(), d);
        }
        if let Some(min) = o.min {
            p.insert("minimum".into(), json!(min));
        }
        if let Some(max) = o.max {
            p.insert("maximum".into(), json!(max));
        }
        if o.sensitive {
            p.insert("_meta".into(), json!({"codex": {"isSecret": true}}));
        }
        if o.required {
            self.required.push(key.clone());
        }
        self.properties.insert(key.clone(), Value::Object(p));
        self.keys.insert(Slot::UserConfig(o.key.clone()), key);
        Ok(())
    }

    fn add(&mut self, slot: Slot, wanted: &str, title: &str, spec: &InputSpec) {
        self.add_as(slot, wanted, title, spec, false);
    }

    /// A field for `spec`; `repeated`: a list of its values (of its `choices`: a
    /// multi-select), each one argument.
    fn add_as(&mut self, slot: Slot, wanted: &str, title: &str, spec: &InputSpec, repeated: bool) {
        let key = self.key(wanted);
        let mut p = Map::new();
        let kind = match spec.format.as_deref() {
            Some("number") => "number",
            Some("boolean") => "boolean",
            _ => "string",
        };
        p.insert("type".into(), json!(kind));
        p.insert("title".into(), json!(title));
        if let Some(d) = &spec.description {
            p.insert("description".into(), json!(d));
        }
        if !spec.choices.is_empty() && kind == "string" {
            p.insert("enum".into(), json!(spec.choices));
        }
        if let Some(d) = &spec.default {
            let v = match kind {
                "number" => d.parse::<f64>().ok().map(|n| json!(n)),
                "boolean" => d.parse::<bool>().ok().map(|b| json!(b)),
                _ => Some(json!(d)),
            };
            if let Some(v) = v {
                p.insert("default".into(), v);
            }
        }
        if spec.secret {
            // The elicitation engine's secret marker: the field is masked and the form flagged.
            p.insert("_meta".into(), json!({"codex": {"isSecret": true}}));
        }
        if repeated {
            // Each value as its own text (a number's digits, a path): the list's rows.
            let mut items = json!({"type": "string"});
            if let Some(choices) = p.remove("enum") {
                items["enum"] = choices;
            }
            p.insert("type".into(), json!("array"));
            p.insert("items".into(), items);
            if let Some(d) = p.remove("default") {
                let d = match d {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                p.insert("default".into(), json!([d]));
            }
        }
        if spec.required {
            self.required.push(key.clone());
        }
        self.properties.insert(key.clone(), Value::Object(p));
        self.keys.insert(slot, key);
    }

    fn variables(&mut self, vars: &[(String, InputSpec)], slot: impl Fn(String) -> Slot, of: &str) {
        for (name, spec) in vars {
            self.add(slot(name.clone()), name, &format!("{name} ({of})"), spec);
        }
    }

    fn argument(&mut self, a: &ArgSpec, i: usize, runtime: bool) {
        let of = match (&a.name, runtime) {
            (Some(n), _) => n.clone(),
            (None, true) => format!("runtime argument {}", i + 1),
            (None, false) => a.hint.clone().unwrap_or_else(|| format!("argument {}", i + 1)),
        };
        if a.value.is_none() {
            let wanted = a
                .name
                .as_deref()
                .map(|n| n.trim_start_matches('-').to_string())
                .or_else(|| a.hint.clone())
                .unwrap_or_else(|| format!("arg{}", i + 1));
            let slot = if runtime {
                Slot::RuntimeArg(i)
            } else {
                Slot::PackageArg(i)
            };
            self.add_as(slot, &wanted, &of, &a.input, a.repeated);
        }
        if runtime {
            self.variables(&a.variables, |v| Slot::RuntimeVar(i, v), &of);
        } else {
            self.variables(&a.variables, |v| Slot::PackageVar(i, v), &of);
        }
    }
}

impl AddForm {
    /// The form for `choice` of `entry`, parsed by the elicitation engine. A bundle's form is
    /// its manifest's: [`AddForm::open`] downloads it first.
    pub fn new(entry: &Entry, choice: Choice) -> Result<Self, String> {
        Self::build(entry, choice, None)
    }

    /// Whether `choice` of `entry` is a bundle (its form needs the download: [`AddForm::open`]).
    pub fn needs_download(entry: &Entry, choice: Choice) -> bool {
        matches!(choice, Choice::Package(i) if entry.packages.get(i).is_some_and(|p| p.runtime == Runtime::Mcpb))
    }

    /// [`AddForm::new`], downloading and checking a bundle first (blocking: a download).
    pub fn open(entry: &Entry, choice: Choice, bundles: &Bundles) -> Result<Self, String> {
        if !Self::needs_download(entry, choice) {
            return Self::new(entry, choice);
        }
        if !entry.is_offered() {
            return Self::new(entry, choice);
        }
        let Choice::Package(i) = choice else {
            unreachable!("a bundle is a package")
        };
        let bundle = bundles.fetch(entry, &entry.packages[i])?;
        Self::build(entry, choice, Some(bundle))
    }

    /// The form for `choice` of `entry`, a bundle already fetched ([`Bundles::fetch`]).
    pub fn with_bundle(entry: &Entry, choice: Choice, bundle: Bundle) -> Result<Self, String> {
        Self::build(entry, choice, Some(bundle))
    }

    fn build(entry: &Entry, choice: Choice, bundle: Option<Bundle>) -> Result<Self, String> {
        if !entry.is_offered() {
            let status = format!("{:?}", entry.status).to_lowercase();
            return Err(format!("`{}` is {status} and not offered", entry.name));
        }
        let mut b = Builder {
            properties: Map::new(),
            required: Vec::new(),
            keys: BTreeMap::new(),
        };
        let title;
        match choice {
            Choice::Package(i) => {
                let p = entry.packages.get(i).ok_or("no such package")?;
                match (&bundle, p.runtime) {
                    (Some(bundle), Runtime::Mcpb) => {
                        title = format!(
                            "{} {} (bundle, {})",
                            entry.name,
                            entry.version,
                            bundle.manifest.server_type.name()
                        );
                        for o in &bundle.manifest.user_config {
                            b.option(o)?;
                        }
                    }
                    (None, Runtime::Mcpb) => {
                        return Err(format!(
                            "`{}` is an MCP bundle: its form is its manifest's, read once it is downloaded",
                            entry.name
                        ));
                    }
                    (Some(_), _) => return Err("this package is not a bundle".into()),
                    (None, _) => {
                        title = format!("{} {} ({})", entry.name, entry.version, p.runtime.program());
                    }
                }
                for (j, v) in p.environment.iter().enumerate() {
                    named(&mut b, v, j, Slot::Env, Slot::EnvVar);
                }
                for (j, a) in p.runtime_arguments.iter().enumerate() {
                    b.argument(a, j, true);
                }
                for (j, a) in p.package_arguments.iter().enumerate() {
                    b.argument(a, j, false);
                }
            }
            Choice::Remote(i) => {
                if bundle.is_some() {
                    return Err("a remote is not a bundle".into());
                }
                let r = entry.remotes.get(i).ok_or("no such remote")?;
                title = format!("{} {} (remote)", entry.name, entry.version);
                b.variables(&r.variables, Slot::UrlVar, "URL");
                for (j, h) in r.headers.iter().enumerate() {
                    named(&mut b, h, j, Slot::Header, Slot::HeaderVar);
                }
            }
        }
        let requested_schema = json!({
            "type": "object",
            "title": title,
            "properties": Value::Object(b.properties),
            "required": b.required,
        });
        let schema =
            parse_own_form_schema(&requested_schema).map_err(|e| format!("the form cannot be built: {e}"))?;
        Ok(Self {
            entry: entry.clone(),
            choice,
            requested_schema,
            schema,
            bundle,
            keys: b.keys,
        })
    }

    /// The form's property names, in order, with whether each is secret and required.
    pub fn fields(&self) -> Vec<(String, bool, bool)> {
        self.schema
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.masked, f.required))
            .collect()
    }

    /// Validate `values` with the elicitation validator and build what would be saved as
    /// `connection_name`. Errors name the fields (never their values).
    /// Fields left out of `values` take their defaults, as the form shows them filled in.
    pub fn plan(&self, connection_name: &str, values: &Map<String, Value>) -> Result<Plan, Vec<String>> {
        let mut filled = self.schema.initial_values();
        filled.extend(values.clone());
        let validation = self.schema.validate(&filled);
        if !validation.is_valid() {
            return Err(validation
                .errors
                .iter()
                .map(|e| format!("{}: {}", e.field, e.message))
                .collect());
        }
        let values = &validation.content;
        let all = |slot: &Slot| -> Vec<String> {
            let Some(value) = self.keys.get(slot).and_then(|key| values.get(key)) else {
                return Vec::new();
            };
            let items = match value {
                Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) if s.is_empty() => None,
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    Value::Bool(b) => Some(b.to_string()),
                    _ => None,
                })
                .collect()
        };
        // One value (a list's first: only repeated arguments and bundle lists are lists).
        let get = |slot: &Slot| -> Option<String> { all(slot).into_iter().next() };
        let fail = |m: String| vec![m];
        let mut secrets = Vec::new();
        let (server, shown) = match (self.choice, &self.bundle) {
            (Choice::Package(i), Some(bundle)) => {
                let p = &self.entry.packages[i];
                self.bundle_server(p, bundle, &get, &all, &mut secrets)
                    .map_err(fail)?
            }
            (Choice::Package(i), None) => {
                let p = &self.entry.packages[i];
                self.package_server(p, &get, &all, &mut secrets).map_err(fail)?
            }
            (Choice::Remote(i), _) => {
                let r = &self.entry.remotes[i];
                self.remote_server(r, &get, &mut secrets).map_err(fail)?
            }
        };
        let connection = Connection {
            name: connection_name.to_string(),
            enabled: true,
            agents: AgentScope::All,
            server,
        };
        connection.validate().map_err(|e| fail(e.to_string()))?;
        Ok(Plan {
            connection,
            secrets,
            shown,
            bundle: self.bundle.as_ref().map(Bundle::install),
        })
    }

    /// A bundle's command: the manifest's `mcp_config` with `${__dirname}` the folder it is
    /// unpacked in and `${user_config.KEY}` the form's values, then the registry's own package
    /// arguments and variables (a variable of both: the registry's). A variable holding a
    /// sensitive setting goes to the keyring.
    fn bundle_server(
        &self,
        p: &PackageChoice,
        bundle: &Bundle,
        get: &dyn Fn(&Slot) -> Option<String>,
        all: &dyn Fn(&Slot) -> Vec<String>,
        secrets: &mut Vec<(String, String)>,
    ) -> Result<(Server, String), String> {
        let m = &bundle.manifest;
        let user = |k: &str| Some(all(&Slot::UserConfig(k.to_string()))).filter(|v| !v.is_empty());
        let fill = Fill {
            dir: &bundle.dir,
            user: &user,
        };
        let command = fill
            .one(&m.command)
            .ok_or("the bundle's command names a setting")?;
        let mut args = fill.args(&m.args);
        args.extend(arguments(&p.package_arguments, get, all, false)?);
        let sensitive = |k: &str| m.user_config.iter().any(|o| o.key == k && o.sensitive);
        let mut env = BTreeMap::new();
        for (name, template) in &m.env {
            let Some(value) = fill.one(template) else {
                // A setting left empty: the variable is not set at all.
                continue;
            };
            if template
                .0
                .iter()
                .any(|piece| matches!(piece, crate::manifest::Piece::User(k) if sensitive(k)))
            {
                secrets.push((env_key(name), value));
                env.insert(name.clone(), EnvValue::Secret);
            } else {
                env.insert(name.clone(), EnvValue::Plain(value));
            }
        }
        for (j, v) in p.environment.iter().enumerate() {
            let Some(value) = named_value(v, j, get, Slot::Env, Slot::EnvVar) else {
                continue;
            };
            secrets.retain(|(k, _)| *k != env_key(&v.name));
            if v.input.secret {
                secrets.push((env_key(&v.name), value));
                env.insert(v.name.clone(), EnvValue::Secret);
            } else {
                env.insert(v.name.clone(), EnvValue::Plain(value));
            }
        }
        if let Some(bad) = args.iter().find(|a| a.chars().any(|c| c == '\0')) {
            return Err(format!(
                "the argument `{}` holds a NUL character",
                bad.replace('\0', "")
            ));
        }
        let shown = shown_command(&env, &command, &args);
        Ok((Server::Stdio { command, args, env }, shown))
    }

    fn package_server(
        &self,
        p: &PackageChoice,
        get: &dyn Fn(&Slot) -> Option<String>,
        all: &dyn Fn(&Slot) -> Vec<String>,
        secrets: &mut Vec<(String, String)>,
    ) -> Result<(Server, String), String> {
        let mut env = BTreeMap::new();
        for (j, v) in p.environment.iter().enumerate() {
            let Some(value) = named_value(v, j, get, Slot::Env, Slot::EnvVar) else {
                continue;
            };
            if v.input.secret {
                secrets.push((env_key(&v.name), value));
                env.insert(v.name.clone(), EnvValue::Secret);
            } else {
                env.insert(v.name.clone(), EnvValue::Plain(value));
            }
        }
        let runtime_args = arguments(&p.runtime_arguments, get, all, true)?;
        let package_args = arguments(&p.package_arguments, get, all, false)?;
        let mut args: Vec<String> = Vec::new();
        match p.runtime {
            Runtime::Npx => {
                args.push("-y".into());
                args.extend(runtime_args.into_iter().filter(|a| a != "-y" && a != "--yes"));
                args.push(format!("{}@{}", p.identifier, p.version));
                args.extend(package_args);
            }
            Runtime::Uvx => {
                args.extend(runtime_args);
                args.push(format!("{}@{}", p.identifier, p.version));
                args.extend(package_args);
            }
            Runtime::Dnx => {
                args.extend(runtime_args);
                args.push(format!("{}@{}", p.identifier, p.version));
                args.push("--yes".into());
                if !package_args.is_empty() {
                    args.push("--".into());
                    args.extend(package_args);
                }
            }
            Runtime::Docker => {
                args.extend(["run", "-i", "--rm"].map(String::from));
                args.extend(runtime_args.into_iter().filter(|a| a != "-i" && a != "--rm"));
                // The values stay in the connection's environment (secrets in the keyring);
                // docker passes on the variables named with `-e NAME`.
                for name in env.keys() {
                    args.push("-e".into());
                    args.push(name.clone());
                }
                let sep = if p.version.starts_with("sha256:") {
                    '@'
                } else {
                    ':'
                };
                args.push(format!("{}{sep}{}", p.identifier, p.version));
                args.extend(package_args);
            }
            Runtime::Mcpb => return Err("a bundle's command comes from its manifest".into()),
        }
        let command = p.runtime.program().to_string();
        let shown = shown_command(&env, &command, &args);
        Ok((Server::Stdio { command, args, env }, shown))
    }

    fn remote_server(
        &self,
        r: &RemoteChoice,
        get: &dyn Fn(&Slot) -> Option<String>,
        secrets: &mut Vec<(String, String)>,
    ) -> Result<(Server, String), String> {
        for (name, _) in &r.variables {
            if let Some(v) = get(&Slot::UrlVar(name.clone()))
                && v.chars()
                    .any(|c| matches!(c, '/' | '?' | '#' | '@' | '\\') || c.is_whitespace() || c.is_control())
            {
                return Err(format!(
                    "{name}: a URL variable cannot hold `/`, `?`, `#`, `@`, `\\` or spaces"
                ));
            }
        }
        let filled = fill_template(&r.url, &|name| get(&Slot::UrlVar(name.to_string())));
        if filled.contains('{') {
            return Err("the URL still has a variable without a value".into());
        }
        let url = url::Url::parse(&filled).map_err(|_| "the filled URL is not a URL".to_string())?;
        porthole_connections::list::check_url(&url)?;
        let mut headers = BTreeMap::new();
        let mut shown = vec![url.to_string()];
        for (j, h) in r.headers.iter().enumerate() {
            let Some(value) = named_value(h, j, get, Slot::Header, Slot::HeaderVar) else {
                continue;
            };
            if h.input.secret || porthole_connections::import::looks_secret_header(&h.name, &value) {
                secrets.push((header_key(&h.name), value));
                headers.insert(h.name.clone(), EnvValue::Secret);
                shown.push(format!("{}: <in the OS keyring>", h.name));
            } else {
                shown.push(format!("{}: {value}", h.name));
                headers.insert(h.name.clone(), EnvValue::Plain(value));
            }
        }
        let transport = match r.kind {
            RemoteKind::StreamableHttp => RemoteTransport::StreamableHttp,
            RemoteKind::Sse => RemoteTransport::Sse,
        };
        Ok((
            Server::Remote {
                url,
                transport,
                headers,
            },
            shown.join("\n"),
        ))
    }
}

fn named(b: &mut Builder, v: &NamedInput, j: usize, slot: fn(usize) -> Slot, var: fn(usize, String) -> Slot) {
    if v.value.is_none() {
        b.add(slot(j), &v.name, &v.name, &v.input);
    }
    b.variables(&v.variables, |name| var(j, name), &v.name);
}

/// The value of a variable or header: its fixed value with its variables filled, or the
/// user's; `None` when optional and left empty.
fn named_value(
    v: &NamedInput,
    j: usize,
    get: &dyn Fn(&Slot) -> Option<String>,
    slot: fn(usize) -> Slot,
    var: fn(usize, String) -> Slot,
) -> Option<String> {
    match &v.value {
        Some(template) => Some(fill_template(template, &|name| get(&var(j, name.to_string())))),
        None => get(&slot(j)),
    }
}

fn arguments(
    list: &[ArgSpec],
    get: &dyn Fn(&Slot) -> Option<String>,
    all: &dyn Fn(&Slot) -> Vec<String>,
    runtime: bool,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        if a.repeated && a.value.is_none() {
            // A list: each value one argument; a named one repeats its name (server.json's
            // `isRepeated`).
            let slot = if runtime {
                Slot::RuntimeArg(i)
            } else {
                Slot::PackageArg(i)
            };
            for v in all(&slot) {
                out.extend(a.name.clone());
                out.push(v);
            }
            continue;
        }
        let value = match &a.value {
            Some(template) => Some(fill_template(template, &|name| {
                get(&if runtime {
                    Slot::RuntimeVar(i, name.to_string())
                } else {
                    Slot::PackageVar(i, name.to_string())
                })
            })),
            None => get(&if runtime {
                Slot::RuntimeArg(i)
            } else {
                Slot::PackageArg(i)
            }),
        };
        match (&a.name, value) {
            (Some(name), Some(v)) => {
                out.push(name.clone());
                out.push(v);
            }
            // A named flag with no value given: left out, as an optional one.
            (Some(_), None) => {}
            (None, Some(v)) => {
                if v.contains('{') && a.value.is_some() {
                    return Err(format!("argument {} still has a variable without a value", i + 1));
                }
                out.push(v)
            }
            (None, None) if a.input.required => {
                return Err(format!("argument {} needs a value", i + 1));
            }
            (None, None) => {}
        }
    }
    Ok(out)
}

/// A stdio connection as the person reads it before it is saved: its variables (secret ones as
/// `<in the OS keyring>`), then its command line, each word quoted as a shell would need.
fn shown_command(env: &BTreeMap<String, EnvValue>, command: &str, args: &[String]) -> String {
    let mut shown: Vec<String> = env
        .iter()
        .map(|(k, v)| match v {
            EnvValue::Plain(s) => format!("{k}={}", quote(s)),
            EnvValue::Secret => format!("{k}=<in the OS keyring>"),
        })
        .collect();
    shown.push(quote(command));
    shown.extend(args.iter().map(|a| quote(a)));
    shown.join(" ")
}

/// A word as a POSIX shell would need it to read it back as one argument.
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@' | ':' | '=' | ',' | '+')
        });
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A connection name for `entry`: the part of its name after `/`, made a valid name.
pub fn suggested_name(entry: &Entry) -> String {
    let last = entry.name.rsplit('/').next().unwrap_or(&entry.name);
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(porthole_connections::names::MAX_NAME_CHARS)
        .collect();
    name = name.trim_start_matches(['-', '_']).to_string();
    if name.is_empty() { "server".into() } else { name }
}
