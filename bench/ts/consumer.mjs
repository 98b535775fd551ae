// Counts the flood with the official TypeScript SDK: a typed `session/update` handler that
// checks each chunk's sequence number. Prints one JSON report line like the Rust consumers.
//
// Usage: node consumer.mjs <flood-agent> [N]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { tmpdir } from "node:os";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [agentPath, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 1_000_000);
const agent = spawn(agentPath, [String(n)], { stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

const statusKb = (field) => {
  const m = readFileSync("/proc/self/status", "utf8").match(new RegExp(`^${field}:\\s+(\\d+)`, "m"));
  return m ? Number(m[1]) : 0;
};

let count = 0;
let inOrder = true;
const app = client({ name: "ts-sdk-consumer" }).onNotification(methods.client.session.update, ({ params }) => {
  const u = params.update;
  if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
    if (Number(u.content.text.slice(0, 8)) !== count) inOrder = false;
    count += 1;
  }
});

await app.connectWith(stream, async (ctx) => {
  await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: [] });
  const rssBefore = statusKb("VmRSS");
  const start = process.hrtime.bigint();
  await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "flood" }] });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const usage = process.resourceUsage();
  console.log(
    JSON.stringify({
      consumer: "ts-sdk",
      count,
      in_order: inOrder && count === n,
      seconds,
      updates_per_s: count / seconds,
      cpu_user_s: usage.userCPUTime / 1e6,
      cpu_sys_s: usage.systemCPUTime / 1e6,
      rss_before_kb: rssBefore,
      hwm_kb: statusKb("VmHWM"),
    }),
  );
});
agent.kill();
process.exit(0);
