// App state: applies UiEvent batches from the backend. The backend owns protocol
// logic; this store only keeps what the window needs to render.
import { SvelteMap } from "svelte/reactivity";
import { agentName } from "./names";
import { revealHidden } from "./url";
import { MarkdownBlocks } from "./markdown-blocks.svelte";
import { renderMarkdown } from "./markdown";
import { clockUntilRendered } from "./work-clock";
import { Lru } from "./lru";
import { FollowUps } from "./follow-ups.svelte";
import type {
  AgentIdentity, AppSnapshot, CompactionStatus, Connection, ContentBlock, Dialog, DismissReason, InstallProgress, McpAppView,
  MessageChange, MessageRole, PlanEntry, SessionView, TerminalChange, ToolCallFields, TranscriptUpdate, UiEvent, UrlOpener, WindowState,
} from "./protocol";
import type { RunState, SessionMessageChange, SubagentChange } from "./generated/core";

let nextId = 1;
const uid = () => nextId++;

/** An agent message up to this many characters is kept as its text and rendered whole; a
 *  longer one is split into markdown blocks. Most messages of a long history are short, and
 *  the blocks' scanner state and tables cost more than such a message's text (issue 16). */
export const COMPACT_MAX = 2048;

/** Short agent messages whose rendered HTML is kept: those shown last. A few screens' worth and
 *  more; a message scrolled far away renders again when it comes back (issue 34: scrolling once
 *  through 100,000 messages kept the HTML of every one). */
export const HTML_KEPT = 2000;
const shortHtml = new Lru<TextItem, string>(HTML_KEPT);

/** Rough text metrics for a row's height before it is measured (the real heights replace them). */
export const LINE_PX = 22;
/** An MCP App frame before it says its size. */
export const APP_PX = 240;

/** What every kind of transcript item has: an id (increasing as items are added), its kind, and
 *  a height estimate for a row of it before the row is measured (`perLine`: characters that fit
 *  on a line; `segment`: the row's segment of an agent message, else 0), gap not included. */
interface Entry {
  readonly id: number;
  readonly kind: string;
  estimate(perLine: number, segment: number): number;
}

/** Lines `chars` characters take at `perLine` characters a line. */
const linesOf = (chars: number, perLine: number) => Math.max(1, Math.ceil(chars / perLine));

export class TextItem implements Entry {
  readonly id = uid();
  /** A user's or thought's text, or a short agent message's (appending is amortized O(1)). */
  #text = $state("");
  /** A long agent message's markdown, split into blocks as it streams: the window renders from
   *  it, so a chunk costs work on the open block only, never on the whole message. It holds the
   *  message's only copy of the text (a 20 MB message is not kept twice). */
  #markdown: MarkdownBlocks | null = null;
  readonly kind = "message" as const;
  constructor(
    /** Whose text: the user's, the agent's, or the agent's thinking. */
    readonly role: MessageRole,
    /** The agent's id of it; the window's echo of a prompt gets the id of the agent's own
     *  message when that message adopts it (`Transcript.userPrompt`). */
    public messageId: string | null,
    text: string,
  ) {
    this.append(text);
  }
  /** The blocks of an agent message longer than COMPACT_MAX; null before (and for others).
   *  Reactive: the text is emptied when the blocks take it over. */
  get markdown(): MarkdownBlocks | null {
    if (!this.#markdown) void this.#text;
    return this.#markdown;
  }
  /** The whole text (an agent message's with its line ends as `\n`). */
  get text(): string {
    if (this.#markdown) return this.#markdown.source();
    return this.role === "agent" ? this.#text.replace(/\r\n?/g, "\n") : this.#text;
  }
  /** Characters of a text kept whole (line ends not normalized; a long agent message's are
   *  counted per segment by its blocks): cheap, for height estimates. */
  get length(): number {
    return this.#text.length;
  }
  /** Rows this item is shown in: an agent message's markdown segments, else one. */
  get segmentCount(): number {
    return this.#markdown?.segmentCount ?? 1;
  }
  /** The whole text is `s` now (a message the agent edited or cleared). */
  replace(s: string) {
    this.#markdown = null;
    this.#text = "";
    shortHtml.delete(this);
    this.append(s);
  }
  append(s: string) {
    if (this.#markdown) {
      this.#markdown.append(s);
    } else if (this.role === "agent" && this.#text.length + s.length > COMPACT_MAX) {
      const md = new MarkdownBlocks();
      md.append(this.#text + s);
      this.#markdown = md;
      this.#text = "";
      shortHtml.delete(this);
    } else {
      this.#text += s;
      shortHtml.delete(this);
    }
  }
  estimate(perLine: number, segment: number): number {
    const md = this.markdown;
    if (md) {
      const [from, to] = md.segment(segment);
      // A paragraph's margins are about one line.
      return linesOf(md.segmentChars(segment), perLine) * LINE_PX + (to - from) * LINE_PX;
    }
    if (this.role === "agent") return linesOf(this.length, perLine) * LINE_PX + LINE_PX;
    if (this.role === "thought") return LINE_PX;
    return linesOf(this.length, perLine) * LINE_PX + 16;
  }
  /** A short agent message's HTML (sanitized; see markdown.ts), rendered once per change while
   *  among the HTML_KEPT shown last. */
  html(): string {
    const text = this.#text;
    let html = shortHtml.get(this);
    if (html === undefined) {
      html = renderMarkdown(text);
      shortHtml.set(this, html);
    }
    return html;
  }
}

export class ToolItem implements Entry {
  readonly id = uid();
  readonly kind = "tool" as const;
  fields = $state<ToolCallFields>({});
  /** The MCP Apps this tool call brought (matched by the app model). */
  apps = $state.raw<McpAppItem[]>([]);
  /** Sessions its content named (v2: the subagents it started), in the order named. */
  sessions = $state.raw<string[]>([]);
  constructor(readonly toolCallId: string, fields: ToolCallFields) {
    this.fields = pickFields(fields, {});
  }
  merge(update: ToolCallFields) {
    this.fields = pickFields(update, this.fields);
  }
  estimate(): number {
    return 3 * LINE_PX + this.apps.length * APP_PX;
  }
}

export class PlanItem implements Entry {
  readonly id = uid();
  readonly kind = "plan" as const;
  entries = $state<PlanEntry[]>([]);
  constructor(entries: PlanEntry[]) {
    this.entries = entries;
  }
  estimate(): number {
    return (this.entries.length + 2) * LINE_PX;
  }
}

/** A short line in the transcript: Porthole's own (a turn that failed, a withdrawn question) or
 *  the agent's (`notice`, with its severity). */
export class NoticeItem implements Entry {
  readonly id = uid();
  readonly kind = "notice" as const;
  text = $state("");
  /** The withdrawn questions this note counts (0: another kind of notice). */
  withdrawn = 0;
  constructor(
    text: string,
    readonly tone: "info" | "warning" | "error" = "info",
    /** An agent's notice: its severity in a word ("Info", "Warning", "Error", or a severity
     *  Porthole does not know, as it came); null for Porthole's own lines. */
    readonly severity: string | null = null,
  ) {
    this.text = text;
  }
  estimate(): number {
    return LINE_PX;
  }
}

/** A compaction of the context (the agent's `compaction_update`s and summary chunks of one
 *  `compactionId`): where it stands, and the summary it kept. */
export class CompactionItem implements Entry {
  readonly id = uid();
  readonly kind = "compaction" as const;
  status = $state<CompactionStatus>("in_progress");
  summary = $state("");
  error = $state<string | null>(null);
  constructor(readonly compactionId: string) {}
  estimate(): number {
    return LINE_PX;
  }
}

/** An agent's notice's severity in a word; an open enum: another value is shown as it came. */
const SEVERITY: Record<string, string> = { info: "Info", warning: "Warning", error: "Error" };

/** An update of a kind Porthole does not know (a newer ACP, an agent's own): shown by its name,
 *  with what it carried, never dropped. */
export class UnknownItem implements Entry {
  readonly id = uid();
  readonly kind = "unknown" as const;
  constructor(readonly name: string, readonly update: unknown) {}
  estimate(): number {
    return LINE_PX;
  }
}

/** An MCP App a connection's tool call brought: under its tool call, or a row of its own when
 *  no tool call of the agent matched it (shown under the turn). */
export class McpAppItem implements Entry {
  readonly id = uid();
  readonly kind = "app" as const;
  view = $state.raw<McpAppView>() as McpAppView;
  constructor(view: McpAppView) {
    this.view = view;
  }
  estimate(): number {
    return APP_PX;
  }
}

/** Every kind of item a transcript holds, told apart by `kind`: the rows switch on it, so a kind
 *  added here is a type error (svelte-check) in Transcript.svelte until it is rendered. */
/** A terminal the agent runs itself (ACP v2): a row of its own, shown only while no tool call
 *  of the transcript names it (then it shows inside that call, as a v1 terminal does). */
export class TerminalItem implements Entry {
  readonly id = uid();
  readonly kind = "terminal" as const;
  constructor(readonly terminalId: string) {}
  estimate(): number {
    return 6 * LINE_PX;
  }
}

/** A message between this session and another (ACP v2's `session_message`): what this session
 *  asked a subagent, or what the subagent answered. */
export class SessionMessage {
  sender = $state<string | null>(null);
  recipient = $state<string | null>(null);
  text = $state("");
  constructor(readonly messageId: string) {}
}

/** A subagent (ACP v2's `subagent_update`): a session the agent started under this one, drawn
 *  as a collapsible thread inside the tool call whose content names its session, or as a row of
 *  its own while no call does. Its messages are those between this session and it. */
export class SubagentItem implements Entry {
  readonly id = uid();
  readonly kind = "subagent" as const;
  title = $state<string | null>(null);
  description = $state<string | null>(null);
  /** Its running state as the parent mirrors it; null: none reported. */
  state = $state.raw<RunState | null>(null);
  meta = $state.raw<Record<string, unknown> | null>(null);
  /** Messages to and from it, in the order first seen. */
  messages = $state.raw<SessionMessage[]>([]);
  /** Open (its messages shown) or collapsed: the person's choice, kept per subagent. */
  expanded = $state(true);
  /** `sessionId`: the subagent's own session, or "" for messages whose other session is not
   *  known yet. */
  constructor(readonly sessionId: string) {}
  estimate(): number {
    return (this.expanded ? 2 + this.messages.length * 2 : 1) * LINE_PX;
  }
}

export type TranscriptItem = TextItem | ToolItem | PlanItem | NoticeItem | CompactionItem | UnknownItem | McpAppItem | TerminalItem | SubagentItem;

/** Fails type checking where a switch over a kind missed one; at run time (a newer backend's
 *  kind) says what arrived. */
export function unhandled(kind: never, what: string): string {
  const name = String((kind as { kind?: unknown } | null)?.kind ?? "something without a kind");
  console.error(`Porthole: ${what} this window does not know: ${name}`);
  return name;
}

const FIELD_KEYS = ["title", "kind", "status", "content", "locations"] as const;
/** Merge ACP ToolCallFields: absent (or null) means "unchanged"; content replaces. */
function pickFields(src: ToolCallFields, base: ToolCallFields): ToolCallFields {
  const out: ToolCallFields = { ...base };
  for (const k of FIELD_KEYS) {
    const v = src[k];
    if (v !== undefined && v !== null) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export type DialogStatus = "pending" | "waiting" | "completed";
/** A URL dialog's isolated window, as the app model's `url_view` event reports it. */
export type UrlViewState = Pick<Extract<UiEvent, { type: "url_view" }>, "state" | "detail">;

export class DialogEntry {
  status = $state<DialogStatus>("pending");
  urlView = $state<UrlViewState | null>(null);
  /** Target used when the user accepted a URL dialog (for Reopen). */
  openedWith = $state<UrlOpener | null>(null);
  /** Why what the page was opened for failed (an MCP sign-in that did not finish). */
  problem = $state<string | null>(null);
  constructor(readonly dialog: Dialog) {}
  get dialogId() {
    return this.dialog.dialogId;
  }
}

export const DISMISS_TEXT: Record<DismissReason, string> = {
  agent_cancelled: "The agent withdrew this request.",
  agent_exited: "The agent stopped running.",
  session_ended: "The session ended, so this request no longer applies.",
  turn_cancelled: "The turn was cancelled, so this request no longer applies.",
  question_ended: "The MCP server's tool call ended, so its question no longer applies.",
};

/** The session a dialog belongs to, if any (an agent-level question has none). */
function dialogSession(d: Dialog): string | null {
  if (d.type === "elicitation") return d.scope.kind === "session" ? d.scope.sessionId : null;
  return d.sessionId;
}

/** A dialog in a few words, for the note that says it was withdrawn; a kind without words of
 *  its own here is named by its kind ("a confirm request"), so a new kind needs no edit. */
function dialogGist(d: Dialog): string {
  const quote = (s: string) => `“${revealHidden(s.length > 80 ? `${s.slice(0, 79)}…` : s)}”`;
  const kind: string = d.type;
  switch (d.type) {
    case "elicitation":
      return d.mode === "url" ? "a sign-in page" : quote(d.message.split("\n")[0] || "a question");
    case "permission":
      return `permission for ${quote(d.toolCall.title ?? "a tool call")}`;
    case "file_access":
      return `access to ${quote(d.path)}`;
    default:
      return `a ${kind.replaceAll("_", " ")} request`;
  }
}

export function blockText(b: ContentBlock): string {
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text : "";
    case "image":
      return "[image]";
    case "resource_link":
      return `[${String((b as { name?: unknown }).name ?? "resource")}]`;
    case "audio":
      return "[audio]";
    case "resource":
      return "[embedded resource]";
    default: {
      // Exhaustive over the SDK's `ContentBlock`; an agent's newer kind is still named.
      const newer: never = b;
      return `[${(newer as { type: string }).type} content]`;
    }
  }
}

/** Output of a terminal the agent (or a terminal sign-in) runs, shown live. */
export class TerminalState {
  /** The command as shown (a v2 agent's terminal may name it after it appeared). */
  command = $state("");
  output = $state("");
  truncated = $state(false);
  exitCode = $state<number | null>(null);
  signal = $state<string | null>(null);
  exited = $state(false);
  released = $state(false);
  constructor(
    readonly terminalId: string,
    readonly sessionId: string | null,
    command: string,
    readonly args: string[],
  ) {
    this.command = command;
  }

  /** Output added or replaced, the window's cap kept (the earliest output goes first). */
  write(text: string, replace: boolean) {
    let out = replace ? text : this.output + text;
    if (out.length > TERMINAL_KEEP) {
      out = out.slice(out.length - TERMINAL_KEEP);
      this.truncated = true;
    }
    this.output = out;
  }
}

/** Most terminal output kept per terminal in the window (core keeps its own byte limit). */
const TERMINAL_KEEP = 256 * 1024;

/** One session's transcript: what the agent and the user said, tool calls, the plan. */
export class Transcript {
  /** Not a deep `$state`: a proxied array keeps a signal per index (~0.9 KB per item measured
   *  for 100,000 messages); `count` is what readers depend on. */
  readonly items = $state.raw<TranscriptItem[]>([]);
  count = $state(0);
  #tools = new Map<string, ToolItem>();
  /** The terminals the agent runs itself (ACP v2), by id: unique within the session. */
  readonly terminals = new SvelteMap<string, TerminalState>();
  /** Messages by kind and messageId (keyed by the id itself: no key string per message). */
  #messages = { user: new Map<string, TextItem>(), agent: new Map<string, TextItem>(), thought: new Map<string, TextItem>() };
  #plan: PlanItem | null = null;
  /** The window's echoes of prompts (`userPrompt`) no message of the agent adopted yet, oldest
   *  first, each with the number of its prompt. */
  #echoes: { item: TextItem; prompt: number }[] = [];
  /** Prompts sent, and turns ended (never more than prompts: a turn the window did not start,
   *  an editor's, does not count). Turns end in the order their prompts were sent. */
  #prompts = 0;
  #turnsEnded = 0;
  /** The echo an agent's user message without a messageId (v1) adopted this turn: its further
   *  chunks continue it wherever it is. */
  #idlessEcho: TextItem | null = null;
  #compactions = new Map<string, CompactionItem>();
  /** Subagents by their session id ("" holds messages whose other session is not known). */
  readonly subagents = new SvelteMap<string, SubagentItem>();
  /** Messages between sessions by `messageId`, and the thread each is in. */
  #sessionMessages = new Map<string, { message: SessionMessage; thread: SubagentItem | null }>();
  /** The tool call that names each subagent's session. */
  #subagentCalls = new SvelteMap<string, ToolItem>();
  #apps = new Map<number, McpAppItem>();
  /** Items whose content changed since the window last asked (`takeChanged`). */
  #changed = new Set<TranscriptItem>();
  /** Agent messages with text not yet split into blocks (`settle`). */
  #unsettled = new Set<TextItem>();

  constructor(readonly sessionId: string) {}

  /** The title the agent gave tool call `toolCallId`, when it is in this transcript. */
  toolTitle(toolCallId: string): string | null {
    return this.#tools.get(toolCallId)?.fields.title ?? null;
  }

  push(item: TranscriptItem) {
    this.items.push(item);
    this.count = this.items.length;
    if (item instanceof TextItem && item.markdown) this.#unsettled.add(item);
  }

  /** Items already in the transcript whose content changed since the last call (the window
   *  forgets their measured heights); new items are not included. */
  takeChanged(): TranscriptItem[] {
    const out = [...this.#changed];
    this.#changed.clear();
    return out;
  }

  /** Splits the text that arrived into markdown blocks. Returns 0, or ms until a message
   *  whose work was put off (one huge open block) wants another call. */
  settle(): number {
    let wait = 0;
    for (const m of this.#unsettled) {
      const w = m.markdown?.sync() ?? 0;
      // Its blocks and segments changed: the rows must hear of it even when the chunks that
      // brought the text were reported before (work left over from an earlier batch).
      this.#changed.add(m);
      if (w > 0) wait = wait > 0 ? Math.min(wait, w) : w;
      else this.#unsettled.delete(m);
    }
    return wait;
  }

  #grew(item: TranscriptItem) {
    this.#changed.add(item);
    if (item instanceof TextItem && item.markdown) this.#unsettled.add(item);
  }

  /** A question withdrawn before it was answered: one short note, and questions withdrawn one
   *  after another (a flood) are counted in that same note, never one notice each. */
  withdrawn(what: string, why: string) {
    const last = this.items[this.items.length - 1];
    if (last instanceof NoticeItem && last.withdrawn > 0) {
      last.withdrawn += 1;
      last.text = `${last.withdrawn} questions were withdrawn before you answered them (the last: ${why})`;
      this.#grew(last);
      return;
    }
    const note = new NoticeItem(`Withdrawn before you answered: ${what} — ${why}`);
    note.withdrawn = 1;
    this.push(note);
  }

  /** An MCP App, when its tool call started or finished. It is placed once: under the agent's
   *  tool call it matched, else (when its call finished with no match) as a row of its own. */
  app(view: McpAppView) {
    const known = this.#apps.get(view.id);
    if (known) {
      known.view = view;
      return;
    }
    const tool = view.toolCallId ? this.#tools.get(view.toolCallId) : undefined;
    const finished = view.result !== null || view.error !== null;
    if (!tool && !finished) return;
    const item = new McpAppItem(view);
    this.#apps.set(view.id, item);
    if (tool) {
      tool.apps = [...tool.apps, item];
      this.#grew(tool);
    } else {
      this.push(item);
    }
  }

  /** The user's prompt as the window sent it, shown at once. The agent may echo it (v2's
   *  `user_message`, with the `messageId` the prompt's answer names; a v1 agent's
   *  `user_message_chunk`): the first user message the agent creates during that prompt's turn
   *  adopts this echo (the agent's text replaces it), so the prompt shows once. An echo nobody
   *  adopted by its turn's end stays as it is (an agent that does not echo). */
  userPrompt(text: string) {
    const item = new TextItem("user", null, text);
    this.push(item);
    this.#echoes.push({ item, prompt: ++this.#prompts });
    this.#idlessEcho = null;
    this.#plan = null;
  }

  /** A turn ended: the oldest turn still running, so its prompt's echo (if the agent never
   *  echoed it) is adopted by nothing later: a later prompt's message never takes it. */
  turnEnded() {
    this.#turnsEnded = Math.min(this.#turnsEnded + 1, this.#prompts);
    while (this.#echoes.length && this.#echoes[0].prompt <= this.#turnsEnded) this.#echoes.shift();
    this.#idlessEcho = null;
  }

  /** The oldest echo waiting for the agent's message, taken (a user message the agent created). */
  #adopt(messageId: string | null): TextItem | undefined {
    const echo = this.#echoes.shift()?.item;
    if (!echo) return undefined;
    echo.messageId = messageId;
    if (messageId === null) this.#idlessEcho = echo;
    return echo;
  }

  /** Applies Porthole's model of a session update (`TranscriptUpdate`, generated from core's
   *  `transcript.rs`). Exhaustive over its `kind`: a kind added there is a type error here until
   *  it is handled or named as not shown. */
  apply(u: TranscriptUpdate) {
    switch (u.kind) {
      case "message":
        this.#message(u);
        return;
      case "tool_call": {
        let t = this.#tools.get(u.toolCallId);
        if (t) {
          t.merge(u.fields);
          this.#grew(t);
        } else {
          t = new ToolItem(u.toolCallId, u.fields);
          this.#tools.set(u.toolCallId, t);
          this.push(t);
        }
        if (u.sessions?.length) this.#namesSessions(t, u.sessions);
        return;
      }
      case "plan": {
        const entries = u.entries;
        if (this.#plan) {
          this.#plan.entries = entries;
          this.#grew(this.#plan);
        } else {
          this.#plan = new PlanItem(entries);
          this.push(this.#plan);
        }
        return;
      }
      case "notice": {
        const tone = u.severity === "error" ? "error" : u.severity === "warning" ? "warning" : "info";
        const text = u.description ? `${u.title}: ${u.description}` : u.title;
        this.push(new NoticeItem(revealHidden(text), tone, SEVERITY[u.severity] ?? revealHidden(String(u.severity))));
        return;
      }
      case "compaction": {
        const c = this.#compaction(u.compactionId);
        c.status = u.status;
        if (u.summary !== undefined) c.summary = (u.summary ?? []).map(blockText).join("");
        if (u.error !== undefined) c.error = u.error;
        this.#grew(c);
        return;
      }
      case "compaction_summary": {
        const c = this.#compaction(u.compactionId);
        c.summary += blockText(u.content);
        this.#grew(c);
        return;
      }
      case "terminal":
        this.#terminal(u);
        return;
      case "subagent":
        this.#subagent(u);
        return;
      case "session_message":
        this.#sessionMessage(u);
        return;
      case "unknown":
        this.push(new UnknownItem(u.sessionUpdate, u.update));
        return;
      case "available_commands":
      case "current_mode":
      case "config_options":
      case "session_info":
      case "usage":
      // ACP v2's running state: not shown yet (the window's part of issue 44).
      case "state":
        // Session-level state lives in the app model's session view and arrives with the snapshot.
        return;
      default:
        this.push(new UnknownItem(unhandled(u, "a session update"), u));
    }
  }

  /** A message's change: appended to, replaced or created. Messages are keyed by role and
   *  messageId; without an id, text continues the last message of its role that has none. */
  #message(u: MessageChange) {
    const role = u.role;
    const text = (): string => {
      switch (u.op) {
        case "append":
          return blockText(u.content);
        case "replace":
          return u.content.map(blockText).join("");
        case "keep":
          return "";
        default:
          return unhandled(u, "a message change");
      }
    };
    const byId = u.messageId ? this.#messages[role] : null;
    const m = byId ? byId.get(u.messageId!) : this.#continued(role, u.op);
    if (!m) {
      // The agent's own copy of a prompt the window shows already: it takes that row over.
      const echo = role === "user" ? this.#adopt(u.messageId) : undefined;
      if (echo) {
        byId?.set(u.messageId!, echo);
        if (u.op !== "keep") echo.replace(text());
        this.#grew(echo);
        return;
      }
      const item = new TextItem(role, u.messageId, text());
      byId?.set(u.messageId!, item);
      this.push(item);
      return;
    }
    if (u.op === "keep") return;
    if (u.op === "replace") m.replace(text());
    else m.append(text());
    this.#grew(m);
  }

  /** The message a change without a messageId continues: the last row, when it is a message
   *  of that role without an id and the change appends. A user message's chunks continue the
   *  echo they adopted; while an echo waits, a user message without an id never continues
   *  another (it adopts the echo: `userPrompt`). */
  #continued(role: MessageRole, op: MessageChange["op"]): TextItem | undefined {
    if (op !== "append") return undefined;
    if (role === "user" && (this.#idlessEcho || this.#echoes.length)) return this.#idlessEcho ?? undefined;
    const last = this.items[this.items.length - 1];
    return last instanceof TextItem && last.role === role && last.messageId === null ? last : undefined;
  }

  /** A v2 terminal's change: created (with its row) by the first update naming it. */
  #terminal(u: TerminalChange) {
    let t = this.terminals.get(u.terminalId);
    if (!t) {
      t = new TerminalState(u.terminalId, null, u.command ?? "", []);
      this.terminals.set(u.terminalId, t);
      this.push(new TerminalItem(u.terminalId));
    } else if (u.command !== null) {
      t.command = u.command;
    }
    if (u.output) t.write(u.output.text, u.output.op === "replace");
    if (u.exitStatus) {
      t.exited = true;
      t.exitCode = u.exitStatus.exitCode;
      t.signal = u.exitStatus.signal;
    }
  }

  /** A subagent's upsert: a field left out is unchanged, `null` clears it. */
  #subagent(u: SubagentChange) {
    const a = this.#thread(u.sessionId);
    if (u.title !== undefined) a.title = u.title;
    if (u.description !== undefined) a.description = u.description;
    if (u.state !== undefined) a.state = u.state;
    if (u._meta === null) a.meta = null;
    else if (u._meta !== undefined) a.meta = patchMeta(a.meta, u._meta);
    this.#threadGrew(a);
  }

  /** A message between sessions: created by the first change naming its id, in the thread of
   *  the session on its other end (the sender, unless this session sent it). */
  #sessionMessage(u: SessionMessageChange) {
    let known = this.#sessionMessages.get(u.messageId);
    if (!known) {
      known = { message: new SessionMessage(u.messageId), thread: null };
      this.#sessionMessages.set(u.messageId, known);
    }
    const m = known.message;
    if (u.senderSessionId !== undefined) m.sender = u.senderSessionId;
    if (u.recipientSessionId !== undefined) m.recipient = u.recipientSessionId;
    switch (u.op) {
      case "append":
        m.text += blockText(u.content);
        break;
      case "replace":
        m.text = u.content.map(blockText).join("");
        break;
      case "keep":
        break;
      default:
        unhandled(u, "a message change");
    }
    const other = (m.sender !== null && m.sender !== this.sessionId ? m.sender : m.recipient) ?? "";
    const thread = this.#thread(other === this.sessionId ? "" : other);
    if (known.thread !== thread) {
      if (known.thread) known.thread.messages = known.thread.messages.filter((x) => x !== m);
      thread.messages = [...thread.messages, m];
      known.thread = thread;
    }
    this.#threadGrew(thread);
  }

  /** The subagent of session `sessionId`, created (with its row) by the first update naming it. */
  #thread(sessionId: string): SubagentItem {
    let a = this.subagents.get(sessionId);
    if (!a) {
      a = new SubagentItem(sessionId);
      this.subagents.set(sessionId, a);
      this.push(a);
    }
    return a;
  }

  /** A thread changed: its row, or the row of the tool call it is drawn in, is measured again. */
  #threadGrew(a: SubagentItem) {
    this.#grew(a);
    const call = this.#subagentCalls.get(a.sessionId);
    if (call) this.#grew(call);
  }

  #namesSessions(t: ToolItem, sessions: string[]) {
    const added = sessions.filter((id) => !t.sessions.includes(id));
    if (!added.length) return;
    t.sessions = [...t.sessions, ...added];
    for (const id of added) {
      if (this.#subagentCalls.has(id)) continue;
      this.#subagentCalls.set(id, t);
      // Its own row, if it had one, is now empty: measured again.
      const a = this.subagents.get(id);
      if (a) this.#grew(a);
    }
  }

  /** The subagents drawn inside tool call `t`: those of the sessions it named (the first call
   *  to name one draws it), in the order named; one not announced yet is not drawn. */
  subagentsOf(t: ToolItem): SubagentItem[] {
    return t.sessions.flatMap((id) => {
      const a = this.subagents.get(id);
      return a && this.#subagentCalls.get(id) === t ? [a] : [];
    });
  }

  /** The tool call subagent `sessionId` is drawn in, if one of this transcript names it. */
  subagentCall(sessionId: string): ToolItem | null {
    return this.#subagentCalls.get(sessionId) ?? null;
  }

  /** Whether a tool call of this transcript shows terminal `terminalId` in its content. */
  namesTerminal(terminalId: string): boolean {
    for (const tool of this.#tools.values()) {
      if (tool.fields.content?.some((c) => c.type === "terminal" && c.terminalId === terminalId)) return true;
    }
    return false;
  }

  #compaction(id: string): CompactionItem {
    let c = this.#compactions.get(id);
    if (!c) {
      c = new CompactionItem(id);
      this.#compactions.set(id, c);
      this.push(c);
    }
    return c;
  }
}

/** v2's metadata patch: top-level keys replace, a key set to `null` is removed. */
function patchMeta(stored: Record<string, unknown> | null, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(stored ?? {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

export type View = "chat" | "history" | "settings" | "connections" | "inspector" | "add-agent";

/** A connection that left the snapshot: its name then, and the editor that drove it, if one did. */
export interface LeftConnection {
  name: string;
  editor: string | null;
}

/** How many ended sessions' transcripts the window keeps readable. */
export const ENDED_KEPT = 20;

export class AppStore {
  snapshot = $state<AppSnapshot | null>(null);
  transcripts = new SvelteMap<string, Transcript>();
  terminals = new SvelteMap<string, TerminalState>();
  /** Prompts typed while the agent works (queued by the window, or waiting at the agent). */
  readonly followUps = new FollowUps();
  dialogs = $state<DialogEntry[]>([]);
  /** The session shown in the main area. */
  activeSessionId = $state<string | null>(null);
  /** The agent shown when no session is (its sign-in, error or start-up state). */
  selectedAgentId = $state<string | null>(null);
  view = $state<View>("chat");
  /** Text a suggestion puts into the prompt box (the prompt box takes it and clears this). */
  promptInsert = $state<string | null>(null);
  /** Registry installs in progress, by registry id (for their progress bars). */
  installs = new SvelteMap<string, InstallProgress>();
  /** Login terminal of a terminal sign-in in progress, by agent id. */
  authTerminals = new SvelteMap<string, string>();
  /** Bumped once per applied batch; the transcript auto-scroll follows it. */
  version = $state(0);
  /** Bumped when an MCP connection's sign-in may have changed (the Connections view reads again). */
  mcpVersion = $state(0);
  /** Bumped when an MCP Registry's copy was refreshed in the background (the registry view searches again). */
  mcpRegistryVersion = $state(0);
  /** Why the last sign-in the window started failed, by connection (cleared by the next). */
  mcpSignInFailures = new SvelteMap<string, string>();
  /** Frames in which batches were applied (for tests / diagnostics). */
  framesApplied = 0;
  /** Connections that left the snapshot (an editor's proxy went away, an agent was removed),
   *  by agent id: what the window still says of them while their transcript is shown. */
  left = $state.raw<Record<string, LeftConnection>>({});

  #queue: UiEvent[] = [];
  #scheduled = false;
  /** Session ids in the last snapshot, and those that left it (ended) since. */
  #listed = new Set<string>();
  #ended = new Set<string>();
  #raf: (cb: () => void) => unknown;

  constructor(raf?: (cb: () => void) => unknown) {
    this.#raf =
      raf ??
      (typeof requestAnimationFrame === "function"
        ? (cb) => requestAnimationFrame(cb)
        : (cb) => setTimeout(cb, 16));
  }

  // ----- what the main area shows -----

  get session(): SessionView | null {
    return this.snapshot?.sessions.find((s) => s.sessionId === this.activeSessionId) ?? null;
  }

  /** The agent of the active session, or the one picked in the sidebar. */
  get agentId(): string | null {
    return this.session?.agentId ?? this.selectedAgentId ?? this.snapshot?.connections[0]?.agentId ?? null;
  }

  get connection(): Connection | null {
    const id = this.agentId;
    return this.snapshot?.connections.find((c) => c.agentId === id) ?? null;
  }

  /** Dialogs an agent's connection has waiting for the user. */
  waitingOf(agentId: string): number {
    return this.dialogs.filter((x) => x.status === "pending" && x.dialog.agentId === agentId).length;
  }

  connectionOf(agentId: string): Connection | null {
    return this.snapshot?.connections.find((c) => c.agentId === agentId) ?? null;
  }

  /** The agent's own name when connected, else the name it has in the agents list (or had,
   *  when its connection left). */
  agentLabel(agentId: string | null): string {
    if (!agentId) return "Porthole";
    const who: AgentIdentity | null | undefined = this.connectionOf(agentId)?.agent;
    if (who) return agentName(who);
    const listed = this.snapshot?.agents.find((a) => a.id === agentId)?.name;
    if (listed !== undefined) return revealHidden(listed);
    return this.left[agentId]?.name ?? revealHidden(agentId);
  }

  /** The shown agent's connection left (its editor went away, or it was removed): what it was. */
  get connectionLeft(): LeftConnection | null {
    const id = this.agentId;
    if (id === null || this.connection) return null;
    return this.left[id] ?? null;
  }

  get connected() {
    return this.connection?.state === "connected" && this.session !== null;
  }

  /** The title of tool call `toolCallId` of session `sessionId`, when the window has it. */
  toolCallTitle(sessionId: string, toolCallId: string | null | undefined): string | null {
    if (!toolCallId) return null;
    return this.transcripts.get(sessionId)?.toolTitle(toolCallId) ?? null;
  }

  /** Read-only (templates read it): transcripts are created by the events that fill them. */
  get transcript(): Transcript | null {
    return this.activeSessionId ? (this.transcripts.get(this.activeSessionId) ?? null) : null;
  }

  get items(): TranscriptItem[] {
    const t = this.transcript;
    if (!t) return [];
    void t.count;
    return t.items;
  }

  /** A terminal a tool call of the shown session names: one Porthole runs for a v1 agent
   *  (`terminal/create`), else one the v2 agent runs and reports. */
  terminalOf(terminalId: string): TerminalState | undefined {
    return this.terminals.get(terminalId) ?? this.transcript?.terminals.get(terminalId);
  }

  get commands() {
    return this.session?.availableCommands ?? [];
  }

  get turnRunning() {
    return this.session?.turnRunning ?? false;
  }

  /** The dialog being shown (first in arrival order). */
  get active(): DialogEntry | null {
    return this.dialogs[0] ?? null;
  }

  selectSession(sessionId: string) {
    this.activeSessionId = sessionId;
    this.selectedAgentId = this.snapshot?.sessions.find((s) => s.sessionId === sessionId)?.agentId ?? this.selectedAgentId;
    this.view = "chat";
  }

  selectAgent(agentId: string) {
    this.selectedAgentId = agentId;
    const first = this.snapshot?.sessions.find((s) => s.agentId === agentId);
    this.activeSessionId = first?.sessionId ?? null;
    this.view = "chat";
  }

  // ----- applying events -----

  /** Queue batches; they are applied together at most once per animation frame. */
  enqueue(events: UiEvent[]) {
    for (const e of events) this.#queue.push(e);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#raf(() => this.flush());
  }

  flush() {
    this.#scheduled = false;
    if (this.#queue.length === 0) return;
    const q = this.#queue;
    this.#queue = [];
    this.framesApplied++;
    this.apply(q);
  }

  /** Apply events synchronously (used by flush and tests). */
  apply(events: UiEvent[]) {
    const started = performance.now();
    for (const e of events) this.#applyOne(e);
    this.#settle();
    this.version++;
    clockUntilRendered(started);
  }

  #settleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Split streamed text into markdown blocks once per batch; come back for put-off work. */
  #settle() {
    let wait = 0;
    for (const t of this.transcripts.values()) {
      const w = t.settle();
      if (w > 0) wait = wait > 0 ? Math.min(wait, w) : w;
    }
    if (wait > 0 && this.#settleTimer === null) {
      this.#settleTimer = setTimeout(() => {
        this.#settleTimer = null;
        this.apply([]);
      }, wait);
    }
  }

  init(state: WindowState) {
    this.#setSnapshot(state.snapshot);
    this.#setDialogs(state.dialogs);
  }

  #setSnapshot(s: AppSnapshot) {
    const before = this.#listed;
    const gone = (this.snapshot?.connections ?? []).filter((c) => !s.connections.some((x) => x.agentId === c.agentId));
    if (gone.length) {
      const left = { ...this.left };
      for (const c of gone) left[c.agentId] = { name: this.agentLabel(c.agentId), editor: c.proxy?.editor ?? null };
      this.left = left;
    }
    this.snapshot = s;
    // A session that left the snapshot ended (closed, or its agent stopped). Its transcript stays
    // readable; a later session reusing the id (a restarted agent counting from 1) starts clean.
    const now = new Set(s.sessions.map((x) => x.sessionId));
    for (const id of this.#listed) if (!now.has(id)) this.#ended.add(id);
    for (const id of now) if (this.#ended.delete(id)) this.transcripts.delete(id);
    this.#listed = now;
    // Keep the shown session while it exists. When it ended, show another session of the same
    // agent if there is one; otherwise keep its transcript on screen until one appears.
    // An editor's proxied connection never comes back (the next proxy is a new connection): once
    // it left, the next new session is shown instead, an editor's next session most often.
    if (!now.has(this.activeSessionId ?? "")) {
      const agent = this.selectedAgentId;
      const leftForGood = agent !== null && this.left[agent]?.editor != null && !s.connections.some((c) => c.agentId === agent);
      const next =
        s.sessions.find((x) => x.agentId === agent) ??
        (agent === null ? s.sessions[0] : leftForGood ? s.sessions.find((x) => !before.has(x.sessionId)) : undefined);
      if (next) {
        this.activeSessionId = next.sessionId;
        if (leftForGood) this.selectedAgentId = next.agentId;
      } else if (!this.transcripts.has(this.activeSessionId ?? "")) this.activeSessionId = null;
    }
    if (this.selectedAgentId === null && s.connections.length) this.selectedAgentId = s.connections[0].agentId;
    // Only the last ENDED_KEPT ended transcripts stay (the oldest go first, never the one shown):
    // a day of restarts and closed sessions would otherwise pile them up in the window. The
    // agent's own history (Past sessions) still has them.
    for (const id of this.#ended) {
      if (this.#ended.size <= ENDED_KEPT) break;
      if (id === this.activeSessionId) continue;
      this.#ended.delete(id);
      this.transcripts.delete(id);
    }
  }

  /** The transcript an event for `sessionId` goes to. An event for an ended session's id
   *  belongs to a new session that reuses it. */
  #transcript(sessionId: string): Transcript {
    if (this.#ended.delete(sessionId)) this.transcripts.delete(sessionId);
    let t = this.transcripts.get(sessionId);
    if (!t) {
      t = new Transcript(sessionId);
      this.transcripts.set(sessionId, t);
    }
    return t;
  }

  /** Where a notice goes: its session's transcript (also once that session ended: the end of
   *  a turn is reported after its agent is gone), else the transcript shown. */
  #notice(text: string, tone: "info" | "error", sessionId?: string | null) {
    const id = sessionId ?? this.activeSessionId;
    if (!id) return;
    const t = this.transcripts.get(id) ?? this.#transcript(id);
    t.push(new NoticeItem(text, tone));
  }

  /** The app model's list of waiting dialogs is what the window shows as waiting. A dialog
   *  that left it stays on screen only while the window has more to say of it: why it was
   *  withdrawn (its dismissal comes before the list without it), or the page the user opened. */
  #setDialogs(list: Dialog[]) {
    const listed = new Set(list.map((d) => d.dialogId));
    const kept = this.dialogs.filter((x) => x.status !== "pending" || listed.has(x.dialogId));
    const shown = new Set(kept.map((x) => x.dialogId));
    for (const d of list) if (!shown.has(d.dialogId)) kept.push(new DialogEntry(d));
    this.dialogs = kept;
  }

  find(dialogId: number): DialogEntry | undefined {
    return this.dialogs.find((x) => x.dialogId === dialogId);
  }

  /** Remove a dialog from the queue (after it was answered or the user closed a notice). */
  close(dialogId: number) {
    const i = this.dialogs.findIndex((x) => x.dialogId === dialogId);
    if (i >= 0) this.dialogs.splice(i, 1);
  }

  /** A dialog nobody needs to answer any more closes at once; its session's transcript (else
   *  the one shown) gets a short note of it. A URL page the person opened and finished stays
   *  until they close it. */
  #dismiss(dialogId: number, reason: DismissReason) {
    const d = this.find(dialogId);
    if (!d || d.status === "completed") return;
    this.close(dialogId);
    const sessionId = dialogSession(d.dialog) ?? this.activeSessionId;
    if (!sessionId) return;
    const t = this.transcripts.get(sessionId) ?? this.#transcript(sessionId);
    t.withdrawn(dialogGist(d.dialog), DISMISS_TEXT[reason]);
  }

  #applyOne(e: UiEvent) {
    // Exhaustive over `UiEvent`: a new event type is a type error here until it is handled, and
    // one this build does not know (a newer backend) is logged, never silently dropped.
    switch (e.type) {
      case "connection":
        this.#setSnapshot(e.snapshot);
        return;
      case "user_prompt": {
        const names = (e.attachments ?? []).map((a) => a.path.split("/").pop());
        const text = names.length ? `${e.text}${e.text ? "\n" : ""}📎 ${names.join(", ")}` : e.text;
        this.#transcript(e.sessionId).userPrompt(text);
        return;
      }
      case "session_update":
        this.#transcript(e.sessionId).apply(e.update);
        return;
      case "mcp_app":
        this.#transcript(e.app.sessionId).app(e.app);
        return;
      case "malformed_update":
        // Refused: a kind ACP has whose fields do not parse (the backend logs it). An update of
        // a kind Porthole does not know is not this: it is a `session_update` of kind `unknown`.
        return;
      case "dialogs":
        this.#setDialogs(e.dialogs);
        return;
      case "dialog_dismissed":
        this.#dismiss(e.dialogId, e.reason);
        return;
      case "elicitation_complete": {
        const d =
          e.dialogId !== null
            ? this.find(e.dialogId)
            : this.dialogs.find(
                (x) => x.dialog.type === "elicitation" && x.dialog.mode === "url" && x.dialog.elicitationId === e.elicitationId,
              );
        if (d) d.status = "completed";
        return;
      }
      case "elicitation_rejected":
        this.#notice(`The agent sent a request Porthole could not show (${e.mode ?? "unknown mode"}): ${e.error.message}`, "error", e.sessionId);
        return;
      case "permission_auto":
        this.#notice(`Answered “${e.optionName}” for ${e.toolCall.title ?? e.toolCall.toolCallId} (a decision you chose to remember; revoke it in Settings).`, "info", e.sessionId);
        return;
      case "turn_ended":
        this.transcripts.get(e.sessionId)?.turnEnded();
        if (e.error) this.#notice(`The turn failed: ${e.error.message}`, "error", e.sessionId);
        else if (e.stopReason && e.stopReason !== "end_turn") this.#notice(`Turn ended: ${e.stopReason.replace(/_/g, " ")}`, "info", e.sessionId);
        return;
      case "agent_exited":
        if (!e.requested) this.#notice(`The agent stopped (${e.status}).`, "error");
        return;
      case "terminal_created":
        this.terminals.set(e.terminalId, new TerminalState(e.terminalId, e.sessionId, e.command, e.args));
        return;
      case "terminal_output": {
        const t = this.terminals.get(e.terminalId);
        if (!t) return;
        t.write(e.data, false);
        if (e.truncated) t.truncated = true;
        return;
      }
      case "terminal_exited": {
        const t = this.terminals.get(e.terminalId);
        if (!t) return;
        t.exited = true;
        t.exitCode = e.exitCode;
        t.signal = e.signal;
        return;
      }
      case "terminal_released": {
        const t = this.terminals.get(e.terminalId);
        if (t) t.released = true;
        return;
      }
      case "url_view": {
        const d = this.find(e.dialogId);
        if (d) d.urlView = { state: e.state, detail: e.detail };
        return;
      }
      case "mcp_connection_problem": {
        // Said where it matters: in each session the connection was handed to.
        const text = e.needsSignIn
          ? `Sign in to the MCP connection “${e.connection}” again (${e.reason}): choose Sign in under MCP connections.`
          : `The MCP connection “${e.connection}” is not available: ${e.reason}`;
        if (e.sessions.length === 0) this.#notice(text, "error");
        for (const id of e.sessions) this.#notice(text, "error", id);
        this.mcpVersion++;
        return;
      }
      case "mcp_sign_in_ended": {
        if (e.error === null) this.mcpSignInFailures.delete(e.connection);
        else {
          this.mcpSignInFailures.set(e.connection, e.error);
          const d = this.find(e.dialogId);
          if (d) d.problem = `The sign-in did not finish: ${e.error}`;
        }
        this.mcpVersion++;
        return;
      }
      case "mcp_registry_refreshed": {
        this.mcpRegistryVersion++;
        return;
      }
      case "install_progress": {
        const { type: _type, registryId, ...progress } = e;
        this.installs.set(registryId, progress);
        return;
      }
      case "stdout_noise":
      case "stdout_not_shown":
      case "line_too_long":
        return;
      default: {
        const unknown: never = e;
        console.error("Porthole: an event this window does not know was dropped", unknown);
        return;
      }
    }
  }
}
