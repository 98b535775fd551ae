// Generated from porthole-history's rows, filter and domain marks (ts-rs) by
// `PORTHOLE_BLESS=1 cargo test -p porthole-app ui_contract`. Do not edit.
import type { PermissionOptionKind } from "@agentclientprotocol/sdk";

export type HistoryFilter = { agentId?: string, 
/**
 * `form`, `url` or `permission`.
 */
kind?: "form" | "url" | "permission", 
/**
 * Substring of the entry's domain.
 */
domain?: string, 
/**
 * Substring of the message, URL, tool title or detail.
 */
text?: string, 
/**
 * Inclusive bounds, ms since the epoch.
 */
since?: number, until?: number, 
/**
 * Page size (default 100, at most 1000).
 */
limit?: number, offset?: number, 
/**
 * Only entries older than this id (stable paging while new entries arrive).
 */
beforeId?: number, };

export type PermissionDetail = { toolTitle: string | null, toolKind: string | null, optionId: string | null, optionName: string | null, 
/**
 * `allow_once`, `allow_always`, `reject_once`, `reject_always`.
 */
optionKind: PermissionOptionKind | null, };

export type HistoryEntry = { id: number, 
/**
 * ms since the epoch.
 */
time: number, agentId: string, agentName: string, sessionId: string | null, toolCallId: string | null, 
/**
 * `form`, `url` or `permission`.
 */
kind: "form" | "url" | "permission", 
/**
 * The elicitation's message; for permissions, the tool call's title.
 */
message: string, url: string | null, domain: string | null, warnings: Array<string>, 
/**
 * Elicitations: `accept`, `decline`, `cancel`, `dismissed`. Permissions: `selected`,
 * `cancel`, `dismissed`, `auto`.
 */
action: string, 
/**
 * The chosen option's name (permissions), or the dismissal reason (`agent_exited`, ...).
 */
detail: string | null, 
/**
 * Submitted form values without secret fields, when the user chose to keep them.
 */
values: Record<string, unknown> | null, 
/**
 * Permissions only.
 */
permission: PermissionDetail | null, };

export type HistoryPage = { entries: Array<HistoryEntry>, total: number, };

export type DomainMemory = { agentId: string, agentName: string, domain: string, 
/**
 * Accepted URL elicitations of this agent for this domain so far.
 */
timesOpened: number, trusted: boolean, };

export type DomainMark = { agentId: string, agentName: string, domain: string, trusted: boolean, timesOpened: number, 
/**
 * ms since the epoch of the last consent, if any.
 */
lastOpened: number | null, };
