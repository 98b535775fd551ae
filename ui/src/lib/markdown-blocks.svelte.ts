// A streamed agent message, split into markdown blocks as its text arrives (issue 16).
//
// A block is sealed once a later block has started after it: nothing appended afterwards can
// change how it renders. Blocks are found by a line scanner (markdown-lines.ts), not by the
// markdown lexer: a block ends before a line that follows a blank line, is not indented and is
// no list item; before an ATX heading or a fence at column 0; after a heading or a top-level
// fence closes; never inside fenced code or an HTML block. CommonMark closes every open block
// and container at such a line, so a sealed block renders alone exactly as it does inside the
// whole message. Where one line cannot tell (a lone tag where a paragraph may be open), marked's
// lexer finds the blocks instead (#resolve). marked runs only on blocks when they are first
// shown (rows out of view cost nothing) and on the open tail as it grows. Every block is
// sanitized on its own (markdown.ts).
//
// One paragraph can be huge (an agent printing 20 MB without a blank line): an open paragraph
// longer than PIECE_MAX is cut at a space into sealed *pieces*, rendered as paragraphs with no
// margin between them. The only difference a reader sees is a line break every few KB, and an
// inline span (emphasis, code) that crosses a cut is not joined. A piece ends where a line that
// may be something other than paragraph text starts (markdown-lines.ts `isPlain`).
import { newLexer, renderBlock, renderPiece, type LinkDefs } from "./markdown";
import { Lru } from "./lru";
import {
  fenceCloses, fenceOpen, htmlRunEnd, isAtxHeading, isBlank, isPlain, mayDefineLink, occursIn, startsTopLevel,
  htmlToBlankKind, type Fence,
} from "./markdown-lines";

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
/** What judging how an incomplete line starts looks at, at most (for `scanned`). */
const LINE_START = 64;
/** A link reference definition (`[label]: url`) may start a line of this text. */
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

/** Sealed blocks whose HTML is kept, over all messages: those shown last (issue 34). A block is
 *  keyed by its message's number and its index. */
export const BLOCKS_KEPT = 4000;
const blockHtml = new Lru<string, Rendered>(BLOCKS_KEPT);
let nextBlocksId = 0;

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
  /** This message's part of the block keys (`blockHtml`). */
  readonly #key = `${nextBlocksId++}:`;
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
  /** Inside a fenced code block: the fence that closes it, and whether it opened at column 0. */
  #fence: Fence | null = null;
  #fenceTop = false;
  /** The last non-blank line ended a top-level block that nothing continues (an ATX heading, a
   *  fence closed at column 0): the next one starts a new block, whatever it is. */
  #blockEnded = false;
  /** Inside an HTML block that a blank line ends: a heading or fence in it is HTML text. */
  #htmlToBlank = false;
  /** A lone tag where a paragraph may or may not be open (it is an HTML block only if none
   *  is): the scanner cannot tell, so it cuts nothing and marked's lexer finds the blocks. */
  #unsure = false;
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
  /** A scanned line of the tail may define a link (the block is lexed for it when sealed). */
  #mayDefine = false;
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

  /** HTML of sealed block `i`: rendered on first use and kept while among the BLOCKS_KEPT
   *  shown last. */
  blockHtml(i: number): string {
    let r = blockHtml.get(this.#key + i);
    if (!r || (r.links !== this.#linksVersion && this.sealed[i].includes("]"))) {
      const joins = this.#joins?.get(i);
      const links = this.#allLinks;
      const html = joins ? renderPiece(this.sealed[i], joins, links) : renderBlock(this.sealed[i], links);
      r = { html, links: this.#linksVersion };
      blockHtml.set(this.#key + i, r);
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
      this.#line(start, nl);
    }
    if (this.#unsure) this.#resolve();
    else this.#peek();
  }

  /**
   * Where the scanner cannot tell (see #unsure), marked's lexer seals what it has finished:
   * every token of the complete lines but the last; the rest is scanned again from its start.
   */
  #resolve() {
    // Complete lines only: an incomplete one may yet read differently ("-" may become "-->").
    const tokens = newLexer(this.#allLinks).blockTokens(this.#tail.slice(0, this.#pos), []);
    this.scanned += this.#pos;
    let open = tokens.length - 1;
    while (open >= 0 && tokens[open].type === "space") open--;
    let cut = 0;
    for (let i = 0; i < open; i++) {
      if (!this.#tail.startsWith(tokens[i].raw, cut)) break;
      cut += tokens[i].raw.length;
    }
    if (cut === 0 || cut > this.#pos) return;
    const block = this.#tail.slice(0, cut);
    this.#tail = this.#tail.slice(cut);
    if (LINK_DEF.test(block)) this.#defineLinks(block);
    this.#push(block);
    // The rest starts a block: scan it afresh.
    this.#pos = 0;
    this.#fence = null;
    this.#htmlEnd = null;
    this.#htmlToBlank = false;
    this.#afterBlank = true;
    this.#blockEnded = false;
    this.#content = false;
    this.#para = -1;
    this.#mayDefine = false;
    this.#unsure = false;
    this.#scan();
  }

  /** The complete line [start, end) of the tail: seals the blocks (or the piece) it ends. */
  #line(start: number, end: number) {
    const src = this.#tail;
    const midLine = this.#midLine && start === 0;
    this.#midLine = false;
    if (this.#fence || this.#htmlEnd) {
      if (this.#fence && fenceCloses(src, start, end, this.#fence)) {
        this.#fence = null;
        this.#blockEnded = this.#fenceTop;
      } else if (this.#htmlEnd && occursIn(this.#htmlEnd, src, start, end)) this.#htmlEnd = null;
      this.#afterBlank = false;
      return;
    }
    // The rest of a line cut at a space: paragraph text, whatever it starts with.
    if (midLine) return;
    if (isBlank(src, start, end)) {
      if (this.#continued) this.#endPieces(start);
      this.#afterBlank = true;
      this.#htmlToBlank = false;
      this.#para = -1;
      return;
    }
    const plain = isPlain(src, start, end, true);
    const column0 = src[start] !== " " && src[start] !== "\t";
    // An ATX heading or a fence at column 0 closes whatever is open (no lazy line is either).
    const interrupts =
      column0 && !this.#htmlToBlank && (isAtxHeading(src, start, end) || fenceOpen(src, start, end) !== null);
    const atBlockStart = this.#afterBlank || this.#blockEnded || !this.#content;
    const newBlock = this.#blockEnded || interrupts || (this.#afterBlank && startsTopLevel(src, start, end, true));
    if (this.#continued) {
      if (plain) return;
      this.#endPieces(start);
    } else if (this.#content && newBlock && !this.#unsure) {
      this.#sealTo(start);
    }
    // Sealing moved the line to the tail's start.
    const shift = src.length - this.#tail.length;
    start -= shift;
    end -= shift;
    this.#content = true;
    this.#afterBlank = false;
    this.#blockEnded = false;
    if (this.#htmlToBlank) {
      this.#para = -1;
      return;
    }
    if (!plain) this.#para = -1;
    else if (atBlockStart && column0) this.#para = start;
    const tail = this.#tail;
    this.#mayDefine ||= !plain && mayDefineLink(tail, start, end);
    this.#blockEnded = column0 && isAtxHeading(tail, start, end);
    this.#fence = fenceOpen(tail, start, end);
    this.#fenceTop = column0;
    if (this.#fence) return;
    this.#htmlEnd = htmlRunEnd(tail, start, end);
    if (this.#htmlEnd) return;
    const html = htmlToBlankKind(tail, start, end);
    if (html === 6 || (html === 7 && atBlockStart)) this.#htmlToBlank = true;
    else if (html === 7) this.#unsure = true;
  }

  /** The incomplete last line: a new top-level block may already be sure to start there. */
  #peek() {
    const at = this.#pos;
    if (this.#unsure) return;
    if (at >= this.#tail.length || this.#fence || this.#htmlEnd || this.#continued) return;
    if (!this.#afterBlank && !this.#blockEnded) return;
    this.scanned += Math.min(LINE_START, this.#tail.length - at);
    if (this.#content && (this.#blockEnded || startsTopLevel(this.#tail, at, this.#tail.length, false))) this.#sealTo(at);
    const src = this.#tail;
    const start = this.#pos;
    if (isPlain(src, start, src.length, false) && src[start] !== " " && src[start] !== "\t") this.#para = start;
  }

  /** Where the plain paragraph text at the tail's end stops: the end, or the start of an
   *  incomplete last line that may be something else. */
  #plainEnd(): number {
    const at = this.#pos;
    const end = this.#tail.length;
    if (at >= end || (this.#midLine && at === 0)) return end;
    return isPlain(this.#tail, at, end, false) ? end : at;
  }

  /** Cuts the open paragraph into pieces while it is longer than PIECE_MAX + PIECE_KEEP. */
  #cutPieces() {
    if (this.#unsure || (!this.#continued && this.#para < 0)) return;
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
    blockHtml.delete(this.#key + last);
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
    if (!joins && this.#mayDefine && LINK_DEF.test(block)) this.#defineLinks(block);
    this.#mayDefine = false;
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
