// Injection: the scripted test agent sends a corpus of XSS payloads (tests/xss/payloads.json)
// through every string the window shows: its own name, modes and config options, message and
// thought chunks, tool titles, locations, content and diffs, the plan, commands, the session
// title, permission options, and every text of a form and a URL request. None may run (a canary
// a running payload would set), and nothing outside the URL dialog may be a link.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { launch, targetDir } from "./harness.mjs";

let app;
before(async () => {
  app = await launch({
    args: ["--agent", join(targetDir, "debug", "porthole-test-agent")],
    env: { PORTHOLE_TEST_AGENT_HOSTILE: "1" },
  });
});
after(async () => {
  await app?.close();
});

/** What a running payload would leave behind, and what must never be in the DOM. */
async function assertInert(where) {
  const found = await app.exec(`
    const bad = [];
    if (window.__pwned !== undefined) bad.push("window.__pwned is set");
    for (const el of document.querySelectorAll("a[href], area[href]")) bad.push("link: " + el.outerHTML.slice(0, 80));
    for (const el of document.querySelectorAll("#app script, #app iframe, #app object, #app embed, #app img, #app svg image, #app form[action], #app meta, #app link, #app style, #app base"))
      bad.push("element: " + el.outerHTML.slice(0, 80));
    for (const el of document.querySelectorAll("#app *"))
      for (const a of el.attributes) if (/^on/i.test(a.name)) bad.push("handler: " + el.outerHTML.slice(0, 80));
    // Names and titles the user must trust show text-direction controls instead of obeying them.
    for (const el of document.querySelectorAll("header h1, .sidebar .nav-btn, .dlg-asker, .dlg-title, .session-title"))
      if (/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/u.test(el.textContent)) bad.push("bidi control in: " + el.className);
    return bad;`);
  assert.deepEqual(found, [], `${where}: ${found.join("; ")}`);
}

test("no payload runs or becomes a link anywhere in the window", async () => {
  await app.waitText("header", "Connected");
  await assertInert("start-up (hostile agent name, modes, config options)");
  await app.prompt("xss");
  await app.waitFor("[role=dialog]");
  await app.waitText("[role=dialog]", "Permission");
  await assertInert("permission dialog");
  // One option name carries a right-to-left override: flagged, and shown as an escape.
  await app.waitFor("[role=dialog] .url-warnings [data-code=bidi-control]");
  await app.waitText("[role=dialog] .perm-actions", "⟨U+202E⟩exe.fdp");
  await app.shot("16-xss-permission");
  await app.click("Cancel");

  await app.waitFor("[role=dialog] form");
  await assertInert("form dialog");
  await app.shot("17-xss-form");
  await app.click("Decline");

  await app.waitFor("[role=dialog] .url-box");
  await assertInert("URL dialog");
  await app.click("Decline");
  await app.waitText("main.transcript", "xss done");
  await assertInert("transcript with every payload");
  // The payload text is there, as text.
  const text = await app.transcript();
  assert.match(text, /<script>window\.__pwned=1<\/script>/);
  await app.shot("18-xss-transcript");
});
