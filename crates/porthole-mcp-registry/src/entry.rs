//! A registry entry as Porthole uses it: checked, with its display text made safe to show.
//!
//! Every field of an answer is untrusted text. Display text (title, description, hints) has
//! its hidden characters shown as `⟨U+202E⟩` (the rule agent text gets, `hidden_chars`) and is
//! cut to a length; names, identifiers, versions and argument names are refused outright if
//! they are not what their rule says, because they become a command line. A package that fails
//! a rule is dropped from the entry with the reason in [`Entry::problems`]; an entry whose name
//! fails is not listed at all (a problem of the listing).

use serde::Serialize;

/// What the official registry says of an entry (`_meta["io.modelcontextprotocol.registry/official"].status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Deprecated,
    Deleted,
}

/// The program a package runs with, from its `registryType` (never from `runtimeHint`, which
/// is free text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// npm packages: `npx -y NAME@VERSION`.
    Npx,
    /// PyPI packages: `uvx NAME==VERSION`.
    Uvx,
    /// OCI images: `docker run -i --rm IMAGE:TAG` (or `@sha256:...`).
    Docker,
    /// NuGet packages: `dnx NAME@VERSION --yes --`.
    Dnx,
    /// MCP bundles (`.mcpb`): a zip downloaded from its URL, checked against its SHA-256 and
    /// unpacked; the program it runs with (node, python, uv, or its own binary) is the
    /// manifest's, known once the bundle is read ([`crate::Bundle`]).
    Mcpb,
}

impl Runtime {
    pub fn program(self) -> &'static str {
        match self {
            Runtime::Npx => "npx",
            Runtime::Uvx => "uvx",
            Runtime::Docker => "docker",
            Runtime::Dnx => "dnx",
            Runtime::Mcpb => "mcpb",
        }
    }

    /// Whether the program is on this computer's `PATH`. A bundle needs nothing before it is
    /// read (its own runtime is checked then: [`crate::Bundle::runtime_found`]).
    pub fn is_installed(self) -> bool {
        self == Runtime::Mcpb || on_path(self.program())
    }
}

/// Whether `program` is a file in a folder of this computer's `PATH`.
pub fn on_path(program: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| {
        let file = dir.join(program);
        std::fs::metadata(&file).is_ok_and(|m| m.is_file())
    })
}

/// One checked entry (one version of one server).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// `io.github.user/weather`: reverse-DNS namespace, `/`, a name.
    pub name: String,
    /// The publisher's namespace, the part before `/`.
    pub namespace: String,
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    pub status: Status,
    /// `updatedAt` of the official metadata, as the registry wrote it (RFC 3339).
    pub updated_at: Option<String>,
    pub is_latest: bool,
    /// An https URL, shown as text and opened only through the URL consent dialog.
    pub repository: Option<String>,
    pub website: Option<String>,
    /// https icon URLs (fetched and shown as the ACP registry's icons are: `data:` images).
    pub icons: Vec<String>,
    pub packages: Vec<PackageChoice>,
    pub remotes: Vec<RemoteChoice>,
    /// Packages or remotes left out, and why.
    pub problems: Vec<String>,
}

impl Entry {
    /// Offered for adding: active, with something to add.
    pub fn is_offered(&self) -> bool {
        self.status == Status::Active && (!self.packages.is_empty() || !self.remotes.is_empty())
    }

    /// The runtimes its packages need.
    pub fn runtimes(&self) -> Vec<Runtime> {
        let mut out: Vec<Runtime> = Vec::new();
        for p in &self.packages {
            if !out.contains(&p.runtime) {
                out.push(p.runtime);
            }
        }
        out
    }
}

/// What the user may be asked for one value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputSpec {
    pub description: Option<String>,
    pub required: bool,
    /// `string` (default), `number`, `boolean` or `filepath`.
    pub format: Option<String>,
    pub secret: bool,
    pub default: Option<String>,
    pub choices: Vec<String>,
}

/// A runtime or package argument.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArgSpec {
    /// `--port` for a named argument, `None` for a positional one.
    pub name: Option<String>,
    /// The fixed value, possibly with `{variable}`s filled from [`ArgSpec::variables`]; `None`:
    /// asked of the user.
    pub value: Option<String>,
    pub hint: Option<String>,
    /// Asked as a list when its value is the user's: each value one argument (a named one
    /// repeats its name: `--dir A --dir B`).
    #[serde(default)]
    pub repeated: bool,
    pub input: InputSpec,
    pub variables: Vec<(String, InputSpec)>,
}

/// An environment variable or a header.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedInput {
    pub name: String,
    /// A fixed value (possibly with `{variable}`s); `None`: asked of the user.
    pub value: Option<String>,
    pub input: InputSpec,
    pub variables: Vec<(String, InputSpec)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageChoice {
    pub runtime: Runtime,
    /// The package name, the image reference without its tag, or a bundle's https URL.
    pub identifier: String,
    /// The exact version (npm, PyPI, NuGet, a bundle's), or the image's tag or `sha256:` digest.
    pub version: String,
    /// A bundle's SHA-256 (64 lower-case hex digits): its file must have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub runtime_arguments: Vec<ArgSpec>,
    pub package_arguments: Vec<ArgSpec>,
    pub environment: Vec<NamedInput>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteKind {
    StreamableHttp,
    Sse,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteChoice {
    pub kind: RemoteKind,
    /// The URL, possibly a template with `{variable}`s.
    pub url: String,
    pub headers: Vec<NamedInput>,
    pub variables: Vec<(String, InputSpec)>,
}
