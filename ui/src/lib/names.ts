import type { AgentIdentity, ConnectionState, Elicitation, PermissionRequest, RemoteTransport, Scope, SessionView } from "./protocol";
import { revealHidden } from "./url";

/** The agent's name as a person should see it: text-direction and invisible characters shown, not applied. */
export function agentName(a: AgentIdentity | null | undefined): string {
  if (!a) return "The agent";
  return revealHidden(a.title?.trim() || a.name || "The agent");
}

/** Who asks an elicitation, in the dialog's words. An MCP server's question (asked through
 *  Porthole's gateway in an agent's session: `mcp`, which only core sets for those) names the
 *  server, its host and the agent: `heading` starts the dialog ("The MCP server “github”"),
 *  `who` stands in sentences ("sent to the MCP server “github”"), `via` says through what. */
export function askerOf(d: Pick<Elicitation, "agent" | "mcp"> | Pick<PermissionRequest, "agent" | "mcp">): { heading: string; who: string; via: string | null } {
  const agent = agentName(d.agent);
  if (!d.mcp) return { heading: agent, who: agent, via: null };
  const server = `MCP server “${revealHidden(d.mcp.connection)}”`;
  const where = d.mcp.host ? ` · ${revealHidden(d.mcp.host)}` : " · runs on this computer";
  return { heading: `The ${server}`, who: `the ${server}`, via: `(through ${agent}'s session${where})` };
}

/** A remote MCP server's transport as the person reads it: the Add form's choice and the
 *  connection's facts ("" for the default, which needs no word). Every transport must have
 *  one: svelte-check names this line when Rust adds one. */
export const TRANSPORT_TEXT: Record<RemoteTransport, { choice: string; fact: string }> = {
  http: { choice: "Streamable HTTP (most servers)", fact: "" },
  sse: { choice: "The older HTTP+SSE transport", fact: " (HTTP+SSE)" },
};

/** What Porthole was doing when an agent asked something outside a session. */
const DURING_TEXT: Record<string, string> = {
  initialize: "while connecting",
  authenticate: "while signing in",
  "session/new": "while opening a session",
  "session/load": "while loading a session",
  "session/resume": "while resuming a session",
  "session/fork": "while forking a session",
  "session/list": "while listing sessions",
  "session/prompt": "during a turn",
};

/** The `during` of a dialog Porthole asks itself (an MCP sign-in; set by the app model, never by
 *  an agent, so an agent calling itself "Porthole" cannot borrow this line). */
export const PORTHOLE_SIGN_IN = "porthole/mcp-sign-in";

/** What a person reads of where a question comes from: an agent-level one says what Porthole
 *  was doing; a session's question names the tool call it came with, when the window knows its
 *  title (`toolTitle`), else needs no words (its ids are in `scopeDetails`). */
export function scopeText(s: Scope, toolTitle: string | null = null): string | null {
  if (s.kind === "request" && s.during === PORTHOLE_SIGN_IN) {
    const name = String(s.requestId).slice(PORTHOLE_SIGN_IN.length + 1);
    return `Porthole's own request · signing in to the MCP connection “${revealHidden(name)}”`;
  }
  if (s.kind === "request") {
    const during = s.during ? (DURING_TEXT[s.during] ?? `during ${s.during}`) : "outside any session";
    return `Agent level · ${during}`;
  }
  if (s.toolCallId && toolTitle) return `During the tool call “${revealHidden(toolTitle)}”`;
  return null;
}

/** The ids behind a question, for a dialog's "Details" disclosure (of use in bug reports and
 *  the inspector, not to decide). */
export function scopeDetails(s: Scope): string {
  if (s.kind === "request") return `Request ${JSON.stringify(s.requestId)}`;
  return idsText(s.sessionId, s.toolCallId);
}

export function idsText(sessionId: string, toolCallId?: string | null): string {
  return toolCallId ? `Session ${sessionId} · Tool call ${toolCallId}` : `Session ${sessionId}`;
}

export const STATE_LABEL: Record<ConnectionState, string> = {
  starting: "Starting…",
  connected: "Connected",
  failed: "Failed",
  exited: "Exited",
};

/** A session's name in lists: its title, else the folder it works in. */
export function sessionLabel(s: SessionView): string {
  if (s.title?.trim()) return revealHidden(s.title.trim());
  const folder = s.cwd.split("/").filter(Boolean).pop() ?? s.cwd;
  return `${folder} · ${s.sessionId.slice(0, 8)}`;
}
