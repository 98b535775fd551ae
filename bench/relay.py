#!/usr/bin/env python3
"""Issue 22: what `porthole proxy` costs an editor, beside a direct connection in the same run.

Throughput: the flood agent's N `session/update` lines counted by an editor (the raw Rust SDK
consumer, which parses every line), once straight from the agent and once through the proxy
(editor <- proxy <- agent), in alternating rounds. Latency: K sequential request round trips
(`_bench/ping`, which the flood agent answers at once with an error) timed by this script,
direct and through the proxy; the difference is what the relay adds. No app runs (the proxy
answers elicitations for an editor that has none, so it also looks for one now and then).
Figures only; run through scripts/bench-relay, which builds everything in release first.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def run_consumer(consumer, agent, n, timeout):
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, FLOOD_STATS_FILE=stats.name)
        out = subprocess.run([consumer, agent, str(n)], env=env, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError(f"consumer failed ({out.returncode}): {out.stderr[-2000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def round_trips(command, k):
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out = p.stdout

    def ask(i, method, params=None):
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        p.stdin.write((json.dumps(msg) + "\n").encode())
        while True:
            line = out.readline()
            if not line:
                raise RuntimeError("the agent closed its output")
            reply = json.loads(line)
            if reply.get("id") == i and "method" not in reply:
                return reply

    ask(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    times = []
    for i in range(1, k + 1):
        start = time.perf_counter()
        ask(i, "_bench/ping")
        times.append(time.perf_counter() - start)
    p.stdin.close()
    p.wait(timeout=30)
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1e3
    return {"p50_ms": pick(0.50), "p99_ms": pick(0.99), "mean_ms": statistics.mean(times) * 1e3}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("-n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pings", type=int, default=5000)
    ap.add_argument("--json-out")
    args = ap.parse_args()
    flood = os.path.join(args.bin_dir, "flood-agent")
    proxy = os.path.join(args.bin_dir, "porthole-proxy")
    consumer = os.path.join(args.bin_dir, "raw-sdk-consumer")
    work = tempfile.mkdtemp(prefix="porthole-bench-relay-")
    # No app: an empty companion directory of our own.
    os.environ["PORTHOLE_COMPANION_DIR"] = os.path.join(work, "run")
    os.environ.pop("DISPLAY", None)
    os.environ.pop("WAYLAND_DISPLAY", None)
    proxied = os.path.join(work, "proxied-flood-agent")
    with open(proxied, "w") as f:
        f.write(f'#!/bin/sh\nexec "{proxy}" -- "{flood}" "$@"\n')
    os.chmod(proxied, 0o755)

    rates = {"direct": [], "proxied": []}
    for r in range(args.rounds):
        for mode, agent in (("direct", flood), ("proxied", proxied)):
            report = run_consumer(consumer, agent, args.n, timeout=600)
            if report.get("count") != args.n or not report.get("in_order", True):
                raise RuntimeError(f"{mode}: counted {report.get('count')} of {args.n} (in order: {report.get('in_order')})")
            rates[mode].append(report["updates_per_s"])
            print(f"round {r + 1} {mode:8} {report['updates_per_s']:>12,.0f} updates/s")
    direct = statistics.median(rates["direct"])
    via = statistics.median(rates["proxied"])
    print(f"\nN = {args.n:,} session/update lines, {args.rounds} alternating rounds, medians")
    print(f"direct   {direct:>12,.0f} updates/s")
    print(f"proxied  {via:>12,.0f} updates/s  (proxied / direct = {via / direct:.2f}; target at least 0.90)")

    # The relay alone, with an editor that only counts lines (`cat`): the proxy's own ceiling.
    ceilings = {"direct": [], "proxied": []}
    for _ in range(args.rounds):
        for mode, command in (("direct", [flood, "--raw", str(args.n)]), ("proxied", [proxy, "--", flood, "--raw", str(args.n)])):
            start = time.perf_counter()
            # stdin stays open: an editor whose input ends makes the proxy stop its agent.
            source = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.PIPE)
            sink = subprocess.run(["wc", "-l"], stdin=source.stdout, capture_output=True, text=True)
            source.stdout.close()
            source.stdin.close()
            source.wait()
            elapsed = time.perf_counter() - start
            if int(sink.stdout.split()[0]) != args.n:
                raise RuntimeError(f"{mode}: {sink.stdout.strip()} lines, not {args.n}")
            ceilings[mode].append(args.n / elapsed)
    cd, cp = statistics.median(ceilings["direct"]), statistics.median(ceilings["proxied"])
    print(f"\nan editor that only counts lines (wc -l), {args.rounds} rounds, medians")
    print(f"direct   {cd:>12,.0f} lines/s")
    print(f"proxied  {cp:>12,.0f} lines/s  (proxied / direct = {cp / cd:.2f})")

    rtt = {}
    for mode, command in (("direct", [flood, "0"]), ("proxied", [proxy, "--", flood, "0"])):
        rtt[mode] = round_trips(command, args.pings)
    print(f"\n{args.pings:,} request round trips (sequential)")
    for mode in ("direct", "proxied"):
        print(f"{mode:8} p50 {rtt[mode]['p50_ms']:.3f} ms  p99 {rtt[mode]['p99_ms']:.3f} ms")
    added50 = rtt["proxied"]["p50_ms"] - rtt["direct"]["p50_ms"]
    added99 = rtt["proxied"]["p99_ms"] - rtt["direct"]["p99_ms"]
    print(f"added    p50 {added50:.3f} ms  p99 {added99:.3f} ms  (target under 1 ms at p99)")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"n": args.n, "rates": rates, "ceilings": ceilings, "rtt": rtt}, f, indent=2)


if __name__ == "__main__":
    main()
