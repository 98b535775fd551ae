// The mock plays back the app model's recorded replies (generated/replies.json, written by
// porthole-app's recorded_replies test against the demo agent), not values of its own.
import { describe, expect, it } from "vitest";
import { MockBackend } from "./mock";
import { recorded } from "./recorded";

describe("the mock's recorded replies", () => {
  it("the inspector's log is the demo agent's exchange, from the asked position on", async () => {
    const mock = new MockBackend({ chunkDelay: 0 });
    const all = await mock.invoke("protocol_log", { agentId: "demo", since: 0 });
    expect(all.entries.map((e) => e.text)).toEqual(recorded.protocol_log.entries.map((e) => e.text));
    const first = JSON.parse(all.entries[0].text) as { method?: string };
    expect(first.method).toBe("initialize");
    expect(all.entries[0].direction).toBe("outgoing");
    expect(all.stderrTail).toBe(recorded.protocol_log.stderrTail);

    const last = all.entries[all.entries.length - 1].seq;
    const rest = await mock.invoke("protocol_log", { agentId: "demo", since: last });
    expect(rest.entries.map((e) => e.seq)).toEqual([last]);
    mock.dispose();
  });
});
