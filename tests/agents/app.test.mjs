// A real third-party agent in the real app: Claude Code (claude-agent-acp) in Porthole's window,
// driven through WebDriver under Xvfb, against the fake model API on 127.0.0.1: a streamed reply,
// an edit allowed in the permission dialog, a shell command's output, cancel, and an MCP App (the
// official basic-vanillajs example, handed as a connection) under Claude's tool call, its button,
// link and message each going through the person. Run by
// scripts/test-agents.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, tempDir, By, until } from "../e2e/harness.mjs";
import { startExample } from "../e2e/apps/examples.mjs";
import { appFrames, useBasicApp } from "../e2e/apps/use-app.mjs";
import { AGENTS } from "./agents.mjs";
import { throwawayHomes } from "./homes.mjs";
import { startFakeModels } from "./fake-models.mjs";

const claude = AGENTS.find((a) => a.id === "claude");
let server;
let app;
let example;
const homes = throwawayHomes("claude");
const home = (tag) => homes.make(tag);

before(async () => {
  server = await startFakeModels();
  example = await startExample("server-basic-vanillajs");
  const connections = join(tempDir("porthole-agents-apps-"), "connections.json");
  writeFileSync(connections, JSON.stringify({ connections: { apps: { url: example.url } } }));
  const env = claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home: home("home") });
  const command = `node ${join(process.env.PORTHOLE_AGENT_CACHE, "node_modules", claude.entry)}`;
  app = await launch({ args: ["--agent", command], env: { ...env, PORTHOLE_CONNECTIONS_FILE: connections } });
});

after(async () => {
  await app?.close();
  server?.close();
  example?.kill();
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

test("Claude Code calls an MCP App's tool: the app renders under Claude's tool call with the tool's result, and its button, link and message go through the person", async () => {
  await app.prompt("[[mcp get-time]]");
  // Claude may ask before it calls an MCP tool: allowed once, as a person would.
  await app.d.wait(async () => {
    if ((await app.count(".vrow section.tool + section.mcp-app")) > 0) return true;
    if ((await app.count("[role=dialog]")) > 0) await app.click("Yes").catch(() => {});
    return false;
  }, 90000, "the app under Claude's tool call");
  const frame = await app.waitFor('section.mcp-app[aria-label="App of the MCP server apps"] iframe', 30000);
  await app.d.switchTo().frame(frame);
  try {
    const time = await app.d.wait(until.elementLocated(By.css("#server-time")), 30000);
    await app.d.wait(async () => /\d{4}-\d{2}-\d{2}T/.test(await time.getText()), 30000, "get-time's result in the app");
  } finally {
    await app.d.switchTo().defaultContent();
  }
  await app.shot("agents-07-claude-mcp-app");
  await useBasicApp(app, "apps", { asked: "agents-08-claude-mcp-app-asks" });
  await appFrames(app).clearPrompt();
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
