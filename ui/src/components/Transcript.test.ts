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
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } as never,
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
});
