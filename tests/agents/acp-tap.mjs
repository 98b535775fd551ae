// A transparent stdio tap between porthole-cli and an agent: passes every byte through and
// appends each JSON-RPC line to a log, one JSON object per line ({ dir: "to-agent" | "from-agent",
// msg }). The suite reads it to see what the CLI's events do not show: whether an agent writes
// files through ACP (fs/write_text_file) or runs commands in ACP terminals (terminal/create).
//
//   node acp-tap.mjs LOG_FILE AGENT_COMMAND [ARGS...]
//
// ACP_TAP_STDIO_MCP_ONLY=1: the one change it makes, for tests of stdio-only agents: the
// agent's answer to `initialize` reaches the client without http and sse in
// agentCapabilities.mcpCapabilities (the log keeps what the agent sent).
import { spawn } from "node:child_process";
import fs from "node:fs";

const [logFile, command, ...args] = process.argv.slice(2);
const log = fs.createWriteStream(logFile, { flags: "a" });
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

/** Log each complete line of `stream` (a chunk may end mid-line) as it passes through. */
function tee(from, to, dir, rewrite = null) {
  let partial = "";
  from.on("data", (chunk) => {
    // Rewriting goes line by line (whole lines only); otherwise the bytes pass as they come.
    if (!rewrite) to.write(chunk);
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      let msg = null;
      if (line.trim()) {
        try {
          msg = JSON.parse(line);
        } catch {
          msg = { unparsed: line.slice(0, 500) };
        }
        log.write(`${JSON.stringify({ dir, at: Date.now(), msg })}\n`);
      }
      if (rewrite) to.write(`${msg && !msg.unparsed ? rewrite(msg, line) : line}\n`);
    }
  });
  if (rewrite) from.on("end", () => partial && to.write(partial));
}

/** The agent's initialize answer without http and sse MCP transports. */
function stdioMcpOnly(msg, line) {
  const mcp = msg.result?.agentCapabilities?.mcpCapabilities;
  if (!mcp) return line;
  msg.result.agentCapabilities.mcpCapabilities = { ...mcp, http: false, sse: false };
  return JSON.stringify(msg);
}

tee(process.stdin, child.stdin, "to-agent");
tee(child.stdout, process.stdout, "from-agent", process.env.ACP_TAP_STDIO_MCP_ONLY === "1" ? stdioMcpOnly : null);
process.stdin.on("end", () => child.stdin.end());
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => log.end(() => process.exit(code ?? (signal ? 1 : 0))));
