// A real third-party agent in the real app: Claude Code (claude-agent-acp) in Porthole's window,
// driven through WebDriver under Xvfb, against the fake model API on 127.0.0.1: a streamed reply,
// an edit allowed in the permission dialog, a shell command's output, and cancel. Run by
// scripts/test-agents.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launch, By } from "../e2e/harness.mjs";
import { AGENTS } from "./agents.mjs";
import { throwawayHomes } from "./homes.mjs";
import { startFakeModels } from "./fake-models.mjs";

const claude = AGENTS.find((a) => a.id === "claude");
let server;
let app;
const homes = throwawayHomes("claude");
const home = (tag) => homes.make(tag);

before(async () => {
  server = await startFakeModels();
  const env = claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home: home("home") });
  const command = `node ${join(process.env.PORTHOLE_AGENT_CACHE, "node_modules", claude.entry)}`;
  app = await launch({ args: ["--agent", command], env });
});

after(async () => {
  await app?.close();
  server?.close();
  await homes.removeAll();
});

test("Claude Code connects in the window and streams a reply", async () => {
  await app.waitText("header", "Claude Agent", 60000);
  await app.waitText("header", "Connected", 60000);
  await app.prompt("hello from the Porthole window");
  await app.waitText("main.transcript", "Porthole fake model says:", 60000);
  await app.waitText("main.transcript", "hello from the Porthole window", 60000);
  await app.shot("agents-01-claude-reply");
});

test("Claude Code edits a file in the window after the user allows it", async () => {
  const target = join(app.workspace, "notes.txt");
  await app.prompt(`[[edit ${target} edited in the Porthole window]]`);
  await app.waitFor("[role=dialog]", 60000);
  await app.shot("agents-02-claude-permission");
  // Claude names its options "Yes" (allow this once), "Yes, allow all edits during this session", "No".
  await app.click("Yes");
  await app.noDialog(20000);
  await app.d.wait(async () => readFileSync(target, "utf8") === "edited in the Porthole window\n", 60000, "the file to be written");
  await app.waitText("main.transcript", "notes.txt", 30000);
  await app.shot("agents-03-claude-edited");
});

test("Claude Code runs a shell command in the window and its output is shown", async () => {
  const marker = `porthole-window-shell-${process.pid}`;
  await app.prompt(`[[shell echo ${marker}]]`);
  // Claude runs a read-only command like echo without asking; the output shows in its tool card
  // and goes back to the model.
  await app.waitText("main.transcript section.tool", marker, 60000);
  await app.waitText("main.transcript", `Tool finished: ${marker}`, 60000);
  await app.shot("agents-04-claude-shell");
});

test("Claude Code's question tool (AskUserQuestion) is a form in the window, and the answer reaches the model", async () => {
  await app.prompt("[[ask]]");
  await app.waitFor(`[role=dialog] [data-field=${claude.questionTool.field}]`, 60000);
  await app.waitText("[role=dialog]", "Which color?");
  for (const l of await app.d.findElements(By.css(`[data-field=${claude.questionTool.field}] label`))) {
    if ((await l.getText()).includes("Orange")) await l.click();
  }
  await app.shot("agents-06-claude-question");
  await app.click("Submit…");
  await app.waitText("[role=dialog]", "exactly what will be sent");
  await app.click("Send");
  await app.noDialog();
  // The fake model ends its turn with the last line of the tool's result: the answer it got.
  await app.waitText("main.transcript", "Tool finished:", 60000);
  await app.waitText("main.transcript", "Orange", 60000);
});

test("Claude Code's turn is cancelled from the window mid-stream", async () => {
  await app.prompt("[[slow 40]]");
  await app.waitText("main.transcript", "step-3", 60000);
  await (await app.waitFor("form.prompt .btn.danger")).click();
  await app.waitText("main.transcript", "Turn ended: cancelled", 30000);
  assert.ok(!(await app.transcript()).includes("step-39"), "the slow answer ran to its end");
});

test("Claude Code without a key asks to sign in at the first prompt, and the window lists its methods", async () => {
  const env = claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home: home("nokey"), signedIn: false });
  const command = `node ${join(process.env.PORTHOLE_AGENT_CACHE, "node_modules", claude.entry)}`;
  const signedOut = await launch({ args: ["--agent", command], env });
  try {
    await signedOut.waitText("header", "Connected", 60000);
    await signedOut.prompt("hello without a key");
    await signedOut.waitText(".signin", "needs you to sign in", 60000);
    const methods = await signedOut.text(".signin .auth-methods");
    assert.match(methods, /in a terminal/, "Claude's login methods run in a terminal");
    await signedOut.shot("agents-05-claude-sign-in");
  } finally {
    await signedOut.close();
  }
});
