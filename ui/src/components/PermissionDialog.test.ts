import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import DialogHost from "./DialogHost.svelte";
import { FakeBackend, feed, flush, storeWith } from "../test/fake";
import type { PermissionRequest } from "../lib/protocol";

const req = (): PermissionRequest => ({
  type: "permission", dialogId: 5, agent: { name: "demo", title: "Demo Agent", version: null }, sessionId: "demo-1",
  toolCall: { toolCallId: "tc-1", title: "Edit a.ts", kind: "edit", content: [{ type: "diff", path: "a.ts", oldText: "x\ny", newText: "x\nz" }] },
  toolKind: "edit",
  options: [
    { optionId: "r1", name: "Reject", kind: "reject_once" },
    { optionId: "a1", name: "Allow", kind: "allow_once" },
    { optionId: "a2", name: "Always allow", kind: "allow_always" },
  ],
  warnings: [],
});

function setup() {
  const backend = new FakeBackend();
  const store = storeWith([req()]);
  render(DialogHost, { props: { backend, store } });
  return { backend, store };
}

describe("permission dialog", () => {
  it("shows tool title, kind, diff and options (allow primary, reject secondary)", () => {
    setup();
    expect(screen.getAllByText("Edit a.ts").length).toBeGreaterThan(0);
    expect(screen.getByText("edit")).toBeTruthy();
    expect(document.querySelector(".dl.del")!.textContent).toContain("y");
    expect(document.querySelector(".dl.add")!.textContent).toContain("z");
    const allow = screen.getByRole("button", { name: /^Allow/ });
    expect(allow.className).toContain("primary");
    expect(screen.getByRole("button", { name: /^Reject/ }).className).toContain("secondary");
    expect(screen.getByRole("button", { name: /Always allow/ }).textContent).toContain("always");
  });

  it("warns about hidden characters and shows them as escapes", () => {
    const backend = new FakeBackend();
    const r = req();
    r.toolCall.title = "Read \u202Etxt.exe";
    r.warnings = ["bidi-control"];
    render(DialogHost, { props: { backend, store: storeWith([r]) } });
    const warnings = screen.getByRole("list", { name: "Warnings" });
    expect(warnings.querySelector("[data-code=bidi-control]")!.textContent).toMatch(/text-direction/);
    expect(screen.getByRole("dialog").className).toContain("tone-danger");
    expect(document.querySelector(".perm-title")!.textContent).toBe("Read ⟨U+202E⟩txt.exe");
  });

  it("an MCP App's tool call names its server, not the agent, and shows the arguments", () => {
    const backend = new FakeBackend();
    const r = req();
    r.mcp = { connection: "basic", host: "127.0.0.1" };
    r.toolCall = { toolCallId: "mcp-app/basic/9", title: "The app of MCP server “basic” wants to call its tool “get-time”", kind: "other", rawInput: { zone: "UTC" } };
    render(DialogHost, { props: { backend, store: storeWith([r]) } });
    expect(document.querySelector(".asker-name")!.textContent).toBe("The MCP server “basic”");
    expect(document.querySelector(".asker-via")!.textContent).toBe("(through Demo Agent's session · 127.0.0.1)");
    expect(document.querySelector(".perm-args")!.textContent).toContain('"zone": "UTC"');
  });

  it("an agent's permission shows no arguments block and names the agent", () => {
    setup();
    expect(document.querySelector(".perm-args")).toBeNull();
    expect(document.querySelector(".asker-name")!.textContent).toBe("Demo Agent");
  });

  it("an option answers with its id", async () => {
    const { backend, store } = setup();
    await fireEvent.click(screen.getByRole("button", { name: /^Allow/ }));
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 5, answer: { type: "permission", optionId: "a1" } }]);
    expect(store.dialogs.length).toBe(0);
  });

  it("Esc answers with null", async () => {
    const { backend } = setup();
    await fireEvent.keyDown(screen.getByRole("dialog"), { key: "Escape" });
    await flush();
    expect(backend.callsOf("answer_dialog")).toEqual([{ dialogId: 5, answer: { type: "permission", optionId: null } }]);
  });

  it("keeps the ids behind Details", () => {
    setup();
    const head = document.querySelector(".dlg-head")!;
    expect(head.querySelector(".dlg-meta")).toBeNull();
    expect(head.querySelector("details .dlg-ids")!.textContent).toBe("Session demo-1 · Tool call tc-1");
  });

  it("dialog_dismissed closes it and says why in the session", async () => {
    const { store } = setup();
    feed(store, [{ type: "dialog_dismissed", dialogId: 5, reason: "turn_cancelled" }]);
    await flush();
    expect(screen.queryByRole("dialog")).toBeNull();
    const notes = store.transcripts.get("demo-1")!.items.flatMap((i) => (i.kind === "notice" ? [i.text] : []));
    expect(notes).toEqual([
      "Withdrawn before you answered: permission for “Edit a.ts” — The turn was cancelled, so this request no longer applies.",
    ]);
  });
});
