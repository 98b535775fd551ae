// The real app with the demo agent: streaming, the form flow end to end, decline, cancel,
// and the URL consent dialog. Screenshots land in tests/e2e/output/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, By } from "./harness.mjs";

let app;
before(async () => {
  app = await launch();
});
after(async () => {
  await app?.close();
});

test("connects to the demo agent and shows its name and version", async () => {
  await app.waitText("header", "Porthole Demo Agent");
  await app.waitText("header", "Connected");
  assert.match(await app.text("header"), /v0\.1\.0/);
  await app.shot("01-main-connected");
});

test("a prompt streams a markdown reply", async () => {
  await app.prompt("hello from the end-to-end test");
  await app.waitText("main.transcript", "Porthole demo reply");
  await app.waitText("main.transcript", "hello from the end-to-end test");
  // Markdown is rendered (a heading and code), and no link is clickable.
  await app.waitFor("main.transcript h2");
  assert.equal((await app.d.findElements(By.css("main.transcript a[href]"))).length, 0);
  await app.shot("02-main-streamed");
});

test("configure: edit, see a validation error, fix it, review and submit", async () => {
  await app.prompt("/configure");
  await app.waitFor("[role=dialog] form");
  await app.waitText("[role=dialog]", "Porthole Demo Agent");
  await app.waitText("[role=dialog]", "Configure the demo project");
  await app.shot("03-form-dialog");

  const name = await app.find("[data-field=projectName] input");
  await name.clear();
  await name.sendKeys("Not Valid!");
  await app.click("Submit…");
  await app.waitFor("[data-field=projectName] .f-errors");
  await app.shot("04-form-validation-error");

  await name.clear();
  await name.sendKeys("e2e-project");
  await app.find("[data-field=email] input").sendKeys("ada@example.com");
  // The titled single-select: pick "MIT".
  const labels = await app.d.findElements(By.css("[data-field=license] label"));
  for (const l of labels) if ((await l.getText()).includes("MIT")) await l.click();
  await app.click("Submit…");
  await app.waitText("[role=dialog]", "exactly what will be sent");
  const review = await app.text("[role=dialog] .review");
  assert.match(review, /e2e-project/);
  assert.match(review, /ada@example\.com/);
  await app.shot("05-form-review");
  await app.click("Send");
  await app.noDialog();
  await app.waitText("main.transcript", "Configuration received");
  const t = await app.transcript();
  assert.match(t, /"e2e-project"/);
  assert.match(t, /"ada@example\.com"/);
  assert.match(t, /"mit"/);
  assert.match(t, /all values conform/);
});

test("configure: decline and cancel (Esc) reach the agent", async () => {
  await app.prompt("/configure");
  await app.waitFor("[role=dialog] form");
  await app.click("Decline");
  await app.waitText("main.transcript", "You declined the configuration form.");
  await app.prompt("/configure");
  await app.waitFor("[role=dialog] form");
  await app.find("[role=dialog]").sendKeys("\uE00C"); // Escape
  await app.waitText("main.transcript", "You cancelled the configuration form.");
});

test("the URL dialog shows the full URL and the host, and asks before opening", async () => {
  await app.prompt("/connect");
  await app.waitFor("[role=dialog] .url-box");
  const url = await app.text("[role=dialog] .url-box");
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/authorize\?state=[0-9a-f]{32}$/);
  assert.match(await app.text("[role=dialog] .url-hostline"), /127\.0\.0\.1/);
  assert.equal((await app.d.findElements(By.css("[role=dialog] a[href]"))).length, 0, "the URL is not a link");
  await app.waitText("[role=dialog]", "Porthole Demo Agent");
  await app.shot("06-url-consent");
  await app.click("Decline");
  await app.noDialog();
});

test("the permission dialog shows the agent's options", async () => {
  await app.prompt("/edit");
  await app.waitText("[role=dialog]", "Edit notes.txt");
  await app.shot("07-permission");
  await app.click("Reject");
  await app.waitText("main.transcript", "rejected");
});
