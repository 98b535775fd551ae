// The demo agent's sign-in, completed in the sealed window by keyboard (the sealed window is a
// separate process that WebDriver cannot reach, which is the point): consent, Authorize,
// elicitation/complete, and the dialog shows "Completed".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { launch } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

function xdotool(...args) {
  const r = spawnSync("xdotool", args, { encoding: "utf8", timeout: 20000 });
  if (r.status !== 0) throw new Error(`xdotool ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout.trim();
}

test("authorize in the sealed view completes the URL elicitation", async () => {
  await app.waitText("header", "Connected");
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  await app.click("Open in isolated window");
  await app.waitText("[role=dialog] .url-view", "Window opened.");
  const win = xdotool("search", "--sync", "--name", "^Sign in").split("\n")[0];
  await app.shot("10-sealed-signin-page");
  xdotool("windowfocus", "--sync", win);
  // The first focusable control of the page is the Authorize button.
  xdotool("key", "--clearmodifiers", "Tab");
  xdotool("key", "--clearmodifiers", "Return");
  await app.waitText("[role=dialog]", "Completed", 20000);
  await app.shot("11-url-completed");
  await app.waitText("main.transcript", "Connected to the Porthole Demo service.");
  // "Close window" closes the dialog and the isolated window with it.
  await app.click("Close window");
  await app.noDialog();
  for (let i = 0; ; i++) {
    const r = spawnSync("xdotool", ["search", "--name", "^Sign in"], { encoding: "utf8" });
    if (r.status !== 0 || !r.stdout.trim()) break;
    if (i > 50) throw new Error("the sealed window is still open");
    await new Promise((res) => setTimeout(res, 100));
  }
  const t = await app.transcript();
  assert.doesNotMatch(t, /porthole_demo_session/, "nothing obtained out of band reaches the transcript");
});
