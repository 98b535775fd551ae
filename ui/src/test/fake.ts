import type { Backend, CommandName } from "../lib/backend";
import type { UiEvent } from "../lib/protocol";
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

export function storeWith(events: UiEvent[]): AppStore {
  const s = new AppStore((cb) => cb());
  s.apply([
    {
      type: "connection",
      snapshot: {
        connection: "connected", agent: { name: "demo-agent", title: "Demo Agent", version: "1.0" }, agentCommand: "demo",
        cwd: "/tmp", sessionId: "demo-1", error: null, turnRunning: false, sealedViewAvailable: true,
      },
    },
    ...events,
  ]);
  return s;
}

export const flush = () => new Promise((r) => setTimeout(r, 0));
