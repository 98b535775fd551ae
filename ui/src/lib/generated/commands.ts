// Generated from src-tauri/src/command_list.rs by
// `PORTHOLE_BLESS=1 cargo test -p porthole command_list`. Do not edit.
import type { UiEvent, UrlOpener } from "../protocol";
import type { AppSettings, Attachment, HistoryExport, McpAppPermissions, McpConnectionList, McpImported, McpNewServer, McpRegistryAdded, McpRegistryCheck, McpRegistryChoice, McpRegistryForm, McpRegistryResults, McpTool, McpToolResult, PerfStats, ProtocolLog, RegistryListing, SessionList, SessionView, WindowState } from "./app";
import type { DialogAnswer, FormContent } from "./core";
import type { Validation } from "./elicitation";
import type { DomainMark, HistoryFilter, HistoryPage } from "./history";
import type { Channel } from "@tauri-apps/api/core";

/** Every command the backend registers (and the main window may call): its arguments as Tauri
 *  takes them (camelCase keys; an optional one may be left out) and its result. */
export interface Commands {
  /** The event stream: every batch from now on arrives on `channel` (the window calls it once, first). */
  subscribe_events(args: { channel: Channel<{ events: UiEvent[] }> }): void;
  /** Current state; call once, after subscribing. Also returns the dialogs waiting. */
  app_state(): WindowState;
  connect_agent(args: { agentId: string }): void;
  restart_agent(args: { agentId: string }): void;
  /** `additionalDirectories`: more folders, only for an agent that advertises them. */
  new_session(args: { agentId: string; cwd: string; additionalDirectories?: Array<string> | null }): SessionView;
  list_sessions(args: { agentId: string; cwd?: string | null; cursor?: string | null }): SessionList;
  load_session(args: { agentId: string; sessionId: string; cwd: string; additionalDirectories?: Array<string> | null }): SessionView;
  resume_session(args: { agentId: string; sessionId: string; cwd: string; additionalDirectories?: Array<string> | null }): SessionView;
  close_session(args: { sessionId: string }): void;
  /** `session/delete` of a stored session (when the agent advertises it). */
  delete_session(args: { agentId: string; sessionId: string }): void;
  authenticate(args: { agentId: string; methodId: string }): void;
  /** `logout` (when advertised); the sign-in values kept for the agent are forgotten too. */
  logout(args: { agentId: string }): void;
  /** Runs the agent's login command in a terminal; returns its terminal id. */
  start_terminal_auth(args: { agentId: string; methodId: string }): string;
  terminal_input(args: { terminalId: string; text: string }): void;
  send_prompt(args: { sessionId: string; text: string; attachments?: Array<Attachment> | null }): void;
  cancel_turn(args: { sessionId: string }): void;
  /**
   * ACP v2: stop one piece of background work, a tool call (`tool_call/cancel`) or a
   * terminal the agent runs (`terminal/cancel`); `kind` is the background item's type.
   */
  cancel_background(args: { sessionId: string; kind: string; id: string }): void;
  set_mode(args: { sessionId: string; modeId: string }): void;
  set_model(args: { sessionId: string; modelId: string }): void;
  /** A new session forked from this one (when the agent advertises `session/fork`). */
  fork_session(args: { sessionId: string }): SessionView;
  /** A select's value id or a boolean option's new value. */
  set_config_option(args: { sessionId: string; configId: string; value: string | boolean }): void;
  revoke_permission_rule(args: { ruleId: number }): void;
  /** The agent's protocol messages (the inspector), from sequence number `since` on. */
  protocol_log(args: { agentId: string; since?: number | null }): ProtocolLog;
  save_settings(args: { settings: AppSettings }): void;
  /** The ACP version an agent is spoken to in from its next start: "auto", "1" or "2". */
  set_agent_protocol(args: { agentId: string; protocol: "auto" | "1" | "2" }): void;
  /** Core validates (the one source of truth). */
  validate_form(args: { dialogId: number; content: FormContent }): Validation;
  /**
   * Any waiting dialog, with an answer of its kind. Err: { kind: "invalid", validation } when a
   * form's content fails validation; { kind: "error", message } otherwise.
   */
  answer_dialog(args: { dialogId: number; answer: DialogAnswer }): void;
  /** After consent (the dialog already answered accept): open the URL the backend holds. */
  open_url(args: { dialogId: number; target: UrlOpener }): void;
  /** The user closed a URL dialog (e.g. after "Completed"): its isolated window closes too. */
  close_url_view(args: { dialogId: number }): void;
  /** Ack for latency measurement: the UI painted the dialog. */
  dialog_shown(args: { dialogId: number }): void;
  /** A page of the consent history; no filter lists the newest. */
  history_list(args: { filter?: HistoryFilter | null }): HistoryPage;
  /** Writes the history's export file: where, and how many entries. */
  history_export(): HistoryExport;
  /** Deletes the consent history; returns how many entries went. */
  history_clear(): number;
  /** The domains opened or marked trusted, per agent (the settings list). */
  domain_marks(): Array<DomainMark>;
  set_domain_trust(args: { agentId: string; agentName: string; domain: string; trusted: boolean }): void;
  /** Benchmark counters (IPC batches, dialog and answer latencies; docs/benchmarks-app.md). */
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
  save_sign_in(args: { agentId: string; methodId: string; values: { [key in string]: string } }): void;
  /** Delete an agent's saved sign-in values from the OS keyring. */
  forget_sign_in(args: { agentId: string }): void;
  /** The person's MCP connections: where each points, who gets it, its sign-in, the open sessions that have it. */
  mcp_connections(): McpConnectionList;
  /** A connection's tools (`tools/list` through the gateway, as an agent reaches it). */
  mcp_tools(args: { name: string }): Array<McpTool>;
  /** Switch a connection on or off for the sessions opened from now on. */
  mcp_set_enabled(args: { name: string; on: boolean }): void;
  /** Show a connection's MCP Apps or not (while apps are on, Settings > MCP Apps). */
  mcp_set_apps(args: { name: string; on: boolean }): void;
  /** Revoke (where the server offers it) and delete a remote connection's tokens; says which. */
  mcp_sign_out(args: { name: string }): string;
  /** Take a connection out of the list and delete its keyring values; says what happened. */
  mcp_remove(args: { name: string }): string;
  /**
   * Start signing in to a remote connection: its URL consent dialog arrives in the dialog list;
   * returns that dialog's id. `clientId`: one the person entered, for a server that registers none.
   */
  mcp_sign_in(args: { name: string; clientId?: string | null }): number;
  /** Add a connection (every agent gets it in the sessions opened from now on). */
  mcp_add(args: { name: string; server: McpNewServer }): void;
  /**
   * An MCP App calls a tool of its own server: asked first unless the person allowed that tool
   * for the server's apps. The tool's `CallToolResult`.
   */
  mcp_app_call_tool(args: { appId: number; name: string; arguments: Record<string, unknown> }): McpToolResult;
  /**
   * What an MCP App's resource asks to use (camera, microphone, ...), read before its frame loads;
   * `granted` is null until the person answers.
   */
  mcp_app_permissions(args: { appId: number }): McpAppPermissions;
  /** The person's answer about what an MCP App asked to use: allowed for this app (kept), or not now. */
  mcp_app_allow(args: { appId: number; allow: boolean }): McpAppPermissions;
  /** An MCP App asks to open a link: the URL consent dialog (every URL rule). The person's action. */
  mcp_app_open_link(args: { appId: number; url: string }): string;
  /** Import another client's MCP servers from pasted text: what happened to each. */
  mcp_import(args: { text: string }): Array<McpImported>;
  /**
   * Search the MCP Registries' copies (names, titles, descriptions); a page from `cursor`. The copies
   * refresh in the background (`mcp_registry_refreshed`); only a registry with no copy is waited for.
   */
  mcp_registry_search(args: { text: string; cursor?: string | null }): McpRegistryResults;
  /** The form of one way (package or remote) of a registry entry, rendered as an elicitation form. */
  mcp_registry_form(args: { registry: string; name: string; version: string; choice: McpRegistryChoice }): McpRegistryForm;
  /** Validate the form's values (the elicitation validator) and show what saving would write; saves nothing. */
  mcp_registry_check(args: { registry: string; name: string; version: string; choice: McpRegistryChoice; connectionName: string; values: FormContent }): McpRegistryCheck;
  /**
   * Ask in Porthole's URL consent dialog before opening an entry's repository (`website`: its website);
   * returns the dialog's id (the address is the registry's, never the window's).
   */
  mcp_registry_link(args: { registry: string; name: string; version: string; website: boolean }): number;
  /** Save the entry as one connection (secrets to the keyring); validated again. */
  mcp_registry_add(args: { registry: string; name: string; version: string; choice: McpRegistryChoice; connectionName: string; values: FormContent }): McpRegistryAdded;
}

/** Every command's name, in the list's order. */
export const COMMAND_NAMES = [
  "subscribe_events",
  "app_state",
  "connect_agent",
  "restart_agent",
  "new_session",
  "list_sessions",
  "load_session",
  "resume_session",
  "close_session",
  "delete_session",
  "authenticate",
  "logout",
  "start_terminal_auth",
  "terminal_input",
  "send_prompt",
  "cancel_turn",
  "cancel_background",
  "set_mode",
  "set_model",
  "fork_session",
  "set_config_option",
  "revoke_permission_rule",
  "protocol_log",
  "save_settings",
  "set_agent_protocol",
  "validate_form",
  "answer_dialog",
  "open_url",
  "close_url_view",
  "dialog_shown",
  "history_list",
  "history_export",
  "history_clear",
  "domain_marks",
  "set_domain_trust",
  "perf_stats",
  "registry_agents",
  "registry_icon",
  "install_agent",
  "cancel_install",
  "remove_agent",
  "save_sign_in",
  "forget_sign_in",
  "mcp_connections",
  "mcp_tools",
  "mcp_set_enabled",
  "mcp_set_apps",
  "mcp_sign_out",
  "mcp_remove",
  "mcp_sign_in",
  "mcp_add",
  "mcp_app_call_tool",
  "mcp_app_permissions",
  "mcp_app_allow",
  "mcp_app_open_link",
  "mcp_import",
  "mcp_registry_search",
  "mcp_registry_form",
  "mcp_registry_check",
  "mcp_registry_link",
  "mcp_registry_add",
] as const satisfies readonly (keyof Commands)[];
