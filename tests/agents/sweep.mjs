// The registry-wide sweep: every agent of the ACP registry snapshot (tests/fixtures/acp-registry)
// that installs from a package registry is installed through Porthole's own registry installer
// (`porthole-cli agents install`, from a local copy of the registry), started through its
// installed command with no network but loopback, and recorded: initialize (protocol version,
// capabilities, sign-in methods and their types), session/new (a session, or auth_required with
// the methods named), and a full turn where a fake model API stands in for the vendor's.
// Binary-only agents are listed with why they were not run. Prints a matrix; exits 1 when a run
// does not show what sweep-agents.mjs expects, or when an entry of the snapshot does not parse.
//
//   node tests/agents/sweep.mjs prepare    outside the namespace: fills the npm cache
//   node tests/agents/sweep.mjs run [id…]  inside it (scripts/test-sweep does both)
//
// Environment: PORTHOLE_CLI (a built porthole-cli), PORTHOLE_SWEEP_CACHE (the npm cache the
// installed npx commands run from; kept between runs), PORTHOLE_SWEEP_OUT (where sweep.json goes).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS } from "./agents.mjs";
import { startFakeModels } from "./fake-models.mjs";
import { ELSEWHERE, SWEEP } from "./sweep-agents.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, "..", "fixtures", "acp-registry");
const snapshot = JSON.parse(readFileSync(join(fixture, "registry.json"), "utf8"));
const npmCache = process.env.PORTHOLE_SWEEP_CACHE ?? "/var/tmp/porthole-sweep-npm";

/** The npm package of an npx entry, without its version (`@scope/name`). */
const packageName = (spec) => spec.replace(/^(@?[^@]+)@.*$/, "$1");

/** The snapshot's entry of `id` as it would be published at `version`. */
function entryAt(id, version) {
  const entry = structuredClone(snapshot.agents.find((a) => a.id === id));
  if (!entry) throw new Error(`${id} is not in the registry snapshot`);
  entry.version = version;
  entry.distribution.npx.package = `${packageName(entry.distribution.npx.package)}@${version}`;
  return entry;
}

const [command = "run", ...only] = process.argv.slice(2);
const plan = SWEEP.filter((a) => only.length === 0 || only.includes(a.id));

if (command === "prepare") {
  // npx keeps what it installs in the npm cache (`_npx/<hash of the package spec>`): filling it
  // here, where the npm registry is reachable, lets the installed command start offline later.
  for (const agent of plan) {
    for (const run of agent.runs.filter((r) => !r.skip)) {
      const spec = entryAt(agent.id, run.version).distribution.npx.package;
      const started = Date.now();
      execFileSync("npm", ["exec", "--yes", "--no-audit", "--no-fund", "--loglevel=error", `--package=${spec}`, "--", "node", "-e", "0"], {
        env: { ...process.env, npm_config_cache: npmCache },
        stdio: ["ignore", "ignore", "inherit"],
      });
      console.log(`sweep: ${spec} in the npm cache (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
  process.exit(0);
}
if (command !== "run") throw new Error(`usage: sweep.mjs prepare|run [id ...] (not ${command})`);

const cli = process.env.PORTHOLE_CLI;
if (!cli || !existsSync(cli)) throw new Error(`PORTHOLE_CLI (${cli}) is not a built porthole-cli`);
const root = mkdtempSync(join(tmpdir(), "porthole-sweep-"));
const failures = [];
const fail = (what) => failures.push(what);

/** Run a command to its end; resolves { code, stdout, stderr }. Killed after `timeoutMs`. */
function run(file, args, { env, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? `killed (${signal})`, stdout, stderr });
    });
  });
}

// ---------- 1. every entry of the snapshot parses, listed and set aside alike ----------

async function parses() {
  const env = { ...process.env, PORTHOLE_CACHE_DIR: join(root, "cache"), PORTHOLE_AGENTS_DIR: join(root, "agents") };
  const check = async (label, file, count) => {
    const r = await run(cli, ["agents", "available", "--registry", file, "--json"], { env });
    const listed = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const problems = r.stderr.split("\n").filter((l) => l.includes("skipped"));
    if (r.code !== 0) fail(`${label}: porthole-cli agents available exited ${r.code}: ${r.stderr.trim()}`);
    if (problems.length) fail(`${label}: ${problems.length} entries reported: ${problems.join(" | ")}`);
    if (listed.length !== count) fail(`${label}: ${listed.length} agents listed, ${count} in the file`);
    console.log(`sweep: ${label}: ${listed.length} of ${count} entries parse, ${problems.length} problems`);
    return listed;
  };
  const listed = await check("registry.json (listed agents)", join(fixture, "registry.json"), snapshot.agents.length);
  // Each agents/<id>/agent.json as published, the five the registry sets aside included.
  const files = [];
  for (const dir of [join(fixture, "agents"), join(fixture, "agents", "_not_yet_unsupported")]) {
    for (const id of readdirSync(dir)) if (existsSync(join(dir, id, "agent.json"))) files.push(join(dir, id, "agent.json"));
  }
  const all = join(root, "every-agent-json.json");
  writeFileSync(all, JSON.stringify({ version: snapshot.version, agents: files.map((f) => JSON.parse(readFileSync(f, "utf8"))) }));
  await check("agents/*/agent.json (with the set-aside ones)", all, files.length);
  return listed;
}

// ---------- 2. install, start offline, record ----------

const fakeModels = await startFakeModels();
const baseUrl = `http://127.0.0.1:${fakeModels.address().port}`;
// Credentials or endpoints from the caller's environment must never reach an agent.
const CLEARED = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GITHUB_TOKEN", "GH_TOKEN"];

/** The sign-in methods of an initialize answer, as `id (type)`. */
function methodsOf(init) {
  return (init?.authMethods ?? []).map((m) => {
    const type = m.type ?? "agent";
    const apiKey = m._meta?.["api-key"] ? ", api-key" : "";
    return `${m.id} (${type}${apiKey})`;
  });
}

/** The capabilities worth a column, in a few words. */
function capsOf(init) {
  const c = init?.agentCapabilities ?? {};
  const words = [];
  if (c.loadSession) words.push("load");
  for (const k of Object.keys(c.sessionCapabilities ?? {})) if (c.sessionCapabilities[k] != null) words.push(k);
  const p = c.promptCapabilities ?? {};
  for (const k of ["image", "audio", "embeddedContext"]) if (p[k]) words.push(k);
  const m = c.mcpCapabilities ?? {};
  for (const k of ["http", "sse"]) if (m[k]) words.push(`mcp-${k}`);
  return words.join(" ");
}

async function sweepOne(agent, version, why) {
  const work = mkdtempSync(join(root, `${agent.id}-${version}-`));
  const registryFile = join(work, "registry.json");
  const entry = entryAt(agent.id, version);
  writeFileSync(registryFile, JSON.stringify({ ...snapshot, agents: snapshot.agents.map((a) => (a.id === agent.id ? entry : a)) }));
  const home = join(work, "home");
  const ws = join(work, "workspace");
  // A temp dir of its own, removed with the work folder: agents unpack helpers there (GitHub
  // Copilot's bundled ripgrep in pkg-*, Qwen Code's qwen-socks-*) and leave them behind.
  const tmp = join(work, "tmp");
  for (const dir of [home, ws, tmp]) mkdirSync(dir);
  const env = { ...process.env, HOME: home, TMPDIR: tmp, PORTHOLE_AGENTS_DIR: join(work, "agents"), PORTHOLE_CACHE_DIR: join(work, "cache") };
  for (const k of CLEARED) delete env[k];
  // The installed command is `npx -y PACKAGE@VERSION ARGS`: from the cache filled by `prepare`,
  // and never from the network (there is none here anyway).
  Object.assign(env, { npm_config_cache: npmCache, npm_config_offline: "true", npm_config_update_notifier: "false" });
  const row = { agent: agent.id, version, why, install: "", protocol: "", agentInfo: "", caps: "", auth: [], session: "", turn: "", problems: [] };
  const problem = (what) => {
    row.problems.push(what);
    fail(`${agent.id} ${version}: ${what}`);
  };

  const installed = await run(cli, ["agents", "install", agent.id, "--registry", registryFile], { env, timeoutMs: 60_000 });
  if (installed.code !== 0) {
    row.install = "fail";
    problem(`install exited ${installed.code}: ${installed.stderr.trim().slice(-400)}`);
    return row;
  }
  const record = JSON.parse(readFileSync(join(work, "agents", "installed.json"), "utf8")).agents.find((a) => a.id === agent.id);
  row.install = `${record.kind}: ${[record.command, ...record.args].join(" ")}`;
  if (!record.args.includes(entry.distribution.npx.package)) problem(`installed command ${row.install} does not run ${entry.distribution.npx.package}`);

  const turnAgent = agent.expect.turn ? AGENTS.find((a) => a.id === agent.expect.turn) : null;
  if (turnAgent) Object.assign(env, turnAgent.env({ baseUrl, home, signedIn: true }));
  const prompt = "Say hello to the registry sweep";
  const args = ["--agent", agent.id, "--cwd", ws, "--json", "--init-timeout", "90", ...(turnAgent ? [prompt] : [])];
  const r = await run(cli, args, { env, timeoutMs: 180_000 });
  const events = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const init = events.find((e) => e.type === "initialized");
  const session = events.find((e) => e.type === "session");
  if (!init) {
    problem(`no initialize answer (exit ${r.code}): ${r.stderr.trim().slice(-600)}`);
    return row;
  }
  row.protocol = init.protocolVersion;
  row.agentInfo = init.agent ? `${init.agent.name ?? ""} ${init.agent.version ?? ""}`.trim() : "";
  row.caps = capsOf(init);
  row.auth = methodsOf(init);
  if (init.protocolVersion !== 1) problem(`protocol version ${init.protocolVersion}, not 1`);

  const authRequired = !session && /auth_required|authentication required|sign in|-32000/i.test(r.stderr);
  row.session = session ? "open" : authRequired ? "auth_required" : `fail (exit ${r.code})`;
  // The agent's own words, as porthole-cli printed them (its first line about session/new).
  if (authRequired) row.sessionError = (r.stderr.split("\n").find((l) => l.includes("session/new")) ?? "").replace(/^porthole-cli: /, "");
  if (row.session !== agent.expect.session) problem(`session/new: ${row.session}, expected ${agent.expect.session}: ${r.stderr.trim().slice(-600)}`);
  if (row.session === "auth_required" && row.auth.length === 0 && !agent.expect.noMethods) problem("auth_required, but initialize named no sign-in method");
  if (agent.expect.noMethods && row.auth.length) problem(`sign-in methods named (${row.auth.join(", ")}), where none were`);

  if (turnAgent) {
    const reply = events
      .filter((e) => e.type === "session_update" && e.update.sessionUpdate === "agent_message_chunk")
      .map((e) => e.update.content?.text ?? "")
      .join("");
    const end = events.find((e) => e.type === "turn_end");
    row.turn = end ? `${end.stopReason}: ${JSON.stringify(reply.slice(0, 60))}` : `fail (exit ${r.code})`;
    if (end?.stopReason !== "end_turn" || !reply.includes(prompt)) problem(`turn: ${row.turn}: ${r.stderr.trim().slice(-600)}`);
  } else {
    row.turn = `n/a: ${agent.noTurn}`;
  }
  return row;
}

const listed = await parses();
const rows = [];
const skipped = [];
for (const agent of plan) {
  for (const { version, why, skip } of agent.runs) {
    if (skip) skipped.push({ agent: agent.id, version, distribution: "npx", why: skip });
    else rows.push(await sweepOne(agent, version, why));
  }
}
await new Promise((r) => fakeModels.close(r));

// ---------- 3. the matrix ----------

const notRun = listed
  .filter((l) => !SWEEP.some((s) => s.id === l.agent.id))
  .map((l) => {
    const kinds = Object.keys(l.agent.distribution);
    let why = kinds.includes("npx") || kinds.includes("uvx") ? "not in sweep-agents.mjs" : "binary only: its download is a GitHub release asset, outside the package registries this machine reaches";
    if (ELSEWHERE[l.agent.id]) why += `; ${ELSEWHERE[l.agent.id]}`;
    if (why.startsWith("not in")) fail(`${l.agent.id} installs from a package registry but the sweep does not run it`);
    return { agent: l.agent.id, version: l.agent.version, distribution: kinds.join(", "), why };
  });

console.log("\nagent            version   protocol  session        sign-in methods / turn");
for (const row of rows) {
  console.log(`${row.agent.padEnd(16)} ${row.version.padEnd(9)} ${String(row.protocol).padEnd(9)} ${row.session.padEnd(14)} ${row.auth.join(", ") || "-"}`);
  console.log(`${"".padEnd(52)}  agent: ${row.agentInfo || "-"}; caps: ${row.caps || "-"}`);
  if (row.sessionError) console.log(`${"".padEnd(52)}  ${row.sessionError.slice(0, 200)}`);
  console.log(`${"".padEnd(52)}  turn: ${row.turn}`);
  for (const p of row.problems) console.log(`${"".padEnd(52)}  PROBLEM: ${p}`);
}
console.log("\nnot run:");
for (const n of [...skipped, ...notRun]) console.log(`  ${n.agent.padEnd(16)} ${n.version.padEnd(9)} ${n.distribution}: ${n.why}`);

const out = process.env.PORTHOLE_SWEEP_OUT;
if (out) {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "sweep.json"), JSON.stringify({ rows, notRun: [...skipped, ...notRun] }, null, 2));
}
if (process.env.PORTHOLE_SWEEP_KEEP === "1" || failures.length) console.log(`\nsweep: work folders kept in ${root}`);
else rmSync(root, { recursive: true, force: true });
for (const f of failures) console.log(`FAIL ${f}`);
const troubled = rows.filter((r) => r.problems.length).length;
console.log(`\n${rows.length - troubled} of ${rows.length} runs as expected, ${failures.length} problems`);
process.exit(failures.length ? 1 : 0);
