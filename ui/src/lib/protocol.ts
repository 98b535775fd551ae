// The contract between the app model (porthole-app, in the Tauri shell) and this UI.
// The backend owns all state and all protocol logic; the UI renders and asks.
// Every type the window receives or sends is generated from Rust: the snapshot and the app
// model's events (generated/app.ts), core's events, dialog prompts and answers
// (generated/core.ts), the consent history's rows (generated/history.ts), the form and URL types
// (generated/elicitation.ts), every command's arguments and result (generated/commands.ts); ACP's own shapes
// come from the official TypeScript SDK (acp.ts). This file names them for the components.

// ---------- identity, agents, connections and sessions ----------
// The ACP shapes the app passes through as they came: in acp.ts, which generated/app.ts names
// (so the generated files never import this one back).
import type {
  AgentIdentity, CompactionStatus, ConfigOption, ConfigSelectGroup, ConfigSelectOption, ContentBlock, PlanEntry, SessionMode,
  SessionModels, SessionUsage, ToolCallContent,
} from "./acp";
export type {
  AgentIdentity, CompactionStatus, ConfigOption, ConfigSelectGroup, ConfigSelectOption, ContentBlock, PlanEntry, SessionMode,
  SessionModels, SessionUsage, ToolCallContent,
};

// The snapshot (agents, connections, sessions, settings): generated from porthole-app's Rust
// structs, see generated/app.ts.
import type {
  AgentProfile, AppEvent, ConnectionState, AppSettings, AppSnapshot, Attachment, AuthMethodView, Connection, DialogView, InstallProgress,
  PermissionRuleView, ProxyView, SessionView, WindowState, DialogOrigin, RegistryAgentView, RegistryListing, HistoryExport, InspectorEntry, ProtocolLog, SessionList,
  StoredSession, PerfStats, McpConnectionList, McpConnectionView, McpServerView, McpSignIn, McpTool, McpNewServer, McpImported, RemoteTransport,
  McpAppView, McpToolResult, McpAppPermissions, AppPermission,
  McpRegistryResults, McpRegistryState, McpRegistryEntryView, McpRegistryWay, McpRegistryChoice, McpRegistryForm, McpRegistryCheck,
  McpRegistryAdded,
} from "./generated/app";
export type {
  AgentProfile, AppSettings, ConnectionState, AppSnapshot, AuthMethodView, Connection, DialogOrigin, DialogView, PermissionRuleView,
  ProxyView, SessionView, WindowState,
};

/** Where an accepted URL opens: Porthole's sealed view or the system browser (the setting's values). */
export type UrlOpener = AppSettings["urlOpener"];
/** Who answers an editor's questions for an agent run through `porthole proxy`. */
export type QuestionsAnsweredBy = AppSettings["editorQuestionsByAgent"][string];

// ---------- the ACP registry ("Add agent"): generated (porthole-app's results.rs) ----------
export type RegistryStatus = RegistryAgentView["status"];
export type { RegistryAgentView, RegistryListing };

/** A registry install's progress (generated from porthole-app's `InstallPhase`). */
export type { InstallProgress };

// ---------- restricted schema and URL analysis: generated from porthole-elicitation ----------
import type { EnumChoice, Field, FieldError, FieldKind, FormSchema, UrlAnalysis, UrlWarning, Validation } from "./generated/elicitation";
export type { EnumChoice, Field, FieldError, FieldKind, FormSchema, UrlAnalysis, Validation };
export type UrlWarningCode = UrlWarning;

// ---------- dialogs ----------
// Core's dialog prompts and answers (generated/core.ts), named for the components in dialogs.ts.
import type {
  AnswerAction, DialogAnswer, DomainMemory, Elicitation, FileAccessRequest, FormContent, FormElicitation, FormValue, PermissionOption,
  PermissionRequest, Scope, ToolCallFields, UrlElicitation,
} from "./dialogs";
export type {
  AnswerAction, DialogAnswer, DomainMemory, Elicitation, FileAccessRequest, FormContent, FormElicitation, FormValue, PermissionOption,
  PermissionRequest, Scope, ToolCallFields, UrlElicitation,
};
/** A dialog waiting for the user: one of the app model's list (generated from porthole-app's
 *  `DialogView`; a new kind is a type error in DialogHost.svelte until it is rendered). */
export type Dialog = DialogView;

import type { CoreEvent, DialogPrompt, DismissReason } from "./generated/core";
export type { DismissReason };

// ---------- the transcript: Porthole's model of session updates (generated/core.ts) ----------
// Made from ACP's `SessionUpdate` in one place, core's transcript.rs; each has a `kind` tag
// the store and the rows switch on exhaustively.
import type { ItemUpdate, MessageChange, MessageRole, SessionState, TerminalChange, ToolCallChange, TranscriptUpdate, UnknownUpdate } from "./generated/core";
export type { ItemUpdate, MessageChange, MessageRole, SessionState, TerminalChange, ToolCallChange, TranscriptUpdate, UnknownUpdate };

// ---------- the event stream ----------
// A file attached to a prompt, and the app model's own events: generated (generated/app.ts).
export type { AppEvent, Attachment };

/** Everything the backend reports, in wire order. Delivered in batches (`subscribe_events`): the
 *  core events the app model forwards (porthole-core's `Event`, generated), then its own
 *  (porthole-app's `AppEvent`, generated), among them `dialogs`, the list of waiting dialogs:
 *  core's dialog prompts reach the window only in it, never as events of their own. */
export type UiEvent = Exclude<CoreEvent, { type: DialogPrompt["type"] }> | AppEvent;

// ---------- consent history: generated from porthole-history (generated/history.ts) ----------
import type { DomainMark, HistoryEntry, HistoryFilter, HistoryPage, PermissionDetail } from "./generated/history";
export type { DomainMark, HistoryEntry, HistoryFilter, HistoryPage, PermissionDetail };

// ---------- MCP connections (the Connections view): generated (porthole-app's mcp_view.rs) ----------
export type { McpConnectionList, McpConnectionView, McpServerView, McpSignIn, McpTool, McpNewServer, McpImported, RemoteTransport };
// The MCP Registry view ("Add from the registry…"): generated (porthole-app's mcp_registry_view.rs).
export type {
  McpRegistryResults, McpRegistryState, McpRegistryEntryView, McpRegistryWay, McpRegistryChoice, McpRegistryForm, McpRegistryCheck,
  McpRegistryAdded,
};

// ---------- MCP Apps (a connection's views under tool calls): generated (porthole-app's mcp_apps) ----------
export type { McpAppView, McpToolResult, McpAppPermissions, AppPermission };

/** What the other commands return: generated (porthole-app's results.rs). */
export type { HistoryExport, InspectorEntry, PerfStats, ProtocolLog, SessionList, StoredSession };

// ---------- commands (Tauri invoke) ----------
// Every command's arguments and result: generated from the backend's one list of commands
// (src-tauri/src/command_list.rs), so a command added, removed or changed there is a type error
// at every call site here until it is followed.
export type { Commands } from "./generated/commands";
