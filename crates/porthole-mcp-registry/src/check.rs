//! From an untrusted answer entry to an [`Entry`]: the rules of item 5 of the design (the
//! ACP registry's rules, applied to server.json).

use std::collections::BTreeMap;

use porthole_elicitation::hidden_chars;
use serde_json::Value;

use crate::entry::{
    ArgSpec, Entry, InputSpec, NamedInput, PackageChoice, RemoteChoice, RemoteKind, Runtime, Status,
};
use crate::raw::{self, Argument, Input, KeyValueInput, ServerResponse};

/// Where the official metadata is in an answer entry's `_meta`.
pub const OFFICIAL_META: &str = "io.modelcontextprotocol.registry/official";

pub(crate) const MAX_NAME: usize = 200;
const MAX_TITLE: usize = 100;
const MAX_DESCRIPTION: usize = 2000;
const MAX_SHORT: usize = 300;
const MAX_VALUE: usize = 1000;
const MAX_URL: usize = 2048;
const MAX_INPUTS: usize = 64;
const MAX_CHOICES: usize = 100;
const MAX_ITEMS: usize = 16;

/// Display text: hidden characters shown as code points, control characters gone, cut to `max`
/// characters (with `…`).
pub fn display_text(s: &str, max: usize) -> String {
    let shown = hidden_chars::neutralize(s);
    let mut out: String = shown.chars().take(max).collect();
    if shown.chars().count() > max {
        out.push('…');
    }
    out
}

fn opt_text(s: &Option<String>, max: usize) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| display_text(s, max))
}

/// A value that becomes part of a command line, a URL or a variable: no hidden or control
/// characters at all, and not too long.
fn plain_value(what: &str, s: &str, max: usize) -> Result<String, String> {
    if s.len() > max {
        return Err(format!("{what} is longer than {max} bytes"));
    }
    if hidden_chars::found_in(s, false).next().is_some() || s.chars().any(char::is_control) {
        return Err(format!("{what} holds hidden or control characters"));
    }
    Ok(s.to_string())
}

/// The official name rule: `namespace/name`, namespace `[a-zA-Z0-9.-]`, name `[a-zA-Z0-9._-]`.
pub fn check_server_name(name: &str) -> Result<(), String> {
    let ok = name.len() <= MAX_NAME
        && name.split_once('/').is_some_and(|(ns, n)| {
            !ns.is_empty()
                && !n.is_empty()
                && ns.starts_with(|c: char| c.is_ascii_alphanumeric())
                && n.starts_with(|c: char| c.is_ascii_alphanumeric())
                && ns
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the server name `{}` is not `namespace/name` (letters, digits, `.`, `-`, `_`, at most {MAX_NAME} characters)",
            display_text(name, 80)
        ))
    }
}

/// A version as a directory of versions lists it: a plain word, never `latest` or a range.
fn exact_version(what: &str, v: &str) -> Result<(), String> {
    let ok = v.len() <= 100
        && v.starts_with(|c: char| c.is_ascii_alphanumeric())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        && !v.eq_ignore_ascii_case("latest");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} `{}` is not an exact version (never `latest` or a range)",
            display_text(v, 60)
        ))
    }
}

/// A package's version: exact, and starting with a digit, so no dist-tag (`next`, `beta`) that
/// moves under the same name.
fn package_version(what: &str, v: &str) -> Result<(), String> {
    exact_version(what, v)?;
    if v.starts_with(|c: char| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!(
            "{what} `{}` is not an exact version (a tag like `next` moves)",
            display_text(v, 60)
        ))
    }
}

/// Read one answer entry (`{"server": ..., "_meta": ...}`).
pub fn entry_from_answer(value: &Value) -> Result<Entry, String> {
    let response: ServerResponse =
        serde_json::from_value(value.clone()).map_err(|e| format!("not a server entry: {e}"))?;
    let official = response.meta.get(OFFICIAL_META);
    let status = match official.and_then(|m| m.get("status")).and_then(Value::as_str) {
        None | Some("active") => Status::Active,
        Some("deprecated") => Status::Deprecated,
        Some("deleted") => Status::Deleted,
        // A status this client does not know: not offered.
        Some(_) => Status::Deprecated,
    };
    let updated_at = official
        .and_then(|m| m.get("updatedAt"))
        .and_then(Value::as_str)
        .filter(|s| s.len() <= 64 && s.chars().all(|c| c.is_ascii_graphic()))
        .map(str::to_string);
    let is_latest = official
        .and_then(|m| m.get("isLatest"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    entry_from_server(response.server, status, updated_at, is_latest)
}

pub(crate) fn entry_from_server(
    server: raw::ServerJson,
    status: Status,
    updated_at: Option<String>,
    is_latest: bool,
) -> Result<Entry, String> {
    check_server_name(&server.name)?;
    let version = server.version.clone().unwrap_or_default();
    exact_version("the server version", &version)?;
    let mut problems = Vec::new();
    let mut packages = Vec::new();
    for (i, p) in server.packages.iter().take(MAX_ITEMS).enumerate() {
        match check_package(p, &version) {
            Ok(p) => packages.push(p),
            Err(why) => problems.push(format!("package {}: {why}", i + 1)),
        }
    }
    let mut remotes = Vec::new();
    for (i, r) in server.remotes.iter().take(MAX_ITEMS).enumerate() {
        match check_remote(r) {
            Ok(r) => remotes.push(r),
            Err(why) => problems.push(format!("remote {}: {why}", i + 1)),
        }
    }
    if server.packages.len() + server.remotes.len() > 2 * MAX_ITEMS {
        problems.push(format!(
            "more than {MAX_ITEMS} packages or remotes; the rest are left out"
        ));
    }
    let https = |u: &Option<String>| {
        u.as_deref()
            .filter(|u| u.len() <= MAX_URL)
            .and_then(|u| url::Url::parse(u).ok())
            .filter(|u| u.scheme() == "https" && u.host_str().is_some())
            .filter(|u| u.username().is_empty() && u.password().is_none())
            .map(|u| u.to_string())
    };
    let icons = server
        .icons
        .iter()
        .take(8)
        .filter_map(|i| https(&Some(i.src.clone())))
        .collect();
    Ok(Entry {
        namespace: server
            .name
            .split_once('/')
            .map(|(ns, _)| ns.to_string())
            .unwrap_or_default(),
        name: server.name.clone(),
        title: opt_text(&server.title, MAX_TITLE),
        description: opt_text(&server.description, MAX_DESCRIPTION).unwrap_or_default(),
        version,
        status,
        updated_at,
        is_latest,
        repository: https(&server.repository.as_ref().and_then(|r| r.url.clone())),
        website: https(&server.website_url),
        icons,
        packages,
        remotes,
        problems,
    })
}

fn check_input(what: &str, input: &Input) -> Result<InputSpec, String> {
    if input.choices.len() > MAX_CHOICES {
        return Err(format!("{what} has more than {MAX_CHOICES} choices"));
    }
    let format = match input.format.as_deref() {
        None | Some("string") => None,
        Some(f @ ("number" | "boolean" | "filepath")) => Some(f.to_string()),
        Some(other) => {
            return Err(format!(
                "{what} has the unknown format `{}`",
                display_text(other, 40)
            ));
        }
    };
    let choices = input
        .choices
        .iter()
        .map(|c| plain_value(&format!("a choice of {what}"), c, MAX_VALUE))
        .collect::<Result<Vec<_>, _>>()?;
    let default = input
        .default
        .as_deref()
        .map(|d| plain_value(&format!("the default of {what}"), d, MAX_VALUE))
        .transpose()?;
    Ok(InputSpec {
        description: opt_text(&input.description, MAX_SHORT),
        required: input.is_required,
        format,
        secret: input.is_secret,
        default,
        choices,
    })
}

fn check_variables(what: &str, vars: &BTreeMap<String, Input>) -> Result<Vec<(String, InputSpec)>, String> {
    if vars.len() > MAX_INPUTS {
        return Err(format!("{what} has more than {MAX_INPUTS} variables"));
    }
    vars.iter()
        .map(|(name, input)| {
            let ok = !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(format!("{what} has a variable that is not a plain name"));
            }
            Ok((
                name.clone(),
                check_input(&format!("the variable `{name}` of {what}"), input)?,
            ))
        })
        .collect()
}

/// A named argument's name: `--word` or `-w`, nothing that carries its own value (`--a=b`).
fn option_name(what: &str, name: &str) -> Result<(), String> {
    let body = name.strip_prefix("--").or_else(|| name.strip_prefix('-'));
    let ok = body.is_some_and(|b| {
        !b.is_empty()
            && b.len() <= 64
            && b.starts_with(|c: char| c.is_ascii_alphanumeric())
            && b.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} `{}` is not an option name like `--port`",
            display_text(name, 60)
        ))
    }
}

fn check_argument(what: &str, a: &Argument) -> Result<ArgSpec, String> {
    let name = match a.kind.as_str() {
        "named" => {
            let name = a
                .name
                .clone()
                .ok_or_else(|| format!("{what} is named but has no name"))?;
            option_name(what, &name)?;
            Some(name)
        }
        "positional" => None,
        other => {
            return Err(format!(
                "{what} has the unknown type `{}`",
                display_text(other, 40)
            ));
        }
    };
    let value = a
        .input
        .value
        .as_deref()
        .map(|v| plain_value(&format!("the value of {what}"), v, MAX_VALUE))
        .transpose()?;
    if a.input.is_secret && value.is_none() {
        // Connections keep secrets in the keyring only as variables and headers; an argument
        // would be written into connections.json.
        return Err(format!(
            "{what} is a secret command-line argument, which would be kept in the connections file"
        ));
    }
    Ok(ArgSpec {
        name,
        value,
        hint: opt_text(&a.value_hint, MAX_SHORT),
        repeated: a.is_repeated,
        input: check_input(what, &a.input)?,
        variables: check_variables(what, &a.input.variables)?,
    })
}

/// Variables that configure the runtime or how programs load are never set from a registry.
pub fn check_env_name(runtime: Runtime, name: &str) -> Result<(), String> {
    let upper = name.to_ascii_uppercase();
    let runtime_own = match runtime {
        Runtime::Npx => porthole_registry::check_tool_env("npx", name).is_err(),
        Runtime::Uvx => porthole_registry::check_tool_env("uvx", name).is_err(),
        Runtime::Docker => upper.starts_with("DOCKER_"),
        Runtime::Dnx => upper.starts_with("DOTNET_") || upper.starts_with("NUGET_"),
        Runtime::Mcpb => false,
    };
    let loads = !porthole_profiles::sign_in::valid_name(name)
        || upper.starts_with("LD_")
        || upper.starts_with("DYLD_")
        || matches!(
            upper.as_str(),
            "PATH"
                | "HOME"
                | "SHELL"
                | "NODE_OPTIONS"
                | "NODE_PATH"
                | "PYTHONPATH"
                | "PYTHONHOME"
                | "PYTHONSTARTUP"
                | "BASH_ENV"
                | "ENV"
                | "PERL5OPT"
                | "RUBYOPT"
                | "JAVA_TOOL_OPTIONS"
                | "_JAVA_OPTIONS"
                | "GIT_SSH_COMMAND"
                | "TMPDIR"
                | "XDG_CONFIG_HOME"
        )
        || upper.starts_with("NPM_CONFIG_")
        || upper.starts_with("UV_")
        || upper.starts_with("PIP_");
    if runtime_own || loads {
        return Err(format!(
            "the environment variable `{}` would configure {} or how programs load",
            display_text(name, 60),
            runtime.program()
        ));
    }
    Ok(())
}

fn check_env(runtime: Runtime, v: &KeyValueInput) -> Result<NamedInput, String> {
    check_env_name(runtime, &v.name)?;
    let what = format!("the variable `{}`", v.name);
    Ok(NamedInput {
        name: v.name.clone(),
        value: v
            .input
            .value
            .as_deref()
            .map(|x| plain_value(&format!("the value of {what}"), x, MAX_VALUE))
            .transpose()?,
        input: check_input(&what, &v.input)?,
        variables: check_variables(&what, &v.input.variables)?,
    })
}

/// The runtime arguments each runtime may be given: anything else would change what runs (a
/// package option of npx, an index of uvx, `--privileged` or `--entrypoint` of docker).
fn check_runtime_argument(runtime: Runtime, a: &ArgSpec) -> Result<(), String> {
    let Some(name) = &a.name else {
        return Err(format!(
            "a positional runtime argument would be read by {} as the package",
            runtime.program()
        ));
    };
    let allowed: &[&str] = match runtime {
        Runtime::Npx => &["-y", "--yes"],
        Runtime::Uvx | Runtime::Dnx | Runtime::Mcpb => &[],
        Runtime::Docker => &[
            "-e",
            "--env",
            "--mount",
            "-v",
            "--volume",
            "--network",
            "-i",
            "--rm",
            "--init",
        ],
    };
    if !allowed.contains(&name.as_str()) {
        return Err(format!(
            "the runtime argument `{}` is not one Porthole passes to {} (it may run something else than the package)",
            display_text(name, 60),
            runtime.program()
        ));
    }
    if runtime == Runtime::Docker && matches!(name.as_str(), "-e" | "--env") {
        let value = a.value.as_deref().unwrap_or_default();
        let var = value.split_once('=').map_or(value, |(n, _)| n);
        check_env_name(runtime, var)?;
    }
    if runtime == Runtime::Docker
        && matches!(name.as_str(), "--mount" | "-v" | "--volume")
        && a.variables.is_empty()
    {
        // A folder of this computer given to the container is the user's choice: a registry
        // may only ask for it (a variable), never name one (`-v /:/host`).
        return Err(format!(
            "`{name}` names a folder of this computer itself; the registry may only ask for one"
        ));
    }
    if runtime == Runtime::Docker && name == "--network" {
        // A value of the user's would be worse checked than none: only plain modes.
        let ok = a
            .value
            .as_deref()
            .is_some_and(|v| matches!(v, "host" | "bridge" | "none"));
        if !ok {
            return Err("`--network` takes host, bridge or none here".into());
        }
    }
    Ok(())
}

/// The default index of each package type: another one would need options of the runtime
/// (`--registry`, `--index-url`), which a registry never sets.
fn default_base(registry_type: &str, base: Option<&str>) -> Result<(), String> {
    let Some(base) = base else { return Ok(()) };
    let base = base.trim_end_matches('/');
    let ok = match registry_type {
        "npm" => base == "https://registry.npmjs.org",
        "pypi" => base == "https://pypi.org",
        "nuget" => base == "https://api.nuget.org" || base == "https://api.nuget.org/v3/index.json",
        "oci" => matches!(base, "https://docker.io" | "https://ghcr.io"),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "the package index `{}` is not {registry_type}'s own; Porthole runs packages from the default index only",
            display_text(base, 80)
        ))
    }
}

/// An OCI image reference: `[host[:port]/]path[:tag|@sha256:hex]`, lower-case path.
fn split_image(reference: &str, version: Option<&str>) -> Result<(String, String), String> {
    let bad = || {
        format!(
            "the image `{}` is not an image reference",
            display_text(reference, 80)
        )
    };
    if reference.starts_with('-') || reference.len() > 255 || reference.is_empty() {
        return Err(bad());
    }
    let (path, pin) = if let Some((path, digest)) = reference.split_once('@') {
        let hex = digest.strip_prefix("sha256:").ok_or_else(bad)?;
        if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(bad());
        }
        (path.to_string(), digest.to_string())
    } else {
        let last_slash = reference.rfind('/').map_or(0, |i| i + 1);
        match reference[last_slash..].split_once(':') {
            Some((_, tag)) => (
                reference[..last_slash + reference[last_slash..].find(':').unwrap()].to_string(),
                tag.to_string(),
            ),
            None => (
                reference.to_string(),
                version.map(str::to_string).ok_or_else(|| {
                    format!(
                        "the image `{}` has no tag or digest to pin",
                        display_text(reference, 80)
                    )
                })?,
            ),
        }
    };
    let path_ok = path.split('/').enumerate().all(|(i, part)| {
        !part.is_empty()
            && part.starts_with(|c: char| c.is_ascii_alphanumeric())
            && part.chars().all(|c| {
                c.is_ascii_lowercase()
                    || c.is_ascii_digit()
                    || matches!(c, '.' | '_' | '-')
                    || (i == 0 && (c == ':' || c.is_ascii_uppercase()))
            })
    });
    if !path_ok {
        return Err(bad());
    }
    if !pin.starts_with("sha256:") {
        let tag_ok = pin.len() <= 128
            && pin.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && pin
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !tag_ok || pin == "latest" {
            return Err(format!(
                "the image `{}` is not pinned to a tag other than `latest` or a digest",
                display_text(reference, 80)
            ));
        }
    }
    Ok((path, pin))
}

/// A bundle's address: https, or plain http to this computer (a test's server); never a user
/// name or password in it.
fn bundle_url(identifier: &str) -> Result<String, String> {
    let url = url::Url::parse(identifier).map_err(|_| {
        format!(
            "the bundle's identifier `{}` is not a URL",
            display_text(identifier, 80)
        )
    })?;
    match url.scheme() {
        "https" if url.host().is_some() => {}
        "http" if porthole_elicitation::loopback::is_loopback_url(&url) => {}
        "http" => {
            return Err(
                "the bundle's URL is plain http to another computer; a bundle is downloaded over https only"
                    .into(),
            );
        }
        other => {
            return Err(format!(
                "the bundle's URL is `{}:`; a bundle is downloaded over https only",
                display_text(other, 20)
            ));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the bundle's URL holds a user name or password".into());
    }
    Ok(url.to_string())
}

/// A bundle's `fileSha256`: 64 hex digits, kept lower-case.
fn bundle_sha256(sha: Option<&str>) -> Result<String, String> {
    let sha = sha.ok_or(
        "the bundle has no `fileSha256`, so its file could not be checked; Porthole installs no bundle without one",
    )?;
    if sha.len() != 64 || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "the bundle's `fileSha256` `{}` is not a SHA-256 (64 hex digits)",
            display_text(sha, 80)
        ));
    }
    Ok(sha.to_ascii_lowercase())
}

fn check_package(p: &raw::Package, server_version: &str) -> Result<PackageChoice, String> {
    if let Some(t) = &p.transport
        && t.kind != "stdio"
    {
        return Err(format!(
            "a package served over `{}` (Porthole starts packages as stdio servers)",
            display_text(&t.kind, 40)
        ));
    }
    default_base(&p.registry_type, p.registry_base_url.as_deref())?;
    plain_value("the package identifier", &p.identifier, 300)?;
    let (runtime, identifier, version) = match p.registry_type.as_str() {
        "npm" => {
            // The bare name: a version inside the identifier would not be the one pinned.
            if p.identifier.rfind('@').is_some_and(|i| i > 0) {
                return Err("the npm identifier holds a version; it goes in `version`".into());
            }
            porthole_registry::check_npm(&p.identifier)?;
            let v = p.version.clone().unwrap_or_default();
            package_version("the npm version", &v)?;
            (Runtime::Npx, p.identifier.clone(), v)
        }
        "pypi" => {
            let name_only = p
                .identifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if !name_only {
                return Err(format!(
                    "the PyPI identifier `{}` is not a bare package name",
                    display_text(&p.identifier, 80)
                ));
            }
            porthole_registry::check_pep508(&p.identifier)?;
            let v = p.version.clone().unwrap_or_default();
            package_version("the PyPI version", &v)?;
            (Runtime::Uvx, p.identifier.clone(), v)
        }
        "nuget" => {
            let ok = p.identifier.starts_with(|c: char| c.is_ascii_alphanumeric())
                && p.identifier.len() <= 100
                && p.identifier
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
            if !ok {
                return Err(format!(
                    "the NuGet identifier `{}` is not a package id",
                    display_text(&p.identifier, 80)
                ));
            }
            let v = p.version.clone().unwrap_or_default();
            package_version("the NuGet version", &v)?;
            (Runtime::Dnx, p.identifier.clone(), v)
        }
        "oci" => {
            let (image, pin) = split_image(&p.identifier, p.version.as_deref())?;
            (Runtime::Docker, image, pin)
        }
        "mcpb" => {
            let url = bundle_url(&p.identifier)?;
            // The version is optional for bundles (server.json 2025-10-17): the file and its
            // hash are the pin; the server's version names it otherwise.
            let v = p.version.clone().unwrap_or_else(|| server_version.to_string());
            exact_version("the bundle version", &v)?;
            if !p.runtime_arguments.is_empty() {
                return Err("a bundle takes no runtime arguments: its manifest says how it runs".into());
            }
            (Runtime::Mcpb, url, v)
        }
        other => {
            return Err(format!(
                "the package type `{}` is not one Porthole runs",
                display_text(other, 40)
            ));
        }
    };
    if p.runtime_arguments.len() + p.package_arguments.len() + p.environment_variables.len() > 3 * MAX_INPUTS
    {
        return Err("too many arguments and variables".into());
    }
    let runtime_arguments = p
        .runtime_arguments
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let spec = check_argument(&format!("runtime argument {}", i + 1), a)?;
            check_runtime_argument(runtime, &spec)?;
            Ok(spec)
        })
        .collect::<Result<Vec<_>, String>>()?;
    let package_arguments = p
        .package_arguments
        .iter()
        .enumerate()
        .map(|(i, a)| check_argument(&format!("package argument {}", i + 1), a))
        .collect::<Result<Vec<_>, String>>()?;
    let environment = p
        .environment_variables
        .iter()
        .map(|v| check_env(runtime, v))
        .collect::<Result<Vec<_>, String>>()?;
    let sha256 = match runtime {
        Runtime::Mcpb => Some(bundle_sha256(p.file_sha256.as_deref())?),
        _ => None,
    };
    Ok(PackageChoice {
        runtime,
        identifier,
        version,
        sha256,
        runtime_arguments,
        package_arguments,
        environment,
    })
}

fn check_remote(r: &raw::Remote) -> Result<RemoteChoice, String> {
    let kind = match r.kind.as_str() {
        "streamable-http" => RemoteKind::StreamableHttp,
        "sse" => RemoteKind::Sse,
        other => {
            return Err(format!(
                "the transport `{}` is not one Porthole speaks",
                display_text(other, 40)
            ));
        }
    };
    let url = plain_value("the URL", &r.url, MAX_URL)?;
    let variables = check_variables("the URL", &r.variables)?;
    // Checked as it will be once filled: every `{variable}` replaced by a placeholder host
    // word, so a template cannot hide a plain http URL to another computer.
    let sample = fill_template(&url, &|_| Some("x".to_string()));
    let parsed = url::Url::parse(&sample).map_err(|_| "the URL is not a URL".to_string())?;
    if !url.contains("://{") {
        porthole_connections::list::check_url(&parsed)?;
    } else if parsed.scheme() != "https" {
        return Err("a URL whose host is a variable must be https".into());
    }
    let mut headers = Vec::new();
    for h in &r.headers {
        let ok = !h.name.is_empty()
            && h.name.len() <= 64
            && h.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        if !ok {
            return Err(format!(
                "the header `{}` is not a header name",
                display_text(&h.name, 60)
            ));
        }
        if matches!(
            h.name.to_ascii_lowercase().as_str(),
            "host" | "content-length" | "transfer-encoding" | "connection" | "cookie"
        ) {
            return Err(format!("the header `{}` is not one a registry may set", h.name));
        }
        let what = format!("the header `{}`", h.name);
        headers.push(NamedInput {
            name: h.name.clone(),
            value: h
                .input
                .value
                .as_deref()
                .map(|x| plain_value(&format!("the value of {what}"), x, MAX_VALUE))
                .transpose()?,
            input: check_input(&what, &h.input)?,
            variables: check_variables(&what, &h.input.variables)?,
        });
    }
    Ok(RemoteChoice {
        kind,
        url,
        headers,
        variables,
    })
}

/// Replace each `{name}` of `template` with `value(name)`; a name without a value stays as it is.
pub fn fill_template(template: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match value(name) {
                    Some(v) => out.push_str(&v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
