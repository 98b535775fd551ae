// Porthole as the companion of an editor without elicitation (`porthole proxy`): a scripted
// editor drives the test agent through the proxy while the real window, started as a
// companion, asks the agent's questions. The editor sees its turns end and never sees an
// elicitation; the window shows the proxied session read-only, labelled with the editor.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { launch, targetDir, tempDir } from "./harness.mjs";

const runDir = tempDir("porthole-e2e-run-");
let app;
let editor;

/** A scripted ACP editor with no elicitation, on the proxy's stdio. */
function startEditor(name) {
  const proxy = spawn(
    join(targetDir, "debug", "porthole-proxy"),
    ["--", join(targetDir, "debug", "porthole-test-agent")],
    { env: { ...process.env, PORTHOLE_COMPANION_DIR: runDir }, stdio: ["pipe", "pipe", "inherit"] },
  );
  const seen = [];
  const waiters = [];
  createInterface({ input: proxy.stdout }).on("line", (line) => {
    let v;
    try {
      v = JSON.parse(line);
    } catch {
      return;
    }
    seen.push(v);
    for (const w of [...waiters]) if (w.match(v)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(v));
  });
  let nextId = 0;
  const request = (method, params) => {
    const id = nextId++;
    proxy.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return new Promise((resolve, reject) => {
      const found = seen.find((v) => v.id === id && !v.method);
      if (found) return resolve(found);
      waiters.push({ match: (v) => v.id === id && !v.method, resolve });
      setTimeout(() => reject(new Error(`no answer to ${method}; the editor saw ${JSON.stringify(seen).slice(-2000)}`)), 30000);
    });
  };
  return {
    proxy,
    seen,
    request,
    async open(cwd) {
      await request("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "scripted-editor", title: name, version: "1.0" } });
      const r = await request("session/new", { cwd, mcpServers: [] });
      return r.result.sessionId;
    },
    prompt: (sessionId, text) => request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
    report() {
      const chunk = [...seen].reverse().find((v) => v.params?.update?.sessionUpdate === "agent_message_chunk");
      return JSON.parse(chunk?.params.update.content.text ?? "null");
    },
    sawElicitation: () => seen.some((v) => typeof v.method === "string" && v.method.startsWith("elicitation/")),
  };
}

before(async () => {
  app = await launch({ args: ["--companion"], env: { PORTHOLE_COMPANION_DIR: runDir } });
});
after(async () => {
  editor?.proxy.stdin.end();
  await app?.close();
});

test("a proxied form and URL consent are asked in the window, labelled with the editor", async () => {
  editor = startEditor("Scripted Editor");
  const session = await editor.open(app.workspace);
  await app.waitText("nav [data-proxied]", "asked through Scripted Editor");

  const turn = editor.prompt(session, "modes");
  await app.waitFor("[role=dialog] form");
  await app.waitText("[role=dialog]", "asked through Scripted Editor");
  await app.waitText("[role=dialog]", "Pick a name");
  await app.shot("20-proxied-form");
  await app.click("Submit…");
  await app.waitText("[role=dialog]", "exactly what will be sent");
  await app.click("Send");

  // Then the URL: consent is asked with the domain highlighted; declined here (nothing opens).
  await app.waitFor("[role=dialog] .url-box");
  await app.waitText("[role=dialog]", "asked through Scripted Editor");
  await app.shot("21-proxied-url-consent");
  await app.click("Decline");
  await app.noDialog();

  const end = await turn;
  assert.equal(end.result.stopReason, "end_turn");
  const report = editor.report();
  assert.equal(report.results[0].result.action, "accept", JSON.stringify(report));
  assert.equal(report.results[0].result.content.name, "alpha");
  assert.equal(report.results[1].result.action, "decline", JSON.stringify(report));
  assert.equal(editor.sawElicitation(), false, "the editor saw no elicitation traffic");
});

test("the proxied session is watched live and read-only", async () => {
  const sessionButton = await app.find("nav [data-proxied] .session-btn");
  await sessionButton.click();
  await app.waitText("main.transcript", "scenario");
  await app.waitText("[role=note]", "Driven from Scripted Editor");
  assert.equal(await app.count("form.prompt textarea"), 0, "no prompt box for a proxied session");
  await app.shot("22-proxied-live-view");
});

test("when the editor leaves, the proxied agent leaves the window", async () => {
  editor.proxy.stdin.end();
  await new Promise((resolve) => editor.proxy.on("exit", resolve));
  await app.waitFor("nav", 5000);
  for (let i = 0; i < 100 && (await app.count("nav [data-proxied]")) > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await app.count("nav [data-proxied]"), 0);
});
