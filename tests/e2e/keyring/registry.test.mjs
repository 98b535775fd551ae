// Adding an agent as a new user does it, without editing a file: the "Add agent" view lists a
// registry served here on 127.0.0.1 (a binary archive holding a small agent, an icon, and an npx
// entry), search, Install with its progress, then the agent's env_var sign-in: the key typed in the
// window lands in the OS keyring (a GNOME Keyring started by scripts/with-keyring), never in a file,
// and the agent starts with it set: a session opens and answers. Porthole started again signs the
// agent in from the keyring.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, readFileSync, readdirSync, statSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { launch, targetDir, tempDir, By, notYetIfStale } from "../harness.mjs";

const SECRET = `sk-e2e-${process.pid}-value`;
const testAgent = join(targetDir, "debug", "porthole-test-agent");
const target = { x64: "x86_64", arm64: "aarch64" }[process.arch];

let server;
let app;
let base;

function fixtureArchive() {
  const dir = tempDir("porthole-e2e-registry-");
  const pkg = join(dir, "pkg");
  mkdirSync(join(pkg, "bin"), { recursive: true });
  // The agent program the archive holds: it execs the test agent (which asks for an API key).
  writeFileSync(join(pkg, "bin", "agent"), `#!/bin/sh\nexec "${testAgent}" "$@"\n`);
  chmodSync(join(pkg, "bin", "agent"), 0o755);
  const archive = join(dir, "fixture-agent.tar.gz");
  const r = spawnSync("tar", ["-czf", archive, "-C", pkg, "bin"]);
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`);
  return readFileSync(archive);
}

before(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error("no D-Bus session: run the e2e tests through scripts/with-keyring (scripts/test does)");
  }
  const archive = fixtureArchive();
  const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="14" fill="#3a7"/></svg>');
  server = createServer((req, res) => {
    const body = {
      "/registry.json": () => JSON.stringify(registry()),
      "/fixture-agent.tar.gz": () => archive,
      "/icon.svg": () => icon,
    }[req.url];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200).end(body());
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
  const registry = () => ({
    version: "1.0.0",
    agents: [
      {
        id: "fixture-agent",
        name: "Fixture Agent",
        version: "1.0.0",
        description: "A test agent that asks for an API key",
        icon: `${base}/icon.svg`,
        distribution: {
          binary: {
            [`linux-${target}`]: {
              archive: `${base}/fixture-agent.tar.gz`,
              cmd: "./bin/agent",
              // The test agent refuses session/new until signed in.
              env: { PORTHOLE_TEST_AGENT_AUTH: "1" },
              sha256: createHash("sha256").update(archive).digest("hex"),
            },
          },
        },
      },
      {
        id: "other-agent",
        name: "Other Agent",
        version: "2.0.0",
        description: "Installed with npx",
        distribution: { npx: { package: "@example/other-agent@2.0.0" } },
      },
    ],
  });
  app = await launch({ env: { PORTHOLE_REGISTRY_URL: `${base}/registry.json` } });
});

after(async () => {
  await app?.close();
  server?.close();
});

/** The sign-in panel is gone and the prompt box takes text: a session is open (a restart with a
 * loaded machine can take a while). */
async function sessionOpen() {
  await app.d.wait(async () => (await app.count(".signin")) === 0, 60000, "the sign-in panel to close");
  // Found again on each look: the box may be rendered anew while the session opens.
  await app.d.wait(
    () =>
      notYetIfStale(async () => {
        const [box] = await app.d.findElements(By.css("#prompt-input"));
        return box ? await box.isEnabled() : false;
      }),
    60000,
    "a session (prompt box enabled)",
  );
}

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir, needle) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) found.push(...filesContaining(path, needle));
    else if (st.isFile() && st.size < 64 << 20 && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

test("add an agent from the registry, sign in with a key kept in the OS keyring, and use it", async () => {
  await app.waitText("header", "Connected");
  await app.click("Add agent", "nav.sidebar");
  await app.waitText(".registry-agent", "Fixture Agent");
  await app.waitText(".registry-agent", "Other Agent");
  // The icon arrives as a data: URL checked by the backend.
  await app.d.wait(async () => {
    const imgs = await app.d.findElements(By.css("[data-registry-id=fixture-agent] img.agent-icon"));
    return imgs.length === 1 && (await imgs[0].getAttribute("src")).startsWith("data:image/svg+xml;base64,");
  }, 10000, "the fixture agent's icon");
  await app.shot("20-add-agent");

  const search = await app.waitFor("#registry-search");
  await search.sendKeys("api key");
  await app.d.wait(async () => (await app.count(".registry-agent")) === 1, 5000, "search narrows the list");
  assert.match(await app.text(".registry-agent"), /Fixture Agent/);

  await app.click("Install", "[data-registry-id=fixture-agent]");
  // Installed, connected, and refused a session until signed in: the sign-in panel asks for the key.
  await app.waitText(".signin", "needs you to sign in", 30000);
  await app.waitFor("nav.sidebar [data-agent=fixture-agent]");
  const input = await app.waitFor(".signin input[data-var=PORTHOLE_TEST_API_KEY]");
  assert.equal(await input.getAttribute("type"), "password", "a secret is typed into a password field");
  await input.sendKeys(SECRET);
  await app.shot("21-env-var-sign-in");
  await app.click("Save and sign in", ".signin");

  // The agent restarts with the key set, signs in, and opens a session that answers.
  await sessionOpen();
  await app.prompt("hello");
  await app.waitText("main.transcript", "unknown scenario hello", 30000);
  await app.shot("22-registry-agent-session");

  // The value is in the keyring, under Porthole's service...
  const lookup = spawnSync("secret-tool", ["lookup", "service", "porthole", "username", "fixture-agent:PORTHOLE_TEST_API_KEY"], {
    encoding: "utf8",
  });
  assert.equal(lookup.stdout, SECRET);
  // ...and in no file of the user's home (settings, installed.json, the names index).
  assert.deepEqual(filesContaining(app.home, SECRET), []);
  const names = JSON.parse(readFileSync(join(app.home, ".config/porthole/secret-names.json"), "utf8"));
  assert.deepEqual(names.agents["fixture-agent"], ["PORTHOLE_TEST_API_KEY"]);

  // Porthole started again (same home, same keyring): the installed agent is in the sidebar and
  // signs in from the keyring, with no sign-in panel.
  const home = app.home;
  await app.close();
  app = await launch({
    env: {
      PORTHOLE_REGISTRY_URL: `${base}/registry.json`,
      HOME: home,
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
    },
  });
  app.home = home;
  await app.waitText("header", "Connected", 30000);
  await app.d.wait(
    async () => app.button("Connect", "[data-agent=fixture-agent]").then(() => true, () => false),
    30000,
    "the installed agent in the sidebar",
  );
  await app.click("Connect", "[data-agent=fixture-agent]");
  await (await app.waitFor("[data-agent=fixture-agent] .agent-btn")).click();
  await sessionOpen();
  await app.prompt("hello-again");
  await app.waitText("main.transcript", "unknown scenario hello-again", 30000);
  assert.equal((await app.d.findElements(By.css(".signin"))).length, 0, "no sign-in asked after a restart");
});

test("remove the installed agent: it leaves the sidebar and its files and key are deleted", async () => {
  await app.click("Add agent", "nav.sidebar");
  await app.waitText("[data-registry-id=fixture-agent]", "Installed");
  await app.click("Remove", "[data-registry-id=fixture-agent]");
  await app.d.wait(
    async () => (await app.count("[data-registry-id=fixture-agent] button")) === 1,
    20000,
    "only Install is left",
  );
  await app.d.wait(
    async () => (await app.count("nav.sidebar [data-agent=fixture-agent]")) === 0,
    10000,
    "the agent leaves the sidebar",
  );
  const lookup = spawnSync("secret-tool", ["lookup", "service", "porthole", "username", "fixture-agent:PORTHOLE_TEST_API_KEY"], {
    encoding: "utf8",
  });
  assert.equal(lookup.stdout, "", "its key is deleted from the keyring");
  const agentsDir = join(app.home, ".local/share/porthole/agents");
  assert.deepEqual(readdirSync(agentsDir).filter((f) => f !== "installed.json"), [], "its files are deleted");
});
