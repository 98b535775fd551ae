import { describe, expect, it, vi } from "vitest";
import { AppStore, COMPACT_MAX, CompactionItem, DISMISS_TEXT, ENDED_KEPT, NoticeItem, PlanItem, TextItem, ToolItem, UnknownItem } from "./store.svelte";
import { TranscriptRows } from "./transcript-rows";
import type { TranscriptUpdate, UiEvent } from "./protocol";
import { goodUrl } from "./mock";
import { feed, snapshotWith } from "../test/fake";

/** A store showing session "s" of the demo agent (and a second session "t"). */
function withSession(raf: (cb: () => void) => unknown = (cb) => cb()) {
  const s = new AppStore(raf);
  const snap = snapshotWith();
  snap.sessions = [
    { ...snap.sessions[0], sessionId: "s" },
    { ...snap.sessions[0], sessionId: "t" },
  ];
  s.init({ snapshot: snap, dialogs: [] });
  return s;
}

/** The notices in session `sessionId`'s transcript. */
function notes(s: AppStore, sessionId: string): string[] {
  return (s.transcripts.get(sessionId)?.items ?? []).flatMap((i) => (i.kind === "notice" ? [i.text] : []));
}

const ROLES = { agent_message_chunk: "agent", agent_thought_chunk: "thought", user_message_chunk: "user" } as const;
const chunk = (text: string, messageId: string | null = null, kind: keyof typeof ROLES = "agent_message_chunk"): UiEvent => ({
  type: "session_update", sessionId: "s", update: { kind: "message", role: ROLES[kind], messageId, op: "append", content: { type: "text", text } },
});

function manual() {
  const frames: (() => void)[] = [];
  const s = withSession((cb) => frames.push(cb));
  return { s, frames };
}

/** A session update of session "s", as core's transcript model gives it. */
const update = (u: TranscriptUpdate): UiEvent => ({ type: "session_update", sessionId: "s", update: u });

describe("AppStore", () => {
  it("keeps an update of a kind it does not know as a row naming it, with what it carried", () => {
    const s = withSession();
    const raw = { sessionUpdate: "_vendor_progress", percent: 40 };
    s.apply([chunk("before"), update({ kind: "unknown", sessionUpdate: "_vendor_progress", update: raw }), chunk(" after")]);
    const unknown = s.items[1] as UnknownItem;
    expect(unknown).toBeInstanceOf(UnknownItem);
    expect([unknown.name, unknown.update]).toEqual(["_vendor_progress", raw]);
    // The message it interrupted goes on in a new row, as after any other row.
    expect(s.items.map((i) => i.kind)).toEqual(["message", "unknown", "message"]);
  });

  it("names a kind this window's build does not know (a newer backend), never dropping it", () => {
    const s = withSession();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    s.apply([update({ kind: "forecast", horizon: "1d" } as unknown as TranscriptUpdate)]);
    expect((s.items[0] as UnknownItem).name).toBe("forecast");
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });

  it("takes a message's upserts: replaced, cleared, created by an id never seen", () => {
    const s = withSession();
    const text = (t: string) => ({ type: "text" as const, text: t });
    s.apply([
      update({ kind: "message", role: "agent", messageId: "m1", op: "append", content: text("draft") }),
      update({ kind: "message", role: "agent", messageId: "m1", op: "replace", content: [text("final "), text("answer")] }),
      update({ kind: "message", role: "agent", messageId: "m2", op: "keep" }),
      update({ kind: "message", role: "thought", messageId: "t1", op: "replace", content: [text("idea")] }),
      update({ kind: "message", role: "thought", messageId: "t1", op: "replace", content: [] }),
    ]);
    expect(s.items.map((i) => [(i as TextItem).role, (i as TextItem).messageId, (i as TextItem).text])).toEqual([
      ["agent", "m1", "final answer"],
      ["agent", "m2", ""],
      ["thought", "t1", ""],
    ]);
    // A long message replaced by a short one is short again.
    const long = "word ".repeat(COMPACT_MAX);
    s.apply([update({ kind: "message", role: "agent", messageId: "m3", op: "append", content: text(long) })]);
    const m3 = s.items[3] as TextItem;
    expect(m3.markdown).not.toBeNull();
    s.apply([update({ kind: "message", role: "agent", messageId: "m3", op: "replace", content: [text("short")] })]);
    expect([m3.markdown, m3.text]).toEqual([null, "short"]);
  });

  it("shows the agent's notices by severity and a compaction as one row that follows it", () => {
    const s = withSession();
    s.apply([
      update({ kind: "notice", severity: "warning", title: "Quota", description: "80% used" }),
      update({ kind: "compaction", compactionId: "c1", status: "in_progress" }),
      update({ kind: "compaction_summary", compactionId: "c1", content: { type: "text", text: "We fixed the parser." } }),
      update({ kind: "compaction", compactionId: "c1", status: "completed" }),
    ]);
    const [notice, compaction] = s.items as [NoticeItem, CompactionItem];
    expect([notice.tone, notice.severity, notice.text]).toEqual(["warning", "Warning", "Quota: 80% used"]);
    expect([s.items.length, compaction.status, compaction.summary]).toEqual([2, "completed", "We fixed the parser."]);
  });

  it("names each notice's severity, one it does not know as it came, and none for Porthole's own lines", () => {
    const s = withSession();
    s.apply([
      update({ kind: "notice", severity: "info", title: "No model" }),
      update({ kind: "notice", severity: "error", title: "Unreachable", description: "try later" }),
      update({ kind: "notice", severity: "_vendor_critical", title: "Quota" }),
      { type: "turn_ended", sessionId: "s", stopReason: "cancelled", error: null },
    ]);
    expect((s.items as NoticeItem[]).map((n) => [n.severity, n.tone, n.text])).toEqual([
      ["Info", "info", "No model"],
      ["Error", "error", "Unreachable: try later"],
      ["_vendor_critical", "info", "Quota"],
      [null, "info", "Turn ended: cancelled"],
    ]);
  });

  it("keeps session state out of the transcript (it comes with the snapshot)", () => {
    const s = withSession();
    s.apply([update({ kind: "current_mode", currentModeId: "code" }), update({ kind: "usage", used: 1, size: 2 })]);
    expect(s.items).toEqual([]);
  });

  it("appends consecutive chunks in order into one message", () => {
    const s = withSession();
    s.apply([chunk("Hel"), chunk("lo "), chunk("world")]);
    expect(s.items.length).toBe(1);
    expect((s.items[0] as TextItem).text).toBe("Hello world");
  });

  it("groups chunks by messageId even when interleaved", () => {
    const s = withSession();
    s.apply([chunk("a1", "A"), chunk("b1", "B"), chunk("a2", "A")]);
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["a1a2", "b1"]);
  });

  it("keeps a short agent message as its text and splits it into blocks once it is long", () => {
    const s = withSession();
    // A CR LF across a chunk edge, and one inside a chunk: both read as one line end.
    s.apply([chunk("Hello\r", "M"), chunk("\nworld\r\n\n", "M")]);
    const item = s.items[0] as TextItem;
    expect(item.markdown).toBeNull();
    expect(item.segmentCount).toBe(1);
    expect(item.text).toBe("Hello\nworld\n\n");
    expect(item.html()).toBe("<p>Hello\nworld</p>\n");

    const rows = new TranscriptRows(s.transcript!);
    rows.update();
    expect(rows.rows.map((r) => r.item)).toEqual([item]);
    const firstKey = rows.rows[0].key;

    // 40 paragraphs of ~200 characters: past COMPACT_MAX, and more than one segment.
    const paras = Array.from({ length: 40 }, (_, i) => `${i} ${"lorem ".repeat(33)}\r\n\r\n`);
    s.apply(paras.map((p) => chunk(p, "M")));
    expect(s.items.length).toBe(1);
    expect(item.markdown).not.toBeNull();
    const whole = "Hello\nworld\n\n" + paras.join("").replace(/\r\n/g, "\n");
    expect(whole.length).toBeGreaterThan(COMPACT_MAX);
    expect(item.text).toBe(whole);
    expect(item.segmentCount).toBeGreaterThan(1);

    // The row the message had stays first; the new segments follow it.
    rows.update();
    expect(rows.rows.length).toBe(item.segmentCount);
    expect(rows.rows.map((r) => r.segment)).toEqual(Array.from({ length: item.segmentCount }, (_, k) => k));
    expect(rows.rows[0].key).toBe(firstKey);
    expect(new Set(rows.rows.map((r) => r.key)).size).toBe(rows.rows.length);
  });

  it("keeps thoughts separate from the message", () => {
    const s = withSession();
    s.apply([chunk("hmm", null, "agent_thought_chunk"), chunk("answer")]);
    expect(s.items.map((i) => (i as TextItem).role)).toEqual(["thought", "agent"]);
  });

  it("starts a new message after a user prompt", () => {
    const s = withSession();
    s.apply([chunk("one"), { type: "user_prompt", sessionId: "s", text: "next", attachments: [] }, chunk("two")]);
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["one", "next", "two"]);
  });

  it("merges tool_call_update into the tool call by id", () => {
    const s = withSession();
    s.apply([
      { type: "session_update", sessionId: "s", update: { kind: "tool_call", toolCallId: "t1", opened: true, fields: { title: "Read a", kind: "read", status: "pending" } } },
      { type: "session_update", sessionId: "s", update: { kind: "tool_call", toolCallId: "t1", opened: false, fields: { status: "completed", content: [{ type: "content", content: { type: "text", text: "ok" } }] } } },
    ]);
    expect(s.items.length).toBe(1);
    const t = s.items[0] as ToolItem;
    expect(t.fields.title).toBe("Read a");
    expect(t.fields.kind).toBe("read");
    expect(t.fields.status).toBe("completed");
    expect(t.fields.content?.length).toBe(1);
  });

  it("replaces the plan in place within a turn", () => {
    const s = withSession();
    const plan = (status: "pending" | "completed"): UiEvent => ({ type: "session_update", sessionId: "s", update: { kind: "plan", entries: [{ content: "x", priority: "low", status }] } });
    s.apply([plan("pending"), plan("completed")]);
    expect(s.items.length).toBe(1);
    expect((s.items[0] as PlanItem).entries[0].status).toBe("completed");
  });

  it("takes the shown session's commands from the backend's session view", () => {
    const s = withSession();
    const snap = snapshotWith();
    snap.sessions = [{ ...snap.sessions[0], sessionId: "s", availableCommands: [{ name: "web", description: "d" }] }];
    s.apply([{ type: "connection", snapshot: snap }]);
    expect(s.commands.map((c) => c.name)).toEqual(["web"]);
  });

  it("keeps each session's transcript apart and switches between them", () => {
    const s = withSession();
    s.apply([chunk("for s"), { ...chunk("for t"), sessionId: "t" } as UiEvent]);
    expect(s.activeSessionId).toBe("s");
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["for s"]);
    s.selectSession("t");
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["for t"]);
  });

  it("shows another session when the shown one closes, and keeps the last one readable when none is left", () => {
    const s = withSession();
    s.apply([chunk("said in s")]);
    s.selectSession("t");
    const snap = snapshotWith();
    snap.sessions = [{ ...snap.sessions[0], sessionId: "s" }];
    s.apply([{ type: "connection", snapshot: snap }]);
    expect(s.activeSessionId).toBe("s");
    // The agent stopped: nothing is lost from the screen, but nothing can be sent.
    s.apply([
      { type: "connection", snapshot: snapshotWith({ sessions: [] }, { state: "failed" }) },
      { type: "turn_ended", sessionId: "s", stopReason: null, error: { code: -32603, message: "the agent exited" } },
      { type: "agent_exited", code: null, signal: 9, status: "killed by signal 9", stderrTail: "", requested: false },
    ]);
    expect(s.activeSessionId).toBe("s");
    expect(s.session).toBeNull();
    expect(s.connected).toBe(false);
    expect(s.items.map((i) => (i as TextItem).text)).toEqual([
      "said in s",
      "The turn failed: the agent exited",
      "The agent stopped (killed by signal 9).",
    ]);
  });

  it("starts clean when a restarted agent reuses an ended session's id", () => {
    const s = withSession();
    s.apply([chunk("before the restart")]);
    const gone = snapshotWith({ sessions: [] });
    s.apply([{ type: "connection", snapshot: gone }]);
    // The new process's first update may come before the snapshot that lists its session.
    s.apply([chunk("after"), { type: "connection", snapshot: (() => { const x = snapshotWith(); x.sessions[0].sessionId = "s"; return x; })() }]);
    expect(s.activeSessionId).toBe("s");
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["after"]);
  });

  it("keeps the last ENDED_KEPT ended transcripts, and always the one shown", () => {
    const s = withSession();
    s.apply([chunk("said in s")]);
    const base = snapshotWith().sessions[0];
    // Sessions come and go (restarts, closed sessions), each leaving a transcript.
    const churn = (prefix: string, n: number, agentId = base.agentId) => {
      for (let i = 0; i < n; i++) {
        const id = `${prefix}${i}`;
        const listed = snapshotWith();
        listed.sessions = [{ ...base, agentId, sessionId: id }];
        s.apply([{ type: "connection", snapshot: listed }, { ...chunk(`said in ${id}`), sessionId: id } as UiEvent]);
        s.apply([{ type: "connection", snapshot: snapshotWith({ sessions: [] }) }]);
      }
    };
    churn("e", ENDED_KEPT + 15);
    expect(s.transcripts.size).toBe(ENDED_KEPT);
    expect([...s.transcripts.keys()]).toEqual(Array.from({ length: ENDED_KEPT }, (_, i) => `e${i + 15}`));
    // The one on screen stays however old it gets (another agent's sessions keep coming).
    s.selectSession("e15");
    churn("other", ENDED_KEPT + 5, "another-agent");
    expect(s.activeSessionId).toBe("e15");
    expect(s.transcripts.size).toBe(ENDED_KEPT);
    expect(s.transcripts.has("e15")).toBe(true);
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["said in e15"]);
  });

  it("keeps terminal output and bounds how much of it the window holds", () => {
    const s = withSession();
    s.apply([
      { type: "terminal_created", terminalId: "x", sessionId: "s", command: "yes", args: [], cwd: null },
      { type: "terminal_output", terminalId: "x", data: "y\n".repeat(200 * 1024), truncated: false },
    ]);
    const t = s.terminals.get("x")!;
    expect(t.output.length).toBe(256 * 1024);
    expect(t.truncated).toBe(true);
    s.apply([{ type: "terminal_exited", terminalId: "x", exitCode: null, signal: "SIGKILL" }]);
    expect(t.exited).toBe(true);
    expect(t.signal).toBe("SIGKILL");
  });

  it("queues file-access dialogs with the others and closes them when withdrawn, with a note", () => {
    const s = withSession();
    feed(s, [
      { type: "file_access", dialogId: 7, agent: { name: "a", title: null, version: null }, sessionId: "s", path: "/etc/passwd", operation: "read", reason: "outside" },
    ]);
    expect(s.active?.dialogId).toBe(7);
    feed(s, [{ type: "dialog_dismissed", dialogId: 7, reason: "session_ended" }]);
    expect(s.active).toBeNull();
    expect(notes(s, "s")).toEqual([
      "Withdrawn before you answered: access to “/etc/passwd” — The session ended, so this request no longer applies.",
    ]);
  });

  it("queues dialogs in arrival order", () => {
    const s = withSession();
    feed(s, [goodUrl(1), goodUrl(2)]);
    expect(s.dialogs.map((d) => d.dialogId)).toEqual([1, 2]);
    expect(s.active?.dialogId).toBe(1);
  });

  it("a flood of withdrawn questions is one note that counts them, and no dialog to close", () => {
    const s = withSession();
    feed(s, [goodUrl(1), goodUrl(2), goodUrl(3)]);
    for (const id of [1, 2, 3]) feed(s, [{ type: "dialog_dismissed", dialogId: id, reason: "agent_cancelled" }]);
    expect(s.dialogs.length).toBe(0);
    expect(DISMISS_TEXT.agent_cancelled).toBe("The agent withdrew this request.");
    expect(notes(s, "s")).toEqual([
      "3 questions were withdrawn before you answered them (the last: The agent withdrew this request.)",
    ]);
    // A withdrawal after something else was said starts a new note.
    s.apply([chunk("hi")]);
    feed(s, [goodUrl(4), { type: "dialog_dismissed", dialogId: 4, reason: "turn_cancelled" }]);
    expect(notes(s, "s")).toHaveLength(2);
    expect(notes(s, "s")[1]).toBe("Withdrawn before you answered: a sign-in page — The turn was cancelled, so this request no longer applies.");
  });

  it("a URL page the person finished stays until closed when the agent withdraws it", () => {
    const s = withSession();
    feed(s, [goodUrl(1)]);
    s.apply([{ type: "elicitation_complete", elicitationId: "github-oauth-1", known: true, dialogId: 1 }]);
    feed(s, [{ type: "dialog_dismissed", dialogId: 1, reason: "agent_cancelled" }]);
    expect(s.active?.status).toBe("completed");
    expect(notes(s, "s")).toEqual([]);
  });

  it("marks a URL dialog completed on elicitation_complete", () => {
    const s = withSession();
    feed(s, [goodUrl(3)]);
    s.active!.status = "waiting";
    s.apply([{ type: "elicitation_complete", elicitationId: "github-oauth-3", known: true, dialogId: 3 }]);
    expect(s.active?.status).toBe("completed");
  });

  it("ignores elicitation_complete for unknown dialogs", () => {
    const s = withSession();
    feed(s, [goodUrl(3), { type: "elicitation_complete", elicitationId: "nope", known: false, dialogId: null }]);
    expect(s.active?.status).toBe("pending");
  });

  it("applies enqueued batches at most once per animation frame", () => {
    const { s, frames } = manual();
    s.enqueue([chunk("a")]);
    s.enqueue([chunk("b")]);
    s.enqueue([chunk("c")]);
    expect(frames.length).toBe(1);
    expect(s.items.length).toBe(0);
    frames.shift()!();
    expect(s.framesApplied).toBe(1);
    expect((s.items[0] as TextItem).text).toBe("abc");
    s.enqueue([chunk("d")]);
    expect(frames.length).toBe(1);
    frames.shift()!();
    expect(s.framesApplied).toBe(2);
    expect((s.items[0] as TextItem).text).toBe("abcd");
  });

  it("turn_ended with an error leaves a notice in that session", () => {
    const s = withSession();
    s.apply([{ type: "user_prompt", sessionId: "s", text: "x", attachments: [] }, { type: "turn_ended", sessionId: "s", stopReason: null, error: { code: -32603, message: "boom" } }]);
    expect(s.items.length).toBe(2);
    expect((s.items[1] as { text: string }).text).toBe("The turn failed: boom");
  });

  it("logs an event type it does not know instead of dropping it silently, and goes on", () => {
    const s = withSession();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // What a newer backend could send: not a UiEvent, so only a cast gets it past the compiler.
      s.apply([{ type: "from_the_future", sessionId: "s" } as unknown as UiEvent, chunk("still here")]);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0][1]).toEqual({ type: "from_the_future", sessionId: "s" });
      expect((s.items[0] as TextItem).text).toBe("still here");
    } finally {
      logged.mockRestore();
    }
  });
});

describe("the user's prompt and the agent's echo of it", () => {
  const text = (t: string) => ({ type: "text" as const, text: t });
  const prompt = (t: string): UiEvent => ({ type: "user_prompt", sessionId: "s", text: t, attachments: [] });
  const ended: UiEvent = { type: "turn_ended", sessionId: "s", stopReason: "end_turn", error: null };
  const said = (messageId: string | null, t: string, op: "append" | "replace" = "append") =>
    update(
      op === "append"
        ? { kind: "message", role: "user", messageId, op, content: text(t) }
        : { kind: "message", role: "user", messageId, op, content: [text(t)] },
    );
  const users = (s: AppStore) =>
    s.items.flatMap((i) => (i instanceof TextItem && i.role === "user" ? [[i.messageId, i.text]] : []));

  it("shows a prompt once when the agent echoes it as an upsert (Claude in v2)", () => {
    const s = withSession();
    s.apply([prompt("hello"), said("m1", "hello", "replace"), chunk("hi there", "a1"), said("m1", "!")]);
    expect(users(s)).toEqual([["m1", "hello!"]]);
    expect(s.items.map((i) => i.kind)).toEqual(["message", "message"]);
  });

  it("shows a prompt once when the agent echoes it in chunks after other rows (Codex in v2)", () => {
    const s = withSession();
    s.apply([
      prompt("hello"),
      update({ kind: "notice", severity: "warning", title: "Model metadata not found" }),
      said("m1", "hel"),
      said("m1", "lo"),
      chunk("hi", "a1"),
    ]);
    expect(users(s)).toEqual([["m1", "hello"]]);
    expect(s.items.map((i) => i.kind)).toEqual(["message", "notice", "message"]);
  });

  it("shows the agent's text when it differs from what the window echoed", () => {
    const s = withSession();
    s.apply([
      { type: "user_prompt", sessionId: "s", text: "look", attachments: [{ kind: "image", path: "/tmp/a.png" }] },
      update({ kind: "message", role: "user", messageId: "m1", op: "replace", content: [text("look"), { type: "image", data: "", mimeType: "image/png" }] }),
    ]);
    expect(users(s)).toEqual([["m1", "look[image]"]]);
  });

  it("keeps the echo's text when the agent's first upsert leaves the content out", () => {
    const s = withSession();
    s.apply([prompt("hello"), update({ kind: "message", role: "user", messageId: "m1", op: "keep" })]);
    expect(users(s)).toEqual([["m1", "hello"]]);
  });

  it("never lets a second prompt take the first one's message", () => {
    const s = withSession();
    s.apply([prompt("one"), said("m1", "one", "replace"), chunk("reply one", "a1"), ended]);
    s.apply([prompt("two"), said("m1", "one (edited)", "replace"), said("m2", "two", "replace"), ended]);
    expect(users(s)).toEqual([
      ["m1", "one (edited)"],
      ["m2", "two"],
    ]);
  });

  it("pairs each echo with its own prompt when a follow-up is sent while the first turn runs", () => {
    const s = withSession();
    s.apply([prompt("one"), said("m1", "one", "replace"), chunk("working", "a1"), prompt("two")]);
    s.apply([ended, said("m2", "two", "replace"), chunk("done", "a2"), ended]);
    expect(users(s)).toEqual([
      ["m1", "one"],
      ["m2", "two"],
    ]);
  });

  it("keeps the window's echo for an agent that never echoes (v1), and a later echo takes only its own prompt", () => {
    const s = withSession();
    s.apply([prompt("one"), chunk("reply one"), ended, prompt("two"), said("m2", "two", "replace"), ended]);
    expect(users(s)).toEqual([
      [null, "one"],
      ["m2", "two"],
    ]);
    expect(s.items.map((i) => (i as TextItem).text)).toEqual(["one", "reply one", "two"]);
  });

  it("shows a prompt once when a v1 agent echoes it without a messageId", () => {
    const s = withSession();
    s.apply([prompt("hello"), update({ kind: "plan", entries: [] }), said(null, "hel"), said(null, "lo"), chunk("hi"), ended]);
    expect(users(s)).toEqual([[null, "hello"]]);
    expect(s.items.map((i) => i.kind)).toEqual(["message", "plan", "message"]);
    // Also when the echo is the last row (a v1 chunk without an id would continue it).
    s.apply([prompt("again"), said(null, "again"), chunk("ok"), ended]);
    expect(users(s)).toEqual([
      [null, "hello"],
      [null, "again"],
    ]);
  });

  it("shows each user message of a replay once, and a prompt after it once", () => {
    const s = withSession();
    // v2's replay (session/resume with replayFrom): an empty upsert, then its chunks.
    s.apply([
      said("u1", "", "replace"),
      said("u1", "first"),
      update({ kind: "message", role: "agent", messageId: "a1", op: "replace", content: [] }),
      chunk("answer", "a1"),
      said("u2", "", "replace"),
      said("u2", "second"),
    ]);
    s.apply([prompt("third"), said("u3", "third", "replace"), ended]);
    expect(users(s)).toEqual([
      ["u1", "first"],
      ["u2", "second"],
      ["u3", "third"],
    ]);
    // v1's replay (session/load): chunks without ids, one message per run of chunks.
    const v1 = withSession();
    v1.apply([said(null, "first"), chunk("answer"), said(null, "second")]);
    v1.apply([prompt("third"), chunk("ok"), ended]);
    expect(users(v1)).toEqual([
      [null, "first"],
      [null, "second"],
      [null, "third"],
    ]);
  });
});
