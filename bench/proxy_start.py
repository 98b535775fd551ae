#!/usr/bin/env python3
"""Issue 41, item 3: how long `porthole-proxy` takes to start, for comparing two builds of it
(before and after a change) in one run on one load: N runs of each, interleaved.

  python3 bench/proxy_start.py N PROXY [PROXY...]

  help:  `PROXY --help` until it exits (exec, dynamic linking, static init, usage).
  relay: `PROXY -- /bin/cat` with no app socket: from spawn until the editor reads back its
         first line (the editor's initialize, relayed to cat and cat's echo relayed back),
         then the editor closes stdin and waits for the proxy to exit (not timed).
Prints median / p10 / p90 in ms, and the max RSS of the children."""
import os, resource, statistics, subprocess, sys, tempfile, time

def run_help(binary):
    t = time.perf_counter()
    subprocess.run([binary, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n'

def run_relay(binary, env):
    t = time.perf_counter()
    p = subprocess.Popen([binary, "--", "/bin/cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    p.stdin.write(INIT); p.stdin.flush()
    line = p.stdout.readline()
    took = time.perf_counter() - t
    assert line.startswith(b'{"jsonrpc"'), line
    p.stdin.close(); p.stdout.read(); p.wait()
    return took

def main():
    n = int(sys.argv[1]); bins = sys.argv[2:]
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, XDG_RUNTIME_DIR=tmp, PORTHOLE_APP="/nonexistent", DISPLAY="", WAYLAND_DISPLAY="",
               XDG_CONFIG_HOME=tmp)
    res = {b: {"help": [], "relay": []} for b in bins}
    for b in bins:  # warm the page cache
        for _ in range(5): run_help(b); run_relay(b, env)
    for _ in range(n):
        for b in bins:
            res[b]["help"].append(run_help(b))
            res[b]["relay"].append(run_relay(b, env))
    for b in bins:
        for k, v in res[b].items():
            v = sorted(x * 1000 for x in v)
            q = statistics.quantiles(v, n=10)
            print(f"{b} {k}: median {statistics.median(v):.2f} ms, p10 {q[0]:.2f}, p90 {q[-1]:.2f} (n={len(v)})")
    print(f"children max RSS: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} KiB (largest of all)")

main()
