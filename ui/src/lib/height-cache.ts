// Heights of a virtual list's rows: measured ones (by key) and estimates for the rest, with
// prefix sums for "where does row i start" and "which row is at y" (issue 16).
//
// Rows are appended far more often than changed; prefix sums are recomputed lazily from the
// first row that changed, so appending at the end costs only the new rows.

export class HeightCache {
  #keys: readonly string[] = [];
  #measured = new Map<string, number>();
  /** Rows in the DOM under a ResizeObserver: their measured height follows their content. */
  #observed = new Set<string>();
  /** prefix[i] = top of row i; prefix[n] = total height. Valid up to index `#valid`. */
  #prefix = new Float64Array(1);
  #valid = 0;

  /** `estimate(i)`: a height for row i before it is measured (cheap: called per row on recompute). */
  constructor(private estimate: (i: number) => number) {}

  get count(): number {
    return this.#keys.length;
  }

  /** The rows now are `keys`; rows before `from` kept their keys and content. */
  setRows(keys: readonly string[], from: number) {
    this.#keys = keys;
    if (this.#prefix.length < keys.length + 1) {
      const grown = new Float64Array(Math.max(keys.length + 1, this.#prefix.length * 2));
      grown.set(this.#prefix.subarray(0, this.#valid + 1));
      this.#prefix = grown;
    }
    this.#valid = Math.min(this.#valid, from, keys.length);
  }

  /** Row i's content changed: its measured height no longer holds, unless the row is observed
   *  (then a new size is reported by its observer, and the same size means the same height). */
  forget(i: number) {
    const key = this.#keys[i];
    if (this.#observed.has(key)) return;
    this.#measured.delete(key);
    this.#valid = Math.min(this.#valid, i);
  }

  observe(key: string, on: boolean) {
    if (on) this.#observed.add(key);
    else this.#observed.delete(key);
  }

  /** Every measured height no longer holds (the width changed); observed rows report theirs. */
  forgetAll() {
    for (const key of this.#measured.keys()) if (!this.#observed.has(key)) this.#measured.delete(key);
    this.#valid = 0;
  }

  keyAt(i: number): string | undefined {
    return this.#keys[i];
  }

  isMeasured(i: number): boolean {
    return this.#measured.has(this.#keys[i]);
  }

  /** Records row i's measured height; returns how much it differs from what was assumed. */
  measure(i: number, height: number): number {
    const before = this.height(i);
    this.#measured.set(this.#keys[i], height);
    if (height !== before) this.#valid = Math.min(this.#valid, i);
    return height - before;
  }

  height(i: number): number {
    return this.#measured.get(this.#keys[i]) ?? this.estimate(i);
  }

  /** Top of row i (i may be `count`: the total height). */
  offset(i: number): number {
    this.#fill(i);
    return this.#prefix[i];
  }

  get total(): number {
    return this.offset(this.#keys.length);
  }

  /** The row at height y (clamped to the rows there are; 0 when there are none). */
  indexAt(y: number): number {
    const n = this.#keys.length;
    if (n === 0) return 0;
    this.#fill(n);
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#prefix[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  #fill(upTo: number) {
    for (let i = this.#valid; i < upTo; i++) this.#prefix[i + 1] = this.#prefix[i] + this.height(i);
    this.#valid = Math.max(this.#valid, upTo);
  }
}
