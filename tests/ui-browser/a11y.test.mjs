// The main window's UI (built ui/dist-mock, mock agent) in headless Chromium: axe-core finds no
// accessibility violations in any view or dialog, in the light and the dark theme, and every
// control of the main window is reachable with the Tab key.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync } from "node:fs";
import { join, resolve, dirname, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
// The mock build (`npm run build:mock` in ui/): the app's production bundle has no mock.
const dist = resolve(here, "../../ui/dist-mock");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png" };

let server;
let base;
let browser;

before(async () => {
  if (!existsSync(join(dist, "index.html"))) throw new Error("ui/dist-mock is missing: run `npm run build:mock` in ui/");
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = join(dist, path === "/" ? "index.html" : path);
    if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, "index.html");
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function open(colorScheme, query = "") {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${base}?mock${query}`);
  await page.waitForSelector("header .pill-connected");
  return { page, context };
}

async function axe(page, where) {
  await page.addScriptTag({ content: axeSource });
  // Let transitions and streamed text settle so contrast is measured on the final colours.
  await page.waitForTimeout(300);
  const result = await page.evaluate(() =>
    // eslint-disable-next-line no-undef
    axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } }),
  );
  const problems = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(" ") + " " + (n.failureSummary ?? "").replace(/\s+/g, " ")).join("\n    ")}`,
  );
  assert.deepEqual(problems, [], `${where}:\n  ${problems.join("\n  ")}`);
}

for (const scheme of ["light", "dark"]) {
  test(`${scheme} theme: the conversation with a streamed reply, tool call and plan`, async () => {
    const { page, context } = await open(scheme, "&prompt=hello");
    await page.waitForSelector(".markdown h2", { timeout: 15000 });
    await page.waitForFunction(() => !document.querySelector(".working"), null, { timeout: 20000 });
    await axe(page, `${scheme}: conversation`);
    await page.screenshot({ path: join(here, `output-${scheme}-main.png`) });
    await context.close();
  });

  for (const [prompt, what] of [
    ["/configure", "form dialog"],
    ["/connect%20evil", "URL dialog with warnings"],
    ["/edit", "permission dialog with a diff"],
    ["/secret", "form asking for a secret"],
  ]) {
    test(`${scheme} theme: ${what}`, async () => {
      const { page, context } = await open(scheme, `&prompt=${prompt}`);
      await page.waitForSelector("[role=dialog]", { timeout: 15000 });
      await axe(page, `${scheme}: ${what}`);
      await context.close();
    });
  }

  for (const view of ["History", "Settings", "MCP connections", "Protocol inspector"]) {
    test(`${scheme} theme: the ${view} view`, async () => {
      const { page, context } = await open(scheme);
      await page.getByRole("button", { name: view, exact: true }).click();
      await page.waitForSelector(".page h1");
      await axe(page, `${scheme}: ${view}`);
      await context.close();
    });
  }
}

test("every control of the main window is reachable with Tab, with a visible focus", async () => {
  const { page, context } = await open("light");
  await page.waitForFunction(() => document.querySelector("#prompt-input") && !document.querySelector("#prompt-input").disabled);
  await page.fill("#prompt-input", "draft");
  const controls = await page.evaluate(() => {
    const all = document.querySelectorAll(".app button:not([disabled]), .app input:not([disabled]), .app select:not([disabled]), .app textarea:not([disabled]), .app [tabindex='0']");
    return [...all].filter((el) => el.getAttribute("tabindex") !== "-1").map((el, i) => (el.dataset.a11yId = String(i)));
  });
  const reached = new Set();
  let outlineMissing = [];
  for (let i = 0; i < controls.length * 2 + 5; i++) {
    await page.keyboard.press("Tab");
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || !el.dataset.a11yId) return null;
      const s = getComputedStyle(el);
      return { id: el.dataset.a11yId, outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0, name: el.textContent?.trim() || el.id };
    });
    if (info) {
      reached.add(info.id);
      if (!info.outline) outlineMissing.push(info.name);
    }
  }
  const missed = controls.filter((id) => !reached.has(id));
  assert.deepEqual(missed, [], "controls Tab never reached");
  assert.deepEqual(outlineMissing, [], "focused controls without a visible focus outline");
  await context.close();
});
