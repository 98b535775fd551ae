// The package as a user gets it: installed by apt (scripts/test-package), started from its
// desktop entry's command under Xvfb, the window must show the demo agent connected, run by the
// demo agent's own small binary the package installs (not the app's `demo-agent` mode).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { launch, processesWithArg } from "../e2e/harness.mjs";

const applications = "/usr/share/applications";

function desktopEntry() {
  const name = readdirSync(applications).find((f) => /^porthole\.desktop$/i.test(f));
  assert.ok(name, `no Porthole desktop entry in ${applications}`);
  const fields = {};
  for (const line of readFileSync(join(applications, name), "utf8").split("\n")) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) fields[m[1]] ??= m[2];
  }
  return fields;
}

test("the desktop entry names the installed program and its icon", () => {
  const entry = desktopEntry();
  assert.equal(entry.Name, "Porthole");
  assert.equal(entry.Exec.split(" ")[0], "porthole");
  assert.ok(existsSync("/usr/bin/porthole"), "/usr/bin/porthole is installed");
  assert.ok(existsSync("/usr/lib/porthole/porthole-demo-agent"), "the demo agent's own binary is installed");
  assert.ok(existsSync(`/usr/share/icons/hicolor/128x128/apps/${entry.Icon}.png`), `icon ${entry.Icon}`);
});

test("the installed app starts with the demo agent connected", async () => {
  const app = await launch({ binary: "/usr/bin/porthole" });
  try {
    await app.waitText("header", "Porthole Demo Agent", 30000);
    await app.waitText("header", "Connected", 30000);
    await app.shot("package-installed");
    const installed = "/usr/lib/porthole/porthole-demo-agent";
    const running = readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === installed;
      } catch {
        return false;
      }
    });
    assert.equal(running.length, 1, `one ${installed} process runs the demo agent`);
    assert.deepEqual(processesWithArg("demo-agent"), [], "the app's own demo-agent mode is not used");
  } finally {
    await app.close();
  }
});
