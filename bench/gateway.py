#!/usr/bin/env python3
"""Issue 31: what Porthole's MCP gateway costs an agent, beside a direct connection in the same run.

Three processes, as in use: the MCP server (porthole-test-mcp --open --stream-tool, no sign-in),
the gateway (mcp-gateway host, Porthole's `porthole_connections::gateway` on tokio's multi-thread
runtime) and the agent's MCP client (mcp-gateway calls / stream, a fresh process each time).

Latency: K sequential `tools/call` round trips (echo, answered as an event stream) after a
warm-up, direct to the server and through the gateway, in alternating rounds; p50 and p99 over
all rounds. Streaming: one `tools/call` whose event stream carries N progress notifications,
direct and through the gateway in alternating rounds (more of them: each is short), into a
client that only finds each progress number and into one that parses every event as JSON;
events/s (medians), the loss in %, and the gateway's CPU time per stream.
Figures only, printed beside the issue's targets; every stream must deliver all N events in
order. Run through scripts/bench-gateway, which builds everything in release first.
"""
import argparse
import json
import os
import statistics
import subprocess


def start(command):
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    if not line.startswith("ready "):
        p.kill()
        raise RuntimeError(f"{command[0]} said {line!r}, not `ready URL`")
    return p, line.split(" ", 1)[1]


def run(command, timeout):
    out = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({out.returncode}): {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cpu_seconds(pid):
    """Time on a CPU of every thread of `pid`, in seconds (schedstat: nanoseconds)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def percentile(sorted_samples, q):
    return sorted_samples[min(len(sorted_samples) - 1, int(q * len(sorted_samples)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    # A stream of 100,000 events takes well under a second here: more rounds steady its median.
    ap.add_argument("--stream-rounds", type=int, default=15)
    # The app runs the gateway on tokio's multi-thread runtime; this compares one thread.
    ap.add_argument("--gateway-current-thread", action="store_true")
    ap.add_argument("--json-out")
    args = ap.parse_args()
    bench = os.path.join(args.bin_dir, "mcp-gateway")

    server, direct_url = start([os.path.join(args.bin_dir, "porthole-test-mcp"), "--open", "--stream-tool"])
    gateway, gateway_url = start([bench, "host", direct_url] + (["--current-thread"] if args.gateway_current_thread else []))
    print("gateway runtime: " + ("one thread" if args.gateway_current_thread else "tokio multi-thread (as in the app)"))
    urls = {"direct": direct_url, "gateway": gateway_url}
    try:
        samples = {"direct": [], "gateway": []}
        for r in range(args.rounds):
            # Alternate which goes first, so neither always runs on a warmer machine.
            for mode in (("direct", "gateway") if r % 2 == 0 else ("gateway", "direct")):
                got = run([bench, "calls", urls[mode], str(args.calls), str(args.warmup)], 600)
                samples[mode].extend(got["samples_us"])
        latency = {}
        for mode, s in samples.items():
            s = sorted(s)
            latency[mode] = {"p50_ms": percentile(s, 0.50) / 1000, "p99_ms": percentile(s, 0.99) / 1000}
        print(f"\n{args.calls:,} sequential tools/call round trips per round after {args.warmup} warm-up, "
              f"{args.rounds} alternating rounds ({len(samples['direct']):,} each, pooled)")
        for mode in ("direct", "gateway"):
            rounds = [sorted(samples[mode][r * args.calls:(r + 1) * args.calls]) for r in range(args.rounds)]
            each = ", ".join(f"{percentile(x, 0.99) / 1000:.2f}" for x in rounds)
            print(f"{mode:8} p50 {latency[mode]['p50_ms']:.3f} ms  p99 {latency[mode]['p99_ms']:.3f} ms"
                  f"  (p99 of each round: {each} ms)")
        added50 = latency["gateway"]["p50_ms"] - latency["direct"]["p50_ms"]
        added99 = latency["gateway"]["p99_ms"] - latency["direct"]["p99_ms"]
        print(f"added    p50 {added50:.3f} ms  p99 {added99:.3f} ms  (target: under 1 ms added at p99)")

        streams = {}
        for client, extra in (("counting", []), ("parsing", ["--parse"])):
            rates = {"direct": [], "gateway": []}
            gateway_cpu = []
            for r in range(args.stream_rounds):
                for mode in (("direct", "gateway") if r % 2 == 0 else ("gateway", "direct")):
                    before = cpu_seconds(gateway.pid)
                    got = run([bench, "stream", urls[mode], str(args.events)] + extra, 600)
                    if mode == "gateway":
                        gateway_cpu.append(cpu_seconds(gateway.pid) - before)
                    rates[mode].append({"events_per_s": got["events"] / got["seconds"], "chunks": got["chunks"],
                                        "mb_per_s": got["bytes"] / got["seconds"] / 1e6, "seconds": got["seconds"]})
            med = {m: statistics.median(x["events_per_s"] for x in v) for m, v in rates.items()}
            mb = {m: statistics.median(x["mb_per_s"] for x in v) for m, v in rates.items()}
            loss = (1 - med["gateway"] / med["direct"]) * 100
            size = rates["direct"][0]["mb_per_s"] * rates["direct"][0]["seconds"]
            what = ("a client that finds each event's progress number in its line" if client == "counting"
                    else "a client that parses every event as JSON, as an MCP client does")
            print(f"\none tools/call streaming {args.events:,} progress events ({size:.1f} MB) into {what}; "
                  f"{args.stream_rounds} alternating rounds, medians")
            for mode in ("direct", "gateway"):
                low = min(x["events_per_s"] for x in rates[mode])
                high = max(x["events_per_s"] for x in rates[mode])
                print(f"{mode:8} {med[mode]:>12,.0f} events/s  {mb[mode]:7.1f} MB/s  (rounds from {low:,.0f} to {high:,.0f})")
            print(f"lost     {loss:.1f} %  (target: under 10 % lost)")
            per = statistics.median(gateway_cpu)
            print(f"gateway CPU per stream: {per * 1000:.1f} ms (median; all its threads, from schedstat), "
                  f"{per / (args.events / med['gateway']) * 100:.0f} % of one core while it streams")
            streams[client] = {"rates": rates, "gateway_cpu_s": gateway_cpu, "loss_pct": loss}
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump({"calls": args.calls, "events": args.events, "latency": latency, "samples_us": samples,
                           "streams": streams}, f)
    finally:
        for p in (gateway, server):
            p.stdin.close()
            p.terminate()
            p.wait()


if __name__ == "__main__":
    main()
