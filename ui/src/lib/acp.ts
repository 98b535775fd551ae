// ACP shapes the window sees, from the official TypeScript SDK (`@agentclientprotocol/sdk`, the
// ACP schema's own TypeScript), never copied: the session updates and what they carry, and the
// shapes the app model passes to the window as the agent sent them (modes, config options,
// usage). Named by the generated snapshot types (generated/app.ts) and re-exported by
// protocol.ts; this file imports only the SDK and generated files, so no import circle.
import type {
  SessionConfigOption, SessionConfigSelectGroup, SessionConfigSelectOption, UsageUpdate,
} from "@agentclientprotocol/sdk";
export type {
  AvailableCommand, CompactionStatus, ContentBlock, PermissionOption, PermissionOptionKind, PlanEntry, SessionMode, SessionModeState,
  StopReason, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
} from "@agentclientprotocol/sdk";
// `session/set_model`'s models are not in the SDK (2.4 has no types for that unstable method):
// generated from core's Rust type instead.
export type { AgentIdentity, SessionModels } from "./generated/core";

/** Context use and cost, as the agent reports it (`usage_update`). */
export type SessionUsage = UsageUpdate;
export type ConfigSelectOption = SessionConfigSelectOption;
export type ConfigSelectGroup = SessionConfigSelectGroup;
/** A session setting (`configOptions`): a select (flat, or in groups) or a boolean. */
export type ConfigOption = SessionConfigOption;
