// Time the window's own code spends applying events and rendering (store.apply, the virtual
// list's scroll and resize handlers, and the Svelte flush each of them causes), for the
// benchmarks: a frame over 50 ms in which this is small was spent elsewhere (style and layout,
// painting, garbage collection). tests/bench-app reads and resets it once per frame through the
// perf hooks.
export const workClock = { ms: 0 };

/** Counts the time from `started` until Svelte has rendered what the caller changed: Svelte
 *  renders in a microtask queued by the changes, so before the one queued here. */
export function clockUntilRendered(started: number) {
  queueMicrotask(() => (workClock.ms += performance.now() - started));
}
