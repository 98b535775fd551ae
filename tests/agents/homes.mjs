// Throwaway HOMEs for the agents' window tests, removed when the file's tests end.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `make(tag)` makes a HOME named `porthole-app-PREFIX-TAG-*`; `removeAll()` removes them all. */
export function throwawayHomes(prefix) {
  const homes = [];
  return {
    make(tag) {
      const dir = mkdtempSync(join(tmpdir(), `porthole-app-${prefix}-${tag}-`));
      homes.push(dir);
      return dir;
    },
    async removeAll() {
      // An agent may still write its lock files for a moment after the app closed: look again.
      for (let attempt = 0; attempt < 20 && homes.some((dir) => existsSync(dir)); attempt++) {
        for (const dir of homes) rmSync(dir, { recursive: true, force: true });
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}
