// A real third-party client through `porthole proxy`, with Porthole's window started as a
// companion: acpx (a headless ACP client that advertises no elicitation) drives an agent, the
// agent's question becomes a form in the window, the answer reaches the agent in the shape it
// reads, and acpx prints the final reply. Run by scripts/test-agents.
// - Claude Code (claude-agent-acp), Codex (codex-acp) and Qwen Code against the fake model API
//   on 127.0.0.1: Claude's AskUserQuestion and Codex's request_user_input (standard
//   `elicitation/create`, each answered with its own "Other" text) and Qwen's
//   `ask_user_question` (a `session/request_permission` with `_meta.qwenQuestions`, answered in
//   `answers`).
// - Gemini CLI's host input (`_gemini/requestUserInput`, sent only to a client that declares
//   `geminiCli.hostInput`, which the proxy adds): no Gemini CLI release on npm ships it yet
//   (docs/interop.md), so the scripted agent speaks it in Gemini's exact shape
//   (crates/porthole-test-agent/src/scenarios/questions.rs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { throwawayHomes } from "./homes.mjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, targetDir } from "../e2e/harness.mjs";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";

const claude = AGENTS.find((a) => a.id === "claude");
const codex = AGENTS.find((a) => a.id === "codex");
const qwen = AGENTS.find((a) => a.id === "qwen");
const cache = process.env.PORTHOLE_AGENT_CACHE;
const runDir = mkdtempSync(join(tmpdir(), "porthole-agents-run-"));
const proxy = join(targetDir, "debug", "porthole-proxy");
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

/** acpx running `agent` (a command line) through the proxy with one prompt; `done()` waits for
 * it to exit (90 s at most) and gives { code, out, err }. `configOptions` ("ID=VALUE") are set
 * on the session before the prompt (acpx's session/set_config_option). */
function acpx(agent, prompt, env, configOptions = []) {
  const child = spawn(
    "node",
    [
      join(cache, "node_modules", "acpx", "dist", "cli.js"),
      ...["--agent", `${proxy} -- ${agent}`, "--cwd", app.workspace, "--approve-all", "--format", "text", "--timeout", "120"],
      "exec",
      ...configOptions.flatMap((c) => ["--config-option", c]),
      prompt,
    ],
    { env: { ...process.env, ...env, PORTHOLE_COMPANION_DIR: runDir }, cwd: app.workspace, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    kill: () => child.kill(),
    /** What acpx said so far, for a failure's message. */
    said: () => `acpx's stdout: ${out.slice(-1500)}\nstderr: ${err.slice(-1500)}`,
    done: async () => {
      // The timer is cleared on exit: left pending, it kept this file's process alive for 90 s
      // after its last test (a minute and a half of every scripts/test).
      let timer;
      const timeout = new Promise((r) => (timer = setTimeout(() => r("timeout"), 90000)));
      const code = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      return { code, out, err, said: `acpx exited ${code}\nstdout: ${out.slice(-1500)}\nstderr: ${err.slice(-1500)}` };
    },
  };
}

/** A question that came through the proxy from `run`: its dialog, with the line naming the editor. */
async function proxiedQuestion(run, field, question) {
  try {
    await app.waitFor(`[role=dialog] [data-field=${field}]`, 90000);
  } catch (e) {
    e.message += `\n${run.said()}`;
    throw e;
  }
  await app.waitText("[role=dialog]", "asked through", 5000);
  await app.waitText("[role=dialog]", question);
}

test("acpx drives Claude Code through porthole proxy; AskUserQuestion is answered in the window with the person's own text", async () => {
  const homes = throwawayHomes("acpx-claude");
  const home = homes.make("home");
  const field = claude.questionTool.field;
  const resultsBefore = server.toolResults.length;
  const run = acpx(`node ${join(cache, "node_modules", claude.entry)}`, "[[ask]]", claude.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home }));
  try {
    await proxiedQuestion(run, field, "Which color?");
    // Neither Teal nor Orange: the "Other…" choice opens a box beside the question.
    await app.pick(field, "Other…");
    await app.type(field, "a darker teal");
    await app.shot("agents-06-acpx-claude-question");
    await app.submitAndSend();
    const { code, out, said } = await run.done();
    assert.equal(code, 0, said);
    // claude-agent-acp hands the typed text (question_0_custom) to the tool as the answer, which
    // tells the model `"Which color?"="a darker teal"`; the fake model repeats that line.
    const results = server.toolResults.slice(resultsBefore);
    assert.ok(
      results.some((t) => t.includes('"Which color?"="a darker teal"')),
      `the model API got no tool result with the typed answer: ${JSON.stringify(results).slice(0, 300)}`,
    );
    assert.match(out, /Tool finished:.*"Which color\?"="a darker teal"/, `acpx's output: ${out.slice(-1500)}`);
    // acpx has gone: the session it drove ends by its agent's name, never an internal id.
    await app.waitText("header [role=status]", "Ended");
    await app.waitText("[role=note]", "acpx has left");
    const header = await app.text("header");
    assert.ok(!header.includes("proxied:") && header.includes("through acpx"), header);
    await app.shot("agents-06b-acpx-claude-editor-left");
  } finally {
    run.kill();
    await homes.removeAll();
  }
});

test("acpx drives Codex through porthole proxy in Plan mode; request_user_input is answered in the window with a typed note", async () => {
  const homes = throwawayHomes("acpx-codex");
  const home = homes.make("home");
  const q = codex.questionTool;
  const resultsBefore = server.toolResults.length;
  // Codex offers request_user_input in its Plan collaboration mode only, a session config option
  // that acpx sets before the prompt (`exec --config-option collaboration_mode=plan`).
  const run = acpx(`node ${join(cache, "node_modules", codex.entry)}`, "[[ask]]", codex.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home }), q.config);
  try {
    await proxiedQuestion(run, q.field, "Which color?");
    // Codex marks the question isOther: its "None of the above" choice opens the note box.
    await app.pick(q.field, "None of the above");
    await app.type(q.field, "a darker teal");
    await app.shot("agents-10-acpx-codex-question");
    await app.submitAndSend();
    const { code, out, said } = await run.done();
    assert.equal(code, 0, said);
    // codex-acp answers Codex ["None of the above", "user_note: a darker teal"] for the question;
    // Codex hands the model those answers as JSON, which the fake model repeats.
    const results = server.toolResults.slice(resultsBefore);
    assert.ok(
      results.some((t) => /"color".*a darker teal/.test(t)),
      `the model API got no tool result with the typed note: ${JSON.stringify(results).slice(0, 300)}`,
    );
    assert.match(out, /Tool finished:.*"color".*a darker teal/, `acpx's output: ${out.slice(-1500)}`);
  } finally {
    run.kill();
    await homes.removeAll();
  }
});

test("acpx drives Qwen Code through porthole proxy; ask_user_question is answered in the window, in `answers`", async () => {
  const homes = throwawayHomes("acpx-qwen");
  const home = homes.make("home");
  const q = qwen.questionTool;
  const resultsBefore = server.toolResults.length;
  const run = acpx(`node ${join(cache, "node_modules", qwen.entry)} ${qwen.args.join(" ")}`, "[[ask]]", qwen.env({ baseUrl: `http://127.0.0.1:${server.address().port}`, home }));
  try {
    // Qwen asks in a permission request (Submit / Cancel); the proxy shows its questions as a form.
    await proxiedQuestion(run, q.field, "Which color?");
    await app.pick(q.field, "Orange");
    await app.shot("agents-07-acpx-qwen-question");
    await app.submitAndSend();
    const { code, out, said } = await run.done();
    assert.equal(code, 0, said);
    // Qwen handed the answer to its tool only if it came in `answers` (else its model gets "No
    // valid answers were provided"); the fake model repeats the tool's last line.
    const results = server.toolResults.slice(resultsBefore);
    assert.ok(results.some((t) => q.toolResult.test(t)), `the model API got no tool result like ${q.toolResult}: ${JSON.stringify(results).slice(0, 300)}`);
    assert.match(out, q.answered, `acpx's output: ${out.slice(-1500)}`);
  } finally {
    run.kill();
    await homes.removeAll();
  }
});

test("acpx drives the scripted agent's Gemini host input through porthole proxy; both questions are answered in the window", async () => {
  const run = acpx(join(targetDir, "debug", "porthole-test-agent"), "gemini-host-input", {});
  try {
    // ask_user: a choice answered with its own "Other…" text, a text question, a yes/no.
    await proxiedQuestion(run, "question_0", "Which database?");
    await app.pick("question_0", "Other…");
    await app.type("question_0", "DuckDB");
    await app.type("question_1", "billing");
    await app.pick("question_2", "Yes");
    await app.shot("agents-08-acpx-gemini-ask-user");
    await app.submitAndSend("Ready to start implementing?");
    // exit_plan_mode, right after.
    await app.waitText("[role=dialog]", "asked through", 5000);
    await app.pick("question_0", "Yes, manually accept edits");
    await app.shot("agents-09-acpx-gemini-exit-plan-mode");
    await app.submitAndSend();
    const { code, out, said } = await run.done();
    assert.equal(code, 0, said);
    // The agent's report (its one message, printed by acpx): what each request was answered.
    // Read as JSON, not by its first key: the key order depends on whether the test agent was
    // built with serde_json's preserve_order (feature unification with the other crates built).
    const report = out
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("{"))
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return null;
        }
      })
      .find((r) => r?.scenario === "gemini-host-input");
    assert.ok(report, `no report in acpx's output: ${out.slice(-1500)}`);
    const { results } = report;
    assert.deepEqual(results[0].result, { outcome: "submitted", answers: { 0: "DuckDB", 1: "billing", 2: "Yes" } });
    assert.deepEqual(results[1].result, { outcome: "submitted", answers: { 0: "Yes, manually accept edits" } });
  } finally {
    run.kill();
  }
});
