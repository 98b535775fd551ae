import { describe, expect, it } from "vitest";
import { matchesSearch, progressText } from "./registry";

const agent = { id: "gemini-cli", name: "Gemini CLI", description: "Google's agent in the terminal" };

describe("registry search", () => {
  it("matches every word anywhere in name, id or description, ignoring case", () => {
    expect(matchesSearch(agent, "")).toBe(true);
    expect(matchesSearch(agent, "gemini")).toBe(true);
    expect(matchesSearch(agent, "GOOGLE terminal")).toBe(true);
    expect(matchesSearch(agent, "cli-gemini")).toBe(false);
    expect(matchesSearch(agent, "gemini codex")).toBe(false);
  });
});

describe("install progress caption", () => {
  it("says what is happening, with sizes when known", () => {
    expect(progressText(undefined)).toBe("Starting…");
    expect(progressText({ phase: "extracting" })).toBe("Unpacking…");
    expect(progressText({ phase: "downloading", done: 1048576, total: 4194304 })).toBe("Downloading 1.0 MiB of 4.0 MiB (25%)");
    expect(progressText({ phase: "downloading", done: 3145728, total: null })).toBe("Downloading 3.0 MiB");
  });
});
