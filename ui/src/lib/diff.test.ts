import { describe, expect, it } from "vitest";
import { lineDiff } from "./diff";

describe("lineDiff", () => {
  it("marks removed and added lines", () => {
    const d = lineDiff("a\nb\nc", "a\nB\nc");
    expect(d).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "B" },
      { op: " ", text: "c" },
    ]);
  });
  it("treats a null old text as a new file", () => {
    expect(lineDiff(null, "x\ny").every((l) => l.op === "+")).toBe(true);
    // The backend sends a new file's diff without oldText at all (seen with Claude Code).
    expect(lineDiff(undefined, "x\ny").map((l) => l.op)).toEqual(["+", "+"]);
  });
  it("collapses long unchanged runs", () => {
    const old = Array.from({ length: 30 }, (_, i) => `l${i}`).join("\n");
    const neu = old.replace("l15", "L15");
    const d = lineDiff(old, neu);
    expect(d.some((l) => l.op === "skip")).toBe(true);
    expect(d.filter((l) => l.op === "-").length).toBe(1);
  });
});

describe("line endings", () => {
  it("a final newline is the end of the last line, not an extra empty line", () => {
    expect(lineDiff(null, "edited\n")).toEqual([{ op: "+", text: "edited" }]);
    expect(lineDiff("a\nb\n", "a\nc\n").filter((l) => l.op !== " ")).toEqual([
      { op: "-", text: "b" },
      { op: "+", text: "c" },
    ]);
  });
});
