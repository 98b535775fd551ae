// MCP connections in the real app: the demo agent's session gets them (a remote server through
// the app's gateway and `porthole mcp-bridge`, a stdio server directly) and calls a tool; the
// MCP connections view shows each one, lists its tools through the gateway, and switches one off.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { launchWithConnections, targetDir } from "./harness.mjs";

const testMcp = join(targetDir, "debug", "porthole-test-mcp");
let app;
let server;
let file;

before(async () => {
  server = spawn(testMcp, ["--open"], { stdio: ["ignore", "pipe", "inherit"] });
  const ready = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once("line", resolve);
    server.once("error", reject);
  });
  const url = ready.replace(/^ready /, "");
  ({ app, file } = await launchWithConnections({ tracker: { url }, local: { command: testMcp, args: ["--stdio"] } }));
});
after(async () => {
  await app?.close();
  server?.kill();
});

test("the agent's session gets the connections and calls a tool through the gateway", async () => {
  await app.waitText("header", "Connected");
  await app.prompt('/tools tracker echo {"text": "from the window"}');
  await app.waitText("main.transcript", "tracker answered: echo: from the window");
  await app.prompt("/tools");
  await app.waitText("main.transcript", "MCP server local: echo, whoami, env");
  await app.shot("30-mcp-tools-in-a-session");
});

test("the MCP connections view lists them, shows tools, and switches one off", async () => {
  await app.click("MCP connections", "nav");
  await app.waitText("[data-connection=tracker]", "Every agent");
  await app.waitText("[data-connection=local]", "Nothing to sign in to");
  await app.click("Show tools", "[data-connection=tracker]");
  await app.waitText("[data-connection=tracker] .mcp-tools", "echo");
  await app.waitText("[data-connection=tracker] .mcp-tools", "whoami");
  await app.shot("31-mcp-connections-view");
  await (await app.find("[data-connection=local] input[role=switch]")).click();
  await app.waitText("[data-connection=local]", "Off");
  const saved = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(saved.connections.local.enabled, false, "switched off in the file");
});
