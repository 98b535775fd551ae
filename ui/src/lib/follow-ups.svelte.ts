// Follow-ups: prompts typed while the agent works. An agent that takes them itself (its
// `initialize` answer's `_meta` says so: Claude queues them, Codex steers with them) gets them
// at once and they are shown as waiting; for any other agent the window holds them, visibly
// and removably, and sends each when its session is idle.
import { SvelteMap } from "svelte/reactivity";
import type { Attachment, SessionView } from "./protocol";

export type FollowUp = { id: number; text: string; attachments: Attachment[] };

let nextId = 1;

export class FollowUps {
  /** Held by the window, by session, in the order typed. */
  readonly queued = new SvelteMap<string, FollowUp[]>();
  /** Sent while the agent worked; the agent holds them until its turn ends. */
  readonly waiting = new SvelteMap<string, FollowUp[]>();
  /** Sessions a queued follow-up was just sent to, until a snapshot shows them busy with it:
   *  the next one waits for the end of that turn. */
  #dispatched = new Set<string>();
  /** Why the last queued follow-up could not be sent (it is back in its queue). */
  error = $state<string | null>(null);

  queue(sessionId: string, text: string, attachments: Attachment[]) {
    this.queued.set(sessionId, [...(this.queued.get(sessionId) ?? []), { id: nextId++, text, attachments }]);
  }

  remove(sessionId: string, id: number) {
    const left = (this.queued.get(sessionId) ?? []).filter((f) => f.id !== id);
    if (left.length) this.queued.set(sessionId, left);
    else this.queued.delete(sessionId);
  }

  sentWhileWorking(sessionId: string, text: string, attachments: Attachment[]) {
    this.waiting.set(sessionId, [...(this.waiting.get(sessionId) ?? []), { id: nextId++, text, attachments }]);
  }

  /** The sessions' new state: a session that is idle (no turn running, and a v2 agent not
   *  busy) no longer has waiting follow-ups (the agent took them), and its first queued one is
   *  taken out and returned, to be sent. */
  idleNow(sessions: SessionView[]): { sessionId: string; followUp: FollowUp }[] {
    const due = [];
    for (const s of sessions) {
      if (s.turnRunning || s.runState?.busy) {
        this.#dispatched.delete(s.sessionId);
        continue;
      }
      if (this.#dispatched.has(s.sessionId)) continue;
      if (this.waiting.has(s.sessionId)) this.waiting.delete(s.sessionId);
      const [first, ...rest] = this.queued.get(s.sessionId) ?? [];
      if (!first) continue;
      if (rest.length) this.queued.set(s.sessionId, rest);
      else this.queued.delete(s.sessionId);
      this.#dispatched.add(s.sessionId);
      due.push({ sessionId: s.sessionId, followUp: first });
    }
    return due;
  }

  /** A follow-up whose send failed goes back to the head of its queue: nothing is lost. It is
   *  not sent again by itself (no loop of failures): after the next turn, or by the user. */
  putBack(sessionId: string, f: FollowUp) {
    this.queued.set(sessionId, [f, ...(this.queued.get(sessionId) ?? [])]);
  }
}
