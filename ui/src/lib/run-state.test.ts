import { describe, expect, it } from "vitest";
import { runStateShown } from "./run-state";
import type { RunState } from "./generated/core";

const rs = (state: string, busy: boolean, stopReason: string | null = null): RunState => ({ state, busy, stopReason, background: null });

describe("runStateShown", () => {
  it("says ACP v2's states: working, waiting for you, idle", () => {
    expect(runStateShown(rs("running", true), true)).toEqual({ text: "Working…", tone: "working" });
    expect(runStateShown(rs("requires_action", true), true)).toEqual({ text: "Waiting for you", tone: "waiting" });
    expect(runStateShown(rs("idle", false, "end_turn"), false)).toEqual({ text: "Idle", tone: "idle" });
    expect(runStateShown(rs("idle", false, "max_tokens"), false).text).toBe("Idle (max tokens)");
  });

  it("an unknown state is busy, never idle, and named as the agent sent it", () => {
    expect(runStateShown(rs("_compacting", true), false)).toEqual({ text: "Working… (_compacting)", tone: "working" });
    // Hidden characters in the agent's name for it are shown, not passed on.
    expect(runStateShown(rs("x\u202Ey", true), false).text).not.toContain("\u202E");
  });

  it("a v1 session (no state) says what Porthole knows: a turn runs or not", () => {
    expect(runStateShown(null, true).tone).toBe("working");
    expect(runStateShown(null, false).tone).toBe("idle");
  });
});
