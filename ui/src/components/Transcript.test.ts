import { describe, expect, it } from "vitest";
import { flushSync } from "svelte";
import { render } from "@testing-library/svelte";
import Transcript from "./Transcript.svelte";
import { FakeBackend, snapshotWith, storeWith } from "../test/fake";
import type { UiEvent } from "../lib/protocol";

const prompt = (text: string): UiEvent => ({ type: "user_prompt", sessionId: "demo-1", text, attachments: [] });
const reply = (text: string): UiEvent => ({
  type: "session_update",
  sessionId: "demo-1",
  update: { kind: "message", role: "agent", messageId: null, op: "append", content: { type: "text", text } },
});

describe("transcript", () => {
  it("draws a subagent as a thread inside the tool call that started it, collapsible from the keyboard", async () => {
    const update = (u: Extract<UiEvent, { type: "session_update" }>["update"]): UiEvent => ({ type: "session_update", sessionId: "demo-1", update: u });
    const store = storeWith([
      prompt("/subagent"),
      update({ kind: "tool_call", toolCallId: "t1", opened: false, fields: { title: "Ask a subagent" }, sessions: ["child"] }),
      update({ kind: "subagent", sessionId: "child", title: "Reader", state: { state: "running", busy: true, stopReason: null, background: null } }),
      update({ kind: "session_message", messageId: "m1", senderSessionId: "demo-1", recipientSessionId: "child", op: "replace", content: [{ type: "text", text: "Read notes.txt" }] }),
      // A chunk before the upsert that says who sent it: held apart, then in the thread.
      update({ kind: "session_message", messageId: "m2", op: "append", content: { type: "text", text: "It says hi" } }),
      update({ kind: "session_message", messageId: "m2", senderSessionId: "child", recipientSessionId: "demo-1", op: "keep" }),
    ]);
    const { container } = render(Transcript, { props: { store, backend: new FakeBackend() } });
    flushSync();
    const thread = container.querySelector("section.tool .subagent")!;
    expect(thread, "inside the tool call's card").not.toBeNull();
    // No row of its own besides.
    expect(container.querySelectorAll(".subagent").length).toBe(1);
    const head = thread.querySelector("button.subagent-head") as HTMLButtonElement;
    expect(head.textContent).toContain("Reader");
    expect(head.textContent).toContain("Working…");
    expect(head.getAttribute("aria-expanded")).toBe("true");
    expect(thread.textContent).toContain("Read notes.txt");
    expect(thread.textContent).toContain("It says hi");
    // A button: Enter and Space toggle it (the browser's own), and its state is announced.
    head.focus();
    head.click();
    flushSync();
    expect(head.getAttribute("aria-expanded")).toBe("false");
    expect(thread.textContent).not.toContain("Read notes.txt");
    head.click();
    flushSync();
    expect(thread.textContent).toContain("Read notes.txt");
  });

  it("shows the new session's rows after a restarted agent reuses the session id", () => {
    const store = storeWith([prompt("first question"), reply("first answer")]);
    const { container } = render(Transcript, { props: { store, backend: new FakeBackend() } });
    flushSync();
    expect(container.querySelectorAll(".vrow").length).toBe(2);

    // The agent stops: its session leaves the snapshot, the transcript stays on screen.
    store.apply([{ type: "connection", snapshot: snapshotWith({ sessions: [] }) }]);
    flushSync();
    expect(container.textContent).toContain("first answer");

    // Restarted, it opens a session with the same id: a new, empty transcript, in a batch of
    // its own (the old rows are taken down while no transcript is shown).
    store.apply([{ type: "connection", snapshot: snapshotWith() }]);
    flushSync();
    expect(container.querySelectorAll(".vrow").length).toBe(0);

    store.apply([prompt("second question"), reply("second answer")]);
    flushSync();
    expect(container.querySelectorAll(".vrow").length).toBe(2);
    expect(container.textContent).toContain("second answer");
    expect(container.textContent).not.toContain("first answer");
  });

  it("says an agent's notice's severity in a word before its text", () => {
    const notice: UiEvent = { type: "session_update", sessionId: "demo-1", update: { kind: "notice", severity: "warning", title: "Quota", description: "80% used" } };
    const store = storeWith([notice]);
    const { container } = render(Transcript, { props: { store, backend: new FakeBackend() } });
    flushSync();
    const row = container.querySelector(".notice.notice-warning")!;
    expect(row.textContent).toBe("Warning: Quota: 80% used");
    expect(row.querySelector(".severity")!.textContent).toBe("Warning:");
  });

  it("shows an update of a kind Porthole does not know by its name, with what it carried", () => {
    const raw = { sessionUpdate: "_vendor_progress\u202e", percent: 40 };
    const store = storeWith([
      prompt("go"),
      { type: "session_update", sessionId: "demo-1", update: { kind: "unknown", sessionUpdate: raw.sessionUpdate, update: raw } },
    ]);
    const { container } = render(Transcript, { props: { store, backend: new FakeBackend() } });
    flushSync();
    const row = container.querySelector(".unknown-update")!;
    // Its name as the agent wrote it, hidden characters shown.
    expect(row.querySelector("summary")!.textContent).toBe("An update Porthole does not know: _vendor_progress⟨U+202E⟩");
    expect(row.querySelector("pre")!.textContent).toContain('"percent": 40');
  });
});
