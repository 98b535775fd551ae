// Codex (codex-acp) in Porthole's window, driven through WebDriver under Xvfb against the fake
// model API on 127.0.0.1: a streamed reply, an edit allowed in the permission dialog (Codex's
// read-only mode asks before each edit), a shell command, an MCP App (the official
// basic-vanillajs example) under its tool call with its button, link and message, and cancel. Then its device-code
// sign-in (`chat-gpt-device-code`, offered only to clients that advertise URL elicitation): a
// URL elicitation scoped to `authenticate`, consented in the URL dialog and opened in the sealed
// view, against a stand-in for OpenAI's sign-in service (fake-signin.mjs). Run by
// scripts/test-agents, inside its loopback-only namespace.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch, processesWithArg, tempDir, waitUntil, By, until } from "../e2e/harness.mjs";
import { startExample } from "../e2e/apps/examples.mjs";
import { appFrames, useBasicApp } from "../e2e/apps/use-app.mjs";
import { AGENTS } from "./agents.mjs";
import { throwawayHomes } from "./homes.mjs";
import { startFakeModels } from "./fake-models.mjs";
import { startFakeSignin, USER_CODE } from "./fake-signin.mjs";

const codex = AGENTS.find((a) => a.id === "codex");
const command = () => `node ${join(process.env.PORTHOLE_AGENT_CACHE, "node_modules", codex.entry)}`;
const homes = throwawayHomes("codex");
let server;
let baseUrl;
let app;

const home = (tag) => homes.make(tag);

before(async () => {
  server = await startFakeModels();
  baseUrl = `http://127.0.0.1:${server.address().port}`;
  app = await launch({ args: ["--agent", command()], env: codex.env({ baseUrl, home: home("signed-in") }) });
});

after(async () => {
  await app?.close();
  server?.close();
  await homes.removeAll();
});

test("Codex connects in the window and streams a reply", async () => {
  await app.waitText("header", "Codex", 60000);
  await app.waitText("header", "Connected", 60000);
  await app.prompt("hello from the Porthole window to Codex");
  await app.waitText("main.transcript", "Porthole fake model says:", 60000);
  await app.waitText("main.transcript", "hello from the Porthole window to Codex", 60000);
  await app.shot("agents-codex-01-reply");
});

/** The mode the CLI flows use (agents.mjs), chosen in the header as a person would. (Codex's
 *  default mode has its model review each approval, which the fake model does not answer.) */
async function pickMode(window, mode = codex.mode) {
  const picked = await window.exec(`
    for (const s of document.querySelectorAll(".session-controls select")) {
      const option = [...s.options].find((o) => o.value === arguments[0]);
      if (option) { s.value = option.value; s.dispatchEvent(new Event("change", { bubbles: true })); return s.closest("label").textContent.trim(); }
    }
    return null;`, mode);
  assert.ok(picked, `a header control offers the mode ${mode}`);
}

test("Codex in read-only mode asks before an edit; allowed in the dialog, the file is written", async () => {
  await pickMode(app);
  const target = join(app.workspace, "notes.txt");
  await app.prompt(`[[edit ${target} edited by Codex in the window]]`);
  await app.waitFor("[role=dialog]", 60000);
  await app.shot("agents-codex-02-permission");
  const options = await app.exec(`return [...document.querySelectorAll("[role=dialog] button")].map((b) => b.textContent.trim())`);
  const allow = options.find((o) => /^(Yes|Allow|Approve)/i.test(o));
  assert.ok(allow, `an allow option among ${JSON.stringify(options)}`);
  await app.click(allow.split("\n")[0]);
  await app.noDialog(20000);
  await app.d.wait(async () => readFileSync(target, "utf8") === "edited by Codex in the window\n", 60000, "the file to be written");
  await app.shot("agents-codex-03-edited");
});

test("Codex runs a shell command from the window", async () => {
  const marker = `porthole-codex-window-shell-${process.pid}`;
  await app.prompt(`[[shell echo ${marker}]]`);
  // Read-only mode may ask for the command too: allow it if it does.
  await app.d.wait(
    async () => {
      if ((await app.count("[role=dialog]")) > 0) {
        const options = await app.exec(`return [...document.querySelectorAll("[role=dialog] button")].map((b) => b.textContent.trim())`);
        const allow = options.find((o) => /^(Yes|Allow|Approve)/i.test(o));
        if (allow) await app.click(allow.split("\n")[0]);
      }
      return (await app.transcript()).includes(`Tool finished: ${marker}`);
    },
    60000,
    "the command's output to reach the model",
  );
  await app.shot("agents-codex-04-shell");
});

test("Codex calls an MCP App's tool: the app renders under Codex's tool call, and its button, link and message go through the person", async () => {
  const example = await startExample("server-basic-vanillajs");
  const connections = join(tempDir("porthole-agents-codex-apps-"), "connections.json");
  writeFileSync(connections, JSON.stringify({ connections: { apps: { url: example.url } } }));
  const env = codex.env({ baseUrl, home: home("apps") });
  // The window speaks v2 with Codex (the app's default, auto), where codex-acp 2.6.0 cancels an
  // MCP call that needs approval without asking (agents.mjs, v2McpApproval): the session starts
  // in the mode that asks nothing (codex-acp's INITIAL_AGENT_MODE). Picking it in the header
  // raced the prompt: a prompt sent before Codex had switched was cancelled, and the app never
  // came (one CI run in two).
  const mode = codex.v2McpApproval.mode;
  const withApps = await launch({
    args: ["--agent", command()],
    env: { ...env, PORTHOLE_CONNECTIONS_FILE: connections, INITIAL_AGENT_MODE: mode },
  });
  try {
    await withApps.waitText("header", "Connected", 60000);
    await withApps.waitFor(".session-controls select", 60000);
    const modes = await withApps.exec(`return [...document.querySelectorAll(".session-controls select")].map((s) => s.value)`);
    assert.ok(modes.includes(mode), `the session starts in ${mode}: ${JSON.stringify(modes)}`);
    await withApps.prompt("[[mcp get-time]]");
    // Codex may ask before it calls an MCP tool: allowed, as a person would.
    await withApps.d
      .wait(async () => {
        if ((await withApps.count(".vrow section.tool + section.mcp-app")) > 0) return true;
        if ((await withApps.count("[role=dialog]")) > 0) {
          const options = await withApps.exec(`return [...document.querySelectorAll("[role=dialog] button")].map((b) => b.textContent.trim())`);
          const allow = options.find((o) => /^(Yes|Allow|Approve)/i.test(o));
          if (allow) await withApps.click(allow.split("\n")[0]).catch(() => {});
        }
        return false;
      }, 90000, "the app under Codex's tool call")
      .catch(async (e) => {
        // What the window showed instead says why (a cancelled call, an unknown tool...).
        throw new Error(`${e.message}; the transcript: ${(await withApps.transcript()).slice(-2000)}`);
      });
    const { enter, leave } = appFrames(withApps);
    await enter("apps");
    try {
      const time = await withApps.d.wait(until.elementLocated(By.css("#server-time")), 30000);
      await withApps.d.wait(async () => /\d{4}-\d{2}-\d{2}T/.test(await time.getText()), 30000, "get-time's result in the app");
    } finally {
      await leave();
    }
    await withApps.shot("agents-codex-06-mcp-app");
    await useBasicApp(withApps, "apps");
  } finally {
    await withApps.close();
    example.kill();
  }
});

test("Codex's turn is cancelled from the window mid-stream", async () => {
  await app.prompt("[[slow 40]]");
  await app.waitText("main.transcript", "step-3", 60000);
  await (await app.waitFor("form.prompt .btn.danger")).click();
  await app.waitText("main.transcript", "Turn ended: cancelled", 30000);
  assert.ok(!(await app.transcript()).includes("step-39"), "the slow answer ran to its end");
});

test("Codex's device-code sign-in: a URL dialog with the code, opened in the sealed view", async () => {
  const signin = await startFakeSignin();
  const signedOutHome = home("device-code");
  const env = codex.env({ baseUrl, home: signedOutHome, signedIn: false });
  // Codex's sign-in service and ChatGPT backend, both pointed at the stand-in on loopback.
  env.CODEX_APP_SERVER_LOGIN_ISSUER = signin.url;
  const config = join(signedOutHome, ".codex", "config.toml");
  writeFileSync(config, `chatgpt_base_url = "${signin.url}/backend-api/"\n${readFileSync(config, "utf8")}`);
  const signedOut = await launch({ args: ["--agent", command()], env });
  try {
    await signedOut.waitText(".signin", "needs you to sign in", 60000);
    const methods = await signedOut.text(".signin .auth-methods");
    assert.match(methods, /ChatGPT \(device code\)/, "offered because Porthole advertises URL elicitation");
    await signedOut.shot("agents-codex-05-sign-in-methods");
    // "Sign in" of the device-code method.
    await signedOut.exec(`
      const item = [...document.querySelectorAll(".signin .auth-method")].find((li) => li.textContent.includes("ChatGPT (device code)"));
      item.querySelector("button").click();`);

    // The request-scoped URL elicitation: the full URL, its host, and the one-time code.
    await signedOut.waitFor("[role=dialog] .url-box", 60000);
    const dialog = await signedOut.text("[role=dialog]");
    assert.ok(dialog.includes(`${signin.url}/codex/device`), dialog);
    assert.ok(dialog.includes(USER_CODE), `the code is shown: ${dialog}`);
    await signedOut.shot("agents-codex-06-device-code-dialog");
    assert.equal(signin.visited(), null, "nothing is opened before consent");

    await signedOut.click("Open in isolated window");
    // The sealed view (its own process) loads the page; the stand-in then counts the person as
    // signed in, and Codex's polling gets its code.
    await waitUntil("a sealed-view process", () => processesWithArg("sealed-view").length > 0, 30000);
    await waitUntil("the verification page loaded by the sealed view", () => signin.visited() !== null, 30000);
    assert.match(signin.visited(), /WebKit/, `opened by the sealed (WebKit) view: ${signin.visited()}`);
    await waitUntil("Codex to exchange the code", () => signin.requests.some((r) => r.path === "/oauth/token"), 30000);

    // Codex then asks the ChatGPT backend which workspace the account routes to, and requires an
    // HTTPS origin for it (codex-rs workspace routing): a loopback stand-in cannot answer that,
    // so the agent ends the sign-in with `elicitation/complete` and refuses. Porthole says so.
    await signedOut.waitText("[role=dialog]", "Completed", 60000);
    await signedOut.shot("agents-codex-07-device-code-completed");
    await signedOut.click("Close window");
    await signedOut.waitText(".signin", "Sign-in did not complete", 60000);
    await signedOut.shot("agents-codex-08-device-code-refused");
  } finally {
    await signedOut.close();
    signin.server.close();
  }
});
