// What the window shows of ACP v2's background work: `state_update`'s `background` items are
// `{type: "terminal", terminalId}`, `{type: "tool_call", toolCallId}`, `{type: "subagent",
// sessionId}` (unstable) or a kind this build does not know (still work that runs).
import type { Transcript } from "./store.svelte";
import { revealHidden } from "./url";

export type BackgroundShown = {
  key: string;
  kindLabel: string;
  /** What it is: the terminal's command, the tool call's title, else its id. */
  title: string;
  /** How a client stops it, where the protocol has a way. */
  cancel: { kind: "tool_call" | "terminal"; id: string } | null;
};

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function backgroundItems(background: unknown[] | null, transcript: Transcript | null): BackgroundShown[] {
  return (background ?? []).map((raw, i) => {
    const item = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const type = str(item.type) ?? "unknown";
    const key = `${i}:${type}`;
    if (type === "terminal" && str(item.terminalId)) {
      const id = str(item.terminalId)!;
      const command = transcript?.terminals.get(id)?.command;
      return { key: `terminal:${id}`, kindLabel: "terminal", title: revealHidden(command || id), cancel: { kind: "terminal", id } };
    }
    if (type === "tool_call" && str(item.toolCallId)) {
      const id = str(item.toolCallId)!;
      return { key: `tool_call:${id}`, kindLabel: "tool call", title: revealHidden(transcript?.toolTitle(id) ?? id), cancel: { kind: "tool_call", id } };
    }
    if (type === "subagent") {
      return { key, kindLabel: "subagent", title: revealHidden(str(item.sessionId) ?? "a subagent"), cancel: null };
    }
    return { key, kindLabel: revealHidden(type), title: "work the agent did not describe", cancel: null };
  });
}
