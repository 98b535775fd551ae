// A transparent stdio tap between porthole-cli and an agent: passes every byte through and
// appends each JSON-RPC line to a log, one JSON object per line ({ dir: "to-agent" | "from-agent",
// msg }). The suite reads it to see what the CLI's events do not show: whether an agent writes
// files through ACP (fs/write_text_file) or runs commands in ACP terminals (terminal/create).
//
//   node acp-tap.mjs LOG_FILE AGENT_COMMAND [ARGS...]
import { spawn } from "node:child_process";
import fs from "node:fs";

const [logFile, command, ...args] = process.argv.slice(2);
const log = fs.createWriteStream(logFile, { flags: "a" });
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

/** Log each complete line of `stream` (a chunk may end mid-line) as it passes through. */
function tee(from, to, dir) {
  let partial = "";
  from.on("data", (chunk) => {
    to.write(chunk);
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        msg = { unparsed: line.slice(0, 500) };
      }
      log.write(`${JSON.stringify({ dir, msg })}\n`);
    }
  });
}

tee(process.stdin, child.stdin, "to-agent");
tee(child.stdout, process.stdout, "from-agent");
process.stdin.on("end", () => child.stdin.end());
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => log.end(() => process.exit(code ?? (signal ? 1 : 0))));
