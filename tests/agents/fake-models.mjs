// A fake model API on 127.0.0.1 that real agents talk to instead of a provider: the Anthropic
// Messages API (streaming SSE) for Claude Code, the OpenAI Responses API (streaming) for Codex,
// the Gemini API (generateContent, streamGenerateContent?alt=sse) for Gemini CLI, and OpenAI
// Chat Completions (streaming) for Qwen Code, OpenCode, Mistral Vibe, Cline, Factory Droid and Goose
// (each agent's tool and parameter names read from the request). What the "model" answers is
// scripted by the user's prompt:
//
//   [[edit FILE TEXT]]   call the agent's file-writing tool: write TEXT to FILE (absolute path)
//   [[shell COMMAND]]    call the agent's shell tool with COMMAND
//   [[mcp TOOL]]         call the MCP tool named TOOL (whatever prefix the agent gives it)
//   [[mcp TOOL TEXT]]    the same with the argument { text: TEXT } (porthole-test-mcp's `echo`)
//   [[mcp TOOL KEY=TEXT]] the same with the argument { KEY: TEXT } (server-everything's `echo` takes `message`)
//   [[ask]]              ask the user "Which color?" (Teal / Orange) with the agent's question tool
//   [[slow N]]           stream N chunks, 200 ms apart (long enough to cancel mid-turn)
//   anything else        stream "Porthole fake model says: <prompt>" in several chunks
//
// After a tool result comes back, the model answers "Tool finished: <last line of result>"
// (the command's output, the MCP tool's answer), so a test sees what reached the model.
// Every request is appended as one JSON line to $FAKE_MODELS_LOG when set; the server records
// the API keys (`keysSeen`) and models (`modelsSeen`) it was sent, and every tool result it was
// given (`toolResults`); while `server.bodies` is an array, each request's raw body is pushed
// to it (a test looks there for what an agent must never send). No dependencies.
import http from "node:http";
import fs from "node:fs";

const log = process.env.FAKE_MODELS_LOG ? fs.createWriteStream(process.env.FAKE_MODELS_LOG, { flags: "a" }) : null;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The words of a reply, as a model streams them. */
export function chunks(text) {
  return text.match(/\S+\s*/g) ?? [text];
}

/** The question of [[ask]], in the shape the agents' question tools take. */
const QUESTION = { id: "color", header: "Color", question: "Which color?", options: [{ label: "Teal", description: "a blue green" }, { label: "Orange", description: "a warm one" }] };

/** A tool's result inside the frames some agents put around it, as text: Cline's run_commands
 * answers a JSON list of {query, result, success}, and Cline and Mistral Vibe hand an MCP tool's
 * result over as its JSON (`{content: [{type: "text", text}]}`, Vibe's run_typescript inside
 * `{type: "success", value}`), and Vibe's bash answers {stdout, stderr, returncode, ...}; Factory
 * Droid ends a command's output with "[Process exited with code N]", and Goose starts it with
 * "exit code: N " (on the same line). */
function unframe(result) {
  const textOf = (v) => {
    if (typeof v === "string") return v;
    if (Array.isArray(v) && v.length && v.every((r) => typeof r?.result === "string")) return v.map((r) => r.result).join("\n");
    if (Array.isArray(v?.content)) return v.content.map((c) => c.text ?? "").join("\n");
    if (typeof v?.stdout === "string" && "returncode" in v) return v.stdout;
    if (v?.type === "success" && "value" in v) return typeof v.value === "string" ? v.value : textOf(v.value);
    return null;
  };
  try {
    const text = textOf(JSON.parse(result));
    if (text !== null) return text;
  } catch {}
  return result.replace(/\n*\[Process exited with code \d+\]\s*$/, "").replace(/^exit code: \d+ /, "");
}

/** What the scripted model does with `prompt` (the latest user text) or a tool result. */
export function plan(prompt, toolResult, seen) {
  if (toolResult !== null) {
    seen?.toolResults.push(String(toolResult));
    // A command's result may be framed (Gemini CLI: "<untrusted_context>\nOutput: ...\nProcess
    // Group PGID: N"; Qwen Code adds "Exit Code: 0" and more): the "Output:" line is the output.
    const result = unframe(String(toolResult).replace(/<\/?untrusted_context>/g, ""));
    const output = /^Output: (.*)$/m.exec(result)?.[1];
    const last = output ?? result.split("\n").filter((l) => l.trim()).pop() ?? "";
    return { text: `Tool finished: ${last.trim()}` };
  }
  let m = /\[\[edit (\S+) ([^\]]*)\]\]/.exec(prompt);
  if (m) return { tool: "write", input: { path: m[1], content: `${m[2]}\n` } };
  m = /\[\[shell ([^\]]*)\]\]/.exec(prompt);
  if (m) return { tool: "shell", input: { command: m[1] } };
  if (/\[\[ask\]\]/.test(prompt)) return { tool: "ask", input: QUESTION };
  m = /\[\[mcp (\S+)(?: ([^\]]+))?\]\]/.exec(prompt);
  if (m) {
    const named = m[2] ? /^([A-Za-z_]\w*)=(.*)$/s.exec(m[2]) : null;
    return { tool: "mcp", name: m[1], input: named ? { [named[1]]: named[2] } : m[2] ? { text: m[2] } : {} };
  }
  m = /\[\[slow (\d+)\]\]/.exec(prompt);
  if (m) return { text: Array.from({ length: Number(m[1]) }, (_, i) => `step-${i} `).join(""), delay: 200 };
  return { text: `Porthole fake model says: ${prompt.trim()}` };
}

// ---------- Anthropic Messages API ----------

/** The text of a message without the reminders Claude Code wraps around the user's words, so
 * that the fake model echoes exactly what the user typed. */
function anthropicText(content) {
  const text = typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim();
}

function anthropicToolResult(content) {
  if (!Array.isArray(content)) return null;
  const r = content.find((b) => b.type === "tool_result");
  if (!r) return null;
  return typeof r.content === "string" ? r.content : anthropicText(r.content);
}

/** The agent's tool for `kind`, by the names Claude Code uses (built-in or through ACP's MCP bridge). */
function anthropicTool(tools, kind, mcpName) {
  const names = (tools ?? []).map((t) => t.name);
  if (kind === "mcp") return names.find((n) => n === mcpName || n.endsWith(`__${mcpName}`)) ?? null;
  if (kind === "ask") return names.find((n) => n === "AskUserQuestion") ?? null;
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
  const p = plan(prompt, result, req.fakeServer);
  log?.write(JSON.stringify({ api: "anthropic", system: JSON.stringify(body.system ?? "").slice(0, 300), tail: messages.slice(-3).map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content.slice(0, 200) : (m.content ?? []).map((b) => ({ type: b.type, name: b.name, text: (b.text ?? (b.type === "tool_result" ? JSON.stringify(b.content) : "")).slice(0, 200) })) })), plan: p }) + "\n");
  const usage = { input_tokens: 10, output_tokens: 5 };
  let blocks;
  if (p.tool) {
    const name = anthropicTool(body.tools, p.tool, p.name);
    const input = p.tool === "write" ? { file_path: p.input.path, content: p.input.content } : p.tool === "shell" ? { command: p.input.command, description: "Run the command" } : p.tool === "ask" ? { questions: [{ ...p.input, multiSelect: false }] } : p.input;
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

/** A patch in Codex's apply_patch format that makes FILE hold exactly TEXT. The fake model reads
 * the file as a real model would have before editing it (Update needs the old lines). */
function applyPatchFor(path, text) {
  const add = (t) => t.trimEnd().split("\n").map((l) => `+${l}`).join("\n");
  if (!fs.existsSync(path)) return `*** Begin Patch\n*** Add File: ${path}\n${add(text)}\n*** End Patch`;
  const old = fs.readFileSync(path, "utf8").trimEnd().split("\n").map((l) => `-${l}`).join("\n");
  return `*** Begin Patch\n*** Update File: ${path}\n@@\n${old}\n${add(text)}\n*** End Patch`;
}

/** The output item that calls the agent's tool for `p` among the offered `tools`. Codex offers
 * apply_patch as a function or a freeform (custom) tool depending on the model's metadata, and
 * none for a model it does not know: then the patch goes through exec_command, which Codex
 * recognises as an edit (`apply_patch <<EOF`). */
function responsesToolCall(p, tools) {
  const offered = new Map(tools.map((t) => [t.name ?? t.function?.name, t.type]));
  const stamp = Date.now();
  const call = (name, args) => ({ type: "function_call", id: `fc_${stamp}`, call_id: `call_${stamp}`, name, arguments: JSON.stringify(args), status: "completed" });
  if (p.tool === "write") {
    const patch = applyPatchFor(p.input.path, p.input.content);
    if (offered.get("apply_patch") === "custom") return { type: "custom_tool_call", id: `ctc_${stamp}`, call_id: `call_${stamp}`, name: "apply_patch", input: patch, status: "completed" };
    if (offered.has("apply_patch")) return call("apply_patch", { input: patch });
    return call("exec_command", { cmd: `apply_patch <<'PATCH'\n${patch}\nPATCH\n` });
  }
  if (p.tool === "ask") return call("request_user_input", { questions: [p.input] });
  if (p.tool === "mcp") {
    // Codex groups an MCP server's tools in a namespace tool (`mcp__<server>`); a call names
    // the tool and its namespace. Codex spells a tool name's other characters as `_`
    // (`get-time` is offered as `get_time`).
    const named = (n) => n === p.name || n === p.name.replace(/[^A-Za-z0-9_]/g, "_");
    const ns = tools.find((t) => t.type === "namespace" && t.tools?.some((n) => named(n.name)));
    const name = ns?.tools.find((n) => named(n.name))?.name ?? p.name;
    return { ...call(name, p.input), ...(ns ? { namespace: ns.name } : {}) };
  }
  if (offered.has("exec_command")) return call("exec_command", { cmd: p.input.command });
  return call("shell", { command: ["bash", "-lc", p.input.command] });
}

async function responses(req, res, body) {
  const input = Array.isArray(body.input) ? body.input : [{ role: "user", content: String(body.input ?? "") }];
  const last = input[input.length - 1] ?? {};
  // A tool's output is a string, or a list of content items (MCP tools).
  const outputText = (o) => (Array.isArray(o) ? o.map((c) => c.text ?? "").join("\n") : String(o ?? ""));
  const result = last.type === "function_call_output" || last.type === "custom_tool_call_output" ? outputText(last.output) : null;
  const lastUser = [...input].reverse().find((i) => i.role === "user");
  const p = plan(lastUser ? responsesInputText(lastUser) : "", result, req.fakeServer);
  log?.write(JSON.stringify({ api: "responses", tail: input.slice(-2).map((i) => ({ type: i.type, role: i.role, name: i.name, arguments: i.arguments, output: typeof i.output === "string" ? i.output.slice(0, 300) : i.output, text: i.role ? responsesInputText(i).slice(0, 200) : undefined })), plan: p }) + "\n");
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let seq = 0;
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const id = `resp_${Date.now()}`;
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model, status: "in_progress", output: [] };
  event("response.created", { response: base });
  const output = [];
  if (p.tool) {
    const item = responsesToolCall(p, body.tools ?? []);
    if (item.type === "custom_tool_call") {
      event("response.output_item.added", { output_index: 0, item: { ...item, input: "" } });
      event("response.custom_tool_call_input.delta", { output_index: 0, item_id: item.id, delta: item.input });
    } else {
      event("response.output_item.added", { output_index: 0, item: { ...item, arguments: "" } });
      event("response.function_call_arguments.delta", { output_index: 0, item_id: item.id, delta: item.arguments });
    }
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

// ---------- Gemini API (generateContent, streamGenerateContent) ----------

/** The text parts of a Gemini content, without the context Gemini CLI adds to the first turn
 * (`<session_context>`: date, OS, the folder's files). */
const geminiText = (content) =>
  (content?.parts ?? [])
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text.replace(/<session_context>[\s\S]*?<\/session_context>/g, "").trim())
    .filter(Boolean)
    .join("\n");

/** The tool for `kind` among Gemini CLI's function declarations. */
function geminiTool(decls, kind, mcpName) {
  const names = decls.map((d) => d.name);
  if (kind === "mcp") return names.find((n) => n === mcpName || n.endsWith(`_${mcpName}`) || n.endsWith(`__${mcpName}`)) ?? null;
  const want = { write: ["write_file"], shell: ["run_shell_command"], ask: ["ask_user", "ask_user_question"] }[kind];
  return names.find((n) => want.includes(n)) ?? null;
}

/** A JSON value that fits `schema` (Gemini CLI asks side questions in JSON mode: which model
 * should answer, who speaks next); the first enum value, or "user" where that is one. */
function fitSchema(schema) {
  if (!schema) return {};
  const type = String(schema.type ?? "").toLowerCase();
  if (schema.enum) return schema.enum.includes("user") ? "user" : schema.enum[0];
  if (type === "object") return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fitSchema(v)]));
  if (type === "array") return [];
  if (type === "boolean") return false;
  if (type === "number" || type === "integer") return 0;
  return "fake";
}

async function gemini(req, res, body, model, stream) {
  const contents = body.contents ?? [];
  const last = contents[contents.length - 1];
  const response = (last?.parts ?? []).find((p) => p.functionResponse)?.functionResponse;
  const result = response ? (typeof response.response?.output === "string" ? response.response.output : JSON.stringify(response.response ?? {})) : null;
  const prompt = currentTurnText(contents.map((c) => ({ ...c, role: c.role === "model" ? "assistant" : c.role })), geminiText);
  const config = body.generationConfig ?? body.config ?? {};
  const decls = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  let p;
  let parts;
  if (config.responseMimeType === "application/json") {
    p = { json: true };
    parts = [{ text: JSON.stringify(fitSchema(config.responseJsonSchema ?? config.responseSchema)) }];
  } else {
    p = plan(prompt, result, req.fakeServer);
    if (p.tool) {
      const name = geminiTool(decls, p.tool, p.name);
      const args = p.tool === "write" ? { file_path: p.input.path, content: p.input.content } : p.tool === "shell" ? { command: p.input.command, description: "Run the command" } : p.tool === "ask" ? { questions: [{ ...p.input, type: "choice", multiSelect: false }] } : p.input;
      parts = name ? [{ functionCall: { name, args } }] : [{ text: `no ${p.tool} tool offered` }];
    } else {
      parts = null; // streamed below
    }
  }
  log?.write(JSON.stringify({ api: "gemini", model, stream, tail: contents.slice(-2).map((c) => ({ role: c.role, parts: (c.parts ?? []).map((x) => JSON.stringify(x).slice(0, 300)) })), plan: p }) + "\n");
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const candidate = (ps, finish) => ({ candidates: [{ content: { role: "model", parts: ps }, index: 0, ...(finish ? { finishReason: "STOP" } : {}) }], usageMetadata, modelVersion: model });
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify(candidate(parts ?? [{ text: p.text }], true)));
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  if (parts) {
    send(candidate(parts, true));
  } else {
    const words = chunks(p.text);
    for (const [i, c] of words.entries()) {
      if (res.destroyed) return;
      send(candidate([{ text: c }], i === words.length - 1));
      if (p.delay) await sleep(p.delay);
    }
  }
  res.end();
}

// ---------- OpenAI Chat Completions (Qwen Code, OpenCode, Mistral Vibe, Cline, Factory Droid, Goose) ----------

/** A chat message's text, without the `<system-reminder>`s Qwen Code adds to the user's turn
 * and the `<turn-context>` (time, working folder) Goose adds to it. */
const chatText = (m) =>
  (typeof m.content === "string" ? m.content : (m.content ?? []).map((c) => c.text ?? "").join("\n"))
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "")
    .replace(/<turn-context>[\s\S]*?<\/turn-context>/g, "")
    .trim();

/** The tool names each kind goes by (Qwen Code; OpenCode; Mistral Vibe; Cline; Factory Droid; Goose). */
const CHAT_TOOLS = {
  write: ["write_file", "write", "Create", "apply_patch"],
  read: ["read_file", "read", "Read"],
  shell: ["run_shell_command", "bash", "run_commands", "Execute", "shell"],
  ask: ["ask_user_question", "ask_user", "question", "ask_followup_question", "AskUser"],
  /** Where MCP tools are deferred: a search that makes them offered on the next request. */
  search: ["ToolSearch", "tool_search", "search_tool_functions"],
  /** Mistral Vibe's way to call what its search found: a TypeScript program. */
  program: ["run_typescript"],
};

function chatTool(tools, kind, mcpName) {
  const names = tools.map((t) => t.function?.name ?? t.name);
  if (kind === "mcp") return names.find((n) => n === mcpName || n.endsWith(`_${mcpName}`) || n.endsWith(`__${mcpName}`)) ?? null;
  return names.find((n) => CHAT_TOOLS[kind].includes(n)) ?? null;
}

/** The parameter names of tool `name` (its JSON schema's properties). */
function chatParams(tools, name) {
  const t = tools.find((x) => (x.function?.name ?? x.name) === name);
  return Object.keys((t?.function?.parameters ?? t?.parameters ?? t?.input_schema)?.properties ?? {});
}

/** The arguments of a `kind` call to `name`, under the names its schema uses (file_path or
 * filePath or path; Qwen's is_background, a description where one is asked for). */
function chatArgs(tools, name, kind, input) {
  const params = chatParams(tools, name);
  const pick = (...c) => c.find((k) => params.includes(k)) ?? c[0];
  const described = (args) => (params.includes("description") ? { ...args, description: "Run the command" } : args);
  // Cline: no plain write tool, only a patch in Codex's format; commands go in a list.
  // Cline writes an added file's lines without a final newline: one empty line more gives it one.
  if (name === "apply_patch") return { input: applyPatchFor(input.path, input.content).replace(/\n\*\*\* End Patch$/, fs.existsSync(input.path) ? "$&" : "\n+$&") };
  if (name === "run_commands") return { commands: [input.command] };
  if (kind === "write" || kind === "read") {
    const args = { [pick("file_path", "filePath", "path", "absolute_path")]: input.path };
    return kind === "write" ? { ...args, [pick("content", "text", "file_text")]: input.content } : args;
  }
  if (kind === "shell") {
    const args = described({ command: input.command });
    if (params.includes("summary")) args.summary = "Run the command";
    if (params.includes("is_background")) args.is_background = false;
    if (params.includes("requires_approval")) args.requires_approval = true;
    if (params.includes("riskLevel")) Object.assign(args, { riskLevel: "low", riskLevelReason: "prints a word" });
    return args;
  }
  if (kind === "ask") {
    // Only the fields the question's schema allows (Mistral Vibe refuses an `id`).
    const t = tools.find((x) => (x.function?.name ?? x.name) === name);
    const schema = t?.function?.parameters ?? t?.parameters ?? {};
    const items = schema.properties?.questions?.items ?? {};
    // Vibe's schema names the question's type in $defs ({"$ref": "#/$defs/UserQuestion"}).
    const question_ = items.$ref ? schema.$defs?.[items.$ref.split("/").pop()] : items;
    const allowed = Object.keys(question_?.properties ?? {});
    const question = { ...input, multiSelect: false };
    return { questions: [allowed.length ? Object.fromEntries(Object.entries(question).filter(([k]) => allowed.includes(k))) : question] };
  }
  return input;
}

async function chat(req, res, body) {
  const messages = body.messages ?? [];
  const tools = body.tools ?? [];
  const last = messages[messages.length - 1] ?? {};
  // Qwen Code's write_file and OpenCode's write refuse to overwrite a file the model has not
  // read in the session: the model reads it first, then writes. Factory Droid offers MCP tools
  // only after a tool search finds them: the model searches first, then calls. After such a
  // preparatory call the model goes on with the user's request.
  const readTool = chatTool(tools, "read", null);
  const searchTool = chatTool(tools, "search", null);
  const lastCall = [...messages].reverse().find((m) => m.role === "assistant")?.tool_calls?.[0]?.function?.name;
  const afterRead = last.role === "tool" && lastCall !== undefined && (lastCall === readTool || lastCall === searchTool);
  const result = last.role === "tool" && !afterRead ? chatText(last) : null;
  // The user's words: after a read or search, those before it; after the user's own message,
  // only those since the last tool call or result (a turn Qwen ended on a cancelled tool call,
  // such as a declined question, leaves the call and its result before the next prompt).
  const turn = afterRead
    ? messages.filter((m) => m.role !== "system" && m.role !== "tool" && !m.tool_calls)
    : messages.filter((m) => m.role !== "system").map((m) => (m.role === "tool" ? { ...m, role: "assistant" } : m));
  const p = plan(currentTurnText(turn, chatText), result, req.fakeServer);
  let call = null;
  const callOf = (name, args) => ({ index: 0, id: `call_${Date.now()}`, type: "function", function: { name, arguments: JSON.stringify(args) } });
  if (p.tool === "write" && !afterRead && fs.existsSync(p.input.path) && readTool) {
    call = callOf(readTool, chatArgs(tools, readTool, "read", p.input));
  } else if (p.tool) {
    const name = chatTool(tools, p.tool, p.name);
    if (name) call = callOf(name, chatArgs(tools, name, p.tool, p.input));
    else if (p.tool === "mcp" && searchTool && lastCall !== searchTool) call = callOf(searchTool, { query: p.name });
    else if (p.tool === "mcp" && lastCall === searchTool && chatTool(tools, "program", null)) {
      // Mistral Vibe: the search named the function (`mcp_<server>.<tool>`, a `-` in the
      // tool's name spelled `_`); a TypeScript program calls it and returns its result.
      const names = [...new Set([p.name, p.name.replace(/[^A-Za-z0-9_]/g, "_")])];
      const fn = names.map((n) => new RegExp(`([\\w-]+)\\.${n}\\b`).exec(chatText(last))?.[0]).find(Boolean);
      if (fn) call = callOf(chatTool(tools, "program", null), { code: `async function main() {\n  return await tools.${fn}(${JSON.stringify(p.input)});\n}\n` });
      else p.text = `no mcp tool offered (the search found no ${p.name})`;
    }
    else p.text = `no ${p.tool} tool offered`;
  }
  log?.write(JSON.stringify({ api: "chat", model: body.model, tail: messages.slice(-2).map((m) => ({ role: m.role, text: chatText(m).slice(0, 300), tool_calls: m.tool_calls })), plan: p }) + "\n");
  const id = `chatcmpl_${Date.now()}`;
  const base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    const message = call ? { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: call.function }] } : { role: "assistant", content: p.text };
    return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: call ? "tool_calls" : "stop" }], usage }));
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (delta, finish = null) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  if (call) {
    send({ role: "assistant", content: null, tool_calls: [call] });
    send({}, "tool_calls");
  } else {
    for (const c of chunks(p.text)) {
      if (res.destroyed) return;
      send({ role: "assistant", content: c });
      if (p.delay) await sleep(p.delay);
    }
    send({}, "stop");
  }
  res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  res.write("data: [DONE]\n\n");
  res.end();
}

// ---------- server ----------

export function startFakeModels(port = 0) {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", async () => {
      req.fakeServer = server;
      server.bodies?.push(raw);
      // The keys agents send (Gemini: x-goog-api-key; OpenAI-style: a bearer token), so a test
      // can check that a key given at sign-in reached the model API.
      const key = req.headers["x-goog-api-key"] ?? req.headers["x-api-key"] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (key) server.keysSeen.add(key);
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {}
      log?.write(JSON.stringify({ method: req.method, url: req.url, model: body.model, stream: body.stream, tools: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ? t.functionDeclarations.map((d) => d.name) : [t.tools ? { [t.name]: t.tools.map((n) => n.name) } : t.name ?? t.function?.name ?? t.type])), toolShapes: (body.tools ?? []).filter((t) => t.tools).map((t) => JSON.stringify(t).slice(0, 600)), params: Object.fromEntries((body.tools ?? []).map((t) => [t.function?.name ?? t.name, chatParams(body.tools, t.function?.name ?? t.name)])) }) + "\n");
      // The models asked for (in the body, or Gemini's URL), so a test can check a model switch.
      server.modelsSeen.add(body.model ?? /\/models\/([^/:]+):/.exec(req.url)?.[1]);
      try {
        const path = req.url.split("?")[0];
        if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ input_tokens: 10 }));
        }
        if (req.method === "POST" && path.endsWith("/messages")) return await anthropic(req, res, body);
        if (req.method === "POST" && path.endsWith("/responses")) return await responses(req, res, body);
        if (req.method === "POST" && path.endsWith("/chat/completions")) return await chat(req, res, body);
        const g = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
        if (req.method === "POST" && g && g[2] === "countTokens") {
          res.writeHead(200, { "content-type": "application/json" });
          return res.end(JSON.stringify({ totalTokens: 10 }));
        }
        if (req.method === "POST" && g) return await gemini(req, res, body, g[1], g[2] === "streamGenerateContent");
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
  server.keysSeen = new Set();
  server.modelsSeen = new Set();
  server.toolResults = [];
  server.bodies = null;
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startFakeModels(Number(process.argv[2] ?? 0));
  console.log(`fake models on http://127.0.0.1:${server.address().port}`);
}
