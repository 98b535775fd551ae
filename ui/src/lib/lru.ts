// A bounded cache that forgets what was used least recently (issue 34): rendered HTML is kept for
// the rows shown last, not for every row ever shown. Scrolling once through a long history no
// longer leaves the HTML of all of it behind; a row shown again after eviction renders again.

export class Lru<K, V> {
  /** A Map iterates in insertion order: the first key is the least recently used. */
  #entries = new Map<K, V>();
  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Keeps `value` for `key`, forgetting the least recently used entry past the capacity. */
  set(key: K, value: V) {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K) {
    this.#entries.delete(key);
  }
}
