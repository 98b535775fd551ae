// Streams the real app model delivered to its window, each recorded by a porthole-app test with
// PORTHOLE_BLESS=1 (`common::golden_stream`), replayed through the store: every event is one the
// store knows, and the window ends up showing what the run did.
// - app-model (tests/app_model.rs): the test agent, a permission answered, a form, noise on
//   stdout, terminals, a withdrawn question, a permission an "always" rule answered, refused
//   requests, a line over the cap, URL consents (one opened in the isolated window), a flood of
//   non-JSON lines, then the app stopping;
// - mcp-sign-in (tests/mcp_sign_in.rs): an MCP connection signed in through Porthole's own URL
//   consent, its token expiring, signed in again, signed out;
// - install-cancel (tests/install_cancel.rs): a registry install whose download stalls, cancelled;
// - mcp-registry (tests/mcp_registry_window.rs): an MCP Registry's copy refreshed in the background.
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppStore, TextItem } from "./store.svelte";
import type { UiEvent } from "./protocol";

const files = import.meta.glob<UiEvent[]>("../test/fixtures/streams/*.json", {
  eager: true,
  import: "default",
});
const streams: Record<string, UiEvent[]> = Object.fromEntries(
  Object.entries(files).map(([path, events]) => [path.replace(/^.*\/(.*)\.json$/, "$1"), events]),
);

type Run = "app-model" | "mcp-sign-in" | "install-cancel" | "mcp-apps" | "mcp-registry";

/** Every kind of event the window receives (keyed by the generated `UiEvent` union, so a new
 *  kind is a type error here) and the recorded run that holds it. */
const RECORDED_IN: Record<UiEvent["type"], Run> = {
  connection: "app-model",
  dialogs: "app-model",
  user_prompt: "app-model",
  session_update: "app-model",
  turn_ended: "app-model",
  agent_exited: "app-model",
  dialog_dismissed: "app-model",
  elicitation_complete: "app-model",
  elicitation_rejected: "app-model",
  install_progress: "install-cancel",
  line_too_long: "app-model",
  mcp_app: "mcp-apps",
  mcp_connection_problem: "mcp-sign-in",
  mcp_sign_in_ended: "mcp-sign-in",
  mcp_registry_refreshed: "mcp-registry",
  permission_auto: "app-model",
  stdout_noise: "app-model",
  stdout_not_shown: "app-model",
  terminal_created: "app-model",
  terminal_exited: "app-model",
  terminal_output: "app-model",
  terminal_released: "app-model",
  malformed_update: "app-model",
  url_view: "app-model",
};

const stream = streams["app-model"];

describe("the app model's recorded streams", () => {
  afterEach(() => vi.restoreAllMocks());

  it("are the runs named here", () => {
    expect(Object.keys(streams).sort()).toEqual([...new Set(Object.values(RECORDED_IN))].sort());
  });

  it("hold every kind of event the window receives, each in the run said", () => {
    for (const [kind, run] of Object.entries(RECORDED_IN)) {
      expect(streams[run].some((e) => e.type === kind), `${kind} in ${run}`).toBe(true);
    }
  });

  it.each(Object.keys(streams))("%s replays through the store without an unknown event", (run) => {
    const logged = vi.spyOn(console, "error");
    const s = new AppStore((cb) => cb());
    for (const e of streams[run]) s.apply([e]);
    expect(logged).not.toHaveBeenCalled();
  });

  it("app-model ends in the session's transcript and dialogs", () => {
    const s = new AppStore((cb) => cb());
    // Delivered in batches of any size: one event at a time here, as the smallest batches.
    for (const e of stream) s.apply([e]);

    const session = stream.find((e) => e.type === "user_prompt")!.sessionId;
    expect(s.activeSessionId).toBe(session);
    const texts = s.items.map((i) => (i instanceof TextItem ? i.text : ""));
    expect(texts[0]).toBe("permission");
    // The agent's report of the answer it got back: the option the user chose.
    expect(texts.some((t) => t.includes('"optionId":"yes"'))).toBe(true);
    expect(texts).toContain("form");
    expect(texts.some((t) => t.startsWith("noise flood done"))).toBe(true);

    // Both dialogs reached the window in the model's list, and both were answered: the list is
    // empty again, and so is the window's.
    const listed = stream.flatMap((e) => (e.type === "dialogs" ? e.dialogs : []));
    expect(new Set(listed.map((d) => d.type))).toEqual(new Set(["permission", "elicitation"]));
    expect(s.dialogs).toEqual([]);
    // The run ends with the app stopping: the agent's exit reached the window.
    expect(s.connected).toBe(false);
  });

  it("app-model's v1 stream gives the rows it gave before Porthole's own model, and the unknown kind's", () => {
    const s = new AppStore((cb) => cb());
    for (const e of stream) s.apply([e]);
    const rows = s.items.map((i) => (i.kind === "message" ? i.role : i.kind === "notice" ? `notice ${i.tone}` : i.kind));
    // Recorded from the window before the change (main 97abfd0, which dropped `_future_kind`),
    // with the row of the unknown kind in its place.
    const errors = (n: number) => Array<string>(n).fill("notice error");
    expect(rows).toEqual([
      "user", "agent", "user", "agent", "user", "unknown", "agent", "user", "tool", "agent", "user", "notice info", "agent",
      "user", "tool", "notice info", "agent", "user", ...errors(10), "agent", "user", "agent", "user", "notice error", "agent",
      "user", "agent",
    ]);
  });

  it.each(Object.keys(streams))("%s ends in the same state whatever the batching", (run) => {
    const one = new AppStore((cb) => cb());
    one.apply(streams[run]);
    const many = new AppStore((cb) => cb());
    for (const e of streams[run]) many.apply([e]);
    const shape = (s: AppStore) => ({
      items: s.items.map((i) => (i instanceof TextItem ? i.text : i.constructor.name)),
      dialogs: s.dialogs.map((d) => [d.dialogId, d.status]),
      session: s.activeSessionId,
      connected: s.connected,
    });
    expect(shape(one)).toEqual(shape(many));
  });
});
