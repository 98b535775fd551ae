// Heights of a virtual list's rows: measured ones (by key) and estimates for the rest, with
// "where does row i start" and "which row is at y" (issue 16).
//
// The heights are kept in a Fenwick tree (binary indexed tree): changing one row's height and
// asking for a row's offset both cost O(log n). Prefix sums recomputed from the changed row
// cost ~12 ms a frame while scrolling 100,000 rows (each frame measures rows near the view,
// and every row below them was summed again); the tree makes that a few microseconds.
// Appending rows costs O(log n) each.

/** What identifies a row across changes (a number costs no string per row). */
export type RowKey = string | number;

export class HeightCache {
  #keys: readonly RowKey[] = [];
  #measured = new Map<RowKey, number>();
  /** Rows in the DOM under a ResizeObserver: their measured height follows their content. */
  #observed = new Set<RowKey>();
  /** The height assumed for each row (measured, else estimated), for the first `#n` rows. */
  #h = new Float64Array(0);
  /** Fenwick tree over `#h`, 1-based: `#tree[k]` sums rows (k - lowbit(k), k]. */
  #tree = new Float64Array(1);
  #n = 0;

  /** `estimate(i)`: a height for row i before it is measured. */
  constructor(private estimate: (i: number) => number) {}

  get count(): number {
    return this.#n;
  }

  /** The rows now are `keys`; rows before `from` kept their keys and content. */
  setRows(keys: readonly RowKey[], from: number) {
    this.#keys = keys;
    // Tree entries only cover rows at or before their index: cutting the tail keeps the rest valid.
    this.#n = Math.min(this.#n, from, keys.length);
    this.#reserve(keys.length);
    while (this.#n < keys.length) this.#append(this.#assumed(this.#n));
  }

  /** Row i's content changed: its measured height no longer holds, unless the row is observed
   *  (then a new size is reported by its observer, and the same size means the same height). */
  forget(i: number) {
    const key = this.#keys[i];
    if (i >= this.#n || this.#observed.has(key)) return;
    this.#measured.delete(key);
    this.#set(i, this.estimate(i));
  }

  observe(key: RowKey, on: boolean) {
    if (on) this.#observed.add(key);
    else this.#observed.delete(key);
  }

  /** Every measured height no longer holds (the width changed); observed rows report theirs. */
  forgetAll() {
    for (const key of this.#measured.keys()) if (!this.#observed.has(key)) this.#measured.delete(key);
    const n = this.#n;
    this.#n = 0;
    this.#tree.fill(0);
    for (let i = 0; i < n; i++) this.#append(this.#assumed(i));
  }

  keyAt(i: number): RowKey | undefined {
    return this.#keys[i];
  }

  isMeasured(i: number): boolean {
    return this.#measured.has(this.#keys[i]);
  }

  /** Records row i's measured height; returns how much it differs from what was assumed. */
  measure(i: number, height: number): number {
    const before = this.height(i);
    this.#measured.set(this.#keys[i], height);
    if (i < this.#n && height !== before) this.#set(i, height);
    return height - before;
  }

  height(i: number): number {
    return i < this.#n ? this.#h[i] : this.#assumed(i);
  }

  /** Top of row i (i may be `count`: the total height). */
  offset(i: number): number {
    let sum = 0;
    for (let k = Math.min(i, this.#n); k > 0; k -= k & -k) sum += this.#tree[k];
    return sum;
  }

  get total(): number {
    return this.offset(this.#n);
  }

  /** The row at height y (clamped to the rows there are; 0 when there are none): the last row
   *  whose top is at or above y, found by walking down the tree. */
  indexAt(y: number): number {
    const n = this.#n;
    if (n === 0) return 0;
    let pos = 0;
    let rest = y;
    for (let step = 1 << Math.floor(Math.log2(n)); step > 0; step >>= 1) {
      const k = pos + step;
      if (k <= n && this.#tree[k] <= rest) {
        pos = k;
        rest -= this.#tree[k];
      }
    }
    // `pos` rows end at or above y: row `pos` is the one at y.
    return Math.min(pos, n - 1);
  }

  #assumed(i: number): number {
    return this.#measured.get(this.#keys[i]) ?? this.estimate(i);
  }

  #reserve(n: number) {
    if (this.#h.length >= n) return;
    const size = Math.max(n, this.#h.length * 2, 64);
    const h = new Float64Array(size);
    h.set(this.#h.subarray(0, this.#n));
    const tree = new Float64Array(size + 1);
    tree.set(this.#tree.subarray(0, this.#n + 1));
    this.#h = h;
    this.#tree = tree;
  }

  /** Appends a row of height `v` (room reserved): its tree entry sums the rows it covers. */
  #append(v: number) {
    const k = this.#n + 1;
    this.#h[this.#n] = v;
    this.#n = k;
    this.#tree[k] = v + this.offset(k - 1) - this.offset(k - (k & -k));
  }

  #set(i: number, v: number) {
    const d = v - this.#h[i];
    if (d === 0) return;
    this.#h[i] = v;
    for (let k = i + 1; k <= this.#n; k += k & -k) this.#tree[k] += d;
  }
}
