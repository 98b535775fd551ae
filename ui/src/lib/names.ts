import type { AgentIdentity, Scope } from "./protocol";

export function agentName(a: AgentIdentity | null | undefined): string {
  if (!a) return "The agent";
  return a.title?.trim() || a.name || "The agent";
}

export function scopeText(s: Scope): string {
  if (s.kind === "request") return `During request ${String(s.requestId)}`;
  return s.toolCallId ? `Session ${s.sessionId} · Tool call ${s.toolCallId}` : `Session ${s.sessionId}`;
}
