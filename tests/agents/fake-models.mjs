// A fake model API on 127.0.0.1 that real agents talk to instead of a provider: the Anthropic
// Messages API (streaming SSE) for Claude Code, and the OpenAI Responses API (streaming) for
// Codex. What the "model" answers is scripted by the user's prompt:
//
//   [[edit FILE TEXT]]   call the agent's file-writing tool: write TEXT to FILE (absolute path)
//   [[shell COMMAND]]    call the agent's shell tool with COMMAND
//   [[slow N]]           stream N chunks, 200 ms apart (long enough to cancel mid-turn)
//   anything else        stream "Porthole fake model says: <prompt>" in several chunks
//
// After a tool result comes back, the model answers "Tool finished: <first line of result>".
// Every request is appended as one JSON line to $FAKE_MODELS_LOG when set. No dependencies.
import http from "node:http";
import fs from "node:fs";

const log = process.env.FAKE_MODELS_LOG ? fs.createWriteStream(process.env.FAKE_MODELS_LOG, { flags: "a" }) : null;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The words of a reply, as a model streams them. */
export function chunks(text) {
  return text.match(/\S+\s*/g) ?? [text];
}

/** What the scripted model does with `prompt` (the latest user text) or a tool result. */
export function plan(prompt, toolResult) {
  if (toolResult !== null) {
    const first = String(toolResult).split("\n").find((l) => l.trim()) ?? "";
    return { text: `Tool finished: ${first.trim()}` };
  }
  let m = /\[\[edit (\S+) ([^\]]*)\]\]/.exec(prompt);
  if (m) return { tool: "write", input: { path: m[1], content: `${m[2]}\n` } };
  m = /\[\[shell ([^\]]*)\]\]/.exec(prompt);
  if (m) return { tool: "shell", input: { command: m[1] } };
  m = /\[\[slow (\d+)\]\]/.exec(prompt);
  if (m) return { text: Array.from({ length: Number(m[1]) }, (_, i) => `step-${i} `).join(""), delay: 200 };
  return { text: `Porthole fake model says: ${prompt.trim()}` };
}

// ---------- Anthropic Messages API ----------

function anthropicText(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function anthropicToolResult(content) {
  if (!Array.isArray(content)) return null;
  const r = content.find((b) => b.type === "tool_result");
  if (!r) return null;
  return typeof r.content === "string" ? r.content : anthropicText(r.content);
}

/** The agent's tool for `kind`, by the names Claude Code uses (built-in or through ACP's MCP bridge). */
function anthropicTool(tools, kind) {
  const names = (tools ?? []).map((t) => t.name);
  const want = kind === "write" ? ["Write"] : ["Bash"];
  for (const w of want) {
    const found = names.find((n) => n === `mcp__acp__${w}`) ?? names.find((n) => n === w) ?? names.find((n) => n.endsWith(`__${w}`));
    if (found) return found;
  }
  return null;
}

/** The text of the user's current turn: every user message since the model last spoke (agents
 * add their own reminders and system messages around the user's words). */
function currentTurnText(messages, textOf) {
  const texts = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role !== "assistant"; i--) {
    if (messages[i].role === "user") texts.unshift(textOf(messages[i]));
  }
  return texts.join("\n");
}

async function anthropic(req, res, body) {
  const messages = body.messages ?? [];
  const lastUser = [...messages].reverse().find((m) => m.role === "user" || m.role === "assistant");
  const result = lastUser?.role === "user" ? anthropicToolResult(lastUser.content) : null;
  const prompt = currentTurnText(messages, (m) => anthropicText(m.content));
  const p = plan(prompt, result);
  log?.write(JSON.stringify({ api: "anthropic", system: JSON.stringify(body.system ?? "").slice(0, 300), tail: messages.slice(-3).map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content.slice(0, 200) : (m.content ?? []).map((b) => ({ type: b.type, text: (b.text ?? "").slice(0, 200) })) })), plan: p }) + "\n");
  const usage = { input_tokens: 10, output_tokens: 5 };
  let blocks;
  if (p.tool) {
    const name = anthropicTool(body.tools, p.tool);
    const input = p.tool === "write" ? { file_path: p.input.path, content: p.input.content } : { command: p.input.command, description: "Run the command" };
    blocks = name ? [{ type: "tool_use", id: `toolu_${Date.now()}`, name, input }] : [{ type: "text", text: `no ${p.tool} tool offered` }];
  } else {
    blocks = [{ type: "text", text: p.text }];
  }
  const stop = blocks[0].type === "tool_use" ? "tool_use" : "end_turn";
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "msg_fake", type: "message", role: "assistant", model: body.model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", { message: { id: `msg_${Date.now()}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage } });
  for (const [index, block] of blocks.entries()) {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const c of chunks(block.text)) {
        if (res.destroyed) return;
        event("content_block_delta", { index, delta: { type: "text_delta", text: c } });
        if (p.delay) await sleep(p.delay);
      }
    } else {
      event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    event("content_block_stop", { index });
  }
  event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  event("message_stop", {});
  res.end();
}

// ---------- OpenAI Responses API ----------

function responsesInputText(item) {
  if (typeof item.content === "string") return item.content;
  return (item.content ?? []).map((c) => c.text ?? "").join("\n");
}

async function responses(req, res, body) {
  const input = Array.isArray(body.input) ? body.input : [{ role: "user", content: String(body.input ?? "") }];
  const last = input[input.length - 1] ?? {};
  const result = last.type === "function_call_output" || last.type === "custom_tool_call_output" ? String(last.output ?? "") : null;
  const lastUser = [...input].reverse().find((i) => i.role === "user");
  const p = plan(lastUser ? responsesInputText(lastUser) : "", result);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let seq = 0;
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const id = `resp_${Date.now()}`;
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model, status: "in_progress", output: [] };
  event("response.created", { response: base });
  const output = [];
  if (p.tool) {
    const tools = (body.tools ?? []).map((t) => t.name ?? t.function?.name).filter(Boolean);
    const name = p.tool === "shell" ? (tools.find((n) => n === "shell" || n === "exec_command" || n === "local_shell") ?? "shell") : (tools.find((n) => n === "apply_patch") ?? "apply_patch");
    const args = p.tool === "shell"
      ? (name === "exec_command" ? { cmd: p.input.command } : { command: ["bash", "-lc", p.input.command] })
      : { input: `*** Begin Patch\n*** Add File: ${p.input.path}\n+${p.input.content.trimEnd()}\n*** End Patch\n` };
    const item = { type: "function_call", id: `fc_${Date.now()}`, call_id: `call_${Date.now()}`, name, arguments: JSON.stringify(args), status: "completed" };
    event("response.output_item.added", { output_index: 0, item: { ...item, arguments: "" } });
    event("response.function_call_arguments.delta", { output_index: 0, item_id: item.id, delta: item.arguments });
    event("response.output_item.done", { output_index: 0, item });
    output.push(item);
  } else {
    const msgId = `msg_${Date.now()}`;
    event("response.output_item.added", { output_index: 0, item: { type: "message", id: msgId, role: "assistant", status: "in_progress", content: [] } });
    event("response.content_part.added", { output_index: 0, item_id: msgId, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const c of chunks(p.text)) {
      if (res.destroyed) return;
      event("response.output_text.delta", { output_index: 0, item_id: msgId, content_index: 0, delta: c });
      if (p.delay) await sleep(p.delay);
    }
    const item = { type: "message", id: msgId, role: "assistant", status: "completed", content: [{ type: "output_text", text: p.text, annotations: [] }] };
    event("response.output_text.done", { output_index: 0, item_id: msgId, content_index: 0, text: p.text });
    event("response.output_item.done", { output_index: 0, item });
    output.push(item);
  }
  event("response.completed", { response: { ...base, status: "completed", output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } });
  res.end();
}

// ---------- server ----------

export function startFakeModels(port = 0) {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", async () => {
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {}
      log?.write(JSON.stringify({ method: req.method, url: req.url, model: body.model, stream: body.stream, tools: (body.tools ?? []).map((t) => t.name ?? t.function?.name ?? t.type) }) + "\n");
      try {
        const path = req.url.split("?")[0];
        if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ input_tokens: 10 }));
        }
        if (req.method === "POST" && path.endsWith("/messages")) return await anthropic(req, res, body);
        if (req.method === "POST" && path.endsWith("/responses")) return await responses(req, res, body);
        if (req.method === "GET" && path.endsWith("/models")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "porthole" }] }));
        }
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `fake models: no ${req.method} ${path}` } }));
      } catch (e) {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startFakeModels(Number(process.argv[2] ?? 0));
  console.log(`fake models on http://127.0.0.1:${server.address().port}`);
}
