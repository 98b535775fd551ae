// What the window says about a session's running state: one rule, read by the prompt box and
// the sidebar. ACP v2 reports it (`state_update`, the session view's `runState`); a v1 session
// has only Porthole's own knowledge that a turn runs.
import type { RunState } from "./generated/core";
import { revealHidden } from "./url";

export type RunStateShown = {
  /** What is said: "Working…", "Waiting for you", "Idle". */
  text: string;
  tone: "working" | "waiting" | "idle";
};

export function runStateShown(runState: RunState | null | undefined, turnRunning: boolean): RunStateShown {
  if (!runState) return turnRunning ? { text: "Working…", tone: "working" } : { text: "Idle", tone: "idle" };
  switch (runState.state) {
    case "running":
      return { text: "Working…", tone: "working" };
    case "requires_action":
      return { text: "Waiting for you", tone: "waiting" };
    case "idle": {
      const why = runState.stopReason;
      return { text: why && why !== "end_turn" ? `Idle (${revealHidden(why).replace(/_/g, " ")})` : "Idle", tone: "idle" };
    }
    default:
      // A state this build does not know counts as busy, never idle (the protocol's rule; core's
      // `busy` says so): shown by its name, as the agent sent it.
      return runState.busy
        ? { text: `Working… (${revealHidden(runState.state)})`, tone: "working" }
        : { text: "Idle", tone: "idle" };
  }
}
