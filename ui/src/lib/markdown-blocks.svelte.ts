// A streamed agent message, split into markdown blocks as its text arrives (issue 16).
//
// A block is sealed once a later block has started after it: nothing appended afterwards can
// change how it parses (a paragraph followed by a blank line cannot become a heading, a list
// followed by a paragraph takes no more items). Sealed blocks are split off once and rendered
// once, when first shown; only the open tail (the last block and what follows it) is lexed and
// rendered again as text arrives. Every block is sanitized on its own (markdown.ts).
import { newLexer, renderBlock, type LinkDefs } from "./markdown";

/** Above this many characters, the open tail is re-lexed only as often as its cost allows. */
const LARGE_TAIL = 32 * 1024;
/** A large tail is worked on at most 1 / (1 + SPACING) of the time: amortized linear work
 *  for a message that is one huge paragraph. */
const SPACING = 3;
/** Sealed blocks are shown in segments (rows of the virtual transcript) of at most this many
 *  blocks or about this much source, so that a long message is in the DOM only where it is seen. */
const SEGMENT_BLOCKS = 24;
const SEGMENT_CHARS = 6000;

interface Rendered {
  html: string;
  /** `linksVersion` when rendered: a block with a reference link may change with a later definition. */
  links: number;
}

export class MarkdownBlocks {
  /** Sources of the sealed blocks, in order; a sealed block never changes. */
  readonly sealed: string[] = [];
  /** Link reference definitions of sealed blocks (the first definition of a label wins). */
  readonly links: LinkDefs = Object.create(null);
  /** Bumped whenever the sealed blocks or the tail change (what the window renders from). */
  version = $state(0);
  /** Segment `s` shows sealed blocks [segmentStarts[s], segmentStarts[s + 1]); the last one
   *  also shows the tail. Only the last segment ever changes. */
  readonly segmentStarts: number[] = [0];
  #segmentChars: number[] = [0];

  #linksVersion = 0;
  #html: Rendered[] = [];
  /** Text not sealed yet: the open block and anything after it. */
  #tail = "";
  #tailHtml: string | null = null;
  /** Appended, not yet looked at. */
  #pending = "";
  /** The last chunk ended in `\r`: a `\n` starting the next one belongs to it. */
  #cr = false;
  /** Earliest time (performance.now) to work on a large tail again. */
  #notBefore = 0;
  /** Characters given to the lexer so far (tests check the work stays linear). */
  lexed = 0;

  append(text: string) {
    this.#pending += text;
  }

  /** The open tail's source (for tests and size estimates). */
  get tail(): string {
    return this.#tail;
  }

  get segmentCount(): number {
    return this.segmentStarts.length;
  }

  /** The sealed blocks segment `s` shows: [from, to). */
  segment(s: number): [number, number] {
    return [this.segmentStarts[s], this.segmentStarts[s + 1] ?? this.sealed.length];
  }

  /** Source characters segment `s` shows (for a height estimate before it is measured). */
  segmentChars(s: number): number {
    const last = s === this.segmentStarts.length - 1;
    return this.#segmentChars[s] + (last ? this.#tail.length + this.#pending.length : 0);
  }

  /**
   * Takes the appended text in and seals the blocks it completed. Returns 0, or how many ms
   * to wait before calling again when a large tail's work was put off.
   */
  sync(now = performance.now()): number {
    if (!this.#pending) return 0;
    if (this.#tail.length + this.#pending.length > LARGE_TAIL && now < this.#notBefore) return this.#notBefore - now;
    const started = performance.now();
    this.#tail += this.#takePending();
    this.#tailHtml = null;
    this.#seal();
    this.#spent(started);
    this.version++;
    return 0;
  }

  /** HTML of sealed block `i`: rendered on first use and kept. */
  blockHtml(i: number): string {
    let r = this.#html[i];
    if (!r || (r.links !== this.#linksVersion && this.sealed[i].includes("]"))) {
      r = { html: renderBlock(this.sealed[i], this.links), links: this.#linksVersion };
      this.#html[i] = r;
    }
    return r.html;
  }

  /** HTML of the open tail: rendered again only after the tail changed. */
  tailHtml(): string {
    if (this.#tailHtml === null) {
      const started = performance.now();
      this.#tailHtml = this.#tail ? renderBlock(this.#tail, this.links) : "";
      this.#spent(started);
    }
    return this.#tailHtml;
  }

  /** Normalizes line ends as marked would (`\r\n` and `\r` become `\n`), across chunk edges. */
  #takePending(): string {
    let text = this.#pending;
    this.#pending = "";
    if (this.#cr && text.startsWith("\n")) text = text.slice(1);
    this.#cr = text.endsWith("\r");
    return text.replace(/\r\n?/g, "\n");
  }

  #seal() {
    const lexer = newLexer(this.links);
    const tokens = lexer.blockTokens(this.#tail, []);
    this.lexed += this.#tail.length;
    // The last block that is not blank space may still grow: it and what follows stay open.
    let open = tokens.length - 1;
    while (open >= 0 && tokens[open].type === "space") open--;
    let cut = 0;
    for (let i = 0; i < open; i++) {
      const t = tokens[i];
      // Tokens cover the source in order; anything else would mean a cut in the wrong place.
      if (!this.#tail.startsWith(t.raw, cut)) break;
      cut += t.raw.length;
      if (t.type === "space") continue;
      if (t.type === "def") {
        const label = (t as { tag: string }).tag;
        if (!(label in this.links)) {
          this.links[label] = { href: (t as { href: string }).href, title: (t as { title: string }).title };
          this.#linksVersion++;
        }
        continue;
      }
      this.#push(t.raw);
    }
    if (cut > 0) this.#tail = this.#tail.slice(cut);
  }

  #push(block: string) {
    let s = this.segmentStarts.length - 1;
    if (this.sealed.length - this.segmentStarts[s] >= SEGMENT_BLOCKS || this.#segmentChars[s] >= SEGMENT_CHARS) {
      this.segmentStarts.push(this.sealed.length);
      this.#segmentChars.push(0);
      s++;
    }
    this.sealed.push(block);
    this.#segmentChars[s] += block.length;
  }

  /** Work on a large tail buys it a pause SPACING times as long. */
  #spent(started: number) {
    if (this.#tail.length <= LARGE_TAIL) return;
    const end = performance.now();
    this.#notBefore = Math.max(this.#notBefore, end) + SPACING * (end - started);
  }
}
