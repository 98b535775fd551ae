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
