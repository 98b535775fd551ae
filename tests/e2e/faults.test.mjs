// The agent dies while the user is being asked something or while a turn runs: every dialog it
// left says why it went away, its isolated window closes, and the user can restart the agent.
// A sealed window that crashes is reported in its dialog.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { launch, processesWithArg, waitUntil, isZombie } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

/** This app's demo agent: its parent is the app started on this test's workspace (another
 * Porthole on the machine, e.g. a second test run, has its own). */
function ownDemoAgent() {
  const parentArgs = (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
    return readFileSync(`/proc/${ppid}/cmdline`, "utf8").split("\0");
  };
  return processesWithArg("demo-agent").find((p) => {
    try {
      return parentArgs(p.pid).includes(app.workspace);
    } catch {
      return false;
    }
  });
}

function killDemoAgent() {
  const agent = ownDemoAgent();
  assert.ok(agent, "the demo agent runs");
  process.kill(agent.pid, "SIGKILL");
  return agent.pid;
}

async function restartAndReconnect() {
  await app.waitFor(".error-panel");
  await app.waitText(".error-panel", "signal 9");
  await app.click("Restart agent", ".error-panel");
  await app.waitText("header", "Connected");
  const box = await app.waitFor("#prompt-input");
  await app.d.wait(async () => box.isEnabled(), 20000, "prompt box enabled after restart");
}

test("killed mid-elicitation: the form closes with a note in the transcript and Restart brings the agent back", async () => {
  await app.waitText("header", "Connected");
  await app.prompt("/configure");
  await app.waitFor("[role=dialog] form");
  killDemoAgent();
  await app.waitText("main.transcript", "Withdrawn before you answered");
  await app.waitText("main.transcript", "The agent stopped running.");
  await app.noDialog();
  await app.shot("14-killed-mid-elicitation");
  await restartAndReconnect();
});

test("killed mid-permission: the permission dialog closes, the transcript says the agent stopped", async () => {
  await app.prompt("/edit");
  await app.waitText("[role=dialog]", "Edit notes.txt");
  killDemoAgent();
  await app.waitText("main.transcript", "permission for “Edit notes.txt” — The agent stopped running.");
  await app.noDialog();
  await restartAndReconnect();
});

test("killed mid-turn: the transcript says so and the prompt box waits for a restart", async () => {
  await app.prompt("/slow");
  await app.waitFor("button.btn.danger"); // Stop
  killDemoAgent();
  await app.waitText("main.transcript", "The agent stopped");
  const box = await app.find("#prompt-input");
  assert.equal(await box.isEnabled(), false);
  await restartAndReconnect();
});

test("killed while its sign-in page is open: the isolated window closes with it", async () => {
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  await app.click("Open in isolated window");
  const [view] = await waitUntil("a sealed-view process", () => {
    const v = processesWithArg("sealed-view");
    return v.length ? v : null;
  });
  killDemoAgent();
  await waitUntil("the sealed view to close with its agent", () => isZombie(view.pid), 15000);
  await app.waitText("main.transcript", "a sign-in page — The agent stopped running.");
  await app.noDialog();
  await restartAndReconnect();
});

test("a crashed isolated window is reported in its dialog", async () => {
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  await app.click("Open in isolated window");
  await app.waitText("[role=dialog] .url-view", "Window opened.");
  const [view] = processesWithArg("sealed-view");
  process.kill(view.pid, "SIGKILL");
  await app.waitText("[role=dialog] .url-view", "The window crashed.");
  await app.shot("15-sealed-crashed");
  await app.click("Dismiss");
});
