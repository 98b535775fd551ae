// Simple line diff for DISPLAY only (the backend never relies on it).
export type DiffLine = { op: " " | "-" | "+"; text: string } | { op: "skip"; count: number };

const MAX_CELLS = 2_000_000;

/** A text's lines: a final newline ends the last line rather than starting an empty one (a one-line
 * file "x\n" is one added line, not two). */
function lines(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** `oldText` absent (the SDK omits it for a new file) or null: every line is added. */
export function lineDiff(oldText: string | null | undefined, newText: string, context = 3): DiffLine[] {
  const a = oldText == null ? [] : lines(oldText);
  const b = lines(newText);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const mid: DiffLine[] = [];
  if (am.length * bm.length > MAX_CELLS) {
    for (const t of am) mid.push({ op: "-", text: t });
    for (const t of bm) mid.push({ op: "+", text: t });
  } else {
    // LCS table over the middle part.
    const n = am.length, m = bm.length;
    const dp = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        dp[i * (m + 1) + j] = am[i] === bm[j] ? dp[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(dp[(i + 1) * (m + 1) + j], dp[i * (m + 1) + j + 1]);
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (am[i] === bm[j]) { mid.push({ op: " ", text: am[i] }); i++; j++; }
      else if (dp[(i + 1) * (m + 1) + j] >= dp[i * (m + 1) + j + 1]) mid.push({ op: "-", text: am[i++] });
      else mid.push({ op: "+", text: bm[j++] });
    }
    while (i < n) mid.push({ op: "-", text: am[i++] });
    while (j < m) mid.push({ op: "+", text: bm[j++] });
  }
  const all: DiffLine[] = [
    ...a.slice(0, pre).map((t) => ({ op: " " as const, text: t })),
    ...mid,
    ...a.slice(a.length - suf).map((t) => ({ op: " " as const, text: t })),
  ];
  return collapse(all, context);
}

/** Collapse long unchanged runs, keeping `context` lines around changes. */
function collapse(lines: DiffLine[], context: number): DiffLine[] {
  const out: DiffLine[] = [];
  let run: DiffLine[] = [];
  const flush = (atStart: boolean, atEnd: boolean) => {
    const keepHead = atStart ? 0 : context;
    const keepTail = atEnd ? 0 : context;
    if (run.length > keepHead + keepTail + 1) {
      out.push(...run.slice(0, keepHead));
      out.push({ op: "skip", count: run.length - keepHead - keepTail });
      out.push(...run.slice(run.length - keepTail));
    } else out.push(...run);
    run = [];
  };
  let sawChange = false;
  for (const l of lines) {
    if (l.op === " ") run.push(l);
    else {
      flush(!sawChange, false);
      sawChange = true;
      out.push(l);
    }
  }
  if (sawChange) flush(false, true);
  else out.push(...run); // no change at all: show as is
  return out;
}
