import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import DialogHost from "./DialogHost.svelte";
import { FakeBackend, flush, storeWith } from "../test/fake";
import { evilUrl, goodUrl } from "../lib/mock";
import { URL_WARNING_TEXT } from "../lib/url";
import type { UiEvent, UrlElicitation, UrlWarningCode } from "../lib/protocol";

function setup(d: UrlElicitation, sealed = true) {
  const backend = new FakeBackend();
  const store = storeWith([d]);
  store.snapshot!.sealedViewAvailable = sealed;
  render(DialogHost, { props: { backend, store } });
  return { backend, store };
}

describe("URL consent dialog", () => {
  it("shows the full URL untruncated in a box", () => {
    const d = goodUrl(1);
    setup(d);
    expect(document.querySelector(".url-box")!.textContent).toBe(d.url.full);
  });

  it("highlights the registrable domain within the host", () => {
    setup(goodUrl(1));
    const marks = Array.from(document.querySelectorAll(".url-box mark.url-domain"));
    expect(marks.map((m) => m.textContent)).toEqual(["example.com"]);
    expect(document.querySelector(".url-box .url-host")!.textContent).toBe("auth.agent.");
  });

  it("shows host in Unicode and ASCII when they differ", () => {
    const d = evilUrl(1);
    setup(d);
    expect(document.querySelector(".host-unicode")!.textContent).toBe("accounts.gооgle.com");
    expect(document.querySelector(".host-ascii")!.textContent).toBe("accounts.xn--ggle-55da.com");
    expect(screen.getByText(/^Host:/)).toBeTruthy();
    expect(screen.getByText(/^ASCII:/)).toBeTruthy();
    expect(document.querySelector(".url-box mark")!.textContent).toBe("xn--ggle-55da.com");
  });

  it("omits the ASCII line when the host is plain ASCII", () => {
    setup(goodUrl(1));
    expect(screen.queryByText(/^ASCII:/)).toBeNull();
  });

  it("shows every warning code as plain words", () => {
    const d = evilUrl(1);
    const all = Object.keys(URL_WARNING_TEXT) as UrlWarningCode[];
    d.url.warnings = all;
    setup(d);
    for (const code of all) expect(screen.getByText(URL_WARNING_TEXT[code], { exact: false })).toBeTruthy();
  });

  it("highlights the default opener from Settings and says why", () => {
    setup(goodUrl(1));
    expect(screen.getByRole("button", { name: "Open in isolated window" }).classList.contains("primary")).toBe(true);
    expect(screen.getByRole("button", { name: "Open in system browser" }).classList.contains("primary")).toBe(false);
    expect(screen.getByText(/Your default \(Settings\): an isolated window/)).toBeTruthy();
  });

  it("highlights the system browser when the user chose it", () => {
    const backend = new FakeBackend();
    const store = storeWith([goodUrl(1)]);
    store.snapshot!.sealedViewAvailable = true;
    store.snapshot!.appSettings.urlOpener = "system";
    render(DialogHost, { props: { backend, store } });
    expect(screen.getByRole("button", { name: "Open in system browser" }).classList.contains("primary")).toBe(true);
    expect(screen.getByRole("button", { name: "Open in isolated window" }).classList.contains("primary")).toBe(false);
    expect(screen.getByText(/Your default \(Settings\): the system browser/)).toBeTruthy();
  });

  it("contains no <a href> elements", () => {
    setup(evilUrl(1));
    expect(document.querySelectorAll("a[href]").length).toBe(0);
    expect(document.querySelectorAll("a").length).toBe(0);
  });

  it("reveals bidi and invisible characters instead of applying them", () => {
    const d = goodUrl(1);
    d.url.full = "https://auth.agent.example.com/\u202Egnp.exe\u200B";
    setup(d);
    const text = document.querySelector(".url-box")!.textContent!;
    expect(text).toContain("⟨U+202E⟩");
    expect(text).toContain("⟨U+200B⟩");
    expect(text).not.toContain("\u202E");
  });

  it("accept + open in isolated window, then waiting, then completed", async () => {
    const { backend, store } = setup(goodUrl(1));
    await fireEvent.click(screen.getByRole("button", { name: "Open in isolated window" }));
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "accept" } }]);
    expect(backend.callsOf("open_url")).toEqual([{ dialogId: 1, target: "sealed" }]);
    expect(screen.getByText(/Waiting for Demo Agent to confirm…/)).toBeTruthy();
    await fireEvent.click(screen.getByRole("button", { name: "Reopen" }));
    await flush();
    expect(backend.callsOf("open_url").length).toBe(2);
    store.apply([{ type: "url_view", dialogId: 1, state: "navigation_blocked", detail: "https://other.example/" }]);
    await flush();
    expect(screen.getByText("Navigation blocked: https://other.example/")).toBeTruthy();
    store.apply([{ type: "elicitation_complete", elicitationId: "github-oauth-1", known: true, dialogId: 1 }]);
    await flush();
    expect(screen.getAllByText(/Completed/).length).toBeGreaterThan(0);
    // Closing the finished dialog also closes its isolated window.
    await fireEvent.click(screen.getByRole("button", { name: "Close window" }));
    expect(backend.callsOf("close_url_view")).toEqual([{ dialogId: 1 }]);
    expect(store.dialogs.length).toBe(0);
  });

  it("system browser button accepts and opens with target system", async () => {
    const { backend } = setup(goodUrl(1));
    await fireEvent.click(screen.getByRole("button", { name: "Open in system browser" }));
    await flush();
    expect(backend.callsOf("open_url")).toEqual([{ dialogId: 1, target: "system" }]);
  });

  it("without a sealed view, shows a note and only the system-browser button", () => {
    setup(goodUrl(1), false);
    expect(screen.queryByRole("button", { name: "Open in isolated window" })).toBeNull();
    expect(screen.getByText("The isolated window is not available yet in this build")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Open in system browser" })).toBeTruthy();
  });

  it("nothing is opened before consent; Decline and Esc answer", async () => {
    const { backend } = setup(goodUrl(1));
    expect(backend.callsOf("open_url")).toEqual([]);
    await fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "decline" } }]);
  });

  it("Esc cancels a pending URL request", async () => {
    const { backend } = setup(goodUrl(1));
    await fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 1, answer: { type: "elicitation", action: "cancel" } }]);
  });
});

describe("a question an MCP server asked through Porthole's gateway", () => {
  it("names the server, the agent whose session it came through, and the server's host", () => {
    const d = goodUrl(1);
    d.mcp = { connection: "github", host: "api.githubcopilot.com" };
    setup(d);
    expect(document.querySelector(".asker-name")!.textContent).toBe("The MCP server “github”");
    expect(document.querySelector(".asker-via")!.textContent).toBe("(through Demo Agent's session · api.githubcopilot.com)");
  });

  it("is said only when core set it: an agent naming itself a server is still the agent", () => {
    const d = goodUrl(1);
    d.agent = { name: "x", title: "The MCP server “github”", version: null };
    setup(d);
    expect(document.querySelector(".asker-via")).toBeNull();
  });

  it("names the tool call it came with, by the title the agent gave it", () => {
    const d = goodUrl(1);
    d.mcp = { connection: "pay", host: "localhost" };
    d.scope = { kind: "session", sessionId: "demo-1", toolCallId: "call-7" };
    const backend = new FakeBackend();
    const toolCall: UiEvent = {
      type: "session_update",
      sessionId: "demo-1",
      update: { kind: "tool_call", toolCallId: "call-7", opened: true, fields: { title: "pay: third-party-auth" } },
    };
    const store = storeWith([toolCall, d]);
    render(DialogHost, { props: { backend, store } });
    expect(document.querySelector(".dlg-meta")!.textContent).toBe("During the tool call “pay: third-party-auth”");
  });

  it("says nothing of a tool call the window does not know", () => {
    const d = goodUrl(1);
    d.scope = { kind: "session", sessionId: "demo-1", toolCallId: "unknown" };
    setup(d);
    expect(document.querySelector(".dlg-meta")).toBeNull();
  });

  it("shows a stdio server as running on this computer", () => {
    const d = goodUrl(1);
    d.mcp = { connection: "local", host: null };
    setup(d);
    expect(document.querySelector(".asker-via")!.textContent).toBe("(through Demo Agent's session · runs on this computer)");
  });
});
