// A real third-party agent in the real app: Claude Code (claude-agent-acp) in Porthole's window,
// driven through WebDriver under Xvfb, against the fake model API on 127.0.0.1: it connects and a
// streamed reply appears in the transcript. (The edit-with-permission step is not here yet: in
// the window it intermittently never shows the tool call and its permission request although
// the agent sent them; see docs/interop.md.) Run by scripts/test-agents.
import { test, before, after } from "node:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch } from "../e2e/harness.mjs";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";

const claude = AGENTS.find((a) => a.id === "claude");
let server;
let app;

before(async () => {
  server = await startFakeModels();
  const home = mkdtempSync(join(tmpdir(), "porthole-app-claude-home-"));
  const env = claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home });
  const command = `node ${join(process.env.PORTHOLE_AGENT_CACHE, "node_modules", claude.entry)}`;
  app = await launch({ args: ["--agent", command], env });
});

after(async () => {
  await app?.close();
  server?.close();
});

test("Claude Code connects in the window and streams a reply", async () => {
  await app.waitText("header", "Claude Agent", 60000);
  await app.waitText("header", "Connected", 60000);
  await app.prompt("hello from the Porthole window");
  await app.waitText("main.transcript", "Porthole fake model says:", 60000);
  await app.waitText("main.transcript", "hello from the Porthole window", 60000);
  await app.shot("agents-01-claude-reply");
});
