// A real third-party client and a real agent through `porthole proxy`: acpx (a headless ACP
// client that advertises no elicitation) drives Claude Code (claude-agent-acp) against the fake
// model API on 127.0.0.1. Claude's AskUserQuestion becomes a form in Porthole's window (started
// as a companion), the answer reaches the model, and acpx prints the final reply. Run by
// scripts/test-agents.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { throwawayHomes } from "./homes.mjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { By, launch, targetDir } from "../e2e/harness.mjs";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";

const claude = AGENTS.find((a) => a.id === "claude");
const cache = process.env.PORTHOLE_AGENT_CACHE;
const runDir = mkdtempSync(join(tmpdir(), "porthole-agents-run-"));
let server;
let app;

before(async () => {
  server = await startFakeModels();
  app = await launch({ args: ["--companion"], env: { PORTHOLE_COMPANION_DIR: runDir } });
});

after(async () => {
  await app?.close();
  server?.close();
  rmSync(runDir, { recursive: true, force: true });
});

test("acpx drives Claude Code through porthole proxy; AskUserQuestion is answered in the window", async () => {
  const homes = throwawayHomes("acpx-claude");
  const home = homes.make("home");
  const env = {
    ...process.env,
    ...claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home }),
    PORTHOLE_COMPANION_DIR: runDir,
  };
  const agent = `${join(targetDir, "debug", "porthole-proxy")} -- node ${join(cache, "node_modules", claude.entry)}`;
  const acpx = spawn(
    "node",
    [join(cache, "node_modules", "acpx", "dist", "cli.js"), "--agent", agent, "--cwd", app.workspace, "--approve-all", "--format", "text", "--timeout", "120", "exec", "[[ask]]"],
    { env, cwd: app.workspace, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  acpx.stdout.on("data", (d) => (out += d));
  acpx.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => acpx.on("exit", (code) => resolve(code)));
  try {
    await app.waitFor(`[role=dialog] [data-field=${claude.questionTool.field}]`, 90000);
    await app.waitText("[role=dialog]", "asked through", 5000);
    await app.waitText("[role=dialog]", "Which color?");
    for (const l of await app.d.findElements(By.css(`[data-field=${claude.questionTool.field}] label`))) {
      if ((await l.getText()).includes("Orange")) await l.click();
    }
    await app.shot("agents-06-acpx-claude-question");
    await app.click("Submit…");
    await app.waitText("[role=dialog]", "exactly what will be sent");
    await app.click("Send");
    await app.noDialog();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 90000))]);
    assert.equal(code, 0, `acpx exited ${code}\nstdout: ${out.slice(-1500)}\nstderr: ${err.slice(-1500)}`);
    // The fake model ends its turn by repeating the answer it got from the question tool.
    assert.match(out, /Which color\?[\s\S]*Orange/, `acpx's output: ${out.slice(-1500)}`);
  } finally {
    acpx.kill();
    await homes.removeAll();
  }
});
