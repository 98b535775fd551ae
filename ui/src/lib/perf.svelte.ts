// Measuring hooks for the app benchmarks (docs/benchmarks-app.md, tests/bench-app). They only
// read the store: when the window first became usable, and what the transcript holds (a
// virtualized transcript does not keep every message in the DOM).
import { TextItem, ToolItem, type AppStore } from "./store.svelte";
import { workClock } from "./work-clock";

export interface PerfHooks {
  /** Epoch ms of the first frame in which the prompt box was enabled (agent connected, session open). */
  readonly interactiveAt: number | null;
  /** Items in the active transcript. */
  itemCount(): number;
  /** Text of the agent's messages whose id starts with `prefix`, in transcript order. */
  agentText(prefix?: string): string;
  /** Text of the last text item (user, agent or thought). */
  /** The last text item's text, or its first `max` characters (cheap on a 20 MB message). */
  lastText(max?: number): string;
  /** The transcript's order: `tool:<id>:<status>` per tool call, `msg:<messageId>` per agent message. */
  outline(): string[];
  /** Ms the window's code spent applying and rendering events since the last call (work-clock.ts). */
  takeWork(): number;
  /** Which session is shown and what each transcript holds (for a failed end-to-end test's report). */
  sessions(): { active: string | null; agent: string | null; listed: string[]; transcripts: Record<string, number> };
  /** Uncaught errors and rejections in the window so far (the last 20). */
  errors(): string[];
}

export function installPerfHooks(store: AppStore) {
  let interactiveAt: number | null = null;
  const errors: string[] = [];
  const record = (what: unknown) => {
    const e = what as { message?: string; stack?: string } | undefined;
    errors.push(`${e?.message ?? String(what)}${e?.stack ? ` @ ${e.stack.split("\n").slice(0, 4).join(" | ")}` : ""}`);
    if (errors.length > 20) errors.shift();
  };
  window.addEventListener("error", (e) => record(e.error ?? e.message));
  window.addEventListener("unhandledrejection", (e) => record(e.reason));
  const hooks: PerfHooks = {
    get interactiveAt() {
      return interactiveAt;
    },
    itemCount: () => store.items.length,
    agentText: (prefix = "") =>
      store.items
        .filter((i): i is TextItem => i instanceof TextItem && i.role === "agent" && (i.messageId ?? "").startsWith(prefix))
        .map((i) => i.text)
        .join(""),
    lastText: (max?: number) => {
      const items = store.items;
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (item instanceof TextItem) return max === undefined ? item.text : (item.markdown?.head(max) ?? item.text.slice(0, max));
      }
      return "";
    },
    outline: () =>
      store.items.flatMap((i) => {
        if (i instanceof ToolItem) return [`tool:${i.toolCallId}:${i.fields.status ?? ""}`];
        if (i instanceof TextItem && i.role === "agent") return [`msg:${i.messageId ?? ""}`];
        return [];
      }),
    sessions: () => ({
      active: store.activeSessionId,
      agent: store.selectedAgentId,
      listed: (store.snapshot?.sessions ?? []).map((x) => x.sessionId),
      transcripts: Object.fromEntries([...store.transcripts].map(([id, t]) => [id, t.items.length])),
    }),
    errors: () => [...errors],
    takeWork: () => {
      const ms = workClock.ms;
      workClock.ms = 0;
      return ms;
    },
  };
  $effect.root(() => {
    $effect(() => {
      if (interactiveAt !== null || !store.connected) return;
      requestAnimationFrame(() => (interactiveAt ??= performance.timeOrigin + performance.now()));
    });
  });
  Object.defineProperty(window, "__portholePerf", { value: Object.freeze(hooks) });
}
