// MockBackend: the demo agent for tests, screenshots and plain-browser use. A command answers
// from the app model's recorded answers (generated/replies.json, see recorded.ts: recorded
// against the demo agent, events included) unless it is simulated below, where a flow needs state
// (the open session, dialogs, history, MCP connections) or shows what the demo agent does not.
// Its dialogs and form validation are core's (generated: mock-dialogs.json, mock-validation.json);
// the window never validates itself. mock-replies.test.ts holds every command to one or the other.
import type { Backend, CommandArgs, CommandName, CommandResult } from "./backend";
import type {
  AgentIdentity, AnswerAction, AppSettings, AppSnapshot, Commands, ConfigOption, ConnectionState, Dialog, DialogOrigin, DomainMark, Elicitation, Field, FieldError,
  FormContent, FormElicitation, HistoryEntry, McpConnectionView, McpTool, MessageRole, PermissionRequest, ToolCallFields, TranscriptUpdate,
  UiEvent, UrlElicitation, Validation,
} from "./protocol";
import made from "./generated/mock-dialogs.json";
import { validateFromCases } from "./mock-validation";
import { recorded, recordingOf, replyOf, type Recording } from "./recorded";

/** Text appended to a message, as core's transcript model gives it. */
const said = (role: MessageRole, messageId: string, text: string): TranscriptUpdate => ({
  kind: "message", role, messageId, op: "append", content: { type: "text", text },
});
/** A tool call's update (`opened`: the agent announced the call with it). */
const toolCall = (toolCallId: string, fields: ToolCallFields, opened = false): TranscriptUpdate => ({
  kind: "tool_call", toolCallId, opened, fields,
});

const AGENT: AgentIdentity = { name: "demo-agent", title: "Demo Agent", version: "0.4.2" };
/** The app model's snapshot once the demo agent connected (recorded): what the agent advertised
 *  (capabilities, sign-in methods), the settings and where they live. The mock's own state (its
 *  connection, its session, the settings saved) goes over it; its agent keeps the name its
 *  dialogs (made by core, mock-dialogs.json) give it. */
const RECORDED = replyOf(recorded.app_state).snapshot;
const SESSION = "demo-1";
const AGENT_ID = "demo";

/** The mock's own state, turned into the backend's snapshot shape on every change. */
interface MockState {
  connection: ConnectionState;
  agent: AgentIdentity | null;
  cwd: string;
  sessionOpen: boolean;
  error: { message: string; stderrTail: string } | null;
  turnRunning: boolean;
  commands: { name: string; description: string }[];
  sealedViewAvailable: boolean;
  settings: AppSettings;
}

/** The mock's MCP connections (without `sessions`: an enabled one for every agent is in the open session). */
function mockConnections(): Omit<McpConnectionView, "sessions">[] {
  return [
    {
      name: "github", server: { kind: "remote", url: "https://api.githubcopilot.com/mcp/", transport: "http" }, enabled: true, agents: null,
      secrets: [], signIn: { state: "signedIn", expiresAt: Math.floor(Date.now() / 1000) + 3600, scopes: ["repo", "read:org"] },
    },
    {
      name: "files", server: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/user/notes"] },
      enabled: true, agents: null, secrets: ["TOKEN"], signIn: { state: "notNeeded" },
    },
    {
      name: "tracker", server: { kind: "remote", url: "https://mcp.tracker.example/mcp?api_key=…", transport: "http" }, enabled: true,
      agents: ["claude-code", "codex"], secrets: [], signIn: { state: "expired", reason: "the server refused the refresh token (invalid_grant)" },
    },
    {
      name: "docs", server: { kind: "remote", url: "http://127.0.0.1:8931/sse", transport: "sse" }, enabled: false, agents: null,
      secrets: [], signIn: { state: "signedOut" },
    },
  ];
}

const MOCK_TOOLS: Record<string, McpTool[]> = {
  github: [
    { name: "search_issues", description: "Search issues and pull requests across repositories." },
    { name: "create_pull_request", description: "Open a pull request from a branch." },
    { name: "get_file_contents", description: null },
  ],
  files: [
    { name: "read_file", description: "Read a file under the allowed folders." },
    { name: "list_directory", description: "List a folder's entries." },
  ],
  docs: [{ name: "search_docs", description: "Full-text search of the local documentation." }],
};

export interface MockOptions {
  /** Delay between streamed chunks, ms (0 = synchronous-ish, for tests). */
  chunkDelay?: number;
  sealedViewAvailable?: boolean;
  /** Recordings over the generated ones (a test's own, to play a command's events). */
  recordings?: Partial<{ [K in CommandName]: Recording<K> }>;
}

// Events reach the mock's listeners through `onEvents`, so it has no `subscribe_events`.
type MockCommand = Exclude<CommandName, "subscribe_events">;
type Simulated = { [K in MockCommand]?: (...args: CommandArgs<K>) => CommandResult<K> | Promise<CommandResult<K>> };


export class MockBackend implements Backend {
  readonly calls: { cmd: CommandName; args: unknown }[] = [];
  #listeners = new Set<(e: UiEvent[]) => void>();
  #state: MockState;
  #history: HistoryEntry[] = [];
  #marks: DomainMark[] = [];
  #mcp = mockConnections();
  #dialogs = new Map<number, Elicitation | PermissionRequest>();
  #nextDialog = 1;
  #nextTool = 1;
  #nextMsg = 1;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #turnToken = 0;
  #delay: number;
  #startedAt = Date.now();

  #recordings: Partial<{ [K in CommandName]: Recording<K> }>;

  constructor(opts: MockOptions = {}) {
    this.#delay = opts.chunkDelay ?? 28;
    this.#recordings = opts.recordings ?? {};
    this.#state = {
      connection: "connected",
      agent: AGENT,
      cwd: "/home/user/projects/porthole",
      sessionOpen: true,
      error: null,
      turnRunning: false,
      commands: [],
      sealedViewAvailable: opts.sealedViewAvailable ?? true,
      settings: RECORDED.appSettings,
    };
  }

  onEvents(cb: (events: UiEvent[]) => void): () => void {
    this.#listeners.add(cb);
    return () => this.#listeners.delete(cb);
  }

  /** Emit a batch to listeners (also used by tests to inject events). */
  emit(events: UiEvent[]) {
    for (const l of this.#listeners) l(events);
  }

  dispose() {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #later(ms: number, fn: () => void) {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  /** Failures a test asked for: the next call of each command fails with its message, once. */
  #failNext = new Map<CommandName, string>();

  /** The next call of `cmd` fails with `message` (as the backend's `{ kind: "error" }`). */
  fail(cmd: CommandName, message: string) {
    this.#failNext.set(cmd, message);
  }

  async invoke<K extends CommandName>(cmd: K, ...args: CommandArgs<K>): Promise<CommandResult<K>> {
    this.calls.push({ cmd, args: args[0] });
    if (cmd === "subscribe_events") throw new Error("the mock delivers events through onEvents");
    const failure = this.#failNext.get(cmd);
    if (failure !== undefined) {
      this.#failNext.delete(cmd);
      throw { kind: "error", message: failure };
    }
    const h = this.#handlers[cmd as MockCommand] as ((...a: CommandArgs<K>) => CommandResult<K> | Promise<CommandResult<K>>) | undefined;
    if (h) return h(...args);
    return this.#replay(cmd);
  }

  /** A command's recorded answer, and then the events that followed it. A recorded snapshot is
   *  the recording run's whole state, so the mock sends its own in its place. */
  #replay<K extends CommandName>(cmd: K): CommandResult<K> {
    const recording = (this.#recordings[cmd] as Recording<K> | undefined) ?? recordingOf(cmd);
    if (!recording) throw { kind: "error", message: `the mock has no answer for \`${cmd}\`` };
    const steps = (recording.events ?? []).map((e) => () => this.emit([e.type === "connection" ? this.#setSnapshot({}) : e]));
    this.#run(steps, this.#turnToken);
    return replyOf(recording);
  }

  /** The commands this mock simulates; the rest answer from the recordings. */
  get simulated(): CommandName[] {
    return Object.keys(this.#handlers) as CommandName[];
  }

  get #snapshot(): AppSnapshot {
    const st = this.#state;
    return {
      ...RECORDED,
      agents: [{ id: AGENT_ID, name: "Demo agent", command: "porthole", args: ["demo-agent"], env: {}, builtIn: true }],
      connections: [{ ...RECORDED.connections[0], agentId: AGENT_ID, state: st.connection, agent: st.agent, error: st.error }],
      sessions: st.sessionOpen
        ? [{ sessionId: SESSION, agentId: AGENT_ID, cwd: st.cwd, additionalDirectories: [], title: null, modes: null, models: null, configOptions: CONFIG_OPTIONS, availableCommands: st.commands, turnRunning: st.turnRunning, runState: null, usage: null }]
        : [],
      sealedViewAvailable: st.sealedViewAvailable,
      defaultCwd: st.cwd,
      appSettings: st.settings,
      // The recording runs without a log dir; the settings view shows where the app's is.
      logDir: "/home/user/.local/state/porthole/logs",
    };
  }

  #setSnapshot(patch: Partial<MockState>) {
    this.#state = { ...this.#state, ...patch };
    return { type: "connection", snapshot: this.#snapshot } as UiEvent;
  }

  /** The demo agent's reply to a form or URL answer. */
  #answerElicitation(d: Elicitation, action: AnswerAction, content: FormContent | undefined) {
    if (d.mode === "form" && action === "accept") {
      const v = validateFromCases(d.schema.fields, content ?? {});
      if (v.errors.length) throw { kind: "invalid", validation: v };
    }
    this.#dialogs.delete(d.dialogId);
    this.emit([this.#listed()]);
    this.#record(d, action);
    const summary =
      action === "accept"
        ? d.mode === "url"
          ? "You agreed to open the page. I'll wait for it to report back."
          : `Thanks — got it:\n\n\`\`\`json\n${JSON.stringify(content ?? {}, null, 2)}\n\`\`\``
        : action === "decline"
          ? "Understood, you declined. I'll continue without it."
          : "No problem, request cancelled.";
    this.#later(150, () => this.#stream(summary, true));
  }

  /** The demo agent's reply to a permission answer. */
  #answerPermission(d: PermissionRequest, optionId: string | null) {
    this.#dialogs.delete(d.dialogId);
    this.emit([this.#listed()]);
    this.#record(d, optionId ?? "cancelled", d.options.find((o) => o.optionId === optionId)?.name ?? null);
    const allowed = optionId !== null && optionId.startsWith("allow");
    const tc = d.toolCall.toolCallId;
    this.emit([{ type: "session_update", sessionId: SESSION, update: toolCall(tc, { status: allowed ? "completed" : "failed" }) }]);
    this.#later(120, () => this.#stream(allowed ? "Edit applied. `src/config.ts` now reads the timeout from the environment." : "Okay, I left the file untouched.", true));
  }

  #record(d: Elicitation | PermissionRequest, action: string, detail: string | null = null) {
    const url = d.type === "elicitation" && d.mode === "url" ? d.url : null;
    this.#history.unshift({
      id: this.#history.length + 1,
      time: Date.now(),
      agentId: AGENT_ID,
      agentName: "Demo Agent",
      sessionId: SESSION,
      toolCallId: null,
      kind: d.type === "permission" ? "permission" : d.mode,
      message: d.type === "permission" ? (d.toolCall.title ?? "") : d.message,
      url: url?.full ?? null,
      domain: url?.registrableDomain ?? null,
      warnings: d.warnings,
      action,
      detail,
      values: null,
      permission: d.type === "permission"
        ? { toolTitle: d.toolCall.title ?? null, toolKind: d.toolKind, optionId: null, optionName: detail, optionKind: null }
        : null,
    });
    if (url && action === "accept") {
      const domain = url.registrableDomain ?? url.hostAscii;
      const m = this.#marks.find((x) => x.domain === domain);
      if (m) m.timesOpened++;
      else this.#marks.push({ agentId: AGENT_ID, agentName: "Demo Agent", domain, trusted: false, timesOpened: 1, lastOpened: Date.now() });
    }
  }

  #handlers: Simulated = {
    app_state: () => ({ snapshot: this.#snapshot, dialogs: this.#waiting() }),
    send_prompt: ({ text }) => this.#prompt(text),
    new_session: ({ cwd }) => {
      this.emit([this.#setSnapshot({ sessionOpen: true, cwd })]);
      return this.#snapshot.sessions[0];
    },
    close_session: () => {
      this.emit([this.#setSnapshot({ sessionOpen: false })]);
    },
    set_config_option: () => undefined,
    save_settings: ({ settings }) => {
      this.emit([this.#setSnapshot({ settings })]);
    },
    set_agent_protocol: ({ agentId, protocol }) => {
      if (!["auto", "1", "2"].includes(protocol)) throw { kind: "error", message: `the ACP version must be "auto", "1" or "2", not "${protocol}"` };
      const agentProtocols = { ...this.#state.settings.agentProtocols };
      if (protocol === "auto") delete agentProtocols[agentId];
      else agentProtocols[agentId] = protocol;
      this.emit([this.#setSnapshot({ settings: { ...this.#state.settings, agentProtocols } })]);
    },
    // The demo agent's real exchange (recorded), its times shifted to when this mock started.
    protocol_log: ({ since }) => {
      const log = replyOf(recorded.protocol_log);
      const entries = log.entries.filter((e) => e.seq >= (since ?? 0)).map((e) => ({ ...e, atMs: this.#startedAt + e.atMs }));
      return { entries, stderrTail: log.stderrTail };
    },
    history_list: ({ filter: given }) => {
      const filter = given ?? {};
      const hits = this.#history.filter((h) => (!filter.kind || h.kind === filter.kind) && (!filter.domain || (h.domain ?? "").includes(filter.domain)));
      const offset = filter.offset ?? 0;
      return { entries: hits.slice(offset, offset + (filter.limit ?? 100)), total: hits.length };
    },
    history_export: () => ({ path: "/home/user/Downloads/porthole-history.json", count: this.#history.length }),
    history_clear: () => {
      const n = this.#history.length;
      this.#history = [];
      return n;
    },
    domain_marks: () => this.#marks.map((m) => ({ ...m })),
    set_domain_trust: ({ agentId, agentName, domain, trusted }) => {
      const m = this.#marks.find((x) => x.domain === domain);
      if (m) m.trusted = trusted;
      else this.#marks.push({ agentId, agentName, domain, trusted, timesOpened: 0, lastOpened: null });
    },
    // The mock's agent speaks v1 and lists no background work: nothing to cancel.
    cancel_background: () => {
      throw new Error("the mock agent has no background work");
    },
    cancel_turn: () => {
      this.#turnToken++;
      this.emit([
        { type: "turn_ended", sessionId: SESSION, stopReason: "cancelled", error: null },
        this.#setSnapshot({ turnRunning: false }),
      ]);
      for (const [id, d] of this.#dialogs) {
        this.#dialogs.delete(id);
        this.emit([{ type: "dialog_dismissed", dialogId: id, reason: "turn_cancelled" }, this.#listed()]);
      }
    },
    restart_agent: () => {
      this.emit([this.#setSnapshot({ connection: "starting", error: null, turnRunning: false, agent: null })]);
      this.#later(700, () => {
        this.emit([
          this.#setSnapshot({ connection: "connected", agent: AGENT, sessionOpen: true, commands: COMMANDS }),
          { type: "session_update", sessionId: SESSION, update: { kind: "available_commands", availableCommands: COMMANDS } },
        ]);
      });
    },
    validate_form: ({ dialogId, content }) => {
      const d = this.#dialogs.get(dialogId);
      if (!d || d.type !== "elicitation" || d.mode !== "form") return { content, errors: [] };
      return validateFromCases(d.schema.fields, content);
    },
    answer_dialog: ({ dialogId, answer }) => {
      const d = this.#dialogs.get(dialogId);
      if (!d || d.type !== answer.type) throw { kind: "error", message: "This request is no longer pending." };
      // The demo agent's reply to the kinds it asks; any other kind just leaves the list.
      if (answer.type === "elicitation" && d.type === "elicitation") return this.#answerElicitation(d, answer.action, answer.content);
      if (answer.type === "permission" && d.type === "permission") return this.#answerPermission(d, answer.optionId);
      this.#dialogs.delete(dialogId);
      this.emit([this.#listed()]);
    },
    open_url: ({ dialogId }) => {
      this.emit([{ type: "url_view", dialogId, state: "opened", detail: null }]);
      const d = [...this.#completions].find((x) => x.dialogId === dialogId);
      if (d) {
        this.#completions.delete(d);
        this.#later(2500, () => this.emit([{ type: "elicitation_complete", elicitationId: d.elicitationId, known: true, dialogId }]));
      }
    },
    // A small registry, so the "Add agent" view can be looked at (and checked by axe) in a browser.
    registry_agents: () => ({
      source: "mock registry",
      offline: null,
      problems: [],
      agents: [
        { id: "mock-binary", name: "Mock Binary Agent", version: "1.2.0", description: "Downloads a program.", icon: null,
          website: null, license: "MIT", kind: "binary", status: { status: "notInstalled" as const } },
        { id: "mock-npx", name: "Mock npx Agent", version: "2.0.0", description: "Runs through npx.", icon: null,
          website: null, license: null, kind: "npx", status: { status: "updateAvailable" as const, installed: "1.0.0" } },
      ],
    }),
    registry_icon: () => {
      throw { kind: "error", message: "no icons in the mock" };
    },
    // The mock's sessions bring no MCP Apps: nothing can ask.
    mcp_app_call_tool: () => {
      throw { kind: "error", message: "the mock has no MCP Apps" };
    },
    mcp_app_open_link: () => {
      throw { kind: "error", message: "the mock has no MCP Apps" };
    },
    mcp_app_permissions: () => {
      throw { kind: "error", message: "the mock has no MCP Apps" };
    },
    mcp_app_allow: () => {
      throw { kind: "error", message: "the mock has no MCP Apps" };
    },
    install_agent: () => {
      throw { kind: "error", message: "the mock installs nothing" };
    },
    remove_agent: () => {
      throw { kind: "error", message: "the mock removes nothing" };
    },
    save_sign_in: () => {
      throw { kind: "error", message: "the mock has no keyring" };
    },
    forget_sign_in: () => undefined,
    mcp_connections: () => ({
      path: "/home/user/.config/porthole/connections.json",
      problem: null,
      connections: this.#mcp.map((c) => ({
        ...c,
        sessions: this.#state.sessionOpen && c.enabled && (c.agents === null || c.agents.includes(AGENT_ID)) ? [SESSION] : [],
      })),
    }),
    mcp_tools: ({ name }) => {
      const c = this.#mcpNamed(name);
      if (c.signIn.state === "expired") throw { kind: "error", message: `cannot list the tools of \`${name}\`: Sign in to \`${name}\` again` };
      return MOCK_TOOLS[name] ?? [];
    },
    mcp_set_enabled: ({ name, on }) => {
      this.#mcpNamed(name).enabled = on;
    },
    mcp_set_apps: ({ name, on }) => {
      this.#mcpNamed(name);
      const off = this.#state.settings.mcpAppsOff.filter((c) => c !== name);
      this.emit([this.#setSnapshot({ settings: { ...this.#state.settings, mcpAppsOff: on ? off : [...off, name] } })]);
    },
    mcp_sign_out: ({ name }) => {
      const c = this.#mcpNamed(name);
      if (c.server.kind === "stdio") throw { kind: "error", message: `\`${name}\` is a stdio server: there is nothing to sign out of` };
      c.signIn = { state: "signedOut" };
      return `Signed out of \`${name}\`: the server revoked the tokens and Porthole deleted them.`;
    },
    mcp_remove: ({ name }) => {
      this.#mcpNamed(name);
      this.#mcp = this.#mcp.filter((c) => c.name !== name);
      return `Removed \`${name}\`.`;
    },
    mcp_sign_in: ({ name }) => {
      this.#mcpNamed(name);
      throw { kind: "error", message: `cannot sign in to \`${name}\`: the mock reaches no server (run the app)` };
    },
    mcp_add: ({ name, server }) => {
      if (this.#mcp.some((c) => c.name === name)) throw { kind: "error", message: `a connection named \`${name}\` already exists` };
      const [command = "", ...args] = server.kind === "stdio" ? server.commandLine.trim().split(/\s+/) : [];
      this.#mcp.push({
        name,
        server: server.kind === "remote" ? { kind: "remote", url: server.url, transport: server.transport } : { kind: "stdio", command, args },
        enabled: true, agents: null, secrets: [], signIn: server.kind === "remote" ? { state: "signedOut" } : { state: "notNeeded" },
      });
    },
  };

  #mcpNamed(name: string) {
    const c = this.#mcp.find((x) => x.name === name);
    if (!c) throw { kind: "error", message: `no connection named \`${name}\`` };
    return c;
  }

  #completions = new Set<{ dialogId: number; elicitationId: string }>();

  #prompt(text: string) {
    const t = text.trim();
    const token = ++this.#turnToken;
    this.emit([{ type: "user_prompt", sessionId: SESSION, text, attachments: [] }, this.#setSnapshot({ turnRunning: true })]);
    const [cmd, ...rest] = t.split(/\s+/);
    switch (cmd) {
      case "/configure":
        this.#later(200, () => token === this.#turnToken && this.#emitDialog(configureForm(this.#nextDialog++)));
        return;
      case "/secret":
        this.#later(200, () => token === this.#turnToken && this.#emitDialog(secretForm(this.#nextDialog++)));
        return;
      case "/ask":
        // Agents' question forms: an "Other…" box inside its question, a masked answer.
        this.#later(200, () => token === this.#turnToken && this.#emitDialog(questionForm(this.#nextDialog++)));
        return;
      case "/connect": {
        const id = this.#nextDialog++;
        const d = rest[0] === "evil" ? evilUrl(id) : goodUrl(id);
        this.#completions.add({ dialogId: id, elicitationId: d.elicitationId });
        this.#later(200, () => token === this.#turnToken && this.#emitDialog(d));
        return;
      }
      case "/edit":
        this.#editFlow(token);
        return;
      case "/queue":
        // Several requests at once: the window shows "1 of N".
        this.#later(200, () => {
          if (token !== this.#turnToken) return;
          const url = goodUrl(this.#nextDialog++);
          this.#completions.add({ dialogId: url.dialogId, elicitationId: url.elicitationId });
          this.#emitDialog(configureForm(this.#nextDialog++));
          this.#emitDialog(url);
          this.#emitDialog(secretForm(this.#nextDialog++));
        });
        return;
      case "/withdraw": {
        // The agent asks, then withdraws the request: the dialog closes with a note in the transcript.
        const id = this.#nextDialog++;
        this.#later(200, () => token === this.#turnToken && this.#emitDialog(configureForm(id)));
        this.#later(2200, () => {
          if (!this.#dialogs.delete(id)) return;
          this.emit([{ type: "dialog_dismissed", dialogId: id, reason: "agent_cancelled" }, this.#listed()]);
          this.#stream("Never mind — I found the settings in `release.toml`.", true);
        });
        return;
      }
      case "/crash":
        this.#later(300, () => {
          const stderrTail = CRASH_STDERR;
          this.emit([
            { type: "agent_exited", code: 101, signal: null, status: "exit code 101", stderrTail, requested: false },
            this.#setSnapshot({ connection: "exited", turnRunning: false, sessionOpen: false, error: { message: "The agent process exited unexpectedly (exit code 101).", stderrTail } }),
          ]);
        });
        return;
      default:
        this.#demoReply(t, token);
    }
  }

  /** As the app model does: a dialog reaches the window in the list of waiting dialogs. */
  #emitDialog(d: Elicitation | PermissionRequest) {
    this.#dialogs.set(d.dialogId, d);
    this.emit([this.#listed()]);
  }

  /** The waiting dialogs as the app model lists them: asked by the demo agent's connection. */
  #waiting(): Dialog[] {
    return [...this.#dialogs.values()].map((d) => ({ ...d, agentId: AGENT_ID, through: null }));
  }

  #listed(): UiEvent {
    return { type: "dialogs", dialogs: this.#waiting() };
  }

  #editFlow(token: number) {
    const tc = `tc-${this.#nextTool++}`;
    const diff = { type: "diff" as const, path: "src/config.ts", oldText: OLD_FILE, newText: NEW_FILE };
    this.emit([
      { type: "session_update", sessionId: SESSION, update: toolCall(tc, { title: "Edit src/config.ts", kind: "edit", status: "pending", content: [diff] }, true) },
    ]);
    this.#later(250, () => {
      if (token !== this.#turnToken) return;
      const d: PermissionRequest = {
        type: "permission",
        dialogId: this.#nextDialog++,
        agent: AGENT,
        sessionId: SESSION,
        toolCall: { toolCallId: tc, title: "Edit src/config.ts", kind: "edit", status: "pending", content: [diff] },
        toolKind: "edit",
        options: [
          { optionId: "allow-once", name: "Allow", kind: "allow_once" },
          { optionId: "allow-always", name: "Always allow edits", kind: "allow_always" },
          { optionId: "reject-once", name: "Reject", kind: "reject_once" },
          { optionId: "reject-always", name: "Never allow edits", kind: "reject_always" },
        ],
        warnings: [],
      };
      this.#emitDialog(d);
    });
  }

  #demoReply(prompt: string, token: number) {
    const thoughtId = `th-${this.#nextMsg++}`;
    const tc = `tc-${this.#nextTool++}`;
    const steps: (() => void)[] = [];
    const thought = "The user wants an overview. I should read the README first, then summarize the layout and suggest next steps.";
    for (const w of words(thought)) steps.push(() => this.emit([{ type: "session_update", sessionId: SESSION, update: said("thought", thoughtId, w) }]));
    steps.push(() => this.emit([{ type: "session_update", sessionId: SESSION, update: { kind: "plan", entries: [
      { content: "Read the project README", priority: "high", status: "in_progress" },
      { content: "Summarize the crate layout", priority: "medium", status: "pending" },
      { content: "Suggest next steps", priority: "low", status: "pending" },
    ] } }]));
    steps.push(() => this.emit([{ type: "session_update", sessionId: SESSION, update: toolCall(tc, { title: "Read README.md", kind: "read", status: "in_progress", locations: [{ path: "README.md", line: 1 }] }, true) }]));
    steps.push(() => this.emit([
      { type: "session_update", sessionId: SESSION, update: toolCall(tc, { status: "completed", content: [{ type: "content", content: { type: "text", text: "# Porthole\nA desktop client for the Agent Client Protocol.\n(142 lines)" } }] }) },
      { type: "session_update", sessionId: SESSION, update: { kind: "plan", entries: [
        { content: "Read the project README", priority: "high", status: "completed" },
        { content: "Summarize the crate layout", priority: "medium", status: "in_progress" },
        { content: "Suggest next steps", priority: "low", status: "pending" },
      ] } },
    ]));
    const msgId = `m-${this.#nextMsg++}`;
    const reply = demoMarkdown(prompt);
    for (const w of words(reply)) steps.push(() => this.emit([{ type: "session_update", sessionId: SESSION, update: said("agent", msgId, w) }]));
    steps.push(() => this.emit([{ type: "session_update", sessionId: SESSION, update: { kind: "plan", entries: [
      { content: "Read the project README", priority: "high", status: "completed" },
      { content: "Summarize the crate layout", priority: "medium", status: "completed" },
      { content: "Suggest next steps", priority: "low", status: "completed" },
    ] } }]));
    steps.push(() => this.#endTurn());
    this.#run(steps, token);
  }

  #run(steps: (() => void)[], token: number) {
    let i = 0;
    const tick = () => {
      if (token !== this.#turnToken) return;
      const s = steps[i++];
      if (!s) return;
      s();
      if (this.#delay === 0) tick();
      else this.#later(this.#delay, tick);
    };
    if (this.#delay === 0) tick();
    else this.#later(this.#delay, tick);
  }

  #stream(text: string, endTurn: boolean) {
    const id = `m-${this.#nextMsg++}`;
    const steps: (() => void)[] = words(text).map((w) => () =>
      this.emit([{ type: "session_update", sessionId: SESSION, update: said("agent", id, w) }]),
    );
    if (endTurn) steps.push(() => this.#endTurn());
    this.#run(steps, this.#turnToken);
  }

  #endTurn() {
    this.emit([{ type: "turn_ended", sessionId: SESSION, stopReason: "end_turn", error: null }, this.#setSnapshot({ turnRunning: false })]);
  }

  /** Initial events a freshly connected agent would send. */
  start() {
    this.#later(50, () =>
      this.emit([
        { type: "session_update", sessionId: SESSION, update: { kind: "available_commands", availableCommands: COMMANDS } },
        this.#setSnapshot({ commands: COMMANDS }),
      ]),
    );
  }
}

function words(s: string): string[] {
  return s.match(/\S+\s*|\s+/g) ?? [];
}

export const COMMANDS = [
  { name: "configure", description: "Show a form with every field type" },
  { name: "connect", description: "Ask to open a URL (add \"evil\" for a suspicious one)" },
  { name: "edit", description: "Propose a file edit (permission request)" },
  { name: "secret", description: "A form that improperly asks for a secret" },
  { name: "queue", description: "Send several requests at once" },
  { name: "withdraw", description: "Ask, then withdraw the request" },
  { name: "crash", description: "Make the demo agent exit" },
];

const CRASH_STDERR = `thread 'main' panicked at src/agent.rs:88:14:
called \`Result::unwrap()\` on an \`Err\` value: Os { code: 32, kind: BrokenPipe, message: "Broken pipe" }
stack backtrace:
   0: rust_begin_unwind
   1: core::panicking::panic_fmt
   2: core::result::unwrap_failed
   3: demo_agent::session::run
   4: demo_agent::main
note: Some details are omitted, run with \`RUST_BACKTRACE=full\` for a verbose backtrace.`;

function demoMarkdown(prompt: string): string {
  const p = prompt.length > 60 ? prompt.slice(0, 60) + "…" : prompt;
  return `## Project overview

You asked: *${p.replace(/[*_`[\]]/g, "")}*. Here is what I found in the repository:

- **porthole-core** — protocol logic, form schema and URL safety analysis
- **src-tauri** — the desktop shell and IPC commands
- **ui** — this Svelte front end

The spec lives at [agentclientprotocol.com](https://agentclientprotocol.com/protocol/overview) — links are shown as text only.

\`\`\`rust
pub fn analyze(url: &str) -> UrlAnalysis {
    let parsed = Url::parse(url)?;
    check_host(&parsed)
}
\`\`\`

| Command | What it shows |
|---|---|
| \`/configure\` | a form with every field type |
| \`/ask\` | an agent's questions, with "Other…" answers |
| \`/connect\` | a URL consent dialog |
| \`/edit\` | a permission request |

Next, try one of the slash commands above.`;
}

const OLD_FILE = `export const config = {
  name: "porthole",
  timeoutMs: 30000,
  retries: 3,
  verbose: false,
};`;
const NEW_FILE = `export const config = {
  name: "porthole",
  timeoutMs: Number(process.env.PORTHOLE_TIMEOUT ?? 30000),
  retries: 3,
  verbose: process.env.PORTHOLE_VERBOSE === "1",
};`;

/** The mock's dialogs, made by core's own rules (schema parsing, hints, secret detection, URL
 *  analysis) from the requests an agent would send: porthole-app's `mock_dialogs.rs` writes
 *  them. Only the ids are the mock's. */
type Made<T> = T & DialogOrigin;
const MADE = made as unknown as { configure: Made<FormElicitation>; secret: Made<FormElicitation>; questions: Made<FormElicitation>; goodUrl: Made<UrlElicitation>; evilUrl: Made<UrlElicitation> };

function withId<T extends { dialogId: number }>(d: T, id: number): T {
  return { ...(JSON.parse(JSON.stringify(d)) as T), dialogId: id };
}

export function configureForm(id: number): Made<FormElicitation> {
  return withId(MADE.configure, id);
}

export function secretForm(id: number): Made<FormElicitation> {
  return withId(MADE.secret, id);
}

export function questionForm(id: number): Made<FormElicitation> {
  return withId(MADE.questions, id);
}

/** The session's options, as Claude Code's adapter sends them (mode, model, effort): the
 *  header shows them in one row. */
const CONFIG_OPTIONS: ConfigOption[] = [
  { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "default", options: [
    { value: "default", name: "Always ask" }, { value: "acceptEdits", name: "Accept edits" }, { value: "plan", name: "Plan mode" }, { value: "bypassPermissions", name: "Bypass permissions" }] },
  { id: "model", name: "Model", category: "model", type: "select", currentValue: "default", options: [
    { value: "default", name: "Default (recommended)" }, { value: "opus", name: "Opus" }, { value: "haiku", name: "Haiku" }] },
  { id: "effort", name: "Effort", category: "thought_level", type: "select", currentValue: "medium", options: [
    { value: "low", name: "Low" }, { value: "medium", name: "Medium" }, { value: "high", name: "High" }] },
] as ConfigOption[];

export function goodUrl(id: number): Made<UrlElicitation> {
  return { ...withId(MADE.goodUrl, id), elicitationId: `github-oauth-${id}` };
}

export function evilUrl(id: number): Made<UrlElicitation> {
  return { ...withId(MADE.evilUrl, id), elicitationId: `login-${id}` };
}

export type { Commands };
