// The "Add from the registry" view over the mock, which answers with what the app model
// answered against the fake MCP Registry (generated/replies.json): the results, an entry's
// details, its form rendered with the elicitation form's field component, nothing saved while
// the validator says no.
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import ConnectionsView from "./ConnectionsView.svelte";
import { MockBackend } from "../lib/mock";
import { AppStore } from "../lib/store.svelte";
import type { McpRegistryForm, McpRegistryResults } from "../lib/protocol";

async function boot() {
  const backend = new MockBackend({ chunkDelay: 0 });
  const store = new AppStore();
  backend.onEvents((e) => store.enqueue(e));
  store.init(await backend.invoke("app_state"));
  render(ConnectionsView, { props: { backend, store } });
  return { backend, store };
}

describe("the MCP Registry view", () => {
  it("lists the registry's servers, opens one and renders its form with a masked secret field", async () => {
    await boot();
    await fireEvent.click(screen.getByRole("button", { name: "Add from the registry…" }));
    const results = await screen.findByRole("list", { name: "MCP Registry results" });
    const brave = await within(results).findByRole("button", { name: /Brave Search/ });
    // Registry text is text: no link is clickable in the view.
    expect(document.querySelector(".registry-view a")).toBeNull();
    await fireEvent.click(brave);
    const entry = await waitFor(() => document.querySelector(".mcp-entry") as HTMLElement);
    await waitFor(() => expect(entry.textContent).toContain("io.modelcontextprotocol.anonymous"));
    expect(entry.textContent).toContain("npx @modelcontextprotocol/server-brave-search@1.0.2");
    expect(within(entry).getByRole("button", { name: "Open the repository…" })).toBeTruthy();
    const key = await waitFor(() => {
      const input = entry.querySelector<HTMLInputElement>("[data-field=BRAVE_API_KEY] input");
      expect(input).toBeTruthy();
      return input!;
    });
    expect(key.type).toBe("password");
    expect((entry.querySelector("input[name=mcp-registry-name]") as HTMLInputElement).value).toBe("brave-search");
    // The recorded check: the key missing, so nothing is shown and Save stays off.
    await waitFor(() => expect(entry.textContent).toContain("Shown when the values are complete."));
    expect((within(entry).getByRole("button", { name: "Save" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("says, while a registry's first reading fills the copy, that search covers what is read so far", async () => {
    const { backend } = await boot();
    const played = backend.invoke.bind(backend);
    // The recorded search, as it answers while the first reading is under way.
    backend.invoke = (async (cmd: string, ...args: unknown[]) => {
      const reply = await (played as (c: string, ...a: unknown[]) => Promise<unknown>)(cmd, ...args);
      if (cmd !== "mcp_registry_search") return reply;
      const r = reply as McpRegistryResults;
      return { ...r, registries: r.registries.map((g) => ({ ...g, filling: true, refreshing: true, updatedSince: null })) };
    }) as typeof backend.invoke;
    await fireEvent.click(screen.getByRole("button", { name: "Add from the registry…" }));
    const line = await screen.findByRole("list", { name: "Registries" });
    await waitFor(() => expect(line.textContent).toContain("reading the registry for the first time"));
    expect(line.textContent).toContain("titles and descriptions of the entries read so far");
  });

  it("shows an MCP bundle's manifest, where it came from, its hash, its folder and whether its runtime is here", async () => {
    const { backend } = await boot();
    const played = backend.invoke.bind(backend);
    const bundle = {
      url: "https://github.com/example/files/releases/download/v2.0.0/files.mcpb",
      sha256: "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce",
      folder: "/home/me/.local/share/porthole/mcp-bundles/io.github.example/files/2.0.0-fe333e598595000a",
      serverType: "node",
      program: "node",
      programFound: false,
      name: "files",
      displayName: "File tools",
      version: "2.0.0",
      author: "Example",
      description: "Reads files.",
      runtimes: ["node >=18"],
    };
    backend.invoke = (async (cmd: string, ...args: unknown[]) => {
      const reply = await (played as (c: string, ...a: unknown[]) => Promise<unknown>)(cmd, ...args);
      return cmd === "mcp_registry_form" ? { ...(reply as McpRegistryForm), bundle } : reply;
    }) as typeof backend.invoke;
    await fireEvent.click(screen.getByRole("button", { name: "Add from the registry…" }));
    const results = await screen.findByRole("list", { name: "MCP Registry results" });
    await fireEvent.click(await within(results).findByRole("button", { name: /Brave Search/ }));
    const shown = await screen.findByLabelText("The MCP bundle");
    expect(shown.textContent).toContain("File tools 2.0.0, by Example: Reads files.");
    expect(shown.textContent).toContain("Runs with node, which is not found on this computer: install it first.");
    expect(shown.textContent).toContain("Needs node >=18.");
    expect(shown.textContent).toContain(`its SHA-256 ${bundle.sha256} is the registry's`);
    expect(shown.textContent).toContain(`Unpacked in ${bundle.folder} when saved.`);
    // Bundle text is text, never markup.
    expect(shown.querySelector("a")).toBeNull();
  });

  it("downloads a bundle only when the person picks it, not when the entry is opened", async () => {
    const { backend } = await boot();
    const played = backend.invoke.bind(backend);
    const asked: string[] = [];
    backend.invoke = (async (cmd: string, ...args: unknown[]) => {
      asked.push(cmd);
      const reply = await (played as (c: string, ...a: unknown[]) => Promise<unknown>)(cmd, ...args);
      if (cmd !== "mcp_registry_search") return reply;
      const r = reply as McpRegistryResults;
      // Brave Search as if its only way were an MCP bundle.
      const entries = r.entries.map((e) =>
        e.title === "Brave Search"
          ? { ...e, ways: [{ choice: { remote: false, index: 0 }, runtime: "mcpb", runtimeFound: true, what: "https://example.com/b.mcpb (SHA-256 fe333e598595…)", transport: null }] }
          : e,
      );
      return { ...r, entries };
    }) as typeof backend.invoke;
    await fireEvent.click(screen.getByRole("button", { name: "Add from the registry…" }));
    const results = await screen.findByRole("list", { name: "MCP Registry results" });
    await fireEvent.click(await within(results).findByRole("button", { name: /Brave Search/ }));
    const entry = await waitFor(() => document.querySelector(".mcp-entry") as HTMLElement);
    await waitFor(() => expect(entry.textContent).toContain("an MCP bundle: downloaded and checked against its SHA-256 when chosen"));
    expect(asked).not.toContain("mcp_registry_form");
    await fireEvent.click(within(entry).getByRole("radio"));
    await waitFor(() => expect(asked).toContain("mcp_registry_form"));
  });
});
