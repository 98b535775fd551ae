import { describe, expect, it } from "vitest";
import { flushSync } from "svelte";
import { render } from "@testing-library/svelte";
import AgentMessage from "./AgentMessage.svelte";
import { COMPACT_MAX, TextItem } from "../lib/store.svelte";

describe("agent message", () => {
  it("follows a short message as it grows, and keeps showing it once it is split into blocks", () => {
    const item = new TextItem("agent", "m", "# Title\n\nfirst [x](https://evil.example/)");
    const { container } = render(AgentMessage, { props: { item } });
    expect(item.markdown).toBeNull();
    expect(container.querySelector("h1")?.textContent).toBe("Title");
    expect(container.querySelectorAll("a").length).toBe(0);
    expect(container.querySelector(".link-text")?.textContent).toContain("(https://evil.example/)");

    item.append(" second");
    flushSync();
    expect(container.querySelector("p")?.textContent).toContain("first x (https://evil.example/) second");

    // Past COMPACT_MAX the blocks take the text over; the row shows it from them.
    const para = "word ".repeat(40).trim();
    item.append(`\n\n${Array.from({ length: Math.ceil(COMPACT_MAX / para.length) + 1 }, () => para).join("\n\n")}`);
    flushSync();
    item.markdown!.sync();
    flushSync();
    expect(item.markdown).not.toBeNull();
    expect(container.querySelector("h1")?.textContent).toBe("Title");
    const paragraphs = container.querySelectorAll("p");
    expect(paragraphs[0].textContent).toContain("second");
    expect(paragraphs.length).toBeGreaterThan(2);
    expect(container.textContent).toContain(para);
  });
});
