// Generated from porthole-core's events, dialog prompts and answers (ts-rs) by
// `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract`. Do not edit.
import type { PermissionOption, PermissionOptionKind, StopReason, ToolCallUpdate } from "@agentclientprotocol/sdk";
// The ACP payloads of the transcript model (porthole-core's transcript.rs), named `Acp.X` there.
import type * as Acp from "@agentclientprotocol/sdk/unstable";
import type { FormSchema, UrlAnalysis } from "./elicitation";
/** A form's values by field name, as the agent receives them. */
export type FormContent = Record<string, string | number | boolean | Array<string>>;

export type AgentIdentity = { name: string, title: string | null, version: string | null, };

export type ElicitationPrompt = { dialogId: number, agent: AgentIdentity, scope: Scope, message: string, 
/**
 * Warning codes: `secret-request` for forms, the URL analyzer's codes, and
 * `bidi-control` / `invisible-char` found in the message.
 */
warnings: Array<string>, 
/**
 * Set only when an MCP connection asked, through Porthole's gateway, in this agent's
 * session (`AgentClient::ask_for_connection`): the agent's own requests never set it, so
 * an agent cannot pass its question off as a server's, nor a server's as the agent's.
 */
mcp?: McpAsker, } & ({ "mode": "form", schema: FormSchema, initialValues: FormContent, 
/**
 * Field name -> what it accepts, in words (`FormSchema::hints`), shown before typing.
 */
hints: Record<string, string>, canAccept: boolean, blockingReason: string | null, 
/**
 * The form looks like it asks for a secret (the protocol forbids that): the window
 * shows it as a warning first and makes sending it a deliberate act.
 */
secret: boolean, 
/**
 * Why this form looks like it asks for a secret (empty when it does not).
 */
secretIndicators: Array<string>, } | { "mode": "url", elicitationId: string, url: UrlAnalysis, });

export type FileAccessPrompt = { dialogId: number, agent: AgentIdentity, sessionId: string, path: string, operation: FileOperation, 
/**
 * Why we ask, in words for the dialog.
 */
reason: string, };

export type FileOperation = "read" | "write";

export type McpAsker = { 
/**
 * The connection's name in `connections.json`.
 */
connection: string, 
/**
 * Where it runs: the remote server's host, or `None` for a stdio server on this computer.
 */
host: string | null, };

export type PermissionPrompt = { dialogId: number, agent: AgentIdentity, sessionId: string, toolCall: ToolCallUpdate, 
/**
 * The tool kind (`edit`, `execute`, ...) from this request or the tool call's earlier
 * updates, `other` when the agent gave none: what an "always" rule is keyed on.
 */
toolKind: string, options: Array<PermissionOption>, 
/**
 * `bidi-control` / `invisible-char` when the tool call's title or an option's name
 * carries characters that can disguise what the user is agreeing to.
 */
warnings: Array<string>, 
/**
 * Set only for a tool call an MCP App of this connection asks to make (through the
 * gateway's owner, `AgentClient::ask_app_permission`): the dialog names the server, not
 * the agent. An agent's own `session/request_permission` never has it.
 */
mcp?: McpAsker, };

export type Scope = { "kind": "session", sessionId: string, toolCallId: string | null, } | { "kind": "request", requestId: string | number | null, during: string | null, };

export type DialogPrompt = { "type": "elicitation" } & ElicitationPrompt | { "type": "permission" } & PermissionPrompt | { "type": "file_access" } & FileAccessPrompt;

export type AnswerAction = "accept" | "decline" | "cancel";

export type DialogAnswer = { "type": "elicitation", action: AnswerAction, content?: FormContent, } | { "type": "permission", optionId: string | null, } | { "type": "file_access", allow: boolean, };

export type DismissReason = "agent_cancelled" | "turn_cancelled" | "session_ended" | "agent_exited" | "question_ended";

export type ExitInfo = { 
/**
 * Exit code, when it exited normally.
 */
code: number | null, 
/**
 * Signal number, when it was killed by one.
 */
signal: number | null, 
/**
 * A readable summary such as "exit status 3" or "killed by signal 9".
 */
status: string, stderrTail: string, 
/**
 * True when we asked it to stop.
 */
requested: boolean, };

export type ItemUpdate = { "kind": "message" } & MessageChange | { "kind": "tool_call" } & ToolCallChange | { "kind": "plan" } & Acp.Plan | { "kind": "notice" } & Acp.Notice | { "kind": "compaction" } & Acp.CompactionUpdate | { "kind": "compaction_summary" } & Acp.CompactionSummaryChunk | { "kind": "terminal" } & TerminalChange | { "kind": "subagent" } & SubagentChange | { "kind": "session_message" } & SessionMessageChange | { "kind": "unknown" } & UnknownUpdate;

export type MessageChange = { role: MessageRole, messageId: string | null, _meta?: { [key: string]: unknown }, } & ({ "op": "append", content: Acp.ContentBlock, } | { "op": "replace", content: Array<Acp.ContentBlock>, } | { "op": "keep" });

export type MessageRole = "user" | "agent" | "thought";

export type RpcError = { code: number, message: string, };

export type RunState = { 
/**
 * `running`, `requires_action`, `idle`, or a value Porthole does not know, as it came.
 */
state: string, 
/**
 * Foreground work goes on: false only for `idle` (an unknown state counts as busy, never
 * idle, as the protocol requires).
 */
busy: boolean, 
/**
 * Why foreground work stopped (an `idle` state's `stopReason`), as the agent named it.
 */
stopReason: string | null, 
/**
 * Work running beside the foreground work, each as the agent described it; `None`: the
 * agent does not report it (not "nothing runs").
 */
background: Array<unknown> | null, };

export type SessionMessageChange = { messageId: string, senderSessionId?: string | null, recipientSessionId?: string | null, 
/**
 * Fields Porthole does not show (`senderMessageId`, `recipientMessageId`, newer ones).
 */
other?: { [key: string]: unknown }, _meta?: { [key: string]: unknown } | null, } & ({ "op": "append", content: Acp.ContentBlock, } | { "op": "replace", content: Array<Acp.ContentBlock>, } | { "op": "keep" });

export type SessionState = { "kind": "available_commands" } & Acp.AvailableCommandsUpdate | { "kind": "current_mode" } & Acp.CurrentModeUpdate | { "kind": "config_options" } & Acp.ConfigOptionUpdate | { "kind": "session_info" } & Acp.SessionInfoUpdate | { "kind": "usage" } & Acp.UsageUpdate | { "kind": "state" } & RunState;

export type SubagentChange = { 
/**
 * The subagent's own session (its updates come with this `sessionId`).
 */
sessionId: string, 
/**
 * The parent's display title for the subagent.
 */
title?: string | null, 
/**
 * What the subagent is for.
 */
description?: string | null, 
/**
 * Its running state, mirrored by the parent (`null`: no report, not idle).
 */
state?: RunState | null, 
/**
 * Fields Porthole does not show (`cwd`, `capabilities`, `additionalDirectories`, newer
 * ones), as they came.
 */
other?: { [key: string]: unknown }, 
/**
 * The `_meta` patch as it came (`null` clears the stored metadata).
 */
_meta?: { [key: string]: unknown } | null, };

export type TerminalChange = { 
/**
 * Unique within the session.
 */
terminalId: string, command: string | null, cwd: string | null, 
/**
 * Output, decoded from base64 (bytes that are not UTF-8 are replaced, as a terminal shows
 * them); `null` when this update has none.
 */
output: TerminalOutputEdit | null, 
/**
 * Set once the command ended: the terminal is done.
 */
exitStatus: TerminalExit | null, };

export type TerminalExit = { exitCode: number | null, signal: string | null, };

export type TerminalOutputEdit = { "op": "append", text: string, } | { "op": "replace", text: string, };

export type ToolCallChange = { toolCallId: string, 
/**
 * The agent announced the call with this update (v1's `tool_call`): its fields are the
 * whole call (a title at least). False for a patch, which may still be the first update.
 */
opened: boolean, fields: Omit<Acp.ToolCallUpdate, "toolCallId" | "_meta">, 
/**
 * Sessions this update's content refers to (v2's display-only `session` content, a
 * subagent the call started or waits on), taken out of `fields.content`, which v1's
 * types hold. Empty for v1 and for an update that names none.
 */
sessions?: Array<string>, _meta?: { [key: string]: unknown }, };

export type TranscriptUpdate = ItemUpdate | SessionState;

export type UnknownUpdate = { 
/**
 * Its kind as the agent named it (`sessionUpdate`).
 */
sessionUpdate: string, 
/**
 * The update as it came (the SDK's JSON of it, when the SDK read it).
 */
update: unknown, };

export type CoreEvent = { "type": "session_update", sessionId: string, update: TranscriptUpdate, } | { "type": "malformed_update", sessionId: string | null, raw: unknown, error: string, } | { "type": "elicitation_rejected", mode: string | null, message: string | null, url: string | null, elicitationId: string | null, sessionId: string | null, toolCallId: string | null, error: RpcError, } | { "type": "elicitation_complete", elicitationId: string, known: boolean, dialogId: number | null, } | { "type": "turn_ended", sessionId: string, stopReason: StopReason | null, error: RpcError | null, } | { "type": "stdout_noise", line: string, } | { "type": "stdout_not_shown", lines: number, } | { "type": "line_too_long", bytes: number, limit: number, } | { "type": "agent_exited" } & ExitInfo | { "type": "terminal_created", terminalId: string, sessionId: string | null, command: string, args: Array<string>, cwd: string | null, } | { "type": "terminal_output", terminalId: string, data: string, truncated: boolean, } | { "type": "terminal_exited", terminalId: string, exitCode: number | null, signal: string | null, } | { "type": "terminal_released", terminalId: string, } | { "type": "dialog_dismissed", dialogId: number, reason: DismissReason, } | { "type": "permission_auto", sessionId: string, toolCall: ToolCallUpdate, optionId: string, optionName: string, 
/**
 * `allow_once`, `allow_always`, `reject_once` or `reject_always`.
 */
optionKind: PermissionOptionKind, 
/**
 * The tool kind the rule matched (`edit`, `execute`, ..., `other`).
 */
toolKind: string, ruleId: number, } | DialogPrompt;

export type ModelInfo = { modelId: string, name: string, description?: string | null, };

export type SessionModels = { currentModelId: string, availableModels: Array<ModelInfo>, };
