//! The window's TypeScript types for the snapshot, generated from the Rust structs (ts-rs) so
//! the two cannot drift: the test fails when the checked-in `ui/src/lib/generated/app.ts` is
//! out of date, and `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract` rewrites it. ACP
//! shapes the app passes through as they came (modes, config options...) are named from
//! `acp.ts` (not `protocol.ts`, which re-exports this file: no import circle).

use ts_rs::{Config, TS};

use crate::SessionView;
use crate::launch::{Profile, RegistryInfo};
use crate::settings::Settings;
use crate::snapshot::{
    AgentCapabilitiesView, AppSnapshot, AuthMethodView, ConnectionError, ConnectionView, PermissionRuleView,
};

fn generated() -> String {
    let cfg = Config::new().with_large_int("number");
    let decls = [
        RegistryInfo::decl(&cfg),
        Profile::decl(&cfg),
        AuthMethodView::decl(&cfg),
        AgentCapabilitiesView::decl(&cfg),
        ConnectionError::decl(&cfg),
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
    ];
    let mut ts = String::from(
        "// Generated from porthole-app's snapshot types (ts-rs) by\n\
         // `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract`. Do not edit.\n\
         import type { AgentIdentity, ConfigOption, ConnectionState, SessionMode, SessionModels, SessionUsage } from \"../acp\";\n\
         import type { Dialog } from \"../dialogs\";\n\n",
    );
    for decl in decls {
        ts.push_str("export ");
        ts.push_str(&decl);
        ts.push_str("\n\n");
    }
    ts.truncate(ts.trim_end().len());
    ts.push('\n');
    ts
}

#[test]
fn the_windows_snapshot_types_are_generated_from_these() {
    crate::generated_file::bless_or_compare(
        "ui/src/lib/generated/app.ts",
        &generated(),
        "PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract",
    );
}
