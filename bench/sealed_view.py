#!/usr/bin/env python3
"""Issue 8 part 4: time from spawning `porthole sealed-view` to the test page's first paint.

A local server on 127.0.0.1 serves a page that, on its first animation frame after load
(the frame that paints it), requests /painted; the time from spawning the process to that
request is one sample. One persistent Xvfb display is used for all samples, so X server
start-up is not counted. Run through scripts/bench-sealed, which builds `porthole` first.
"""
import argparse
import http.server
import json
import os
import statistics
import subprocess
import threading
import time

PAGE = b"""<!doctype html><html><head><title>first paint</title></head>
<body style="background:#fff"><h1>Sealed view first-paint probe</h1>
<script>
// Two frames: the first callback runs before the paint, the second after it.
requestAnimationFrame(() => requestAnimationFrame(() => {
  new Image().src = "/painted?t=" + Date.now();
}));
</script></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    painted = threading.Event()
    page_requested_at = None

    def do_GET(self):
        if self.path.startswith("/painted"):
            Handler.painted.set()
            body, ctype = b"", "image/gif"
        else:
            Handler.page_requested_at = Handler.page_requested_at or time.perf_counter()
            body, ctype = PAGE, "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--porthole", required=True)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--display", default=":97")
    args = ap.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    xvfb = subprocess.Popen(["Xvfb", args.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    env = dict(os.environ, DISPLAY=args.display)
    samples, to_request = [], []
    try:
        for i in range(args.runs + 1):  # the first run warms the page cache; not counted
            Handler.painted.clear()
            Handler.page_requested_at = None
            start = time.perf_counter()
            child = subprocess.Popen([args.porthole, "sealed-view"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            child.stdin.write((json.dumps({"url": url, "agent": "bench", "dialogId": i}) + "\n").encode())
            child.stdin.flush()
            ok = Handler.painted.wait(args.timeout)
            elapsed = time.perf_counter() - start
            try:
                child.stdin.write(b'{"cmd":"close"}\n')
                child.stdin.close()
                child.wait(timeout=5)
            except Exception:
                child.kill()
                child.wait()
            if not ok:
                raise SystemExit(f"run {i}: no first paint within {args.timeout} s")
            if i > 0:
                samples.append(elapsed * 1000)
                to_request.append((Handler.page_requested_at - start) * 1000)
                print(f"run {i:2}: {elapsed * 1000:7.1f} ms (page requested at {to_request[-1]:6.1f} ms)", flush=True)
    finally:
        xvfb.terminate()
        xvfb.wait()
    med = statistics.median(samples)
    print(f"\nsealed view, spawn to first paint: median {med:.0f} ms of {len(samples)} "
          f"(min {min(samples):.0f}, max {max(samples):.0f}); target <= 700 ms: {'met' if med <= 700 else 'MISSED'}")
    print(f"of which spawn to the page's HTTP request (process, GTK, WebKit start-up): median "
          f"{statistics.median(to_request):.0f} ms; request to first paint: median "
          f"{statistics.median(s - r for s, r in zip(samples, to_request)):.0f} ms")


if __name__ == "__main__":
    main()
