// The v2 column of the real-agents matrix (issue 44): the flows of the v1 matrix that ACP v2
// still has, run through `porthole-cli --protocol 2` with the agents that answer 2 (agents.mjs,
// `v2`). Each checks what v2 promises on the wire (through the ACP tap) and in porthole-cli's
// JSON lines: the prompt only acknowledged, the turn ended by `state_update idle` with its
// `stopReason`, messages keyed by `messageId` (whole, not duplicated, the user's prompt echoed
// as the user's and never as the agent's), `requires_action` around each question and
// permission, display-only terminals and no `fs/*` or `terminal/*` request, modes as config
// options. What the agents send is written down in docs/acp-v2.md.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `ctx`: run.mjs's { runCli, server, root, expect, ok, mcpConnection }. Returns [name, flow]
 * pairs; each flow returns a note for the matrix, or { skip }, or throws why it failed. */
export function v2Flows({ runCli, server, root, expect, ok, mcpConnection }) {
  const run = (agent, args, opts = {}) => runCli(agent, args, { ...opts, protocol: "2" });
  /** The mode as v2 has it (a config option, `--config mode=...`), where agents.mjs names one. */
  const modeConfig = (agent) => (agent.mode ? ["--config", `mode=${agent.mode}`] : []);

  /** Every flow's first check: both sides speak v2 (one v2-shaped initialize, answered 2). */
  function spokeV2(r) {
    ok(r);
    const init = r.events.find((e) => e.type === "initialized");
    expect(init?.protocolVersion === 2, `porthole-cli's initialized line says protocolVersion ${init?.protocolVersion}`);
    const sent = r.acp.filter((m) => m.dir === "to-agent" && m.msg.method === "initialize");
    expect(sent.length === 1 && sent[0].msg.params?.protocolVersion === 2 && sent[0].msg.params.capabilities && !sent[0].msg.params.clientCapabilities, `initialize as sent: ${JSON.stringify(sent.map((m) => m.msg.params)).slice(0, 200)}`);
    for (const method of ["fs/read_text_file", "fs/write_text_file", "terminal/create"]) {
      expect(!r.acp.some((m) => m.dir === "from-agent" && m.msg.method === method), `the agent asked ${method}, which v2 does not have`);
    }
  }

  /** The session updates of porthole-cli's JSON lines, as the agent sent them. */
  const lines = (r, kind) => r.events.filter((e) => e.type === "session_update" && (!kind || e.update.sessionUpdate === kind)).map((e) => e.update);
  /** The session updates in the ACP tap, in order. */
  const wire = (r) => r.acp.filter((m) => m.dir === "from-agent" && m.msg.method === "session/update").map((m) => m.msg.params.update);
  const states = (r) => wire(r).filter((u) => u.sessionUpdate === "state_update");
  /** porthole-cli's tool call lines: the first update of a call is printed as v1's `tool_call`
   * (the call it creates), the later ones as `tool_call_update`. */
  const calls = (r) => [...lines(r, "tool_call"), ...lines(r, "tool_call_update")];

  /** The messages of `role` ("agent", "user", "agent_thought") as a client keeps them: upserts
   * by `messageId` (content left out: unchanged; `null`: cleared; a list: replaced), chunks
   * appended. A Map of messageId to its text. */
  function messages(r, role) {
    const out = new Map();
    for (const u of lines(r)) {
      const id = u.messageId ?? "(no messageId)";
      if (u.sessionUpdate === `${role}_message` || (role === "agent_thought" && u.sessionUpdate === "agent_thought")) {
        if (!("content" in u)) out.set(id, out.get(id) ?? "");
        else out.set(id, (u.content ?? []).map((c) => c.text ?? "").join(""));
      } else if (u.sessionUpdate === `${role}_message_chunk` || (role === "agent_thought" && u.sessionUpdate === "agent_thought_chunk")) {
        out.set(id, (out.get(id) ?? "") + (u.content?.text ?? ""));
      }
    }
    return out;
  }
  const agentText = (r) => [...messages(r, "agent").values()].join("");

  /** The turn ended as v2 says: `session/prompt` answered with only a `messageId`, then a
   * `state_update idle` with `stopReason`, after the agent was seen busy; porthole-cli's
   * `turn_end` line comes after that idle and carries the same stop reason. Returns a note. */
  function endedByIdle(r, stopReason) {
    const prompted = r.acp.filter((m) => m.dir === "to-agent" && m.msg.method === "session/prompt");
    expect(prompted.length > 0, "no session/prompt was sent");
    const ack = r.acp.find((m) => m.dir === "from-agent" && m.msg.id === prompted.at(-1).msg.id && !m.msg.method);
    expect(ack?.msg.result && Object.keys(ack.msg.result).every((k) => k === "messageId" || k === "_meta") && ack.msg.result.messageId, `session/prompt answered ${JSON.stringify(ack?.msg ?? null).slice(0, 200)}, not only a messageId`);
    const idle = states(r).filter((s) => s.state === "idle" && s.stopReason);
    expect(idle.at(-1)?.stopReason === stopReason, `the last idle with a stopReason says ${idle.at(-1)?.stopReason}, not ${stopReason}`);
    expect(states(r).some((s) => s.state === "running"), "the agent never said it was running");
    const ends = r.events.filter((e) => e.type === "turn_end");
    expect(ends.at(-1)?.stopReason === stopReason && !ends.at(-1)?.error, `porthole-cli's turn_end: ${JSON.stringify(ends.at(-1) ?? null)}`);
    const lastIdle = r.events.findLastIndex((e) => e.type === "session_update" && e.update.sessionUpdate === "state_update" && e.update.state === "idle");
    expect(lastIdle >= 0 && lastIdle < r.events.lastIndexOf(ends.at(-1)), "the turn_end line came before the idle state it stands for");
    const seq = states(r).map((s) => s.state);
    return `acknowledged with a messageId; ${seq.join(" > ")}; idle ${stopReason}`;
  }

  /** The user's prompt: echoed once as the user's message (an upsert or chunks), never as the agent's. */
  function promptEchoedAsUser(r, prompt) {
    const user = [...messages(r, "user").values()];
    expect(user.filter((t) => t === prompt).length === 1, `the user's messages: ${JSON.stringify(user).slice(0, 200)}`);
    expect(![...messages(r, "agent").values()].some((t) => t === prompt), "the prompt came back as an agent message");
    const how = lines(r, "user_message").length ? "a user_message upsert" : "user_message_chunk";
    return `the prompt echoed once as the user's (${how})`;
  }

  /** `requires_action` came before `method`'s request and `running` after its answer. */
  function bracketed(r, method) {
    const i = r.acp.findIndex((m) => m.dir === "from-agent" && m.msg.method === method);
    expect(i >= 0, `no ${method} from the agent`);
    const answered = r.acp.findIndex((m) => m.dir === "to-agent" && m.msg.id === r.acp[i].msg.id && !m.msg.method);
    const stateAt = (from, to) => r.acp.slice(from, to).filter((m) => m.msg.params?.update?.sessionUpdate === "state_update").map((m) => m.msg.params.update.state);
    expect(stateAt(0, i).at(-1) === "requires_action", `the state before ${method}: ${stateAt(0, i).at(-1)}`);
    expect(answered > i && stateAt(answered).includes("running"), `no running after ${method} was answered`);
    return r.acp[i].msg;
  }

  return [
    ["streamed reply", async (agent) => {
      const prompt = `hello from porthole ${process.pid}`;
      const r = await run(agent, [prompt]);
      spokeV2(r);
      const streamed = `Porthole fake model says: ${prompt}`;
      const agentMessages = messages(r, "agent");
      expect(agentText(r) === streamed, `the agent's messages: ${JSON.stringify([...agentMessages.values()]).slice(0, 300)}`);
      const chunks = lines(r, "agent_message_chunk");
      expect(chunks.length >= 3 && chunks.every((c) => c.messageId), `${chunks.length} agent_message_chunk lines, ${chunks.filter((c) => !c.messageId).length} without a messageId`);
      const turn = endedByIdle(r, "end_turn");
      const echo = promptEchoedAsUser(r, prompt);
      const notices = lines(r, "notice").map((n) => n.severity);
      return `${chunks.length} chunks of one message (${agentMessages.size} messageId), the text whole; ${echo}; ${turn}${notices.length ? `; notices: ${notices.join(", ")}` : ""}`;
    }],
    ["edit a file (permission asked)", async (agent) => {
      const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
      const target = join(ws, "notes.txt");
      writeFileSync(target, "original\n");
      const r = await run(agent, [...modeConfig(agent), "--permission", "allow-once", `[[edit ${target} edited by a real agent]]`], { workspace: ws });
      spokeV2(r);
      const asked = r.events.filter((e) => e.type === "permission");
      expect(asked.length === 1, `${asked.length} permission requests`);
      const req = bracketed(r, "session/request_permission");
      const { title, subject } = req.params;
      expect(title && subject?.type === "tool_call", `the request: ${JSON.stringify(req.params).slice(0, 200)}`);
      // The dialog shows the request's title, on the agent's tool call.
      expect(asked[0].toolCall?.title === title, `the dialog's title "${asked[0].toolCall?.title}", the request's "${title}"`);
      expect(asked[0].toolCall?.toolCallId === subject.toolCall.toolCallId, `the dialog's tool call ${asked[0].toolCall?.toolCallId}, the subject's ${subject.toolCall.toolCallId}`);
      const once = req.params.options.find((o) => o.kind === "allow_once")?.optionId;
      expect(asked[0].selected === once, `answered ${JSON.stringify(asked[0].selected)}, not the allow_once option ${once}`);
      const reply = r.acp.find((m) => m.dir === "to-agent" && m.msg.id === req.id && !m.msg.method)?.msg.result;
      expect(reply?.outcome?.outcome === "selected" && reply.outcome.optionId === once, `the agent was answered ${JSON.stringify(reply ?? null)}`);
      expect(readFileSync(target, "utf8") === "edited by a real agent\n", `file holds ${JSON.stringify(readFileSync(target, "utf8"))}`);
      const diff = calls(r).some((u) => (u.content ?? []).some((c) => c.type === "diff"));
      const turn = endedByIdle(r, "end_turn");
      return `asked "${title}" (subject: the tool call, bracketed by requires_action/running), written by the agent itself${diff ? ", diff shown" : ""}; ${turn}`;
    }],
    ["shell command", async (agent) => {
      const marker = `porthole-shell-${process.pid}`;
      const r = await run(agent, [...modeConfig(agent), "--permission", "allow-once", `[[shell echo ${marker}]]`]);
      spokeV2(r);
      expect(agentText(r).includes(`Tool finished: ${marker}`), `the model did not get the output: ${agentText(r).slice(-120)}`);
      // v2's terminals are display-only updates; their output is base64.
      const terminals = lines(r, "terminal_update");
      const output = terminals.map((t) => Buffer.from(t.output?.data ?? "", "base64").toString("utf8")).join("");
      expect(output.includes(marker), `the command's output is in no terminal_update line (${terminals.length} of them)`);
      const ids = new Set(terminals.map((t) => t.terminalId));
      const shownIn = calls(r).some((u) => (u.content ?? []).some((c) => c.type === "terminal" && ids.has(c.terminalId)));
      expect(shownIn, "no tool call shows the terminal");
      const exit = terminals.find((t) => t.exitStatus)?.exitStatus;
      const asked = r.events.filter((e) => e.type === "permission").length;
      const turn = endedByIdle(r, "end_turn");
      return `output in ${terminals.length} terminal_update(s) (base64, shown in the tool call; exit ${exit?.exitCode ?? "?"}), no terminal/* request, ${asked ? `permission asked ${asked}x` : "no permission asked"}; returned to the model; ${turn}`;
    }],
    ["cancel mid-turn", async (agent) => {
      const r = await run(agent, ["--cancel-after-updates", "4", "[[slow 40]]"]);
      spokeV2(r);
      const turn = endedByIdle(r, "cancelled");
      expect(!agentText(r).includes("step-39"), "the slow answer ran to its end");
      const prompted = r.acp.findIndex((m) => m.dir === "to-agent" && m.msg.method === "session/prompt");
      const cancelled = r.acp.findIndex((m) => m.dir === "to-agent" && m.msg.method === "session/cancel");
      expect(prompted >= 0 && cancelled > prompted, "no session/cancel after the prompt in the ACP traffic");
      // porthole-cli counts the turn's own content (the agent's messages, thoughts, tool calls,
      // plans), not the echo of the user's prompt or the state.
      const TURN = new Set(["agent_message", "agent_message_chunk", "agent_thought", "agent_thought_chunk", "tool_call_update", "tool_call_content_chunk", "plan_update"]);
      const counted = r.acp.slice(prompted, cancelled).filter((m) => m.dir === "from-agent" && TURN.has(m.msg.params?.update?.sessionUpdate)).length;
      expect(counted === 4, `${counted} turn updates before session/cancel, not 4`);
      return `session/cancel after exactly 4 turn updates; ${turn}`;
    }],
    ["sessions: list, resume (replay), close", async (agent) => {
      const ws = mkdtempSync(join(root, `porthole-agent-${agent.id}-ws-`));
      const first = await run(agent, ["remember porthole-marker-17"], { workspace: ws });
      spokeV2(first);
      const id = first.events.find((e) => e.type === "session").sessionId;
      const again = (args) => run(agent, args, { workspace: ws, home: first.home });
      const done = [];
      const listed = await again(["--list-sessions"]);
      spokeV2(listed);
      expect(listed.events.some((e) => e.type === "listed_session" && e.session.sessionId === id), "the session is not listed");
      done.push("list");
      // --load on v2 is session/resume with replayFrom {type: "start"}: the history comes before
      // the answer, then a turn knows it.
      const loaded = await again(["--load", id, "what did I say?"]);
      spokeV2(loaded);
      const resume = loaded.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/resume");
      expect(resume?.msg.params?.replayFrom?.type === "start" && !loaded.acp.some((m) => m.msg.method === "session/load"), `the load went as ${JSON.stringify(resume?.msg.params ?? null).slice(0, 200)}`);
      const user = [...messages(loaded, "user").values()];
      expect(user.filter((t) => t.includes("porthole-marker-17")).length === 1, `the history's user messages: ${JSON.stringify(user).slice(0, 200)}`);
      expect(agentText(loaded).includes("Porthole fake model says: remember porthole-marker-17"), "the agent's reply was not replayed");
      endedByIdle(loaded, "end_turn");
      expect(agentText(loaded).endsWith("Porthole fake model says: what did I say?"), `the turn after the replay: ${agentText(loaded).slice(-120)}`);
      done.push(`resume with replayFrom start (history replayed once: ${user.length} user and ${messages(loaded, "agent").size} agent messages), then a turn`);
      // Resumed without a replay, a turn, then closed (porthole-cli --close: session/close after the prompts).
      const resumed = await again(["--resume", id, "--close", "still there?"]);
      spokeV2(resumed);
      const plain = resumed.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/resume");
      expect(plain && !plain.msg.params.replayFrom, `--resume sent ${JSON.stringify(plain?.msg.params ?? null).slice(0, 200)}`);
      endedByIdle(resumed, "end_turn");
      expect(agentText(resumed) === "Porthole fake model says: still there?", `after a resume without replay, the agent's messages: ${agentText(resumed).slice(0, 200)}`);
      done.push("resume without replay, then a turn");
      const close = resumed.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/close");
      expect(close?.msg.params?.sessionId === id, "no session/close for the session");
      const answer = resumed.acp.find((m) => m.dir === "from-agent" && m.msg.id === close.msg.id && !m.msg.method);
      expect(answer?.msg.result !== undefined, `session/close answered ${JSON.stringify(answer?.msg ?? null).slice(0, 200)}`);
      expect(resumed.events.some((e) => e.type === "done" && e.request === "session/close"), "porthole-cli did not say the close was done");
      done.push("close (after the turn, same process)");
      return done.join(", ");
    }],
    ["modes as config options", async (agent) => {
      const bogus = await run(agent, ["--mode", "no-such-mode", "hello"]);
      expect(bogus.code !== 0, "--mode was accepted with an agent that has no modes in v2");
      expect(bogus.stderr.includes("config option `mode`"), `--mode was refused without naming the config option: ${bogus.stderr.trim().split("\n").pop()}`);
      expect(!bogus.acp.some((m) => m.dir === "to-agent" && ["session/set_mode", "session/set_config_option", "session/prompt"].includes(m.msg.method)), "a request was sent for a mode the agent does not have");
      const opened = bogus.acp.find((m) => m.dir === "from-agent" && m.msg.result?.sessionId && m.msg.result.configOptions)?.msg.result;
      expect(opened && !opened.modes, "session/new answered with v1's modes");
      const option = opened.configOptions.find((o) => o.configId === "mode");
      expect(option?.type === "select", `no select config option \`mode\`: ${JSON.stringify(opened.configOptions.map((o) => o.configId ?? o.id))}`);
      const values = (option.options ?? []).flatMap((x) => x.options ?? [x]).map((x) => x.value);
      const other = values.find((v) => v !== option.currentValue);
      const r = await run(agent, ["--config", `mode=${other}`, "hello"]);
      spokeV2(r);
      const set = r.acp.find((m) => m.dir === "to-agent" && m.msg.method === "session/set_config_option");
      expect(set?.msg.params?.configId === "mode" && set.msg.params.type === "id" && set.msg.params.value === other, `session/set_config_option sent ${JSON.stringify(set?.msg.params ?? null)}`);
      const answer = r.acp.find((m) => m.dir === "from-agent" && m.msg.id === set.msg.id && !m.msg.method);
      expect(answer?.msg.result, `session/set_config_option answered ${JSON.stringify(answer?.msg.error ?? null).slice(0, 200)}`);
      const now = r.events.find((e) => e.type === "config_options")?.configOptions?.find((o) => o.id === "mode");
      expect(now?.currentValue === other, `porthole-cli's config_options line says mode = ${now?.currentValue}`);
      endedByIdle(r, "end_turn");
      return `no modes; --mode refused before sending, naming \`mode\` (${values.join("/")}); --config mode=${other} sent {configId, type: "id", value}, the answer's mode is ${other}, then a turn`;
    }],
    ["mcp connection (http)", async (agent) => {
      const broken = agent.v2McpApproval;
      if (!broken) return mcpConnection(agent, { stdioOnly: false, protocol: "2", mode: modeConfig(agent) });
      // The agent cannot ask for its MCP approval in v2 (agents.mjs): in its usual mode the call
      // must fail as described there (this fails when the agent fixes it), then in a mode that
      // asks nothing the connection is checked in full.
      let failed = "";
      try {
        await mcpConnection(agent, { stdioOnly: false, protocol: "2", mode: modeConfig(agent) });
      } catch (e) {
        failed = String(e.message ?? e);
      }
      expect(failed.includes(broken.error), `in mode ${agent.mode} the MCP call ${failed ? `failed otherwise: ${failed.slice(0, 200)}` : "worked"}: update agents.mjs`);
      const note = await mcpConnection(agent, { stdioOnly: false, protocol: "2", mode: ["--config", `mode=${broken.mode}`] });
      return `in mode ${agent.mode} the call fails ("${broken.error}": ${broken.why}); in mode ${broken.mode}: ${note}`;
    }],
    ["question tool as a form elicitation", async (agent) => {
      const q = agent.questionTool ?? {};
      if (q.skip || q.absent) return { skip: q.skip ?? q.absent };
      const answers = join(mkdtempSync(join(root, "porthole-agent-answers-")), "answers.json");
      writeFileSync(answers, JSON.stringify({ [q.field]: "Orange" }));
      const config = (q.config ?? []).flatMap((c) => ["--config", c]);
      const r = await run(agent, [...modeConfig(agent), ...config, "--permission", "allow-once", "--elicit", "accept", "--answers", answers, "[[ask]]"]);
      spokeV2(r);
      const asked = r.events.filter((e) => e.type === "elicitation");
      expect(asked.length === 1 && asked[0].mode === "form" && asked[0].action === "accept", `elicitations: ${JSON.stringify(asked.map((a) => [a.mode, a.action]))}`);
      expect(r.events.filter((e) => e.type === "permission").length === 0, "a permission request reached the client beside the form");
      const field = asked[0].schema?.fields?.find((f) => f.name === q.field);
      const labels = field?.kind?.options?.map((o) => o.value) ?? [];
      expect(field?.kind?.type === "singleSelect" && labels.includes("Teal") && labels.includes("Orange"), `field ${q.field}: ${JSON.stringify(field ?? asked[0].schema).slice(0, 200)}`);
      const req = bracketed(r, "elicitation/create");
      expect(req.params.sessionId && !req.params.requestId, `the question's scope: ${JSON.stringify({ sessionId: req.params.sessionId, requestId: req.params.requestId })}`);
      expect((q.answered ?? /Which color\?.*Orange/).test(agentText(r)), `the answer did not reach the model: ${agentText(r).slice(-160)}`);
      const turn = endedByIdle(r, "end_turn");
      const how = config.length ? ` (with ${q.config.map((c) => `--config ${c}`).join(" ")})` : "";
      return `form "${asked[0].message}"${how} in the session's scope${req.params.toolCallId ? " tied to the tool call" : ""}, field ${q.field} (${labels.join("/")}), bracketed by requires_action/running; the answer reached the model; ${turn}`;
    }],
  ];
}
