import type { Backend, CommandName } from "../lib/backend";
import type { AppSnapshot, Connection, Dialog, Elicitation, FileAccessRequest, PermissionRequest, UiEvent } from "../lib/protocol";
import { AppStore } from "../lib/store.svelte";

type Impl = Partial<Record<CommandName, (args: any) => unknown>>;

/** A recording backend for component tests. */
export class FakeBackend implements Backend {
  calls: { cmd: CommandName; args: any }[] = [];
  listeners: ((e: UiEvent[]) => void)[] = [];
  constructor(public impl: Impl = {}) {}
  async invoke(cmd: CommandName, ...args: unknown[]): Promise<any> {
    this.calls.push({ cmd, args: args[0] });
    const f = this.impl[cmd];
    return f ? f(args[0]) : undefined;
  }
  onEvents(cb: (e: UiEvent[]) => void) {
    this.listeners.push(cb);
    return () => {};
  }
  callsOf(cmd: CommandName) {
    return this.calls.filter((c) => c.cmd === cmd).map((c) => c.args);
  }
}

/** A snapshot of one connected demo agent with one open session; `patch` overrides parts. */
export function snapshotWith(patch: Partial<AppSnapshot> = {}, conn: Partial<Connection> = {}): AppSnapshot {
  return {
    agents: [{ id: "demo", name: "Demo agent", command: "porthole", args: ["demo-agent"], env: {}, builtIn: true }],
    connections: [
      {
        agentId: "demo",
        state: "connected",
        agent: { name: "demo-agent", title: "Demo Agent", version: "1.0" },
        protocolVersion: 1,
        takesFollowUps: false,
        error: null,
        authMethods: [],
        needsAuth: false,
        signInProblem: null,
        capabilities: {},
        proxy: null,
        ...conn,
      },
    ],
    sessions: [
      { sessionId: "demo-1", agentId: "demo", cwd: "/tmp", additionalDirectories: [], title: null, modes: null, models: null, configOptions: [], availableCommands: [], turnRunning: false, runState: null, usage: null },
    ],
    settingsPath: "/tmp/agents.json",
    settingsError: null,
    permissionRules: [],
    sealedViewAvailable: true,
    defaultCwd: "/tmp",
    appSettings: { formMode: true, urlMode: true, urlOpener: "sealed", notifications: true, theme: "system", storeFormValues: false, editorQuestions: "editor", editorQuestionsByAgent: {}, mcpQuestions: "porthole", mcpApps: true, mcpAppsOff: [], mcpAppTools: {}, mcpAppPermissions: {}, mcpRegistries: ["https://registry.modelcontextprotocol.io"], agentProtocols: {} },
    appSettingsPath: null,
    appSettingsError: null,
    historyError: null,
    logDir: null,
    companionError: null,
    storedSignIn: {},
    ...patch,
  };
}

/** An event, or a dialog the agent asks (it joins the model's list of waiting dialogs; asked by
 *  the demo agent's connection unless it says who asked). */
export type Fed = UiEvent | Dialog | Elicitation | PermissionRequest | FileAccessRequest;

const modelLists = new WeakMap<AppStore, Dialog[]>();

/** Apply events as the app model delivers them: a dialog asked joins the model's list of
 *  waiting dialogs, which is sent whole (`dialogs`); a dismissal goes first, then the list
 *  without the dialog. */
export function feed(store: AppStore, events: Fed[]) {
  const list = modelLists.get(store) ?? [];
  modelLists.set(store, list);
  const out: UiEvent[] = [];
  for (const e of events) {
    // A dialog of any kind (the window's events carry no `agent`; every dialog prompt does).
    if ("agent" in e && "dialogId" in e) {
      list.push({ agentId: "demo", through: null, ...e } as Dialog);
      out.push({ type: "dialogs", dialogs: [...list] });
      continue;
    }
    out.push(e);
    if (e.type === "dialog_dismissed") {
      const i = list.findIndex((d) => d.dialogId === e.dialogId);
      if (i >= 0) list.splice(i, 1);
      out.push({ type: "dialogs", dialogs: [...list] });
    }
  }
  store.apply(out);
}

export function storeWith(events: Fed[]): AppStore {
  const s = new AppStore((cb) => cb());
  feed(s, [{ type: "connection", snapshot: snapshotWith() }, ...events]);
  return s;
}

export const flush = () => new Promise((r) => setTimeout(r, 0));
