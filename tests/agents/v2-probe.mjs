// What real agents send in ACP v2, recorded: starts an agent of agents.mjs against the fake model
// API (fake-models.mjs, on 127.0.0.1), speaks v2 to it by hand-written JSON lines (a probe of the
// wire, so raw JSON is right here; Porthole itself speaks through the SDK) and records both
// directions, one JSON object per line ({ dir: "to-agent" | "from-agent", msg }), to
// tests/agents/v2-transcripts/<agent>-<flow>.jsonl. docs/acp-v2.md reads them.
//
//   unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
//     env PORTHOLE_AGENT_CACHE=/var/tmp/porthole-agents node tests/agents/v2-probe.mjs [agent ...] [--flow NAME ...]
//
// Each flow prints pass, FAIL, or known (an agent's own bug, named in KNOWN); the exit code is 1 if
// any flow did not do as expected. Run it only inside that loopback-only namespace: agents reach
// for their vendors on their own.
// Paths of the throwaway HOME and workspace are written as $HOME and $WS, long strings are cut,
// and the only keys in the fixtures are the fake model's (agents.mjs).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const cache = process.env.PORTHOLE_AGENT_CACHE ?? "/var/tmp/porthole-agents";
const outDir = join(here, "v2-transcripts");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The longest string kept whole in a fixture (system prompts, tool schemas, diffs are cut). */
const KEEP_CHARS = 300;
/** The most items of a list kept (Claude lists dozens of commands and skills). */
const KEEP_ITEMS = 12;

/** A v2 client's initialize: `capabilities` and `info` (v1 says clientCapabilities, clientInfo). */
const INITIALIZE = {
  protocolVersion: 2,
  info: { name: "porthole-v2-probe", version: "0.1.0" },
  capabilities: { elicitation: { form: {}, url: {} }, auth: { terminal: {} } },
};

/** One agent process and the JSON-RPC lines between it and the probe. */
class Wire {
  constructor(agent, home, ws, env) {
    const program = agent.bin ? [join(cache, agent.bin)] : [process.execPath, join(cache, "node_modules", agent.entry)];
    this.child = spawn(program[0], [...program.slice(1), ...(agent.args ?? [])], { cwd: ws, env, stdio: ["pipe", "pipe", "pipe"] });
    this.home = home;
    this.ws = ws;
    this.lines = [];
    this.nextId = 1;
    this.pending = new Map();
    this.waiters = [];
    this.stderr = "";
    this.child.stderr.on("data", (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    let partial = "";
    this.child.stdout.on("data", (chunk) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop();
      for (const line of parts.filter((l) => l.trim())) {
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          msg = { unparsed: line.slice(0, KEEP_CHARS) };
        }
        this.record("from-agent", msg);
        this.receive(msg);
      }
    });
    this.exited = new Promise((r) => this.child.on("exit", r));
  }

  record(dir, msg) {
    this.lines.push({ dir, msg: this.clean(msg) });
  }

  /** The message as a fixture keeps it: throwaway paths named, long strings cut. */
  clean(value) {
    if (typeof value === "string") {
      const named = value.replaceAll(this.ws, "$WS").replaceAll(this.home, "$HOME").replaceAll(here, "$SUITE").replaceAll(process.execPath, "node");
      return named.length > KEEP_CHARS ? `${named.slice(0, KEEP_CHARS)}…[${named.length} chars]` : named;
    }
    if (Array.isArray(value)) return value.length > KEEP_ITEMS ? [...value.slice(0, KEEP_ITEMS).map((v) => this.clean(v)), `…[${value.length} items]`] : value.map((v) => this.clean(v));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.clean(v)]));
    return value;
  }

  send(msg) {
    this.record("to-agent", msg);
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  request(method, params, timeoutMs = 60_000) {
    const id = this.nextId++;
    this.send({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ timeout: `no answer to ${method} in ${timeoutMs} ms` }), timeoutMs);
      this.pending.set(id, (m) => (clearTimeout(timer), resolve(m)));
    });
  }

  notify(method, params) {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** Resolves with the first message from the agent (from now on) that `test` accepts. */
  waitFor(test, timeoutMs = 90_000, what = "message") {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ timeout: `no ${what} in ${timeoutMs} ms` }), timeoutMs);
      this.waiters.push({ test, done: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  receive(msg) {
    if (msg.id !== undefined && !msg.method && this.pending.has(msg.id)) {
      this.pending.get(msg.id)(msg);
      this.pending.delete(msg.id);
    }
    if (msg.method && msg.id !== undefined) this.answer(msg);
    this.waiters = this.waiters.filter((w) => (w.test(msg) ? (w.done(msg), false) : true));
  }

  /** The person's side: allow a permission once, accept a form with its defaults, refuse the rest. */
  answer(msg) {
    const reply = (result) => this.send({ jsonrpc: "2.0", id: msg.id, result });
    if (msg.method === "session/request_permission") {
      const options = msg.params?.options ?? [];
      const allow = options.find((o) => o.kind === "allow_once") ?? options.find((o) => String(o.kind).startsWith("allow")) ?? options[0];
      return reply({ outcome: { outcome: "selected", optionId: allow?.optionId } });
    }
    if (msg.method === "elicitation/create") return reply(this.formAnswer(msg.params));
    this.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `the v2 probe does not handle ${msg.method}` } });
  }

  /** A form accepted with "Orange" where a field offers it (the fake model's [[ask]]), else
   * each field's first choice or default; a URL elicitation is declined. */
  formAnswer(params) {
    const schema = params?.requestedSchema;
    if (params?.mode === "url" || !schema) return { action: "decline" };
    const content = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const choices = [...(field.enum ?? []), ...(field.oneOf ?? field.anyOf ?? []).map((c) => c.const)].filter((c) => c !== undefined);
      if (choices.length) content[name] = choices.find((c) => /orange/i.test(String(c))) ?? choices[0];
      else if (field.type === "boolean") content[name] = field.default ?? true;
      else if (field.type === "number" || field.type === "integer") content[name] = field.default ?? 1;
      else if (field.type !== "array") content[name] = field.default ?? "Orange";
    }
    return { action: "accept", content };
  }

  /** A prompt's turn: the acknowledgement, then updates until the state is idle again. */
  async turn(sessionId, text, { onUpdate } = {}) {
    const isIdle = (m) => m.method === "session/update" && m.params?.sessionId === sessionId && m.params.update?.sessionUpdate === "state_update" && m.params.update.state === "idle";
    const idle = this.waitFor(isIdle, 90_000, "state_update idle");
    let off = null;
    if (onUpdate) {
      const watcher = { test: (m) => m.method === "session/update" && onUpdate(m), done: () => {} };
      this.waiters.push(watcher);
      off = () => (this.waiters = this.waiters.filter((w) => w !== watcher));
    }
    const ack = await this.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 90_000);
    // A v1-minded agent ends the turn in the prompt's answer instead: then no idle may come.
    const end = ack.result?.stopReason ? await Promise.race([idle, sleep(3000).then(() => ({ noIdle: true }))]) : await idle;
    off?.();
    return { ack, end };
  }

  async close() {
    this.child.stdin.end();
    await Promise.race([this.exited, sleep(3000)]);
    if (this.child.exitCode === null) {
      this.child.kill("SIGTERM");
      await Promise.race([this.exited, sleep(2000)]);
      if (this.child.exitCode === null) this.child.kill("SIGKILL");
    }
  }
}

/** A fresh agent: HOME, workspace, initialize and (unless `bare`) a session in the suite's mode. */
async function start(agent, baseUrl, { bare = false, home: givenHome, initialize = INITIALIZE, signedIn = true, mcpServers = [], login = null } = {}) {
  const home = givenHome ?? mkdtempSync(join(root, `${agent.id}-home-`));
  const ws = mkdtempSync(join(root, `${agent.id}-ws-`));
  const env = { PATH: process.env.PATH, LANG: "C.UTF-8", ...agent.env({ baseUrl, home, signedIn, connections: mcpServers.length > 0 }) };
  const wire = new Wire(agent, home, ws, env);
  const init = await wire.request("initialize", initialize);
  if (bare || init.error || init.timeout) return { wire, init };
  let created = await wire.request("session/new", { cwd: ws, mcpServers });
  // Signed out: what the agent answers, then v2's sign-in (`auth/login`), then the session again.
  let loggedIn = null;
  if (login && created.error) {
    loggedIn = await wire.request("auth/login", login);
    created = await wire.request("session/new", { cwd: ws, mcpServers });
  }
  const sessionId = created.result?.sessionId;
  // Modes are config options in v2: the suite's mode (the one that asks before edits) by its option.
  const mode = (created.result?.configOptions ?? []).find((o) => o.category === "mode");
  if (sessionId && mode && agent.mode && mode.currentValue !== agent.mode) {
    await wire.request("session/set_config_option", { sessionId, configId: mode.configId, type: "id", value: agent.mode });
  }
  return { wire, init, created, sessionId, home, ws, loggedIn };
}

/** The flows: each returns a one-line summary; the transcript is what matters. */
const FLOWS = {
  async initialize(agent, baseUrl) {
    const { wire, init } = await start(agent, baseUrl, { bare: true });
    await wire.close();
    return { wire, ok: init.result?.protocolVersion === 2, summary: `answered protocolVersion ${init.result?.protocolVersion ?? JSON.stringify(init.error ?? init.timeout)}, ${init.result?.authMethods?.length ?? 0} auth methods` };
  },
  /** The same without `capabilities.auth.terminal`: which sign-in methods remain. */
  async "initialize-no-terminal-auth"(agent, baseUrl) {
    const { wire, init } = await start(agent, baseUrl, { bare: true, initialize: { ...INITIALIZE, capabilities: { elicitation: INITIALIZE.capabilities.elicitation } } });
    await wire.close();
    return { wire, ok: init.result?.protocolVersion === 2, summary: `answered protocolVersion ${init.result?.protocolVersion ?? JSON.stringify(init.error ?? init.timeout)}, ${init.result?.authMethods?.length ?? 0} auth methods` };
  },
  async reply(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    const t = await s.wire.turn(s.sessionId, "hello from the v2 probe");
    await s.wire.close();
    const said = s.wire.lines.map((l) => (l.msg.params?.update?.sessionUpdate === "agent_message_chunk" ? l.msg.params.update.content?.text ?? "" : "")).join("");
    return { wire: s.wire, ok: t.end.params?.update?.stopReason === "end_turn" && said.includes("hello from the v2 probe"), summary: `turn ended: ${JSON.stringify(t.end.params?.update ?? t.end)}` };
  },
  async edit(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    const file = join(s.ws, "hello.txt");
    const t = await s.wire.turn(s.sessionId, `[[edit ${file} written by the v2 probe]]`);
    let content = null;
    try {
      content = readFileSync(file, "utf8").trim();
    } catch {}
    await s.wire.close();
    return { wire: s.wire, ok: content === "written by the v2 probe" && s.wire.lines.some((l) => l.msg.method === "session/request_permission"), summary: `file holds ${JSON.stringify(content)}; turn ended ${JSON.stringify(t.end.params?.update?.stopReason ?? t.end)}` };
  },
  async shell(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    const t = await s.wire.turn(s.sessionId, "[[shell echo porthole-v2-shell]]");
    await s.wire.close();
    const ran = s.wire.lines.some((l) => l.msg.params?.update?.sessionUpdate === "terminal_update" && l.msg.params.update.exitStatus?.exitCode === 0);
    return { wire: s.wire, ok: ran && t.end.params?.update?.stopReason === "end_turn", summary: `command ${ran ? "exited 0" : "did not run"}; turn ended ${JSON.stringify(t.end.params?.update?.stopReason ?? t.end)}` };
  },
  async cancel(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    let cancelled = false;
    const t = await s.wire.turn(s.sessionId, "[[slow 30]]", {
      onUpdate: (m) => {
        const kind = m.params?.update?.sessionUpdate;
        if (!cancelled && (kind === "agent_message_chunk" || kind === "agent_message") && JSON.stringify(m.params.update).includes("step-")) {
          cancelled = true;
          s.wire.notify("session/cancel", { sessionId: s.sessionId });
        }
        return false;
      },
    });
    await s.wire.close();
    return { wire: s.wire, ok: cancelled && t.end.params?.update?.stopReason === "cancelled", summary: `cancel sent: ${cancelled}; turn ended ${JSON.stringify(t.end.params?.update?.stopReason ?? t.end)}` };
  },
  /** The agent's question tool as a form (Codex offers it in the Plan collaboration mode only). */
  async ask(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    for (const setting of agent.questionTool?.config ?? []) {
      const [configId, value] = setting.split("=");
      await s.wire.request("session/set_config_option", { sessionId: s.sessionId, configId, type: "id", value });
    }
    const t = await s.wire.turn(s.sessionId, "[[ask]]");
    await s.wire.close();
    const asked = s.wire.lines.find((l) => l.msg.method === "elicitation/create");
    const told = s.wire.lines.some((l) => JSON.stringify(l.msg).includes("Orange") && l.dir === "from-agent" && l.msg.params?.update);
    return { wire: s.wire, ok: Boolean(asked) && told, summary: `${asked ? `asked (${JSON.stringify(asked.msg.params).slice(0, 160)})` : "no elicitation/create"}; turn ended ${JSON.stringify(t.end.params?.update?.stopReason ?? t.end)}` };
  },
  /** A second prompt while the first turn streams: is it held (queued), steered into the running
   * turn, or refused? (Claude's initialize says `_meta.claudeCode.promptQueueing`, Codex's
   * `_meta.steering.supported`.) */
  async followup(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    let second = null;
    const t = await s.wire.turn(s.sessionId, "[[slow 10]]", {
      onUpdate: (m) => {
        const u = m.params?.update;
        if (!second && (u?.sessionUpdate === "agent_message_chunk" || u?.sessionUpdate === "agent_message") && JSON.stringify(u).includes("step-")) {
          second = s.wire.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "a follow-up while you run" }] }, 90_000);
        }
        return false;
      },
    });
    const answer = second ? await second : null;
    // The follow-up's own turn, if it got one after the first.
    const more = await s.wire.waitFor((m) => m.params?.update?.state === "idle" && m.params.update.stopReason, 20_000, "a second idle");
    await s.wire.close();
    const idles = s.wire.lines.filter((l) => l.msg.params?.update?.state === "idle" && l.msg.params.update.stopReason).length;
    return { wire: s.wire, ok: Boolean(answer?.result) && idles === 2, summary: `follow-up answered ${answer ? JSON.stringify(answer.result ?? answer.error ?? answer.timeout) : "never sent"}; first turn ended ${JSON.stringify(t.end.params?.update?.stopReason ?? t.end)}; ${idles} idle(s) with a stop reason${more.timeout ? "" : " (a second turn ran)"}` };
  },
  /** Signed out: session/new's error, `auth/login` with the API-key method (the key in
   * `_meta["api-key"].apiKey`, as v1's `authenticate` took it), then a turn that must reach the
   * model with that key. */
  async signin(agent, baseUrl, server) {
    if (!agent.apiKeyMethod) return { wire: null, summary: "skipped: no API-key method" };
    const key = "sk-porthole-fake-v2-login-key";
    const s = await start(agent, baseUrl, { signedIn: false, login: { methodId: agent.apiKeyMethod, _meta: { "api-key": { apiKey: key } } } });
    const t = s.sessionId ? await s.wire.turn(s.sessionId, "hello after auth/login") : null;
    await s.wire.close();
    const first = s.wire.lines.find((l) => l.msg.error);
    return { wire: s.wire, ok: Boolean(first) && Boolean(s.loggedIn?.result) && server.keysSeen.has(key), summary: `first session/new: ${first ? `error ${first.msg.error.code} ${first.msg.error.message}` : "no error"}; auth/login ${s.loggedIn?.error ? `error ${s.loggedIn.error.message}` : s.loggedIn ? "ok" : "not sent"}; turn ${t ? JSON.stringify(t.end.params?.update?.stopReason ?? t.end) : "-"}; the model API ${server.keysSeen.has(key) ? "got" : "did NOT get"} the key` };
  },
  /** An MCP stdio server handed in session/new (v2: `type: "stdio"`), whose tool asks a form
   * question through MCP elicitation. */
  async mcp(agent, baseUrl) {
    const server = { type: "stdio", name: "porthole-elicit", command: process.execPath, args: [join(here, "elicit-mcp-server.mjs")], env: [] };
    const s = await start(agent, baseUrl, { mcpServers: [server] });
    if (agent.mcpWarmup) await sleep(3000);
    const t = s.sessionId ? await s.wire.turn(s.sessionId, "[[mcp pick_color]]") : null;
    await s.wire.close();
    const asked = s.wire.lines.find((l) => l.msg.method === "elicitation/create");
    const said = s.wire.lines.map((l) => (l.msg.params?.update?.sessionUpdate === "agent_message_chunk" ? l.msg.params.update.content?.text ?? "" : "")).join("");
    const finished = /Tool finished: (.*)/.exec(said);
    if (process.env.V2_PROBE_STDERR) console.log(s.wire.stderr);
    return { wire: s.wire, ok: Boolean(asked) && /elicitation answered: accept/.test(finished?.[1] ?? ""), summary: `session/new ${s.created.error ? `error ${s.created.error.message}` : "ok"}; ${asked ? "elicitation/create reached the client" : "no elicitation/create"}; ${finished ? `the model got ${JSON.stringify(finished[1])}` : "no tool result"}; turn ${t ? JSON.stringify(t.end.params?.update?.stopReason ?? t.end) : "-"}` };
  },
  async sessions(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    await s.wire.turn(s.sessionId, "remember the word porthole");
    const listed = await s.wire.request("session/list", {});
    const closed = await s.wire.request("session/close", { sessionId: s.sessionId });
    await s.wire.close();
    // A new process of the agent (same HOME) resumes the stored session with its history replayed.
    const again = await start(agent, baseUrl, { bare: true, home: s.home });
    again.wire.ws = s.ws;
    const resumed = await again.wire.request("session/resume", { sessionId: s.sessionId, cwd: s.ws, mcpServers: [], replayFrom: { type: "start" } });
    await sleep(1500);
    const t = resumed.result ? await again.wire.turn(s.sessionId, "what was the word?") : null;
    const closedAgain = await again.wire.request("session/close", { sessionId: s.sessionId });
    await again.wire.close();
    const wire = { lines: [...s.wire.lines, { dir: "note", msg: "a new process of the agent, same HOME" }, ...again.wire.lines] };
    const sum = (r) => (r.error ? `error ${r.error.code} ${r.error.message}` : r.timeout ?? "ok");
    const allOk = [listed, closed, resumed, closedAgain].every((r) => r.result) && t?.end.params?.update?.stopReason === "end_turn";
    return { wire, ok: allOk, summary: `list ${sum(listed)} (${listed.result?.sessions?.length ?? 0} sessions); close ${sum(closed)}; resume ${sum(resumed)}; turn ${t ? JSON.stringify(t.end.params?.update?.stopReason ?? t.end) : "-"}; close ${sum(closedAgain)}` };
  },
  async config(agent, baseUrl) {
    const s = await start(agent, baseUrl);
    const options = s.created.result?.configOptions ?? [];
    const results = [];
    // Every select option set to another of its values, as a person picking from a menu would
    // (but the model: only the fake model answers here).
    for (const o of options.filter((x) => x.type === "select" && x.category !== "model")) {
      const values = (o.options ?? []).flatMap((v) => (v.options ? v.options : [v])).map((v) => v.value);
      const other = values.find((v) => v !== o.currentValue);
      if (other === undefined) continue;
      const r = await s.wire.request("session/set_config_option", { sessionId: s.sessionId, configId: o.configId, type: "id", value: other });
      results.push(`${o.configId}=${other}: ${r.error ? `error ${r.error.message}` : "ok"}`);
    }
    await s.wire.close();
    return { wire: s.wire, ok: options.some((o) => o.category === "mode") && results.length > 0 && results.every((r) => r.endsWith(": ok")), summary: `${options.length} options (${options.map((o) => `${o.configId}:${o.category ?? "-"}`).join(", ")}); ${results.join("; ")}` };
  },
};

const args = process.argv.slice(2);
const flowArg = args.indexOf("--flow");
const flows = flowArg >= 0 ? args.slice(flowArg + 1) : Object.keys(FLOWS);
const unknown = flows.filter((f) => !FLOWS[f]);
if (unknown.length) throw new Error(`no flow ${unknown.join(", ")} (flows: ${Object.keys(FLOWS).join(", ")})`);
const ids = (flowArg >= 0 ? args.slice(0, flowArg) : args).filter(Boolean);
/** Failures of the agents' own, with the reason: shown, not counted (a fix is counted, so
 * that this list is kept true). */
const KNOWN = {
  "codex mcp": "codex-acp 2.6.0 sends an MCP tool approval as a v1 permission request without a title, which its v2 layer refuses: the call fails as 'user cancelled'",
};
const failures = [];
const agents = AGENTS.filter((a) => (ids.length ? ids.includes(a.id) : ["claude", "codex"].includes(a.id)));
// Every HOME and workspace of this run, removed at the end (agents keep writing for a moment
// after their stdin closed, so not one by one).
const root = mkdtempSync(join(tmpdir(), "porthole-v2-probe-"));
const server = await startFakeModels();
const baseUrl = `http://127.0.0.1:${server.address().port}`;
mkdirSync(outDir, { recursive: true });
for (const agent of agents) {
  for (const flow of flows) {
    const started = Date.now();
    const { wire, summary, ok } = await FLOWS[flow](agent, baseUrl, server);
    if (!wire) {
      console.log(`skip  ${agent.id} ${flow}: ${summary}`);
      continue;
    }
    const file = join(outDir, `${agent.id}-${flow}.jsonl`);
    writeFileSync(file, wire.lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const known = KNOWN[`${agent.id} ${flow}`];
    const verdict = ok ? (known ? "fixed" : "pass") : known ? "known" : "FAIL";
    if (verdict === "FAIL" || verdict === "fixed") failures.push(`${agent.id} ${flow}`);
    console.log(`${verdict.padEnd(5)} ${agent.id} ${flow}: ${summary}${known && !ok ? ` [${known}]` : ""} (${wire.lines.length} lines, ${Date.now() - started} ms)`);
  }
}
server.close();
console.log(failures.length ? `v2 probe: ${failures.length} unexpected: ${failures.join(", ")}` : "v2 probe: every flow as expected");
await sleep(1000);
try {
  rmSync(root, { recursive: true, force: true, maxRetries: 5 });
} catch (error) {
  console.log(`# could not remove ${root}: ${error.message}`);
}
process.exit(failures.length ? 1 : 0);
