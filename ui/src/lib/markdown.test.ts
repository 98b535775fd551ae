import { describe, expect, it } from "vitest";
import { renderMarkdown, sanitize } from "./markdown";

function dom(html: string) {
  const d = document.createElement("div");
  d.innerHTML = html;
  return d;
}

describe("markdown sanitizer", () => {
  it("renders basic markdown", () => {
    const d = dom(renderMarkdown("# Title\n\n- **a**\n- b\n\n```js\nlet x = 1;\n```"));
    expect(d.querySelector("h1")?.textContent).toBe("Title");
    expect(d.querySelectorAll("li").length).toBe(2);
    expect(d.querySelector("pre code")?.textContent).toContain("let x = 1;");
  });

  it("turns links into plain text with the href in parentheses", () => {
    const d = dom(renderMarkdown("See [the docs](https://example.com/docs) now"));
    expect(d.querySelector("a")).toBeNull();
    const span = d.querySelector("span.link-text");
    expect(span?.textContent).toBe("the docs (https://example.com/docs)");
  });

  it("does not repeat the href when it equals the text (autolinks)", () => {
    const d = dom(renderMarkdown("Visit https://example.com today"));
    expect(d.querySelector("a")).toBeNull();
    expect(d.querySelector(".link-text")?.textContent).toBe("https://example.com");
  });

  it("neuters raw HTML anchors too", () => {
    const d = dom(renderMarkdown('<a href="https://evil.example">click</a>'));
    expect(d.querySelector("a")).toBeNull();
    expect(d.textContent).toContain("click (https://evil.example)");
  });

  it("never lets <script> survive", () => {
    const html = renderMarkdown("hi <script>alert(1)</script> there");
    expect(html.toLowerCase()).not.toContain("<script");
  });

  it("strips event handler attributes like onerror=", () => {
    const html = renderMarkdown('<img src=x onerror="alert(1)"> <div onclick="x()">t</div>');
    expect(html.toLowerCase()).not.toContain("onerror");
    expect(html.toLowerCase()).not.toContain("onclick");
  });

  it("never keeps javascript: URLs", () => {
    const html = renderMarkdown("[x](javascript:alert(1)) <a href=\"javascript:alert(2)\">y</a>");
    expect(html.toLowerCase()).not.toContain("javascript:");
  });

  it("replaces images with [image: alt] text", () => {
    const d = dom(renderMarkdown("![a cat](https://example.com/cat.png) and <img src=\"https://t.example/p.gif\">"));
    expect(d.querySelector("img")).toBeNull();
    expect(d.textContent).toContain("[image: a cat]");
    expect(d.textContent).toContain("[image]");
  });

  it("forbids style attributes and style blocks", () => {
    const html = sanitize('<p style="color:red">x</p><style>body{display:none}</style>');
    expect(html).not.toContain("style");
  });

  it("survives known mutation-XSS and clobbering payloads (and the output parsed again)", () => {
    const payloads = [
      '<svg><p><style><img src=x onerror="alert(1)">',
      '<math><mtext><table><mglyph><style><img src=x onerror="alert(1)">',
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
      '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
      '<a href="javascript&colon;alert(1)">x</a><a href=" JaVaScRiPt:alert(1)">y</a>',
      '<img name="body"><form name="attributes"><input name="nodeName"></form><div id="x" onclick="y()">z</div>',
      '<template><img src=x onerror=alert(1)></template><xmp><img src=x onerror=alert(1)></xmp>',
    ];
    for (const p of payloads) {
      const once = dom(sanitize(p));
      // What the window does with it: parse it again (into the transcript).
      const again = dom(once.innerHTML);
      for (const d of [once, again]) {
        const bad = [...d.querySelectorAll("*")].filter((e) =>
          [...e.attributes].some((a) => /^on/i.test(a.name) || /javascript:/i.test(a.value)),
        );
        expect(bad.map((e) => e.outerHTML), p).toEqual([]);
        expect(d.querySelector("script, img, a, iframe, form, svg, math, style"), p).toBeNull();
      }
    }
  });

  it("removes iframes, forms and svg", () => {
    const html = renderMarkdown('<iframe src="https://x"></iframe><form><input></form><svg><image href="https://x"/></svg>ok');
    expect(html).not.toMatch(/iframe|<form|<input|<svg|<image/i);
    expect(html).toContain("ok");
  });
});
