// What one line of markdown source can do to the blocks around it, decided from the line alone
// (CommonMark + GFM, as marked reads them). markdown-blocks.svelte.ts uses these to find where
// a streamed message can be cut into blocks without running the markdown lexer over all of it:
// marked's block patterns run in WebKit's regex interpreter at ~1 MB/s, these at memory speed.
//
// A line is `src` from `start` to `end` (its line end excluded): the scanner does not copy lines
// out of the text (20 MB of copies per 20 MB message, all garbage).
//
import { Lexer } from "marked";

// The rules answer conservatively: a wrong "no" only makes a block bigger, never cuts one apart.

/** A fenced code block's opening fence: its character and length (the closing one must match). */
export interface Fence {
  ch: "`" | "~";
  len: number;
}

const SPACE = 32;
const TAB = 9;

/** Index of the first character after at most three spaces. */
function indented(src: string, start: number, end: number): number {
  let i = start;
  while (i < end && i < start + 3 && src.charCodeAt(i) === SPACE) i++;
  return i;
}

/** `re` (sticky) matches at `at` and ends by `end`. */
function matchesAt(re: RegExp, src: string, at: number, end: number): RegExpExecArray | null {
  re.lastIndex = at;
  const m = re.exec(src);
  return m && re.lastIndex <= end ? m : null;
}

const FENCE = /`{3,}|~{3,}/y;

/** The fence this line opens, if it opens one. */
export function fenceOpen(src: string, start: number, end: number): Fence | null {
  const m = matchesAt(FENCE, src, indented(src, start, end), end);
  if (!m) return null;
  const ch = m[0][0] as Fence["ch"];
  // A backtick fence's info string has no backtick.
  if (ch === "`") {
    const tick = src.indexOf("`", FENCE.lastIndex);
    if (tick >= 0 && tick < end) return null;
  }
  return { ch, len: m[0].length };
}

/** Whether this (complete) line closes `fence`. */
export function fenceCloses(src: string, start: number, end: number, fence: Fence): boolean {
  let i = indented(src, start, end);
  const from = i;
  while (i < end && src[i] === fence.ch) i++;
  if (i - from < fence.len) return false;
  return isBlank(src, i, end);
}

/** HTML blocks that run across blank lines until an end marker (CommonMark types 1 to 5). */
const HTML_RUNS: [RegExp, RegExp][] = [
  [/<(?:script|pre|style|textarea)(?=[\s>]|$)/iy, /<\/(?:script|pre|style|textarea)>/gi],
  [/<!--/y, /-->/g],
  [/<\?/y, /\?>/g],
  [/<![A-Za-z]/y, />/g],
  [/<!\[CDATA\[/y, /\]\]>/g],
];

/** Whether `end` occurs in `src` between `from` and `to` (a copy of that part: searching the
 *  rest of the text for a marker that is not there would cost per line what the text costs). */
export function occursIn(end: RegExp, src: string, from: number, to: number): boolean {
  end.lastIndex = 0;
  return end.test(src.slice(from, to));
}

/** For a line starting an HTML block that blank lines do not end: the marker that ends it.
 *  `null` when the line starts no such block, or ends it on the same line. */
export function htmlRunEnd(src: string, start: number, end: number): RegExp | null {
  const at = indented(src, start, end);
  if (src[at] !== "<") return null;
  for (const [open, close] of HTML_RUNS) {
    if (matchesAt(open, src, at, end)) return occursIn(close, src, open.lastIndex, end) ? null : close;
  }
  return null;
}

/** Blank: only spaces and tabs. */
export function isBlank(src: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

const LIST_ITEM = /(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/my;
/** A line start that may still become a list marker when more of the line arrives. */
const LIST_ITEM_SO_FAR = /(?:[-+*]|\d{1,9}[.)]?)$/y;

/**
 * Whether a line after a blank line starts a new top-level block: it is not indented (so it
 * continues no list item, indented code or lazy paragraph) and is no list item (which could
 * belong to the list before it). `undefined` while an incomplete line cannot tell yet.
 */
export function startsTopLevel(src: string, start: number, end: number, complete: boolean): boolean | undefined {
  const c = src.charCodeAt(start);
  if (start >= end || c === SPACE || c === TAB) return complete ? false : undefined;
  if (matchesAt(LIST_ITEM, src, start, end + 1)) return false;
  if (!complete && end === src.length && matchesAt(LIST_ITEM_SO_FAR, src, start, end)) return undefined;
  return true;
}

/** A line that may start something other than paragraph text (a heading, quote, list, fence,
 *  thematic break, setext underline, HTML, table, link definition): it ends a paragraph piece. */
const NOT_PLAIN_START = /(?:[#>`~=+*_<|:[-]|\d{1,9}[.)])/y;
/** "1" may yet be "1. item". */
const DIGITS_SO_FAR = /\d{1,9}$/y;

/**
 * Whether this line is paragraph text that continues a paragraph (or starts one at column 0
 * after a blank line) whatever comes after it. Conservative: a `|` anywhere could make a
 * table row, and the start characters of other blocks count as not plain even when the rest of
 * the line would make them text. For an incomplete line only its start is judged.
 */
export function isPlain(src: string, start: number, end: number, complete: boolean): boolean {
  if (isBlank(src, start, end)) return false;
  const at = indented(src, start, end);
  if (matchesAt(NOT_PLAIN_START, src, at, end)) return false;
  if (!complete) return !(end === src.length && matchesAt(DIGITS_SO_FAR, src, at, end));
  for (let i = at; i < end; i++) if (src.charCodeAt(i) === 124 /* | */) return false;
  return true;
}

const ATX_HEADING = /#{1,6}(?:[ \t]|$)/my;

/** An ATX heading (`# Title`) written at column 0. */
export function isAtxHeading(src: string, start: number, end: number): boolean {
  return matchesAt(ATX_HEADING, src, start, end) !== null;
}

/** marked's own HTML block rule (all seven kinds of CommonMark), tried on one line. */
const HTML_BLOCK = Lexer.rules.block.gfm.html;
/** CommonMark's kind 6: block-level tags, which may also interrupt a paragraph. */
const HTML_BLOCK_TAG = new RegExp(
  "^ {0,3}</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|" +
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|" +
    "iframe|legend|li|link|main|menu|menuitem|meta|nav|noframes|ol|optgroup|option|p|param|search|section|" +
    "summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \\t]+|/?>|$)",
  "i",
);

/**
 * The kind of HTML block this line starts that runs until a blank line: 6 (a block-level tag,
 * which may interrupt a paragraph), 7 (any lone tag, which may not), or 0. Kinds 1 to 5 are
 * `htmlRunEnd`'s.
 */
export function htmlToBlankKind(src: string, start: number, end: number): 0 | 6 | 7 {
  const at = indented(src, start, end);
  if (src[at] !== "<" || HTML_RUNS.some(([open]) => matchesAt(open, src, at, end))) return 0;
  const line = src.slice(start, end);
  if (HTML_BLOCK_TAG.test(line)) return 6;
  return HTML_BLOCK.test(line) ? 7 : 0;
}

/** A line that may hold a link reference definition (`[label]: url`). */
export function mayDefineLink(src: string, start: number, end: number): boolean {
  return src[indented(src, start, end)] === "[";
}
