import { afterEach, describe, expect, it, vi } from "vitest";
import { APP_FRAME_CLASS, APP_GRABBED_KEYBOARD, GRABS_THAT_STOP, WINDOW_INPUT_QUIET_MS, focusVerdict, guardAppFocus } from "./app-focus";

const person = { pointerOverFrame: true, personJustActed: true, msSinceWindowInput: 5000, tabbedFromItsCard: false, recentGrabs: 0 };

describe("who may give an MCP App the keyboard", () => {
  it("a click in the app: the pointer is over it, the person just acted, nothing pressed in the window", () => {
    expect(focusVerdict(person)).toBe("allow");
  });

  it("an app reaching for it with the pointer elsewhere, the person idle: given back", () => {
    expect(focusVerdict({ ...person, pointerOverFrame: false })).toBe("give-back");
    expect(focusVerdict({ ...person, personJustActed: false })).toBe("give-back");
  });

  it("an app reaching for it while the person types or clicks in the window: stopped", () => {
    expect(focusVerdict({ ...person, msSinceWindowInput: WINDOW_INPUT_QUIET_MS - 1 })).toBe("stop");
  });

  it("an app reaching for it again and again: stopped", () => {
    expect(focusVerdict({ ...person, pointerOverFrame: false, recentGrabs: GRABS_THAT_STOP - 1 })).toBe("stop");
  });

  it("Tab from the app's own card hands it over", () => {
    const tab = { pointerOverFrame: false, personJustActed: true, msSinceWindowInput: 10, tabbedFromItsCard: true, recentGrabs: 0 };
    expect(focusVerdict(tab)).toBe("allow");
  });
});

describe("the focus guard", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  function page() {
    document.body.innerHTML = `<textarea id="prompt"></textarea><section class="mcp-app"><button id="larger">Larger</button><iframe class="${APP_FRAME_CLASS}"></iframe></section>`;
    const prompt = document.getElementById("prompt") as HTMLTextAreaElement;
    const frame = document.querySelector("iframe") as HTMLIFrameElement;
    frame.tabIndex = 0;
    return { prompt, frame };
  }

  it("gives the keyboard back to the prompt box and stops an app that takes it while the person types there", () => {
    const release = guardAppFocus();
    const { prompt, frame } = page();
    const grabbed = vi.fn();
    frame.addEventListener(APP_GRABBED_KEYBOARD, grabbed);
    prompt.focus();
    prompt.dispatchEvent(new KeyboardEvent("keydown", { key: "a", bubbles: true }));
    frame.focus();
    expect(document.activeElement).toBe(prompt);
    expect(grabbed).toHaveBeenCalledOnce();
    release();
  });

  it("lets Tab from the app's own card into its frame", () => {
    const release = guardAppFocus();
    const { frame } = page();
    const larger = document.getElementById("larger") as HTMLButtonElement;
    larger.focus();
    larger.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", bubbles: true }));
    frame.focus();
    expect(document.activeElement).toBe(frame);
    release();
  });

  it("stops watching when the last app frame goes", () => {
    const first = guardAppFocus();
    const second = guardAppFocus();
    first();
    first();
    second();
    const { prompt, frame } = page();
    prompt.focus();
    prompt.dispatchEvent(new KeyboardEvent("keydown", { key: "a", bubbles: true }));
    frame.focus();
    expect(document.activeElement).toBe(frame);
  });
});
