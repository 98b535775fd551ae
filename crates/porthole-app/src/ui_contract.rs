//! The window's TypeScript types, generated from the Rust structs (ts-rs) so the two cannot
//! drift: the tests fail when a checked-in file under `ui/src/lib/generated/` is out of date,
//! and `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract` rewrites them. `app.ts` holds
//! the snapshot and the app model's own events; `core.ts` core's events, dialog prompts and
//! answers; `history.ts` the consent history's rows (core and the history derive behind their
//! `ts` feature, which only this crate's tests turn on). ACP's own shapes (session updates,
//! tool calls, permission options...) are named from the official TypeScript SDK
//! (`@agentclientprotocol/sdk`), never copied; the ones the app passes through as they came
//! (modes, config options...) through `acp.ts`.

use ts_rs::{Config, TS};

use crate::SessionView;
use crate::launch::{Profile, RegistryInfo};
use crate::settings::Settings;
use crate::snapshot::{AppSnapshot, AuthMethodView, ConnectionError, ConnectionView, PermissionRuleView};

const BLESS: &str = "PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract";

/// The file: a header naming where it comes from, its imports, then each declaration exported.
fn file(source: &str, imports: &str, decls: &[String]) -> String {
    let mut ts = format!("// Generated from {source} (ts-rs) by\n// `{BLESS}`. Do not edit.\n{imports}\n");
    for decl in decls {
        ts.push_str("export ");
        ts.push_str(decl);
        ts.push_str("\n\n");
    }
    ts.truncate(ts.trim_end().len());
    ts.push('\n');
    ts
}

fn config() -> Config {
    Config::new().with_large_int("number")
}

fn core_types() -> String {
    use porthole_core::events::{
        Action, AgentIdentity, DialogAnswer, DialogPrompt, DismissReason, ElicitationPrompt, Event, ExitInfo,
        FileAccessPrompt, FileOperation, PermissionPrompt, RpcError, Scope,
    };
    let cfg = config();
    file(
        "porthole-core's events, dialog prompts and answers",
        "import type { PermissionOption, PermissionOptionKind, SessionUpdate, StopReason, ToolCallUpdate } from \"@agentclientprotocol/sdk\";\n\
         import type { FormSchema, UrlAnalysis } from \"./elicitation\";\n\
         /** A form's values by field name, as the agent receives them. */\n\
         export type FormContent = Record<string, string | number | boolean | Array<string>>;\n",
        &[
            AgentIdentity::decl(&cfg),
            Scope::decl(&cfg),
            ElicitationPrompt::decl(&cfg),
            PermissionPrompt::decl(&cfg),
            FileOperation::decl(&cfg),
            FileAccessPrompt::decl(&cfg),
            DialogPrompt::decl(&cfg),
            Action::decl(&cfg),
            DialogAnswer::decl(&cfg),
            DismissReason::decl(&cfg),
            RpcError::decl(&cfg),
            ExitInfo::decl(&cfg),
            Event::decl(&cfg),
        ],
    )
}

fn history_types() -> String {
    use porthole_history::{
        DomainMark, DomainMemory, HistoryEntry, HistoryFilter, HistoryPage, PermissionDetail,
    };
    let cfg = config();
    file(
        "porthole-history's rows, filter and domain marks",
        "import type { PermissionOptionKind } from \"@agentclientprotocol/sdk\";\n",
        &[
            HistoryFilter::decl(&cfg),
            PermissionDetail::decl(&cfg),
            HistoryEntry::decl(&cfg),
            HistoryPage::decl(&cfg),
            DomainMemory::decl(&cfg),
            DomainMark::decl(&cfg),
        ],
    )
}

fn generated() -> String {
    let cfg = config();
    let decls = [
        RegistryInfo::decl(&cfg),
        Profile::decl(&cfg),
        AuthMethodView::decl(&cfg),
        ConnectionError::decl(&cfg),
        crate::snapshot::ConnectionState::decl(&cfg),
        crate::ProxyView::decl(&cfg),
        ConnectionView::decl(&cfg),
        SessionView::decl(&cfg),
        PermissionRuleView::decl(&cfg),
        Settings::decl(&cfg),
        AppSnapshot::decl(&cfg),
        crate::Attachment::decl(&cfg),
        crate::app_event::InstallPhase::decl(&cfg),
        crate::dialog_view::Origin::decl(&cfg),
        crate::dialog_view::DialogView::decl(&cfg),
        crate::results::StoredSession::decl(&cfg),
        crate::results::SessionList::decl(&cfg),
        crate::results::InspectorEntry::decl(&cfg),
        crate::results::ProtocolLog::decl(&cfg),
        crate::results::HistoryExport::decl(&cfg),
        crate::results::RegistryAgentView::decl(&cfg),
        crate::results::RegistryListing::decl(&cfg),
        crate::mcp_view::McpServerView::decl(&cfg),
        crate::mcp_view::McpSignIn::decl(&cfg),
        crate::mcp_view::McpConnectionView::decl(&cfg),
        crate::mcp_view::McpConnectionList::decl(&cfg),
        crate::mcp_view::McpTool::decl(&cfg),
        crate::mcp_edit::NewServer::decl(&cfg),
        crate::mcp_edit::McpImported::decl(&cfg),
        crate::metrics::IpcStats::decl(&cfg),
        crate::metrics::DialogSample::decl(&cfg),
        crate::metrics::AnswerSample::decl(&cfg),
        crate::metrics::PerfStats::decl(&cfg),
        crate::WindowState::decl(&cfg),
        crate::app_event::AppEvent::decl(&cfg),
        crate::AnswerError::decl(&cfg),
    ];
    file(
        "porthole-app's snapshot types",
        "import type { AgentCapabilities } from \"@agentclientprotocol/sdk/unstable\";\n\
         import type { AvailableCommand, ConfigOption, SessionModeState, SessionModels, SessionUsage } from \"../acp\";\n\
         import type { AgentIdentity, ElicitationPrompt, FileAccessPrompt, PermissionPrompt } from \"./core\";\n\
         import type { Validation } from \"./elicitation\";\n\
         import type { DomainMemory } from \"./history\";\n",
        &decls,
    )
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
