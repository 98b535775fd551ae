// The contract between the Rust backend (src-tauri, over porthole-core) and this UI.
// The backend owns all state and all protocol logic; the UI renders and asks.
// Shapes mirror the serde output of porthole-core's `events::Event` and friends.

// ---------- identity and connection ----------
export interface AgentIdentity {
  name: string;
  title: string | null;
  version: string | null;
}

export type ConnectionState = "starting" | "connected" | "failed" | "exited";

export interface AppSnapshot {
  connection: ConnectionState;
  agent: AgentIdentity | null;
  /** The command line the backend launched ("demo agent" when built in). */
  agentCommand: string;
  cwd: string;
  sessionId: string | null;
  /** Set when connection is "failed" or "exited". */
  error: { message: string; stderrTail: string } | null;
  /** True while a turn runs (Stop is enabled). */
  turnRunning: boolean;
  /** Whether the isolated (sealed) URL window is available in this build. */
  sealedViewAvailable: boolean;
}

// ---------- restricted schema (porthole_core::form) ----------
export interface EnumChoice {
  value: string;
  title: string | null;
  description: string | null;
}

export type FieldKind =
  | { type: "text"; minLength: number | null; maxLength: number | null; pattern: string | null; format: string | null; default: string | null }
  | { type: "number"; minimum: number | null; maximum: number | null; default: number | null }
  | { type: "integer"; minimum: number | null; maximum: number | null; default: number | null }
  | { type: "boolean"; default: boolean | null }
  | { type: "singleSelect"; options: EnumChoice[]; titled: boolean; default: string | null }
  | { type: "multiSelect"; options: EnumChoice[]; titled: boolean; minItems: number | null; maxItems: number | null; default: string[] }
  | { type: "unsupported"; typeName: string; reason: string; raw: unknown };

export interface Field {
  name: string;
  title: string | null;
  description: string | null;
  required: boolean;
  kind: FieldKind;
}

export interface FormSchema {
  title: string | null;
  description: string | null;
  fields: Field[];
}

export type FormValue = string | number | boolean | string[];
export type FormContent = Record<string, FormValue>;

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export interface Validation {
  /** Normalized content exactly as it would be sent. */
  content: FormContent;
  errors: FieldError[];
}

// ---------- URL analysis (porthole_core::url_safety) ----------
export type UrlWarningCode =
  | "punycode" | "mixed-script" | "confusable" | "bidi-control" | "invisible-char"
  | "ip-host" | "non-https" | "unusual-port";

export interface UrlAnalysis {
  full: string;
  normalized: string;
  scheme: string;
  hostAscii: string;
  hostUnicode: string;
  registrableDomain: string | null;
  registrableDomainAscii: string | null;
  port: number | null;
  isLoopback: boolean;
  warnings: UrlWarningCode[];
}

// ---------- dialogs ----------
export type Scope =
  | { kind: "session"; sessionId: string; toolCallId: string | null }
  | { kind: "request"; requestId: string | number };

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
  canAccept: boolean;
  blockingReason: string | null;
  secretIndicators: string[];
}

export interface UrlElicitation extends ElicitationBase {
  mode: "url";
  elicitationId: string;
  url: UrlAnalysis;
}

export type Elicitation = FormElicitation | UrlElicitation;

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: "allow_once" | "allow_always" | "reject_once" | "reject_always";
}

export interface PermissionRequest {
  type: "permission";
  dialogId: number;
  agent: AgentIdentity;
  sessionId: string;
  /** ACP ToolCallUpdate: toolCallId plus optional title, kind, status, content, locations. */
  toolCall: ToolCallFields & { toolCallId: string };
  options: PermissionOption[];
}

export type DismissReason = "agent_cancelled" | "turn_cancelled" | "session_ended" | "agent_exited";

// ---------- session updates (ACP v1 `session/update` payloads, as sent by the agent) ----------
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "resource_link"; uri: string; name: string }
  | { type: "resource"; resource: unknown }
  | { type: string; [k: string]: unknown };

export type ToolCallContent =
  | { type: "content"; content: ContentBlock }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export interface ToolCallFields {
  title?: string | null;
  kind?: string | null;
  status?: "pending" | "in_progress" | "completed" | "failed" | null;
  content?: ToolCallContent[] | null;
  locations?: { path: string; line?: number | null }[] | null;
}

export interface PlanEntry {
  content: string;
  priority: "high" | "medium" | "low";
  status: "pending" | "in_progress" | "completed";
}

export type SessionUpdate =
  | { sessionUpdate: "user_message_chunk"; content: ContentBlock; messageId?: string | null }
  | { sessionUpdate: "agent_message_chunk"; content: ContentBlock; messageId?: string | null }
  | { sessionUpdate: "agent_thought_chunk"; content: ContentBlock; messageId?: string | null }
  | ({ sessionUpdate: "tool_call"; toolCallId: string } & ToolCallFields)
  | ({ sessionUpdate: "tool_call_update"; toolCallId: string } & ToolCallFields)
  | { sessionUpdate: "plan"; entries: PlanEntry[] }
  | { sessionUpdate: "available_commands_update"; availableCommands: { name: string; description: string }[] }
  | { sessionUpdate: string; [k: string]: unknown };

// ---------- the event stream ----------
/** Everything the backend reports, in wire order. Delivered in batches (see BATCH_EVENT). */
export type UiEvent =
  | { type: "connection"; snapshot: AppSnapshot }
  | { type: "user_prompt"; sessionId: string; text: string }
  | { type: "session_update"; sessionId: string; update: SessionUpdate }
  | { type: "unknown_update"; sessionId: string | null; raw: unknown; error: string }
  | Elicitation
  | { type: "elicitation_rejected"; mode: string | null; message: string | null; error: { code: number; message: string } }
  | { type: "elicitation_dismissed"; dialogId: number; reason: DismissReason }
  | { type: "elicitation_complete"; elicitationId: string; known: boolean; dialogId: number | null }
  | PermissionRequest
  | { type: "permission_dismissed"; dialogId: number; reason: DismissReason }
  | { type: "turn_ended"; sessionId: string; stopReason: string | null; error: { code: number; message: string } | null }
  | { type: "stdout_noise"; line: string }
  | { type: "agent_exited"; code: number | null; signal: number | null; status: string; stderrTail: string; requested: boolean }
  /** URL view lifecycle, for a URL elicitation the user opened. */
  | { type: "url_view"; dialogId: number; state: "opened" | "closed" | "load_failed" | "navigation_blocked" | "crashed"; detail: string | null };

/** Tauri event name carrying `{ events: UiEvent[] }`, coalesced (at most one per ~16 ms). */
export const BATCH_EVENT = "porthole://events";

// ---------- commands (Tauri invoke) ----------
export type AnswerAction = "accept" | "decline" | "cancel";

export interface Commands {
  /** Current state; call once at start, then follow BATCH_EVENT. Also returns dialogs still pending. */
  app_state(): { snapshot: AppSnapshot; pending: (Elicitation | PermissionRequest)[] };
  send_prompt(args: { text: string }): void;
  cancel_turn(): void;
  restart_agent(): void;
  /** Core validates (the one source of truth). */
  validate_form(args: { dialogId: number; content: FormContent }): Validation;
  /** Err: { kind: "invalid", validation } when content fails validation; { kind: "error", message } otherwise. */
  answer_elicitation(args: { dialogId: number; action: AnswerAction; content?: FormContent }): void;
  answer_permission(args: { dialogId: number; optionId: string | null }): void;
  /** After consent (the dialog already answered accept): open the URL the backend holds. */
  open_url(args: { dialogId: number; target: "sealed" | "system" }): void;
  /** The user closed a URL dialog (e.g. after "Completed"): its isolated window closes too. */
  close_url_view(args: { dialogId: number }): void;
  /** Ack for latency measurement: the UI painted the dialog. */
  dialog_shown(args: { dialogId: number }): void;
}
