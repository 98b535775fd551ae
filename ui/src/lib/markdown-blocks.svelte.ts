// A streamed agent message, split into markdown blocks as its text arrives (issue 16).
//
// A block is sealed once a later block has started after it: nothing appended afterwards can
// change how it parses (a paragraph followed by a blank line cannot become a heading, a list
// followed by a paragraph takes no more items). Sealed blocks are split off once and rendered
// once, when first shown; only the open tail (the last block and what follows it) is lexed and
// rendered again as text arrives. Every block is sanitized on its own (markdown.ts).
//
// One paragraph can be huge (an agent printing 20 MB without a blank line): an open paragraph
// longer than PIECE_MAX is cut at a space into sealed *pieces*, rendered as paragraphs with no
// margin between them. The only difference a reader sees is a line break every few KB, and an
// inline span (emphasis, code) that crosses a cut is not joined. The text after a cut is lexed
// with a one-letter prefix, so that it reads as the continuation of a paragraph it is (a piece
// starting with "- " is not a list).
import { newLexer, renderBlock, renderPiece, type LinkDefs } from "./markdown";

/** Above this many characters, the open tail is re-lexed only as often as its cost allows. */
const LARGE_TAIL = 32 * 1024;
/** A large tail is worked on at most 1 / (1 + SPACING) of the time: amortized linear work
 *  for a message that is one huge paragraph. */
const SPACING = 3;
/** Sealed blocks are shown in segments (rows of the virtual transcript) of at most this many
 *  blocks or about this much source, so that a long message is in the DOM only where it is seen. */
const SEGMENT_BLOCKS = 24;
const SEGMENT_CHARS = 6000;
/** New text lexed at once, at most (see sync). */
const LEX_SLICE = 16 * 1024;
/** An open paragraph longer than this is cut into pieces; the open part keeps PIECE_KEEP. */
const PIECE_MAX = 8192;
const PIECE_KEEP = 1024;
/** Lexed in front of a paragraph's continuation (any letter would do). */
const CONTINUATION = "x";

/** How a sealed block joins its neighbours: a piece goes on in the next block, which continues it. */
export interface Joins {
  /** A paragraph piece: the paragraph goes on in the next block. */
  goesOn: boolean;
  /** The rest of a paragraph cut before this block. */
  continues: boolean;
}
const WHOLE: Joins = { goesOn: false, continues: false };

interface Rendered {
  html: string;
  /** `linksVersion` when rendered: a block with a reference link may change with a later definition. */
  links: number;
}

export class MarkdownBlocks {
  /** Sources of the sealed blocks, in order; a sealed block never changes. */
  readonly sealed: string[] = [];
  /** Joins of sealed blocks that are paragraph pieces (absent: a whole block). */
  readonly #joins = new Map<number, Joins>();
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
  /** The tail starts in the middle of a paragraph (its head was sealed as a piece). */
  #continued = false;
  /** Characters of that continuation at the tail's start (from the last lex). */
  #continuation = 0;
  /** Appended, not yet looked at. */
  #pending = "";
  /** The last chunk ended in `\r`: a `\n` starting the next one belongs to it. */
  #cr = false;
  /** Taken in (line ends normalized) but not lexed yet: a huge open block is worked on in turns. */
  #ready = "";
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
    return this.#segmentChars[s] + (last ? this.#tail.length + this.#ready.length + this.#pending.length : 0);
  }

  /**
   * Takes the appended text in and seals the blocks it completed. Returns 0, or how many ms
   * to wait before calling again when a large tail's work was put off (text is left over).
   */
  sync(now = performance.now()): number {
    if (!this.#pending && !this.#ready) return 0;
    const waiting = this.#tail.length + this.#ready.length + this.#pending.length;
    if (waiting > LARGE_TAIL && now < this.#notBefore) return this.#notBefore - now;
    const started = performance.now();
    let text = this.#ready + this.#takePending();
    this.#tailHtml = null;
    // At most LEX_SLICE new characters per lex: a slow frame brings a big batch, and some of
    // marked's patterns run in WebKit's regex interpreter, whose cost grows faster than the text
    // (one lex of a 1 MB batch took seconds and starved the next frames).
    while (text) {
      const take = sliceEnd(text, LEX_SLICE);
      this.#tail += text.slice(0, take);
      text = text.slice(take);
      this.#seal();
      // A huge block that cannot be cut: the rest waits for its turn (see LARGE_TAIL).
      if (this.#tail.length > LARGE_TAIL) break;
    }
    this.#ready = text;
    this.#spent(started);
    this.version++;
    return text ? Math.max(1, this.#notBefore - performance.now()) : 0;
  }

  /** How sealed block `i` joins its neighbours. */
  joins(i: number): Joins {
    return this.#joins.get(i) ?? WHOLE;
  }

  /** HTML of sealed block `i`: rendered on first use and kept. */
  blockHtml(i: number): string {
    let r = this.#html[i];
    if (!r || (r.links !== this.#linksVersion && this.sealed[i].includes("]"))) {
      const joins = this.#joins.get(i);
      const html = joins ? renderPiece(this.sealed[i], joins, this.links) : renderBlock(this.sealed[i], this.links);
      r = { html, links: this.#linksVersion };
      this.#html[i] = r;
    }
    return r.html;
  }

  /** HTML of the open tail: rendered again only after the tail changed. */
  tailHtml(): string {
    if (this.#tailHtml === null) {
      const started = performance.now();
      const n = this.#continuation;
      const rest = this.#tail.slice(n);
      this.#tailHtml =
        (n > 0 ? renderPiece(this.#tail.slice(0, n), { goesOn: false, continues: true }, this.links) : "") +
        (rest ? renderBlock(rest, this.links) : "");
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
    const prefix = this.#continued ? CONTINUATION : "";
    const src = prefix + this.#tail;
    const tokens = lexer.blockTokens(src, []);
    this.lexed += src.length;
    // The continuation must come back as the paragraph it is; if not, it is shown as lexed.
    const first = tokens[0];
    const continues = prefix !== "" && first?.type === "paragraph" && first.raw.startsWith(prefix);
    this.#continued = continues;
    // The last block that is not blank space may still grow: it and what follows stay open.
    let open = tokens.length - 1;
    while (open >= 0 && tokens[open].type === "space") open--;
    let cut = prefix.length;
    for (let i = 0; i < open; i++) {
      const t = tokens[i];
      const raw = i === 0 ? t.raw.slice(prefix.length) : t.raw;
      // Tokens cover the source in order; anything else would mean a cut in the wrong place.
      if (!src.startsWith(raw, cut)) break;
      cut += raw.length;
      if (t.type === "space") continue;
      if (t.type === "def") {
        const label = (t as { tag: string }).tag;
        if (!(label in this.links)) {
          this.links[label] = { href: (t as { href: string }).href, title: (t as { title: string }).title };
          this.#linksVersion++;
        }
        continue;
      }
      this.#push(raw, i === 0 && continues ? { goesOn: false, continues: true } : undefined);
      if (i === 0) this.#continued = false;
    }
    // What of the tail continues a cut paragraph (shown as a piece by tailHtml).
    this.#continuation = this.#continued ? first.raw.length - prefix.length : 0;
    // A huge open paragraph: seal its head as a piece, cut after a space.
    const last = tokens[open];
    if (last?.type === "paragraph") {
      let raw = open === 0 ? last.raw.slice(prefix.length) : last.raw;
      if (!src.startsWith(raw, cut)) raw = "";
      // Pieces of at most PIECE_MAX, as long as more than that is left (a batch may bring MBs).
      let continues = open === 0 && this.#continued;
      while (raw.length > PIECE_MAX + PIECE_KEEP) {
        const at = lastSpace(raw, PIECE_MAX);
        if (at === 0) break;
        this.#push(raw.slice(0, at), { goesOn: true, continues });
        continues = true;
        this.#continued = true;
        this.#continuation = raw.length - at;
        cut += at;
        raw = raw.slice(at);
      }
    }
    this.#tail = src.slice(cut);
  }

  #push(block: string, joins?: Joins) {
    let s = this.segmentStarts.length - 1;
    if (this.sealed.length - this.segmentStarts[s] >= SEGMENT_BLOCKS || this.#segmentChars[s] >= SEGMENT_CHARS) {
      this.segmentStarts.push(this.sealed.length);
      this.#segmentChars.push(0);
      s++;
    }
    if (joins) this.#joins.set(this.sealed.length, joins);
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

/** Index just after the last run of spaces or line ends that ends at or before `before`; 0 if none. */
function lastSpace(text: string, before: number): number {
  for (let i = Math.min(before, text.length) - 1; i > 0; i--) {
    if (text[i] === " " || text[i] === "\n") return i + 1;
  }
  return 0;
}

/** Where to end a slice of at most `max` characters of `text`: after a line end if there is one. */
function sliceEnd(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const nl = text.lastIndexOf("\n", max - 1);
  return nl > 0 ? nl + 1 : max;
}
