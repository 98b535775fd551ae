// Agent markdown -> sanitized HTML with no clickable links and no remote content.
import { Lexer, Marked, Parser } from "marked";
import DOMPurify from "dompurify";

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Link reference definitions (`[ref]: url`) by normalized label, as marked's lexer keeps them. */
export type LinkDefs = Record<string, { href: string; title: string }>;

/** A lexer with the app's markdown options (a fresh one per use: a lexer keeps state). */
export function newLexer(links?: LinkDefs): Lexer {
  const lexer = new Lexer({ ...marked.defaults });
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer;
}

const FORBID_TAGS = [
  "style", "form", "input", "button", "textarea", "select", "option", "iframe", "frame", "frameset",
  "object", "embed", "video", "audio", "source", "track", "picture", "link", "meta", "base", "template",
];

/**
 * One DOMPurify instance, configured once: a config passed with each call is parsed again on
 * each call (fresh copies of its tag and attribute tables), and a 20 MB message renders
 * thousands of blocks. Measured: the web process's peak during the 1,000,000-chunk message fell
 * from ~410 to ~320 MB. Sanitizing in place was measured too and is worse here (8-19 instead of
 * 2-4 scroll frames over 50 ms in 1,000; 940 instead of ~730 MB after the 100,000-message scroll).
 */
const purify = DOMPurify(window);
purify.setConfig({
  USE_PROFILES: { html: true }, // no SVG / MathML
  FORBID_TAGS,
  FORBID_ATTR: ["style", "srcset", "background", "poster", "formaction", "action", "ping", "target"],
  ALLOW_DATA_ATTR: false,
});

/** An inert document (no browsing context): nothing parsed into it loads or runs. */
let inert: Document | null = null;
function inertDoc(): Document {
  inert ??= document.implementation.createHTMLDocument("");
  return inert;
}

/** Where links and images are neutered (an element of the inert document, reused). */
let box: HTMLElement | null = null;

/**
 * Replace links with plain text (text plus "(href)" when different) and images with
 * "[image: alt]", in `root` (an element of the inert document, so nothing is ever fetched).
 */
function neuter(root: Element) {
  const doc = root.ownerDocument;
  for (const img of Array.from(root.querySelectorAll("img"))) {
    const alt = img.getAttribute("alt")?.trim();
    img.replaceWith(doc.createTextNode(alt ? `[image: ${alt}]` : "[image]"));
  }
  for (const a of Array.from(root.querySelectorAll("a"))) {
    const span = doc.createElement("span");
    span.className = "link-text";
    const text = a.textContent ?? "";
    const href = a.getAttribute("href");
    while (a.firstChild) span.appendChild(a.firstChild);
    if (href && href !== text && href !== `mailto:${text}`) {
      span.appendChild(doc.createTextNode(` (${href})`));
    }
    a.replaceWith(span);
  }
}

export function sanitize(html: string): string {
  const clean = purify.sanitize(html) as unknown as string;
  // Nothing to neuter (most blocks): the first pass's output is final.
  if (!/<(?:a|img)[\s>]/i.test(clean)) return clean;
  box ??= inertDoc().createElement("div");
  box.innerHTML = clean;
  neuter(box);
  const out = box.innerHTML;
  box.textContent = "";
  // Second pass after the transform keeps the invariant simple: output is always DOMPurify output.
  return purify.sanitize(out) as unknown as string;
}

/** Render untrusted agent markdown to safe HTML. */
export function renderMarkdown(src: string): string {
  return renderBlock(src);
}

/**
 * Render one part of a streamed message (see markdown-blocks.ts) to safe HTML, resolving
 * reference links against the definitions that came before it. Each part is sanitized on its
 * own, so raw HTML in one block cannot wrap or reach into another.
 */
export function renderBlock(src: string, links?: LinkDefs): string {
  const html = marked.parser(newLexer(links).lex(src));
  return sanitize(html);
}

/**
 * Render a piece of a paragraph cut for size (see markdown-blocks.svelte.ts): its inline markdown
 * only, as a paragraph with no margin where it joins the next or previous piece.
 */
export function renderPiece(src: string, joins: { goesOn: boolean; continues: boolean }, links?: LinkDefs): string {
  const lexer = newLexer(links);
  const inline = new Parser({ ...marked.defaults }).parseInline(lexer.inlineTokens(src.trimEnd()));
  const cls = [joins.goesOn && "goes-on", joins.continues && "continues"].filter(Boolean).join(" ");
  return sanitize(`<p class="${cls}">${inline}</p>`);
}
