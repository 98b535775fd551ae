//! The registry's published JSON (`registry.json`): `version` and `agents[]`, each agent with
//! an id, a name, a version, a description, an icon URL and how it is distributed
//! (`binary` archives per platform target, or an `npx` / `uvx` package).
//!
//! Parsing is tolerant: unknown fields are ignored (the format grows), and an entry that is
//! malformed becomes a problem in [`Registry::problems`] instead of failing the whole registry.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

pub use porthole_profiles::agents_config::DistributionKind;

use super::RegistryError;

/// The registry as read: the usable agents, and one problem per entry that was skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Registry {
    pub version: String,
    pub agents: Vec<RegistryAgent>,
    pub problems: Vec<String>,
}

impl Registry {
    pub fn agent(&self, id: &str) -> Option<&RegistryAgent> {
        self.agents.iter().find(|a| a.id == id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryAgent {
    pub id: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    /// A URL of an SVG; a front end must render it as an image, never inline it as markup.
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub website: Option<String>,
    #[serde(default)]
    pub license: Option<String>,
    #[serde(default)]
    pub authors: Vec<String>,
    pub distribution: Distribution,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    /// Platform target (`linux-x86_64`, `darwin-aarch64`, ...) to its archive.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binary: BTreeMap<String, BinaryTarget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npx: Option<PackageDistribution>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uvx: Option<PackageDistribution>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryTarget {
    /// URL of a `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`, `.zip`, or a raw executable.
    pub archive: String,
    /// The program, relative to where the archive is extracted (`./goose`).
    pub cmd: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Hex SHA-256 of the archive, when the registry gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageDistribution {
    /// The package, usually with its version (`@scope/agent@1.2.0`, `agent==1.2.0`).
    pub package: String,
    /// A command of the package to run when it is not the package's default one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl RegistryAgent {
    /// How this agent would be installed on `target`: a binary built for it first (it needs
    /// nothing else installed), then npx, then uvx.
    pub fn kind_for(&self, target: Option<&str>) -> Option<DistributionKind> {
        if target.is_some_and(|t| self.distribution.binary.contains_key(t)) {
            Some(DistributionKind::Binary)
        } else if self.distribution.npx.is_some() {
            Some(DistributionKind::Npx)
        } else if self.distribution.uvx.is_some() {
            Some(DistributionKind::Uvx)
        } else {
            None
        }
    }
}

/// This machine's platform target as the registry names it, `None` on platforms it has none for.
pub fn current_target() -> Option<&'static str> {
    target_name(std::env::consts::OS, std::env::consts::ARCH)
}

fn target_name(os: &str, arch: &str) -> Option<&'static str> {
    Some(match (os, arch) {
        ("linux", "x86_64") => "linux-x86_64",
        ("linux", "aarch64") => "linux-aarch64",
        ("macos", "x86_64") => "darwin-x86_64",
        ("macos", "aarch64") => "darwin-aarch64",
        ("windows", "x86_64") => "windows-x86_64",
        ("windows", "aarch64") => "windows-aarch64",
        _ => return None,
    })
}

/// Whether `candidate` is clearly a newer version than `installed`: by semantic versioning
/// when both parse; otherwise piece by piece, numbers compared as numbers (`1.10` after `1.9`,
/// `nightly-2` after `nightly-1`), and anything that cannot be ordered (different words where
/// the other has a number, a suffix like `-beta` only one side has) is *not* newer, so an
/// update is never offered for a version that may be older (`1.0` over `2.0.0`).
pub fn is_newer(candidate: &str, installed: &str) -> bool {
    if let (Ok(c), Ok(i)) = (
        semver::Version::parse(candidate),
        semver::Version::parse(installed),
    ) {
        return c > i;
    }
    let (c, i) = (version_pieces(candidate), version_pieces(installed));
    for (a, b) in c.iter().zip(&i) {
        match (a, b) {
            (Piece::Number(a), Piece::Number(b)) if a != b => return a > b,
            (Piece::Number(_), Piece::Number(_)) => {}
            (Piece::Text(a), Piece::Text(b)) if a == b => {}
            _ => return false,
        }
    }
    // `1.0.1` after `1.0`: only further `.N` pieces with a number above zero make it newer.
    let rest = c.get(i.len()..).unwrap_or_default();
    rest.iter()
        .all(|p| matches!(p, Piece::Number(_) | Piece::Text(".")))
        && rest.iter().any(|p| matches!(p, Piece::Number(n) if *n > 0))
}

#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Number(u128),
    Text(&'a str),
}

/// `1.10-rc2` as `1`, `.`, `10`, `-rc`, `2`; a number too long for u128 is text.
fn version_pieces(v: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let bytes = v.as_bytes();
    while start < bytes.len() {
        let digit = bytes[start].is_ascii_digit();
        let len = bytes[start..]
            .iter()
            .position(|b| b.is_ascii_digit() != digit)
            .unwrap_or(bytes.len() - start);
        let text = &v[start..start + len];
        pieces.push(match text.parse::<u128>() {
            Ok(n) if digit => Piece::Number(n),
            _ => Piece::Text(text),
        });
        start += len;
    }
    pieces
}

/// Parse the registry's JSON. Only a document that is not a registry at all is an error.
pub fn parse(bytes: &[u8]) -> Result<Registry, RegistryError> {
    let doc: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| RegistryError::Format(format!("not JSON: {e}")))?;
    let entries = doc
        .get("agents")
        .and_then(|a| a.as_array())
        .ok_or_else(|| RegistryError::Format("no `agents` list".into()))?;
    // The ids seen so far: a set, so a registry of many entries parses in linear time.
    let mut seen = HashSet::with_capacity(entries.len());
    let mut registry = Registry {
        version: doc
            .get("version")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string(),
        ..Registry::default()
    };
    for (index, entry) in entries.iter().enumerate() {
        let label = match entry.get("id").and_then(|i| i.as_str()) {
            Some(id) => format!("agent `{id}`"),
            None => format!("agent #{}", index + 1),
        };
        let agent = match serde_json::from_value::<RegistryAgent>(entry.clone()) {
            Ok(agent) => agent,
            Err(e) => {
                registry.problems.push(format!("{label}: {e}"));
                continue;
            }
        };
        if let Err(why) = check(&agent) {
            registry.problems.push(format!("{label}: {why}"));
        } else if !seen.insert(agent.id.clone()) {
            registry
                .problems
                .push(format!("{label}: listed twice; the first entry is used"));
        } else {
            registry.agents.push(agent);
        }
    }
    Ok(registry)
}

/// Lower-case letters, digits and `-`, starting with a letter: safe as a folder name.
pub(crate) fn is_plain_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The id and version become directory names, so they must be plain words.
fn check(agent: &RegistryAgent) -> Result<(), String> {
    if !is_plain_id(&agent.id) {
        return Err("the id must be lower-case letters, digits and `-`".into());
    }
    let version_ok = agent.version.starts_with(|c: char| c.is_ascii_alphanumeric())
        && agent
            .version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'));
    if !version_ok {
        return Err(format!("unusable version `{}`", agent.version));
    }
    if agent.name.trim().is_empty() {
        return Err("no name".into());
    }
    let d = &agent.distribution;
    if [&d.npx, &d.uvx]
        .into_iter()
        .flatten()
        .any(|p| p.package.trim().is_empty())
    {
        return Err("a package distribution without a package".into());
    }
    // Package names and commands become npx / uvx arguments: names by the tools' own rules,
    // never something those tools would read as one of their options.
    if let Some(npx) = &d.npx {
        super::package::check_npm(&npx.package)?;
        npx.cmd.as_deref().map_or(Ok(()), super::package::check_command)?;
        for name in npx.env.keys() {
            super::package::check_tool_env("npx", name)?;
        }
    }
    if let Some(uvx) = &d.uvx {
        super::package::check_pep508(&uvx.package)?;
        uvx.cmd.as_deref().map_or(Ok(()), super::package::check_command)?;
        for name in uvx.env.keys() {
            super::package::check_tool_env("uvx", name)?;
        }
    }
    if d.binary.is_empty() && d.npx.is_none() && d.uvx.is_none() {
        return Err("no distribution this client knows (binary, npx, uvx)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_named_as_the_registry_names_them() {
        assert_eq!(target_name("linux", "x86_64"), Some("linux-x86_64"));
        assert_eq!(target_name("macos", "aarch64"), Some("darwin-aarch64"));
        assert_eq!(target_name("freebsd", "x86_64"), None);
        assert!(current_target().is_some());
    }

    #[test]
    fn newer_versions() {
        assert!(is_newer("1.10.0", "1.9.3"));
        assert!(!is_newer("1.9.3", "1.10.0"));
        assert!(!is_newer("1.0.0", "1.0.0"));
        assert!(is_newer("1.0.0", "1.0.0-preview.2"));
        assert!(is_newer("nightly-2", "nightly-1"));
        assert!(is_newer("1.0.1", "1.0"));
        assert!(is_newer("2", "1.9.9"));
        assert!(is_newer("2024.10.1", "2024.9.30"));
    }

    #[test]
    fn versions_that_are_not_clearly_newer_are_not_newer() {
        // One side not semver: never an "update" to an older or unordered version.
        assert!(!is_newer("1.0", "2.0.0"));
        assert!(!is_newer("1.0", "1.0.0"));
        assert!(!is_newer("1.0.0", "1.0"));
        assert!(!is_newer("1.0-beta", "1.0"));
        assert!(!is_newer("nightly-1", "nightly-2"));
        assert!(!is_newer("beta", "alpha"));
        assert!(!is_newer("v2", "1.0.0"));
        assert!(!is_newer("1.x", "1.2"));
        assert!(!is_newer("same", "same"));
    }

    #[test]
    fn duplicate_ids_parse_in_linear_time() {
        // 100,000 entries, half of them repeats: with a linear search per entry this is 10^10
        // comparisons (minutes); with the set of seen ids, well under a second even unoptimised.
        let entry = |i: usize| {
            format!(
                r#"{{"id":"a{i}","name":"A","version":"1.0.0","distribution":{{"npx":{{"package":"a"}}}}}}"#
            )
        };
        let entries: Vec<String> = (0..100_000).map(|i| entry(i % 50_000)).collect();
        let text = format!(r#"{{"agents":[{}]}}"#, entries.join(","));
        let started = std::time::Instant::now();
        let r = parse(text.as_bytes()).unwrap();
        assert_eq!((r.agents.len(), r.problems.len()), (50_000, 50_000));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn package_names_that_are_options_are_registry_problems() {
        let doc = serde_json::json!({"agents": [
            {"id": "npx-flag", "name": "A", "version": "1.0.0",
             "distribution": {"npx": {"package": "--call=touch /tmp/x"}}},
            {"id": "npx-cmd", "name": "A", "version": "1.0.0",
             "distribution": {"npx": {"package": "left-pad@1.0.0", "cmd": "--call=touch /tmp/x"}}},
            {"id": "uvx-index", "name": "A", "version": "1.0.0",
             "distribution": {"uvx": {"package": "--index-url=http://127.0.0.1:1/simple"}}},
            {"id": "uvx-with", "name": "A", "version": "1.0.0",
             "distribution": {"uvx": {"package": "agent", "cmd": "--with=evil"}}},
            {"id": "npx-env", "name": "A", "version": "1.0.0",
             "distribution": {"npx": {"package": "agent", "env": {"npm_config_registry": "http://127.0.0.1:1/"}}}},
            {"id": "uvx-env", "name": "A", "version": "1.0.0",
             "distribution": {"uvx": {"package": "agent", "env": {"UV_INDEX_URL": "http://127.0.0.1:1/simple"}}}},
            {"id": "good", "name": "A", "version": "1.0.0",
             "distribution": {"npx": {"package": "@scope/agent@1.0.0", "args": ["--acp", "-v"]}}}
        ]});
        let r = parse(doc.to_string().as_bytes()).unwrap();
        let ids: Vec<&str> = r.agents.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["good"]);
        assert_eq!(r.problems.len(), 6, "{:?}", r.problems);
        let ids = [
            "npx-flag",
            "npx-cmd",
            "uvx-index",
            "uvx-with",
            "npx-env",
            "uvx-env",
        ];
        for (problem, id) in r.problems.iter().zip(ids) {
            assert!(problem.contains(&format!("`{id}`")), "{problem}");
        }
    }

    #[test]
    fn binary_first_then_npx_then_uvx() {
        let text = r#"{"agents": [{"id": "a", "name": "A", "version": "1.0.0",
            "distribution": {"uvx": {"package": "a"}, "npx": {"package": "a"},
                             "binary": {"linux-x86_64": {"archive": "u", "cmd": "./a"}}}}]}"#;
        let r = parse(text.as_bytes()).unwrap();
        let a = &r.agents[0];
        assert_eq!(a.kind_for(Some("linux-x86_64")), Some(DistributionKind::Binary));
        assert_eq!(a.kind_for(Some("darwin-aarch64")), Some(DistributionKind::Npx));
    }
}
