// The app model's replies to the window's commands, recorded against the demo agent by
// porthole-app's `recorded_replies` test (generated/replies.json): the mock plays them back
// instead of building its own.
import type { CommandName, CommandResult } from "./backend";
import replies from "./generated/replies.json";

/** The commands whose replies were recorded. */
export type RecordedCommand = keyof typeof replies;

/** Each reply as its command returns it (the file is the Rust result, serialized); a key that
 *  names no command is `never`, so using it fails the type check. */
export const recorded = replies as unknown as {
  [K in RecordedCommand]: K extends CommandName ? CommandResult<K> : never;
};
