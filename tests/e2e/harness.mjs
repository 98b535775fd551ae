// Starts tauri-driver, opens a WebDriver session on the real app, and cleans up.
// The app runs with a throwaway HOME and working directory, so each run starts clean.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";
import { Builder, By, until } from "selenium-webdriver";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
export const targetDir = process.env.CARGO_TARGET_DIR ?? join(repo, "target");
export const appBinary = join(targetDir, "debug", "porthole");
export const shotsDir = join(here, "output");
mkdirSync(shotsDir, { recursive: true });

/** Temp dirs this test file made, removed when it ends: all of them when every test passed,
 *  none when one failed (their paths are printed, to look inside). */
const madeDirs = [];
process.on("exit", (code) => {
  if (madeDirs.length === 0) return;
  if (code === 0) {
    for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  } else {
    console.error(`a test failed: its temp dirs are kept:\n  ${madeDirs.join("\n  ")}`);
  }
});

/** A fresh dir under the system temp dir, `prefix` then random characters, removed at the end
 *  of the test file unless a test failed (see `madeDirs`). */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** A port nobody listens on now, chosen by the OS (a fixed or pid-derived port collided in CI). */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Waits for tauri-driver's /status; fails at once, with its exit status, if it exits first. */
function waitForDriver(driver, port, ms) {
  const deadline = Date.now() + ms;
  return new Promise((resolveWait, reject) => {
    let exited = null;
    driver.once("exit", (code, signal) => (exited = signal ?? `exit code ${code}`));
    driver.once("error", (e) => (exited = e.message));
    const attempt = async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/status`);
        if (r.ok) return resolveWait();
      } catch {}
      if (exited) return reject(new Error(`tauri-driver ended before listening on ${port}: ${exited}`));
      if (Date.now() > deadline) return reject(new Error(`tauri-driver did not listen on ${port} in ${ms} ms`));
      setTimeout(attempt, 200);
    };
    attempt();
  });
}

function stopDriver(driver) {
  try {
    process.kill(-driver.pid, "SIGTERM");
  } catch {}
}

/** Starts tauri-driver on free ports; one retry, since a port can be taken between choosing and binding. */
async function startDriver(env) {
  let lastError;
  for (let attempt = 0; attempt < 2; attempt++) {
    const port = await freePort();
    const nativePort = await freePort();
    const driver = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], {
      env,
      stdio: ["ignore", "inherit", "inherit"],
      detached: true,
    });
    try {
      await waitForDriver(driver, port, 30000);
      return { driver, port };
    } catch (e) {
      lastError = e;
      stopDriver(driver);
      // A driver left behind must not keep the test process alive until the outer timeout.
      driver.unref();
    }
  }
  throw lastError;
}

/** Running processes whose argv[1] is `arg` (e.g. "sealed-view", "demo-agent"), with their command lines. */
export function processesWithArg(arg) {
  const found = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
    } catch {
      continue;
    }
    if (cmdline[1] === arg && !isZombie(Number(name))) found.push({ pid: Number(name), cmdline });
  }
  return found;
}

export function isZombie(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

export async function waitUntil(what, fn, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `binary` defaults to the debug build (the benchmarks pass the release one). */
export async function launch({ args = [], env: extraEnv = {}, binary = appBinary } = {}) {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: build it with cargo build -p porthole`);
  const home = tempDir("porthole-e2e-home-");
  const workspace = tempDir("porthole-e2e-ws-");
  writeFileSync(join(workspace, "notes.txt"), "Original notes.\n");
  const env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    // The sandboxed WebKit processes need no GPU under Xvfb.
    WEBKIT_DISABLE_COMPOSITING_MODE: "1",
    // The built-in demo agent speaks ACP v1 in the specs about v1 behaviour (client-side files
    // and terminals, MCP connections through its v1 client); Porthole's v2 offer falls back to
    // it. `v2.test.mjs` lets it speak both (`1,2`), so the window speaks v2 there.
    PORTHOLE_DEMO_AGENT_PROTOCOLS: "1",
    ...extraEnv,
  };
  delete env.PORTHOLE_AGENT;
  const { driver, port } = await startDriver(env);
  let session;
  try {
    session = await new Builder()
      .usingServer(`http://127.0.0.1:${port}/`)
      .withCapabilities({
        browserName: "wry",
        "tauri:options": { application: binary, args: ["--cwd", workspace, ...args] },
      })
      .build();
  } catch (e) {
    stopDriver(driver);
    driver.unref();
    throw e;
  }
  const app = new App(session, workspace);
  app.home = home;
  app.close = async () => {
    try {
      await session.quit();
    } catch {}
    stopDriver(driver);
  };
  return app;
}

/** The app with `connections` (the `connections` object of connections.json) as its MCP
 *  connections, and no keyring (servers that need none): `{ app, file }`, the file the app reads. */
export async function launchWithConnections(connections, env = {}) {
  const file = join(tempDir("porthole-e2e-mcp-"), "connections.json");
  writeFileSync(file, JSON.stringify({ connections }));
  const app = await launch({
    env: { PORTHOLE_CONNECTIONS_FILE: file, DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/porthole-e2e-bus", ...env },
  });
  return { app, file };
}

/** One look of a wait: an element removed while it was looked at (WebKitWebDriver's stale
 *  element error) means "not yet", and the wait looks again. */
export async function notYetIfStale(look) {
  try {
    return await look();
  } catch (e) {
    if (e?.name === "StaleElementReferenceError") return false;
    throw e;
  }
}

export class App {
  constructor(driver, workspace) {
    this.d = driver;
    this.workspace = workspace;
  }
  /** Screenshot of the X display, as a person sees it (WebDriver's own screenshot hangs on WebKitGTK here). */
  async shot(name) {
    await new Promise((r) => setTimeout(r, 300)); // let the last frame paint
    // Cropped to the app's window: the virtual screen around it is not part of the picture.
    let crop = [];
    try {
      const w = await this.d.manage().window().getRect();
      crop = ["-crop", `${w.width}x${w.height}+${Math.max(0, w.x)}+${Math.max(0, w.y)}`, "+repage"];
    } catch {
      // No window geometry from the driver: keep the whole screen rather than no picture.
    }
    const r = spawnSync("import", ["-window", "root", ...crop, join(shotsDir, `${name}.png`)], { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`screenshot ${name} failed (is ImageMagick installed and DISPLAY set?)`);
  }
  find(css) {
    return this.d.findElement(By.css(css));
  }
  /** How many elements match `css`. WebKitWebDriver fails a search that meets an element being
   *  removed at that moment ("Stale element found when trying to create the node handle"):
   *  such a search is made again. */
  async count(css) {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.d.findElements(By.css(css))).length;
      } catch (e) {
        if (e?.name !== "StaleElementReferenceError" || attempt >= 10) throw e;
      }
    }
  }
  async waitFor(css, ms = 20000) {
    return this.d.wait(until.elementLocated(By.css(css)), ms, `no element ${css}`);
  }
  async waitText(css, text, ms = 20000) {
    try {
      await this.d.wait(
        // The UI re-renders while streaming: an element found a moment ago may be gone.
        () =>
          notYetIfStale(async () => {
            for (const e of await this.d.findElements(By.css(css))) {
              if ((await e.getText()).includes(text)) return true;
            }
            return false;
          }),
        ms,
        `no ${css} containing ${JSON.stringify(text)}`,
      );
    } catch (e) {
      throw await this.#explained(e, css);
    }
  }
  /** A failed wait, with what the window showed instead: the end of each element's visible text
   *  and of its DOM text (a row out of the virtual list's range is in neither), and a screenshot.
   *  A failure seen once in CI can then be told apart from a slow machine. */
  async #explained(error, css) {
    const failures = (App.failures = (App.failures ?? 0) + 1);
    const lines = [];
    try {
      for (const e of await this.d.findElements(By.css(css))) {
        const shown = await e.getText();
        const dom = (await e.getAttribute("textContent")) ?? "";
        lines.push(`shown: ...${JSON.stringify(shown.slice(-300))}`, `in the DOM: ...${JSON.stringify(dom.slice(-300))}`);
      }
      if (!lines.length) lines.push(`no element ${css}`);
      const focus = await this.exec(`return { busy: document.querySelector("main.transcript")?.getAttribute("aria-busy"),
        rows: document.querySelectorAll(".vrow").length, errorPanel: document.querySelector(".error-panel")?.textContent ?? null,
        sessions: window.__portholePerf?.sessions?.() ?? null, errors: window.__portholePerf?.errors?.() ?? null };`);
      lines.push(`window: ${JSON.stringify(focus)}`);
      await this.shot(`failed-${failures}`);
      lines.push(`screenshot: tests/e2e/output/failed-${failures}.png`);
    } catch (e) {
      lines.push(`(could not look: ${e?.message ?? e})`);
    }
    error.message = `${error.message}\n  ${lines.join("\n  ")}`;
    return error;
  }
  async text(css) {
    return this.find(css).getText();
  }
  async prompt(text) {
    // A prompt typed while a turn runs is not sent (Enter waits for the turn): wait like a person.
    await this.d.wait(
      async () => (await this.count("form.prompt .btn.danger")) === 0,
      20000,
      "the previous turn to end",
    );
    const box = await this.waitFor("#prompt-input");
    await this.d.wait(until.elementIsEnabled(box), 20000, "prompt box enabled");
    await box.sendKeys(text);
    await box.sendKeys("\uE007"); // Enter
  }
  async button(label, scope = "[role=dialog]") {
    const buttons = await this.d.findElements(By.css(`${scope} button`));
    for (const b of buttons) {
      // A button's first line is its label; option buttons add a description below it.
      // WebKitWebDriver reports no text for the sidebar's restyled buttons: fall back to textContent.
      const text = ((await b.getText()) || (await b.getAttribute("textContent")) || "").trim();
      if (text === label || text.startsWith(`${label}\n`) || text.startsWith(`${label} `)) return b;
    }
    throw new Error(`no button "${label}" in ${scope}`);
  }
  async click(label, scope) {
    await (await this.button(label, scope)).click();
  }
  async noDialog(ms = 10000) {
    await this.d.wait(async () => (await this.count("[role=dialog]")) === 0, ms, "dialog closed");
  }
  // ----- an open form dialog -----

  /** Click the option labelled `text` in the form field `field` of the open dialog. */
  async pick(field, text) {
    for (const label of await this.d.findElements(By.css(`[role=dialog] [data-field=${field}] label`))) {
      if ((await label.getText()).includes(text)) return label.click();
    }
    throw new Error(`no option "${text}" in ${field}`);
  }

  /** Type into the text box of the form field `field` (its own, or the one its "Other…" choice opened). */
  async type(field, text) {
    const input = await this.waitFor(`[role=dialog] [data-field=${field}] input[type=text], [role=dialog] [data-field=${field}] textarea`);
    await input.sendKeys(text);
  }

  /** Submit the form and send what the review shows; `next`: the text of the question asked right
   *  after (its dialog replaces this one at once), else no dialog is left. */
  async submitAndSend(next = null) {
    await this.click("Submit…");
    await this.waitText("[role=dialog]", "exactly what will be sent");
    await this.click("Send");
    if (next) await this.waitText("[role=dialog]", next);
    else await this.noDialog();
  }

  /** Run a script in the main window (WebDriver's own channel, not the page's). */
  async exec(script, ...args) {
    return this.d.executeScript(script, ...args);
  }
  /** Transcript text, for assertions on what the agent reported. */
  async transcript() {
    return this.text("main.transcript");
  }
}
export { By, until };
