import { describe, expect, it } from "vitest";
import { HIDDEN_CHARS } from "./generated/hidden-chars";
import cases from "./generated/reveal-cases.json";
import { revealBidi, revealHidden } from "./url";

describe("hidden characters: the window follows core's table", () => {
  it("reveals each golden case exactly as core's neutralize does", () => {
    expect(cases.length).toBeGreaterThan(60);
    for (const { input, shown } of cases) expect(revealHidden(input)).toBe(shown);
  });

  it("reveals tag characters, supplementary variation selectors and C0 controls", () => {
    expect(revealHidden("a\u{E0041}b")).toBe("a⟨U+E0041⟩b");
    expect(revealHidden("a\u{E0101}b")).toBe("a⟨U+E0101⟩b");
    expect(revealHidden("bell\u0007")).toBe("bell⟨U+0007⟩");
    expect(revealHidden("tab\tline\n")).toBe("tab\tline\n");
  });

  it("reveals only text-direction controls in messages", () => {
    const bidi = HIDDEN_CHARS.filter(([, , w]) => w === "bidi-control");
    expect(bidi.length).toBeGreaterThan(0);
    for (const [first] of bidi) {
      const c = String.fromCodePoint(first);
      expect(revealBidi(`x${c}y`)).not.toContain(c);
    }
    expect(revealBidi("👩\u200D💻 \u200B")).toBe("👩\u200D💻 \u200B");
  });
});
