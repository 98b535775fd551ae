// A day of use in a few minutes (issue 24, part 1): the real app under Xvfb with several agents
// at once (the test agent, the demo agent, and Claude Code and Codex against the fake model API
// when scripts/test-agents' cache has them), driven through the app's own commands (the IPC the
// window uses) for --minutes: turns with tool calls and diffs, every kind of dialog answered,
// declined, cancelled and left to time out, URL elicitations opened in the sealed view (some of
// which are killed), agents killed and restarted, sessions opened, loaded and closed, and the
// window hidden and shown. Every 10 s it samples RSS, open fds and threads of each process, the
// child processes and the history file into samples.csv; plot.py draws samples.png.
//
// Pass: after the first minute nothing grows more than 5% per 10 minutes (checked when the run
// has at least 3 minutes after it), no process of the run is left at the end, and the consent
// history holds exactly one entry per dialog the script saw, with the action it took
// (or `dismissed` for those it left or whose agent it killed).
//
//   node tests/soak/soak.mjs --minutes N --out DIR --binary PATH --test-agent PATH
// Run by scripts/soak (which builds, installs and isolates it); exits 1 on a failed criterion.
import { mkdirSync, writeFileSync, appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { launch } from "../e2e/harness.mjs";
import { findApp, descendants } from "../bench-app/proc.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const minutes = Number(arg("minutes", "1"));
const out = resolve(arg("out", join(here, "output", "run")));
const binary = resolve(arg("binary", join(process.env.CARGO_TARGET_DIR ?? join(repo, "target"), "debug", "porthole")));
const testAgent = resolve(arg("test-agent", join(dirname(binary), "porthole-test-agent")));
const agentCache = process.env.PORTHOLE_AGENT_CACHE ?? "/var/tmp/porthole-agents";
const SAMPLE_MS = 10_000;
mkdirSync(out, { recursive: true });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let closeApp = async () => {};
// A run that hangs still ends, and takes its app (and tauri-driver's process group) with it.
setTimeout(async () => {
  console.error("soak: the run took 5 minutes longer than asked; stopping");
  await closeApp();
  process.exit(2);
}, (minutes * 60 + 300) * 1000).unref();
const started = Date.now();
const elapsed = () => (Date.now() - started) / 1000;
const log = (...a) => {
  const line = `[${elapsed().toFixed(0).padStart(4)} s] ${a.join(" ")}`;
  console.log(line);
  appendFileSync(join(out, "soak.log"), line + "\n");
};

// ---- the agents -------------------------------------------------------------------------------

const config = join(out, "config");
const workspace = join(out, "workspace");
mkdirSync(join(config, "porthole"), { recursive: true });
mkdirSync(workspace, { recursive: true });
writeFileSync(join(workspace, "notes.txt"), "Original notes.\n");
const historyFile = join(out, "history.sqlite3");

const agentServers = {
  "Test agent": { command: testAgent, args: [], env: { PORTHOLE_TEST_AGENT_LOG: join(out, "test-agent.log") } },
};
let fakeModels = null;
const real = [];
if (process.env.SOAK_REAL_AGENTS !== "0" && existsSync(join(agentCache, "node_modules"))) {
  const { AGENTS } = await import("../agents/agents.mjs");
  const { startFakeModels } = await import("../agents/fake-models.mjs");
  fakeModels = await startFakeModels();
  const baseUrl = `http://127.0.0.1:${fakeModels.address().port}`;
  // Claude Code and Codex: with the test agent and the demo agent, the four the soak was sized
  // and checked with (Gemini CLI and Qwen Code run in scripts/test-agents).
  for (const a of AGENTS.filter((x) => ["claude", "codex"].includes(x.id))) {
    const entry = join(agentCache, "node_modules", a.entry);
    if (!existsSync(entry)) continue;
    const home = join(out, `home-${a.id}`);
    mkdirSync(home, { recursive: true });
    agentServers[a.name] = { command: "node", args: [entry, ...(a.args ?? [])], env: a.env({ baseUrl, home }) };
    real.push(a);
  }
}
writeFileSync(join(config, "porthole", "agents.json"), JSON.stringify({ agent_servers: agentServers }, null, 2));

// ---- the app ----------------------------------------------------------------------------------

const app = await launch({
  binary,
  env: { XDG_CONFIG_HOME: config, PORTHOLE_HISTORY_FILE: historyFile },
});
closeApp = () => app.close();
const appPid = await waitFor("the app process", () => findApp(binary), 30000);
log(`app ${appPid}; agents: demo, ${Object.keys(agentServers).join(", ")}`);
// A command that never answers fails the step instead of hanging the run.
await app.d.manage().setTimeouts({ script: 30000 });

async function invoke(cmd, args = {}) {
  const r = await app.d.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then((v) => done({ ok: v ?? null }), (e) => done({ err: e?.message ?? JSON.stringify(e) }));`,
    cmd,
    args,
  );
  if (r && "err" in r) throw new Error(`${cmd}: ${r.err}`);
  return r?.ok;
}

async function waitFor(what, probe, ms = 60000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const state = () => invoke("app_state");
const idOf = (name) => (name === "demo" ? "demo" : name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""));

/** agent id -> its current session id. */
const sessions = new Map();

async function connected(agentId, ms = 90000) {
  await waitFor(`${agentId} connected`, async () => {
    const s = await state();
    const c = s.snapshot.connections.find((c) => c.agentId === agentId);
    return c?.state === "connected";
  }, ms);
}

async function openSession(agentId) {
  await connected(agentId);
  const view = await invoke("new_session", { agentId, cwd: workspace });
  sessions.set(agentId, view.sessionId);
  return view.sessionId;
}

// ---- dialogs: what the script saw and did -----------------------------------------------------

/** dialogId -> { kind, message, agentId, action: what the script did, or null (left) }. */
const dialogs = new Map();
/** Dialogs of a `timeout-form` turn are left alone. */
let leaveAlone = new Set();
/** Answers so far by kind: each kind cycles through its answers on its own. */
const answered = new Map();

function messageOf(d) {
  return d.type === "permission" ? d.toolCall?.title ?? "" : d.message ?? "";
}

async function answer(d) {
  // Per agent and kind, so that every agent's dialogs of a kind get every answer in turn.
  const kind = `${d.agentId}/${d.type === "elicitation" ? d.mode : d.type}`;
  const n = answered.get(kind) ?? 0;
  answered.set(kind, n + 1);
  if (d.type === "permission") {
    // Allow once, reject once, or no option (cancel).
    const allow = d.options.find((o) => o.kind === "allow_once");
    const reject = d.options.find((o) => o.kind === "reject_once");
    const choice = [allow, reject, null][n % 3];
    await invoke("answer_dialog", { dialogId: d.dialogId, answer: { type: "permission", optionId: choice?.optionId ?? null } });
    return choice ? "selected" : "cancel";
  }
  if (d.type === "file_access") {
    await invoke("answer_dialog", { dialogId: d.dialogId, answer: { type: "file_access", allow: n % 2 === 0 } });
    return null; // not part of the history
  }
  const action = ["accept", "decline", "cancel"][n % 3];
  if (action === "accept" && d.mode === "form") {
    try {
      await invoke("answer_dialog", { dialogId: d.dialogId, answer: { type: "elicitation", action, content: d.initialValues ?? {} } });
      return "accept";
    } catch {
      // A form whose defaults do not validate (a question with no default): declined instead.
      await invoke("answer_dialog", { dialogId: d.dialogId, answer: { type: "elicitation", action: "decline" } });
      return "decline";
    }
  }
  await invoke("answer_dialog", { dialogId: d.dialogId, answer: { type: "elicitation", action } });
  if (action === "accept" && d.mode === "url") await openSealed(d.dialogId);
  return action;
}

/** URL consent: open the page in the sealed view; every other one is killed, the rest closed. */
let sealedOpened = 0;
async function openSealed(dialogId) {
  await invoke("open_url", { dialogId, target: "sealed" });
  const view = await waitFor("a sealed-view process", () => descendants(appPid).find((p) => cmd(p.pid)[1] === "sealed-view"), 20000).catch(() => null);
  sealedOpened++;
  await sleep(1500);
  if (view && sealedOpened % 2 === 0) {
    try {
      process.kill(view.pid, "SIGKILL");
      log(`killed sealed view ${view.pid}`);
    } catch {}
  } else {
    await invoke("close_url_view", { dialogId }).catch(() => {});
  }
}

async function pollDialogs() {
  const s = await state();
  // The app model's one list of waiting dialogs (`app_state` returns it as `dialogs`).
  for (const d of s.dialogs) {
    if (dialogs.has(d.dialogId)) continue;
    const entry = { kind: d.type === "permission" ? "permission" : d.type === "file_access" ? "file" : d.mode, message: messageOf(d), agentId: d.agentId, action: null };
    dialogs.set(d.dialogId, entry);
    if (process.env.SOAK_VERBOSE) log(`dialog ${d.dialogId} ${entry.kind} ${entry.agentId}: ${entry.message}`);
    if (leaveAlone.has(d.agentId)) continue;
    await sleep(150 + Math.random() * 400); // a person reads first
    try {
      entry.action = await answer(d);
    } catch (e) {
      entry.action = null; // gone meanwhile (agent killed, turn cancelled): expect dismissed
      if (process.env.SOAK_VERBOSE) log(`dialog ${d.dialogId}: ${e.message}`);
    }
    if (process.env.SOAK_VERBOSE) log(`dialog ${d.dialogId}: ${entry.action}`);
  }
  return s;
}

let polling = true;
// Started once the window is up (an async script run before the page settles never returns).
const startPoller = () => (async () => {
  while (polling) {
    try {
      await pollDialogs();
    } catch (e) {
      log(`poll: ${e.message}`);
    }
    await sleep(150);
  }
})();

// ---- turns ------------------------------------------------------------------------------------

async function turn(agentId, text, { cancelAfterMs = null, ms = 60000 } = {}) {
  let sessionId = sessions.get(agentId);
  if (!sessionId) sessionId = await openSession(agentId);
  try {
    await invoke("send_prompt", { sessionId, text, attachments: null });
  } catch (e) {
    if (!/no open session/.test(e.message)) throw e;
    log(`${e.message}: a new session`);
    sessionId = await openSession(agentId);
    await invoke("send_prompt", { sessionId, text, attachments: null });
  }
  const t0 = Date.now();
  if (cancelAfterMs !== null) {
    await sleep(cancelAfterMs);
    await invoke("cancel_turn", { sessionId }).catch(() => {});
  }
  await sleep(300);
  try {
    await waitFor(`the end of "${text}" (${agentId})`, async () => {
      const s = await state();
      const v = s.snapshot.sessions.find((x) => x.sessionId === sessionId);
      return !v || !v.turnRunning;
    }, ms);
  } catch (e) {
    log(`${e.message}: cancelled`);
    await invoke("cancel_turn", { sessionId }).catch(() => {});
  }
  return Date.now() - t0;
}

function cmd(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** Which agent a process is, if it is one. */
function agentProcess(agentId) {
  const procs = descendants(appPid);
  if (agentId === "demo") return procs.find((p) => cmd(p.pid)[1] === "demo-agent");
  if (agentId === "test-agent") return procs.find((p) => cmd(p.pid)[0] === testAgent);
  const a = real.find((r) => idOf(r.name) === agentId);
  return a && procs.find((p) => cmd(p.pid).some((c) => c.includes(a.entry.split("/dist/")[0])));
}

async function killAndRestart(agentId) {
  const p = agentProcess(agentId);
  if (!p) return log(`no process for ${agentId}`);
  process.kill(p.pid, "SIGKILL");
  log(`killed ${agentId} (${p.pid})`);
  await waitFor(`${agentId} failed`, async () => (await state()).snapshot.connections.find((c) => c.agentId === agentId)?.state === "failed", 20000);
  sessions.delete(agentId);
  await invoke("restart_agent", { agentId });
  await openSession(agentId);
  log(`restarted ${agentId}`);
}

/** Hide the window (unmap, as minimizing to the tray does) and show it again. */
async function hideAndShow() {
  let ids = [];
  try {
    ids = execFileSync("xdotool", ["search", "--onlyvisible", "--pid", String(appPid)], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {}
  for (const id of ids) execFileSync("xdotool", ["windowunmap", id]);
  await sleep(2000);
  for (const id of ids) execFileSync("xdotool", ["windowmap", id]);
  log(`hid and showed ${ids.length} window(s)`);
}

async function sessionChurn(cycle) {
  // A new session, a turn in it, then closed; the test agent's is loaded again by id.
  const s = await invoke("new_session", { agentId: "demo", cwd: workspace });
  await invoke("send_prompt", { sessionId: s.sessionId, text: `hello from extra session ${cycle}`, attachments: null });
  await sleep(1500);
  await invoke("close_session", { sessionId: s.sessionId }).catch((e) => log(`close_session: ${e.message}`));
  // Load a session the test agent lists (it keeps its own ids) into the window.
  try {
    const listed = await invoke("list_sessions", { agentId: "test-agent", cwd: null, cursor: null });
    const id = listed?.sessions?.[0]?.sessionId;
    if (id) {
      const view = await invoke("load_session", { agentId: "test-agent", sessionId: id, cwd: workspace });
      sessions.set("test-agent", view.sessionId);
    }
  } catch (e) {
    log(`load_session: ${e.message}`);
  }
  const s2 = await state();
  if (!s2.snapshot.sessions.some((v) => v.sessionId === sessions.get("test-agent"))) await openSession("test-agent");
}

// ---- sampling ---------------------------------------------------------------------------------

const groups = ["app", "web", "network", "test-agent", "demo-agent", "sealed-view", ...real.map((a) => a.id), "other"];
const columns = ["t_s", ...groups.flatMap((g) => [`${g}_rss_mb`, `${g}_fds`, `${g}_threads`, `${g}_procs`]), "total_rss_mb", "total_fds", "total_threads", "child_procs", "sqlite_bytes", "dialogs_seen", "window_transcripts", "window_items"];
writeFileSync(join(out, "samples.csv"), columns.join(",") + "\n");
const seenPids = new Set();

/** The group of a process: the app, its WebKit processes, or the app's child it descends from
 *  (an agent with its own helpers, a sealed view with its WebKit processes). */
function groupOf(pid, comm, parents) {
  if (pid === appPid) return "app";
  let top = pid;
  while (parents.get(top) !== undefined && parents.get(top) !== appPid) top = parents.get(top);
  if (top === pid) {
    if (comm.startsWith("WebKitWebProces")) return "web";
    if (comm.startsWith("WebKitNetworkPr")) return "network";
  }
  const c = cmd(top);
  if (c[1] === "demo-agent") return "demo-agent";
  if (c[1] === "sealed-view") return "sealed-view";
  if (c[0] === testAgent) return "test-agent";
  for (const a of real) if (c.some((x) => x.includes(a.entry.split("/dist/")[0]))) return a.id;
  return "other";
}

function procFigures(pid) {
  let rss = 0;
  let threads = 0;
  let fds = 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
    threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    fds = readdirSync(`/proc/${pid}/fd`).length;
  } catch {}
  return { rss, threads, fds };
}

function sqliteBytes() {
  let n = 0;
  for (const f of [historyFile, `${historyFile}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {}
  }
  return n;
}

// What the window holds (transcripts and their items), to tell use from a leak when the web
// process grows. Read from the page between samples (a sample itself stays synchronous), once
// the window is connected: a script run before the page has settled never returns.
const holds = { transcripts: "", items: "", reading: false, ready: false };
async function readHolds() {
  if (!holds.ready || holds.reading) return;
  holds.reading = true;
  try {
    const t = (await app.exec("return window.__portholePerf.sessions().transcripts")) ?? {};
    holds.transcripts = Object.keys(t).length;
    holds.items = Object.values(t).reduce((a, n) => a + n, 0);
  } catch {
  } finally {
    holds.reading = false;
  }
}

const samples = [];
function sample() {
  void readHolds();
  const sums = Object.fromEntries(groups.map((g) => [g, { rss: 0, fds: 0, threads: 0, procs: 0 }]));
  const procs = [{ pid: appPid, comm: "porthole" }, ...descendants(appPid)];
  const parents = new Map(procs.map((p) => [p.pid, p.ppid]));
  for (const p of procs) {
    seenPids.add(p.pid);
    const g = groupOf(p.pid, p.comm, parents);
    const f = procFigures(p.pid);
    sums[g].rss += f.rss;
    sums[g].fds += f.fds;
    sums[g].threads += f.threads;
    sums[g].procs += 1;
  }
  const row = { t_s: Math.round(elapsed()) };
  for (const g of groups) {
    row[`${g}_rss_mb`] = sums[g].rss.toFixed(1);
    row[`${g}_fds`] = sums[g].fds;
    row[`${g}_threads`] = sums[g].threads;
    row[`${g}_procs`] = sums[g].procs;
  }
  row.total_rss_mb = groups.reduce((a, g) => a + sums[g].rss, 0).toFixed(1);
  row.total_fds = groups.reduce((a, g) => a + sums[g].fds, 0);
  row.total_threads = groups.reduce((a, g) => a + sums[g].threads, 0);
  row.child_procs = procs.length - 1;
  row.sqlite_bytes = sqliteBytes();
  row.dialogs_seen = dialogs.size;
  row.window_transcripts = holds.transcripts;
  row.window_items = holds.items;
  samples.push(row);
  appendFileSync(join(out, "samples.csv"), columns.map((c) => row[c]).join(",") + "\n");
}

sample();
const sampler = setInterval(sample, SAMPLE_MS);

// ---- the script -------------------------------------------------------------------------------

const realIds = real.map((a) => idOf(a.name));
const agentIds = ["test-agent", "demo", ...realIds];
let failures = [];
let poller = Promise.resolve();
try {
  await app.waitText("header", "Connected", 60000);
  await connected("demo");
  poller = startPoller();
  holds.ready = true;
  for (const id of ["test-agent", ...realIds]) await invoke("connect_agent", { agentId: id }).catch(() => {});
  for (const id of agentIds) await openSession(id);
  log(`sessions: ${[...sessions.entries()].map(([a, s]) => `${a}=${s}`).join(" ")}`);

  const until = started + minutes * 60_000;
  for (let cycle = 0; Date.now() < until; cycle++) {
    const steps = [
      () => turn("test-agent", "form"),
      () => turn("test-agent", "permission"),
      async () => {
        leaveAlone.add("test-agent");
        try {
          await turn("test-agent", "timeout-form 2");
        } finally {
          leaveAlone.delete("test-agent");
        }
      },
      () => turn("test-agent", "fs"),
      () => turn("demo", "/configure"),
      () => turn("demo", "/edit"),
      () => turn("demo", "/connect", { cancelAfterMs: 6000 }),
      () => turn("demo", "/slow", { cancelAfterMs: 1500 }),
      ...realIds.flatMap((id) => [
        () => turn(id, `hello from the soak, cycle ${cycle}`, { ms: 90000 }),
        () => turn(id, `[[edit ${join(workspace, `soak-${id}.txt`)} cycle ${cycle}]]`, { ms: 90000 }),
      ]),
    ];
    for (const step of steps) {
      if (Date.now() >= until) break;
      try {
        await step();
      } catch (e) {
        log(`step failed: ${e.message}`);
      }
    }
    if (Date.now() >= until) break;
    try {
      if (cycle % 2 === 1) await hideAndShow();
      if (cycle % 3 === 2) await sessionChurn(cycle);
      if (cycle % 2 === 0) await killAndRestart(agentIds[(cycle / 2) % agentIds.length]);
    } catch (e) {
      log(`cycle ${cycle} chores: ${e.message}`);
    }
    log(`cycle ${cycle} done: ${dialogs.size} dialogs seen`);
  }
} catch (e) {
  failures.push(`the script stopped: ${e.stack ?? e}`);
}

// ---- the end: stop, then check ----------------------------------------------------------------

polling = false;
await poller;
await sleep(1500); // dismissals of the last dialogs reach the history
sample();
clearInterval(sampler);

// The history, read through the app (the same query the History view runs).
const entries = [];
for (let beforeId = null; ; ) {
  const page = await invoke("history_list", { filter: { limit: 1000, ...(beforeId ? { beforeId } : {}) } });
  entries.push(...page.entries);
  if (page.entries.length < 1000) break;
  beforeId = page.entries[page.entries.length - 1].id;
}
const pids = [...seenPids];
await app.close();
fakeModels?.close();

// Nothing of the run is left: every process seen in a sample has exited.
await sleep(5000);
const orphans = pids.filter((pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
});
if (orphans.length) failures.push(`processes left after the app closed: ${orphans.map((p) => `${p} ${cmd(p).join(" ")}`).join("; ")}`);

// Every dialog once, with the script's action or `dismissed`.
const key = (kind, message, action) => `${kind} | ${message} | ${action}`;
const expected = new Map();
const bump = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
for (const d of dialogs.values()) {
  if (d.kind === "file") continue;
  bump(expected, key(d.kind, d.message, d.action ?? "dismissed"));
}
const actual = new Map();
for (const e of entries) bump(actual, key(e.kind, e.message, e.action));
const mismatches = [];
for (const k of new Set([...expected.keys(), ...actual.keys()])) {
  if ((expected.get(k) ?? 0) !== (actual.get(k) ?? 0)) mismatches.push(`${k}: script ${expected.get(k) ?? 0}, history ${actual.get(k) ?? 0}`);
}
if (mismatches.length) failures.push(`the history does not match the script:\n  ${mismatches.join("\n  ")}`);

// Flat after the first minute: least-squares slope, as growth per 10 minutes of the mean.
// Porthole's own processes (the agents' helpers are theirs: Claude Code and Codex keep files
// open per session, which the CSV shows apart), and how many processes it runs.
const checked = ["app_rss_mb", "web_rss_mb", "network_rss_mb", "app_fds", "web_fds", "network_fds", "app_threads", "web_threads", "child_procs"];
const growth = {};
const after = samples.filter((s) => s.t_s >= 60);
for (const c of checked) {
  const xs = after.map((s) => s.t_s);
  const ys = after.map((s) => Number(s[c]));
  if (xs.length < 3) continue;
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  growth[c] = my ? (slope * 600) / my : 0;
}
const longEnough = after.length && after[after.length - 1].t_s - after[0].t_s >= 180;
for (const [c, g] of Object.entries(growth)) {
  if (longEnough && g > 0.05) failures.push(`${c} grows ${(g * 100).toFixed(1)}% per 10 minutes after the first minute`);
}

const counts = new Map();
for (const d of dialogs.values()) bump(counts, `${d.agentId} ${d.kind} ${d.action ?? "left/dismissed"}`);
const summary = {
  minutes,
  seconds: Math.round(elapsed()),
  agents: agentIds,
  dialogsSeen: dialogs.size,
  byOutcome: Object.fromEntries([...counts.entries()].sort()),
  historyEntries: entries.length,
  sealedViewsOpened: sealedOpened,
  growthPer10Min: Object.fromEntries(Object.entries(growth).map(([c, g]) => [c, `${(g * 100).toFixed(1)}%`])),
  growthChecked: Boolean(longEnough),
  sqliteBytesEnd: samples[samples.length - 1].sqlite_bytes,
  orphans: orphans.length,
  failures,
};
writeFileSync(join(out, "summary.json"), JSON.stringify(summary, null, 2));
log(JSON.stringify(summary, null, 2));
process.exit(failures.length ? 1 : 0);
