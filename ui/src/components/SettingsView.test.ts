import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import SettingsView from "./SettingsView.svelte";
import Sidebar from "./Sidebar.svelte";
import { AppStore } from "../lib/store.svelte";
import { FakeBackend, feed, flush, snapshotWith } from "../test/fake";
import type { AppSnapshot } from "../lib/protocol";

function storeOf(patch: Partial<AppSnapshot>): AppStore {
  const s = new AppStore((cb) => cb());
  feed(s, [{ type: "connection", snapshot: snapshotWith(patch) }]);
  return s;
}

describe("logs and the companion socket in the window", () => {
  it("Settings names the log folder and copies its path", async () => {
    const writeText = vi.fn(async (_: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(SettingsView, { props: { backend: new FakeBackend(), store: storeOf({ logDir: "/home/u/.local/state/porthole/logs" }) } });
    expect(document.querySelector(".log-dir")!.textContent).toBe("/home/u/.local/state/porthole/logs");
    await fireEvent.click(screen.getByRole("button", { name: "Copy path" }));
    await flush();
    expect(writeText).toHaveBeenCalledWith("/home/u/.local/state/porthole/logs");
    expect(screen.getByText("Copied.")).toBeTruthy();
  });

  it("Settings says when there is no log file", () => {
    render(SettingsView, { props: { backend: new FakeBackend(), store: storeOf({ logDir: null }) } });
    expect(screen.queryByRole("button", { name: "Copy path" })).toBeNull();
    expect(screen.getByText(/No log file is written/)).toBeTruthy();
  });

  it("a refused companion socket is shown in the sidebar and in Settings, not only logged", () => {
    const why = "Editors cannot reach Porthole through `porthole proxy`: companion socket /run/x/companion.sock: /run/x is not a directory";
    const store = storeOf({ companionError: why });
    render(Sidebar, { props: { backend: new FakeBackend(), store } });
    render(SettingsView, { props: { backend: new FakeBackend(), store } });
    const alerts = screen.getAllByRole("alert").filter((a) => a.textContent === why);
    expect(alerts).toHaveLength(2);
  });

  it("who answers an editor's agent's questions is a setting, saved with the others", async () => {
    const backend = new FakeBackend();
    render(SettingsView, { props: { backend, store: storeOf({}) } });
    await flush();
    const porthole = screen.getByRole("radio", { name: /^Porthole always answers/ }) as HTMLInputElement;
    expect((screen.getByRole("radio", { name: /^Your editor answers/ }) as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(porthole);
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    expect(backend.callsOf("save_settings")[0].settings.editorQuestions).toBe("porthole");
  });

  it("each agent's answer to 'who answers' is listed and can be forgotten", async () => {
    const backend = new FakeBackend();
    const appSettings = { ...snapshotWith().appSettings, editorQuestions: "ask" as const, editorQuestionsByAgent: { "npx claude-agent-acp": "porthole" as const } };
    render(SettingsView, { props: { backend, store: storeOf({ appSettings }) } });
    await flush();
    expect((screen.getByRole("radio", { name: /^Ask me once for each agent/ }) as HTMLInputElement).checked).toBe(true);
    const list = screen.getByRole("list", { name: "Your answers for each agent" });
    expect(list.textContent).toContain("npx claude-agent-acp: Porthole answers");
    await fireEvent.click(screen.getByRole("button", { name: "Forget" }));
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    expect(backend.callsOf("save_settings")[0].settings.editorQuestionsByAgent).toEqual({});
  });

  it("MCP Apps can be switched off, and a tool allowed for a server's apps forgotten", async () => {
    const backend = new FakeBackend();
    const appSettings = { ...snapshotWith().appSettings, mcpAppTools: { basic: ["get-time", "set-zone"] } };
    render(SettingsView, { props: { backend, store: storeOf({ appSettings }) } });
    await flush();
    const list = screen.getByRole("list", { name: "Tools apps may call without asking" });
    expect(list.textContent).toContain("basic may call get-time without asking");
    await fireEvent.click(screen.getAllByRole("button", { name: "Forget" })[0]);
    await fireEvent.click(screen.getByRole("checkbox", { name: /^Show your MCP connections' apps/ }));
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    const saved = backend.callsOf("save_settings")[0].settings;
    expect(saved.mcpApps).toBe(false);
    expect(saved.mcpAppTools).toEqual({ basic: ["set-zone"] });
  });

  it("what an app was allowed to use is listed and can be forgotten", async () => {
    const backend = new FakeBackend();
    const mcpAppPermissions = { basic: { "ui://basic/a.html": ["microphone" as const, "clipboardWrite" as const], "ui://basic/b.html": ["camera" as const] } };
    const appSettings = { ...snapshotWith().appSettings, mcpAppPermissions };
    render(SettingsView, { props: { backend, store: storeOf({ appSettings }) } });
    await flush();
    const list = screen.getByRole("list", { name: "What apps may use" });
    expect(list.textContent).toContain("ui://basic/a.html of basic may use your microphone, writing to your clipboard");
    await fireEvent.click(screen.getAllByRole("button", { name: "Forget" })[0]);
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    expect(backend.callsOf("save_settings")[0].settings.mcpAppPermissions).toEqual({ basic: { "ui://basic/b.html": ["camera"] } });
  });

  it("the MCP Registries are a setting: one address a line, several allowed", async () => {
    const backend = new FakeBackend();
    render(SettingsView, { props: { backend, store: storeOf({}) } });
    await flush();
    const box = screen.getByRole("textbox", { name: /One address a line/ }) as HTMLTextAreaElement;
    expect(box.value).toBe("https://registry.modelcontextprotocol.io");
    await fireEvent.input(box, { target: { value: "https://registry.modelcontextprotocol.io\n  https://mcp.example.org/registry \n\n" } });
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    expect(backend.callsOf("save_settings")[0].settings.mcpRegistries).toEqual([
      "https://registry.modelcontextprotocol.io",
      "https://mcp.example.org/registry",
    ]);
  });
});

describe("each agent's ACP version in Settings", () => {
  it("is Automatic by default, set per agent at once, says it applies at the next start, and offers a restart", async () => {
    const backend = new FakeBackend();
    const store = storeOf({});
    render(SettingsView, { props: { backend, store } });
    await flush();
    const select = screen.getByRole("combobox", { name: "ACP version" }) as HTMLSelectElement;
    expect(select.value).toBe("auto");
    expect(screen.getByText("speaks ACP v1 now")).toBeTruthy();
    expect(screen.getByText("A change applies when the agent next starts.")).toBeTruthy();

    await fireEvent.change(select, { target: { value: "2" } });
    await flush();
    expect(backend.callsOf("set_agent_protocol")).toEqual([{ agentId: "demo", protocol: "2" }]);
    expect(screen.getByRole("status").textContent).toBe("Saved: applies when the agent next starts.");
    // The model's snapshot says what is saved; saving the form later keeps it.
    feed(store, [{ type: "connection", snapshot: snapshotWith({ appSettings: { ...snapshotWith().appSettings, agentProtocols: { demo: "2" } } }) }]);
    await flush();
    expect(select.value).toBe("2");
    await fireEvent.click(screen.getByRole("button", { name: "Save settings" }));
    await flush();
    expect(backend.callsOf("save_settings")[0].settings.agentProtocols).toEqual({ demo: "2" });

    await fireEvent.click(screen.getByRole("button", { name: "Restart it now" }));
    await flush();
    expect(backend.callsOf("restart_agent")).toEqual([{ agentId: "demo" }]);
    expect(screen.getByText("A change applies when the agent next starts.")).toBeTruthy();
  });

  it("shows the model's refusal of a version", async () => {
    const backend = new FakeBackend({
      set_agent_protocol: () => Promise.reject({ kind: "error", message: 'the ACP version must be "auto", "1" or "2", not "3"' }),
    });
    render(SettingsView, { props: { backend, store: storeOf({}) } });
    await flush();
    await fireEvent.change(screen.getByRole("combobox", { name: "ACP version" }), { target: { value: "1" } });
    await flush();
    expect(screen.getByRole("alert").textContent).toContain('must be "auto", "1" or "2"');
    expect(screen.queryByText("Saved: applies when the agent next starts.")).toBeNull();
  });
});
