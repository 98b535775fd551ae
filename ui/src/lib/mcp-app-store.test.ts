import { describe, expect, it } from "vitest";
import { AppStore, McpAppItem, ToolItem } from "./store.svelte";
import type { McpAppView, UiEvent } from "./protocol";
import { snapshotWith } from "../test/fake";

function store() {
  const s = new AppStore((cb) => cb());
  const snap = snapshotWith();
  snap.sessions = [{ ...snap.sessions[0], sessionId: "s" }];
  s.init({ snapshot: snap, dialogs: [] });
  return s;
}

function app(patch: Partial<McpAppView> = {}): UiEvent {
  const view: McpAppView = {
    id: 1, sessionId: "s", connection: "charts", host: "127.0.0.1", tool: "show_chart", resourceUri: "ui://charts/chart.html",
    page: "mcp-app://localhost/key", toolCallId: null, arguments: {}, result: null, error: null, firstOfConnection: true, ...patch,
  };
  return { type: "mcp_app", app: view };
}

const toolCall = (id: string): UiEvent => ({
  type: "session_update",
  sessionId: "s",
  update: { kind: "tool_call", toolCallId: id, opened: true, fields: { title: "charts: show_chart" } },
});

describe("MCP Apps in the transcript", () => {
  it("go under the tool call they matched, and change in place when their result comes", () => {
    const s = store();
    s.apply([toolCall("t1"), app({ toolCallId: "t1" })]);
    const items = s.transcripts.get("s")!.items;
    expect(items.length).toBe(1);
    const tool = items[0] as ToolItem;
    expect(tool.apps.length).toBe(1);
    s.apply([app({ toolCallId: "t1", result: { content: [] } })]);
    expect(tool.apps.length).toBe(1);
    expect(tool.apps[0].view.result).toEqual({ content: [] });
  });

  it("wait for their call to finish before taking a row of their own when nothing matched", () => {
    const s = store();
    s.apply([app()]);
    expect(s.transcripts.get("s")!.items.length).toBe(0);
    s.apply([app({ error: "the chart failed" })]);
    const items = s.transcripts.get("s")!.items;
    expect(items.length).toBe(1);
    expect(items[0]).toBeInstanceOf(McpAppItem);
  });
});
