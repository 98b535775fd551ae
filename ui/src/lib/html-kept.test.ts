// The transcript keeps rendered HTML only for the rows shown last (issue 34): these fail when
// every row's HTML is kept for good.
import { describe, expect, it, vi } from "vitest";

vi.mock("./markdown", async (original) => {
  const real = await original<typeof import("./markdown")>();
  return { ...real, renderMarkdown: vi.fn(real.renderMarkdown), renderBlock: vi.fn(real.renderBlock) };
});

const markdown = await import("./markdown");
const { TextItem, HTML_KEPT } = await import("./store.svelte");
const { MarkdownBlocks, BLOCKS_KEPT } = await import("./markdown-blocks.svelte");

describe("rendered HTML kept", () => {
  it("renders a short message again once HTML_KEPT others were shown after it", () => {
    const render = vi.mocked(markdown.renderMarkdown);
    const first = new TextItem("agent", "m0", "first *message*");
    expect(first.html()).toContain("<em>message</em>");
    first.html();
    expect(render).toHaveBeenCalledTimes(1);
    for (let i = 1; i <= HTML_KEPT; i++) new TextItem("agent", `m${i}`, `message ${i}`).html();
    render.mockClear();
    expect(first.html()).toContain("<em>message</em>");
    expect(render).toHaveBeenCalledTimes(1);
  });

  it("renders a sealed block again once BLOCKS_KEPT others were shown after it", () => {
    const render = vi.mocked(markdown.renderBlock);
    const blocksOf = (text: string) => {
      const md = new MarkdownBlocks();
      md.append(text);
      while (md.sync() > 0);
      return md;
    };
    const first = blocksOf("first *block*\n\nsecond\n\n");
    expect(first.sealed.length).toBeGreaterThan(0);
    expect(first.blockHtml(0)).toContain("<em>block</em>");
    first.blockHtml(0);
    expect(render).toHaveBeenCalledTimes(1);
    const other = blocksOf(Array.from({ length: BLOCKS_KEPT + 1 }, (_, i) => `block ${i}`).join("\n\n") + "\n\nend");
    for (let i = 0; i < BLOCKS_KEPT; i++) other.blockHtml(i);
    render.mockClear();
    expect(first.blockHtml(0)).toContain("<em>block</em>");
    expect(render).toHaveBeenCalledTimes(1);
  });
});
