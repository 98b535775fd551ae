// An MCP server added from the MCP Registry in the window, as a person does it: in the MCP
// connections view, "Add from the registry…", search, open an entry (its publisher, version,
// runtime), fill its form (the elicitation form's own fields; its API key a secret field), see
// the exact command that will be saved, Save: the connection is listed, its key in the OS
// keyring (a GNOME Keyring started by scripts/with-keyring), not in connections.json. The
// registry is porthole-test-mcp-registry on 127.0.0.1 (the official documentation's entries and
// the hostile ones); nothing leaves this computer (the entries opened have no icon to fetch).
// Then two remotes: the documentation's remote-weather (a URL variable and a secret header: the
// exact URL shown, the header in the keyring, not in the file), and a remote that asks for
// OAuth (porthole-test-mcp on 127.0.0.1), which goes straight on to its sign-in. Last an MCP
// bundle: downloaded when picked, checked against its hash, its manifest and folder shown, its
// sensitive setting to the keyring, unpacked when saved, and its server's tools listed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { launch, targetDir, tempDir } from "../harness.mjs";

const fakeRegistry = join(targetDir, "debug", "porthole-test-mcp-registry");
const testMcp = join(targetDir, "debug", "porthole-test-mcp");
const BRAVE = "io.modelcontextprotocol.anonymous/brave-search";
const OAUTH = "io.github.porthole-test/oauth-remote";
const BUNDLE = "io.github.porthole-test/test-bundle";
// Made up for this run: never a real key, never printed.
const KEY = `e2e-key-${process.pid}`;
const HEADER = `Bearer e2e-header-${process.pid}`;
let app;
let registry;
let mcpServer;
let mcpUrl;
let file;

/** The first line a test server prints (its address). */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("error", reject);
  });
}

before(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error("no D-Bus session: run the e2e tests through scripts/with-keyring (scripts/test does)");
  }
  mcpServer = spawn(testMcp, [], { stdio: ["ignore", "pipe", "inherit"] });
  mcpUrl = (await firstLine(mcpServer)).replace(/^ready /, "").trim();
  // An MCP bundle of the workspace's test MCP server (a binary bundle, served by the registry).
  registry = spawn(fakeRegistry, ["--remote", `${OAUTH}=${mcpUrl}`, "--bundle", `${BUNDLE}=${testMcp}`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await firstLine(registry);
  file = join(tempDir("porthole-e2e-mcp-registry-"), "connections.json");
  app = await launch({
    env: { PORTHOLE_CONNECTIONS_FILE: file, PORTHOLE_MCP_REGISTRY_URL: url.trim() },
  });
});
after(async () => {
  await app?.close();
  registry?.kill();
  mcpServer?.kill();
});

async function type(css, text) {
  const input = await app.waitFor(css);
  await input.clear();
  await input.sendKeys(text);
}

/** The picture of the form with what will be saved in view (it is below the form), then Save. */
async function shotAndSave(shot) {
  await app.exec("document.querySelector('.mcp-command').scrollIntoView({ block: 'end' })");
  await app.shot(shot);
  await save();
}

async function save() {
  await app.d.wait(async () => (await app.button("Save", ".mcp-entry")).isEnabled(), 20000, "Save enabled");
  await app.click("Save", ".mcp-entry");
}

/** Open "Add from the registry…", search `text` and open the entry named `name`. */
async function openEntry(text, name) {
  await app.click("Add from the registry…", "main");
  await app.waitText(".mcp-results", "servers");
  await type("input[name=mcp-registry-search]", text);
  await (await app.waitFor(`.mcp-result[data-server="${name}"]`)).click();
  await app.waitText(".mcp-entry", name);
}

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
  await shotAndSave("60-mcp-registry-form");

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

test("a remote with a URL variable and a secret header: the exact URL shown, the header in the keyring", async () => {
  await openEntry("Remote Weather", "io.github.user/remote-weather");
  await app.waitText(".mcp-entry", "Remote (streamable-http): https://{host}/mcp");
  // The URL variable (its default filled in) and the header, masked.
  const host = await app.waitFor(".mcp-registry-form [data-field=host] input");
  assert.equal(await host.getAttribute("value"), "api.example.com");
  const header = await app.waitFor(".mcp-registry-form [data-field=Authorization] input");
  assert.equal(await header.getAttribute("type"), "password");
  // A port on this computer nothing listens on: a header signs it in, so nothing contacts it.
  await type(".mcp-registry-form [data-field=host] input", "127.0.0.1:9");
  await type("input[name=mcp-registry-name]", "weather");
  await header.sendKeys(HEADER);
  // The template filled before anything is saved: the exact URL, the header kept back.
  await app.waitText(".mcp-command", "https://127.0.0.1:9/mcp\nAuthorization: <in the OS keyring>");
  assert.ok(!(await app.text(".mcp-entry")).includes(HEADER), "the header's value is not shown");
  await shotAndSave("62-mcp-registry-remote-form");

  await app.waitText(".mcp-said", "Added `weather` from the registry");
  await app.waitText(".mcp-said", "Kept in the OS keyring: header authorization.");
  await app.waitText("[data-connection=weather]", "https://127.0.0.1:9/mcp");
  const text = readFileSync(file, "utf8");
  assert.ok(!text.includes(HEADER), "the header is not in connections.json");
  assert.deepEqual(JSON.parse(text).connections.weather, {
    url: "https://127.0.0.1:9/mcp",
    headers: { Authorization: { secret: true } },
  });
  // In the OS keyring, under the connection's name.
  const kept = spawnSync("secret-tool", ["lookup", "service", "porthole-connections", "username", "weather/header:authorization"], {
    encoding: "utf8",
  });
  assert.equal(kept.stdout, HEADER);
  // No sign-in was started for it (its key is its sign-in).
  assert.equal(await app.count("[role=dialog]"), 0);
});

test("a remote that asks for OAuth goes straight on to its sign-in when saved", async () => {
  await openEntry("oauth-remote", OAUTH);
  await app.waitText(".mcp-registry-form", "This server asks for no settings.");
  // Its own name: the keyring specs share one keyring, and mcp-sign-in.test.mjs signs in as "tracker".
  await type("input[name=mcp-registry-name]", "oauth-remote");
  await app.waitText(".mcp-command", mcpUrl);
  await save();
  // The connections view's own sign-in: Porthole's URL consent dialog, the server's sign-in page.
  await app.waitText(".mcp-said", "Its server asks you to sign in");
  await app.waitText("[role=dialog]", "Porthole's own request");
  await app.waitText("[role=dialog]", "Sign in to the MCP connection “oauth-remote”");
  await app.waitText("[role=dialog] .url-box", `${new URL(mcpUrl).origin}/auth/authorize?`);
  await app.shot("63-mcp-registry-remote-sign-in");
  await app.click("Open in isolated window");
  await app.waitText("[role=dialog]", "Completed", 30000);
  await app.waitText("[data-connection=oauth-remote]", "Signed in", 20000);
  await app.click("Close window");
  await app.noDialog();
});

test("an MCP bundle: picked, checked and shown, its secret to the keyring, unpacked when saved, its tools listed", async () => {
  await app.click("MCP connections", "nav");
  await openEntry("test-bundle", BUNDLE);
  await (await app.waitFor(".mcp-ways label")).click();
  await app.waitFor(".mcp-bundle", 60000);
  const shown = await app.text(".mcp-bundle");
  assert.match(shown, /Porthole's test MCP server/);
  assert.match(shown, /Runs its own program \(binary bundle\)/);
  assert.match(shown, /its SHA-256 [0-9a-f]{64} is the registry's/);
  assert.match(shown, /mcp-bundles/);
  const key = await app.waitFor(".mcp-registry-form [data-field=api_key] input");
  assert.equal(await key.getAttribute("type"), "password");
  await key.sendKeys(KEY);
  await type("input[name=mcp-registry-name]", "test-bundle");
  await app.waitText(".mcp-command", "TEST_MCP_SECRET=<in the OS keyring>");
  await app.waitText(".mcp-command", "server/porthole-test-mcp --stdio");
  assert.ok(!(await app.text(".mcp-entry")).includes(KEY), "the key is not shown");
  await shotAndSave("64-mcp-registry-bundle-form");
  await app.waitText(".mcp-said", "Added `test-bundle` from the registry");
  const saved = JSON.parse(readFileSync(file, "utf8")).connections["test-bundle"];
  assert.deepEqual(saved.env, { TEST_MCP_SECRET: { secret: true } });
  assert.ok(existsSync(saved.command), `the unpacked program ${saved.command}`);
  assert.ok(saved.command.includes("/porthole/mcp-bundles/"), saved.command);
  // Its server, started from the unpacked bundle through the gateway, lists its tools.
  const row = "[data-connection=test-bundle]";
  await app.click("Show tools", row);
  await app.waitText(row, "whoami", 30000);
  await app.shot("65-mcp-registry-bundle-tools");
});
