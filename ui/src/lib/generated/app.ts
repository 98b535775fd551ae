// Generated from porthole-app's snapshot types (ts-rs) by
// `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract`. Do not edit.
import type { AgentCapabilities } from "@agentclientprotocol/sdk/unstable";
import type { AvailableCommand, ConfigOption, SessionModeState, SessionUsage } from "../acp";
import type { AgentIdentity, ElicitationPrompt, FileAccessPrompt, PermissionPrompt, RunState, SessionModels } from "./core";
import type { FormSchema, Validation } from "./elicitation";
import type { DomainMemory } from "./history";

export type RegistryInfo = { id: string, version: string, };

export type AgentProfile = { id: string, name: string, command: string, args: Array<string>, env: { [key in string]: string }, builtIn: boolean, 
/**
 * Installed from the ACP registry: its registry id and version.
 */
registry?: RegistryInfo, };

export type AuthMethodView = { id: string, name: string, description: string | null, 
/**
 * "agent" (call authenticate), "terminal" (run the agent's login command), "env_var"
 * (values set in the agent's environment), or another kind.
 */
kind: string, 
/**
 * env_var: the variables the agent asks for.
 */
vars?: { name: string; label: string; secret: boolean; optional: boolean }[], 
/**
 * env_var: where to get the value (shown as text, never a link).
 */
link?: string, };

export type ConnectionError = { message: string, stderrTail: string, };

export type ConnectionState = "starting" | "connected" | "failed" | "exited";

export type ProxyView = { 
/**
 * The editor's `clientInfo` name (title if it gave one), or "your editor".
 */
editor: string, editorVersion: string | null, agentCommand: Array<string>, 
/**
 * Where the proxy runs (the editor's project, usually).
 */
cwd: string, proxyPid: number, 
/**
 * The window is to ask who answers this agent's questions from its next session (the
 * person chose "ask once per agent" and has not answered for it): the agent's key in the
 * settings' `editorQuestionsByAgent`.
 */
askWhoAnswers: string | null, };

export type Connection = { agentId: string, state: ConnectionState, agent: AgentIdentity | null, 
/**
 * The ACP version the connection speaks (1, or 2 when the agent took the v2 offer);
 * `null` before `initialize` is answered.
 */
protocolVersion: number | null, 
/**
 * The agent takes a prompt sent while a turn runs and holds or steers it itself, as its
 * `initialize` answer's `_meta` says: the window sends a follow-up at once, not queued.
 */
takesFollowUps: boolean, error: ConnectionError | null, authMethods: Array<AuthMethodView>, 
/**
 * The last session request or turn failed with `auth_required`: the user must sign in.
 */
needsAuth: boolean, 
/**
 * Why the sign-in values saved in the OS keyring could not be read at start.
 */
signInProblem: string | null, 
/**
 * What the agent advertised in `initialize`, as ACP types it (the default before it did):
 * the window offers a method's control when its capability is there (`sessionCapabilities.fork`),
 * so a new client-called method needs no field here. Typed in TypeScript by the official
 * SDK's unstable schema, which has the unstable capabilities core turns on.
 */
capabilities: AgentCapabilities, 
/**
 * The editor that drives this agent through `porthole proxy`; `null` for the app's own.
 */
proxy: ProxyView | null, };

export type SessionView = { sessionId: string, agentId: string, cwd: string, 
/**
 * The session's other folders (`additionalDirectories`), empty when it has none.
 */
additionalDirectories: Array<string>, title: string | null, modes: SessionModeState | null, 
/**
 * The models the agent offers (`session/set_model`), `null` when it offers no choice.
 */
models: SessionModels | null, configOptions: ConfigOption[], availableCommands: Array<AvailableCommand>, turnRunning: boolean, 
/**
 * ACP v2's running state (the last `state_update`); `null` on a v1 connection, or before
 * the agent reported one.
 */
runState: RunState | null, usage: SessionUsage | null, };

export type PermissionRuleView = { ruleId: number, sessionId: string, toolKind: string, decision: "allow" | "reject", optionName: string, agentId: string, agentName: string, };

export type AppSettings = { 
/**
 * Advertise form-mode elicitation (takes effect when an agent next connects).
 */
formMode: boolean, 
/**
 * Advertise URL-mode elicitation (takes effect when an agent next connects).
 */
urlMode: boolean, 
/**
 * Where an accepted URL opens by default: "sealed" (isolated window) or "system".
 */
urlOpener: "sealed" | "system", 
/**
 * OS notification and window attention when a dialog waits in the background.
 */
notifications: boolean, 
/**
 * "system" (follow the OS), "light" or "dark".
 */
theme: "system" | "light" | "dark", 
/**
 * Keep submitted form values (never secret fields) in the consent history.
 */
storeFormValues: boolean, 
/**
 * Who answers the agent's questions when an editor that can ask itself runs it through
 * `porthole proxy`: "editor", "porthole", or "ask" once per agent (read by the proxy,
 * porthole-companion `preference.rs`).
 */
editorQuestions: "editor" | "porthole" | "ask", 
/**
 * With "ask": each agent's answer ("editor" or "porthole"), by its command line.
 */
editorQuestionsByAgent: Record<string, "editor" | "porthole">, 
/**
 * Who answers an MCP connection's questions when the agent declared elicitation to the
 * server itself: "porthole" (the default: the dialog can say truthfully which server asks)
 * or "agent". Agents that declared none always get Porthole's answers. Sessions opened
 * from now on.
 */
mcpQuestions: "porthole" | "agent", 
/**
 * Show MCP Apps (a connection's interactive views) under the tool calls that bring them.
 * Off: the gateway declares no MCP Apps to servers. Sessions opened from now on.
 */
mcpApps: boolean, 
/**
 * Connections whose apps are not shown though apps are on: the gateway declares nothing of
 * MCP Apps to them (sessions opened from now on) and notes none of their calls (at once).
 */
mcpAppsOff: Array<string>, 
/**
 * The tools each connection's apps may call without asking ("Allow for this app").
 */
mcpAppTools: { [key in string]: Array<string> }, 
/**
 * The devices each connection's app resources may use ("Allow for this app"), by
 * connection and resource URI.
 */
mcpAppPermissions: { [key in string]: { [key in string]: Array<AppPermission> } }, 
/**
 * The MCP Registries the "Add from the registry" view reads (base addresses, default the
 * official one; `PORTHOLE_MCP_REGISTRY_URL` overrides them, as for the CLI). An
 * organisation's registry token is kept in the keyring (`porthole-cli mcp registry-token`).
 */
mcpRegistries: Array<string>, 
/**
 * The ACP version each agent is spoken to in, by agent id: "1" or "2" forces that
 * version, "auto" (or no entry, the default) offers v2 and falls back to v1 (core's
 * `ClientOptions::protocol`). Read when the agent's connection starts: a change applies
 * at its next start or restart. Set one at a time with `set_agent_protocol`.
 */
agentProtocols: Record<string, "auto" | "1" | "2">, };

export type AppSnapshot = { agents: Array<AgentProfile>, connections: Array<Connection>, sessions: Array<SessionView>, 
/**
 * The agents settings file (Zed's agent_servers shape).
 */
settingsPath: string, settingsError: string | null, permissionRules: Array<PermissionRuleView>, 
/**
 * Whether the isolated (sealed) URL window is available in this build.
 */
sealedViewAvailable: boolean, defaultCwd: string, appSettings: AppSettings, appSettingsPath: string | null, appSettingsError: string | null, 
/**
 * Set when the consent history could not be opened (the app runs without it).
 */
historyError: string | null, 
/**
 * The folder of the log files (warnings and errors), when there is one: Settings links it.
 */
logDir: string | null, 
/**
 * Why editors' proxies cannot reach this app (its companion socket was refused: a
 * directory of another user, a symlink), shown in the window, not only logged.
 */
companionError: string | null, 
/**
 * Names of the sign-in values saved in the OS keyring, per agent id (never the values).
 */
storedSignIn: { [key in string]: Array<string> }, };

export type Attachment = { kind: "file" | "image", path: string, };

export type InstallProgress = { "phase": "downloading", done: number, total: number | null, } | { "phase": "extracting" };

export type DialogOrigin = { 
/**
 * The connection that asked (the app model's id).
 */
agentId: string, 
/**
 * The editor's name, for a connection an editor drives through `porthole proxy`.
 */
through: string | null, };

export type DialogView = { 
/**
 * URL elicitations only: earlier consents to this domain for this agent (`null` without a
 * history); absent for every other dialog.
 */
domainMemory?: DomainMemory | null, } & ({ "type": "elicitation" } & ElicitationPrompt | { "type": "permission" } & PermissionPrompt | { "type": "file_access" } & FileAccessPrompt) & { 
/**
 * The connection that asked (the app model's id).
 */
agentId: string, 
/**
 * The editor's name, for a connection an editor drives through `porthole proxy`.
 */
through: string | null, };

export type StoredSession = { sessionId: string, cwd: string, additionalDirectories: Array<string>, title: string | null, updatedAt: string | null, };

export type SessionList = { sessions: Array<StoredSession>, nextCursor: string | null, };

export type InspectorEntry = { 
/**
 * Position since the connection started: ask for what came after it.
 */
seq: number, 
/**
 * Which way the line went (agent -> client is "incoming").
 */
direction: "incoming" | "outgoing", 
/**
 * Milliseconds since the epoch.
 */
atMs: number, text: string, 
/**
 * The line was too long and was cut.
 */
cut: boolean, 
/**
 * Porthole's own note about the traffic (a line it discarded), not a wire line.
 */
note: boolean, };

export type ProtocolLog = { entries: Array<InspectorEntry>, stderrTail: string, };

export type HistoryExport = { path: string, count: number, };

export type RegistryAgentView = { id: string, name: string, version: string, description: string, 
/**
 * URL of an SVG/PNG; shown only through `registry_icon` (a data: URL), never loaded by the page.
 */
icon: string | null, website: string | null, license: string | null, 
/**
 * How it installs here ("binary", "npx", "uvx"); null when it has no build for this platform.
 */
kind: string | null, status: { status: "notInstalled" } | { status: "installed"; installed: string } | { status: "updateAvailable"; installed: string }, };

export type RegistryListing = { source: string, 
/**
 * Set when the registry could not be read and the cached copy is shown: why, and its age.
 */
offline: string | null, problems: Array<string>, agents: Array<RegistryAgentView>, };

export type RemoteTransport = "http" | "sse";

export type McpServerView = { "kind": "remote", url: string, transport: RemoteTransport, } | { "kind": "stdio", command: string, args: Array<string>, };

export type McpSignIn = { "state": "notNeeded" } | { "state": "signedOut" } | { "state": "signedIn", 
/**
 * Seconds since the epoch; `null` when the server gave no expiry.
 */
expiresAt: number | null, scopes: Array<string>, } | { "state": "expired", reason: string, } | { "state": "unknown", reason: string, };

export type McpConnectionView = { name: string, server: McpServerView, enabled: boolean, 
/**
 * The agent ids that get it; `null`: every agent.
 */
agents: Array<string> | null, 
/**
 * Values kept in the OS keyring (`TOKEN`, `header authorization`), named, never read.
 */
secrets: Array<string>, signIn: McpSignIn, 
/**
 * The open sessions whose agent has it.
 */
sessions: Array<string>, };

export type McpConnectionList = { 
/**
 * The connections file (`PORTHOLE_CONNECTIONS_FILE` or the platform config folder).
 */
path: string | null, 
/**
 * Set when the file cannot be read: why (no connection reaches any agent then).
 */
problem: string | null, connections: Array<McpConnectionView>, };

export type McpTool = { name: string, description: string | null, };

export type McpNewServer = { "kind": "remote", url: string, transport: RemoteTransport, } | { "kind": "stdio", commandLine: string, };

export type McpImported = { 
/**
 * The server's name in the pasted text.
 */
sourceName: string, 
/**
 * Its name in the list; `null`: skipped, for `reason`.
 */
name: string | null, reason: string | null, 
/**
 * Variables and headers whose values went to the keyring, not the file.
 */
secrets: Array<string>, notes: Array<string>, };

export type McpAppView = { id: number, sessionId: string, 
/**
 * The connection's name.
 */
connection: string, 
/**
 * The remote server's host; `null` for a server on this computer.
 */
host: string | null, tool: string, resourceUri: string, 
/**
 * Where the frame loads the app from (served by the shell, `Backend::mcp_app_page`).
 */
page: string, 
/**
 * The agent's tool call it belongs to; `null` when none matched (shown under the turn).
 */
toolCallId: string | null, arguments: Record<string, unknown>, 
/**
 * The tool's `CallToolResult`, once it came.
 */
result: Record<string, unknown> | null, 
/**
 * Why the tool call failed, when it did.
 */
error: string | null, 
/**
 * The first app of this connection in this window: the frame says where it comes from.
 */
firstOfConnection: boolean, };

export type McpToolResult = Record<string, unknown>;

export type McpAppPermissions = { requested: Array<AppPermission>, 
/**
 * `null` until the person answered (the frame waits); then what the frame's `allow` gives.
 */
granted: Array<AppPermission> | null, };

export type AppPermission = "camera" | "microphone" | "geolocation" | "clipboardWrite";

export type McpRegistryState = { base: string, 
/**
 * When the copy was last brought up to date (RFC 3339); `null`: never.
 */
updatedSince: string | null, 
/**
 * A refresh is under way in the background (`mcp_registry_refreshed` follows).
 */
refreshing: boolean, 
/**
 * The first reading of the registry is under way: the copy holds the pages read so far
 * (`mcp_registry_refreshed` follows each), so a search covers only those until it ends.
 */
filling: boolean, 
/**
 * Why the last refresh failed (the copy from before is shown), or why there is no copy.
 */
problem: string | null, 
/**
 * Entries the registry sent that were left out, and why.
 */
leftOut: Array<string>, };

export type McpRegistryChoice = { remote: boolean, index: number, };

export type McpRegistryWay = { choice: McpRegistryChoice, 
/**
 * `npx`, `uvx`, `docker`, `dnx`, `mcpb` (an MCP bundle, whose own runtime is known once
 * it is downloaded: [`McpRegistryForm::bundle`]); `null` for a remote.
 */
runtime: string | null, 
/**
 * Whether that program is on this computer's `PATH` (a remote or a bundle needs none
 * before it is chosen: true).
 */
runtimeFound: boolean, 
/**
 * The package and its pinned version (`@scope/name@1.2.3`), a bundle's URL, or the
 * remote's URL template.
 */
what: string, 
/**
 * `streamable-http` or `sse` for a remote.
 */
transport: string | null, };

export type McpRegistryEntryView = { 
/**
 * The registry it is from (its base address).
 */
registry: string, name: string, 
/**
 * The publisher's namespace (`io.github.user`).
 */
namespace: string, title: string | null, description: string, version: string, status: "active" | "deprecated" | "deleted", 
/**
 * Whether it can be added (active, and a package or remote passed the checks).
 */
offered: boolean, 
/**
 * https only; shown as text, opened only through the URL consent dialog.
 */
repository: string | null, website: string | null, 
/**
 * The first https icon; the window asks for it as a checked `data:` image (`registry_icon`).
 */
icon: string | null, 
/**
 * The ways to run it: its packages, then its remotes.
 */
ways: Array<McpRegistryWay>, 
/**
 * Packages or remotes left out by the checks, and why.
 */
problems: Array<string>, };

export type McpRegistryResults = { entries: Array<McpRegistryEntryView>, 
/**
 * Pass back as `cursor` for the next page; `null`: the last page.
 */
nextCursor: string | null, 
/**
 * How many entries match in all.
 */
total: number, 
/**
 * Each registry read, in the settings' order.
 */
registries: Array<McpRegistryState>, };

export type McpRegistryBundle = { url: string, sha256: string, 
/**
 * Where it is unpacked when the connection is saved (its `${__dirname}`).
 */
folder: string, 
/**
 * `node`, `python`, `uv` or `binary`.
 */
serverType: string, 
/**
 * The program it runs with (`node`, `python3`, `uv`); `null` for a binary bundle, which
 * brings its own.
 */
program: string | null, 
/**
 * Whether that program is on this computer's `PATH` (a binary bundle: true).
 */
programFound: boolean, name: string, displayName: string | null, version: string, author: string | null, description: string, 
/**
 * What the manifest says it needs (`node >=18`).
 */
runtimes: Array<string>, };

export type McpRegistryForm = { entry: McpRegistryEntryView, choice: McpRegistryChoice, 
/**
 * A free connection name (`brave-search`, or `brave-search-2` when taken).
 */
suggestedName: string, schema: FormSchema, initialValues: Record<string, string | number | boolean | Array<string>>, 
/**
 * Field name -> what it accepts, in words (the validator's hints).
 */
hints: Record<string, string>, 
/**
 * An MCP bundle's download, checked (its form is its manifest's settings); `null` for
 * other ways.
 */
bundle: McpRegistryBundle | null, };

export type McpRegistryCheck = { validation: Validation, 
/**
 * The command line or URL (and headers) that would be saved, secret values as
 * `<in the OS keyring>`; `null` until the values pass.
 */
shown: string | null, 
/**
 * What stops saving besides the fields (the name taken, a URL variable that makes no
 * URL...).
 */
problems: Array<string>, 
/**
 * The values that would go to the keyring (`env:TOKEN`, `header:authorization`), named.
 */
secrets: Array<string>, };

export type McpRegistryAdded = { name: string, shown: string, secrets: Array<string>, remote: boolean, 
/**
 * A remote goes straight on to its sign-in: what became of it.
 */
signIn: McpRegistrySignIn, };

export type McpRegistrySignIn = { "state": "notRemote" } | { "state": "byHeader" } | { "state": "notAsked" } | { "state": "asked", dialogId: number, } | { "state": "failed", reason: string, };

export type IpcStats = { queued: number, batches: number, events: number, bytes: number, largestBatchEvents: number, largestBatchBytes: number, };

export type DialogSample = { dialogId: number, 
/**
 * The agent's line read by the transport -> core delivered the event to the backend.
 */
readToDeliveredMs: number | null, 
/**
 * Core delivered the event -> the UI acknowledged the frame that shows the dialog.
 */
deliveredToShownMs: number, };

export type AnswerSample = { dialogId: number, 
/**
 * `answer_dialog` for an elicitation started -> its response line handed to the writer.
 */
commandToWrittenMs: number, 
/**
 * When the response line was written, in ms since the Unix epoch (to pair with UI clicks).
 */
writtenAtEpochMs: number, };

export type PerfStats = { ipc: IpcStats, dialogs: Array<DialogSample>, answers: Array<AnswerSample>, nowEpochMs: number, 
/**
 * `null` where the process's start time cannot be read (not Linux).
 */
processStartEpochMs: number | null, };

export type WindowState = { snapshot: AppSnapshot, 
/**
 * The dialogs waiting for the user, in arrival order.
 */
dialogs: Array<DialogView>, };

export type AppEvent = { "type": "connection", snapshot: AppSnapshot, } | { "type": "dialogs", dialogs: Array<DialogView>, } | { "type": "user_prompt", sessionId: string, text: string, attachments: Array<Attachment>, } | { "type": "url_view", dialogId: number, state: "opened" | "closed" | "load_failed" | "navigation_blocked" | "crashed", detail: string | null, } | { "type": "mcp_connection_problem", connection: string, reason: string, needsSignIn: boolean, 
/**
 * The sessions it was handed to (none: it concerns every session).
 */
sessions: Array<string>, } | { "type": "mcp_sign_in_ended", dialogId: number, connection: string, error: string | null, } | { "type": "mcp_app", app: McpAppView, } | { "type": "mcp_registry_refreshed", registry: string, problem: string | null, } | { "type": "install_progress", registryId: string, } & ({ "phase": "downloading", done: number, total: number | null, } | { "phase": "extracting" });

export type CommandError = { "kind": "invalid", validation: Validation, } | { "kind": "error", message: string, };
