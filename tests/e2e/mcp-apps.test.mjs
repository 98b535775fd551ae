// MCP Apps in the real window. The official example `@modelcontextprotocol/server-basic-vanillajs`
// (a server nobody here wrote, installed by scripts/test-mcp-apps) is called by the demo agent,
// which declares nothing of MCP Apps: its app renders under the agent's tool call with the tool's
// result; its button that calls a tool asks permission (naming the server), then works; its link
// brings the URL consent dialog; its message fills the prompt box, unsent. A hostile app of our
// own (apps/hostile-server.mjs) tries to leave its frame: each attempt is blocked; another keeps
// taking the keyboard focus, and the window gives it back while the person types. A richer
// official example (`server-budget-allocator`) renders its chart and sliders from the tool's data.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { launchWithConnections, waitUntil, By, until } from "./harness.mjs";
import { startHostile } from "./apps/hostile-server.mjs";
import { startExample } from "./apps/examples.mjs";
import { appFrames, useBasicApp } from "./apps/use-app.mjs";

let app;
let basic;
let budget;
let hostile;
let connectionsFile;

before(async () => {
  basic = await startExample("server-basic-vanillajs");
  const basicUrl = basic.url;
  budget = await startExample("server-budget-allocator");
  hostile = await startHostile();
  ({ app, file: connectionsFile } = await launchWithConnections({
    basic: { url: basicUrl },
    budget: { url: budget.url },
    hostile: { url: hostile.url },
  }));
  ({ enter, leave, promptText, clearPrompt } = appFrames(app));
});
after(async () => {
  await app?.close();
  basic?.kill();
  budget?.kill();
  hostile?.close();
});

let enter, leave, promptText, clearPrompt;

test("the official example's app renders under its tool call, asks before its tool call, and its link and message go through the person", async () => {
  await app.waitText("header", "Connected");
  await app.prompt("/tools basic get-time {}");
  // Under the agent's tool call: the same row as the tool card.
  await app.waitFor(".vrow section.tool + section.mcp-app");
  const row = await app.text(".vrow:has(section.mcp-app)");
  assert.match(row, /basic: get-time/);
  assert.match(row, /MCP server “basic” \(127\.0\.0\.1\)/);

  await enter("basic");
  // The tool's result reached the app through the bridge (it shows the time the tool returned).
  const time = await app.d.wait(until.elementLocated(By.css("#server-time")), 20000);
  await app.d.wait(async () => (await time.getText()) !== "Loading...", 20000, "the tool's result in the app");
  await leave();
  await app.shot("70-mcp-app-under-its-tool-call");

  await useBasicApp(app, "basic", { asked: "71-mcp-app-tool-call-asked", link: "72-mcp-app-link-consent" });
});

test("a hostile app cannot leave its frame", async () => {
  // Empty the prompt box first: the hostile app reports into it.
  await clearPrompt();
  await app.prompt("/tools hostile hostile {}");
  // It asks for a tool of the other connection: the dialog names its own server.
  await app.waitText("[role=dialog]", "get-time", 30000);
  assert.equal(await app.text("[role=dialog] .asker-name"), "The MCP server “hostile”");
  await app.shot("73-mcp-app-hostile-asks");
  await app.click("Deny");
  await app.noDialog();
  await waitUntil("the hostile app's report", async () => (await promptText()).startsWith("HOSTILE "), 30000);
  const report = JSON.parse((await promptText()).slice("HOSTILE ".length));
  console.log("hostile app:", JSON.stringify(report));
  assert.match(report.topDocument, /^blocked/, "it read the window's document");
  assert.equal(report.tauriInternals, "absent");
  assert.equal(report.tauriIpc, "absent");
  assert.match(report.localStorage, /^blocked/);
  assert.notEqual(report.cookie, "allowed");
  assert.equal(report.popup, "blocked");
  assert.match(report.fetchCanary, /^blocked/);
  assert.match(report.fetchTauriIpc, /^blocked/);
  assert.match(report.fetchTauriAssets, /^blocked/);
  assert.equal(report.forgedMethod, "refused");
  assert.equal(report.floodRefused, 40, "a flood of tool calls was not refused");
  assert.equal(report.otherConnectionsTool, "refused");
  assert.ok(report.frameHeight <= 800, `the app grew its frame to ${report.frameHeight} px`);
  // The window is still Porthole's (no navigation of the top window), and nothing reached the canary.
  assert.ok((await app.exec("return location.href")).startsWith("tauri://"), "the window navigated away");
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(hostile.canaryHits, [], "a request left the frame");
  // Its messages to the window's IPC handler (WebKit shows it to every frame) did nothing.
  console.log("the window's IPC handler in the frame:", report.webkitIpcHandler, report.ipcHandlerCall);
  assert.ok(!("enabled" in JSON.parse(readFileSync(connectionsFile, "utf8")).connections.basic), "the frame switched a connection off");
  await app.shot("74-mcp-app-hostile-blocked");
});

test("an app the person used cannot take the keyboard back while they type in the window", async () => {
  await clearPrompt();
  await app.prompt("/tools hostile thief {}");
  // The thief's page refocuses its own input every 50 ms and whenever it loses the focus.
  const thief = 'section.mcp-app[data-tool="thief"]';
  await app.waitFor(`${thief} iframe`, 30000);
  // The person uses the app: a click in it, then typing there reaches it.
  await enter("hostile", 'iframe[title^="thief "]');
  try {
    const loot = await app.d.wait(until.elementLocated(By.css("#loot")), 20000);
    await loot.click();
    await loot.sendKeys("typed in the app");
    assert.equal(await loot.getAttribute("value"), "typed in the app");
  } finally {
    await leave();
  }
  // Then the prompt box: the app reaches for the keyboard, the window takes it back and stops
  // the app, and what the person types stays in the prompt box.
  const box = await app.waitFor("#prompt-input");
  await box.click();
  await app.waitText(thief, "it was stopped");
  await app.d.wait(async () => (await app.count(`${thief} iframe`)) === 0, 5000, "the app's frame removed");
  await box.sendKeys("secret words");
  await new Promise((r) => setTimeout(r, 500));
  await box.sendKeys(" and more");
  assert.equal(await promptText(), "secret words and more");
  await app.shot("76-mcp-app-keyboard-taken-app-stopped");
  // The person may start it again.
  await app.click("Start it again", thief);
  await app.waitFor(`${thief} iframe`, 10000);
  await clearPrompt();
});

test("a device an app's resource asks for is given only when the person allows it", async () => {
  const geo = 'section.mcp-app[data-tool="geo"]';
  const located = async (which) => {
    const frame = (await app.d.findElements(By.css(`${geo} iframe`)))[which];
    await new Promise((r) => setTimeout(r, 1100)); // a second of quiet, as in enter()
    await app.d.switchTo().frame(frame);
    try {
      const out = await app.d.wait(until.elementLocated(By.css("#geo")), 20000);
      await app.d.wait(async () => (await out.getText()) !== "asking", 20000, "the app's location answer");
      return await out.getText();
    } finally {
      await leave();
    }
  };
  // Asked before the frame loads; "Don't allow": the frame gets nothing, the app is refused.
  await app.prompt("/tools hostile geo {}");
  await app.waitText(geo, "This app asks to use your location");
  assert.equal(await app.count(`${geo} iframe`), 0, "the frame loaded before the person answered");
  await app.shot("77-mcp-app-asks-for-location");
  await app.click("Don't allow", geo);
  await app.waitFor(`${geo} iframe`);
  assert.equal(await app.exec(`return document.querySelector('${geo} iframe').getAttribute("allow")`), "");
  assert.equal(await located(0), "error 1", "PERMISSION_DENIED without the person's allowing");
  // The webview's own gate: with no app given the location, a page asking (Porthole's own here)
  // is refused by Porthole's handler, and that is logged.
  const own = await app.d.executeAsyncScript(`const done = arguments[arguments.length - 1];
    navigator.geolocation.getCurrentPosition(() => done("position"), (e) => done("error " + e.code), { timeout: 5000 });`);
  assert.equal(own, "error 1");
  const logs = join(app.home, ".local/state/porthole/logs");
  const logged = () => readdirSync(logs).filter((f) => f.startsWith("porthole.")).map((f) => readFileSync(join(logs, f), "utf8")).join("");
  await waitUntil("the refusal in Porthole's log", async () => logged().includes("the webview asked for Geolocation: refused"));
  // Not remembered: the next time it shows, it asks again; allowed, its frame's `allow` names it.
  await app.prompt("/tools hostile geo {}");
  await app.d.wait(async () => (await app.count(`${geo} .app-permissions`)) === 1, 20000, "asked again");
  await app.click("Allow for this app", geo);
  const frames = `${geo} iframe`;
  await app.d.wait(async () => (await app.count(frames)) === 2, 20000, "the second frame");
  assert.equal(await app.exec(`const f = document.querySelectorAll('${frames}'); return f[f.length - 1].getAttribute("allow")`), "geolocation");
  // WebKitGTK refuses the location to a frame of an opaque origin before asking the webview
  // (measured: the app still gets PERMISSION_DENIED), so on Linux the allowing has no effect yet.
  console.log("with the location allowed, the app got:", await located(1));
});

test("an app asking for fullscreen gets its card opened larger, never the window; the person's Smaller is told to it", async () => {
  const modes = 'section.mcp-app[data-tool="modes"]';
  await app.prompt("/tools hostile modes {}");
  await app.waitFor(`${modes} iframe`, 30000);
  await app.d.wait(async () => (await app.count(`${modes}.large`)) === 1, 20000, "the card opened larger");
  const frameHeight = () => app.exec(`return document.querySelector('${modes} iframe').getBoundingClientRect().height`);
  assert.ok((await frameHeight()) >= 600, `fullscreen is the card opened larger (${await frameHeight()} px)`);
  const windowHeight = await app.exec("return window.innerHeight");
  assert.ok((await frameHeight()) < windowHeight, "the app never covers the window");
  await app.exec(`document.querySelector('${modes}').scrollIntoView({ block: "start" })`);
  await app.shot("78-mcp-app-fullscreen-in-its-card");
  const said = async () => {
    await enter("hostile", 'iframe[title^="modes "]');
    try {
      return await app.d.findElement(By.css("#modes")).getText();
    } finally {
      await leave();
    }
  };
  await waitUntil("the app's answers", async () => (await said()).includes("asked fullscreen"));
  const first = await said();
  assert.match(first, /offered inline,fullscreen; now inline/);
  assert.match(first, /asked pip, got inline/, "picture-in-picture is not offered");
  assert.match(first, /asked fullscreen, got fullscreen/);
  // The person makes it smaller: the app is told its mode changed.
  await app.click("Smaller", modes);
  await app.d.wait(async () => (await app.count(`${modes}.large`)) === 0, 5000, "the card back inline");
  await waitUntil("the app told of inline", async () => (await said()).includes("told inline"));
});

test("a richer official example (budget-allocator) renders its chart and sliders from the tool's data", async () => {
  await clearPrompt();
  await app.prompt("/tools budget get-budget-data {}");
  await app.waitFor('section.mcp-app[aria-label="App of the MCP server budget"] iframe', 30000);
  await enter("budget");
  try {
    const status = await app.d.wait(until.elementLocated(By.css("#status-bar")), 20000);
    await app.d.wait(async () => !(await status.getText()).includes("$0 / $0"), 20000, "the budget's data in the app");
    await app.d.wait(async () => (await app.d.findElements(By.css("#sliders-container input"))).length > 0, 20000, "its sliders");
  } finally {
    await leave();
  }
  await app.shot("75-mcp-app-budget-allocator");
});
