import { describe, expect, it } from "vitest";
import { HeightCache } from "./height-cache";
import { seededRandom } from "../test/random";

/** The cache's answers, worked out the slow way from the heights it should hold. */
function expectSums(cache: HeightCache, heights: number[]) {
  expect(cache.count).toBe(heights.length);
  let top = 0;
  for (let i = 0; i < heights.length; i++) {
    expect(cache.height(i)).toBe(heights[i]);
    expect(cache.offset(i)).toBe(top);
    // Just inside the row, at its top, and (for rows with a height) at its last pixel.
    expect(cache.indexAt(top)).toBe(lastRowStartingAt(heights, top));
    if (heights[i] > 0) expect(cache.indexAt(top + heights[i] - 0.5)).toBe(i);
    top += heights[i];
  }
  expect(cache.total).toBe(top);
  expect(cache.indexAt(-10)).toBe(0);
  expect(cache.indexAt(top + 100)).toBe(Math.max(0, heights.length - 1));
}

/** The last row whose top is at or above y (rows of height 0 at y are passed over). */
function lastRowStartingAt(heights: number[], y: number): number {
  let top = 0;
  let found = 0;
  for (let i = 0; i < heights.length && top <= y; i++) {
    found = i;
    top += heights[i];
  }
  return found;
}

describe("row heights", () => {
  it("agree with plain sums through appends, measurements, forgetting, cuts and a width change", () => {
    const rand = seededRandom(11);
    let estimateOf = (i: number) => 20 + (i % 7) * 4;
    const cache = new HeightCache((i) => estimateOf(i));
    let keys: string[] = [];
    const measured = new Map<string, number>();
    let next = 0;
    const heightOf = (i: number) => measured.get(keys[i]) ?? estimateOf(i);
    const model = () => keys.map((_, i) => heightOf(i));

    for (let step = 0; step < 400; step++) {
      const op = rand(10);
      if (op < 3 || keys.length === 0) {
        // Rows arrive (several at once now and then).
        keys = [...keys, ...Array.from({ length: 1 + rand(40) }, () => `r${next++}`)];
        cache.setRows(keys, keys.length);
      } else if (op < 7) {
        const i = rand(keys.length);
        const h = rand(5) === 0 ? 0 : 10 + rand(200) + rand(64) / 64;
        const before = heightOf(i);
        measured.set(keys[i], h);
        expect(cache.measure(i, h)).toBe(h - before);
      } else if (op < 8) {
        const i = rand(keys.length);
        measured.delete(keys[i]);
        cache.forget(i);
      } else if (op < 9) {
        // Rows from `from` on are replaced (a message grew a segment before the last rows).
        const from = keys.length - rand(Math.min(keys.length, 25));
        keys = [...keys.slice(0, from), ...Array.from({ length: rand(30) }, () => `r${next++}`)];
        cache.setRows(keys, from);
      } else {
        const k = rand(5);
        estimateOf = (i: number) => 15 + ((i + k) % 9) * 3;
        measured.clear();
        cache.forgetAll();
      }
      if (step % 20 === 0 || step > 380) expectSums(cache, model());
    }
    expect(keys.length).toBeGreaterThan(1000);
    // Thousands of checked sums: seconds on a loaded machine, so not the runner's 5 s default.
  }, 60_000);

  it("keeps an observed row's measured height when asked to forget it", () => {
    const cache = new HeightCache(() => 30);
    cache.setRows(["a", "b"], 0);
    cache.measure(1, 50);
    cache.observe("b", true);
    cache.forget(1);
    cache.forgetAll();
    expect(cache.height(1)).toBe(50);
    cache.observe("b", false);
    cache.forget(1);
    expect(cache.height(1)).toBe(30);
    expect(cache.total).toBe(60);
  });
});
