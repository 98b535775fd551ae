// The demo agent's tool calls in the real app: a diff in a permission dialog (/edit), and a
// command that asks permission and then runs in a terminal embedded in its tool call (/test).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { launch } from "./harness.mjs";

let app;
before(async () => {
  // ACP v1's client side: the edit is written through Porthole's fs/write_text_file and the
  // command runs in Porthole's terminal (terminal/create). The demo agent speaks v2 by default,
  // where both are the agent's own: pinned to v1 here (tests/e2e/v2.test.mjs covers v2).
  app = await launch({ env: { PORTHOLE_DEMO_AGENT_PROTOCOLS: "1" } });
});
after(async () => {
  await app?.close();
});

test("a tool call with a diff asks permission, and allowing it writes the file", async () => {
  await app.waitText("header", "Connected");
  await app.prompt("/edit");
  await app.waitText("[role=dialog]", "Edit notes.txt");
  // The diff is shown in the dialog: the file and the lines the edit adds.
  await app.waitFor("[role=dialog] .diff .dl.add");
  assert.match(await app.text("[role=dialog] .diff figcaption"), /notes\.txt/);
  await app.click("Allow");
  await app.noDialog();
  await app.waitText("main.transcript", "notes.txt");
  await app.waitFor("main.transcript .tool .diff");
  const written = readFileSync(join(app.workspace, "notes.txt"), "utf8");
  assert.notEqual(written, "Original notes.\n", "the agent's fs/write_text_file reached the workspace");
});

test("a command runs in a terminal shown live inside its tool call", async () => {
  await app.prompt("/test");
  await app.waitText("[role=dialog]", "Run the demo test suite");
  await app.shot("12-permission-execute");
  await app.click("Run");
  await app.noDialog();
  await app.waitText("main.transcript .tool .term-out", "test parser ... ok");
  await app.waitText("main.transcript .tool .term-out", "3 passed");
  await app.waitText("main.transcript .tool .terminal figcaption", "exit 0");
  await app.waitText("main.transcript", "All 3 tests passed.");
  await app.shot("13-terminal-in-tool-call");
});
