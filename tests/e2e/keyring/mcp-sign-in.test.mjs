// An MCP connection signed in from the window, as a person does it: add a remote server in the
// MCP connections view, Sign in, consent in the URL dialog (Porthole's own request, the full
// address, its domain), the sign-in page opens in the isolated window and comes back to
// Porthole's loopback listener; the connection shows signed in with its tools, and the demo
// agent's tool call reaches the server signed in. An expired token is refreshed without the
// person; a failed refresh says "sign in again" in the session and in the view, and signing in
// again works; Sign out revokes. The tokens live in the OS keyring (a GNOME Keyring started by
// scripts/with-keyring): none is in the window, the HOME's files, or the agent's environment.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { launch, processesWithArg, targetDir, tempDir } from "../harness.mjs";

const testMcp = join(targetDir, "debug", "porthole-test-mcp");
let app;
let server;
let mcpUrl;
let base;

before(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error("no D-Bus session: run the e2e tests through scripts/with-keyring (scripts/test does)");
  }
  server = spawn(testMcp, [], { stdio: ["ignore", "pipe", "inherit"] });
  const ready = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once("line", resolve);
    server.once("error", reject);
  });
  mcpUrl = ready.replace(/^ready /, "");
  base = new URL(mcpUrl).origin;
  app = await launch({
    env: { PORTHOLE_CONNECTIONS_FILE: join(tempDir("porthole-e2e-mcp-signin-"), "connections.json") },
  });
});
after(async () => {
  await app?.close();
  server?.kill();
});

/** What the test server issued and was sent (its tokens), and how many refreshes it answered. */
async function issued() {
  return (await fetch(`${base}/_test/issued`)).json();
}

async function poke(what) {
  const r = await fetch(`${base}/_test/${what}`, { method: "POST" });
  assert.equal(r.status, 200, `POST /_test/${what}`);
}

async function type(css, text) {
  const input = await app.waitFor(css);
  await input.clear();
  await input.sendKeys(text);
}

/** Sign in through the URL dialog: Porthole's own request, opened in the isolated window. */
async function signInThroughTheDialog(shot) {
  await app.waitText("[role=dialog]", "Open a web page?");
  await app.waitText("[role=dialog]", "Porthole's own request");
  await app.waitText("[role=dialog] .url-box", `${base}/auth/authorize?`);
  await app.waitText("[role=dialog]", "Sign in to the MCP connection “tracker”");
  if (shot) await app.shot(shot);
  await app.click("Open in isolated window");
  await app.waitText("[role=dialog]", "Completed", 30000);
}

/** A new session of the demo agent (it gets the connections as they are now). */
async function newSession() {
  await app.click("New session", "nav");
  await app.click("Open session", "nav");
  await app.waitText("header", "Connected");
}

async function toolCall() {
  await app.prompt("/tools tracker whoami");
}

test("a remote connection is added, signed in through the consent dialog, and used by the agent", async () => {
  await app.waitText("header", "Connected");
  await app.click("MCP connections", "nav");
  await app.click("Add…", "main");
  await type("input[name=mcp-name]", "tracker");
  await type("input[name=mcp-url]", mcpUrl);
  await app.shot("40-mcp-add-connection");
  await app.click("Add", "form.mcp-form");
  await app.waitText("[data-connection=tracker]", "Not signed in");

  await app.click("Sign in", "[data-connection=tracker]");
  await signInThroughTheDialog("41-mcp-sign-in-consent");
  await app.shot("42-mcp-sign-in-completed");
  await app.click("Close window");
  await app.noDialog();
  await app.waitText("[data-connection=tracker]", "Signed in");
  await app.click("Show tools", "[data-connection=tracker]");
  await app.waitText("[data-connection=tracker] .mcp-tools", "whoami");
  await app.shot("43-mcp-signed-in-with-tools");

  await newSession();
  await toolCall();
  await app.waitText("main.transcript", "signed in");
  await app.shot("44-mcp-tool-call-signed-in");
});

test("an expired token is refreshed without the person", async () => {
  const before = await issued();
  await poke("expire");
  await toolCall();
  await app.d.wait(async () => (await issued()).refreshes > before.refreshes, 20000, "a refresh");
  const after = await issued();
  assert.equal(after.refreshes, before.refreshes + 1, "one refresh");
  await app.d.wait(
    async () => ((await app.transcript()).match(/tracker answered: signed in/g) ?? []).length >= 2,
    20000,
    "the second call signed in",
  );
});

test("a failed refresh asks to sign in again, and signing in again works", async () => {
  await poke("expire");
  await poke("forget-refresh");
  await toolCall();
  await app.waitText("main", "Sign in to the MCP connection “tracker” again", 30000);
  await app.shot("45-mcp-sign-in-again-in-the-session");
  await app.click("MCP connections", "nav");
  await app.waitText("[data-connection=tracker]", "The sign-in expired");
  await app.shot("46-mcp-sign-in-expired-in-the-view");
  await app.click("Sign in again", "[data-connection=tracker]");
  await signInThroughTheDialog(null);
  await app.click("Close window");
  await app.waitText("[data-connection=tracker]", "Signed in");
});

test("sign out revokes, and no token is in the window, the HOME or the agent", async () => {
  const { tokens } = await issued();
  assert.ok(tokens.length >= 2, "tokens were issued");
  await app.click("Sign out", "[data-connection=tracker]");
  await app.waitText("main", "Signed out of `tracker`");
  await app.waitText("[data-connection=tracker]", "Not signed in");
  await app.shot("47-mcp-signed-out");

  const page = await app.exec("return document.documentElement.outerHTML;");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const s = statSync(path, { throwIfNoEntry: false });
      if (s?.isDirectory()) walk(path);
      else if (s?.isFile() && s.size < 50_000_000) files.push(path);
    }
  };
  walk(app.home);
  // The embedded demo agent (`porthole demo-agent`) and the bridges it runs (`porthole mcp-bridge`).
  const agents = [...processesWithArg("demo-agent"), ...processesWithArg("mcp-bridge")].map((p) => p.pid);
  for (const token of tokens) {
    assert.ok(!page.includes(token), "a token is in the window's DOM");
    for (const f of files) assert.ok(!readFileSync(f).includes(token), `a token is in ${f}`);
    for (const pid of agents) {
      for (const what of ["environ", "cmdline"]) {
        const text = readFileSync(`/proc/${pid}/${what}`, { encoding: "latin1", flag: "r" });
        assert.ok(!text.includes(token), `a token is in the agent's ${what}`);
      }
    }
  }
  assert.ok(files.length > 0, "the HOME was looked at");
  assert.ok(agents.length > 0, "the agent was looked at");
});
