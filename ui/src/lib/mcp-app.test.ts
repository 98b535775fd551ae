import { describe, expect, it } from "vitest";
import { APP_MAX_PX, APP_MIN_PX, APP_TEXT_MAX, SIZES_PER_SECOND, SizeThrottle, allowAttribute, appMessageText, clampAppHeight, permissionLabels, displayModeAnswer } from "./mcp-app";

describe("an MCP App's frame", () => {
  it("keeps its height within limits, whatever the app says", () => {
    expect(clampAppHeight(10)).toBe(APP_MIN_PX);
    expect(clampAppHeight(1e9)).toBe(APP_MAX_PX);
    expect(clampAppHeight(NaN)).toBe(APP_MIN_PX);
    expect(clampAppHeight(300.4)).toBe(300);
  });

  it("takes a bounded number of size changes a second", () => {
    let now = 0;
    const t = new SizeThrottle(() => now);
    const allowed = Array.from({ length: 100 }, () => t.allow()).filter(Boolean).length;
    expect(allowed).toBe(SIZES_PER_SECOND);
    now = 1500;
    expect(t.allow()).toBe(true);
  });

  it("takes only the text of a message, capped", () => {
    expect(appMessageText([{ type: "text", text: "a" }, { type: "image", data: "x" }, { type: "text", text: "b" }])).toBe("a\nb");
    expect(appMessageText("not content")).toBe("");
    expect(appMessageText([{ type: "text", text: "x".repeat(APP_TEXT_MAX + 10) }]).length).toBe(APP_TEXT_MAX);
  });
});

describe("the devices an app was given", () => {
  it("become its frame's allow attribute, and nothing when none", () => {
    expect(allowAttribute([])).toBe("");
    expect(allowAttribute(["microphone", "clipboardWrite"])).toBe("microphone; clipboard-write");
    expect(permissionLabels(["camera", "geolocation"])).toBe("your camera, your location");
  });
});

describe("an app's display mode", () => {
  it("is the one asked for when offered, else the one it has", () => {
    expect(displayModeAnswer("fullscreen", "inline")).toBe("fullscreen");
    expect(displayModeAnswer("inline", "fullscreen")).toBe("inline");
    // Not offered: picture-in-picture, a mode of a later revision, or junk.
    expect(displayModeAnswer("pip", "inline")).toBe("inline");
    expect(displayModeAnswer("pip", "fullscreen")).toBe("fullscreen");
    expect(displayModeAnswer("theatre", "inline")).toBe("inline");
    expect(displayModeAnswer({ mode: "fullscreen" }, "inline")).toBe("inline");
  });
});
