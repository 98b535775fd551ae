// Core's dialog prompts as the window receives them in the app model's list of waiting dialogs
// (`DialogView`, generated/app.ts, which names these), with the ACP tool call shapes they carry.
// Typed by hand from porthole-core's serde output. Imports no file that imports it back.
import type { AgentIdentity, PermissionOption, ToolCallLocation, ToolCallStatus } from "./acp";
export type { PermissionOption };
import type { FormSchema, UrlAnalysis } from "./generated/elicitation";

export type FormValue = string | number | boolean | string[];
export type FormContent = Record<string, FormValue>;

export type Scope =
  | { kind: "session"; sessionId: string; toolCallId: string | null }
  /** Outside any session; `during` is the method of our request in flight that the id names. */
  | { kind: "request"; requestId: string | number; during: string | null };

interface ElicitationBase {
  type: "elicitation";
  dialogId: number;
  agent: AgentIdentity;
  scope: Scope;
  /** Plain text from the agent: render as text, never as markdown or HTML. */
  message: string;
  /** "secret-request" first when present, then URL / text warning codes. */
  warnings: string[];
}

export interface FormElicitation extends ElicitationBase {
  mode: "form";
  schema: FormSchema;
  initialValues: FormContent;
  /** Field name -> what it accepts, in words (worded by core), shown before the user types. */
  hints: Record<string, string>;
  canAccept: boolean;
  blockingReason: string | null;
  /** Core judged that the form asks for a secret (the protocol forbids it). */
  secret: boolean;
  /** Why, in words. */
  secretIndicators: string[];
}

export interface UrlElicitation extends ElicitationBase {
  mode: "url";
  elicitationId: string;
  url: UrlAnalysis;
  /** What the consent history knows of this agent and domain (null without a history). */
  domainMemory?: DomainMemory | null;
}

export interface DomainMemory {
  agentId: string;
  agentName: string;
  domain: string;
  /** Earlier consents to this domain for this agent. */
  timesOpened: number;
  trusted: boolean;
}

export type Elicitation = FormElicitation | UrlElicitation;


export interface PermissionRequest {
  type: "permission";
  dialogId: number;
  agent: AgentIdentity;
  sessionId: string;
  /** ACP ToolCallUpdate: toolCallId plus optional title, kind, status, content, locations. */
  toolCall: ToolCallFields & { toolCallId: string };
  options: PermissionOption[];
  /** `bidi-control` / `invisible-char` when the title or an option name hides characters. */
  warnings: string[];
}

export interface FileAccessRequest {
  type: "file_access";
  dialogId: number;
  agent: AgentIdentity;
  sessionId: string;
  path: string;
  operation: "read" | "write";
  reason: string;
}

/** A waiting dialog of any kind: porthole-core's `DialogPrompt`. A new kind is a member here,
 *  and of `DialogAnswer`; svelte-check then points at `DialogHost.svelte`. */
export type Dialog = Elicitation | PermissionRequest | FileAccessRequest;

/** What the user chose in an elicitation. */
export type AnswerAction = "accept" | "decline" | "cancel";

/** The answer to a dialog, of its kind (`answer_dialog`): porthole-core's `DialogAnswer`. */
export type DialogAnswer =
  /** A form's `content` is validated by core before it reaches the agent. */
  | { type: "elicitation"; action: AnswerAction; content?: FormContent }
  /** `null` cancels. */
  | { type: "permission"; optionId: string | null }
  | { type: "file_access"; allow: boolean };

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "resource_link"; uri: string; name: string }
  | { type: "resource"; resource: unknown }
  | { type: string; [k: string]: unknown };

export type ToolCallContent =
  | { type: "content"; content: ContentBlock }
  /** `oldText` is absent or null for a new file (the SDK leaves it out). */
  | { type: "diff"; path: string; oldText?: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export interface ToolCallFields {
  title?: string | null;
  kind?: string | null;
  status?: ToolCallStatus | null;
  content?: ToolCallContent[] | null;
  locations?: ToolCallLocation[] | null;
}

