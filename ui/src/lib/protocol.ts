// The contract between the app model (porthole-app, in the Tauri shell) and this UI.
// The backend owns all state and all protocol logic; the UI renders and asks.
// Every type the window receives or sends is generated from Rust: the snapshot and the app
// model's events (generated/app.ts), core's events, dialog prompts and answers
// (generated/core.ts), the consent history's rows (generated/history.ts), the form and URL types
// (generated/elicitation.ts), the command names (generated/command-names.ts); ACP's own shapes
// come from the official TypeScript SDK (acp.ts). This file names them for the components.

// ---------- identity, agents, connections and sessions ----------
// The ACP shapes the app passes through as they came: in acp.ts, which generated/app.ts names
// (so the generated files never import this one back).
import type { Channel } from "@tauri-apps/api/core";
import type {
  AgentIdentity, ConfigOption, ConfigSelectGroup, ConfigSelectOption, ContentBlock, PlanEntry, SessionMode, SessionModels,
  SessionUpdate, SessionUsage, ToolCallContent,
} from "./acp";
export type {
  AgentIdentity, ConfigOption, ConfigSelectGroup, ConfigSelectOption, ContentBlock, PlanEntry, SessionMode, SessionModels,
  SessionUpdate, SessionUsage, ToolCallContent,
};

// The snapshot (agents, connections, sessions, settings): generated from porthole-app's Rust
// structs, see generated/app.ts.
import type {
  AgentCapabilitiesView, AgentProfile, AppEvent, ConnectionState, AppSettings, AppSnapshot, Attachment, AuthMethodView, Connection, DialogView, InstallProgress,
  PermissionRuleView, ProxyView, SessionView, WindowState, DialogOrigin, RegistryAgentView, RegistryListing, HistoryExport, InspectorEntry, ProtocolLog, SessionList,
  StoredSession, PerfStats, McpConnectionList, McpConnectionView, McpServerView, McpSignIn, McpTool, McpNewServer, McpImported,
} from "./generated/app";
export type {
  AgentCapabilitiesView, AgentProfile, AppSettings, ConnectionState, AppSnapshot, AuthMethodView, Connection, DialogOrigin, DialogView, PermissionRuleView,
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
export type { McpConnectionList, McpConnectionView, McpServerView, McpSignIn, McpTool, McpNewServer, McpImported };

/** What the other commands return: generated (porthole-app's results.rs). */
export type { HistoryExport, InspectorEntry, PerfStats, ProtocolLog, SessionList, StoredSession };

// ---------- commands (Tauri invoke) ----------

export interface Commands {
  /** The event stream: every batch from now on arrives on `channel` (the window calls it once, first). */
  subscribe_events(args: { channel: Channel<{ events: UiEvent[] }> }): void;
  /** Current state; call once, after subscribing. Also returns the dialogs waiting. */
  app_state(): WindowState;
  connect_agent(args: { agentId: string }): void;
  restart_agent(args: { agentId: string }): void;
  /** `additionalDirectories`: more folders, only for an agent that advertises them. */
  new_session(args: { agentId: string; cwd: string; additionalDirectories?: string[] }): SessionView;
  list_sessions(args: { agentId: string; cwd?: string | null; cursor?: string | null }): SessionList;
  load_session(args: { agentId: string; sessionId: string; cwd: string; additionalDirectories?: string[] }): SessionView;
  resume_session(args: { agentId: string; sessionId: string; cwd: string; additionalDirectories?: string[] }): SessionView;
  close_session(args: { sessionId: string }): void;
  /** `session/delete` of a stored session (when the agent advertises it). */
  delete_session(args: { agentId: string; sessionId: string }): void;
  /** `logout` (when advertised); the sign-in values kept for the agent are forgotten too. */
  logout(args: { agentId: string }): void;
  authenticate(args: { agentId: string; methodId: string }): void;
  /** Runs the agent's login command in a terminal; returns its terminal id. */
  start_terminal_auth(args: { agentId: string; methodId: string }): string;
  terminal_input(args: { terminalId: string; text: string }): void;
  send_prompt(args: { sessionId: string; text: string; attachments?: Attachment[] }): void;
  cancel_turn(args: { sessionId: string }): void;
  set_mode(args: { sessionId: string; modeId: string }): void;
  set_model(args: { sessionId: string; modelId: string }): void;
  /** A new session forked from this one (when the agent advertises `session/fork`). */
  fork_session(args: { sessionId: string }): SessionView;
  set_config_option(args: { sessionId: string; configId: string; value: string | boolean }): void;
  revoke_permission_rule(args: { ruleId: number }): void;
  save_settings(args: { settings: AppSettings }): void;
  protocol_log(args: { agentId: string; since?: number }): ProtocolLog;
  /** Core validates (the one source of truth). */
  validate_form(args: { dialogId: number; content: FormContent }): Validation;
  /** Any waiting dialog, with an answer of its kind. Err: { kind: "invalid", validation } when a
   *  form's content fails validation; { kind: "error", message } otherwise. */
  answer_dialog(args: { dialogId: number; answer: DialogAnswer }): void;
  /** After consent (the dialog already answered accept): open the URL the backend holds. */
  open_url(args: { dialogId: number; target: UrlOpener }): void;
  /** The user closed a URL dialog (e.g. after "Completed"): its isolated window closes too. */
  close_url_view(args: { dialogId: number }): void;
  /** Ack for latency measurement: the UI painted the dialog. */
  dialog_shown(args: { dialogId: number }): void;
  history_list(args: { filter: HistoryFilter }): HistoryPage;
  history_export(): HistoryExport;
  history_clear(): number;
  domain_marks(): DomainMark[];
  set_domain_trust(args: { agentId: string; agentName: string; domain: string; trusted: boolean }): void;
  /** Benchmark counters (IPC batches, dialog and answer latencies); read by tests/bench-app. */
  perf_stats(): PerfStats;
  /** The ACP registry's agents, with what is installed here. */
  registry_agents(): RegistryListing;
  /** A registry icon as a data: URL (fetched and checked by the backend). */
  registry_icon(args: { url: string }): string;
  /** Install or update; progress arrives as install_progress events. Returns the agent's profile id. */
  install_agent(args: { registryId: string }): string;
  /** Cancel the install under way of that agent (install_agent then fails); false when none is. */
  cancel_install(args: { registryId: string }): boolean;
  remove_agent(args: { registryId: string }): void;
  /** env_var sign-in: the values go to the OS keyring and the agent restarts with them. */
  save_sign_in(args: { agentId: string; methodId: string; values: Record<string, string> }): void;
  /** Delete an agent's saved sign-in values from the OS keyring. */
  forget_sign_in(args: { agentId: string }): void;
  /** The person's MCP connections: where each points, who gets it, its sign-in, the open sessions that have it. */
  mcp_connections(): McpConnectionList;
  /** A connection's tools (`tools/list` through the gateway, as an agent reaches it). */
  mcp_tools(args: { name: string }): McpTool[];
  /** Switch a connection on or off for the sessions opened from now on. */
  mcp_set_enabled(args: { name: string; on: boolean }): void;
  /** Revoke (where the server offers it) and delete a remote connection's tokens; says which. */
  mcp_sign_out(args: { name: string }): string;
  /** Take a connection out of the list and delete its keyring values; says what happened. */
  mcp_remove(args: { name: string }): string;
  /** Start signing in to a remote connection: its URL consent dialog arrives in the dialog list;
   *  returns that dialog's id. `clientId`: one the person entered, for a server that registers none. */
  mcp_sign_in(args: { name: string; clientId?: string | null }): number;
  /** Add a connection (every agent gets it in the sessions opened from now on). */
  mcp_add(args: { name: string; server: McpNewServer }): void;
  /** Import another client's MCP servers from pasted text: what happened to each. */
  mcp_import(args: { text: string }): McpImported[];
}

// The backend's one list of commands (src-tauri/src/command_list.rs, generated into
// generated/command-names.ts) and `Commands` above must name the same commands: a command
// added on one side only fails the type check here.
import type { CommandName as RegisteredCommand } from "./generated/command-names";
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<T extends true> = T;
export type CommandsMatchTheBackend = Expect<Same<keyof Commands, RegisteredCommand>>;
