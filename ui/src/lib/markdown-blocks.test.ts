import { describe, expect, it } from "vitest";
import { MarkdownBlocks } from "./markdown-blocks.svelte";
import { newLexer, renderMarkdown } from "./markdown";
import { seededRandom } from "../test/random";

/** Streams `src` in chunks of `size` (syncing after each), like batches arriving per frame. */
function stream(src: string, size: number): MarkdownBlocks {
  const md = new MarkdownBlocks();
  for (let i = 0; i < src.length; i += size) {
    md.append(src.slice(i, i + size));
    md.sync();
  }
  return md;
}

/** What the window shows: every sealed block, then the tail. */
function shown(md: MarkdownBlocks): string {
  return md.sealed.map((_, i) => md.blockHtml(i)).join("") + md.tailHtml();
}

const normalize = (html: string) => html.replace(/>\s+</g, "><").trim();
/** Also the line ends next to a tag in text (raw HTML kept as text), and those at the start of
 *  a <pre> (the HTML parser drops one each time the markup is parsed: markup that went through
 *  DOMPurify twice has one fewer): no difference on screen. */
const normalizeSpace = (html: string) => normalize(html.replace(/\s*\n\s*/g, "\n").replace(/<pre>\n+/g, "<pre>"));

/** `min` to `min + spread - 1` lines picked from `lines`. */
function randomDoc(lines: string[], rand: (n: number) => number, min: number, spread: number): string {
  return Array.from({ length: min + rand(spread) }, () => lines[rand(lines.length)]).join("\n");
}

const DOCS = [
  "# Title\n\nSome *emphasis* and `code`.\n\n- a\n- b\n\n1. one\n2. two\n\n> quoted\n> more\n\n```js\nlet x = 1;\n\nlet y = 2;\n```\n\nEnd.",
  "Setext heading\n==============\n\nAnother\n---\n\npara\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nafter the table",
  "- loose\n\n- list\n\n  continued item\n\nparagraph\n\n    indented code\n\n~~~\nfenced with tildes\n~~~\n",
  "See [the docs](https://example.com/docs) and [ref][r].\n\n[r]: https://example.com/ref\n\nUse [ref][r] again.\n\n![img](https://x/y.png)",
  "line one\r\nline two\r\n\r\nnext paragraph\rwith a lone CR\n\n* * *\n\n<details>\n<summary>raw html</summary>\n\ninside\n\n</details>\n\ntrailing",
];

describe("MarkdownBlocks: streamed markdown split into blocks", () => {
  it("keeps every character, in order, across every chunk size", () => {
    for (const doc of DOCS) {
      const want = doc.replace(/\r\n?/g, "\n");
      for (const size of [1, 2, 3, 7, 64, doc.length]) {
        const md = stream(doc, size);
        // Sealed blocks drop only the blank lines between blocks.
        const kept = [...md.sealed, md.tail].join("\n");
        expect(kept.replace(/\n+/g, "\n")).toBe(want.replace(/\n+/g, "\n"));
        // Nothing is dropped: the blocks are the message (its only copy in the window).
        expect(md.source()).toBe(want);
        expect(md.head(10)).toBe(want.slice(0, 10));
        md.append("\r");
        expect(md.source()).toBe(want + "\n");
      }
    }
  });

  it("renders what the whole message renders, however it was cut", () => {
    // Raw HTML spanning blocks is sanitized block by block (tested below); the rest is equal.
    for (const doc of DOCS.slice(0, 3)) {
      const whole = normalize(renderMarkdown(doc));
      for (let size = 1; size <= 13; size++) expect(normalize(shown(stream(doc, size)))).toBe(whole);
    }
  });

  it("cuts random markdown only where the whole message would render the same", () => {
    // Lines that open, continue or close every kind of block, including the ones that run
    // across blank lines (fenced code, <pre>, <textarea> and comments) and the ones that must not be cut
    // from what came before (list items, indented continuations, lazy lines).
    const LINES = [
      "", "", "", "plain words here", "more *plain* text", "- item", "* star item", "1. first", "2) second",
      "  indented continuation", "    indented code", "> quoted", "lazy line", "```", "```js", "~~~", "# heading",
      "Heading underline", "===", "---", "***", "| a | b |", "|---|---|", "text with | pipe",
      // Raw HTML left open spans blocks, which are sanitized one by one (tested below): balanced here.
      "<pre>\n\nin pre\n\n  more\n</pre>", "<textarea>\n\n# not a heading\n</textarea>",
      "<div>\n# in a div\n```\n</div>",
      "<!--", "-->", "[r]: https://example.com/r", "see [r] and [t]", "[t]: https://example.com/t 'T'",
      "   - nested", "\t- tab item", "10. tenth", "+ plus",
    ];
    const rand = seededRandom(7);
    for (let doc = 0; doc < 200; doc++) {
      const src = randomDoc(LINES, rand, 8, 40);
      const whole = normalizeSpace(renderMarkdown(src));
      const size = 1 + rand(40);
      expect(normalizeSpace(shown(stream(src, size))), `chunks of ${size}: ${JSON.stringify(src)}`).toBe(whole);
    }
  }, 30000);

  it("cuts only where marked's lexer starts a top-level block, raw HTML included", () => {
    // Rendering cannot be the oracle here: raw HTML left open would wrap later blocks in the
    // whole message, and is sanitized block by block by design. marked's own tokens can.
    const LINES = [
      "", "", "", "text", "more text", "- item", "1. first", "  indented", "    code", "> quote", "# heading",
      "```", "~~~", "---", "| a | b |", "|---|---|", "<div>", "</div>", "<details>", "<summary>s</summary>",
      "</details>", "<custom-tag>", "<span>inline</span> text", '<p class="x">', "<!-- note -->", "<!--", "-->",
      "<pre>", "</pre>", "<br/>", "</span>", "text <b>bold</b>", "[r]: https://example.com/r",
    ];
    const rand = seededRandom(3);
    for (let doc = 0; doc < 300; doc++) {
      const src = randomDoc(LINES, rand, 6, 30);
      const starts = new Set<number>([0]);
      let at = 0;
      for (const t of newLexer().lex(src)) starts.add((at += t.raw.length));
      if (at !== src.length) continue; // marked's tokens must cover the text to be an oracle
      const size = 1 + rand(30);
      const md = stream(src, size);
      let cut = 0;
      for (const block of md.sealed) {
        cut += block.length;
        expect(starts.has(cut), `a cut at ${cut} (chunks of ${size}): ${JSON.stringify(src)} ${JSON.stringify(md.sealed)}`).toBe(true);
      }
    }
  });

  it("resolves reference links defined earlier, and later ones once they arrive", () => {
    const md = stream(DOCS[3], 5);
    const html = shown(md);
    const d = document.createElement("div");
    d.innerHTML = html;
    expect(d.querySelector("a")).toBeNull();
    expect(d.textContent).toContain("ref (https://example.com/ref)");
    expect(d.textContent).toContain("the docs (https://example.com/docs)");
    expect(d.textContent).not.toContain("[ref][r]");
    expect(d.querySelector("img")).toBeNull();
  });

  it("seals a block only when a later one started: the open tail is the last block", () => {
    const md = new MarkdownBlocks();
    md.append("first paragraph\n");
    md.sync();
    expect(md.sealed).toEqual([]);
    md.append("===\n"); // a setext heading: the paragraph was still open
    md.sync();
    expect(md.sealed).toEqual([]);
    md.append("\nsecond");
    md.sync();
    expect(md.sealed.map((b) => b.trim())).toEqual(["first paragraph\n==="]);
    expect(md.tail).toBe("second");
    expect(md.blockHtml(0)).toContain("<h1>first paragraph</h1>");
  });

  it("sanitizes every block on its own: raw HTML cannot wrap later blocks or run", () => {
    const md = stream('<div onclick="x()">\n\n**inside**\n\n</div>\n\n<script>alert(1)</script>\n\n<a href="https://e.example">e</a>\n\nok', 4);
    const html = shown(md);
    expect(html).not.toMatch(/onclick|<script|<a /i);
    const d = document.createElement("section");
    d.innerHTML = html;
    expect(d.querySelector("div strong")).toBeNull(); // not wrapped by the raw <div>
    expect(d.textContent).toContain("e (https://e.example)");
  });

  it("looks at each character a bounded number of times: work follows the open block, not the message", () => {
    const paragraph = (i: number) => `Paragraph ${i} has a few words in it, like any other paragraph does.\n\n`;
    const src = Array.from({ length: 2000 }, (_, i) => paragraph(i)).join("");
    const md = stream(src, 9);
    expect(md.sealed.length).toBe(1999);
    // Re-scanning the whole message per chunk would be ~src.length^2 / 18 (~1.6e9 characters here).
    expect(md.scanned).toBeLessThan(src.length * 10);
  });

  it("renders a sealed block once and keeps it", () => {
    const md = stream("one\n\ntwo\n\nthree", 2);
    const first = md.blockHtml(0);
    expect(md.blockHtml(0)).toBe(first);
    md.append("\n\nfour");
    md.sync();
    expect(md.blockHtml(0)).toBe(first);
    expect(md.sealed.length).toBe(3);
  });

  it("groups sealed blocks into segments; only the last one changes", () => {
    const src = Array.from({ length: 200 }, (_, i) => `p${i}\n\n`).join("");
    const md = stream(src, 50);
    expect(md.segmentCount).toBeGreaterThan(1);
    const ranges = Array.from({ length: md.segmentCount }, (_, s) => md.segment(s));
    expect(ranges[0][0]).toBe(0);
    for (let s = 1; s < ranges.length; s++) expect(ranges[s][0]).toBe(ranges[s - 1][1]);
    expect(ranges[ranges.length - 1][1]).toBe(md.sealed.length);
    const before = md.segment(0);
    md.append("more\n\nand more");
    md.sync();
    expect(md.segment(0)).toEqual(before);
  });

  it("puts off work on one huge open block that cannot be cut, and says when to come back", () => {
    const md = new MarkdownBlocks();
    const src = "```\n" + "let x = 1;\n".repeat(10000); // one open code block, 110 KB
    md.append(src);
    let wait = md.sync(0);
    expect(wait).toBeGreaterThan(0);
    expect(md.tail.length).toBeLessThan(src.length); // not all taken in yet
    md.append("more\n");
    expect(md.sync(performance.now())).toBeGreaterThan(0); // too early: nothing done
    let now = performance.now();
    for (let k = 0; k < 100 && wait > 0; k++) {
      now += wait + 1;
      wait = md.sync(now);
    }
    expect(wait).toBe(0);
    expect(md.tail).toBe(src + "more\n");
  });

  it("cuts one huge paragraph into pieces that read as one paragraph", () => {
    // Words that would start other blocks if a piece were lexed on its own.
    const words = Array.from({ length: 6000 }, (_, i) => (i % 7 === 3 ? "- item" : i % 11 === 5 ? "# not" : `w${i}`));
    const src = words.join(" ") + " *end*";
    const md = stream(src, 37);
    expect(md.sealed.length).toBeGreaterThan(3);
    expect(md.tail.length).toBeLessThan(8192 + 1024);
    // Work stays linear: each character is looked at a bounded number of times.
    expect(md.scanned).toBeLessThan(src.length * 10);
    const d = document.createElement("div");
    d.innerHTML = shown(md);
    const ps = [...d.children];
    expect(ps.every((p) => p.tagName === "P")).toBe(true);
    expect(ps[0].className).toBe("goes-on");
    expect(ps.slice(1, -1).every((p) => p.className === "goes-on continues")).toBe(true);
    expect(ps[ps.length - 1].className).toBe("continues");
    expect(d.querySelector("ul, h1")).toBeNull();
    expect(d.querySelector("em")?.textContent).toBe("end");
    // Every word, in order (the cuts fall on spaces).
    expect(ps.map((p) => p.textContent).join(" ").split(/\s+/)).toEqual(`${words.join(" ")} end`.split(" "));
  });

  it("cuts a huge paragraph that arrives at once into pieces of bounded size", () => {
    const para = Array.from({ length: 100000 }, (_, i) => `w${i}`).join(" ");
    const md = stream(para, para.length);
    expect(md.sealed.length).toBeGreaterThanOrEqual(Math.floor((para.length - 9216) / 8192));
    expect(md.tail.length).toBeLessThanOrEqual(9216);
    expect(Math.max(...md.sealed.map((b) => b.length))).toBeLessThanOrEqual(8192);
    expect(md.sealed.join("") + md.tail).toBe(para);
  });

  it("ends a cut paragraph where a line starts another block, and keeps its soft line breaks", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of a long paragraph with words`);
    const src = `${lines.join("\n")}\n# heading\n\`\`\`\ncode | pipe\n\n\`\`\`\nafter`;
    for (const size of [7, 500, src.length]) {
      const md = stream(src, size);
      const d = document.createElement("div");
      d.innerHTML = shown(md);
      // Streamed, the open paragraph is cut; arriving whole, it is sealed whole before the heading.
      expect(d.querySelectorAll("p.goes-on").length > 0).toBe(size < src.length);
      expect(d.querySelector("h1")?.textContent).toBe("heading");
      expect(d.querySelector("pre code")?.textContent).toBe("code | pipe\n\n");
      expect(d.lastElementChild?.outerHTML).toBe("<p>after</p>");
      // Every word of the paragraph, in order (a cut may fall inside a line, on a space).
      const text = [...d.querySelectorAll("p")].slice(0, -1).map((p) => p.textContent).join(" ");
      expect(text.trim().split(/\s+/)).toEqual(lines.join(" ").split(" "));
    }
  });

  it("ends a cut paragraph at a blank line and goes on with ordinary blocks", () => {
    const para = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(" ");
    const md = stream(`${para}\n\n- a\n- b\n\nafter`, 101);
    const d = document.createElement("div");
    d.innerHTML = shown(md);
    const ps = d.querySelectorAll("p.continues");
    expect(ps.length).toBeGreaterThan(0);
    expect(ps[ps.length - 1].textContent?.trim().endsWith("w2999")).toBe(true);
    expect([...d.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["a", "b"]);
    expect(d.lastElementChild?.outerHTML).toBe("<p>after</p>");
  });
});
