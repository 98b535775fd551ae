// An MCP App used in the real window as a person would, shared by the e2e spec (the demo agent)
// and the agents' window tests (Claude Code, Codex): entering an app's frame, and the official
// basic-vanillajs example's three buttons (a tool call, a link, a message).
import assert from "node:assert/strict";
import { By } from "selenium-webdriver";
import { waitUntil } from "../harness.mjs";

/** Entering and leaving the frames of `app`'s window, and its prompt box. */
export function appFrames(app) {
  /** The frame of the app of `connection`, entered (WebDriver looks inside it until `leave`).
   *  WebDriver's switch gives the frame the keyboard as no person can (no click in it): the
   *  window gives it back, and takes it for an app grabbing the keyboard within a second of a
   *  key or a click in the window (ui/src/lib/app-focus.ts). So a second of quiet first, as a
   *  person's. */
  const enter = async (connection, frameSelector = "iframe") => {
    const frame = await app.waitFor(`section.mcp-app[aria-label="App of the MCP server ${connection}"] ${frameSelector}`);
    await new Promise((r) => setTimeout(r, 1100));
    await app.d.switchTo().frame(frame);
  };
  const leave = () => app.d.switchTo().defaultContent();
  const promptText = () => app.exec(`return document.querySelector("#prompt-input").value`);
  /** Empty the prompt box (an app's message may have filled it). */
  const clearPrompt = () =>
    app.exec(`const box = document.querySelector("#prompt-input"); box.value = ""; box.dispatchEvent(new Event("input"));`);
  return { enter, leave, promptText, clearPrompt };
}

/** The basic example's app of `connection`, already showing the tool's time: its button calls a
 *  tool of its server (the window asks first, naming the server; "Allow for this app", then the
 *  next call does not ask), its link brings the URL consent dialog (declined), its message fills
 *  the prompt box and is not sent. `shots` names the screenshots of the question and the link. */
export async function useBasicApp(app, connection, shots = {}) {
  const { enter, leave, promptText } = appFrames(app);
  const asker = `The MCP server “${connection}”`;
  await enter(connection);
  const first = await app.d.findElement(By.css("#server-time")).getText();
  await app.d.findElement(By.css("#get-time-btn")).click();
  await app.d.findElement(By.css("#get-time-btn")).click();
  await leave();
  await app.waitText("[role=dialog]", "get-time");
  assert.equal(await app.text("[role=dialog] .asker-name"), asker);
  if (shots.asked) await app.shot(shots.asked);
  await app.click("Allow for this app");
  await app.noDialog();
  await enter(connection);
  await app.d.wait(async () => (await app.d.findElement(By.css("#server-time")).getText()) !== first, 20000, "a new time");
  // Allowed for this app: the next call does not ask.
  await app.d.findElement(By.css("#get-time-btn")).click();
  await leave();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await app.count("[role=dialog]"), 0, "an allowed tool asked again");

  // Its link: the URL consent dialog, never opened directly.
  await enter(connection);
  await app.d.findElement(By.css("#open-link-btn")).click();
  await leave();
  await app.waitText("[role=dialog]", "modelcontextprotocol.io");
  assert.equal(await app.text("[role=dialog] .asker-name"), asker);
  if (shots.link) await app.shot(shots.link);
  await app.click("Decline");
  await app.noDialog();

  // Its message: into the prompt box, for the person to send.
  await enter(connection);
  await app.d.findElement(By.css("#send-message-btn")).click();
  await leave();
  await waitUntil("the app's message in the prompt box", async () => (await promptText()).includes("This is message text."));
  assert.equal(await app.count("form.prompt .btn.danger"), 0, "the message was sent by itself");
}
