// An MCP server added from the MCP Registry in the window, as a person does it: in the MCP
// connections view, "Add from the registry…", search, open an entry (its publisher, version,
// runtime), fill its form (the elicitation form's own fields; its API key a secret field), see
// the exact command that will be saved, Save: the connection is listed, its key in the OS
// keyring (a GNOME Keyring started by scripts/with-keyring), not in connections.json. The
// registry is porthole-test-mcp-registry on 127.0.0.1 (the official documentation's entries and
// the hostile ones); nothing leaves this computer (the entry opened has no icon to fetch).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { launch, targetDir, tempDir } from "../harness.mjs";

const fakeRegistry = join(targetDir, "debug", "porthole-test-mcp-registry");
const BRAVE = "io.modelcontextprotocol.anonymous/brave-search";
// Made up for this run: never a real key, never printed.
const KEY = `e2e-key-${process.pid}`;
let app;
let registry;
let file;

before(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error("no D-Bus session: run the e2e tests through scripts/with-keyring (scripts/test does)");
  }
  registry = spawn(fakeRegistry, [], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: registry.stdout }).once("line", resolve);
    registry.once("error", reject);
  });
  file = join(tempDir("porthole-e2e-mcp-registry-"), "connections.json");
  app = await launch({
    env: { PORTHOLE_CONNECTIONS_FILE: file, PORTHOLE_MCP_REGISTRY_URL: url.trim() },
  });
});
after(async () => {
  await app?.close();
  registry?.kill();
});

test("search the registry, open an entry, fill its form with a secret, see the command, save", async () => {
  await app.click("MCP connections", "nav");
  await app.click("Add from the registry…", "main");
  // The first search reads the whole registry (no copy yet): the official examples and the
  // hostile entries that passed the checks, the rest counted as left out.
  await app.waitText(".mcp-registries", "entries left out by Porthole's checks");
  await app.waitText(".mcp-results", "servers");
  await app.shot("59-mcp-registry-list");
  // Search as you type: the description's words find it (the registry searches names only).
  const box = await app.waitFor("input[name=mcp-registry-search]");
  await box.sendKeys("api integration");
  await app.d.wait(async () => (await app.count(".mcp-result")) === 1, 20000, "one result for the description's words");
  await app.waitText(".mcp-result-list", "Brave Search");
  await app.click("Brave Search", ".mcp-result-list");
  await app.waitText(".mcp-entry", BRAVE);
  await app.waitText(".mcp-entry", "npx @modelcontextprotocol/server-brave-search@1.0.2");
  // Its form: the elicitation form's field, masked.
  const key = await app.waitFor(".mcp-registry-form [data-field=BRAVE_API_KEY] input");
  assert.equal(await key.getAttribute("type"), "password");
  // Required: nothing is saved without it, and the validator says so once the field is left.
  await key.click();
  await (await app.find("input[name=mcp-registry-name]")).click();
  await app.waitText(".mcp-registry-form [data-field=BRAVE_API_KEY]", "required");
  assert.equal(await (await app.button("Save", ".mcp-entry")).isEnabled(), false);
  await key.sendKeys(KEY);
  await app.waitText(
    ".mcp-command",
    "BRAVE_API_KEY=<in the OS keyring> npx -y @modelcontextprotocol/server-brave-search@1.0.2",
  );
  const shown = await app.text(".mcp-entry");
  assert.ok(!shown.includes(KEY), "the key is not shown");
  // The command in view for the picture (it is below the form).
  await app.exec("document.querySelector('.mcp-command').scrollIntoView({ block: 'end' })");
  await app.shot("60-mcp-registry-form");
  await app.d.wait(async () => (await app.button("Save", ".mcp-entry")).isEnabled(), 20000, "Save enabled");
  await app.click("Save", ".mcp-entry");

  await app.waitText(".mcp-said", "Added `brave-search` from the registry");
  await app.waitText(".mcp-said", "Kept in the OS keyring: BRAVE_API_KEY.");
  await app.waitText("[data-connection=brave-search]", "npx -y @modelcontextprotocol/server-brave-search@1.0.2");
  await app.waitText("[data-connection=brave-search]", "BRAVE_API_KEY");
  await app.shot("61-mcp-registry-added");
  const text = readFileSync(file, "utf8");
  assert.ok(!text.includes(KEY), "the key is not in connections.json");
  const saved = JSON.parse(text).connections["brave-search"];
  assert.deepEqual(saved, {
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-brave-search@1.0.2"],
    env: { BRAVE_API_KEY: { secret: true } },
  });
});
