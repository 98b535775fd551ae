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
      // An agent may still write its files for a moment after the app closed, so a removal can
      // race a new file (ENOTEMPTY): look again, and say which HOME stayed rather than fail a test.
      for (let attempt = 0; attempt < 20 && homes.some((dir) => existsSync(dir)); attempt++) {
        for (const dir of homes) {
          try {
            rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
          } catch (error) {
            if (attempt === 19) console.log(`# could not remove ${dir}: ${error.message}`);
          }
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
  };
}

/** Remove `dir` and everything in it, looking again when a process still writing there makes the
 *  removal race a new file (ENOTEMPTY); a folder that stays is said, never a crash: the tests'
 *  results are what counts. */
export function removeTree(dir) {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      return;
    } catch (error) {
      if (attempt === 19) console.log(`# could not remove ${dir}: ${error.message}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
}
