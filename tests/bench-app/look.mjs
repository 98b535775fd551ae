// Screenshots of a long transcript while it streams and after (issue 16): checks by eye that
// rows do not overlap or leave gaps, that the view follows the bottom while streaming, and that
// scrolling up during the stream is not undone. Not part of the benchmarks.
//   xvfb-run node tests/bench-app/look.mjs     (BENCH_BIN_DIR as for bench.mjs)
import { join } from "node:path";
import { launch, targetDir } from "../e2e/harness.mjs";

const binDir = process.env.BENCH_BIN_DIR ?? join(targetDir, "release");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const app = await launch({ binary: join(binDir, "porthole"), args: ["--agent", join(binDir, "porthole-test-agent")] });
try {
  await app.waitFor("form.prompt textarea:not([disabled])", 60000);
  const pos = () => app.exec(`const s = document.querySelector("main.transcript");
    return { top: Math.round(s.scrollTop), height: s.scrollHeight, view: s.clientHeight, rows: s.querySelectorAll(".vrow").length };`);
  // Short messages and tool calls streamed for 10 s: the view follows the bottom, until the
  // user scrolls up.
  await app.prompt("flood 5000 10 50 tools");
  await sleep(3000);
  await app.shot("flood-streaming-bottom");
  console.log("streaming, at the bottom", await pos());
  await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = s.scrollTop - 2000;`);
  await sleep(300);
  const up = await pos();
  await sleep(2000);
  const later = await pos();
  await app.shot("flood-streaming-scrolled-up");
  console.log("scrolled up while streaming", up, "2 s later", later);
  const reported = async (what) => {
    while (!(await app.exec("return window.__portholePerf.lastText(200)")).includes(`"scenario":"${what}`)) await sleep(200);
  };
  await reported("flood");
  await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = s.scrollHeight;`);
  await sleep(500);
  await app.shot("flood-end");
  await app.prompt("long-message 300000");
  await reported("long-message");
  await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = s.scrollHeight / 2;`);
  await sleep(500);
  await app.shot("long-middle");
  console.log("middle", await pos());
  await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = 0;`);
  await sleep(500);
  await app.shot("long-top");
  await app.exec(`const s = document.querySelector("main.transcript"); s.scrollTop = s.scrollHeight;`);
  await sleep(500);
  await app.shot("long-end");
  console.log("end", await pos());
} finally {
  await app.close();
}
process.exit(0);
