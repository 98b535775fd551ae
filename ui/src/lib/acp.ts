// ACP shapes the app model passes to the window as the agent sent them (identity, modes, config
// options, models, usage), and the connection's state. Named by the generated snapshot types
// (generated/app.ts) and re-exported by protocol.ts; this file imports nothing, so neither
// forms an import circle with it.

export interface AgentIdentity {
  name: string;
  title: string | null;
  version: string | null;
}

export type ConnectionState = "starting" | "connected" | "failed" | "exited";

/** Context use and cost, as the agent reports it (`usage_update`). */
export type SessionUsage = { used?: number; size?: number; cost?: { amount: number; currency: string } | null };

export interface SessionMode {
  id: string;
  name: string;
  description?: string | null;
}

export interface ConfigSelectOption {
  value: string;
  name: string;
  description?: string | null;
}

export interface ConfigOption {
  id: string;
  name: string;
  description?: string | null;
  category?: string | null;
  type: "select" | "boolean" | string;
  currentValue: string | boolean;
  /** Flat list, or groups `{ group, name, options }`. */
  options?: (ConfigSelectOption | { group: string; name: string; options: ConfigSelectOption[] })[];
}

export interface SessionModels {
  currentModelId: string;
  availableModels: { modelId: string; name: string; description?: string | null }[];
}
