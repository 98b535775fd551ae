// The transcript as the rows of a virtual list (issue 16). Every item is one row, except a long
// agent message, which is one row per segment of its markdown blocks (markdown-blocks.svelte.ts):
// a message of 20 MB is a few thousand rows of which only those in view are in the DOM.
import { HeightCache, type RowKey } from "./height-cache";
import { TextItem, type Transcript, type TranscriptItem } from "./store.svelte";

export interface Row {
  /** The item's id and the segment, as one number (ids < 2^29, segments < 2^24). */
  readonly key: number;
  readonly item: TranscriptItem;
  /** Agent messages: which segment of the message this row shows (0 for everything else). */
  readonly segment: number;
}

/** Rough text metrics for estimates (the real heights replace them once measured; each kind of
 *  item estimates its own rows, `estimate` in store.svelte.ts). */
const CHAR_PX = 7.5;
/** Space between items (the list's gap), included in every row's height. */
const GAP_PX = 12;

export class TranscriptRows {
  readonly rows: Row[] = [];
  readonly keys: RowKey[] = [];
  readonly heights: HeightCache;
  /** Width the rows are laid out in, for estimates. */
  width = 800;
  #items = 0;
  /** Segments of each agent message already in `rows` (absent: one). */
  #segments = new Map<TextItem, number>();

  constructor(readonly transcript: Transcript) {
    this.heights = new HeightCache((i) => this.estimate(this.rows[i]));
  }

  /** Brings the rows up to date with the transcript; cheap when little changed. */
  update() {
    const t = this.transcript;
    let from = this.rows.length;
    // Items already shown whose content changed: a message may have gained segments.
    for (const item of t.takeChanged()) {
      const first = this.#firstRow(item);
      if (first === undefined) continue;
      const had = this.#segments.get(item as TextItem) ?? 1;
      const has = rowCount(item);
      // Only the last row of an item changes; earlier segments are sealed.
      const last = first + had - 1;
      this.heights.forget(last);
      if (has > had) {
        const added = Array.from({ length: has - had }, (_, k) => row(item, had + k));
        this.#splice(last + 1, added);
        this.#segments.set(item as TextItem, has);
        from = Math.min(from, last + 1);
      }
    }
    // New items.
    const items = t.items;
    for (; this.#items < items.length; this.#items++) {
      const item = items[this.#items];
      const n = rowCount(item);
      if (n > 1) this.#segments.set(item as TextItem, n);
      for (let s = 0; s < n; s++) {
        const r = row(item, s);
        this.rows.push(r);
        this.keys.push(r.key);
      }
    }
    this.heights.setRows(this.keys, from);
  }

  /** Inserts rows in the middle (a message before the last one grew a segment): rare. */
  #splice(at: number, added: Row[]) {
    if (at === this.rows.length) {
      for (const r of added) {
        this.rows.push(r);
        this.keys.push(r.key);
      }
      return;
    }
    this.rows.splice(at, 0, ...added);
    this.keys.splice(at, 0, ...added.map((r) => r.key));
  }

  /** The first row of `item`, found by its id: items get increasing ids as they are added, and
   *  rows are in item order (no table of first rows kept per item). */
  #firstRow(item: TranscriptItem): number | undefined {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[mid].item.id < item.id) lo = mid + 1;
      else hi = mid;
    }
    return this.rows[lo]?.item === item ? lo : undefined;
  }

  /** A height for a row not measured yet. */
  estimate(r: Row): number {
    const perLine = Math.max(20, Math.floor(this.width / CHAR_PX));
    return r.item.estimate(perLine, r.segment) + GAP_PX;
  }
}

function rowCount(item: TranscriptItem): number {
  return item instanceof TextItem ? item.segmentCount : 1;
}

/** Room for a message's segments in a row key (a 20 MB message has ~7,000). */
const SEGMENTS = 2 ** 24;

function row(item: TranscriptItem, segment: number): Row {
  return { key: item.id * SEGMENTS + segment, item, segment };
}
