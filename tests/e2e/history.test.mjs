// Consent history, domain memory and settings in the real app: the URL dialog's first-time
// notice and its count, a trust mark, the History view (filter, export, clear), and settings
// that take effect (theme at once, elicitation modes when the agent next connects).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launch, By, processesWithArg } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

async function connectDialog() {
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  return app.text("[role=dialog] .domain-memory");
}

test("the URL dialog says first time, then counts consents, and honours a trust mark", async () => {
  await app.waitText("header", "Connected");
  assert.match(await connectDialog(), /First time Porthole Demo Agent sends you to 127\.0\.0\.1/);
  await app.shot("19-first-time-domain");
  await app.click("Decline");
  await app.noDialog();

  // A decline is not a visit: still the first time. Consent this time.
  assert.match(await connectDialog(), /First time/);
  await app.click("Open in isolated window");
  await app.waitText("[role=dialog] .url-view", "Window opened.");
  await app.click("Dismiss");
  await app.noDialog();
  // The agent waits for the sign-in to finish: stop that turn and close the page's window, as a
  // person who changed their mind would.
  await app.click("Stop", "form.prompt");
  for (const v of processesWithArg("sealed-view")) process.kill(v.pid, "SIGTERM");

  assert.match(await connectDialog(), /You have opened 127\.0\.0\.1 for Porthole Demo Agent 1 time/);
  await app.click("Trust 127.0.0.1 for Porthole Demo Agent");
  await app.waitText("[role=dialog] .domain-memory", "You marked 127.0.0.1 as trusted");
  await app.click("Decline");
  await app.noDialog();
  assert.match(await connectDialog(), /You marked 127\.0\.0\.1 as trusted for Porthole Demo Agent and opened it 1 time/);
  await app.click("Cancel");
  await app.noDialog();
});

test("the History view lists every answer, filters, exports JSON and clears", async () => {
  await app.prompt("/edit");
  await app.waitText("[role=dialog]", "Edit notes.txt");
  await app.click("Reject");
  await app.noDialog();

  await app.click("History", "nav");
  await app.waitFor(".history .history-row");
  await app.waitText(".page-actions", "5 entries");
  const rows = await app.d.findElements(By.css(".history .history-row"));
  assert.equal(rows.length, 5);
  // Newest first: the rejected permission, then the URL dialogs (cancel, decline, accept, decline).
  assert.match(await rows[0].getText(), /Permission[\s\S]*Edit notes\.txt/);
  assert.match(await rows[1].getText(), /Web page[\s\S]*127\.0\.0\.1[\s\S]*Cancelled/);
  assert.match(await rows[3].getText(), /Accepted/);
  await app.shot("20-history");

  await app.d.executeScript(
    `const s = document.querySelectorAll(".filters select")[1]; s.value = "permission"; s.dispatchEvent(new Event("change", { bubbles: true }));`,
  );
  await app.d.wait(async () => /^1 entry/.test(await app.text(".page-actions [role=status]")), 20000).catch(async () => {
    assert.fail(`after filtering by kind: ${await app.text(".page-actions")} / ${await app.text(".history")}`);
  });

  await app.click("Export JSON", "main");
  // The export holds the whole history, whatever the filter shows.
  await app.waitText("main .completed", "Exported 5 entries");
  const path = (await app.text("main .completed")).replace(/^Exported \d+ entr(y|ies) to /, "");
  assert.ok(existsSync(path), `export file ${path}`);
  const exported = JSON.parse(readFileSync(path, "utf8"));
  const list = Array.isArray(exported) ? exported : exported.entries;
  assert.equal(list.length, 5);
  assert.deepEqual(list.map((e) => e.kind), ["url", "url", "url", "url", "permission"]);

  await app.click("Clear history…", "main");
  await app.click("Delete all", "main");
  await app.waitText("main .completed", "Removed 5 entries");
  await app.waitText(".history", "Nothing recorded");
});

test("settings take effect: the theme at once, the modes when the agent reconnects", async () => {
  await app.click("Settings", "nav");
  await app.waitFor("form.settings");
  await app.d.executeScript(
    `const s = document.querySelector("form.settings select"); s.value = "dark"; s.dispatchEvent(new Event("change", { bubbles: true }));`,
  );
  // Turn URL mode off (the second checkbox of the modes group).
  const boxes = await app.d.findElements(By.css("form.settings fieldset input[type=checkbox]"));
  await boxes[1].click();
  await app.click("Save settings", "main");
  await app.waitText("main .completed", "Saved");
  // The saved settings come back with the next snapshot, and the window follows them.
  await app.d.wait(async () => (await app.exec(`return document.documentElement.dataset.theme`)) === "dark", 10000, "dark theme");
  const bg = await app.exec(`return getComputedStyle(document.body).backgroundColor`);
  assert.equal(bg, "rgb(21, 23, 27)");
  await app.shot("21-settings-dark");
  const settingsFile = join(app.home, ".config", "porthole", "settings.json");
  const saved = JSON.parse(readFileSync(settingsFile, "utf8"));
  assert.equal(saved.theme, "dark");
  assert.equal(saved.urlMode, false);

  // The agent learns the new modes when it next connects: /connect then refuses to ask.
  await app.click("Conversation", "nav");
  await app.click("Restart", ".sidebar");
  // The new connection opens a new, empty session.
  await app.waitFor("main.transcript .empty");
  await app.waitText("header", "Connected");
  const box = await app.waitFor("#prompt-input");
  await app.d.wait(async () => box.isEnabled(), 20000, "prompt box enabled after restart");
  await app.prompt("/connect");
  await app.waitText("main.transcript", "does not support URL elicitation");
  assert.equal((await app.d.findElements(By.css("[role=dialog]"))).length, 0);
});
