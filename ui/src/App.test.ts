import { describe, expect, it } from "vitest";
import { tick } from "svelte";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import App from "./App.svelte";
import { MockBackend } from "./lib/mock";
import { AppStore } from "./lib/store.svelte";
import type { AgentCapabilities } from "@agentclientprotocol/sdk/unstable";
import { FakeBackend, snapshotWith, storeWith } from "./test/fake";

async function boot() {
  const backend = new MockBackend({ chunkDelay: 0 });
  const store = new AppStore();
  backend.onEvents((e) => store.enqueue(e));
  store.init(await backend.invoke("app_state"));
  backend.start();
  render(App, { props: { backend, store } });
  return { backend, store };
}

const prompt = () => screen.getByLabelText("Message to the agent") as HTMLTextAreaElement;

describe("main window (with the mock agent)", () => {
  it("shows agent name, version, connection pill and cwd", async () => {
    await boot();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Demo Agent");
    expect(screen.getByText("v0.4.2")).toBeTruthy();
    expect(screen.getByRole("status", { name: /Connection: Connected/ })).toBeTruthy();
    expect(screen.getByText("/home/user/projects/porthole")).toBeTruthy();
  });

  it("Enter sends the prompt and the markdown reply streams in without clickable links", async () => {
    const { backend } = await boot();
    await fireEvent.input(prompt(), { target: { value: "Give me an overview" } });
    await fireEvent.keyDown(prompt(), { key: "Enter" });
    expect(backend.calls.some((c) => c.cmd === "send_prompt")).toBe(true);
    await waitFor(() => expect(document.querySelector(".msg.agent .markdown h2")?.textContent).toBe("Project overview"), { timeout: 3000 });
    await waitFor(() => expect(document.querySelector(".msg.agent .markdown")!.textContent).toContain("Next, try one of the slash commands"), { timeout: 3000 });
    expect(document.querySelector(".msg.user .bubble")!.textContent).toBe("Give me an overview");
    expect(document.querySelectorAll("a").length).toBe(0);
    expect(document.querySelector(".link-text")!.textContent).toContain("(https://agentclientprotocol.com/protocol/overview)");
    expect(document.querySelector("details.thought")!.hasAttribute("open")).toBe(false);
    expect(screen.getByText("Read README.md")).toBeTruthy();
    expect(document.querySelector(".plan")).toBeTruthy();
  });

  it("Shift+Enter does not send", async () => {
    const { backend } = await boot();
    await fireEvent.input(prompt(), { target: { value: "line one" } });
    await fireEvent.keyDown(prompt(), { key: "Enter", shiftKey: true });
    expect(backend.calls.some((c) => c.cmd === "send_prompt")).toBe(false);
  });

  it("typing / opens the command list; arrows + Enter pick a command", async () => {
    await boot();
    await waitFor(() => expect(document.querySelector("#prompt-input")).toBeTruthy());
    await new Promise((r) => setTimeout(r, 120)); // available_commands_update
    await fireEvent.input(prompt(), { target: { value: "/" } });
    const list = await screen.findByRole("listbox");
    expect(list.querySelectorAll("[role=option]").length).toBe(7);
    await fireEvent.keyDown(prompt(), { key: "ArrowDown" });
    await fireEvent.keyDown(prompt(), { key: "Enter" });
    expect(prompt().value).toBe("/connect ");
    expect(screen.queryByRole("listbox")).toBeNull();
  });

  it("an empty conversation offers the agent's commands; a click puts one in the prompt box, unsent", async () => {
    const { backend } = await boot();
    const offer = await screen.findByRole("heading", { name: /What .* offers/ });
    const list = offer.nextElementSibling as HTMLElement;
    await waitFor(() => expect(list.querySelectorAll("button.suggestion").length).toBe(7));
    await fireEvent.click(screen.getByRole("button", { name: /\/configure/ }));
    expect(prompt().value).toBe("/configure ");
    expect(document.activeElement).toBe(prompt());
    expect(backend.calls.some((c) => c.cmd === "send_prompt")).toBe(false);
  });

  it("/configure opens a form dialog and makes the app inert behind it", async () => {
    await boot();
    await fireEvent.input(prompt(), { target: { value: "/configure" } });
    await fireEvent.keyDown(prompt(), { key: "Enter" });
    const dlg = await screen.findByRole("dialog", {}, { timeout: 3000 });
    expect(dlg.textContent).toContain("Release configuration");
    const app = document.querySelector(".app") as HTMLElement & { inert?: boolean };
    expect(app.inert === true || app.hasAttribute("inert")).toBe(true);
  });

  it("disables the prompt when not connected and shows the error panel with stderr + Restart", async () => {
    const backend = new FakeBackend();
    const store = storeWith([]);
    store.apply([{ type: "connection", snapshot: snapshotWith({ sessions: [] }, { state: "exited", error: { message: "Agent crashed.", stderrTail: "panic: boom\nline 2" } }) }]);
    render(App, { props: { backend, store } });
    expect(prompt().disabled).toBe(true);
    expect(screen.getByText("Agent crashed.")).toBeTruthy();
    expect(document.querySelector("pre.stderr")!.textContent).toBe("panic: boom\nline 2");
    await fireEvent.click(screen.getByRole("button", { name: "Restart agent" }));
    expect(backend.callsOf("restart_agent")).toEqual([{ agentId: "demo" }]);
  });

  it("shows a Stop button while a turn runs", async () => {
    const backend = new FakeBackend();
    const running = snapshotWith();
    running.sessions[0].turnRunning = true;
    const store = storeWith([{ type: "user_prompt", sessionId: "demo-1", text: "hi", attachments: [] }, { type: "connection", snapshot: running }]);
    render(App, { props: { backend, store } });
    await fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(backend.callsOf("cancel_turn")).toEqual([{ sessionId: "demo-1" }]);
  });

  it("says ACP v2's running state in the prompt box and the sidebar, and the version beside the agent's name", async () => {
    const snap = snapshotWith({}, { protocolVersion: 2 });
    snap.sessions[0].turnRunning = true;
    snap.sessions[0].runState = { state: "requires_action", busy: true, stopReason: null, background: null };
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    render(App, { props: { backend: new FakeBackend(), store } });
    expect(screen.getByRole("status", { name: "Agent: Waiting for you" })).toBeTruthy();
    expect(document.querySelector(".session-row .run-note")!.textContent).toBe("Waiting for you");
    expect(document.querySelector(".protocol-version")!.textContent).toBe("ACP v2");
    const idle = structuredClone(snap);
    idle.sessions[0].turnRunning = false;
    idle.sessions[0].runState = { state: "idle", busy: false, stopReason: "end_turn", background: null };
    store.apply([{ type: "connection", snapshot: idle }]);
    await tick();
    expect(screen.getByRole("status", { name: "Agent: Idle" })).toBeTruthy();
    expect(document.querySelector(".session-row .busy-dot")).toBeNull();
  });

  it("holds a follow-up typed while the agent works, shows it, lets it go, and sends the next when idle", async () => {
    const backend = new FakeBackend();
    const running = snapshotWith({}, { protocolVersion: 2 });
    running.sessions[0].turnRunning = true;
    running.sessions[0].runState = { state: "running", busy: true, stopReason: null, background: null };
    const store = storeWith([{ type: "connection", snapshot: running }]);
    render(App, { props: { backend, store } });
    for (const text of ["first follow-up", "second follow-up"]) {
      await fireEvent.input(prompt(), { target: { value: text } });
      await fireEvent.keyDown(prompt(), { key: "Enter" });
    }
    expect(backend.callsOf("send_prompt")).toEqual([]);
    expect([...document.querySelectorAll(".follow-up.queued .follow-up-text")].map((e) => e.textContent)).toEqual(["first follow-up", "second follow-up"]);
    await fireEvent.click(screen.getByRole("button", { name: "Remove queued follow-up first follow-up" }));
    expect(document.querySelectorAll(".follow-up.queued").length).toBe(1);
    // Still working (a v2 agent busy after the turn's end): nothing goes.
    const busy = structuredClone(running);
    busy.sessions[0].turnRunning = false;
    store.apply([{ type: "connection", snapshot: busy }]);
    await tick();
    expect(backend.callsOf("send_prompt")).toEqual([]);
    const idle = structuredClone(busy);
    idle.sessions[0].runState = { state: "idle", busy: false, stopReason: "end_turn", background: null };
    store.apply([{ type: "connection", snapshot: idle }]);
    await tick();
    expect(backend.callsOf("send_prompt")).toEqual([{ sessionId: "demo-1", text: "second follow-up", attachments: [] }]);
    expect(document.querySelectorAll(".follow-up").length).toBe(0);
    // Idle again before the sent one shows as running: it is not sent twice.
    store.apply([{ type: "connection", snapshot: structuredClone(idle) }]);
    await tick();
    expect(backend.callsOf("send_prompt").length).toBe(1);
  });

  it("sends a follow-up at once to an agent that takes them itself, shown as waiting until idle", async () => {
    const backend = new FakeBackend();
    const running = snapshotWith({}, { protocolVersion: 2, takesFollowUps: true });
    running.sessions[0].turnRunning = true;
    const store = storeWith([{ type: "connection", snapshot: running }]);
    render(App, { props: { backend, store } });
    await fireEvent.input(prompt(), { target: { value: "also this" } });
    await fireEvent.keyDown(prompt(), { key: "Enter" });
    expect(backend.callsOf("send_prompt")).toEqual([{ sessionId: "demo-1", text: "also this", attachments: [] }]);
    expect(document.querySelector(".follow-up.waiting .follow-up-text")!.textContent).toBe("also this");
    const idle = structuredClone(running);
    idle.sessions[0].turnRunning = false;
    store.apply([{ type: "connection", snapshot: idle }]);
    await tick();
    expect(document.querySelector(".follow-up.waiting")).toBeNull();
  });

  it("lists v2 background work with its kind and title, and cancels what the protocol lets a client stop", async () => {
    const backend = new FakeBackend();
    const snap = snapshotWith({}, { protocolVersion: 2 });
    snap.sessions[0].runState = { state: "idle", busy: false, stopReason: "end_turn",
      background: [{ type: "tool_call", toolCallId: "bg-1" }, { type: "terminal", terminalId: "t9" }, { type: "_indexing" }] };
    const store = storeWith([
      { type: "session_update", sessionId: "demo-1", update: { kind: "tool_call", toolCallId: "bg-1", opened: false, fields: { title: "Watch the build", status: "in_progress" } } },
      { type: "session_update", sessionId: "demo-1", update: { kind: "terminal", terminalId: "t9", command: "npm run dev", cwd: null, output: null, exitStatus: null } },
      { type: "connection", snapshot: snap },
    ]);
    render(App, { props: { backend, store } });
    const rows = [...document.querySelectorAll(".background-work .bg-item")].map((li) => li.textContent!.replace(/\s+/g, " ").trim());
    expect(rows).toEqual(["tool call Watch the build Cancel", "terminal npm run dev Cancel", "_indexing work the agent did not describe"]);
    await fireEvent.click(screen.getByRole("button", { name: "Cancel Watch the build" }));
    await fireEvent.click(screen.getByRole("button", { name: "Cancel npm run dev" }));
    expect(backend.callsOf("cancel_background")).toEqual([
      { sessionId: "demo-1", kind: "tool_call", id: "bg-1" },
      { sessionId: "demo-1", kind: "terminal", id: "t9" },
    ]);
  });

  it("shows a v2 agent's own terminal inside the tool call that names it, else as a row", () => {
    const term = (terminalId: string, rest: object) => ({ type: "session_update" as const, sessionId: "demo-1",
      update: { kind: "terminal" as const, terminalId, command: null, cwd: null, output: null, exitStatus: null, ...rest } });
    const store = storeWith([
      term("t1", { command: "npm test", cwd: "/w" }),
      { type: "session_update", sessionId: "demo-1", update: { kind: "tool_call", toolCallId: "call", opened: false, fields: { title: "Run tests", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: "t1" }] } } },
      term("t1", { output: { op: "append", text: "\u001b[32mpass 1\u001b[0m\n" } }),
      term("t1", { output: { op: "append", text: "pass 2\n" }, exitStatus: { exitCode: 0, signal: null } }),
      term("t2", { command: "sleep 9", output: { op: "replace", text: "zz" } }),
      term("t2", { exitStatus: { exitCode: null, signal: "SIGKILL" } }),
    ]);
    render(App, { props: { backend: new FakeBackend(), store } });
    const figures = [...document.querySelectorAll("figure.terminal")];
    expect(figures.map((f) => f.getAttribute("aria-label"))).toEqual(["Terminal npm test", "Terminal sleep 9"]);
    expect(figures[0].closest(".tool")).toBeTruthy();
    expect(figures[0].querySelector(".term-out")!.textContent).toBe("pass 1\npass 2\n");
    expect(figures[0].textContent).toContain("exit 0");
    expect(figures[1].closest(".tool")).toBeNull();
    expect(figures[1].textContent).toContain("killed (SIGKILL)");
  });

  it("renders tool call diffs and the live output of embedded terminals", () => {
    const backend = new FakeBackend();
    const store = storeWith([
      { type: "terminal_created", terminalId: "term-1", sessionId: "demo-1", command: "cargo", args: ["test"], cwd: null },
      { type: "terminal_output", terminalId: "term-1", data: "\u001b[32mrunning 3 tests\u001b[0m\n", truncated: false },
      { type: "terminal_exited", terminalId: "term-1", exitCode: 0, signal: null },
      { type: "session_update", sessionId: "demo-1", update: { kind: "tool_call", toolCallId: "t", opened: true, fields: { title: "Run tests", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: "term-1" }, { type: "diff", path: "b.txt", oldText: "a", newText: "b" }] } } },
    ]);
    render(App, { props: { backend, store } });
    expect(document.querySelector(".term-out")!.textContent).toBe("running 3 tests\n");
    expect(screen.getByText("cargo test")).toBeTruthy();
    expect(screen.getByText("exit 0")).toBeTruthy();
    expect(screen.getByText("Running")).toBeTruthy();
    expect(document.querySelector(".dl.add")!.textContent).toContain("b");
  });
});

describe("header", () => {
  it("shows context usage and cost with a space on each side of the dot", () => {
    const snap = snapshotWith();
    snap.sessions[0].usage = { used: 3000, size: 100000, cost: { amount: 0, currency: "USD" } };
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    render(App, { props: { backend: new FakeBackend(), store } });
    expect(document.querySelector(".usage")!.textContent).toBe("3% of context · 0.00 USD");
  });
});

describe("models and fork (only when the agent offers them)", () => {
  it("the header's model picker lists the offered models and switches with set_model", async () => {
    const snap = snapshotWith();
    snap.sessions[0].models = {
      currentModelId: "small",
      availableModels: [{ modelId: "small", name: "Small" }, { modelId: "large", name: "Large", description: "Slower" }],
    };
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    const backend = new FakeBackend();
    render(App, { props: { backend, store } });
    const picker = screen.getByLabelText("Model") as HTMLSelectElement;
    expect(Array.from(picker.options).map((o) => o.textContent)).toEqual(["Small", "Large"]);
    expect(picker.value).toBe("small");
    await fireEvent.change(picker, { target: { value: "large" } });
    expect(backend.callsOf("set_model")).toEqual([{ sessionId: "demo-1", modelId: "large" }]);
  });

  it("config options win over the older modes and models (no duplicate Mode or Model select)", () => {
    const snap = snapshotWith();
    snap.sessions[0].modes = { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] };
    snap.sessions[0].models = { currentModelId: "a", availableModels: [{ modelId: "a", name: "A" }, { modelId: "b", name: "B" }] };
    snap.sessions[0].configOptions = [
      { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "ask", options: [{ value: "ask", name: "Ask" }] },
      { id: "model", name: "Model", category: "model", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] },
    ];
    render(App, { props: { backend: new FakeBackend(), store: storeWith([{ type: "connection", snapshot: snap }]) } });
    expect(screen.getAllByLabelText("Mode").length).toBe(1);
    expect(screen.getAllByLabelText("Model").length).toBe(1);
  });

  it("no model picker and no fork button when the agent offers neither", () => {
    render(App, { props: { backend: new FakeBackend(), store: storeWith([]) } });
    expect(screen.queryByLabelText("Model")).toBeNull();
    expect(screen.queryByRole("button", { name: /^Fork session/ })).toBeNull();
  });

  it("Fork opens the forked session", async () => {
    const snap = snapshotWith({}, { capabilities: { sessionCapabilities: { fork: {} } } });
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    const forked = { ...snap.sessions[0], sessionId: "demo-fork-1" };
    const backend = new FakeBackend({
      fork_session: () => {
        store.apply([{ type: "connection", snapshot: { ...snap, sessions: [...snap.sessions, forked] } }]);
        return forked;
      },
    });
    render(App, { props: { backend, store } });
    await fireEvent.click(screen.getByRole("button", { name: /^Fork session/ }));
    await waitFor(() => expect(store.activeSessionId).toBe("demo-fork-1"));
    expect(backend.callsOf("fork_session")).toEqual([{ sessionId: "demo-1" }]);
  });
});

describe("v1 session surface: more folders, delete, sign out", () => {
  const caps: AgentCapabilities = { loadSession: true, sessionCapabilities: { list: {}, close: {}, delete: {}, additionalDirectories: {} }, auth: { logout: {} } };

  it("a new session over more than one folder sends additionalDirectories, and the header shows them", async () => {
    const snap = snapshotWith({}, { capabilities: caps });
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    const opened = { ...snap.sessions[0], sessionId: "demo-2", cwd: "/work/app", additionalDirectories: ["/work/lib", "/work/docs"] };
    const backend = new FakeBackend({
      new_session: () => {
        store.apply([{ type: "connection", snapshot: { ...snap, sessions: [...snap.sessions, opened] } }]);
        return opened;
      },
    });
    render(App, { props: { backend, store } });
    await fireEvent.click(screen.getByRole("button", { name: "New session" }));
    await fireEvent.input(screen.getByLabelText("Working directory"), { target: { value: "/work/app" } });
    await fireEvent.input(screen.getByLabelText(/Other folders/), { target: { value: "/work/lib\n\n  /work/docs \n" } });
    await fireEvent.click(screen.getByRole("button", { name: "Open session" }));
    await waitFor(() => expect(store.activeSessionId).toBe("demo-2"));
    expect(backend.callsOf("new_session")).toEqual([{ agentId: "demo", cwd: "/work/app", additionalDirectories: ["/work/lib", "/work/docs"] }]);
    expect(document.querySelector(".header .cwd")!.textContent!.replace(/\s+/g, " ").trim()).toBe("in /work/app + /work/lib + /work/docs");
  });

  it("an agent without additionalDirectories gets no folder field and none are sent", async () => {
    const snap = snapshotWith({}, { capabilities: { ...caps, sessionCapabilities: { ...caps.sessionCapabilities, additionalDirectories: null } } });
    const backend = new FakeBackend({ new_session: () => snap.sessions[0] });
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    await fireEvent.click(screen.getByRole("button", { name: "New session" }));
    expect(screen.queryByLabelText(/Other folders/)).toBeNull();
    await fireEvent.click(screen.getByRole("button", { name: "Open session" }));
    await waitFor(() => expect(backend.callsOf("new_session").length).toBe(1));
    expect(backend.callsOf("new_session")[0]).not.toHaveProperty("additionalDirectories");
  });

  it("deleting a past session asks once more, then sends session/delete and drops the row", async () => {
    const snap = snapshotWith({}, { capabilities: caps });
    const backend = new FakeBackend({
      list_sessions: () => ({ sessions: [{ sessionId: "old-1", cwd: "/w", additionalDirectories: [], title: "First", updatedAt: null }, { sessionId: "old-2", cwd: "/w", additionalDirectories: [], title: "Second", updatedAt: null }], nextCursor: null }),
      delete_session: () => undefined,
    });
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    await fireEvent.click(screen.getByRole("button", { name: "Past sessions" }));
    await fireEvent.click(await screen.findByRole("button", { name: "Delete session First" }));
    expect(backend.callsOf("delete_session")).toEqual([]);
    expect(screen.getByText("Delete for good?")).toBeTruthy();
    await fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(screen.queryByText("First")).toBeNull());
    expect(backend.callsOf("delete_session")).toEqual([{ agentId: "demo", sessionId: "old-1" }]);
    expect(screen.getByText("Second")).toBeTruthy();
  });

  it("Keep leaves the session alone; agents without delete or logout show neither button", async () => {
    const snap = snapshotWith({}, { capabilities: { ...caps, sessionCapabilities: { ...caps.sessionCapabilities, delete: null }, auth: {} } });
    const backend = new FakeBackend({ list_sessions: () => ({ sessions: [{ sessionId: "old-1", cwd: "/w", additionalDirectories: [], title: "First", updatedAt: null }], nextCursor: null }) });
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    await fireEvent.click(screen.getByRole("button", { name: "Past sessions" }));
    await screen.findByText("First");
    expect(screen.queryByRole("button", { name: /^Delete/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Sign out" })).toBeNull();
  });

  it("Sign out sends logout for that agent", async () => {
    const snap = snapshotWith({}, { capabilities: caps });
    const backend = new FakeBackend({ logout: () => undefined });
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    await fireEvent.click(screen.getByRole("button", { name: "Sign out" }));
    await waitFor(() => expect(backend.callsOf("logout")).toEqual([{ agentId: "demo" }]));
  });
});

describe("empty conversation", () => {
  const many = Array.from({ length: 22 }, (_, i) => ({ name: `cmd${i}`, description: `command number ${i}` }));

  it("suggests a few of many commands, shows the rest on request, and / still lists them all", async () => {
    const base = snapshotWith({});
    const snap = { ...base, sessions: [{ ...base.sessions[0], availableCommands: many }] };
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    render(App, { props: { backend: new FakeBackend(), store } });
    const shown = () => document.querySelectorAll(".suggestions .suggestion").length;
    expect(shown()).toBe(6);
    const more = screen.getByRole("button", { name: "Show all 22 commands" });
    expect(more.getAttribute("aria-expanded")).toBe("false");
    await fireEvent.click(more);
    expect(shown()).toBe(22);
    await fireEvent.click(screen.getByRole("button", { name: "Show fewer" }));
    expect(shown()).toBe(6);
    await fireEvent.input(prompt(), { target: { value: "/" } });
    const list = await screen.findByRole("listbox");
    expect(list.querySelectorAll("[role=option]").length).toBe(22);
  });

  it("a handful of commands are all shown, with no button", async () => {
    const base = snapshotWith({});
    const snap = { ...base, sessions: [{ ...base.sessions[0], availableCommands: many.slice(0, 4) }] };
    render(App, { props: { backend: new FakeBackend(), store: storeWith([{ type: "connection", snapshot: snap }]) } });
    expect(document.querySelectorAll(".suggestions .suggestion").length).toBe(4);
    expect(screen.queryByRole("button", { name: /Show all/ })).toBeNull();
  });
});

describe("sign-in", () => {
  it("an env_var method asks for its values in password fields and saves them with save_sign_in, never authenticate", async () => {
    const snap = snapshotWith({ sessions: [] }, {
      needsAuth: true,
      authMethods: [
        { id: "api-key", name: "API key", description: null, kind: "env_var", link: "https://example.com/keys",
          vars: [
            { name: "TEST_API_KEY", label: "Test API key", secret: true, optional: false },
            { name: "TEST_REGION", label: "Region", secret: false, optional: true },
          ] },
        { id: "agent-login", name: "Agent login", description: null, kind: "agent" },
      ],
    });
    const backend = new FakeBackend();
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    const help = document.querySelector(".env-var-help")!;
    expect(help.textContent).toContain("OS keyring");
    expect(help.textContent).toContain("https://example.com/keys");
    const key = document.querySelector<HTMLInputElement>("input[data-var=TEST_API_KEY]")!;
    const region = document.querySelector<HTMLInputElement>("input[data-var=TEST_REGION]")!;
    expect(key.type).toBe("password");
    expect(region.type).toBe("text");
    expect(screen.getByText("(optional)")).toBeTruthy();
    // The link is text, never a link.
    expect(document.querySelectorAll("a").length).toBe(0);
    await fireEvent.input(key, { target: { value: "sk-typed" } });
    await fireEvent.click(screen.getByRole("button", { name: "Save and sign in" }));
    await waitFor(() =>
      expect(backend.callsOf("save_sign_in")).toEqual([{ agentId: "demo", methodId: "api-key", values: { TEST_API_KEY: "sk-typed" } }]),
    );
    expect(backend.callsOf("authenticate")).toEqual([]);
  });

  it("an api_key method asks for the key in a password field, signs in with save_sign_in and opens a session", async () => {
    const snap = snapshotWith({ sessions: [] }, {
      needsAuth: true,
      authMethods: [
        { id: "gemini-api-key", name: "Gemini API key", description: "Use an API key with Gemini Developer API", kind: "api_key",
          vars: [{ name: "api-key", label: "API key", secret: true, optional: false }] },
      ],
    });
    const backend = new FakeBackend({
      new_session: () => ({ sessionId: "demo-2", agentId: "demo", cwd: "/tmp", additionalDirectories: [], title: null, modes: null, models: null,
        configOptions: [], availableCommands: [], turnRunning: false, runState: null, usage: null }),
    });
    render(App, { props: { backend, store: storeWith([{ type: "connection", snapshot: snap }]) } });
    const help = document.querySelector(".env-var-help")!;
    expect(help.textContent).toContain("Sent to the agent to sign in");
    const key = document.querySelector<HTMLInputElement>("input[data-var=api-key]")!;
    expect(key.type).toBe("password");
    // No separate "Sign in" button that would call authenticate without the key.
    expect(screen.queryByRole("button", { name: "Sign in" })).toBeNull();
    await fireEvent.input(key, { target: { value: "sk-typed" } });
    await fireEvent.click(screen.getByRole("button", { name: "Save and sign in" }));
    await waitFor(() => expect(backend.callsOf("new_session").length).toBe(1));
    expect(backend.callsOf("save_sign_in")).toEqual([
      { agentId: "demo", methodId: "gemini-api-key", values: { "api-key": "sk-typed" } },
    ]);
    expect(backend.callsOf("authenticate")).toEqual([]);
    expect(document.querySelector(".signin .completed")?.textContent).toContain("Signed in with Gemini API key");
  });
});

describe("prompt box command completion", () => {
  it("Enter on a fully typed command sends it", async () => {
    const backend = new FakeBackend();
    const snap = snapshotWith();
    snap.sessions[0].availableCommands = [{ name: "edit", description: "e" }, { name: "editor", description: "f" }];
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    render(App, { props: { backend, store } });
    await fireEvent.input(prompt(), { target: { value: "/edit" } });
    expect(screen.getByRole("listbox")).toBeTruthy();
    await fireEvent.keyDown(prompt(), { key: "Enter" });
    expect(backend.callsOf("send_prompt")).toEqual([{ sessionId: "demo-1", text: "/edit", attachments: [] }]);
  });

  it("Tab completes the highlighted command", async () => {
    const backend = new FakeBackend();
    const snap = snapshotWith();
    snap.sessions[0].availableCommands = [{ name: "web", description: "Search the web" }];
    const store = storeWith([{ type: "connection", snapshot: snap }]);
    render(App, { props: { backend, store } });
    await fireEvent.input(prompt(), { target: { value: "/w" } });
    await fireEvent.keyDown(prompt(), { key: "Tab" });
    expect(prompt().value).toBe("/web ");
    expect(backend.callsOf("send_prompt")).toEqual([]);
  });
});
