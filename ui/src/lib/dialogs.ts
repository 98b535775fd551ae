// Core's dialog prompts and answers as the window receives and sends them: generated from
// porthole-core's Rust types (generated/core.ts), with the ACP tool call shapes they carry from
// the official SDK. Only the names the components use are made here, by narrowing the generated
// unions, so a new dialog kind or field arrives from Rust without an edit in this file.
import type { PermissionOption, ToolCallUpdate } from "@agentclientprotocol/sdk";
import type { DialogPrompt, FormContent } from "./generated/core";
import type { DialogView } from "./generated/app";
export type { PermissionOption };
export type { AgentIdentity, AnswerAction, DialogAnswer, DialogPrompt, FormContent, Scope } from "./generated/core";
export type { DomainMemory } from "./generated/history";

/** One value of a form's content. */
export type FormValue = FormContent[string];

/** An elicitation waiting for the user (porthole-core's `ElicitationPrompt`), form or URL. */
export type Elicitation = Extract<DialogPrompt, { type: "elicitation" }>;
export type FormElicitation = Extract<Elicitation, { mode: "form" }>;
/** With what the consent history knows of the agent and domain (the app model adds it). */
export type UrlElicitation = Extract<Elicitation, { mode: "url" }> & Pick<DialogView, "domainMemory">;
export type PermissionRequest = Extract<DialogPrompt, { type: "permission" }>;
export type FileAccessRequest = Extract<DialogPrompt, { type: "file_access" }>;

/** ACP's tool call fields (title, kind, status, content, locations...) without the id. */
export type ToolCallFields = Omit<ToolCallUpdate, "toolCallId">;
