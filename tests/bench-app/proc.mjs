// Process figures from /proc: the app's main process, its descendants, their memory.
import { readdirSync, readFileSync, realpathSync } from "node:fs";

function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = s.lastIndexOf(")");
    const fields = s.slice(close + 2).split(" ");
    return { pid, comm: s.slice(s.indexOf("(") + 1, close), state: fields[0], ppid: Number(fields[1]) };
  } catch {
    return null;
  }
}

function allProcs() {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map((n) => stat(Number(n)))
    .filter((p) => p && p.state !== "Z");
}

function exe(pid) {
  try {
    return realpathSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** The app's main process: runs `binary` and is not one of its helper modes. */
export function findApp(binary) {
  const want = realpathSync(binary);
  const procs = allProcs().filter((p) => exe(p.pid) === want);
  const helpers = new Set(["demo-agent", "sealed-view"]);
  return procs.find((p) => !helpers.has(cmdline(p.pid)[1]))?.pid ?? null;
}

export function descendants(root) {
  const procs = allProcs();
  const out = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift();
    for (const p of procs) {
      if (p.ppid === parent) {
        out.push(p);
        queue.push(p.pid);
      }
    }
  }
  return out;
}

function kb(pid, file, key) {
  try {
    const m = readFileSync(`/proc/${pid}/${file}`, "utf8").match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** RSS (and PSS, which splits shared pages fairly) of the main process and of every descendant, in MB. */
export function memory(root) {
  const one = (pid, comm) => ({
    pid,
    name: comm,
    rssMB: kb(pid, "status", "VmRSS") / 1024,
    pssMB: kb(pid, "smaps_rollup", "Pss") / 1024,
    anonMB: kb(pid, "status", "RssAnon") / 1024,
    fileMB: kb(pid, "status", "RssFile") / 1024,
  });
  const main = one(root, stat(root)?.comm ?? "?");
  const children = descendants(root).map((p) => one(p.pid, p.comm === "porthole" ? `porthole ${cmdline(p.pid)[1] ?? ""}`.trim() : p.comm));
  const sum = (k) => [main, ...children].reduce((a, p) => a + p[k], 0);
  return { main, children, totalRssMB: sum("rssMB"), totalPssMB: sum("pssMB") };
}

/** CPU seconds (user + system) used so far by the main process and each descendant, by name. */
export function cpuSeconds(root) {
  const ticks = 100; // USER_HZ on Linux
  const one = (pid) => {
    try {
      const s = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      return (Number(f[11]) + Number(f[12])) / ticks;
    } catch {
      return 0;
    }
  };
  const out = { main: one(root) };
  for (const p of descendants(root)) {
    const name = p.comm === "porthole" ? `porthole ${cmdline(p.pid)[1] ?? ""}`.trim() : p.comm;
    out[name] = (out[name] ?? 0) + one(p.pid);
  }
  return out;
}

/** Peak RSS of a process since it started (VmHWM), in MB. */
export function peakRssMB(pid) {
  return kb(pid, "status", "VmHWM") / 1024;
}
