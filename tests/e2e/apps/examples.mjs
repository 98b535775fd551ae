// The official MCP Apps example servers (tests/mcp-apps, installed by scripts/test-mcp-apps),
// started on 127.0.0.1 only (tests/mcp-apps/loopback.mjs) for the window's tests and benchmarks.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const examples = join(dirname(fileURLToPath(import.meta.url)), "../../mcp-apps");

/** Start `@modelcontextprotocol/<name>` (e.g. "server-basic-vanillajs"): `{ url, kill }`. */
export function startExample(name) {
  const script = join(examples, "node_modules/@modelcontextprotocol", name, "dist/index.js");
  if (!existsSync(script)) throw new Error(`${script} is missing: run ./scripts/test-mcp-apps --install`);
  const server = spawn(process.execPath, ["--import", join(examples, "loopback.mjs"), script], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stdout });
    lines.on("line", (l) => {
      const bound = /^porthole-loopback: listening on (.*)$/.exec(l)?.[1];
      if (!bound) return;
      if (!bound.startsWith("127.0.0.1:")) {
        server.kill();
        reject(new Error(`${name} listens on ${bound}, not on loopback only`));
      } else resolve({ url: `http://${bound}/mcp`, kill: () => server.kill() });
    });
    server.once("exit", (code) => reject(new Error(`${name} exited (${code})`)));
  });
}
