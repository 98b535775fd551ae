// Real third-party agents through full turns, offline: each agent (agents.mjs) runs through
// porthole-cli against the fake model API (fake-models.mjs) on 127.0.0.1, one flow at a time in
// a fresh workspace, and the JSON-lines events are checked. Prints a matrix (agent, version,
// flow, result) and ends with "N passed, M failed" alone on a line; exits 1 if any flow failed.
//
//   node tests/agents/run.mjs            (scripts/test-agents sets the paths below)
//   PORTHOLE_CLI=... PORTHOLE_AGENT_CACHE=... node tests/agents/run.mjs [agent-id ...]
//
// The "mcp connection" flows sign in to porthole-test-mcp (PORTHOLE_TEST_MCP, else next to
// PORTHOLE_CLI) and keep the token in the OS keyring: run under scripts/with-keyring, as
// scripts/test-agents does. Only those flows get the keyring's D-Bus session.
import { startExample } from "../e2e/apps/examples.mjs";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";
import { v2Flows } from "./flows-v2.mjs";
import { removeTree } from "./homes.mjs";

const cli = process.env.PORTHOLE_CLI;
const cache = process.env.PORTHOLE_AGENT_CACHE;
if (!cli || !existsSync(cli)) throw new Error(`PORTHOLE_CLI (${cli}) is not a built porthole-cli`);
if (!cache) throw new Error("PORTHOLE_AGENT_CACHE is not set (scripts/test-agents installs the agents there)");

const cliHelp = execFileSync(cli, ["--help"], { encoding: "utf8" });
// Every workspace, HOME and log of this run lies under one folder, removed at the end unless
// PORTHOLE_AGENTS_KEEP=1 (agents' homes hold databases and logs: tens of MB per run).
const root = mkdtempSync(join(tmpdir(), "porthole-agents-run-"));
const server = await startFakeModels();
const baseUrl = `http://127.0.0.1:${server.address().port}`;
// Credentials or endpoints from the caller's environment must never reach an agent.
const CLEARED = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_CLOUD_PROJECT", "OPENAI_MODEL", "DASHSCOPE_API_KEY", "OPENAI_HOST", "GOOSE_PROVIDER", "GOOSE_MODEL"];

const here = dirname(fileURLToPath(import.meta.url));
const testMcp = process.env.PORTHOLE_TEST_MCP ?? join(dirname(cli), "porthole-test-mcp");
// The MCP server of the elicitation flow (elicit-mcp-server.mjs), started by the agent itself.
const ELICIT_MCP = { name: "porthole-elicit", command: process.execPath, args: [join(here, "elicit-mcp-server.mjs")] };

/** Run porthole-cli with `agent` in a workspace and a HOME (fresh ones unless given: an agent
 * keeps its stored sessions under HOME); returns { code, events, stderr, home, acp }, where
 * `acp` is the JSON-RPC traffic seen by acp-tap.mjs between the CLI and the agent. */
async function runCli(agent, args, { signedIn = true, workspace, home: givenHome, mcp, connections = false, env: extraEnv = {}, keyring = false, watch = null, protocol = "1" } = {}) {
  const ws = workspace ?? mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
  const home = givenHome ?? mkdtempSync(join(root, `porthole-agent-${agent.id}-home-`));
  const env = cleanEnv({ keyring });
  Object.assign(env, agent.env({ baseUrl, home, signedIn, mcp, connections }), extraEnv);
  const tapLog = join(mkdtempSync(join(root, "porthole-agent-tap-")), "acp.jsonl");
  const command = `node ${join(here, "acp-tap.mjs")} ${tapLog} ${agentProgram(agent)}${(agent.args ?? []).map((a) => ` ${a}`).join("")}`;
  // Asynchronous: the fake model API answers from this same process while the agent runs.
  return new Promise((resolve) => {
    // The ACP version is always named: porthole-cli's default (auto) would run the v1 flows in v2
    // with an agent that answers 2.
    const child = spawn(cli, ["--agent", command, "--cwd", ws, "--json", "--init-timeout", "60", "--protocol", protocol, ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    // `watch` (a Map): the environment and command line of porthole-cli and every process under
    // it, sampled while the turn runs (processes come and go: an MCP bridge lives for a session).
    const sampler = watch ? setInterval(() => sampleTree(child.pid, watch), 100) : null;
    if (watch) sampleTree(child.pid, watch);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (sampler) clearInterval(sampler);
      const events = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const tapRaw = existsSync(tapLog) ? readFileSync(tapLog, "utf8") : "";
      const acp = tapRaw.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      // Kept beside the ACP log for PORTHOLE_AGENTS_KEEP=1 (the root is removed otherwise).
      writeFileSync(join(dirname(tapLog), "cli.jsonl"), stdout);
      resolve({ code, events, stdout, stderr, home, workspace: ws, acp, tapRaw });
    });
  });
}

/** How to start `agent` from the cache: its node script (`entry`, under node_modules), or its
 * own executable (`bin`, relative to the cache: a native build, a Python virtualenv's script). */
const agentProgram = (agent) => (agent.bin ? join(cache, agent.bin) : `node ${join(cache, "node_modules", agent.entry)}`);

/** The caller's environment without credentials, model endpoints, or (unless `keyring`) the
 * D-Bus session of scripts/with-keyring: only the connections flows use the keyring. */
function cleanEnv({ keyring = false } = {}) {
  const env = { ...process.env };
  for (const k of CLEARED) delete env[k];
  if (!keyring) delete env.DBUS_SESSION_BUS_ADDRESS;
  return env;
}

/** `root` and every process below it (the parent of each process is in /proc/PID/stat). */
function processTree(rootPid) {
  const children = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses; the last ")" ends it.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {} // gone meanwhile
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** Record /proc/PID/cmdline and /proc/PID/environ of every process in the tree under `rootPid`
 * into `into` (keyed by pid and command line: an exec changes both). */
function sampleTree(rootPid, into) {
  for (const pid of processTree(rootPid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      const key = `${pid} ${cmdline}`;
      if (into.has(key)) continue;
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      into.set(key, { pid, cmdline, environ, command: cmdline.split("\0").filter(Boolean).join(" ") });
    } catch {} // gone meanwhile
  }
}

/** Every regular file under `dir` (symbolic links are not followed). */
function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** porthole-test-mcp on 127.0.0.1 (its MCP endpoint needs a token it issued). */
async function startTestMcp() {
  const child = spawn(testMcp, [], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^ready (\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`porthole-test-mcp exited ${code} before it was ready`)));
    setTimeout(() => reject(new Error("porthole-test-mcp was not ready in 30 s")), 30_000);
  });
  return {
    url,
    /** { tokens: every access and refresh token issued, seen: every bearer token presented }. */
    issued: async () => (await fetch(url.replace(/\/mcp$/, "/_test/issued"))).json(),
    stop: () => child.kill("SIGKILL"),
  };
}

const updates = (events, kind) => events.filter((e) => e.type === "session_update" && e.update.sessionUpdate === kind).map((e) => e.update);
const text = (events) => updates(events, "agent_message_chunk").map((u) => u.content?.text ?? "").join("");
const turnEnd = (events) => events.find((e) => e.type === "turn_end");
/** The tool results in a raw Chat Completions request body (messages with role "tool"). */
function chatToolMessages(raw) {
  try {
    const body = JSON.parse(raw);
    return (body.messages ?? []).filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((c) => c.text ?? "").join("\n")));
  } catch {
    return [];
  }
}
/** The session's config options, as the agent answered session/new (through the ACP tap). */
const sessionConfigOptions = (r) => r.acp.find((m) => m.dir === "from-agent" && m.msg.result?.sessionId && m.msg.result.configOptions)?.msg.result.configOptions ?? [];
/** The values of a select config option (flat, or in groups). */
const selectValues = (o) => (o.options ?? []).flatMap((x) => (x.options ? x.options : [x])).map((x) => x.value);
/** Did the agent ask the client for `method` (e.g. fs/write_text_file)? */
const agentAsked = (r, method) => r.acp.some((m) => m.dir === "from-agent" && m.msg.method === method);
function expect(cond, why) {
  if (!cond) throw new Error(why);
}
function ok(r) {
  expect(r.code === 0, `porthole-cli exited ${r.code}: ${r.stderr.split("\n").filter((l) => l.startsWith("porthole-cli")).join(" | ").slice(0, 300)}`);
}
const modeArgs = (agent) => (agent.mode ? ["--mode", agent.mode] : []);

/** The fake MCP Registry (porthole-test-mcp-registry, with its fixtures) on 127.0.0.1. */
async function startTestMcpRegistry() {
  const program = process.env.PORTHOLE_TEST_MCP_REGISTRY ?? join(dirname(cli), "porthole-test-mcp-registry");
  const child = spawn(program, [], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`porthole-test-mcp-registry exited ${code} before it was ready`)));
    setTimeout(() => reject(new Error("porthole-test-mcp-registry was not ready in 30 s")), 30_000);
  });
  return { url, stop: () => child.kill("SIGKILL") };
}

/** Issue 43: a server nobody here wrote, `@modelcontextprotocol/server-everything` from npm, is
 * added from the (fake) MCP Registry with `porthole-cli mcp add --from-registry` (its form's
 * optional secret left empty on stdin), handed to the agent with --mcp, and the fake model calls
 * its `echo` tool (`{message}`) in a full turn; the server's answer must reach the model.
 * The suite is offline: scripts/test-agents fetched the package into an npm cache beforehand
 * ($cache/npm-server-everything), copied into the agent's HOME with `offline=true`. */
/** The turn an agent that starts its MCP servers in the background (`mcpWarmup`; Codex too for a
 * server as slow to start as one run by npx: `slowMcpWarmup`) gets before the turn that calls a
 * tool: 5 s of a slow reply. A "hello" was not always enough: Droid once listed no tool after it
 * on a cold machine ("no mcp tool offered"). */
function mcpWarmup(agent, { slowServer = false } = {}) {
  return agent.mcpWarmup || (slowServer && agent.slowMcpWarmup) ? ["[[slow 25]]"] : [];
}

async function mcpFromRegistry(agent) {
  const registry = await startTestMcpRegistry();
  const home = mkdtempSync(join(root, `porthole-agent-${agent.id}-home-`));
  const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
  cpSync(join(cache, "npm-server-everything"), join(home, ".npm"), { recursive: true });
  writeFileSync(join(home, ".npmrc"), "offline=true\nupdate-notifier=false\n");
  const connEnv = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PORTHOLE_CONNECTIONS_FILE: join(home, ".config", "porthole", "connections.json"), PORTHOLE_CACHE_DIR: join(home, ".cache") };
  try {
    const add = spawnSync(cli, ["mcp", "add", "everything", "--from-registry", "io.github.modelcontextprotocol/server-everything", "--registry", registry.url], { env: { ...cleanEnv(), ...connEnv }, input: "\n", encoding: "utf8", timeout: 60_000 });
    expect(add.status === 0, `mcp add --from-registry exited ${add.status}: ${`${add.stdout}${add.stderr}`.trim().slice(-300)}`);
    expect(add.stdout.includes("npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio"), `the command shown: ${add.stdout.slice(-200)}`);
    const before = server.toolResults.length;
    // Agents that start MCP servers in the background (Droid, Qwen Code; Codex for a server as
    // slow to start as this one) need a turn first, and npx starting server-everything takes
    // longer than the bridge: a 5 s turn (one "hello" was not enough for Droid).
    const warmup = mcpWarmup(agent, { slowServer: true });
    const marker = `porthole-registry-${agent.id}-${process.pid}`;
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--mcp", "everything", ...warmup, `[[mcp echo message=${marker}]]`], { home, workspace: ws, connections: true, env: connEnv });
    ok(r);
    const newSession = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/new");
    const handed = (newSession?.msg.params?.mcpServers ?? []).find((s) => s.name === "everything");
    // Porthole's gateway starts the stdio server itself and serves it over HTTP (so its
    // questions and apps reach Porthole): the agent gets the gateway's address, or the bridge
    // in HTTP mode when it takes only stdio; never the command.
    const viaGateway =
      (handed?.type === "http" && /^http:\/\/127\.0\.0\.1:\d+\//.test(handed.url ?? "")) ||
      (handed?.args?.slice(0, 2).join(" ") === "mcp bridge" && !handed.args.includes("--pipe"));
    expect(viaGateway && !JSON.stringify(handed).includes("server-everything"), `handed: ${JSON.stringify(handed ?? null).slice(0, 200)}`);
    if (agent.sessionMcpIgnored) {
      expect(text(r.events).includes("no mcp tool offered"), `the server's tool was offered after all: ${text(r.events).slice(-160)}`);
      return { skip: `checked: handed in session/new, never offered to the model; ${agent.sessionMcpIgnored}` };
    }
    const results = server.toolResults.slice(before).join("\n");
    expect(results.includes(`Echo: ${marker}`), `server-everything's answer did not reach the model: ${results.slice(-200) || text(r.events).slice(-200)}`);
    return `added from the registry (npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio, started by Porthole's gateway, handed as ${handed.type === "http" ? "its address" : "the bridge"}), its tool called in a turn`;
  } finally {
    registry.stop();
  }
}

/** Issue 31, the "mcp connection" flows: a remote MCP server that needs OAuth
 * (porthole-test-mcp) is signed in to once with porthole-cli (the token goes to the OS keyring)
 * and handed to the agent with --mcp: an agent that takes http gets the gateway's 127.0.0.1
 * address, a stdio-only one (`stdioOnly`: the ACP tap hides http) `porthole-cli mcp bridge URL`;
 * the gateway adds the token. The fake model calls the connection's `echo` tool; the result
 * must reach it, the server must get the token, and no token may be anywhere the agent can
 * see or leave it. */
async function mcpConnection(agent, { stdioOnly, protocol = "1", mode = modeArgs(agent) }) {
  const tracker = await startTestMcp();
  const name = "tracker";
  const home = mkdtempSync(join(root, `porthole-agent-${agent.id}-home-`));
  const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
  const connEnv = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PORTHOLE_CONNECTIONS_FILE: join(home, ".config", "porthole", "connections.json") };
  const said = [];
  const step = (args) => {
    const r = spawnSync(cli, args, { env: { ...cleanEnv({ keyring: true }), ...connEnv }, encoding: "utf8", timeout: 60_000 });
    said.push(r.stdout ?? "", r.stderr ?? "");
    expect(r.status === 0, `porthole-cli ${args.slice(0, 3).join(" ")} exited ${r.status}: ${`${r.stdout}${r.stderr}`.trim().slice(-300)}`);
    return `${r.stdout}${r.stderr}`;
  };
  try {
    step(["mcp", "add", name, "--url", tracker.url]);
    const login = step(["mcp", "login", name, "--browser", `${testMcp} --browse`]);
    expect(login.includes(`Signed in to \`${name}\``), `login: ${login.slice(-200)}`);
    const marker = `porthole-connection-${agent.id}-${stdioOnly ? "bridge" : "http"}-${process.pid}`;
    const procs = new Map();
    server.bodies = [];
    const resultsBefore = server.toolResults.length;
    // Qwen Code registers MCP tools in the background: a first turn gives it the time.
    const warmup = mcpWarmup(agent);
    const r = await runCli(agent, [...mode, "--permission", "allow-once", "--mcp", name, ...warmup, `[[mcp echo ${marker}]]`], { home, workspace: ws, connections: true, keyring: true, watch: procs, protocol, env: { ...connEnv, ...(stdioOnly ? { ACP_TAP_STDIO_MCP_ONLY: "1" } : {}) } });
    const bodies = server.bodies;
    server.bodies = null;
    ok(r);
    // What the agent was handed for the connection (session/new's mcpServers, through the tap).
    const newSession = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/new");
    const handed = (newSession?.msg.params?.mcpServers ?? []).find((s) => s.name === name);
    expect(handed, `session/new carried no mcpServers entry \`${name}\`: ${JSON.stringify(newSession?.msg.params?.mcpServers ?? null).slice(0, 200)}`);
    if (agent.sessionMcpIgnored) {
      // Handed over, and never started: the model is offered no such tool.
      expect(text(r.events).includes("no mcp tool offered"), `the connection's tool was offered after all: update agents.mjs (${text(r.events).slice(-160)})`);
      return { skip: `checked: handed in session/new, never offered to the model; ${agent.sessionMcpIgnored}` };
    }
    // The agent's MCP transports: v1's agentCapabilities.mcpCapabilities, v2's capabilities.session.mcp.
    const caps = r.acp.find((m) => m.dir === "from-agent" && m.msg.result?.agentCapabilities)?.msg.result.agentCapabilities;
    const mcpCaps = protocol === "2" ? r.acp.find((m) => m.dir === "from-agent" && m.msg.result?.capabilities)?.msg.result.capabilities.session?.mcp : caps?.mcpCapabilities;
    const viaHttp = handed.type === "http";
    expect(viaHttp === (Boolean(mcpCaps?.http) && !stdioOnly), `handed ${JSON.stringify(handed).slice(0, 200)} to an agent whose MCP capabilities are ${JSON.stringify(mcpCaps ?? null)}`);
    if (viaHttp) expect(/^http:\/\/127\.0\.0\.1:\d+\//.test(handed.url) && !handed.url.startsWith(tracker.url.replace(/\/mcp$/, "")), `the http address is not the gateway's: ${handed.url}`);
    else expect(realpathSync(handed.command) === realpathSync(cli) && handed.args?.slice(0, 2).join(" ") === "mcp bridge", `not the bridge: ${JSON.stringify(handed).slice(0, 200)}`);
    // The tool ran against the server and its result reached the model.
    const echoed = `echo: ${marker}`;
    expect(server.toolResults.slice(resultsBefore).some((t) => t.includes(echoed)), `the model API never got the tool result "${echoed}"; reply: ${text(r.events).slice(-200)}`);
    expect(text(r.events).includes(`Tool finished: ${echoed}`), `reply: ${text(r.events).slice(-200)}`);
    const issued = await tracker.issued();
    const tokens = issued.tokens ?? [];
    expect(tokens.length >= 2, `the server issued ${tokens.length} tokens`);
    expect((issued.seen ?? []).some((t) => tokens.includes(t)), "the MCP server never received an issued token");
    // No issued token anywhere the agent can see or leave it.
    const leaks = [];
    const look = (where, content) => {
      for (const t of tokens) if (content.includes(t)) leaks.push(where);
    };
    look("the ACP tap", r.tapRaw);
    look("porthole-cli's output", `${r.stdout}${r.stderr}${said.join("")}`);
    look("the requests to the model API", bodies.join("\n"));
    for (const p of procs.values()) {
      look(`/proc/${p.pid}/cmdline (${p.command.slice(0, 80)})`, p.cmdline);
      look(`/proc/${p.pid}/environ (${p.command.slice(0, 80)})`, p.environ);
    }
    const files = [...filesUnder(home), ...filesUnder(ws)];
    for (const f of files) look(f, readFileSync(f, "latin1"));
    expect(leaks.length === 0, `an issued token in: ${[...new Set(leaks)].join("; ").slice(0, 400)}`);
    // The sampling saw the processes that matter: the agent, and the bridge when there is one.
    const commands = [...procs.values()].map((p) => p.command);
    expect(commands.some((c) => c.includes(agent.entry ?? agent.bin)), `the agent's process was never sampled (${commands.length} processes)`);
    if (!viaHttp) expect(commands.some((c) => c.includes(" mcp bridge ")), "the bridge process was never sampled");
    const logout = step(["mcp", "logout", name]);
    look("porthole-cli mcp logout", logout);
    expect(leaks.length === 0, "an issued token in mcp logout's output");
    const how = viaHttp ? "mcpServers: http, the gateway's 127.0.0.1 address" : `mcpServers: stdio, \`porthole-cli mcp bridge URL\`${mcpCaps?.http ? " (the agent's http hidden by the tap)" : ""}, started by the agent`;
    const pids = new Set([...procs.values()].map((p) => p.pid)).size;
    return `${how}; "${echoed}" reached the model; the server saw the token; no token in the ACP tap (${r.acp.length} messages), the CLI's output, the model API's requests, the environ and cmdline of ${pids} processes under porthole-cli, or ${files.length} files under HOME and the workspace`;
  } finally {
    server.bodies = null;
    tracker.stop();
  }
}

/** A free TCP port (the example servers take theirs from the environment). */
async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "0.0.0.0", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A node server nobody here wrote, started with `env` until its output says `ready`; `log()`
 * is all it printed (stdout and stderr). */
async function startNodeServer(script, args, env, ready) {
  expect(existsSync(script), `${script} is missing: run ./scripts/test-mcp-ts-sdk --install (or ./scripts/test-agents, which fetches server-everything)`);
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    const read = (d) => {
      out += d;
      if (ready.test(out)) resolve();
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`${script} exited ${code} before it listened: ${out.slice(-200)}`)));
    setTimeout(() => reject(new Error(`${script} did not listen in 30 s`)), 30_000);
  });
  return { log: () => out, stop: () => child.kill("SIGKILL") };
}

/** The official MCP TypeScript SDK's example servers (tests/mcp-ts-sdk, installed by
 * scripts/test-mcp-ts-sdk). */
const sdkExample = (file) => join(here, "../mcp-ts-sdk/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server", file);

/** `elicitationFormExample.js`: a server nobody here wrote, whose `create_event` asks twice. */
async function startFormsExample() {
  const port = await freePort();
  const s = await startNodeServer(sdkExample("elicitationFormExample.js"), [], { PORT: String(port) }, /is running on/);
  return { url: `http://127.0.0.1:${port}/mcp`, stop: s.stop };
}

/** A connection `name` at `url` added to a fresh HOME; `{ home, ws, connEnv }`. */
function connectionHome(agent, name, url) {
  const home = mkdtempSync(join(root, `porthole-agent-${agent.id}-home-`));
  const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
  const connEnv = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PORTHOLE_CONNECTIONS_FILE: join(home, ".config", "porthole", "connections.json") };
  const added = spawnSync(cli, ["mcp", "add", name, "--url", url], { env: { ...cleanEnv({ keyring: false }), ...connEnv }, encoding: "utf8", timeout: 60_000 });
  expect(added.status === 0, `porthole-cli mcp add exited ${added.status}: ${`${added.stdout}${added.stderr}`.trim().slice(-300)}`);
  return { home, ws, connEnv };
}

/** An agent that never starts the servers handed in session/new (agents.mjs
 * `sessionMcpIgnored`): checked that the model was offered no such tool; the matrix's n/a. */
function ignoredMcp(agent, r) {
  if (!agent.sessionMcpIgnored) return null;
  expect(text(r.events).includes("no mcp tool offered"), `the connection's tool was offered after all: update agents.mjs (${text(r.events).slice(-160)})`);
  return { skip: `checked: handed in session/new, never offered to the model; ${agent.sessionMcpIgnored}` };
}

/** How many of the gateway's `questions` named one of the agent's ACP tool calls (`toolCallId`,
 * matched by the gateway's tools/call; a note for the matrix, not a check: agents describe
 * their tool calls differently, some only after the call). */
function namedToolCalls(r, questions) {
  const ids = new Set([...updates(r.events, "tool_call"), ...updates(r.events, "tool_call_update")].map((c) => c.toolCallId));
  const named = questions.filter((q) => q.toolCallId && ids.has(q.toolCallId)).length;
  return `${named} of ${questions.length} named the agent's tool call`;
}

/** Issue 40: an MCP connection's questions answered by Porthole for every agent. The connection
 * (the TypeScript SDK's form example) is handed with --mcp; the fake model calls `create_event`,
 * whose two questions the gateway takes out of the server's stream (the agent never sees them,
 * whether it declared elicitation or not) and porthole-cli answers from --answers, each printed
 * with `mcpConnection`. The server's result, built from the answers, must reach the model. */
async function mcpQuestions(agent) {
  const example = await startFormsExample();
  const name = "forms";
  try {
    const { home, ws, connEnv } = connectionHome(agent, name, example.url);
    const title = `standup-${process.pid}`;
    const answers = join(mkdtempSync(join(root, "porthole-agent-answers-")), "answers.json");
    writeFileSync(answers, JSON.stringify({ title, date: "2026-12-06", startTime: "09:30", duration: 30 }));
    const before = server.toolResults.length;
    const warmup = mcpWarmup(agent);
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", "accept", "--answers", answers, "--mcp", name, ...warmup, "[[mcp create_event]]"], { home, workspace: ws, connections: true, env: connEnv });
    ok(r);
    const ignored = ignoredMcp(agent, r);
    if (ignored) return ignored;
    const asked = r.events.filter((e) => e.type === "elicitation");
    expect(asked.length === 2, `${asked.length} questions reached porthole-cli; reply: ${text(r.events).slice(-160)}`);
    expect(asked.every((q) => q.mcpConnection === name && q.action === "accept" && q.mode === "form"), `questions: ${JSON.stringify(asked.map((q) => [q.mcpConnection, q.mode, q.action]))}`);
    expect(asked[0].message === "Step 1: Enter basic event information" && asked[1].message === "Step 2: Enter date and time", `asked: ${asked.map((q) => q.message).join(" / ")}`);
    // The agent never saw them: no elicitation/create went to it, and none came from it.
    expect(!r.acp.some((m) => m.msg.method === "elicitation/create"), "an elicitation/create crossed the ACP connection");
    const results = server.toolResults.slice(before);
    expect(results.some((t) => t.includes("Event created successfully!") && t.includes(title)), `the model never got the server's result with the answers: ${results.join(" | ").slice(0, 200)}`);
    return `create_event's 2 forms answered by porthole-cli, each named as \`${name}\`'s (${namedToolCalls(r, asked)}); the agent saw neither; the server's result (with the answers) reached the model`;
  } finally {
    example.stop();
  }
}

/** Issue 40, URL mode: `@modelcontextprotocol/server-everything` (from the npm cache
 * scripts/test-agents fills) over streamable HTTP. Its `trigger-url-elicitation` is listed only to
 * a client that declared URL elicitation, which the gateway does for every agent; called, it
 * sends a URL-mode `elicitation/create` on the call's stream and answers with what the person
 * chose. porthole-cli's accept is consent only: the URL is printed, never opened. */
async function mcpUrlQuestion(agent) {
  const pkg = join(cache, "npm-server-everything", "_npx");
  const dir = existsSync(pkg) ? readdirSync(pkg).map((d) => join(pkg, d, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")).find(existsSync) : undefined;
  const port = await freePort();
  const everything = await startNodeServer(dir ?? join(pkg, "(none)"), ["streamableHttp"], { PORT: String(port) }, /listening on port/);
  const name = "everything";
  try {
    const { home, ws, connEnv } = connectionHome(agent, name, `http://127.0.0.1:${port}/mcp`);
    const url = `https://example.com/porthole-${agent.id}-${process.pid}`;
    const before = server.toolResults.length;
    const warmup = mcpWarmup(agent);
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", "accept", "--mcp", name, ...warmup, `[[mcp trigger-url-elicitation url=${url}]]`], { home, workspace: ws, connections: true, env: connEnv });
    ok(r);
    const ignored = ignoredMcp(agent, r);
    if (ignored) return ignored;
    const asked = r.events.filter((e) => e.type === "elicitation");
    expect(asked.length === 1, `${asked.length} questions reached porthole-cli; reply: ${text(r.events).slice(-160)}`);
    expect(asked[0].mcpConnection === name && asked[0].mode === "url" && asked[0].url === url && asked[0].action === "accept", `question: ${JSON.stringify([asked[0].mcpConnection, asked[0].mode, asked[0].url, asked[0].action])}`);
    expect(!r.acp.some((m) => m.msg.method === "elicitation/create"), "an elicitation/create crossed the ACP connection");
    const results = server.toolResults.slice(before);
    expect(results.some((t) => t.includes("User completed the URL elicitation flow") && t.includes(url)), `the model never got the server's result: ${results.join(" | ").slice(0, 200)}`);
    return `trigger-url-elicitation's URL question printed with \`${name}\` (accept: consent only; ${namedToolCalls(r, asked)}); the agent never saw it; "User completed the URL elicitation flow" reached the model`;
  } finally {
    everything.stop();
  }
}

/** Issue 40, -32042: the TypeScript SDK's `elicitationUrlExample.js`, which needs OAuth sign-in
 * with the SDK's demo in-memory authorization server (it approves at once, so `mcp login` with
 * porthole-test-mcp --browse as the browser signs in headlessly; the server checks the token's
 * resource is `http://localhost:PORT/mcp`, so the connection is added under that name). Its
 * `third-party-auth` answers -32042 with a URL and completes it itself after 5 s; the gateway
 * asks (porthole-cli prints the URL with `mcpConnection`), waits for the completion, retries the
 * call once, and the agent gets the retry's answer: the example answers every call with -32042,
 * so that is a second -32042, passed on as it came (no loop). The server's log shows the retry. */
async function mcpUrlRequired(agent) {
  const port = await freePort();
  const authPort = await freePort();
  const example = await startNodeServer(sdkExample("elicitationUrlExample.js"), [], { MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort) }, /Streamable HTTP Server listening[\s\S]*Authorization Server listening|Authorization Server listening[\s\S]*Streamable HTTP Server listening/);
  const name = "pay";
  try {
    const { home, ws, connEnv } = connectionHome(agent, name, `http://localhost:${port}/mcp`);
    const login = spawnSync(cli, ["mcp", "login", name, "--browser", `${testMcp} --browse`], { env: { ...cleanEnv({ keyring: true }), ...connEnv }, encoding: "utf8", timeout: 60_000 });
    expect(login.status === 0 && login.stdout.includes(`Signed in to \`${name}\``), `mcp login exited ${login.status}: ${`${login.stdout}${login.stderr}`.trim().slice(-300)}`);
    const before = server.toolResults.length;
    const warmup = mcpWarmup(agent);
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", "accept", "--url-wait", "30", "--mcp", name, ...warmup, "[[mcp third-party-auth param1=porthole]]"], { home, workspace: ws, connections: true, keyring: true, env: connEnv });
    ok(r);
    const ignored = ignoredMcp(agent, r);
    if (ignored) return ignored;
    const oauth = "https://www.example.com/oauth/authorize";
    const asked = r.events.filter((e) => e.type === "elicitation" && e.url === oauth);
    // The gateway's questions carry the connection; an agent that handles -32042 itself
    // (agents.mjs `urlRequired.own`) asks over ACP about the retry's -32042, as its own.
    const gateway = asked.filter((e) => e.mcpConnection === name);
    const own = asked.filter((e) => !e.mcpConnection);
    const ownAcp = r.acp.filter((m) => m.msg.method === "elicitation/create");
    const handles = agent.urlRequired?.own;
    expect(gateway.length >= 1 && (handles || gateway.length === 1), `${gateway.length} of the gateway's questions for ${oauth} (one per call of the agent: no loop); reply: ${text(r.events).slice(-160)}`);
    expect(gateway.every((q) => q.mode === "url" && q.action === "accept"), `questions: ${JSON.stringify(gateway.map((q) => [q.mode, q.action]))}`);
    for (const q of gateway) {
      const done = r.events.filter((e) => e.type === "elicitation_complete" && e.elicitationId === q.elicitationId);
      expect(done.length === 1 && done[0].mcpConnection === name, `completion lines for ${q.elicitationId}: ${JSON.stringify(done)}`);
    }
    if (handles) {
      expect(own.length >= 1 && ownAcp.length === own.length && ownAcp.every((m) => m.dir === "from-agent" && m.msg.params?.url === oauth), `the agent's own questions: ${own.length} printed, ${ownAcp.length} over ACP: update agents.mjs`);
    } else {
      expect(own.length === 0 && ownAcp.length === 0, `an elicitation/create crossed the ACP connection (${ownAcp.map((m) => m.dir).join(", ")})`);
    }
    // Each call of the agent reached the server twice (each arms its own 5 s completion): the
    // call and the gateway's one retry.
    const calls = () => (example.log().match(/Simulating OAuth token received for elicitation/g) ?? []).length;
    for (let i = 0; i < 80 && calls() < 2 * gateway.length; i++) await new Promise((res) => setTimeout(res, 100));
    expect(calls() === 2 * gateway.length, `the server ran third-party-auth ${calls()} times for ${gateway.length} calls of the agent, not twice each (the call and one retry)`);
    const results = server.toolResults.slice(before);
    const error = agent.urlRequired?.error ?? /URL elicitation required|-32042/;
    expect(results.some((t) => error.test(t)), `the model never got the retry's -32042: ${results.join(" | ").slice(0, 300)}`);
    if (handles) return `${gateway.length} calls, each: URL printed with \`${name}\`, completed by the server, one retry (${namedToolCalls(r, gateway)}); ${handles}`;
    return `signed in headlessly (the SDK's demo authorization server); third-party-auth's URL printed with \`${name}\` (${namedToolCalls(r, gateway)}), completed by the server, one retry; its second -32042 reached the model as it came (no loop)`;
  } finally {
    example.stop();
  }
}

/** Issue 42: MCP Apps for every agent. The basic example's `get-time` names a `ui://` resource;
 * the gateway declares the UI extension to the server (no agent here does), notes the tool from
 * the agent's tools/list, and porthole-cli prints an `mcp_app` line when the call finished,
 * matched to the agent's ACP tool call (porthole_connections::tool_match). */
async function mcpApp(agent) {
  const example = await startExample("server-basic-vanillajs");
  const name = "apps";
  const home = mkdtempSync(join(root, `porthole-agent-${agent.id}-home-`));
  const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
  const connEnv = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PORTHOLE_CONNECTIONS_FILE: join(home, ".config", "porthole", "connections.json") };
  try {
    const added = spawnSync(cli, ["mcp", "add", name, "--url", example.url], { env: { ...cleanEnv({ keyring: false }), ...connEnv }, encoding: "utf8", timeout: 60_000 });
    expect(added.status === 0, `porthole-cli mcp add exited ${added.status}: ${`${added.stdout}${added.stderr}`.trim().slice(-300)}`);
    const before = server.toolResults.length;
    const warmup = mcpWarmup(agent);
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--mcp", name, ...warmup, "[[mcp get-time]]"], { home, workspace: ws, connections: true, env: connEnv });
    ok(r);
    const ignored = ignoredMcp(agent, r);
    if (ignored) return ignored;
    const results = server.toolResults.slice(before);
    expect(results.some((t) => /\d{4}-\d{2}-\d{2}T/.test(t)), `the model never got get-time's result: ${results.join(" | ").slice(0, 200)}`);
    const apps = r.events.filter((e) => e.type === "mcp_app");
    expect(apps.length === 1, `${apps.length} mcp_app lines: ${JSON.stringify(apps).slice(0, 300)}`);
    const app = apps[0];
    expect(app.mcpConnection === name && app.tool === "get-time" && app.resourceUri === "ui://get-time/mcp-app.html" && app.ok === true, `mcp_app line: ${JSON.stringify(app)}`);
    // An agent may report a tool call first with a tool_call_update (Gemini CLI, after its
    // permission request), which porthole-cli takes as the tool call.
    const calls = [...updates(r.events, "tool_call"), ...updates(r.events, "tool_call_update")];
    expect(app.toolCallId !== null, `the UI tool call matched none of the agent's tool calls: ${JSON.stringify(calls.map((c) => [c.title, c.rawInput])).slice(0, 300)}`);
    const call = calls.find((c) => c.toolCallId === app.toolCallId && c.title) ?? calls.find((c) => c.toolCallId === app.toolCallId);
    expect(call, `toolCallId ${app.toolCallId} is none of the agent's tool calls`);
    return `mcp_app line for get-time (ui://get-time/mcp-app.html), matched to the agent's tool call "${call.title}"; the result reached the model`;
  } finally {
    example.kill();
  }
}

/** Each flow returns a short note for the matrix, or throws why it failed. */
const FLOWS = [
  ["streamed reply", async (agent) => {
    const prompt = `hello from porthole ${process.pid}`;
    const r = await runCli(agent, [prompt]);
    ok(r);
    const chunks = updates(r.events, "agent_message_chunk");
    // The fake model sends its words at once: an agent may merge what arrives together
    // (agents.mjs, replyChunks), or send the reply whole.
    const want = agent.replyChunks ?? { min: 3 };
    expect(chunks.length >= want.min, `only ${chunks.length} message chunks`);
    if (want.max) expect(chunks.length <= want.max, `${chunks.length} message chunks, more than ${want.max}: update agents.mjs`);
    // The chunks must add up to what the fake model streamed; an agent may put a notice of its
    // own before it (Codex warns that the fake model has no metadata).
    const streamed = `Porthole fake model says: ${prompt}`;
    const got = text(r.events);
    expect(got.endsWith(streamed), `reply: ${JSON.stringify(got.slice(-120))}`);
    expect(turnEnd(r.events)?.stopReason === "end_turn", `stop reason ${turnEnd(r.events)?.stopReason}`);
    const before = got.slice(0, -streamed.length).trim();
    return `${chunks.length} chunks${before ? `; the agent put "${before.slice(0, 50)}..." first` : ""}${want.why ? ` (${want.why})` : ""}`;
  }],
  ["edit a file (permission asked)", async (agent) => {
    const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
    writeFileSync(join(ws, "notes.txt"), "original\n");
    const target = join(ws, "notes.txt");
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", `[[edit ${target} edited by a real agent]]`], { workspace: ws });
    ok(r);
    // The fake model reads an existing file before it writes it; an agent that asks before
    // every tool (agents.mjs, asksBeforeReads) asks for that read too.
    const all = r.events.filter((e) => e.type === "permission");
    const reads = agent.asksBeforeReads ? all.slice(0, 1) : [];
    const asked = all.slice(reads.length);
    expect(asked.length === 1, `${all.length} permission requests`);
    if (reads.length) expect(/^read\b/.test(reads[0].toolCall?.title ?? ""), `the first permission request is not for the read: "${reads[0].toolCall?.title}"`);
    expect(readFileSync(target, "utf8") === "edited by a real agent\n", `file holds ${JSON.stringify(readFileSync(target, "utf8"))}`);
    expect(r.acp.length > 0, "the ACP tap saw no traffic");
    const viaAcp = agentAsked(r, "fs/write_text_file") ? "ACP fs/write_text_file" : "the agent itself (no fs/write_text_file)";
    const diff = updates(r.events, "tool_call_update").some((u) => (u.content ?? []).some((c) => c.type === "diff"));
    const first = reads.length ? `asked for the read first ("${reads[0].toolCall.title}": ${agent.asksBeforeReads}), then ` : "";
    return `${first}asked "${asked[0].toolCall?.title ?? asked[0].title ?? "?"}", written by ${viaAcp}${diff ? ", diff shown" : ""}`;
  }],
  ["new file (permission asked)", async (agent) => {
    // A file that does not exist yet. Gemini CLI reads it over fs/read_text_file first and takes
    // only an empty answer as "new file" (Porthole answers a missing file inside the workspace so).
    const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
    const target = join(ws, "fresh.txt");
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", `[[edit ${target} a new file from a real agent]]`], { workspace: ws });
    ok(r);
    const asked = r.events.filter((e) => e.type === "permission");
    expect(asked.length === 1, `${asked.length} permission requests; reply: ${text(r.events).slice(-160)}`);
    expect(existsSync(target) && readFileSync(target, "utf8") === "a new file from a real agent\n", `file: ${existsSync(target) ? JSON.stringify(readFileSync(target, "utf8")) : "missing"}; reply: ${text(r.events).slice(-160)}`);
    const notes = [`asked "${asked[0].toolCall?.title ?? "?"}"`];
    const reads = r.acp.filter((m) => m.dir === "from-agent" && m.msg.method === "fs/read_text_file" && m.msg.params?.path === target);
    if (reads.length) {
      const answer = r.acp.find((m) => m.dir === "to-agent" && m.msg.id === reads[0].msg.id);
      expect(answer?.msg.result?.content === "", `fs/read_text_file of the missing file answered ${JSON.stringify(answer?.msg).slice(0, 200)}`);
      notes.push('read first over fs/read_text_file, answered ""');
    }
    notes.push(agentAsked(r, "fs/write_text_file") ? "written over fs/write_text_file" : "written by the agent itself");
    return notes.join(", ");
  }],
  ["shell command", async (agent) => {
    const marker = `porthole-shell-${process.pid}`;
    const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", `[[shell echo ${marker}]]`]);
    ok(r);
    // Where the output reached the client: an ACP terminal, a tool call's standard fields
    // (content, rawOutput), or only its _meta (Zed's terminal_output convention).
    const calls = [...updates(r.events, "tool_call"), ...updates(r.events, "tool_call_update")];
    const inTerminal = JSON.stringify(r.events.filter((e) => e.type === "terminal_output")).includes(marker);
    const inFields = calls.some((u) => JSON.stringify([u.content, u.rawOutput]).includes(marker));
    const inMeta = calls.some((u) => JSON.stringify(u._meta ?? null).includes(marker));
    // The fake model repeats the last line of the tool result: the output went back to it.
    expect(text(r.events).includes(`Tool finished: ${marker}`), `the model did not get the output: ${text(r.events).slice(-120)}`);
    const how = agentAsked(r, "terminal/create") ? "ACP terminal" : "the agent's own shell, no terminal/create";
    const asked = r.events.filter((e) => e.type === "permission").length;
    const permission = asked ? `permission asked ${asked}x` : "no permission asked";
    if (agent.shellOutputHidden) {
      // The agent keeps the output from the client (see agents.mjs): the tool call must still be
      // there and complete, and nothing of the output may have reached the client.
      expect(!(inTerminal || inFields || inMeta), "the output reached the client after all: update agents.mjs");
      const done = calls.some((u) => u.status === "completed" && (u.title ?? "").includes(marker));
      expect(done, "no completed tool call titled with the command");
      return `ran (${how}, ${permission}); the output reached the model only: ${agent.shellOutputHidden}`;
    }
    expect(inTerminal || inFields || inMeta, "the command's output is not in a tool call or terminal");
    const where = inTerminal ? "terminal events" : inFields ? "the tool call's content" : "only the tool call's _meta (terminal_output_delta)";
    return `output in ${where} (${how}, ${permission}), and returned to the model`;
  }],
  ["cancel mid-turn", async (agent) => {
    // The CLI is this repository's: a missing flag is a rename this flow must follow, not n/a.
    expect(cliHelp.includes("--cancel-after-updates"), "porthole-cli has no --cancel-after-updates (renamed?): this flow cannot run");
    if (agent.replyChunks?.max === 1) return { skip: `the reply comes whole at the turn's end, so no update comes mid-turn to cancel after (${agent.replyChunks.why})` };
    const r = await runCli(agent, ["--cancel-after-updates", "4", "[[slow 40]]"]);
    ok(r);
    expect(turnEnd(r.events)?.stopReason === "cancelled", `stop reason ${turnEnd(r.events)?.stopReason}`);
    expect(!text(r.events).includes("step-39"), "the slow answer ran to its end");
    // --cancel-after-updates counts only the turn's own content: exactly 4 such updates must
    // have come between session/prompt and session/cancel (agents send others besides, e.g.
    // Gemini's available_commands_update right after session/new).
    const TURN = new Set(["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]);
    const prompted = r.acp.findIndex((m) => m.dir === "to-agent" && m.msg.method === "session/prompt");
    const cancelled = r.acp.findIndex((m) => m.dir === "to-agent" && m.msg.method === "session/cancel");
    expect(prompted >= 0 && cancelled > prompted, "no session/cancel after the prompt in the ACP traffic");
    const between = r.acp.slice(prompted, cancelled).filter((m) => m.dir === "from-agent" && m.msg.method === "session/update");
    const counted = between.filter((m) => TURN.has(m.msg.params?.update?.sessionUpdate)).length;
    expect(counted === 4, `${counted} turn updates before session/cancel, not 4`);
    const others = r.acp.slice(0, cancelled).filter((m) => m.dir === "from-agent" && m.msg.method === "session/update" && !TURN.has(m.msg.params?.update?.sessionUpdate)).length;
    return `stopReason cancelled, session/cancel after exactly 4 turn updates${others ? ` (${others} other updates not counted)` : ""}`;
  }],
  ["sessions: list, load, resume, fork", async (agent) => {
    const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
    const first = await runCli(agent, ["remember porthole-marker-17"], { workspace: ws });
    ok(first);
    const caps = first.events.find((e) => e.type === "initialized").agentCapabilities;
    const id = first.events.find((e) => e.type === "session").sessionId;
    const done = [];
    // Each step runs with the same HOME and folder, so the agent finds its stored session.
    const again = (args) => runCli(agent, args, { workspace: ws, home: first.home });
    if (caps.sessionCapabilities?.list) {
      const r = await again(["--list-sessions"]);
      ok(r);
      expect(r.events.some((e) => e.type === "listed_session" && e.session.sessionId === id), "the session is not listed");
      done.push("list");
    }
    if (caps.loadSession) {
      const workaround = agent.beforeLoad?.(first.home);
      // Without a prompt, --load prints the replayed history (Gemini sends most of it after its
      // answer to session/load); then a turn in the loaded session.
      const quiet = await again(["--load", id]);
      ok(quiet);
      const history = updates(quiet.events, "user_message_chunk").map((u) => u.content?.text ?? "").join("");
      expect(history.includes("porthole-marker-17"), `--load without a prompt printed no history (${quiet.events.length} events)`);
      expect(text(quiet.events).includes("Porthole fake model says: remember porthole-marker-17"), "the agent's reply was not replayed");
      const loadAnswer = quiet.acp.findIndex((m) => m.dir === "from-agent" && m.msg.result && quiet.acp.some((q) => q.dir === "to-agent" && q.msg.method === "session/load" && q.msg.id === m.msg.id));
      const late = quiet.acp.slice(loadAnswer + 1).filter((m) => ["user_message_chunk", "agent_message_chunk"].includes(m.msg.params?.update?.sessionUpdate)).length;
      // Gemini loses a session once it has been loaded (agents.mjs, loadOnce): the next load must
      // fail as described there (the test fails when Gemini fixes it); prompt in a fresh session.
      let target = id;
      let lost = "";
      if (agent.loadOnce) {
        const again2 = await again(["--load", id]);
        expect(again2.code !== 0 && again2.stderr.includes(agent.loadOnce.error), `a second load of the session: exit ${again2.code}, ${again2.stderr.trim().split("\n").pop()}: update agents.mjs`);
        lost = `; a second load fails ("${agent.loadOnce.error}")`;
        const second = await again(["remember porthole-marker-17"]);
        ok(second);
        target = second.events.find((e) => e.type === "session").sessionId;
        agent.beforeLoad?.(first.home);
      }
      const r = await again(["--load", target, "what did I say?"]);
      ok(r);
      const replayed = updates(r.events, "user_message_chunk").map((u) => u.content?.text ?? "").join("");
      expect(replayed.includes("porthole-marker-17"), "the history was not replayed");
      expect(turnEnd(r.events)?.stopReason === "end_turn", `the turn after loading ended ${turnEnd(r.events)?.stopReason}`);
      done.push(`load (history replayed${late ? `, ${late} of its chunks after the session/load answer` : ""}; with and without a prompt${lost})${workaround ? ` [${workaround}]` : ""}`);
    }
    if (caps.sessionCapabilities?.resume) {
      const r = await again(["--resume", id, "still there?"]);
      ok(r);
      done.push("resume");
    }
    if (caps.sessionCapabilities?.fork && agent.forkLiveOnly) {
      // The agent forks only sessions its own process holds (agents.mjs): a fork from a new
      // process must fail as described there (the test fails when the agent changes that).
      const r = await again(["--fork", id, "in the fork"]);
      expect(r.code !== 0 && r.stderr.includes(agent.forkLiveOnly.error), `a fork from a new process: exit ${r.code}, ${r.stderr.trim().split("\n").pop()}: update agents.mjs`);
      done.push(`fork refused from a new process ("${agent.forkLiveOnly.error}": ${agent.forkLiveOnly.why})`);
    } else if (caps.sessionCapabilities?.fork) {
      const r = await again(["--fork", id, "in the fork"]);
      ok(r);
      const forked = r.events.find((e) => e.type === "session").sessionId;
      expect(forked && forked !== id, "the fork has the original's id");
      done.push("fork");
    }
    expect(done.length > 0, "the agent advertises none of list/load/resume/fork");
    return done.join(", ");
  }],
  ["MCP elicitation forwarded (accept, decline)", async (agent) => {
    // An MCP server of ours (configured through the agent's own settings) elicits a color; the
    // agent must pass it on as ACP elicitation/create and hand the answer back to the server,
    // whose tool result the fake model then repeats.
    const color = `teal-${process.pid}`;
    const answers = join(mkdtempSync(join(root, "porthole-agent-answers-")), "answers.json");
    writeFileSync(answers, JSON.stringify({ color }));
    const notes = [];
    if (agent.mcpElicitation?.unsupported) {
      // The agent's MCP client does not offer elicitation: the server's tool must say so, and
      // nothing may reach the client.
      // Qwen Code registers MCP tools in the background: a first turn gives it the time.
      const warmup = mcpWarmup(agent);
      const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", "accept", "--answers", answers, ...warmup, "[[mcp pick_color]]"], { mcp: ELICIT_MCP });
      ok(r);
      expect(r.events.filter((e) => e.type === "elicitation").length === 0, "an elicitation reached the client: update agents.mjs");
      expect(text(r.events).includes("elicitation answered: unsupported"), `the MCP tool did not run or did elicit: ${text(r.events).slice(-160)}`);
      return { skip: `checked: the MCP tool ran and reported "unsupported": ${agent.mcpElicitation.unsupported}` };
    }
    for (const [elicit, expected] of [["accept", `accept {"color":"${color}"}`], ["decline", "decline"]]) {
      const extra = elicit === "accept" ? ["--answers", answers] : [];
      const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", elicit, ...extra, "[[mcp pick_color]]"], { mcp: ELICIT_MCP });
      ok(r);
      const asked = r.events.filter((e) => e.type === "elicitation");
      expect(asked.length === 1, `${asked.length} elicitations reached the client (${elicit}); reply: ${text(r.events).slice(-120)}`);
      expect(asked[0].mode === "form" && asked[0].message === "Which color should Porthole use?", `elicitation: ${asked[0].mode} ${asked[0].message}`);
      expect(asked[0].action === elicit, `answered ${asked[0].action}, not ${elicit}`);
      expect(text(r.events).includes(`elicitation answered: ${expected}`), `the MCP server did not get "${expected}": ${text(r.events).slice(-160)}`);
      if (elicit === "accept") notes.push(`form "${asked[0].message}" (toolCallId ${asked[0].toolCallId ?? "none"})`);
    }
    return `${notes[0]}; accept and decline reached the MCP server`;
  }],
  ["mcp connection (http)", (agent) => mcpConnection(agent, { stdioOnly: false })],
  ["mcp server from the MCP Registry (server-everything from npm)", mcpFromRegistry],
  // The same through `porthole-cli mcp bridge`, which stdio-only agents get: these four all take
  // http, so the ACP tap hides that from the CLI (ACP_TAP_STDIO_MCP_ONLY) and the real agent
  // starts the bridge as its own MCP stdio server.
  ["mcp connection (stdio bridge)", (agent) => mcpConnection(agent, { stdioOnly: true })],
  ["mcp connection's questions (the gateway asks)", (agent) => mcpQuestions(agent)],
  ["mcp connection's URL question (the gateway asks)", (agent) => mcpUrlQuestion(agent)],
  ["mcp connection's -32042 (the gateway asks, waits, retries)", (agent) => mcpUrlRequired(agent)],
  ["mcp app tool (MCP Apps: the gateway declares, notes, porthole-cli prints mcp_app)", (agent) => mcpApp(agent)],
  ["question tool as a form elicitation", async (agent) => {
    // The agent's own question tool (Claude's AskUserQuestion, Codex's request_user_input,
    // Qwen's ask_user_question): the fake model asks "Which color?" (Teal / Orange); porthole-cli
    // answers the form from --answers, and the answer must come back to the model. Where the
    // agent says what its tool gives the model on decline (`declined`), decline is checked too.
    const q = agent.questionTool ?? {};
    if (q.skip) return { skip: q.skip };
    if (q.absent) {
      // Not offered to the model at all: the fake model says so when asked to use it.
      const r = await runCli(agent, [...modeArgs(agent), "--permission", "allow-once", "--elicit", "accept", "[[ask]]"]);
      ok(r);
      expect(text(r.events).includes("no ask tool offered"), `a question tool was offered after all: ${text(r.events).slice(-160)}`);
      return { skip: `checked: not offered to the model; ${q.absent}` };
    }
    const answers = join(mkdtempSync(join(root, "porthole-agent-answers-")), "answers.json");
    writeFileSync(answers, JSON.stringify({ [q.field]: "Orange" }));
    const config = (q.config ?? []).flatMap((c) => ["--config", c]);
    /** One turn answered with `elicit`: the form, and the tool results the model API got. */
    const ask = async (elicit, then = []) => {
      const before = server.toolResults.length;
      const extra = elicit === "accept" ? ["--answers", answers] : [];
      const r = await runCli(agent, [...modeArgs(agent), ...config, "--permission", "allow-once", "--elicit", elicit, ...extra, "[[ask]]", ...then]);
      ok(r);
      const asked = r.events.filter((e) => e.type === "elicitation");
      expect(asked.length === 1, `${asked.length} elicitations (${elicit}); reply: ${text(r.events).slice(-120)}`);
      expect(r.events.filter((e) => e.type === "permission").length === 0, `a permission request reached the client beside the form (${elicit})`);
      expect(asked[0].mode === "form", `a ${asked[0].mode} elicitation`);
      expect(asked[0].action === elicit, `answered ${asked[0].action}, not ${elicit}`);
      const field = asked[0].schema?.fields?.find((f) => f.name === q.field);
      expect(field?.kind?.type === "singleSelect", `no select field ${q.field}: ${JSON.stringify(asked[0].schema).slice(0, 200)}`);
      const labels = field.kind.options.map((o) => o.value);
      expect(labels.includes("Teal") && labels.includes("Orange"), `field ${q.field} offers ${labels.join("/")}`);
      return { r, asked: asked[0], field, results: server.toolResults.slice(before) };
    };
    /** Qwen: the question came as session/request_permission, answered with `optionId` (and the answers). */
    const permissionReply = (r, optionId, answersWanted) => {
      const req = r.acp.filter((m) => m.dir === "from-agent" && m.msg.method === "session/request_permission");
      expect(req.length === 1, `${req.length} session/request_permission from the agent`);
      const meta = req[0].msg.params?.toolCall?._meta ?? {};
      expect(meta.qwenInteractionKind === "user_question" && JSON.stringify(meta.qwenQuestions ?? null).includes("Which color?"), `the permission request carries no question: ${JSON.stringify(req[0].msg.params?.toolCall ?? null).slice(0, 300)}`);
      const reply = r.acp.find((m) => m.dir === "to-agent" && m.msg.id === req[0].msg.id && !m.msg.method)?.msg.result;
      expect(reply?.outcome?.outcome === "selected" && reply.outcome.optionId === optionId, `the agent was answered ${JSON.stringify(reply ?? null)}, not option ${optionId}`);
      expect(JSON.stringify(reply.answers ?? null) === JSON.stringify(answersWanted), `answers ${JSON.stringify(reply.answers ?? null)}, not ${JSON.stringify(answersWanted)}`);
      return req[0].msg.params.toolCall.toolCallId;
    };

    const a = await ask("accept");
    expect((q.answered ?? /Which color\?.*Orange/).test(text(a.r.events)), `the answer did not reach the model: ${text(a.r.events).slice(-160)}`);
    const notes = [];
    if (q.viaPermission) {
      const id = permissionReply(a.r, q.viaPermission.submit, q.viaPermission.answers);
      expect(a.asked.toolCallId === id, `the form's toolCallId ${a.asked.toolCallId} is not the tool call's ${id}`);
      notes.push(`from session/request_permission with _meta.qwenQuestions, answered ${q.viaPermission.submit} + answers ${JSON.stringify(q.viaPermission.answers)}`);
    }
    if (q.toolResult) {
      expect(!a.results.some((t) => t.includes("No valid answers were provided")), `the model got "No valid answers were provided": ${a.results.join(" | ").slice(0, 200)}`);
      expect(a.results.some((t) => q.toolResult.test(t)), `the model API got no tool result like ${q.toolResult}: ${JSON.stringify(a.results).slice(0, 300)}`);
      notes.push(`the model got ${JSON.stringify(a.results.find((t) => q.toolResult.test(t)))}`);
    }
    if (q.declined) {
      // Decline, then a second prompt in the same session: an agent that ends the turn when the
      // question is cancelled (Qwen) tells the model with the next turn's request.
      server.bodies = [];
      let d;
      try {
        d = await ask("decline", ["what now?"]);
      } finally {
        var bodies = server.bodies;
        server.bodies = null;
      }
      if (q.viaPermission) permissionReply(d.r, q.viaPermission.cancel, null);
      const told = [...d.results, ...bodies.flatMap(chatToolMessages)];
      expect(told.some((t) => q.declined.test(t)), `after decline the model API got no tool result like ${q.declined}: ${JSON.stringify([...new Set(told)]).slice(0, 300)}`);
      expect(!told.some((t) => t.includes("Orange")), "an answer reached the model after decline");
      expect(text(d.r.events).includes("Porthole fake model says: what now?"), `the turn after decline: ${text(d.r.events).slice(-160)}`);
      notes.push(`decline: ${q.viaPermission ? `option ${q.viaPermission.cancel}, ` : ""}the model got ${JSON.stringify(told.find((t) => q.declined.test(t)))}${d.results.length ? "" : " (with the next turn: the agent ends the turn)"}`);
    }
    const how = config.length ? ` (with ${q.config.map((c) => `--config ${c}`).join(" ")})` : "";
    return `form "${a.asked.message}"${how}, field ${a.field.name} (${a.field.kind.options.map((o) => o.value).join("/")}), toolCallId ${a.asked.toolCallId ? "set" : "none"}; the answer reached the model${notes.length ? `; ${notes.join("; ")}` : ""}`;
  }],
  ["model choice (session/set_model)", async (agent) => {
    server.modelsSeen = new Set();
    const first = await runCli(agent, ["which model?"]);
    ok(first);
    const before = server.modelsSeen;
    const models = first.events.find((e) => e.type === "session").models;
    // Agents that offer models as a session config option (category "model") instead of
    // `models` (OpenCode, Mistral Vibe): switched with --config ID=VALUE (session/set_config_option).
    // The option `model`, else one that lists our fake models (not Cline's `provider`, also in
    // the "model" category).
    const choices = sessionConfigOptions(first).filter((o) => o.category === "model" && o.type === "select" && selectValues(o).length >= 2);
    const option = choices.find((o) => o.id === "model") ?? choices.find((o) => selectValues(o).some((v) => v.includes("fake-model")));
    let current;
    let other;
    let args;
    let offered;
    if (models && models.availableModels.length >= 2) {
      current = models.currentModelId;
      other = models.availableModels.find((m) => m.modelId !== current).modelId;
      args = ["--model", other];
      offered = `${models.availableModels.length} models offered`;
    } else if (option) {
      current = option.currentValue;
      // One of ours (the fake model API answers any name; the agent's own catalogue may list
      // others), else an alias the first turn's model does not hold (Claude Code's "default" is
      // its "opus": "sonnet").
      const values = selectValues(option).filter((v) => v !== current);
      other = values.find((v) => v.includes("fake-model")) ?? values.find((v) => ![...before].some((m) => m?.includes(v))) ?? values[0];
      args = ["--config", `${option.id}=${other}`];
      offered = `${selectValues(option).length} models offered as the config option \`${option.id}\``;
    } else {
      return { skip: "the agent offers no choice of model with its sessions" };
    }
    server.modelsSeen = new Set();
    const r = await runCli(agent, [...args, "hello"]);
    ok(r);
    if (args[0] === "--model") {
      const now = r.events.find((e) => e.type === "session").models.currentModelId;
      expect(now === other, `current model ${now}, not ${other}`);
    } else {
      const set = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/set_config_option");
      expect(set?.msg.params?.configId === option.id && set.msg.params.value === other, `no session/set_config_option ${option.id}=${other}`);
      const answer = r.acp.find((m) => m.dir === "from-agent" && m.msg.id === set.msg.id);
      expect(answer?.msg.result !== undefined, `session/set_config_option was refused: ${JSON.stringify(answer?.msg.error ?? null).slice(0, 200)}`);
    }
    // The turn must then go to another model than before: one the model API was not asked for
    // in the first session (ids are decorated, "fake-model-large(openai)", "porthole/fake-model-large",
    // or aliases, "opus"), the one the new id names where it names one.
    const wire = [...server.modelsSeen].filter((m) => m && !before.has(m));
    expect(wire.length > 0, `the model API was asked for no other model after switching to ${other} (before: ${[...before].join(", ")}; after: ${[...server.modelsSeen].join(", ")})`.slice(0, 300));
    return `${offered}; switched to ${other}, and the model API was asked for ${wire.find((m) => other.includes(m)) ?? wire[0]}`;
  }],
  ["sign-in (auth_required, methods named)", async (agent) => {
    if (agent.signIn?.none) {
      // A provider of its own on 127.0.0.1 with no key: the agent must not refuse anything.
      const r = await runCli(agent, ["hello without a key"], { signedIn: false });
      ok(r);
      expect(!r.acp.some((m) => m.dir === "from-agent" && m.msg.error?.code === -32000), "a request was answered auth_required: update agents.mjs");
      expect(text(r.events).endsWith("Porthole fake model says: hello without a key"), `reply: ${text(r.events).slice(-120)}`);
      return { skip: `checked: without a key the turn runs; ${agent.signIn.none}` };
    }
    const r = await runCli(agent, ["hello"], { signedIn: false });
    expect(r.code === 1, `exit ${r.code} without credentials`);
    expect(/needs you to sign in/.test(r.stderr), "no sign-in explanation");
    const methods = r.stderr.split("\n").filter((l) => /^ {2}\S+ \(/.test(l)).map((l) => l.trim().split(" ")[0]);
    if (agent.signIn?.noMethods) expect(methods.length === 0, `methods named after all (${methods.join(", ")}): update agents.mjs`);
    else expect(methods.length > 0, "no method named");
    // Which request the agent refused (ACP's auth_required is -32000).
    const refusal = r.acp.find((m) => m.dir === "from-agent" && m.msg.error?.code === -32000);
    const refused = refusal && r.acp.find((m) => m.dir === "to-agent" && m.msg.id === refusal.msg.id)?.msg.method;
    expect(refused, "no request was answered with auth_required (-32000)");
    const said = r.acp.find((m) => m.dir === "from-agent" && m.msg.error?.code === -32000).msg.error.message;
    if (agent.signIn?.noMethods) return `${refused} answered auth_required ("${said.slice(0, 80)}"), no method named: ${agent.signIn.noMethods}`;
    return `${refused} answered auth_required; methods: ${methods.join(", ")}`;
  }],
  ["sign-in with an API key (authenticate _meta)", async (agent) => {
    if (!agent.apiKeyMethod) return { skip: agent.apiKeyNote ?? "the agent advertises no API-key method" };
    // Signed out; porthole-cli --auth sends PORTHOLE_API_KEY in authenticate's _meta["api-key"],
    // and the fake model API must see that very key on the turn's requests.
    const key = `porthole-typed-key-${process.pid}`;
    const r = await runCli(agent, ["--auth", agent.apiKeyMethod, "hello with a key"], { signedIn: false, env: { PORTHOLE_API_KEY: key } });
    ok(r);
    expect(text(r.events).endsWith("Porthole fake model says: hello with a key"), `reply: ${text(r.events).slice(-120)}`);
    const auth = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "authenticate");
    expect(auth?.msg.params?.methodId === agent.apiKeyMethod, "no authenticate with the method");
    expect(server.keysSeen.has(key), `the model API never saw the key (saw ${[...server.keysSeen].join(", ").slice(0, 120)})`);
    return `authenticate ${agent.apiKeyMethod} with _meta["api-key"]; the model API got the key`;
  }],
  ["session modes (--mode checked)", async (agent) => {
    const bogus = await runCli(agent, ["--mode", "no-such-mode", "hello"]);
    expect(bogus.code !== 0, "an unadvertised mode was accepted");
    expect(!bogus.acp.some((m) => m.dir === "to-agent" && ["session/set_mode", "session/prompt"].includes(m.msg.method)), "set_mode or a prompt was sent for an unadvertised mode");
    const modes = bogus.acp.find((m) => m.dir === "from-agent" && m.msg.result?.modes)?.msg.result.modes;
    if (!modes) {
      // The mode as a session config option (category "mode": OpenCode's build/plan), switched
      // with --config ID=VALUE.
      const option = sessionConfigOptions(bogus).find((o) => o.category === "mode" && o.type === "select");
      const refused = `refused before sending: ${bogus.stderr.trim().split("\n").pop().slice(0, 120)}`;
      if (!option) return { skip: `no session modes (${refused})` };
      const other = selectValues(option).find((v) => v !== option.currentValue);
      expect(bogus.stderr.includes(`config option \`${option.id}\``), `--mode was refused without naming the config option: ${refused}`);
      const r = await runCli(agent, ["--config", `${option.id}=${other}`, "hello"]);
      ok(r);
      const set = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/set_config_option");
      expect(set?.msg.params?.configId === option.id && set.msg.params.value === other, `no session/set_config_option ${option.id}=${other}`);
      expect(r.acp.some((m) => m.dir === "from-agent" && m.msg.id === set.msg.id && m.msg.result !== undefined), "session/set_config_option was refused");
      return `no session modes: --mode refused before sending, naming the config option \`${option.id}\` (${selectValues(option).join("/")}); switched to ${other} with --config`;
    }
    const other = modes.availableModes.find((m) => m.id !== modes.currentModeId).id;
    const r = await runCli(agent, ["--mode", other, "hello"]);
    ok(r);
    const set = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/set_mode");
    expect(set?.msg.params?.modeId === other, "no session/set_mode");
    expect(r.acp.some((m) => m.dir === "from-agent" && m.msg.id === set.msg.id && m.msg.result !== undefined), "session/set_mode was refused");
    return `${modes.availableModes.map((m) => m.id).join("/")}; unadvertised refused before sending, switched to ${other}`;
  }],
];

// The v2 column (issue 44): the flows v2 still has, with the agents that answer 2 (agents.mjs `v2`).
const FLOWS_V2 = v2Flows({ runCli, server, root, expect, ok, mcpConnection });

// The auto column: an agent that does not answer 2 (no `v2` in agents.mjs) must keep its v1
// results under porthole-cli's default, auto: the v2 offer answered 1 or refused, then v1's own
// initialize on the same process, and a turn as in v1.
const FLOWS_AUTO = [
  ["falls back to v1 under auto", async (agent) => {
    const prompt = `hello from porthole ${process.pid}`;
    const r = await runCli(agent, [prompt], { protocol: "auto" });
    ok(r);
    const init = r.events.find((e) => e.type === "initialized");
    expect(init?.protocolVersion === 1, `porthole-cli's initialized line says protocolVersion ${init?.protocolVersion}`);
    const offers = r.acp.filter((m) => m.dir === "to-agent" && m.msg.method === "initialize");
    expect(offers.length === 2 && offers[0].msg.params?.protocolVersion === 2 && offers[0].msg.params.capabilities, `initialize as sent: ${JSON.stringify(offers.map((m) => m.msg.params?.protocolVersion))}`);
    expect(offers[1].msg.params?.protocolVersion === 1 && offers[1].msg.params.clientCapabilities, `the second initialize: ${JSON.stringify(offers[1].msg.params).slice(0, 200)}`);
    const answer = r.acp.find((m) => m.dir === "from-agent" && m.msg.id === offers[0].msg.id && !m.msg.method)?.msg;
    // Some agents echo the offered version with a v1 body (agentCapabilities, agentInfo): they
    // speak v1 whatever they say, and core falls back.
    const v1Body = answer?.result?.agentCapabilities && !answer.result.capabilities;
    const said = answer?.error ? `refused it (${answer.error.code} "${String(answer.error.message).slice(0, 60)}")` : `answered ${answer?.result?.protocolVersion}${v1Body && answer.result.protocolVersion === 2 ? " with a v1-shaped body (agentCapabilities, agentInfo)" : ""}`;
    const gap = r.acp.find((m) => m === r.acp.find((x) => x.dir === "from-agent" && x.msg.id === offers[0].msg.id))?.at;
    const waited = gap ? ` ${((offers[1].at - gap) / 1000).toFixed(1)} s after that answer` : "";
    expect(text(r.events).endsWith(`Porthole fake model says: ${prompt}`), `reply: ${JSON.stringify(text(r.events).slice(-120))}`);
    expect(turnEnd(r.events)?.stopReason === "end_turn", `stop reason ${turnEnd(r.events)?.stopReason}`);
    return `offered 2, the agent ${said}; then v1's initialize (clientCapabilities) on the same process${waited}, and the turn as in v1`;
  }],
];

const wanted = process.argv.slice(2);
// PORTHOLE_AGENTS_FLOWS=REGEX runs only the flows whose name matches (while working on one);
// PORTHOLE_AGENTS_PROTOCOLS=1, 2 or auto (comma-separated) only those columns (all by default).
const onlyFlows = process.env.PORTHOLE_AGENTS_FLOWS ? new RegExp(process.env.PORTHOLE_AGENTS_FLOWS) : null;
const protocols = (process.env.PORTHOLE_AGENTS_PROTOCOLS ?? "1,2,auto").split(",").map((p) => p.trim());
const rows = [];
for (const agent of AGENTS.filter((a) => !wanted.length || wanted.includes(a.id))) {
  // A PyPI agent scripts/test-agents could not install (no Python new enough): one row says why.
  if (agent.bin && !existsSync(join(cache, agent.bin))) {
    const missing = join(cache, `${agent.bin.split("/")[0]}.missing`);
    const why = existsSync(missing) ? readFileSync(missing, "utf8").trim() : `${join(cache, agent.bin)} is missing`;
    rows.push({ agent: agent.name, version: agent.version, protocol: "-", flow: "(all flows)", pass: null, note: `not installed: ${why}`, seconds: "0.0" });
    console.log(`n/a   ${agent.id}  not installed: ${why}`);
    continue;
  }
  const columns = [["1", FLOWS], ["2", agent.v2 ? FLOWS_V2 : []], ["auto", agent.v2 ? [] : FLOWS_AUTO]].filter(([p]) => protocols.includes(p));
  for (const [protocol, flows] of columns) {
    for (const [flow, run] of flows.filter(([name]) => !onlyFlows || onlyFlows.test(name))) {
      const started = Date.now();
      let result;
      try {
        const note = await run(agent);
        result = typeof note === "object" ? { pass: null, note: note.skip } : { pass: true, note };
      } catch (e) {
        result = { pass: false, note: String(e.message ?? e) };
      }
      const column = protocol === "auto" ? "auto" : `v${protocol}`;
      rows.push({ agent: agent.name, version: agent.version, protocol: column, flow, ...result, seconds: ((Date.now() - started) / 1000).toFixed(1) });
      console.log(`${result.pass === null ? "n/a " : result.pass ? "pass" : "FAIL"}  ${agent.id}  ${column}  ${flow}: ${result.note}`);
    }
  }
}
server.close();
// Cline starts a hub daemon that detaches from its ACP process and keeps writing to its HOME
// under root: stopped before root is removed (a removal racing its files crashed this script
// with ENOTEMPTY after every flow had passed; scripts/test-agents stops any left as well).
spawnSync("pkill", ["-f", `${cache}/node_modules/cline/bin/.cline --cline-hub-daemon`]);
if (process.env.PORTHOLE_AGENTS_KEEP === "1") console.log(`kept the workspaces, homes and ACP logs in ${root}`);
else removeTree(root);

// The window test (app.test.mjs) runs before this under Xvfb; scripts/test-agents passes its
// outcome ("pass" or "fail: why") so the matrix and the summary count it.
const app = process.env.PORTHOLE_AGENTS_APP_RESULT;
if (app) {
  const claude = AGENTS.find((a) => a.id === "claude");
  const pass = app === "pass";
  // The window's protocol is the app's default, auto: v2 with Claude Code and Codex.
  rows.push({ agent: claude.name, version: claude.version, protocol: "auto", flow: "in the real app (WebDriver)", pass, note: pass ? "(the app's default, auto: v2 with both) streamed reply, edit allowed in the dialog, shell output, cancel, sign-in panel; Codex's device-code sign-in, its MCP App in agent-full-access (codex-acp's v2 MCP approval bug); acpx through porthole proxy: Claude's and Qwen's questions, and the test agent's Gemini host input, answered in the window" : app, seconds: "-" });
}

const widths = ["agent", "version", "protocol", "flow"].map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
const line = (cells) => cells.map((c, i) => (i < 4 ? c.padEnd(widths[i]) : i < 6 ? c.padEnd(i === 4 ? 6 : 4) : c)).join("  ");
console.log("");
console.log(line(["agent", "version", "protocol", "flow", "result", "s", "note"]));
const verdict = (r) => (r.pass === null ? "n/a" : r.pass ? "pass" : "FAIL");
for (const r of rows) console.log(line([r.agent, r.version, r.protocol, r.flow, verdict(r), r.seconds, r.note]));
const passed = rows.filter((r) => r.pass === true).length;
const failed = rows.filter((r) => r.pass === false).length;
console.log("");
console.log(`${rows.length - passed - failed} skipped (n/a: not offered by the agent or not reachable from the CLI; see the note)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
