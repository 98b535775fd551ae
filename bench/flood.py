#!/usr/bin/env python3
"""Issue 8 part 1: the flood agent's N updates counted by each consumer, in alternating rounds.

Every consumer prints one JSON line about itself (count, order check, flood seconds, CPU
seconds from getrusage/resourceUsage, peak RSS from VmHWM); the flood agent writes how long
it spent blocked in write(2). This script runs them, checks the counts, and reports medians
and ratios. Run through scripts/bench, which builds everything first.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def consumers(bin_dir):
    return {
        "core": [os.path.join(bin_dir, "core-consumer")],
        "raw-sdk": [os.path.join(bin_dir, "raw-sdk-consumer")],
        "ts-sdk": ["node", os.path.join(ROOT, "bench", "ts", "consumer.mjs")],
        # porthole-cli --json (run by cli-consumer, which reads its lines from a pipe): the
        # figures are the CLI's own.
        "cli-json": [os.path.join(bin_dir, "cli-consumer"), os.path.join(bin_dir, "porthole-cli")],
    }


def run_consumer(cmd, agent, n, timeout):
    with tempfile.NamedTemporaryFile(suffix=".json") as stats:
        env = dict(os.environ, FLOOD_STATS_FILE=stats.name)
        out = subprocess.run(cmd + [agent, str(n)], env=env, capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError(f"{cmd[-1]} failed ({out.returncode}): {out.stderr[-2000:]}")
        report = json.loads(out.stdout.strip().splitlines()[-1])
        report["agent"] = json.loads(open(stats.name).read() or "{}")
    return report


def pipe_ceiling(agent, n):
    """The flood alone through a pipe into `cat`: what no client can beat."""
    start = time.perf_counter()
    flood = subprocess.Popen([agent, "--raw", str(n)], stdout=subprocess.PIPE)
    sink = subprocess.Popen(["cat"], stdin=flood.stdout, stdout=subprocess.DEVNULL)
    flood.stdout.close()
    sink.wait()
    flood.wait()
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("-n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="core,raw-sdk,ts-sdk,cli-json")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json-out")
    ap.add_argument("--compare", action="append", default=[], metavar="LABEL=DIR",
                    help="also run core and cli-json of another build (binaries copied from the commit "
                         "before a change, say) in the same rounds, as core@LABEL and cli-json@LABEL")
    args = ap.parse_args()
    agent = os.path.join(args.bin_dir, "flood-agent")
    table = {k: v for k, v in consumers(args.bin_dir).items() if k in args.only.split(",")}
    for spec in args.compare:
        label, other_dir = spec.split("=", 1)
        for name, cmd in consumers(other_dir).items():
            if name in ("core", "cli-json") and name in table:
                table[f"{name}@{label}"] = cmd
    names = list(table)

    ceilings = []
    results = {name: [] for name in names}
    ok = True
    for r in range(args.rounds):
        ceilings.append(pipe_ceiling(agent, args.n))
        # Rotate the order each round so no consumer always runs first or last.
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            rep = run_consumer(table[name], agent, args.n, args.timeout)
            results[name].append(rep)
            good = rep["count"] == args.n and rep["in_order"]
            ok &= good
            blocked = rep["agent"].get("blocked_in_write_s", 0)
            print(
                f"round {r + 1} {name:17} {rep['updates_per_s']:>12,.0f} updates/s  "
                f"cpu {rep['cpu_user_s'] + rep['cpu_sys_s']:6.2f} s  hwm {rep['hwm_kb'] / 1024:7.1f} MB  "
                f"agent blocked {blocked:6.2f}/{rep['agent'].get('flood_s', 0):.2f} s"
                + ("" if good else f"  WRONG: count {rep['count']} in_order {rep['in_order']}"),
                flush=True,
            )

    med = statistics.median
    ceiling_s = med(ceilings)
    summary = {"n": args.n, "rounds": args.rounds, "pipe_ceiling_updates_per_s": args.n / ceiling_s, "consumers": {}}
    print(f"\nN = {args.n:,} updates, {args.rounds} alternating rounds, medians")
    print(f"pipe ceiling (flood-agent --raw | cat): {args.n / ceiling_s:,.0f} updates/s ({ceiling_s:.3f} s)")
    print(f"{'consumer':17} {'updates/s':>12} {'cpu s':>7} {'peak RSS MB':>12} {'RSS growth MB':>14} {'agent blocked':>14}")
    for name in names:
        runs = results[name]
        row = {
            "updates_per_s": med(r["updates_per_s"] for r in runs),
            "cpu_s": med(r["cpu_user_s"] + r["cpu_sys_s"] for r in runs),
            "cpu_user_s": med(r["cpu_user_s"] for r in runs),
            "cpu_sys_s": med(r["cpu_sys_s"] for r in runs),
            "hwm_mb": med(r["hwm_kb"] for r in runs) / 1024,
            "hwm_max_mb": max(r["hwm_kb"] for r in runs) / 1024,
            "rss_growth_mb": med(r["hwm_kb"] - r["rss_before_kb"] for r in runs) / 1024,
            "rss_growth_max_mb": max(r["hwm_kb"] - r["rss_before_kb"] for r in runs) / 1024,
            "agent_blocked_share": med(
                r["agent"]["blocked_in_write_s"] / r["agent"]["flood_s"] for r in runs if r["agent"].get("flood_s")
            ),
            "all_exact_and_ordered": all(r["count"] == args.n and r["in_order"] for r in runs),
            "runs": runs,
        }
        summary["consumers"][name] = row
        print(
            f"{name:17} {row['updates_per_s']:>12,.0f} {row['cpu_s']:>7.2f} {row['hwm_mb']:>12.1f} "
            f"{row['rss_growth_mb']:>14.1f} {row['agent_blocked_share']:>13.0%}"
        )
    c = summary["consumers"]
    if "core" in c:
        core = c["core"]
        print()
        for other in ("raw-sdk", "ts-sdk"):
            if other in c:
                print(f"core / {other}: {core['updates_per_s'] / c[other]['updates_per_s']:.2f}x updates/s, "
                      f"{core['cpu_s'] / c[other]['cpu_s']:.2f}x CPU s, {core['hwm_mb'] / c[other]['hwm_mb']:.2f}x peak RSS")
        print(f"core / pipe ceiling: {core['updates_per_s'] / summary['pipe_ceiling_updates_per_s']:.2f}")
        target = core["updates_per_s"] >= 1_000_000
        bounded = core["rss_growth_max_mb"] <= 64
        print(f"target >= 1,000,000 updates/s: {'met' if target else 'MISSED'} ({core['updates_per_s']:,.0f})")
        print(f"RSS growth <= 64 MB in every run: {'met' if bounded else 'MISSED'} (max {core['rss_growth_max_mb']:.1f} MB)")
        print(f"agent slowed by backpressure: blocked in write(2) for {core['agent_blocked_share']:.0%} of the flood "
              f"(alone it needs {ceiling_s:.2f} s; with core {med(r['agent']['flood_s'] for r in core['runs']):.2f} s)")
    if "raw-sdk" in c:
        for name in names:
            if name not in ("core", "raw-sdk", "ts-sdk"):
                print(f"{name} / raw-sdk: {c[name]['updates_per_s'] / c['raw-sdk']['updates_per_s']:.2f}x updates/s, "
                      f"{c[name]['cpu_s'] / c['raw-sdk']['cpu_s']:.2f}x CPU s")
    print("every run counted exactly N in order:", "yes" if ok else "NO")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(summary, f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
