/** A repeatable sequence of integers below `n` (a linear congruential generator), for tests. */
export function seededRandom(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}
