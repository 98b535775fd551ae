//! The window's TypeScript types, generated from the Rust structs (ts-rs) so the two cannot
//! drift: the tests fail when a checked-in file under `ui/src/lib/generated/` is out of date,
//! and `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract` rewrites them. `app.ts` holds
//! the snapshot and the app model's own events; `core.ts` core's events, dialog prompts and
//! answers; `history.ts` the consent history's rows (core and the history derive behind their
//! `ts` feature, which only this crate's tests turn on). ACP's own shapes (session updates,
//! tool calls, permission options...) are named from the official TypeScript SDK
//! (`@agentclientprotocol/sdk`), never copied; the ones the app passes through as they came
//! (modes, config options...) through `acp.ts`.

use std::any::TypeId;
use std::collections::{BTreeSet, HashSet};

use ts_rs::{Config, TS, TypeVisitor};

use crate::SessionView;
use crate::launch::{Profile, RegistryInfo};
use crate::settings::Settings;
use crate::snapshot::{AppSnapshot, AuthMethodView, ConnectionError, ConnectionView, PermissionRuleView};

const BLESS: &str = "PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract";

/// Declares one type in a file.
type Declare = fn(&mut Decls);

/// The declarations of one generated file, and the names they use from other files.
struct Decls {
    cfg: Config,
    decls: Vec<String>,
    /// Every type declared here, by TypeScript name.
    names: BTreeSet<String>,
    seen: HashSet<TypeId>,
    /// The types the declarations name directly (for another file's imports).
    used: BTreeSet<String>,
}

impl Decls {
    fn new() -> Self {
        Decls {
            cfg: Config::new().with_large_int("number"),
            decls: Vec::new(),
            names: BTreeSet::new(),
            seen: HashSet::new(),
            used: BTreeSet::new(),
        }
    }

    /// Declare `T`.
    fn declare<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        self.decls.push(T::decl(&self.cfg));
        self.names.insert(T::ident(&self.cfg));
        self.used
            .extend(T::dependencies(&self.cfg).into_iter().map(|d| d.ts_name));
    }

    /// Declare `T` after every type it reaches that is not declared yet (by name), so a type
    /// only `T` uses (a dialog kind's prompt, reached from `DialogPrompt`) needs no line here.
    fn declare_with_reached<T: TS + 'static + ?Sized>(&mut self) {
        /// Every type reached from a root, once: its name and how to declare it.
        struct Reach<'a> {
            cfg: &'a Config,
            seen: HashSet<TypeId>,
            found: Vec<(String, Declare)>,
        }
        impl TypeVisitor for Reach<'_> {
            fn visit<U: TS + 'static + ?Sized>(&mut self) {
                // Only types ts-rs can declare (not `String`, `Option`, `Box`...).
                if U::output_path().is_none() || !self.seen.insert(TypeId::of::<U>()) {
                    return;
                }
                self.found.push((U::ident(self.cfg), Decls::declare::<U>));
                U::visit_dependencies(self);
            }
        }
        let cfg = Config::new().with_large_int("number");
        let mut reach = Reach {
            cfg: &cfg,
            seen: HashSet::from([TypeId::of::<T>()]),
            found: Vec::new(),
        };
        T::visit_dependencies(&mut reach);
        // By name: the visit order is not stable from one build to the next.
        reach.found.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, declare) in reach.found {
            declare(self);
        }
        self.declare::<T>();
    }

    /// `import type { ... } from "<from>";` for the names these declarations use of `other`'s.
    fn imports_from(&self, other: &Decls, from: &str) -> String {
        let names: Vec<&str> = self
            .used
            .iter()
            .filter(|name| other.names.contains(*name))
            .map(String::as_str)
            .collect();
        if names.is_empty() {
            return String::new();
        }
        format!("import type {{ {} }} from \"{from}\";\n", names.join(", "))
    }

    /// The file: a header naming where it comes from, its imports, then each declaration
    /// exported.
    fn file(&self, source: &str, imports: &str) -> String {
        let mut ts =
            format!("// Generated from {source} (ts-rs) by\n// `{BLESS}`. Do not edit.\n{imports}\n");
        for decl in &self.decls {
            ts.push_str("export ");
            ts.push_str(decl);
            ts.push_str("\n\n");
        }
        ts.truncate(ts.trim_end().len());
        ts.push('\n');
        ts
    }
}

/// Core's events, dialog prompts and answers: the roots and every core type they reach, so a
/// new dialog kind's prompt is declared because `DialogPrompt` names it.
fn core_decls() -> Decls {
    use porthole_core::events::{DialogAnswer, DialogPrompt, Event};
    let mut core = Decls::new();
    core.declare_with_reached::<DialogPrompt>();
    core.declare_with_reached::<DialogAnswer>();
    core.declare_with_reached::<Event>();
    // The session's models (`session/set_model`), which the snapshot's sessions carry.
    core.declare_with_reached::<porthole_core::models::SessionModels>();
    core
}

fn core_types() -> String {
    core_decls().file(
        "porthole-core's events, dialog prompts and answers",
        "import type { PermissionOption, PermissionOptionKind, StopReason, ToolCallUpdate } from \"@agentclientprotocol/sdk\";\n\
         // The ACP payloads of the transcript model (porthole-core's transcript.rs), named `Acp.X` there.\n\
         import type * as Acp from \"@agentclientprotocol/sdk/unstable\";\n\
         import type { FormSchema, UrlAnalysis } from \"./elicitation\";\n\
         /** A form's values by field name, as the agent receives them. */\n\
         export type FormContent = Record<string, string | number | boolean | Array<string>>;\n",
    )
}

fn history_decls() -> Decls {
    use porthole_history::{
        DomainMark, DomainMemory, HistoryEntry, HistoryFilter, HistoryPage, PermissionDetail,
    };
    let mut history = Decls::new();
    history.declare::<HistoryFilter>();
    history.declare::<PermissionDetail>();
    history.declare::<HistoryEntry>();
    history.declare::<HistoryPage>();
    history.declare::<DomainMemory>();
    history.declare::<DomainMark>();
    history
}

fn history_types() -> String {
    history_decls().file(
        "porthole-history's rows, filter and domain marks",
        "import type { PermissionOptionKind } from \"@agentclientprotocol/sdk\";\n",
    )
}

fn generated() -> String {
    let mut app = Decls::new();
    app.declare::<RegistryInfo>();
    app.declare::<Profile>();
    app.declare::<AuthMethodView>();
    app.declare::<ConnectionError>();
    app.declare::<crate::snapshot::ConnectionState>();
    app.declare::<crate::ProxyView>();
    app.declare::<ConnectionView>();
    app.declare::<SessionView>();
    app.declare::<PermissionRuleView>();
    app.declare::<Settings>();
    app.declare::<AppSnapshot>();
    app.declare::<crate::Attachment>();
    app.declare::<crate::app_event::InstallPhase>();
    app.declare::<crate::dialog_view::Origin>();
    app.declare::<crate::dialog_view::DialogView>();
    app.declare::<crate::results::StoredSession>();
    app.declare::<crate::results::SessionList>();
    app.declare::<crate::results::InspectorEntry>();
    app.declare::<crate::results::ProtocolLog>();
    app.declare::<crate::results::HistoryExport>();
    app.declare::<crate::results::RegistryAgentView>();
    app.declare::<crate::results::RegistryListing>();
    app.declare::<porthole_connections::list::RemoteTransport>();
    app.declare::<crate::mcp_view::McpServerView>();
    app.declare::<crate::mcp_view::McpSignIn>();
    app.declare::<crate::mcp_view::McpConnectionView>();
    app.declare::<crate::mcp_view::McpConnectionList>();
    app.declare::<crate::mcp_view::McpTool>();
    app.declare::<crate::mcp_edit::NewServer>();
    app.declare::<crate::mcp_edit::McpImported>();
    app.declare::<crate::mcp_apps::McpAppView>();
    app.declare::<crate::mcp_apps::McpToolResult>();
    app.declare::<crate::mcp_apps::McpAppPermissions>();
    app.declare::<crate::mcp_apps::AppPermission>();
    app.declare::<crate::mcp_registry_view::McpRegistryState>();
    app.declare::<crate::mcp_registry_view::McpRegistryChoice>();
    app.declare::<crate::mcp_registry_view::McpRegistryWay>();
    app.declare::<crate::mcp_registry_view::McpRegistryEntryView>();
    app.declare::<crate::mcp_registry_view::McpRegistryResults>();
    app.declare::<crate::mcp_registry_view::McpRegistryBundle>();
    app.declare::<crate::mcp_registry_view::McpRegistryForm>();
    app.declare::<crate::mcp_registry_view::McpRegistryCheck>();
    app.declare::<crate::mcp_registry_view::McpRegistryAdded>();
    app.declare::<crate::mcp_registry_view::McpRegistrySignIn>();
    app.declare::<crate::metrics::IpcStats>();
    app.declare::<crate::metrics::DialogSample>();
    app.declare::<crate::metrics::AnswerSample>();
    app.declare::<crate::metrics::PerfStats>();
    app.declare::<crate::WindowState>();
    app.declare::<crate::app_event::AppEvent>();
    app.declare::<crate::AnswerError>();
    // Named by a `ts(type = ...)` (`ConnectionView::agent`), which ts-rs does not follow.
    app.used.insert("AgentIdentity".into());
    let imports = format!(
        "import type {{ AgentCapabilities }} from \"@agentclientprotocol/sdk/unstable\";\n\
         import type {{ AvailableCommand, ConfigOption, SessionModeState, SessionUsage }} from \"../acp\";\n\
         {}\
         import type {{ FormSchema, Validation }} from \"./elicitation\";\n\
         {}",
        app.imports_from(&core_decls(), "./core"),
        app.imports_from(&history_decls(), "./history"),
    );
    app.file("porthole-app's snapshot types", &imports)
}

#[test]
fn the_windows_snapshot_types_are_generated_from_these() {
    crate::generated_file::bless_or_compare("ui/src/lib/generated/app.ts", &generated(), BLESS);
}

#[test]
fn cores_events_and_dialogs_are_generated_from_these() {
    crate::generated_file::bless_or_compare("ui/src/lib/generated/core.ts", &core_types(), BLESS);
}

#[test]
fn the_historys_rows_are_generated_from_these() {
    crate::generated_file::bless_or_compare("ui/src/lib/generated/history.ts", &history_types(), BLESS);
}
