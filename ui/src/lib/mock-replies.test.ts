// The mock plays back the app model's recorded answers (generated/replies.json, written by
// porthole-app's recorded_replies test against the demo agent), not values of its own, for every
// command it does not simulate.
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "./generated/commands";
import { MockBackend } from "./mock";
import { recorded, replyOf } from "./recorded";
import type { UiEvent } from "./protocol";

describe("the mock's recorded replies", () => {
  it("answers every command: simulated, or recorded by porthole-app's recorded_replies test", () => {
    const mock = new MockBackend({ chunkDelay: 0 });
    // The mock's events reach the window through `onEvents`, not a channel.
    const answered = new Set<string>([...mock.simulated, ...Object.keys(recorded), "subscribe_events"]);
    const neither = COMMAND_NAMES.filter((cmd) => !answered.has(cmd));
    expect(neither, "record these in crates/porthole-app/tests/recorded_replies.rs (then bless), or simulate them in mock.ts").toEqual([]);
    mock.dispose();
  });

  it("a command it does not simulate answers as the app model did: its reply, or its error", async () => {
    const mock = new MockBackend({ chunkDelay: 0 });
    expect(mock.simulated).not.toContain("fork_session");
    await expect(mock.invoke("fork_session", { sessionId: "demo-1" })).rejects.toEqual({ kind: "error", message: "the agent does not support `session/fork`" });
    expect(mock.simulated).not.toContain("cancel_install");
    expect(await mock.invoke("cancel_install", { registryId: "x" })).toBe(replyOf(recorded.cancel_install));
    mock.dispose();
  });

  it("plays a recording's events after its reply, with its own snapshot in place of the recorded one", async () => {
    const turn = recorded.send_prompt.events as UiEvent[];
    const mock = new MockBackend({ chunkDelay: 0, recordings: { connect_agent: { args: { agentId: "demo" }, reply: undefined, events: turn } } });
    const seen: UiEvent[] = [];
    mock.onEvents((batch) => seen.push(...batch));
    expect(await mock.invoke("connect_agent", { agentId: "demo" })).toBeUndefined();
    expect(seen.map((e) => e.type)).toEqual(turn.map((e) => e.type));
    const texts = (events: UiEvent[]) =>
      events.flatMap((e) =>
        e.type === "session_update" && e.update.kind === "message" && e.update.role === "agent" && e.update.op === "append" && e.update.content.type === "text"
          ? [e.update.content.text]
          : [],
      );
    expect(texts(seen)).toEqual(texts(turn));
    const snapshots = seen.flatMap((e) => (e.type === "connection" ? [e.snapshot] : []));
    expect(snapshots.length).toBeGreaterThan(0);
    const own = (await mock.invoke("app_state")).snapshot;
    for (const s of snapshots) expect(s).toEqual(own);
    mock.dispose();
  });

  it("a recorded prompt turn holds the demo agent's events, in its session, up to the turn's end", () => {
    const events = recorded.send_prompt.events as UiEvent[];
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("user_prompt");
    expect(types).toContain("turn_ended");
    const updates = events.flatMap((e) => (e.type === "session_update" ? [e.update.kind === "message" ? `${e.update.role} message` : e.update.kind] : []));
    expect(updates).toEqual(expect.arrayContaining(["thought message", "plan", "agent message"]));
    expect(events.every((e) => !("sessionId" in e) || e.sessionId === "demo-1")).toBe(true);
  });

  it("the inspector's log is the demo agent's exchange, from the asked position on", async () => {
    const mock = new MockBackend({ chunkDelay: 0 });
    const log = replyOf(recorded.protocol_log);
    const all = await mock.invoke("protocol_log", { agentId: "demo", since: 0 });
    expect(all.entries.map((e) => e.text)).toEqual(log.entries.map((e) => e.text));
    const first = JSON.parse(all.entries[0].text) as { method?: string };
    expect(first.method).toBe("initialize");
    expect(all.entries[0].direction).toBe("outgoing");
    expect(all.stderrTail).toBe(log.stderrTail);

    const last = all.entries[all.entries.length - 1].seq;
    const rest = await mock.invoke("protocol_log", { agentId: "demo", since: last });
    expect(rest.entries.map((e) => e.seq)).toEqual([last]);
    mock.dispose();
  });
});
