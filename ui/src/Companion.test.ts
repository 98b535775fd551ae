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
});
