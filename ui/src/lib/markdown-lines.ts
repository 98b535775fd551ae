// What one line of markdown source can do to the blocks around it, decided from the line alone
// (CommonMark + GFM, as marked reads them). markdown-blocks.svelte.ts uses these to find where
// a streamed message can be cut into blocks without running the markdown lexer over all of it:
// marked's block patterns run in WebKit's regex interpreter at ~1 MB/s, these at memory speed.
//
// The rules answer conservatively: a wrong "no" only makes a block bigger, never cuts one apart.

/** A fenced code block's opening fence: its character and length (the closing one must match). */
export interface Fence {
  ch: "`" | "~";
  len: number;
}

const FENCE_OPEN = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;

/** The fence this line opens, if it opens one. */
export function fenceOpen(line: string): Fence | null {
  const m = FENCE_OPEN.exec(line);
  return m ? { ch: m[1][0] as Fence["ch"], len: m[1].length } : null;
}

/** Whether this (complete) line closes `fence`. */
export function fenceCloses(line: string, fence: Fence): boolean {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let n = 0;
  while (line[i + n] === fence.ch) n++;
  return n >= fence.len && line.slice(i + n).trim() === "";
}

/** HTML blocks that run across blank lines until an end marker (CommonMark types 1 to 5). */
const HTML_RUNS: [RegExp, RegExp][] = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];

/** For a line starting an HTML block that blank lines do not end: the marker that ends it.
 *  `null` when the line starts no such block, or ends it on the same line. */
export function htmlRunEnd(line: string): RegExp | null {
  for (const [start, end] of HTML_RUNS) {
    const m = start.exec(line);
    if (m) return end.test(line.slice(m[0].length)) ? null : end;
  }
  return null;
}

/** Blank: only spaces and tabs. */
export function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/** A line start that may still become a list marker when more of the line arrives. */
const LIST_ITEM_SO_FAR = /^ {0,3}(?:[-+*]|\d{1,9}[.)]?)$/;

/**
 * Whether a line after a blank line starts a new top-level block: it is not indented (so it
 * continues no list item, indented code or lazy paragraph) and is no list item (which could
 * belong to the list before it). `undefined` while an incomplete line cannot tell yet.
 */
export function startsTopLevel(line: string, complete: boolean): boolean | undefined {
  if (line === "" || line[0] === " " || line[0] === "\t") return complete ? false : undefined;
  if (LIST_ITEM.test(line)) return false;
  if (!complete && LIST_ITEM_SO_FAR.test(line)) return undefined;
  return true;
}

/** A line that may start something other than paragraph text (a heading, quote, list, fence,
 *  thematic break, setext underline, HTML, table, link definition): it ends a paragraph piece. */
const NOT_PLAIN_START = /^ {0,3}(?:[#>`~=+*_<|:[-]|\d{1,9}[.)])/;

/**
 * Whether this line is paragraph text that continues a paragraph (or starts one at column 0
 * after a blank line) whatever comes after it. Conservative: a `|` anywhere could make a
 * table row, and the start characters of other blocks count as not plain even when the rest of
 * the line would make them text. For an incomplete line only its start is judged.
 */
export function isPlain(line: string, complete: boolean): boolean {
  if (isBlank(line)) return false;
  if (NOT_PLAIN_START.test(line)) return false;
  // "1" may yet be "1. item".
  if (!complete && /^ {0,3}\d{1,9}$/.test(line)) return false;
  return !complete || !line.includes("|");
}
