// Which backend the window talks to: the app's (Tauri), or the demo mock in mock builds. Kept
// apart from backend.ts so the mock, which implements backend.ts's interface, is not imported
// by it (no import circle).
import { TauriBackend, inTauri, type Backend } from "./backend";

/** Whether this build carries the demo mock: the dev server and the `mock` build (for the
 * browser tests) do; the app's production build does not, so the bundle never holds it. */
const MOCK_BUILD = import.meta.env.DEV || import.meta.env.MODE === "mock";

/** Tauri when running inside the app; the demo mock otherwise or with `?mock` (mock builds only). */
export async function createBackend(): Promise<Backend> {
  if (MOCK_BUILD) {
    const wantMock = typeof location !== "undefined" && new URLSearchParams(location.search).has("mock");
    if (!inTauri() || wantMock) {
      const { MockBackend } = await import("./mock");
      return new MockBackend();
    }
  }
  if (!inTauri()) throw new Error("Porthole's window runs inside the app (or the dev server: npm run dev)");
  return new TauriBackend();
}
