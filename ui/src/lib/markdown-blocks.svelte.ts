// A streamed agent message, split into markdown blocks as its text arrives (issue 16).
//
// A block is sealed once a later block has started after it: nothing appended afterwards can
// change how it renders. Blocks are found by a line scanner (markdown-lines.ts), not by the
// markdown lexer: a block ends before a line that follows a blank line, is not indented and is
// no list item, outside fenced code and outside HTML blocks that run across blank lines.
// CommonMark closes every open block and container before such a line, so a sealed block renders
// alone exactly as it does inside the whole message. marked runs only on blocks when they are
// first shown (rows out of view cost nothing) and on the open tail as it grows. Every block is
// sanitized on its own (markdown.ts).
//
// One paragraph can be huge (an agent printing 20 MB without a blank line): an open paragraph
// longer than PIECE_MAX is cut at a space into sealed *pieces*, rendered as paragraphs with no
// margin between them. The only difference a reader sees is a line break every few KB, and an
// inline span (emphasis, code) that crosses a cut is not joined. A piece ends where a line that
// may be something other than paragraph text starts (markdown-lines.ts `isPlain`).
import { newLexer, renderBlock, renderPiece, type LinkDefs } from "./markdown";
import { fenceCloses, fenceOpen, htmlRunEnd, isBlank, isPlain, startsTopLevel, type Fence } from "./markdown-lines";

/** Above this many characters, the open tail is rendered again only as often as its cost allows. */
const LARGE_TAIL = 32 * 1024;
/** A large tail is worked on at most 1 / (1 + SPACING) of the time: amortized linear work
 *  for a message whose last block cannot be cut (one huge code block). */
const SPACING = 3;
/** Sealed blocks are shown in segments (rows of the virtual transcript) of at most this many
 *  blocks or about this much source, so that a long message is in the DOM only where it is seen. */
const SEGMENT_BLOCKS = 12;
const SEGMENT_CHARS = 3000;
/** New text taken into the tail at once, at most: the tail is cut between takes. */
const TAKE_SLICE = 16 * 1024;
/** Work per sync, at most: the rest waits for the next call, so that a frame stays short. */
const SYNC_BUDGET_MS = 8;
/** An open paragraph longer than this is cut into pieces; the open part keeps PIECE_KEEP. */
const PIECE_MAX = 8192;
const PIECE_KEEP = 1024;
/** Enough of an incomplete line to judge how it starts (markdown-lines.ts). */
const LINE_START = 64;
/** A link reference definition (`[label]: url`) may start a line of this block. */
const LINK_DEF = /(?:^|\n) {0,3}\[[^\]\n]+\]:/;

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
  #joins: Map<number, Joins> | null = null;
  /** Link reference definitions of sealed blocks (the first definition of a label wins). Like
   *  the other tables, made when first needed: a transcript holds many small messages. */
  #links: LinkDefs | null = null;
  /** The tail's definitions, which may still change (a message often ends with them), and the
   *  table a block renders with: `#links` and then these. */
  #tailLinks = "{}";
  #allLinks: LinkDefs | undefined = undefined;
  /** Bumped whenever the sealed blocks or the tail change (what the window renders from). */
  version = $state(0);
  /** Segment `s` shows sealed blocks [segmentStarts[s], segmentStarts[s + 1]); the last one
   *  also shows the tail. Only the last segment ever changes. */
  readonly segmentStarts: number[] = [0];
  #segmentChars: number[] = [0];

  #linksVersion = 0;
  #html: (Rendered | undefined)[] | null = null;
  /** Text not sealed yet: the open block and anything after it. */
  #tail = "";
  #tailHtml: string | null = null;
  /** Appended, not yet looked at. */
  #pending = "";
  /** The last chunk ended in `\r`: a `\n` starting the next one belongs to it. */
  #cr = false;
  /** Taken in (line ends normalized) but not into the tail yet: work is done in turns. */
  #ready = "";
  /** Earliest time (performance.now) to work on a large tail again. */
  #notBefore = 0;
  /** Characters the scanner looked at (tests check the work stays linear). */
  scanned = 0;

  // The scanner's state over the tail (#scan, #line).
  /** Start of the first line not scanned yet (complete lines before it are). */
  #pos = 0;
  /** Inside a fenced code block: the fence that closes it. */
  #fence: Fence | null = null;
  /** Inside an HTML block that runs until this marker. */
  #htmlEnd: RegExp | null = null;
  /** The last scanned line was blank, or nothing was scanned yet. */
  #afterBlank = true;
  /** The scanned part of the tail holds more than blank lines. */
  #content = false;
  /** From this tail index to #pos the scanned lines are one paragraph of plain lines that started
   *  at column 0 after a blank line (a paragraph that may be cut into pieces); -1 if none. */
  #para = -1;
  /** The tail goes on with a paragraph cut before it (its head was sealed as a piece). */
  #continued = false;
  /** The tail starts in the middle of a line (a cut fell on a space in it). */
  #midLine = false;

  append(text: string) {
    this.#pending += text;
  }

  /** The whole source so far, line ends normalized (reading it does not sync; the text
   *  appended but not taken in yet is included). Reactive through `version` only after a sync. */
  source(): string {
    void this.version;
    const pending = this.#cr && this.#pending.startsWith("\n") ? this.#pending.slice(1) : this.#pending;
    return this.sealed.join("") + this.#tail + this.#ready + pending.replace(/\r\n?/g, "\n");
  }

  /** The first `n` characters of the source taken in (without joining all of it). */
  head(n: number): string {
    let out = "";
    for (const block of this.sealed) {
      if (out.length >= n) return out.slice(0, n);
      out += block;
    }
    return (out + this.#tail.slice(0, n) + this.#ready.slice(0, n)).slice(0, n);
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
   * to wait before calling again when work was left over (text is waiting).
   */
  sync(now = performance.now()): number {
    if (!this.#pending && !this.#ready) return 0;
    const waiting = this.#tail.length + this.#ready.length + this.#pending.length;
    if (waiting > LARGE_TAIL && now < this.#notBefore) return this.#notBefore - now;
    const started = performance.now();
    // What is left over first, then what arrived since: joining them would copy megabytes per
    // call once a large batch is left over.
    let text = this.#ready;
    this.#tailHtml = null;
    for (;;) {
      text ||= this.#takePending();
      if (!text) break;
      const take = sliceEnd(text, TAKE_SLICE);
      this.#tail += text.slice(0, take);
      text = text.slice(take);
      this.#scan();
      this.#cutPieces();
      // A huge block that cannot be cut: the rest waits for its turn (see LARGE_TAIL).
      if (this.#tail.length > LARGE_TAIL) break;
      if (performance.now() - started > SYNC_BUDGET_MS) break;
    }
    this.#ready = text;
    this.#tailDefinitions();
    this.#spent(started);
    this.version++;
    return text || this.#pending ? Math.max(1, this.#notBefore - performance.now()) : 0;
  }

  /** How sealed block `i` joins its neighbours. */
  joins(i: number): Joins {
    return this.#joins?.get(i) ?? WHOLE;
  }

  /** HTML of sealed block `i`: rendered on first use and kept. */
  blockHtml(i: number): string {
    let r = this.#html?.[i];
    if (!r || (r.links !== this.#linksVersion && this.sealed[i].includes("]"))) {
      const joins = this.#joins?.get(i);
      const links = this.#allLinks;
      const html = joins ? renderPiece(this.sealed[i], joins, links) : renderBlock(this.sealed[i], links);
      r = { html, links: this.#linksVersion };
      (this.#html ??= [])[i] = r;
    }
    return r.html;
  }

  /** HTML of the open tail: rendered again only after the tail changed. */
  tailHtml(): string {
    if (this.#tailHtml === null) {
      const started = performance.now();
      const n = this.#continued ? this.#plainEnd() : 0;
      const rest = this.#tail.slice(n);
      this.#tailHtml =
        (n > 0 ? renderPiece(this.#tail.slice(0, n), { goesOn: false, continues: true }, this.#links ?? undefined) : "") +
        (rest ? renderBlock(rest, this.#allLinks) : "");
      this.#spent(started);
    }
    return this.#tailHtml;
  }

  /** Normalizes line ends as marked would (`\r\n` and `\r` become `\n`), across chunk edges. */
  #takePending(): string {
    let text = this.#pending;
    if (!text) return "";
    this.#pending = "";
    if (this.#cr && text.startsWith("\n")) text = text.slice(1);
    this.#cr = text.endsWith("\r");
    return text.replace(/\r\n?/g, "\n");
  }

  /** Scans the tail's new complete lines, then judges the start of the incomplete last one. */
  #scan() {
    for (;;) {
      const nl = this.#tail.indexOf("\n", this.#pos);
      if (nl < 0) break;
      const start = this.#pos;
      this.#pos = nl + 1;
      this.scanned += nl + 1 - start;
      this.#line(this.#tail.slice(start, nl), start);
    }
    this.#peek();
  }

  /** One complete line at tail index `start`: seals the blocks (or the piece) it ends. */
  #line(line: string, start: number) {
    const midLine = this.#midLine && start === 0;
    this.#midLine = false;
    if (this.#fence || this.#htmlEnd) {
      if (this.#fence && fenceCloses(line, this.#fence)) this.#fence = null;
      else if (this.#htmlEnd?.test(line)) this.#htmlEnd = null;
      this.#afterBlank = false;
      return;
    }
    // The rest of a line cut at a space: paragraph text, whatever it starts with.
    if (midLine) return;
    if (isBlank(line)) {
      if (this.#continued) this.#endPieces(start);
      this.#afterBlank = true;
      this.#para = -1;
      return;
    }
    const plain = isPlain(line, true);
    if (this.#continued) {
      if (plain) return;
      this.#endPieces(start);
      start = 0;
    } else if (this.#afterBlank && this.#content && startsTopLevel(line, true)) {
      this.#sealTo(start);
      start = 0;
    }
    if (!plain) this.#para = -1;
    else if (this.#afterBlank && line[0] !== " " && line[0] !== "\t") this.#para = start;
    this.#content = true;
    this.#afterBlank = false;
    this.#fence = fenceOpen(line);
    if (!this.#fence) this.#htmlEnd = htmlRunEnd(line);
  }

  /** The incomplete last line: a new top-level block may already be sure to start there. */
  #peek() {
    const at = this.#pos;
    if (at >= this.#tail.length || this.#fence || this.#htmlEnd || this.#continued || !this.#afterBlank) return;
    const line = this.#tail.slice(at, at + LINE_START);
    this.scanned += line.length;
    if (this.#content && startsTopLevel(line, false)) this.#sealTo(at);
    if (isPlain(line, false) && line[0] !== " " && line[0] !== "\t") this.#para = this.#pos;
  }

  /** Where the plain paragraph text at the tail's end stops: the end, or the start of an
   *  incomplete last line that may be something else. */
  #plainEnd(): number {
    const at = this.#pos;
    if (at >= this.#tail.length || (this.#midLine && at === 0)) return this.#tail.length;
    return isPlain(this.#tail.slice(at, at + LINE_START), false) ? this.#tail.length : at;
  }

  /** Cuts the open paragraph into pieces while it is longer than PIECE_MAX + PIECE_KEEP. */
  #cutPieces() {
    if (!this.#continued && this.#para < 0) return;
    // Anything before the paragraph is blank (a block before it was sealed at its first line).
    let end = this.#plainEnd();
    while (end > PIECE_MAX + PIECE_KEEP) {
      const at = lastSpace(this.#tail, PIECE_MAX);
      if (at === 0) break;
      this.#push(this.#tail.slice(0, at), { goesOn: true, continues: this.#continued });
      this.#midLine = this.#pos <= at && this.#tail[at - 1] !== "\n";
      this.#tail = this.#tail.slice(at);
      this.#pos = Math.max(0, this.#pos - at);
      end -= at;
      this.#continued = true;
      this.#para = 0;
      this.#content = true;
    }
  }

  /** The cut paragraph ends before tail index `at`: what of it is left is its last piece. */
  #endPieces(at: number) {
    this.#continued = false;
    if (this.#tail.slice(0, at).trim()) {
      this.#sealTo(at, { goesOn: false, continues: true });
      return;
    }
    // Nothing but a line end left after the last cut: that piece ends the paragraph.
    const last = this.sealed.length - 1;
    (this.#joins ??= new Map()).set(last, { goesOn: false, continues: this.joins(last).continues });
    if (this.#html) this.#html[last] = undefined;
    this.#content = false;
    this.#para = -1;
  }

  /** Seals the tail up to `at` (a line start at or before #pos) as one block. */
  #sealTo(at: number, joins?: Joins) {
    const block = this.#tail.slice(0, at);
    this.#tail = this.#tail.slice(at);
    this.#pos -= at;
    this.#para = this.#para >= at ? this.#para - at : -1;
    this.#content = false;
    if (!joins && LINK_DEF.test(block)) this.#defineLinks(block);
    this.#push(block, joins);
  }

  /** Takes the link reference definitions of a sealed block. */
  #defineLinks(block: string) {
    for (const [label, def] of Object.entries(definitions(block))) {
      this.#links ??= Object.create(null) as LinkDefs;
      if (label in this.#links) continue;
      this.#links[label] = def;
      this.#linksVersion++;
    }
    this.#tailLinks = "";
  }

  /** Definitions in the tail count for every block (until the tail changes them). */
  #tailDefinitions() {
    const defs = LINK_DEF.test(this.#tail) ? definitions(this.#tail) : {};
    if (this.#links) for (const label of Object.keys(defs)) if (label in this.#links) delete defs[label];
    const json = JSON.stringify(defs);
    if (json === this.#tailLinks) return;
    this.#tailLinks = json;
    this.#allLinks = Object.keys(defs).length ? { ...this.#links, ...defs } : (this.#links ?? undefined);
    this.#linksVersion++;
  }

  #push(block: string, joins?: Joins) {
    let s = this.segmentStarts.length - 1;
    if (this.sealed.length - this.segmentStarts[s] >= SEGMENT_BLOCKS || this.#segmentChars[s] >= SEGMENT_CHARS) {
      this.segmentStarts.push(this.sealed.length);
      this.#segmentChars.push(0);
      s++;
    }
    if (joins) (this.#joins ??= new Map()).set(this.sealed.length, joins);
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

/** The link reference definitions in `src` (marked finds them). */
function definitions(src: string): LinkDefs {
  const lexer = newLexer();
  lexer.lex(src);
  const defs: LinkDefs = Object.create(null);
  for (const [label, def] of Object.entries(lexer.tokens.links)) defs[label] = { href: def.href ?? "", title: def.title ?? "" };
  return defs;
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
