// ACP v2 in the real window, with the embedded demo agent speaking v2 (the app's default,
// protocol auto): the version beside the agent's name, the running state in the prompt box
// and the sidebar, a follow-up queued while the agent works, the agent's own terminal inside
// its tool call, background work with its Cancel, and a subagent as a collapsible thread inside
// the tool call that started it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./harness.mjs";

let app;
before(async () => {
  app = await launch({ env: { PORTHOLE_DEMO_AGENT_PROTOCOLS: "1,2" } });
});
after(async () => {
  await app?.close();
});

/** The user's messages the transcript shows (the rows rendered now), as their text. */
const userMessages = () =>
  app.exec("return [...document.querySelectorAll('main.transcript .msg.user')].map((m) => m.textContent.trim())");

test("the header says the connection speaks ACP v2", async () => {
  await app.waitText("header", "Connected");
  await app.waitText("header .protocol-version", "ACP v2");
});

test("the running state: working while the agent streams, a follow-up queued, idle after", async () => {
  await app.prompt("/slow");
  await app.waitText("form.prompt .run-state", "Working…");
  await app.waitFor(".session-row .busy-dot.run-working");
  // Typed while the agent works: held by the window, shown, sent when the session is idle.
  const box = await app.waitFor("#prompt-input");
  await box.sendKeys("/notices");
  await box.sendKeys("\uE007");
  await app.waitFor(".follow-up.queued");
  assert.match(await app.exec("return document.querySelector('.follow-up.queued').textContent"), /\/notices/);
  // The agent echoes each prompt (`user_message` with the messageId the prompt's answer names):
  // its message takes the window's own echo over, so the prompt shows once.
  await app.waitText("main.transcript", "Working… step 1", 30000);
  assert.deepEqual(await userMessages(), ["/slow"], "the prompt shown exactly once");
  await app.shot("v2-running-state");
  await app.waitText("main.transcript", "Sent three notices", 40000);
  // Each notice says its severity in a word, not by its colour alone.
  const severities = await app.exec("return [...document.querySelectorAll('main.transcript .notice .severity')].map((s) => s.textContent)");
  assert.deepEqual(severities, ["Info:", "Warning:", "Error:"]);
  assert.equal(await app.count(".follow-up"), 0, "the queued follow-up went out");
  await app.waitText("form.prompt .run-state", "Idle", 30000);
  // The follow-up too is shown once (the first prompt has scrolled out of the rendered rows).
  assert.deepEqual(await userMessages(), ["/notices"], "the follow-up shown exactly once");
});

test("cost and compaction: the cost in the header stays when a later usage leaves it out", async () => {
  await app.prompt("/cost");
  await app.waitText("header .usage", "2% of context · 0.0123 USD", 30000);
  await app.waitText("form.prompt .run-state", "Idle", 30000);
  // The compaction's progress, then its summary; its usage_update has no cost (v2: unchanged).
  await app.prompt("/compact");
  await app.waitText("main.transcript", "Compacted the context", 30000);
  const compaction = await app.exec("return document.querySelector('main.transcript details.compaction').textContent");
  assert.match(compaction, /The conversation was compacted/);
  assert.match(compaction, /They asked about v2 updates\. Nothing is pending\./);
  await app.waitText("header .usage", "1% of context · 0.0123 USD", 30000);
  await app.exec("document.querySelector('main.transcript details.compaction').open = true");
  await app.shot("v2-cost-compaction");
});

test("the agent's own terminal shows inside its tool call", async () => {
  await app.prompt("/test");
  await app.waitText("[role=dialog]", "Run");
  await app.click("Run");
  await app.noDialog();
  await app.waitText("main.transcript .tool .terminal figcaption", "exit 0", 30000);
  assert.equal(await app.count("main.transcript .terminal"), 1, "shown once, in its tool call");
});

test("background work is listed with its kind and title, and Cancel stops it", async () => {
  await app.prompt("/background");
  await app.waitFor(".background-work .bg-item", 30000);
  assert.match(await app.exec("return document.querySelector('.background-work').textContent"), /Index the workspace in the background/);
  await app.shot("v2-background-work");
  await app.click("Cancel", ".background-work");
  // The agent stopped it (tool_call/cancel): its call failed, and the list is empty.
  await app.d.wait(
    async () => /Failed/.test(await app.exec(`return document.querySelector('[aria-label="Tool call Index the workspace in the background"]').textContent`)),
    20000,
    "the background tool call failed (cancelled)",
  );
  await app.d.wait(async () => (await app.count(".background-work")) === 0, 20000, "the background work gone");
  assert.equal(await app.count(".background-work .dlg-error"), 0);
});

test("a subagent is a collapsible thread inside the tool call that started it", async () => {
  await app.prompt("/subagent");
  const thread = 'main.transcript [aria-label="Tool call Ask a subagent to read notes.txt"] .subagent';
  await app.waitText(`${thread} .subagent-head`, "Reader", 30000);
  await app.waitText("form.prompt .run-state", "Idle", 30000);
  // Its state as the parent mirrors it, what it was asked, what it answered, what its own
  // session said.
  await app.waitText(`${thread} .subagent-head`, "Idle", 30000);
  await app.waitText(`${thread} .subagent-body`, "Read notes.txt and tell me what it says.");
  await app.waitText(`${thread} .subagent-body`, "Answered");
  await app.waitText(`${thread} .subagent-body`, "In its own session");
  assert.equal(await app.count("main.transcript .subagent"), 1, "drawn once: in its call, no row of its own");
  const unknown = await app.exec(
    "return [...document.querySelectorAll('.unknown-update summary')].map((s) => s.textContent).join(' ')",
  );
  assert.doesNotMatch(unknown, /subagent_update|session_message/, "no subagent update is shown as unknown");
  await app.shot("v2-subagent");

  // Collapsed and opened again from the keyboard (Enter, then Space, on its header).
  const head = await app.waitFor(`${thread} .subagent-head`);
  await head.sendKeys("\uE007");
  await app.d.wait(async () => (await head.getAttribute("aria-expanded")) === "false", 5000, "collapsed by Enter");
  assert.equal(await app.count(`${thread} .subagent-body`), 0, "its messages hidden");
  await head.sendKeys(" ");
  await app.d.wait(async () => (await head.getAttribute("aria-expanded")) === "true", 5000, "opened by Space");
  await app.waitText(`${thread} .subagent-body`, "Read notes.txt and tell me what it says.");
});
