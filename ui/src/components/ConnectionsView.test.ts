import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import ConnectionsView from "./ConnectionsView.svelte";
import App from "../App.svelte";
import { MockBackend } from "../lib/mock";
import { AppStore } from "../lib/store.svelte";
import type { McpConnectionList } from "../lib/protocol";

async function boot(view = ConnectionsView) {
  const backend = new MockBackend({ chunkDelay: 0 });
  const store = new AppStore();
  backend.onEvents((e) => store.enqueue(e));
  store.init(await backend.invoke("app_state"));
  render(view, { props: { backend, store } });
  return { backend, store };
}

const row = async (name: string) => {
  await waitFor(() => expect(document.querySelector(`[data-connection="${name}"]`)).toBeTruthy());
  return document.querySelector(`[data-connection="${name}"]`) as HTMLElement;
};

describe("the Connections view", () => {
  it("is reached from the sidebar", async () => {
    const { store } = await boot(App);
    await fireEvent.click(screen.getByRole("button", { name: "MCP connections" }));
    expect(store.view).toBe("connections");
    expect(await screen.findByRole("heading", { level: 1, name: "MCP connections" })).toBeTruthy();
    await row("github");
  });

  it("lists each connection with where it points, its agents, sign-in and sessions", async () => {
    await boot();
    const github = await row("github");
    expect(github.textContent).toContain("https://api.githubcopilot.com/mcp/");
    expect(github.textContent).toContain("Every agent");
    expect(github.textContent).toContain("Signed in (scopes: repo, read:org), the token is good until");
    expect(within(github).getByRole("button", { name: "Sign out" })).toBeTruthy();

    const files = await row("files");
    expect(files.textContent).toContain("npx -y @modelcontextprotocol/server-filesystem /home/user/notes");
    expect(files.textContent).toContain("Nothing to sign in to");
    expect(files.textContent).toContain("TOKEN");
    expect(within(files).queryByRole("button", { name: "Sign out" })).toBeNull();

    const tracker = await row("tracker");
    expect(tracker.textContent).toContain("claude-code, codex");
    expect(tracker.textContent).toContain("The sign-in expired: the server refused the refresh token (invalid_grant).");
    expect(within(tracker).getByRole("button", { name: "Sign in again" })).toBeTruthy();

    const docs = await row("docs");
    expect((within(docs).getByRole("switch", { name: /Hand to agents/ }) as HTMLInputElement).checked).toBe(false);
    expect(docs.textContent).toContain("(HTTP+SSE)");
    expect(within(docs).getByRole("button", { name: "Sign in" })).toBeTruthy();
    expect(within(files).queryByRole("button", { name: "Sign in" })).toBeNull();
    expect(within(github).queryByRole("button", { name: "Sign in" })).toBeNull();
    // No link anywhere: URLs are text.
    expect(document.querySelectorAll("a").length).toBe(0);
  });

  it("names the open sessions that have a connection, and follows them as they close", async () => {
    const { backend, store } = await boot();
    await waitFor(async () => expect((await row("github")).textContent).toContain("Demo Agent: porthole · demo-1"));
    expect((await row("files")).textContent).toContain("Demo Agent: porthole · demo-1");
    expect((await row("docs")).textContent).toContain("None has it now");
    expect((await row("tracker")).textContent).toContain("None has it now");
    // No Reload: the view reads the list again when a session closes.
    await backend.invoke("close_session", { sessionId: "demo-1" });
    await waitFor(() => expect(store.snapshot?.sessions.length).toBe(0));
    await waitFor(async () => expect((await row("github")).textContent).toContain("None has it now"));
  });

  it("fetches a connection's tools on demand, and says why it cannot", async () => {
    const { backend } = await boot();
    const github = await row("github");
    expect(backend.calls.some((c) => c.cmd === "mcp_tools")).toBe(false);
    await fireEvent.click(within(github).getByRole("button", { name: "Show tools" }));
    const tools = await within(github).findByRole("list", { name: "Tools of github" });
    expect(tools.textContent).toContain("search_issues — Search issues and pull requests across repositories.");
    expect(tools.textContent).toContain("get_file_contents");
    await fireEvent.click(within(github).getByRole("button", { name: "Hide tools" }));
    expect(within(github).queryByRole("list", { name: "Tools of github" })).toBeNull();

    const tracker = await row("tracker");
    await fireEvent.click(within(tracker).getByRole("button", { name: "Show tools" }));
    expect((await within(tracker).findByRole("alert")).textContent).toContain("Sign in to `tracker` again");
  });

  it("switches a connection off and on", async () => {
    const { backend } = await boot();
    const github = await row("github");
    await fireEvent.click(within(github).getByRole("switch", { name: /Hand to agents/ }));
    await waitFor(() => expect(backend.calls.at(-1)?.cmd).toBe("mcp_connections"));
    expect(backend.calls).toContainEqual({ cmd: "mcp_set_enabled", args: { name: "github", on: false } });
    await waitFor(async () => expect(within(await row("github")).getByText("Off")).toBeTruthy());
    expect(screen.getByRole("status").textContent).toContain("`github` is off for the sessions opened from now on");
  });

  it("shows a connection's apps or not, and says what that does", async () => {
    const { backend, store } = await boot();
    const github = await row("github");
    const apps = within(github).getByRole("switch", { name: /Show its apps/ }) as HTMLInputElement;
    expect(apps.checked).toBe(true);
    await fireEvent.click(apps);
    expect(backend.calls).toContainEqual({ cmd: "mcp_set_apps", args: { name: "github", on: false } });
    await waitFor(() => expect(store.snapshot?.appSettings.mcpAppsOff).toEqual(["github"]));
    expect(screen.getByRole("status").textContent).toContain("`github`'s apps are not shown");
    await waitFor(async () => expect((within(await row("github")).getByRole("switch", { name: /Show its apps/ }) as HTMLInputElement).checked).toBe(false));
    // A stdio connection has one too: where apps are shown, its server is served by the gateway.
    const files = within(await row("files")).getByRole("switch", { name: /Show its apps/ }) as HTMLInputElement;
    expect(files.checked).toBe(true);
  });

  it("signs out and says what the backend did", async () => {
    const { backend } = await boot();
    await fireEvent.click(within(await row("github")).getByRole("button", { name: "Sign out" }));
    expect(await screen.findByText("Signed out of `github`: the server revoked the tokens and Porthole deleted them.")).toBeTruthy();
    expect(backend.calls).toContainEqual({ cmd: "mcp_sign_out", args: { name: "github" } });
    await waitFor(async () => expect(within(await row("github")).getByRole("button", { name: "Sign in" })).toBeTruthy());
  });

  it("starts a sign-in through the backend, says why it failed, and asks for a client id when the server wants one", async () => {
    const { backend } = await boot();
    await fireEvent.click(within(await row("docs")).getByRole("button", { name: "Sign in" }));
    expect(backend.calls).toContainEqual({ cmd: "mcp_sign_in", args: { name: "docs", clientId: null } });
    expect(await within(await row("docs")).findByText(/cannot sign in to `docs`/)).toBeTruthy();
    expect(within(await row("docs")).queryByLabelText(/Client id/)).toBeNull();

    // A server that registers no clients: a field for the id, sent with the next attempt.
    backend.fail("mcp_sign_in", "cannot sign in to `docs`: https://auth.example offers neither dynamic registration nor client ID metadata documents that Porthole can use; ask its owner for a client id and enter it");
    await fireEvent.click(within(await row("docs")).getByRole("button", { name: "Sign in" }));
    const field = (await within(await row("docs")).findByLabelText(/Client id/)) as HTMLInputElement;
    await fireEvent.input(field, { target: { value: " porthole-desktop " } });
    await fireEvent.click(within(await row("docs")).getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(backend.calls).toContainEqual({ cmd: "mcp_sign_in", args: { name: "docs", clientId: "porthole-desktop" } }));
  });

  it("shows a sign-in that ended in failure under its connection, and reads the list again", async () => {
    const { backend, store } = await boot();
    await row("docs");
    const reads = () => backend.calls.filter((c) => c.cmd === "mcp_connections").length;
    const before = reads();
    store.enqueue([{ type: "mcp_sign_in_ended", dialogId: 999, connection: "docs", error: "the token endpoint refused: invalid_grant" }]);
    expect(await within(await row("docs")).findByText(/The last sign-in did not finish: the token endpoint refused: invalid_grant/)).toBeTruthy();
    await waitFor(() => expect(reads()).toBeGreaterThan(before));
  });

  it("offers every transport Rust has, and sends the one chosen; the list says a connection's", async () => {
    const { backend } = await boot();
    const docs = await row("docs");
    expect(within(docs).getByText(/\(HTTP\+SSE\)/)).toBeTruthy();
    await fireEvent.click(screen.getByRole("button", { name: "Add…" }));
    const form = screen.getByRole("form", { name: "Add a connection" });
    const transport = within(form).getByLabelText("Transport") as HTMLSelectElement;
    expect([...transport.options].map((o) => o.value)).toEqual(["http", "sse"]);
    await fireEvent.input(within(form).getByLabelText("Name"), { target: { value: "legacy" } });
    await fireEvent.input(within(form).getByLabelText("URL"), { target: { value: "http://127.0.0.1:8931/sse" } });
    await fireEvent.change(transport, { target: { value: "sse" } });
    await fireEvent.submit(form);
    expect(backend.calls).toContainEqual({ cmd: "mcp_add", args: { name: "legacy", server: { kind: "remote", url: "http://127.0.0.1:8931/sse", transport: "sse" } } });
  });

  it("adds a remote and a stdio connection from the form, and says what is wrong", async () => {
    const { backend } = await boot();
    await row("github");
    await fireEvent.click(screen.getByRole("button", { name: "Add…" }));
    const form = screen.getByRole("form", { name: "Add a connection" });
    await fireEvent.input(within(form).getByLabelText("Name"), { target: { value: "notes" } });
    await fireEvent.input(within(form).getByLabelText("URL"), { target: { value: "https://mcp.notes.example/mcp" } });
    await fireEvent.submit(form);
    expect(backend.calls).toContainEqual({ cmd: "mcp_add", args: { name: "notes", server: { kind: "remote", url: "https://mcp.notes.example/mcp", transport: "http" } } });
    const notes = await row("notes");
    expect(within(notes).getByRole("button", { name: "Sign in" })).toBeTruthy();

    await fireEvent.click(screen.getByRole("button", { name: "Add…" }));
    const again = screen.getByRole("form", { name: "Add a connection" });
    await fireEvent.input(within(again).getByLabelText("Name"), { target: { value: "github" } });
    await fireEvent.click(within(again).getByLabelText("A program on this computer"));
    await fireEvent.input(within(again).getByLabelText("Command line"), { target: { value: "uvx mcp-server-git" } });
    await fireEvent.submit(again);
    expect(await within(again).findByRole("alert")).toBeTruthy();
    expect(within(again).getByRole("alert").textContent).toContain("already exists");
  });

  it("removes a connection only after confirmation", async () => {
    const { backend } = await boot();
    const files = await row("files");
    await fireEvent.click(within(files).getByRole("button", { name: "Remove…" }));
    expect(backend.calls.some((c) => c.cmd === "mcp_remove")).toBe(false);
    expect(document.activeElement).toBe(within(files).getByRole("button", { name: "Keep" }));
    await fireEvent.click(within(files).getByRole("button", { name: "Keep" }));
    expect(backend.calls.some((c) => c.cmd === "mcp_remove")).toBe(false);
    await fireEvent.click(within(files).getByRole("button", { name: "Remove…" }));
    const confirm = within(files).getByRole("group", { name: "Remove files?" });
    await fireEvent.click(within(confirm).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(document.querySelector('[data-connection="files"]')).toBeNull());
    expect(backend.calls).toContainEqual({ cmd: "mcp_remove", args: { name: "files" } });
    expect(screen.getByText("Removed `files`.")).toBeTruthy();
  });

  it("shows an agent's words as text, and a file it cannot read", async () => {
    const backend = new MockBackend({ chunkDelay: 0 });
    const store = new AppStore();
    store.init(await backend.invoke("app_state"));
    const hostile: McpConnectionList = {
      path: "/home/user/.config/porthole/connections.json",
      problem: null,
      connections: [
        {
          name: "evil", server: { kind: "remote", url: "https://x.example/<img src=x onerror=alert(1)>", transport: "http" }, enabled: true,
          agents: null, secrets: [], signIn: { state: "signedOut" }, sessions: [],
        },
        {
          name: "pat", server: { kind: "remote", url: "https://pat.example/mcp", transport: "http" }, enabled: true,
          agents: ["gone-agent"], secrets: ["header authorization"], signIn: { state: "signedOut" }, sessions: ["not-open-any-more"],
        },
      ],
    };
    const invoke = backend.invoke.bind(backend);
    backend.invoke = (async (cmd: string, ...args: unknown[]) => {
      if (cmd === "mcp_connections") return hostile;
      if (cmd === "mcp_tools") return [{ name: "<b>bold</b>", description: "<script>alert(1)</script> [link](https://evil.example)" }];
      return (invoke as (c: string, ...a: unknown[]) => Promise<unknown>)(cmd, ...args);
    }) as typeof backend.invoke;
    render(ConnectionsView, { props: { backend, store } });
    const evil = await row("evil");
    expect(evil.textContent).toContain("https://x.example/<img src=x onerror=alert(1)>");
    await fireEvent.click(within(evil).getByRole("button", { name: "Show tools" }));
    const tools = await within(evil).findByRole("list", { name: "Tools of evil" });
    expect(tools.textContent).toContain("<b>bold</b>");
    expect(tools.textContent).toContain("<script>alert(1)</script> [link](https://evil.example)");
    expect(document.querySelectorAll("img, script, b, a").length).toBe(0);
    // A header kept in the keyring is the sign-in; an agent or session no longer known shows its id.
    const pat = await row("pat");
    expect(pat.textContent).toContain("Not signed in; Porthole sends the header the keyring keeps.");
    expect(pat.textContent).toContain("header authorization");
    expect(pat.textContent).toContain("gone-agent");
    expect(pat.textContent).toContain("not-open");
  });

  it("says when the connections file cannot be used", async () => {
    const backend = new MockBackend({ chunkDelay: 0 });
    const store = new AppStore();
    store.init(await backend.invoke("app_state"));
    const invoke = backend.invoke.bind(backend);
    backend.invoke = (async (cmd: string, ...args: unknown[]) => {
      if (cmd === "mcp_connections") return { path: "/c.json", problem: "/c.json is not valid JSON", connections: [] };
      return (invoke as (c: string, ...a: unknown[]) => Promise<unknown>)(cmd, ...args);
    }) as typeof backend.invoke;
    render(ConnectionsView, { props: { backend, store } });
    expect((await screen.findByRole("alert")).textContent).toContain("no agent gets any connection: /c.json is not valid JSON");
    expect(screen.getByText(/No MCP connections yet/)).toBeTruthy();
  });
});
