//! The window's view of MCP Registry entries (the "Add from the registry" view): typed here,
//! their TypeScript generated (`ui_contract.rs`). Every text in them is the registry's, already
//! checked and made showable by `porthole-mcp-registry` (hidden characters shown, lengths cut);
//! the window shows it as text and opens no URL of it without the URL consent dialog.

use porthole_elicitation::form::{FormSchema, Validation};
use porthole_mcp_registry::{
    Bundle, Choice, Entry, PackageChoice, RemoteChoice, RemoteKind, Runtime, Status,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One page of a search over the registries' copies.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryResults {
    pub entries: Vec<McpRegistryEntryView>,
    /// Pass back as `cursor` for the next page; `null`: the last page.
    pub next_cursor: Option<String>,
    /// How many entries match in all.
    pub total: usize,
    /// Each registry read, in the settings' order.
    pub registries: Vec<McpRegistryState>,
}

/// One registry's copy, as the view says it.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryState {
    pub base: String,
    /// When the copy was last brought up to date (RFC 3339); `null`: never.
    pub updated_since: Option<String>,
    /// A refresh is under way in the background (`mcp_registry_refreshed` follows).
    pub refreshing: bool,
    /// The first reading of the registry is under way: the copy holds the pages read so far
    /// (`mcp_registry_refreshed` follows each), so a search covers only those until it ends.
    pub filling: bool,
    /// Why the last refresh failed (the copy from before is shown), or why there is no copy.
    pub problem: Option<String>,
    /// Entries the registry sent that were left out, and why.
    pub left_out: Vec<String>,
}

/// One entry (a server's latest version) as the list and the details show it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryEntryView {
    /// The registry it is from (its base address).
    pub registry: String,
    pub name: String,
    /// The publisher's namespace (`io.github.user`).
    pub namespace: String,
    pub title: Option<String>,
    pub description: String,
    pub version: String,
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(type = "\"active\" | \"deprecated\" | \"deleted\"")
    )]
    pub status: String,
    /// Whether it can be added (active, and a package or remote passed the checks).
    pub offered: bool,
    /// https only; shown as text, opened only through the URL consent dialog.
    pub repository: Option<String>,
    pub website: Option<String>,
    /// The first https icon; the window asks for it as a checked `data:` image (`registry_icon`).
    pub icon: Option<String>,
    /// The ways to run it: its packages, then its remotes.
    pub ways: Vec<McpRegistryWay>,
    /// Packages or remotes left out by the checks, and why.
    pub problems: Vec<String>,
}

/// Which of an entry's ways is meant (`porthole_mcp_registry::Choice`, typed for the window).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryChoice {
    pub remote: bool,
    pub index: usize,
}

impl From<McpRegistryChoice> for Choice {
    fn from(c: McpRegistryChoice) -> Self {
        if c.remote {
            Choice::Remote(c.index)
        } else {
            Choice::Package(c.index)
        }
    }
}

/// A package or a remote of an entry.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryWay {
    pub choice: McpRegistryChoice,
    /// `npx`, `uvx`, `docker`, `dnx`, `mcpb` (an MCP bundle, whose own runtime is known once
    /// it is downloaded: [`McpRegistryForm::bundle`]); `null` for a remote.
    pub runtime: Option<String>,
    /// Whether that program is on this computer's `PATH` (a remote or a bundle needs none
    /// before it is chosen: true).
    pub runtime_found: bool,
    /// The package and its pinned version (`@scope/name@1.2.3`), a bundle's URL, or the
    /// remote's URL template.
    pub what: String,
    /// `streamable-http` or `sse` for a remote.
    pub transport: Option<String>,
}

/// The form of one way of one entry: the elicitation engine's form (the window renders it with
/// the elicitation form's own field components) and the connection name to suggest.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryForm {
    pub entry: McpRegistryEntryView,
    pub choice: McpRegistryChoice,
    /// A free connection name (`brave-search`, or `brave-search-2` when taken).
    pub suggested_name: String,
    #[cfg_attr(any(test, feature = "ts"), ts(type = "FormSchema"))]
    pub schema: FormSchema,
    #[cfg_attr(
        any(test, feature = "ts"),
        ts(type = "Record<string, string | number | boolean | Array<string>>")
    )]
    pub initial_values: Map<String, Value>,
    /// Field name -> what it accepts, in words (the validator's hints).
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Record<string, string>"))]
    pub hints: Map<String, Value>,
    /// An MCP bundle's download, checked (its form is its manifest's settings); `null` for
    /// other ways.
    pub bundle: Option<McpRegistryBundle>,
}

/// An MCP bundle downloaded and checked against its SHA-256, as the form shows it. Its texts
/// are the manifest's, made showable (hidden characters shown, lengths cut).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryBundle {
    pub url: String,
    pub sha256: String,
    /// Where it is unpacked when the connection is saved (its `${__dirname}`).
    pub folder: String,
    /// `node`, `python`, `uv` or `binary`.
    pub server_type: String,
    /// The program it runs with (`node`, `python3`, `uv`); `null` for a binary bundle, which
    /// brings its own.
    pub program: Option<String>,
    /// Whether that program is on this computer's `PATH` (a binary bundle: true).
    pub program_found: bool,
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub author: Option<String>,
    pub description: String,
    /// What the manifest says it needs (`node >=18`).
    pub runtimes: Vec<String>,
}

impl McpRegistryBundle {
    pub(crate) fn of(b: &Bundle) -> Self {
        let m = &b.manifest;
        Self {
            url: b.url.clone(),
            sha256: b.sha256.clone(),
            folder: b.dir.to_string_lossy().into_owned(),
            server_type: m.server_type.name().to_string(),
            program: b.program(),
            program_found: b.runtime_found(),
            name: m.name.clone(),
            display_name: m.display_name.clone(),
            version: m.version.clone(),
            author: m.author.clone(),
            description: m.description.clone(),
            runtimes: m.runtimes.clone(),
        }
    }
}

/// The form's values checked: the validator's verdict per field (as `validate_form` gives an
/// elicitation's), and when they pass, exactly what would be saved.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryCheck {
    #[cfg_attr(any(test, feature = "ts"), ts(type = "Validation"))]
    pub validation: Validation,
    /// The command line or URL (and headers) that would be saved, secret values as
    /// `<in the OS keyring>`; `null` until the values pass.
    pub shown: Option<String>,
    /// What stops saving besides the fields (the name taken, a URL variable that makes no
    /// URL...).
    pub problems: Vec<String>,
    /// The values that would go to the keyring (`env:TOKEN`, `header:authorization`), named.
    pub secrets: Vec<String>,
}

/// What `mcp_registry_add` saved.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub struct McpRegistryAdded {
    pub name: String,
    pub shown: String,
    pub secrets: Vec<String>,
    pub remote: bool,
    /// A remote goes straight on to its sign-in: what became of it.
    pub sign_in: McpRegistrySignIn,
}

/// Where a server saved from the registry stands with its sign-in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub enum McpRegistrySignIn {
    /// A program on this computer: nothing to sign in to.
    NotRemote,
    /// Its form sent a secret header (its key): that is how it signs in, so no OAuth is asked.
    ByHeader,
    /// The server answered without asking for sign-in.
    NotAsked,
    /// The sign-in's consent dialog is in the dialog list.
    Asked {
        #[serde(rename = "dialogId")]
        dialog_id: u64,
    },
    /// The sign-in could not start (the connection's Sign in button tries again).
    Failed { reason: String },
}

fn status(s: Status) -> &'static str {
    match s {
        Status::Active => "active",
        Status::Deprecated => "deprecated",
        Status::Deleted => "deleted",
    }
}

fn package_way(i: usize, p: &PackageChoice) -> McpRegistryWay {
    let sep = match (p.runtime, p.version.starts_with("sha256:")) {
        (porthole_mcp_registry::Runtime::Docker, true) => "@",
        (porthole_mcp_registry::Runtime::Docker, false) => ":",
        _ => "@",
    };
    McpRegistryWay {
        choice: McpRegistryChoice {
            remote: false,
            index: i,
        },
        runtime: Some(p.runtime.program().to_string()),
        runtime_found: p.runtime.is_installed(),
        what: match (p.runtime, &p.sha256) {
            (Runtime::Mcpb, Some(sha)) => format!("{} (SHA-256 {}…)", p.identifier, &sha[..12]),
            _ => format!("{}{sep}{}", p.identifier, p.version),
        },
        transport: None,
    }
}

fn remote_way(i: usize, r: &RemoteChoice) -> McpRegistryWay {
    McpRegistryWay {
        choice: McpRegistryChoice {
            remote: true,
            index: i,
        },
        runtime: None,
        runtime_found: true,
        what: r.url.clone(),
        transport: Some(
            match r.kind {
                RemoteKind::StreamableHttp => "streamable-http",
                RemoteKind::Sse => "sse",
            }
            .to_string(),
        ),
    }
}

/// The view of `entry` from registry `base`.
pub(crate) fn entry_view(base: &str, entry: &Entry) -> McpRegistryEntryView {
    let ways = (entry.packages.iter().enumerate())
        .map(|(i, p)| package_way(i, p))
        .chain(entry.remotes.iter().enumerate().map(|(i, r)| remote_way(i, r)))
        .collect();
    McpRegistryEntryView {
        registry: base.to_string(),
        name: entry.name.clone(),
        namespace: entry.namespace.clone(),
        title: entry.title.clone(),
        description: entry.description.clone(),
        version: entry.version.clone(),
        status: status(entry.status).to_string(),
        offered: entry.is_offered(),
        repository: entry.repository.clone(),
        website: entry.website.clone(),
        icon: entry.icons.first().cloned(),
        ways,
        problems: entry.problems.clone(),
    }
}
