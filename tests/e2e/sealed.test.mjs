// The isolated (sealed) URL window end to end: accepting /connect's sign-in with "Open in isolated
// window" starts a separate `porthole sealed-view` process (URL on its stdin, not its command line),
// the dialog shows its lifecycle, Reopen does not start a second one, and closing the app ends it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { launch, processesWithArg, waitUntil } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

const sealedViews = () => processesWithArg("sealed-view");

test("Open in isolated window runs a separate sealed process and reports its lifecycle", async () => {
  await app.waitText("header", "Connected");
  assert.deepEqual(sealedViews(), [], "no sealed view before consent");
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  await app.click("Open in isolated window");
  const [view] = await waitUntil("a sealed-view process", () => {
    const v = sealedViews();
    return v.length ? v : null;
  });
  assert.equal(view.cmdline.length, 2, `only "porthole sealed-view" on the command line: ${view.cmdline}`);
  assert.doesNotMatch(view.cmdline.join(" "), /state|authorize|127\.0\.0\.1/);
  await app.waitText("[role=dialog] .url-view", "Window opened.");
  await app.shot("09-sealed-view");

  // Reopen while it is open starts nothing new.
  await app.click("Reopen");
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(
    sealedViews().map((v) => v.pid),
    [view.pid],
  );

  // Closing the app closes the sealed window too.
  await app.close();
  app = null;
  await waitUntil("the sealed view to exit with the app", () => {
    try {
      const stat = readFileSync(`/proc/${view.pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
    } catch {
      return true;
    }
  }, 15000);
});

test("the app removes the web data that killed sealed views left behind when it starts", async () => {
  // A view killed with the app (SIGKILL) cannot remove its data directory; the app's next start
  // does, for views whose process is gone, and leaves a running one's alone.
  const { mkdirSync, existsSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  let dead = 4194000;
  for (;; dead++) {
    try {
      process.kill(dead, 0);
    } catch (e) {
      if (e.code === "ESRCH") break;
    }
  }
  const stale = join(tmpdir(), `porthole-sealed-${dead}-000000001`);
  const live = join(tmpdir(), `porthole-sealed-${process.pid}-000000001`);
  for (const dir of [stale, live]) mkdirSync(join(dir, "storage"), { recursive: true, mode: 0o700 });
  try {
    const again = await launch();
    try {
      await waitUntil("the stale data directory to be removed", () => !existsSync(stale), 15000);
      assert.ok(existsSync(live), "a running view's directory is kept");
    } finally {
      await again.close();
    }
  } finally {
    for (const dir of [stale, live]) rmSync(dir, { recursive: true, force: true });
  }
});
