// An agent that fails to start: the window says so, shows its stderr, and offers Restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./harness.mjs";

let app;
before(async () => {
  app = await launch({ args: ["--agent", "sh -c 'echo config file is broken >&2; exit 3'"] });
});
after(async () => {
  await app?.close();
});

test("a failing agent shows the error, its stderr tail and a Restart button", async () => {
  await app.waitFor(".error-panel");
  await app.waitText(".error-panel", "exit status 3");
  assert.match(await app.text(".error-panel pre.stderr"), /config file is broken/);
  await app.shot("08-agent-failed");
  // Restart runs the same command again and fails the same way, visibly.
  await app.click("Restart agent", ".error-panel");
  await app.waitText(".error-panel", "exit status 3");
  const box = await app.find("#prompt-input");
  assert.equal(await box.isEnabled(), false, "no prompting without an agent");
});
