// An MCP server's questions in the real window: the official MCP TypeScript SDK's
// `elicitationFormExample.js` (a server nobody here wrote, installed by scripts/test-mcp-ts-sdk)
// asks while the demo agent (which declares no elicitation to its MCP servers) calls its tool.
// Porthole's gateway takes the question out; the window's dialog names the server and the agent
// whose session it came through, and the answers reach the server, whose result reaches the agent.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launchWithConnections } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const example = join(
  here,
  "../mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationFormExample.js",
);
let app;
let server;

/** A port free now (the example listens on every interface). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "0.0.0.0", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

before(async () => {
  assert.ok(existsSync(example), `${example} is missing: run ./scripts/test-mcp-ts-sdk --install`);
  const port = await freePort();
  server = spawn(process.execPath, [example], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stdout });
    lines.on("line", (l) => l.includes("is running on") && resolve());
    server.once("exit", (code) => reject(new Error(`the example server exited (${code})`)));
  });
  ({ app } = await launchWithConnections({ forms: { url: `http://127.0.0.1:${port}/mcp` } }));
});
after(async () => {
  await app?.close();
  server?.kill();
});

test("the server's form is asked in the window, naming the server, and the answers reach it", async () => {
  await app.waitText("header", "Connected");
  await app.prompt("/tools forms create_event {}");
  await app.waitText("[role=dialog]", "Step 1: Enter basic event information");
  assert.equal(await app.text("[role=dialog] .asker-name"), "The MCP server “forms”");
  assert.equal(await app.text("[role=dialog] .asker-via"), "(through Porthole Demo Agent's session · 127.0.0.1)");
  await app.type("title", "Standup");
  await app.shot("60-mcp-server-question-form");
  await app.submitAndSend("Step 2: Enter date and time");
  // The second question declined: the server says so in the tool's result, which the agent shows.
  await app.click("Decline");
  await app.noDialog();
  await app.waitText("main.transcript", "Event creation cancelled.");
  await app.shot("61-mcp-server-question-answered");
});
