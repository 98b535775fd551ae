// The Add agent view over a real registry: the snapshot of the public ACP registry in
// tests/fixtures/acp-registry (11 listed agents), served as a local registry file with each
// agent's published icon beside it. Every agent is shown with its icon, version, license and how
// it installs; none is reported as a problem; search narrows the list.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./harness.mjs";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "acp-registry");
const snapshot = JSON.parse(readFileSync(join(fixture, "registry.json"), "utf8"));

let app;
let folder;
before(async () => {
  // The combined file names icons as `./icon.svg` (beside each agent.json, where the registry
  // publishes them); a client reads them beside its registry, so point each at its own.
  folder = mkdtempSync(join(tmpdir(), "porthole-e2e-registry-"));
  cpSync(join(fixture, "agents"), join(folder, "agents"), { recursive: true });
  const withIcons = { ...snapshot, agents: snapshot.agents.map((a) => ({ ...a, icon: `./agents/${a.id}/icon.svg` })) };
  writeFileSync(join(folder, "registry.json"), JSON.stringify(withIcons));
  app = await launch({ env: { PORTHOLE_REGISTRY_URL: join(folder, "registry.json") } });
});
after(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
});

test("the Add agent view shows every agent of the registry snapshot", async () => {
  await app.waitText("header", "Connected");
  await app.click("Add agent", "nav");
  await app.d.wait(async () => (await app.count(".registry-agent")) === snapshot.agents.length, 20000, `${snapshot.agents.length} registry agents shown`);
  assert.equal(await app.count(".add-agent details"), 0, "no registry entry reported as skipped");
  // Icons are read one by one after the list: wait for the last.
  await app.d.wait(async () => (await app.count(".registry-agent img.agent-icon")) === snapshot.agents.length, 20000, "every icon shown");

  const rows = await app.exec(`return [...document.querySelectorAll(".registry-agent")].map((li) => ({
    id: li.dataset.registryId,
    title: li.querySelector(".card-title").textContent,
    how: li.querySelector(".registry-info p.muted.small").textContent,
    icon: li.querySelector("img.agent-icon")?.src.split(",")[0] ?? null,
    install: !!li.querySelector(".registry-actions button.primary:not([disabled])"),
  }));`);
  for (const agent of snapshot.agents) {
    const row = rows.find((r) => r.id === agent.id);
    assert.ok(row, `${agent.id} is shown`);
    assert.ok(row.title.includes(agent.name) && row.title.includes(agent.version), `${agent.id}: ${row.title}`);
    assert.equal(row.icon, "data:image/svg+xml;base64", `${agent.id} shows its own icon`);
    const kind = agent.distribution.npx ? "Runs through npx" : "Downloads a program";
    // A binary agent without a build for this machine says so and cannot be installed.
    const builds = agent.distribution.binary && Object.keys(agent.distribution.binary).some((p) => p.startsWith("linux-x86_64"));
    if (agent.distribution.npx || builds) {
      assert.ok(row.how.includes(kind), `${agent.id}: ${row.how}`);
      assert.ok(row.install, `${agent.id} can be installed`);
    } else {
      assert.ok(row.how.includes("No build for this computer"), `${agent.id}: ${row.how}`);
    }
    if (agent.license) assert.ok(row.how.includes(agent.license), `${agent.id} shows its license`);
  }
  await app.shot("registry-01-add-agent-top");
  await app.exec(`document.querySelector(".registry-agent:last-child").scrollIntoView()`);
  await app.shot("registry-02-add-agent-bottom");

  // Search by name or description.
  const search = await app.find("#registry-search");
  await search.sendKeys("qwen");
  await app.d.wait(async () => (await app.count(".registry-agent")) === 1, 5000, "one agent matches qwen");
  assert.equal(await app.exec(`return document.querySelector(".registry-agent").dataset.registryId`), "qwen-code");
});
