// A tiny MCP server (stdio, newline-delimited JSON-RPC, no dependencies) that the suite gives
// the agents through their own MCP configuration, to see whether they forward MCP elicitations
// to the ACP client. Its one tool, `pick_color`, sends `elicitation/create` (form mode) to the
// agent and returns what came back as its result: "elicitation answered: ACTION CONTENT".
// Every message in and out is appended to $ELICIT_MCP_LOG when set.
import fs from "node:fs";
import readline from "node:readline";

const log = (dir, msg) => process.env.ELICIT_MCP_LOG && fs.appendFileSync(process.env.ELICIT_MCP_LOG, `${dir} ${JSON.stringify(msg)}\n`);
const send = (msg) => {
  log(">", msg);
  process.stdout.write(`${JSON.stringify(msg)}\n`);
};

const TOOL = {
  name: "pick_color",
  description: "Ask the user for a color (through an MCP elicitation) and return the answer.",
  inputSchema: { type: "object", properties: {} },
};
const SCHEMA = {
  type: "object",
  properties: { color: { type: "string", title: "Color", description: "Your favourite color" } },
  required: ["color"],
};

let clientCanElicit = false;
let nextId = 1;
const waiting = new Map(); // our request id -> resolve

function request(method, params) {
  const id = `porthole-mcp-${nextId++}`;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function callTool(id) {
  // Without the capability an MCP server must not elicit; say so, so the test can tell why.
  if (!clientCanElicit) {
    return send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "elicitation answered: unsupported (the agent did not advertise elicitation)" }] } });
  }
  const answer = await request("elicitation/create", { mode: "form", message: "Which color should Porthole use?", requestedSchema: SCHEMA });
  const text = answer.error
    ? `elicitation answered: error ${answer.error.message}`
    : `elicitation answered: ${answer.result.action} ${JSON.stringify(answer.result.content ?? null)}`;
  send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  log("<", msg);
  if (msg.method === undefined) return waiting.get(msg.id)?.(msg); // an answer to our request
  switch (msg.method) {
    case "initialize":
      clientCanElicit = msg.params?.capabilities?.elicitation != null;
      return send({
        jsonrpc: "2.0",
        id: msg.id,
        result: { protocolVersion: msg.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "porthole-elicit", version: "1.0.0" } },
      });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: msg.id, result: { tools: [TOOL] } });
    case "tools/call":
      return callTool(msg.id);
    case "ping":
      return send({ jsonrpc: "2.0", id: msg.id, result: {} });
    default:
      // Notifications need no answer; unknown requests get "method not found".
      if (msg.id !== undefined) send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `no ${msg.method}` } });
  }
});
