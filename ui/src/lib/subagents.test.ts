import { describe, expect, it } from "vitest";
import { AppStore, SubagentItem, ToolItem } from "./store.svelte";
import type { TranscriptUpdate, UiEvent } from "./protocol";
import { feed, snapshotWith } from "../test/fake";

/** A store showing session "s". */
function withSession() {
  const s = new AppStore((cb) => cb());
  const snap = snapshotWith();
  snap.sessions = [{ ...snap.sessions[0], sessionId: "s" }];
  s.init({ snapshot: snap, dialogs: [] });
  return s;
}

const update = (u: TranscriptUpdate, sessionId = "s"): UiEvent => ({ type: "session_update", sessionId, update: u });
const call = (sessions?: string[]): UiEvent =>
  update({ kind: "tool_call", toolCallId: "t1", opened: false, fields: { title: "Ask a subagent", status: "in_progress" }, ...(sessions ? { sessions } : {}) });
const subagent = (u: Omit<Extract<TranscriptUpdate, { kind: "subagent" }>, "kind">): UiEvent => update({ kind: "subagent", ...u });
const text = (t: string) => ({ type: "text" as const, text: t });

function items(s: AppStore) {
  return s.transcripts.get("s")!.items;
}

describe("subagents", () => {
  it("draw inside the tool call whose content names their session, in either order", () => {
    for (const order of ["call first", "subagent first"]) {
      const s = withSession();
      const events = [call(["child"]), subagent({ sessionId: "child", title: "Reader", state: { state: "running", busy: true, stopReason: null, background: null } })];
      feed(s, order === "call first" ? events : events.reverse());
      const t = s.transcripts.get("s")!;
      const tool = items(s).find((i): i is ToolItem => i instanceof ToolItem)!;
      const [a] = t.subagentsOf(tool);
      expect(a?.title, order).toBe("Reader");
      expect(t.subagentCall("child"), order).toBe(tool);
    }
  });

  it("is a row of its own while no tool call names it", () => {
    const s = withSession();
    feed(s, [call(), subagent({ sessionId: "child", title: "Reader" })]);
    const t = s.transcripts.get("s")!;
    const tool = items(s).find((i): i is ToolItem => i instanceof ToolItem)!;
    expect(t.subagentsOf(tool)).toEqual([]);
    expect(t.subagentCall("child")).toBeNull();
    expect(items(s).some((i) => i instanceof SubagentItem && i.sessionId === "child")).toBe(true);
  });

  it("merges upserts: a field left out is unchanged, null clears, _meta patches by key", () => {
    const s = withSession();
    feed(s, [
      subagent({ sessionId: "child", title: "Reader", description: "Reads notes", _meta: { a: 1, b: 2 } }),
      subagent({ sessionId: "child", state: { state: "idle", busy: false, stopReason: "end_turn", background: null }, _meta: { a: null, c: 3 } }),
      subagent({ sessionId: "child", description: null }),
    ]);
    const a = s.transcripts.get("s")!.subagents.get("child")!;
    expect(a.title).toBe("Reader");
    expect(a.description).toBeNull();
    expect(a.state?.state).toBe("idle");
    expect(a.meta).toEqual({ b: 2, c: 3 });
    expect(items(s).filter((i) => i instanceof SubagentItem)).toHaveLength(1);
  });

  it("attributes messages between sessions to the subagent on their other end", () => {
    const s = withSession();
    feed(s, [
      call(["child"]),
      subagent({ sessionId: "child", title: "Reader" }),
      update({ kind: "session_message", messageId: "m1", senderSessionId: "s", recipientSessionId: "child", op: "replace", content: [text("Read notes.txt")] }),
      // A chunk before the upsert that says who sent it.
      update({ kind: "session_message", messageId: "m2", op: "append", content: text("It says ") }),
      update({ kind: "session_message", messageId: "m2", op: "append", content: text("hello") }),
      update({ kind: "session_message", messageId: "m2", senderSessionId: "child", recipientSessionId: "s", op: "keep" }),
    ]);
    const t = s.transcripts.get("s")!;
    const a = t.subagents.get("child")!;
    expect(a.messages.map((m) => [m.sender, m.text])).toEqual([
      ["s", "Read notes.txt"],
      ["child", "It says hello"],
    ]);
    // Nothing left behind in the thread of messages whose other session was not known.
    expect(t.subagents.get("")?.messages ?? []).toEqual([]);
    // An edit by messageId replaces; null content clears.
    feed(s, [update({ kind: "session_message", messageId: "m1", op: "replace", content: [] })]);
    expect(a.messages[0].text).toBe("");
  });

  it("keeps a message whose other session is unknown, and a message to a session never announced creates its thread", () => {
    const s = withSession();
    feed(s, [
      update({ kind: "session_message", messageId: "m1", op: "append", content: text("orphan") }),
      update({ kind: "session_message", messageId: "m2", senderSessionId: "other", op: "replace", content: [text("hi")] }),
    ]);
    const t = s.transcripts.get("s")!;
    expect(t.subagents.get("")!.messages.map((m) => m.text)).toEqual(["orphan"]);
    expect(t.subagents.get("other")!.messages.map((m) => m.text)).toEqual(["hi"]);
  });

  it("keeps each thread open or collapsed as the person left it", () => {
    const s = withSession();
    feed(s, [subagent({ sessionId: "a" }), subagent({ sessionId: "b" })]);
    const t = s.transcripts.get("s")!;
    t.subagents.get("a")!.expanded = false;
    feed(s, [subagent({ sessionId: "a", title: "A" }), subagent({ sessionId: "b", title: "B" })]);
    expect([t.subagents.get("a")!.expanded, t.subagents.get("b")!.expanded]).toEqual([false, true]);
  });
});
