// ACP shapes the app model passes to the window as the agent sent them (identity, modes, config
// options, models, usage), and the connection's state. Named by the generated snapshot types
// (generated/app.ts) and re-exported by protocol.ts; this file imports only the SDK, so neither
// forms an import circle with it.

export interface AgentIdentity {
  name: string;
  title: string | null;
  version: string | null;
}

export type ConnectionState = "starting" | "connected" | "failed" | "exited";

// Typed from the official TypeScript SDK's schema types (`@agentclientprotocol/sdk`, the ACP
// schema's own TypeScript), not copied by hand.
import type {
  PermissionOption, PermissionOptionKind, PlanEntry, SessionConfigOption, SessionConfigSelectGroup, SessionConfigSelectOption,
  SessionMode as AcpSessionMode,
  ToolCallLocation, ToolCallStatus, UsageUpdate,
} from "@agentclientprotocol/sdk";
export type { PermissionOption, PermissionOptionKind, PlanEntry, ToolCallLocation, ToolCallStatus };

/** Context use and cost, as the agent reports it (`usage_update`). */
export type SessionUsage = UsageUpdate;

export type SessionMode = AcpSessionMode;

export type ConfigSelectOption = SessionConfigSelectOption;
export type ConfigSelectGroup = SessionConfigSelectGroup;

/** A session setting (`configOptions`): a select (flat, or in groups) or a boolean. */
export type ConfigOption = SessionConfigOption;

export interface SessionModels {
  currentModelId: string;
  availableModels: { modelId: string; name: string; description?: string | null }[];
}
