// App benchmarks in the real window (issues 8 and 16): start-up and memory, a 100,000 updates/s
// flood, scrolling a 100,000-message transcript, elicitation latency, and one message of
// 1,000,000 chunks (catch-up time, web process memory, idle CPU after it).
// Prints figures; never fails on a time. Method and results: docs/benchmarks-app.md.
//
//   node bench.mjs [startup] [idle] [memory] [flood] [scroll] [elicit] [long] [sealed] [apps]     (default: all)
// Ends with issue 34's targets, each figure beside its target (met / not met), never a failure.
// Environment: BENCH_PROFILE=release|debug (default release), BENCH_BIN_DIR (where porthole and
// porthole-test-agent are; default the target dir's profile directory), BENCH_RUNS (start-up runs, 5),
// BENCH_FLOOD="100000 10 100 tools" (rate, seconds, chunks per message, a tool call before each message), BENCH_SCROLL_MESSAGES,
// BENCH_ELICIT (100), BENCH_APPS (50: MCP Apps in one transcript), BENCH_SESSION_MESSAGES (10000), BENCH_LONG_CHUNKS (1000000), BENCH_LONG_PLAIN=1
// (the long message as one paragraph),
// BENCH_SETTLE_MS (3000: wait before the memory after the scroll), BENCH_SCROLL_LATER_S ("30": seconds after the
// round trip at which the web process is measured again, comma-separated), BENCH_IDLE_SECONDS (20), BENCH_IDLE_DIAG=1 (idle CPU also without the caret and without the
// transcript, to find what costs), BENCH_JSON=FILE (all figures as JSON).
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { launch, targetDir } from "../e2e/harness.mjs";
import { cpuSeconds, descendants, findApp, memory, peakRssMB } from "./proc.mjs";
import { startExample } from "../e2e/apps/examples.mjs";
import { tempDir } from "../e2e/harness.mjs";

const profile = process.env.BENCH_PROFILE ?? "release";
// scripts/bench-app copies the binaries it built here: the target dir may be shared.
const binDir = process.env.BENCH_BIN_DIR ?? join(targetDir, profile);
const binary = join(binDir, "porthole");
const testAgent = join(binDir, "porthole-test-agent");
const env = (k, d) => process.env[k] ?? d;
const wanted = process.argv.slice(2);
const runs = (name) => wanted.length === 0 || wanted.includes(name);
const results = { profile, binary, when: new Date().toISOString() };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ----- statistics -----

function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
function summary(values) {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  return { n: s.length, median: quantile(s, 0.5), p95: quantile(s, 0.95), max: s[s.length - 1] ?? NaN };
}
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "-");
function row(...cells) {
  console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 44 : 14)).join(""));
}

// ----- in-window helpers -----

async function perfStats(app) {
  return app.d.executeAsyncScript(`const done = arguments[arguments.length - 1];
    window.__TAURI_INTERNALS__.invoke("perf_stats").then(done, (e) => done({ error: String(e) }));`);
}

async function waitFor(what, fn, ms = 60000, every = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

async function interactive(app) {
  return waitFor("the window to become interactive", () => app.exec("return window.__portholePerf?.interactiveAt ?? null"), 120000, 20);
}

/** Records the time between animation frames until `stopFrames`. */
async function startFrames(app) {
  await app.exec(`const rec = { deltas: [], work: [], on: true };
    window.__benchFrames = rec;
    const perf = window.__portholePerf;
    let last = performance.now();
    const tick = (t) => {
      rec.deltas.push(t - last);
      rec.work.push(perf.takeWork());
      last = t;
      if (rec.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => { last = t; perf.takeWork(); requestAnimationFrame(tick); });`);
}
/** Frame times; for each frame over 50 ms, how much of it (and of the frame before, since a
 *  frame's work may land on either side of the recorder's tick) was the window's own code. */
async function stopFrames(app) {
  const { deltas, work } = await app.exec(`const r = window.__benchFrames; r.on = false; return r;`);
  const s = summary(deltas);
  const own = (i) => work[i] + (work[i - 1] ?? 0);
  const long = deltas.flatMap((d, i) => (d > 50 ? [{ frame: i + 1, ms: d, ownCodeMs: own(i) }] : []));
  const ownCode = summary(deltas.map((_, i) => own(i)));
  return { frames: deltas.length, over50: long.length, medianMs: s.median, p95Ms: s.p95, maxMs: s.max, long, ownCode };
}
/** "#12: 64 ms (own code 3 ms), ..." (frame number: 1 is the first) for the frames over 50 ms,
 *  and the own code of all frames. */
const longFrames = (f) =>
  f.long.map((l) => `#${l.frame}: ${f1(l.ms)} ms (own code ${f1(l.ownCodeMs)})`).join(", ") +
  `; own code in all frames: median ${f1(f.ownCode.median)}, p95 ${f1(f.ownCode.p95)} ms`;

async function turnDone(app, marker, ms) {
  await waitFor(`the turn ${marker} to end`, async () => {
    const last = await app.exec("return window.__portholePerf.lastText(200)");
    return last.includes(`"scenario":"${marker}`);
  }, ms, 200);
}

async function withApp(opts, fn) {
  // What a person runs: the e2e harness turns WebKit's compositing off for its tests, the app
  // decides for itself (src-tauri/src/webkit_env.rs).
  const app = await launch({ binary, ...opts, env: { WEBKIT_DISABLE_COMPOSITING_MODE: undefined, ...opts.env } });
  try {
    return await fn(app);
  } finally {
    await app.close();
    await sleep(500);
  }
}
const withTestAgent = (fn) => withApp({ args: ["--agent", testAgent] }, fn);

// ----- part 5: start-up and idle memory (demo agent) -----

async function startup() {
  const n = Number(env("BENCH_RUNS", 5));
  const fromProcess = [];
  const fromDriver = [];
  const toNavigation = [];
  const toLoaded = [];
  let idle = null;
  for (let i = 0; i < n; i++) {
    const t0 = Date.now();
    await withApp({}, async (app) => {
      const at = await interactive(app);
      const stats = await perfStats(app);
      fromProcess.push(at - stats.processStartEpochMs);
      fromDriver.push(at - t0);
      const nav = await app.exec("return [performance.timeOrigin, performance.timing.domContentLoadedEventEnd]");
      toNavigation.push(nav[0] - stats.processStartEpochMs);
      toLoaded.push(nav[1] - stats.processStartEpochMs);
      if (i === n - 1) {
        await sleep(3000);
        idle = memory(findApp(binary));
      }
    });
  }
  results.startup = {
    processSpawnToInteractiveMs: summary(fromProcess),
    driverToInteractiveMs: summary(fromDriver),
    processSpawnToNavigationMs: summary(toNavigation),
    processSpawnToDomLoadedMs: summary(toLoaded),
    runs: fromProcess,
  };
  results.idleDemo = idle;
  console.log(`\n== Start-up (demo agent), ${n} runs ==`);
  row("", "median ms", "p95 ms", "max ms");
  const s = results.startup.processSpawnToInteractiveMs;
  row("app process start -> interactive", f1(s.median), f1(s.p95), f1(s.max));
  const nv = results.startup.processSpawnToNavigationMs;
  row("  of which: app start -> page navigation", f1(nv.median), f1(nv.p95), f1(nv.max));
  const dl = results.startup.processSpawnToDomLoadedMs;
  row("  of which: app start -> DOMContentLoaded", f1(dl.median), f1(dl.p95), f1(dl.max));
  const d = results.startup.driverToInteractiveMs;
  row("WebDriver session request -> interactive", f1(d.median), f1(d.p95), f1(d.max));
  printMemory("Idle, demo agent connected, 3 s after interactive", idle);
}

function printMemory(title, m) {
  console.log(`\n== Memory: ${title} ==`);
  row("process", "RSS MB", "PSS MB", "anon MB", "file MB");
  row(`main (${m.main.name})`, f1(m.main.rssMB), f1(m.main.pssMB), f1(m.main.anonMB), f1(m.main.fileMB));
  for (const c of m.children) row(`  child ${c.name}`, f1(c.rssMB), f1(c.pssMB), f1(c.anonMB), f1(c.fileMB));
  row("all (main + descendants)", f1(m.totalRssMB), f1(m.totalPssMB));
}

// ----- part 5: memory after a 10,000-message session (test agent) -----

async function sessionMemory() {
  const n = Number(env("BENCH_SESSION_MESSAGES", 10000));
  await withTestAgent(async (app) => {
    await interactive(app);
    await sleep(3000);
    const pid = findApp(binary);
    const before = memory(pid);
    await app.prompt(`messages ${n}`);
    await turnDone(app, "messages", 600000);
    await sleep(3000);
    const after = memory(pid);
    after.domElements = await app.exec("return document.getElementsByTagName('*').length");
    results.sessionMemory = { messages: n, before, after };
    printMemory("idle, test agent connected", before);
    printMemory(`after a ${n}-message session`, after);
    row("DOM elements after it", after.domElements);
  });
}

// ----- part 2: flood -----

async function flood() {
  const spec = env("BENCH_FLOOD", "100000 10 100 tools");
  const [rate, seconds, per] = spec.split(" ").map(Number);
  const tools = spec.split(" ").includes("tools");
  await withTestAgent(async (app) => {
    await interactive(app);
    const before = await perfStats(app);
    const pid = findApp(binary);
    const cpu0 = cpuSeconds(pid);
    await startFrames(app);
    const t0 = Date.now();
    await app.prompt(`flood ${rate} ${seconds} ${per}${tools ? " tools" : ""}`);
    await turnDone(app, "flood", 600000);
    const wall = (Date.now() - t0) / 1000;
    const cpu1 = cpuSeconds(pid);
    const cpu = Object.fromEntries(Object.entries(cpu1).map(([k, v]) => [k, v - (cpu0[k] ?? 0)]));
    const frames = await stopFrames(app);
    const after = await perfStats(app);
    const report = JSON.parse(await app.exec("return window.__portholePerf.lastText()"));
    const check = await app.exec(`const words = window.__portholePerf.agentText("bench-").split(" ").filter(Boolean);
      let firstBad = -1;
      for (let i = 0; i < words.length; i++) if (words[i] !== String(i)) { firstBad = i; break; }
      return { words: words.length, firstBad };`);
    // Messages and tool calls in order: tool k (completed), then message k. Builds before
    // issue 16 have no outline hook.
    const messages = Math.ceil((rate * seconds) / per);
    const order = await app.exec(`const p = window.__portholePerf;
      if (!p.outline) return null;
      const got = p.outline().filter((s) => s.includes("bench-"));
      const want = [];
      for (let k = 0; k < arguments[0]; k++) {
        if (arguments[1]) want.push("tool:bench-tool-" + k + ":completed");
        want.push("msg:bench-" + k);
      }
      const firstBad = want.findIndex((w, i) => got[i] !== w);
      return { items: got.length, firstBad: got.length === want.length ? firstBad : Math.min(firstBad, got.length) };`, messages, tools);
    const ipc = (k) => after.ipc[k] - before.ipc[k];
    const sent = report.results[0];
    results.flood = {
      target: { rate, seconds, chunksPerMessage: per },
      agent: sent,
      wallSeconds: wall,
      transcript: { ...check, order, complete: check.words === rate * seconds && check.firstBad === -1 && (order?.firstBad ?? -1) === -1 },
      frames,
      cpuSeconds: cpu,
      ipc: {
        queuedEventsPerS: (ipc("queued") || 0) / wall,
        batches: ipc("batches"),
        events: ipc("events"),
        bytes: ipc("bytes"),
        batchesPerS: ipc("batches") / wall,
        eventsPerS: ipc("events") / wall,
        bytesPerS: ipc("bytes") / wall,
        largestBatchEvents: after.ipc.largestBatchEvents,
        largestBatchBytes: after.ipc.largestBatchBytes,
      },
    };
    const r = results.flood;
    console.log(`\n== Flood: ${rate}/s for ${seconds} s, ${per} chunks per message${tools ? ", a tool call before each" : ""} ==`);
    row("agent: sent / seconds / achieved rate", sent.sent, f1(sent.seconds), Math.round(sent.rate));
    row("prompt -> transcript complete (s)", f1(wall));
    row("transcript: words / first out of order", check.words, check.firstBad, r.transcript.complete ? "complete, in order" : "INCOMPLETE");
    row("messages + tool calls / first out of order", order ? order.items : "n/a", order ? order.firstBad : "", `(${messages} messages${tools ? ` + ${sent.toolCalls ?? "?"} tool calls` : ""})`);
    row("frames / >50 ms / median / p95 / max (ms)", `${frames.frames} / ${frames.over50}`, f1(frames.medianMs), f1(frames.p95Ms), f1(frames.maxMs));
    if (frames.long.length) row("  frames over 50 ms", longFrames(frames));
    row("IPC batches/s, events/s (queued events/s)", f1(r.ipc.batchesPerS), Math.round(r.ipc.eventsPerS), `(${Math.round(r.ipc.queuedEventsPerS)})`);
    row("CPU s: " + Object.entries(cpu).map(([k, v]) => `${k} ${f1(v)}`).join(", "));
    row("IPC MB/s, largest batch (events, KB)", f1(r.ipc.bytesPerS / 1e6), r.ipc.largestBatchEvents, f1(r.ipc.largestBatchBytes / 1024));
  });
}

// ----- part 2: scrolling a long transcript -----

async function scroll() {
  const n = Number(env("BENCH_SCROLL_MESSAGES", 100000));
  await withTestAgent(async (app) => {
    await interactive(app);
    const t0 = Date.now();
    await app.prompt(`messages ${n}`);
    await turnDone(app, "messages", 900000);
    const loadS = (Date.now() - t0) / 1000;
    const items = await app.exec("return window.__portholePerf.itemCount()");
    // What the history costs once loaded: elements in the DOM, and the web process's memory.
    await sleep(3000);
    const domElements = await app.exec("return document.getElementsByTagName('*').length");
    const loaded = memory(findApp(binary));
    const webLoaded = loaded.children.find((c) => c.name.startsWith("WebKitWebProces"));
    const css = await app.exec(`const e = document.querySelector("main.transcript > *");
      return e ? String(getComputedStyle(e).contentVisibility ?? "unsupported") : "";`);
    await sleep(1000);
    // Top to bottom, one step per frame.
    await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = 0;`);
    await sleep(1000);
    await startFrames(app);
    const t1 = Date.now();
    // 1,000 steps of equal size, one per frame, whatever the height (a page a frame would take minutes).
    await app.d.manage().setTimeouts({ script: 600000 });
    const scrollAll = (down) => app.d.executeAsyncScript(`const done = arguments[arguments.length - 1];
      const down = arguments[0];
      const s = document.querySelector("main.transcript");
      const stride = Math.max(s.clientHeight * 0.9, s.scrollHeight / 1000);
      const step = () => {
        if (down ? s.scrollTop + s.clientHeight >= s.scrollHeight - 1 : s.scrollTop <= 0) return done(true);
        s.scrollTop += down ? stride : -stride;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);`, down);
    await scrollAll(true);
    const scrollS = (Date.now() - t1) / 1000;
    const frames = await stopFrames(app);
    // Every row has now been shown once: what that leaves behind.
    const settle = Number(env("BENCH_SETTLE_MS", 3000));
    const webNow = () => memory(findApp(binary)).children.find((c) => c.name.startsWith("WebKitWebProces"));
    await sleep(settle);
    const scrolled = webNow();
    // And back to the top: every row shown twice.
    await scrollAll(false);
    await sleep(settle);
    const back = webNow();
    const domAfterBack = await app.exec("return document.getElementsByTagName('*').length");
    // Later samples with nothing happening: memory that falls by then was garbage not yet
    // collected (or freed but not yet returned), not memory the window holds.
    const later = [];
    let waited = settle / 1000;
    for (const s of env("BENCH_SCROLL_LATER_S", "30").split(",").map(Number).filter((x) => x > waited)) {
      await sleep((s - waited) * 1000);
      waited = s;
      const m = webNow();
      later.push({ afterS: s, rssMB: m?.rssMB, anonMB: m?.anonMB });
    }
    results.scroll = { messages: n, items, contentVisibility: css, loadSeconds: loadS, scrollSeconds: scrollS, frames, domElements, webRssMB: webLoaded?.rssMB, webRssAfterScrollMB: scrolled?.rssMB, webRssAfterBackMB: back?.rssMB, webPssAfterBackMB: back?.pssMB, webAnonAfterBackMB: back?.anonMB, domAfterBack, later, loaded };
    console.log(`\n== Scroll: ${n}-message transcript (${items} items), top to bottom in 1,000 steps, one per frame ==`);
    row("load (prompt -> last message shown) s", f1(loadS), `content-visibility: ${css}`);
    row("loaded: DOM elements / web process RSS / anon MB", domElements, f1(webLoaded?.rssMB), f1(webLoaded?.anonMB));
    row("scroll duration s", f1(scrollS));
    row("web process RSS MB after every row was shown", f1(scrolled?.rssMB));
    row("  and after scrolling back to the top (RSS/PSS/anon)", f1(back?.rssMB), f1(back?.pssMB), f1(back?.anonMB));
    row("  DOM elements then", domAfterBack);
    for (const l of later) row(`  the same ${l.afterS} s after the scroll (RSS/anon)`, f1(l.rssMB), f1(l.anonMB));
    row("frames / >50 ms / median / p95 / max (ms)", `${frames.frames} / ${frames.over50}`, f1(frames.medianMs), f1(frames.p95Ms), f1(frames.maxMs));
    row("own code per frame median / p95 / max (ms)", f1(frames.ownCode.median), f1(frames.ownCode.p95), f1(frames.ownCode.max));
    if (frames.long.length) row("  frames over 50 ms", longFrames(frames));
  });
}

// ----- part 3: elicitation latency -----

async function elicit() {
  const n = Number(env("BENCH_ELICIT", 100));
  await withTestAgent(async (app) => {
    await interactive(app);
    await app.exec(`window.__benchClicks = [];
      document.addEventListener("click", (e) => {
        const dlg = e.target.closest?.("[role=dialog]");
        if (dlg) window.__benchClicks.push({ at: performance.timeOrigin + performance.now(),
          label: e.target.textContent.trim(), dialog: dlg.getAttribute("aria-labelledby") });
      }, true);`);
    await app.prompt(`elicit ${n}`);
    for (let i = 0; i < n; i++) {
      await app.waitText("[role=dialog]", `Benchmark request ${i}`);
      await app.click("Submit…");
      await app.waitText("[role=dialog]", "exactly what will be sent");
      await app.click("Send");
    }
    await turnDone(app, "elicit", 60000);
    const stats = await perfStats(app);
    const clicks = await app.exec("return window.__benchClicks");
    const sends = new Map(clicks.filter((c) => c.label === "Send").map((c) => [Number(c.dialog.split("-")[1]), c.at]));
    const d = stats.dialogs.slice(-n);
    const a = stats.answers.slice(-n);
    const readToShown = d.map((x) => (x.readToDeliveredMs ?? NaN) + x.deliveredToShownMs);
    results.elicit = {
      n,
      readToDeliveredMs: summary(d.map((x) => x.readToDeliveredMs ?? NaN)),
      deliveredToShownMs: summary(d.map((x) => x.deliveredToShownMs)),
      readToShownMs: summary(readToShown),
      commandToWrittenMs: summary(a.map((x) => x.commandToWrittenMs)),
      clickToWrittenMs: summary(a.filter((x) => sends.has(x.dialogId)).map((x) => x.writtenAtEpochMs - sends.get(x.dialogId))),
    };
    const e = results.elicit;
    console.log(`\n== Elicitation latency, ${n} form requests, one at a time ==`);
    row("", "median ms", "p95 ms", "max ms", "n");
    const line = (label, s) => row(label, f1(s.median), f1(s.p95), f1(s.max), s.n);
    line("line read -> core delivers event", e.readToDeliveredMs);
    line("core delivers -> UI ack (dialog shown)", e.deliveredToShownMs);
    line("line read -> dialog interactive", e.readToShownMs);
    line("answer command -> response line written", e.commandToWrittenMs);
    line("Send click -> response line written", e.clickToWrittenMs);
  });
}

/** Gives the window the X input focus and focuses the prompt box (the caret blinks). Without a
 *  window manager the window is not active and WebKit would not blink the caret. */
async function focusPrompt(app, pid) {
  const windows = spawnSync("xdotool", ["search", "--pid", String(pid)], { encoding: "utf8" }).stdout.split(/\s+/).filter(Boolean);
  for (const w of windows) spawnSync("xdotool", ["windowfocus", w], { timeout: 5000 });
  await app.exec(`document.querySelector("#prompt-input")?.focus()`);
  return app.exec("return document.hasFocus() && document.activeElement?.id === 'prompt-input'");
}

const pct = (o) => Object.entries(o).map(([k, v]) => `${k} ${v.toFixed(2)}%`).join(", ");

// ----- issue 34: idle with one agent (the demo agent): memory and CPU -----

async function idle() {
  const idleS = Number(env("BENCH_IDLE_SECONDS", 20));
  await withApp({}, async (app) => {
    await interactive(app);
    const pid = findApp(binary);
    const focused = await focusPrompt(app, pid);
    // Start-up's work (the warm-up, the first layout) is over well before this.
    await sleep(5000);
    const cpu = { caret: await idleCpu(pid, idleS) };
    if (process.env.BENCH_IDLE_DIAG) {
      await app.exec(`document.activeElement?.blur()`);
      cpu.noCaret = await idleCpu(pid, idleS);
    }
    const mem = memory(pid);
    // Hidden (unmapped: what minimising does without a window manager), prompt still focused.
    const hidden = await whileHidden(pid, async () => ({
      visibility: await app.exec("return document.visibilityState"),
      cpu: await idleCpu(pid, idleS),
    }));
    cpu.hidden = hidden.cpu;
    results.idle = { seconds: idleS, promptFocused: focused, cpuPercent: cpu, hiddenVisibility: hidden.visibility, memory: mem };
    printMemory("idle, demo agent connected, prompt focused", mem);
    console.log(`\nIdle CPU over ${idleS} s, % of one core (prompt box focused in an active window: ${focused}):`);
    for (const [k, v] of Object.entries(cpu)) console.log(`  ${k.padEnd(20)} ${pct(v)}`);
    console.log(`  (hidden: the window unmapped, as minimising does; the page saw "${hidden.visibility}")`);
  });
}

/** Runs `fn` with the app's windows unmapped (xdotool: without a window manager, unmapping is
 *  what minimising does to a window), then maps them again. */
async function whileHidden(pid, fn) {
  const windows = spawnSync("xdotool", ["search", "--pid", String(pid)], { encoding: "utf8" }).stdout.split(/\s+/).filter(Boolean);
  for (const w of windows) spawnSync("xdotool", ["windowunmap", w], { timeout: 5000 });
  await sleep(2000);
  try {
    return await fn();
  } finally {
    for (const w of windows) spawnSync("xdotool", ["windowmap", w], { timeout: 5000 });
  }
}

// ----- issue 16: one message of 1,000,000 chunks -----

/** CPU used by the main and web processes over `seconds` of doing nothing, in % of one core. */
async function idleCpu(pid, seconds) {
  const c0 = cpuSeconds(pid);
  const t0 = Date.now();
  await sleep(seconds * 1000);
  const c1 = cpuSeconds(pid);
  const wall = (Date.now() - t0) / 1000;
  return Object.fromEntries(Object.entries(c1).map(([k, v]) => [k, (100 * (v - (c0[k] ?? 0))) / wall]));
}

async function longMessage() {
  const n = Number(env("BENCH_LONG_CHUNKS", 1000000));
  // "plain": one huge paragraph instead of markdown with many blocks.
  const plain = env("BENCH_LONG_PLAIN", "") !== "";
  const idleS = Number(env("BENCH_IDLE_SECONDS", 20));
  await withTestAgent(async (app) => {
    await interactive(app);
    await sleep(2000);
    const pid = findApp(binary);
    const web = () => descendants(pid).find((p) => p.comm.startsWith("WebKitWebProces"))?.pid;
    const before = memory(pid);
    // What start-up alone took (VmHWM counts it too), to tell it apart from the message's share.
    const webStartPeakMB = web() ? peakRssMB(web()) : NaN;
    // The page notes the first frame whose DOM shows the message's last word.
    const last = `n${n - 1} lorem ipsum`;
    await app.exec(`const want = arguments[0];
      window.__benchCaughtUp = null;
      const check = () => {
        for (const md of document.querySelectorAll("main.transcript .markdown")) {
          // The end of the last text node only: reading a whole 20 MB paragraph per frame would
          // cost more than what is measured.
          const node = md.lastElementChild?.lastChild;
          if ((node?.nodeValue ?? node?.textContent ?? "").slice(-200).includes(want)) {
            window.__benchCaughtUp = Date.now();
            return;
          }
        }
        requestAnimationFrame(check);
      };
      requestAnimationFrame(check);`, last);
    const cpu0 = cpuSeconds(pid);
    await startFrames(app);
    const t0 = Date.now();
    await app.prompt(`long-message ${n}${plain ? " plain" : ""}`);
    await turnDone(app, "long-message", 900000);
    const reportAt = Date.now();
    const caughtUpAt = await waitFor("the last word on screen", () => app.exec("return window.__benchCaughtUp"), 900000, 100);
    const cpu1 = cpuSeconds(pid);
    // The peak before the check below, which builds the whole 20 MB text once more in the page.
    const webPeakMB = web() ? peakRssMB(web()) : NaN;
    const frames = await stopFrames(app);
    // Idle: the caret blinking in the prompt box, nothing streaming, the view at the bottom.
    // Measured before the bench's own check of the text below, which builds the 20 MB text
    // once more in the page: its garbage would be collected during the idle seconds. The
    // second window shows whether the first still held the message's own aftermath.
    await sleep(3000);
    const pageFocused = await focusPrompt(app, pid);
    const idle = { caret: await idleCpu(pid, idleS), caretNext: await idleCpu(pid, idleS) };
    if (process.env.BENCH_IDLE_DIAG) {
      await app.exec(`document.activeElement?.blur()`);
      idle.noCaret = await idleCpu(pid, idleS);
      await app.exec(`document.querySelector("main.transcript").style.display = "none";
        document.querySelector("#prompt-input")?.focus()`);
      idle.caretNoTranscript = await idleCpu(pid, idleS);
      await app.exec(`document.querySelector("main.transcript").style.display = ""`);
    }
    const report = JSON.parse(await app.exec("return window.__portholePerf.lastText()")).results[0];
    const check = await app.exec(`const text = window.__portholePerf.agentText("long-1");
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ (text.charCodeAt(i) & 0xff), 16777619) >>> 0;
      return { chars: text.length, fnv1a: h };`);
    const after = memory(pid);
    const webPid = web();
    results.long = {
      chunks: n,
      plain,
      agent: report,
      transcript: { ...check, complete: check.chars === report.bytes && check.fnv1a === report.fnv1a },
      promptToReportS: (reportAt - t0) / 1000,
      promptToCaughtUpS: (caughtUpAt - t0) / 1000,
      frames,
      cpuSeconds: Object.fromEntries(Object.entries(cpu1).map(([k, v]) => [k, v - (cpu0[k] ?? 0)])),
      webStartPeakRssMB: webStartPeakMB,
      webPeakRssMB: webPeakMB,
      webPeakWithCheckRssMB: webPid ? peakRssMB(webPid) : NaN,
      idleCpuPercent: idle,
      idleSeconds: idleS,
      idleCaretFocused: pageFocused,
      memoryBefore: before,
      memoryAfter: after,
    };
    const r = results.long;
    console.log(`\n== One message of ${n} chunks (${(report.bytes / 1e6).toFixed(1)} MB of ${plain ? "one paragraph" : "markdown"}) ==`);
    row("agent: wrote all chunks in (s)", f1(report.seconds));
    row("prompt -> report in the store (s)", f1(r.promptToReportS));
    row("prompt -> last word on screen (s)", f1(r.promptToCaughtUpS));
    row("transcript: chars / FNV-1a", check.chars, check.fnv1a, r.transcript.complete ? "complete, equal" : "DIFFERENT");
    row("frames / >50 ms / median / p95 / max (ms)", `${frames.frames} / ${frames.over50}`, f1(frames.medianMs), f1(frames.p95Ms), f1(frames.maxMs));
    if (frames.long.length) row("  frames over 50 ms", longFrames(frames));
    row("CPU s: " + Object.entries(r.cpuSeconds).map(([k, v]) => `${k} ${f1(v)}`).join(", "));
    row("web process peak RSS MB (VmHWM)", f1(r.webPeakRssMB), `${f1(r.webPeakWithCheckRssMB)} after the bench's own text check`);
    row("  of which start-up (VmHWM before the prompt)", f1(r.webStartPeakRssMB));
    row("main process peak RSS MB (VmHWM)", f1(peakRssMB(pid)));
    printMemory("after it, idle", after);
    console.log(`\nIdle CPU over ${idleS} s, % of one core (prompt box focused in an active window: ${pageFocused}):`);
    for (const [k, v] of Object.entries(idle)) console.log(`  ${k.padEnd(20)} ${pct(v)}`);
  });
}

// ----- issue 16: the sealed view, spawn to first paint -----

/** The sealed URL view of the same binary: bench/sealed_view.py times spawning `porthole
 *  sealed-view` (what the Open click does) to the page's first paint, on its own Xvfb display. */
async function sealed() {
  const runs = env("BENCH_SEALED_RUNS", "20");
  console.log(`\n== Sealed view: spawn to first paint, ${runs} runs ==`);
  const out = spawnSync("python3", [join(import.meta.dirname, "../../bench/sealed_view.py"), "--porthole", binary, "--runs", runs], {
    encoding: "utf8",
    timeout: 600000,
  });
  if (out.status !== 0) throw new Error(`sealed_view.py failed: ${out.stderr || out.error}`);
  const summaryLines = out.stdout.trim().split("\n").filter((l) => !l.startsWith("run "));
  for (const l of summaryLines) if (l) console.log(l);
  const samples = [...out.stdout.matchAll(/^run +\d+: +([\d.]+) ms/gm)].map((m) => Number(m[1]));
  results.sealed = { firstPaintMs: summary(samples) };
}

// ----- issue 42: many MCP Apps in one transcript (the official basic-vanillajs example) -----

async function apps() {
  const n = Number(env("BENCH_APPS", 50));
  const example = await startExample("server-basic-vanillajs");
  const file = join(tempDir("porthole-bench-apps-"), "connections.json");
  writeFileSync(file, JSON.stringify({ connections: { basic: { url: example.url } } }));
  try {
    await withApp({ env: { PORTHOLE_CONNECTIONS_FILE: file, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/porthole-bench-bus" } }, async (app) => {
      await interactive(app);
      await sleep(2000);
      const web = () => memory(findApp(binary)).children.find((c) => c.name.startsWith("WebKitWebProces"));
      const before = web();
      const t0 = Date.now();
      for (let i = 0; i < n; i++) {
        await app.prompt("/tools basic get-time {}");
        await waitFor(`app ${i + 1}`, async () => (await app.exec("return document.querySelectorAll('section.mcp-app').length")) > 0 &&
          (await app.exec("return window.__portholePerf.lastText(200)")).includes("basic answered"), 60000, 100);
        // The turn's end, so the next prompt is taken.
        await waitFor(`turn ${i + 1} to end`, async () => (await app.count("form.prompt .btn.danger")) === 0, 60000, 100);
      }
      const loadS = (Date.now() - t0) / 1000;
      await sleep(3000);
      const loaded = web();
      const framesShown = await app.exec("return document.querySelectorAll('section.mcp-app iframe').length");
      // Top to bottom and back: every app is shown (and loaded) once on the way.
      const scrollAll = (down) => app.d.executeAsyncScript(`const done = arguments[arguments.length - 1];
        const down = arguments[0];
        const s = document.querySelector("main.transcript");
        const step = () => {
          if (down ? s.scrollTop + s.clientHeight >= s.scrollHeight - 1 : s.scrollTop <= 0) return done(true);
          s.scrollTop += down ? s.clientHeight * 0.5 : -s.clientHeight * 0.5;
          setTimeout(step, 250);
        };
        step();`, down);
      await app.d.manage().setTimeouts({ script: 600000 });
      await scrollAll(false);
      await scrollAll(true);
      await sleep(3000);
      const scrolled = web();
      const peak = peakRssMB(scrolled?.pid);
      results.apps = { apps: n, loadSeconds: loadS, framesShown, webRssBeforeMB: before?.rssMB, webRssLoadedMB: loaded?.rssMB, webRssAfterScrollMB: scrolled?.rssMB, webPeakRssMB: peak };
      console.log(`\n== MCP Apps: ${n} apps of the official basic-vanillajs example in one transcript ==`);
      row("prompts -> last app shown s", f1(loadS));
      row("frames in the DOM at the end (virtual list)", framesShown);
      row("web process RSS MB: before / loaded / scrolled", f1(before?.rssMB), f1(loaded?.rssMB), f1(scrolled?.rssMB));
      row("web process peak RSS (VmHWM) MB", f1(peak));
    });
  } finally {
    example.kill();
  }
}

// ----- issue 34: every figure against its target -----

/** One line per target of issue 34 that this run measured: the figure, the target, met or not.
 *  Figures only: nothing here fails the run. */
function printTargets() {
  const lines = [];
  const add = (what, value, target, unit) => {
    const shown = unit === "% CPU" ? value?.toFixed(2) : f1(value);
    lines.push([what, Number.isFinite(value) ? `${shown} ${unit}` : "-", `< ${target} ${unit}`, !Number.isFinite(value) ? "" : value < target ? "met" : "NOT MET"]);
  };
  const idleMem = results.idle?.memory ?? results.idleDemo;
  if (idleMem) add("idle, one agent: all processes PSS", idleMem.totalPssMB, 200, "MB");
  const perProcess = (label, cpu) => {
    for (const [k, v] of Object.entries(cpu ?? {})) add(`${label}: ${k}`, v, 0.5, "% CPU");
  };
  if (results.idle?.cpuPercent) perProcess("idle CPU, prompt focused", results.idle.cpuPercent.caret);
  if (results.idle?.cpuPercent?.hidden) perProcess("idle CPU, window hidden", results.idle.cpuPercent.hidden);
  if (results.long?.idleCpuPercent) {
    const s = results.long.idleSeconds;
    perProcess(`idle CPU after the 1M message, first ${s} s`, results.long.idleCpuPercent.caret);
    perProcess(`idle CPU after the 1M message, next ${s} s`, results.long.idleCpuPercent.caretNext);
  }
  if (results.scroll?.webRssAfterBackMB !== undefined) add("100,000 messages scrolled down and back: web RSS", results.scroll.webRssAfterBackMB, 300, "MB");
  if (results.long?.webPeakRssMB !== undefined) {
    add("1M-chunk message: web peak (VmHWM)", results.long.webPeakRssMB, 350, "MB");
    add("1M-chunk message: prompt -> caught up", results.long.promptToCaughtUpS, 5, "s");
  }
  if (results.apps?.webPeakRssMB !== undefined) add(`${results.apps.apps} MCP Apps in one transcript: web peak (VmHWM)`, results.apps.webPeakRssMB, 350, "MB");
  if (!lines.length) return;
  console.log("\n== Issue 34 targets (load average now: " + loadavg().map((l) => l.toFixed(2)).join(" ") + "; the machine may be shared) ==");
  const line = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 56 : 14)).join(""));
  line(["figure", "measured", "target", ""]);
  for (const l of lines) line(l);
  results.targets = lines.map(([what, value, target, met]) => ({ what, value, target, met }));
}

const parts = { startup, idle, memory: sessionMemory, flood, scroll, elicit, long: longMessage, sealed, apps };
for (const [name, fn] of Object.entries(parts)) {
  if (!runs(name)) continue;
  try {
    await fn();
  } catch (e) {
    console.log(`\n== ${name}: FAILED: ${e?.stack ?? e}`);
    results[name] = { error: String(e) };
  }
}
printTargets();
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
process.exit(0);
