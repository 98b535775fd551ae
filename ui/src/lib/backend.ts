// Backend access: the one place the UI talks to the Rust side.
import type { Commands, UiEvent } from "./protocol";
import type { CommandError } from "./generated/app";

export type CommandName = keyof Commands;
export type CommandArgs<K extends CommandName> = Parameters<Commands[K]>;
export type CommandResult<K extends CommandName> = ReturnType<Commands[K]>;

/** Error values a command may reject with: porthole-app's `AnswerError` (generated). */
export type { CommandError };

export interface Backend {
  invoke<K extends CommandName>(cmd: K, ...args: CommandArgs<K>): Promise<CommandResult<K>>;
  /** Subscribe to event batches; returns an unsubscribe function. */
  onEvents(cb: (events: UiEvent[]) => void): () => void;
}

export function isInvalidError(e: unknown): e is Extract<CommandError, { kind: "invalid" }> {
  return typeof e === "object" && e !== null && (e as { kind?: unknown }).kind === "invalid";
}

/** Human-readable text for any rejection value. */
export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (typeof e === "object" && e !== null) {
    const m = (e as { message?: unknown }).message;
    if (typeof m === "string") return m;
    if (isInvalidError(e)) return "The answer did not pass validation.";
  }
  return String(e);
}

export class TauriBackend implements Backend {
  async invoke<K extends CommandName>(cmd: K, ...args: CommandArgs<K>): Promise<CommandResult<K>> {
    const { invoke } = await import("@tauri-apps/api/core");
    return invoke<CommandResult<K>>(cmd, (args[0] ?? {}) as Record<string, unknown>);
  }

  onEvents(cb: (events: UiEvent[]) => void): () => void {
    let subscribed = true;
    // A channel, not a Tauri event: an event arrives as a script with the batch inline, which the
    // web process parses as JavaScript source; a channel's larger batches arrive as JSON.
    void import("@tauri-apps/api/core")
      .then(({ Channel }) => {
        const channel = new Channel<{ events: UiEvent[] }>((batch) => {
          if (subscribed) cb(batch.events);
        });
        return this.invoke("subscribe_events", { channel });
      })
      .catch((e: unknown) => console.error("subscribe_events failed", e));
    return () => {
      subscribed = false;
    };
  }
}

export function inTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}
