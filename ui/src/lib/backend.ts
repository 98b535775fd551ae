// Backend access: the one place the UI talks to the Rust side.
import type { Commands, UiEvent, Validation } from "./protocol";
import { BATCH_EVENT } from "./protocol";

export type CommandName = keyof Commands;
export type CommandArgs<K extends CommandName> = Parameters<Commands[K]>;
export type CommandResult<K extends CommandName> = ReturnType<Commands[K]>;

/** Error values a command may reject with (serde output of the backend's error enum). */
export type CommandError =
  | { kind: "invalid"; validation: Validation }
  | { kind: "error"; message: string };

export interface Backend {
  invoke<K extends CommandName>(cmd: K, ...args: CommandArgs<K>): Promise<CommandResult<K>>;
  /** Subscribe to event batches; returns an unsubscribe function. */
  onEvents(cb: (events: UiEvent[]) => void): () => void;
}

export function isInvalidError(e: unknown): e is { kind: "invalid"; validation: Validation } {
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
    let unlisten: (() => void) | null = null;
    let cancelled = false;
    void import("@tauri-apps/api/event").then(({ listen }) =>
      listen<{ events: UiEvent[] }>(BATCH_EVENT, (e) => cb(e.payload.events)).then((u) => {
        if (cancelled) u();
        else unlisten = u;
      }),
    );
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }
}

export function inTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}
