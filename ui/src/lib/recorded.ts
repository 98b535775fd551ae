// The app model's answers to the window's commands, recorded against the demo agent by
// porthole-app's `recorded_replies` test (generated/replies.json): per command, what it was
// called with, its reply or its error (as the window receives it), and the events that followed.
// The mock plays them back for every command it does not simulate.
import type { CommandArgs, CommandError, CommandName, CommandResult } from "./backend";
import type { UiEvent } from "./protocol";
import replies from "./generated/replies.json";

/** One command's recorded answer. */
export type Recording<K extends CommandName> = {
  args: CommandArgs<K>[0] | null;
  events?: UiEvent[];
} & ({ reply: CommandResult<K> } | { error: CommandError });

/** The commands whose answers were recorded. */
export type RecordedCommand = keyof typeof replies;

/** Each recording as its command answers (the file is the Rust result, serialized); a key that
 *  names no command is `never`, so using it fails the type check. */
export const recorded = replies as unknown as {
  [K in RecordedCommand]: K extends CommandName ? Recording<K> : never;
};

/** A command's recording, when there is one. */
export function recordingOf<K extends CommandName>(cmd: K): Recording<K> | undefined {
  return Object.hasOwn(recorded, cmd) ? (recorded as unknown as Record<CommandName, Recording<K>>)[cmd] : undefined;
}

/** A recording's reply: its result, or its error thrown as the backend rejects. */
export function replyOf<K extends CommandName>(recording: Recording<K>): CommandResult<K> {
  if ("error" in recording) throw recording.error;
  return recording.reply;
}
