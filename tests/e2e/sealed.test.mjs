// The isolated (sealed) URL window end to end: accepting /connect's sign-in with "Open in isolated
// window" starts a separate `porthole sealed-view` process (URL on its stdin, not its command line),
// the dialog shows its lifecycle, Reopen does not start a second one, and closing the app ends it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { launch } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

/** Processes running `<anything> sealed-view`, with their command lines. */
function sealedViews() {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      continue;
    }
    if (cmdline[1] === "sealed-view") found.push({ pid: Number(name), cmdline });
  }
  return found;
}

async function waitUntil(what, fn, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
