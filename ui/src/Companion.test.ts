import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, within } from "@testing-library/svelte";
import App from "./App.svelte";
import { configureForm } from "./lib/mock";
import { FakeBackend, feed, flush, snapshotWith, storeWith } from "./test/fake";
import type { AppSettings, AppSnapshot } from "./lib/protocol";

/** The app's own demo agent, and Claude driven from acpx through `porthole proxy`. */
function withProxied(patch: Partial<AppSnapshot> = {}, askWhoAnswers: string | null = null) {
  const snap = snapshotWith(patch);
  snap.connections.push({
    ...snap.connections[0],
    agentId: "proxied:claude-code#1",
    agent: { name: "claude-code", title: "Claude Code", version: "0.101.0" },
    proxy: { editor: "acpx", editorVersion: "0.3.0", agentCommand: ["claude-agent-acp"], cwd: "/home/user/web", proxyPid: 4242, askWhoAnswers },
  });
  snap.sessions.push({ ...snap.sessions[0], sessionId: "p-1", agentId: "proxied:claude-code#1", cwd: "/home/user/web" });
  const form = { ...configureForm(7), through: "acpx", agentId: "proxied:claude-code#1" };
  form.scope = { kind: "session", sessionId: "p-1", toolCallId: null };
  const store = storeWith([{ type: "connection", snapshot: snap }, form]);
  const backend = new FakeBackend();
  render(App, { props: { backend, store } });
  return { store, backend };
}

describe("sessions an editor drives through porthole proxy", () => {
  it("are listed apart, with their editor, folder and waiting dialogs", () => {
    withProxied();
    const nav = screen.getByRole("navigation", { name: "Agents and sessions" });
    expect(within(nav).getByText("Through your editor")).toBeTruthy();
    const entry = nav.querySelector('[data-proxied="proxied:claude-code#1"]') as HTMLElement;
    expect(entry.textContent).toContain("Claude Code");
    expect(entry.textContent).toContain("asked through acpx · /home/user/web");
    expect(entry.textContent).toContain("1 waiting for you");
    // Not among the app's own agents.
    expect(nav.querySelector('[data-agent="proxied:claude-code#1"]')).toBeNull();
  });

  it("ask in the same dialog, labelled with the editor", () => {
    withProxied();
    const dlg = screen.getByRole("dialog");
    expect(dlg.textContent).toContain("asked through acpx");
  });

  it("are watched read-only: no prompt box", async () => {
    const { store } = withProxied();
    store.selectSession("p-1");
    await Promise.resolve();
    await fireEvent.keyDown(window, { key: "Escape" });
    expect(screen.getByRole("note").textContent).toContain("Driven from acpx");
    expect(screen.queryByLabelText("Message to the agent")).toBeNull();
  });

  it("ask once per agent: the editor answers this session, and the window asks who should from the next", async () => {
    const settings: AppSettings = { ...snapshotWith().appSettings, editorQuestions: "ask" };
    const { store, backend } = withProxied({ appSettings: settings }, "claude-agent-acp");
    store.selectSession("p-1");
    await flush();
    await fireEvent.keyDown(window, { key: "Escape" });
    expect(screen.getByRole("note").textContent).toContain("acpx answers the agent's questions");
    const ask = screen.getByRole("region", { name: "Who answers this agent's questions" });
    expect(ask.textContent).toContain("acpx can ask you Claude Code's questions itself");
    await fireEvent.click(within(ask).getByRole("button", { name: "Porthole" }));
    const saved = backend.callsOf("save_settings")[0].settings as AppSettings;
    expect(saved.editorQuestionsByAgent).toEqual({ "claude-agent-acp": "porthole" });
    expect(saved.editorQuestions).toBe("ask");
    // The app model saves and sends the new settings: the question becomes what was chosen.
    feed(store, [{ type: "connection", snapshot: { ...store.snapshot!, appSettings: saved } }]);
    await flush();
    const after = screen.getByRole("region", { name: "Who answers this agent's questions" });
    expect(within(after).getByRole("status").textContent).toContain("From Claude Code's next session on, Porthole answers");
    expect(within(after).queryByRole("button")).toBeNull();
  });

  it("no question of who answers unless the person chose to be asked", async () => {
    const { store } = withProxied({}, "claude-agent-acp");
    store.selectSession("p-1");
    await flush();
    expect(screen.queryByRole("region", { name: "Who answers this agent's questions" })).toBeNull();
  });

  it("when the editor leaves, the session ends by name, and the editor's next session shows", async () => {
    const { store } = withProxied();
    store.selectSession("p-1");
    await flush();
    await fireEvent.keyDown(window, { key: "Escape" });
    // acpx left: its connection and session leave the snapshot.
    const demoOnly = { ...store.snapshot! };
    demoOnly.connections = demoOnly.connections.filter((c) => c.proxy === null);
    demoOnly.sessions = demoOnly.sessions.filter((x) => x.sessionId !== "p-1");
    feed(store, [{ type: "connection", snapshot: demoOnly }]);
    await flush();
    const header = screen.getByRole("banner");
    expect(within(header).getByRole("heading").textContent).toBe("Claude Code");
    expect(header.textContent).toContain("through acpx");
    expect(within(header).getByRole("status").textContent).toBe("Ended");
    expect(document.body.textContent).not.toContain("proxied:");
    expect(document.body.textContent).not.toContain("Starting");
    expect(screen.getByRole("note").textContent).toContain("acpx has left: this session ended");
    expect(screen.queryByLabelText("Message to the agent")).toBeNull();

    // The editor's next session, through a new proxy, is shown.
    const next = { ...demoOnly, connections: [...demoOnly.connections], sessions: [...demoOnly.sessions] };
    next.connections.push({
      ...next.connections[0],
      agentId: "proxied:qwen-code#2",
      agent: { name: "qwen-code", title: "Qwen Code", version: "0.24.4" },
      proxy: { editor: "acpx", editorVersion: "0.3.0", agentCommand: ["qwen", "--acp"], cwd: "/home/user/web", proxyPid: 4343, askWhoAnswers: null },
    });
    next.sessions.push({ ...next.sessions[0], sessionId: "q-1", agentId: "proxied:qwen-code#2" });
    feed(store, [{ type: "connection", snapshot: next }]);
    await flush();
    expect(store.activeSessionId).toBe("q-1");
    expect(within(screen.getByRole("banner")).getByRole("heading").textContent).toBe("Qwen Code");
    expect(screen.getByRole("note").textContent).toContain("Driven from acpx");
  });
});
