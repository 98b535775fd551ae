// App state: applies UiEvent batches from the backend. The backend owns protocol
// logic; this store only keeps what the window needs to render.
import type {
  AppSnapshot, ContentBlock, DismissReason, Elicitation, PermissionRequest, PlanEntry,
  SessionUpdate, ToolCallFields, UiEvent,
} from "./protocol";

let nextId = 1;
const uid = () => nextId++;

export class TextItem {
  readonly id = uid();
  /** Chunks are appended; `text` is the concatenation (string append is amortized O(1)). */
  text = $state("");
  constructor(
    readonly kind: "user" | "agent" | "thought",
    readonly messageId: string | null,
    text: string,
  ) {
    this.text = text;
  }
  append(s: string) {
    this.text += s;
  }
}

export class ToolItem {
  readonly id = uid();
  readonly kind = "tool" as const;
  fields = $state<ToolCallFields>({});
  constructor(readonly toolCallId: string, fields: ToolCallFields) {
    this.fields = pickFields(fields, {});
  }
  merge(update: ToolCallFields) {
    this.fields = pickFields(update, this.fields);
  }
}

export class PlanItem {
  readonly id = uid();
  readonly kind = "plan" as const;
  entries = $state<PlanEntry[]>([]);
  constructor(entries: PlanEntry[]) {
    this.entries = entries;
  }
}

export class NoticeItem {
  readonly id = uid();
  readonly kind = "notice" as const;
  constructor(readonly text: string, readonly tone: "info" | "error" = "info") {}
}

export type TranscriptItem = TextItem | ToolItem | PlanItem | NoticeItem;

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

export type DialogStatus = "pending" | "waiting" | "completed" | "dismissed";
export type UrlViewState = { state: "opened" | "closed" | "load_failed" | "navigation_blocked" | "crashed"; detail: string | null };

export class DialogEntry {
  status = $state<DialogStatus>("pending");
  reason = $state<DismissReason | null>(null);
  urlView = $state<UrlViewState | null>(null);
  /** Target used when the user accepted a URL dialog (for Reopen). */
  openedWith = $state<"sealed" | "system" | null>(null);
  constructor(readonly dialog: Elicitation | PermissionRequest) {}
  get dialogId() {
    return this.dialog.dialogId;
  }
}

export const DISMISS_TEXT: Record<DismissReason, string> = {
  agent_cancelled: "The agent withdrew this request.",
  agent_exited: "The agent stopped running.",
  session_ended: "The session ended, so this request no longer applies.",
  turn_cancelled: "The turn was cancelled, so this request no longer applies.",
};

export function blockText(b: ContentBlock): string {
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text : "";
    case "image":
      return "[image]";
    case "resource_link":
      return `[${String((b as { name?: unknown }).name ?? "resource")}]`;
    case "resource":
      return "[embedded resource]";
    default:
      return `[${b.type} content]`;
  }
}

export class AppStore {
  snapshot = $state<AppSnapshot | null>(null);
  items = $state<TranscriptItem[]>([]);
  commands = $state<{ name: string; description: string }[]>([]);
  dialogs = $state<DialogEntry[]>([]);
  turnRunning = $state(false);
  /** Bumped once per applied batch; the transcript auto-scroll follows it. */
  version = $state(0);
  /** Frames in which batches were applied (for tests / diagnostics). */
  framesApplied = 0;

  #tools = new Map<string, ToolItem>();
  #messages = new Map<string, TextItem>();
  #plan: PlanItem | null = null;
  #queue: UiEvent[] = [];
  #scheduled = false;
  #raf: (cb: () => void) => unknown;

  constructor(raf?: (cb: () => void) => unknown) {
    this.#raf =
      raf ??
      (typeof requestAnimationFrame === "function"
        ? (cb) => requestAnimationFrame(cb)
        : (cb) => setTimeout(cb, 16));
  }

  get connected() {
    return this.snapshot?.connection === "connected";
  }

  /** The dialog being shown (first in arrival order). */
  get active(): DialogEntry | null {
    return this.dialogs[0] ?? null;
  }

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
    for (const e of events) this.#applyOne(e);
    this.version++;
  }

  init(state: { snapshot: AppSnapshot; pending: (Elicitation | PermissionRequest)[] }) {
    this.#setSnapshot(state.snapshot);
    for (const d of state.pending) this.#addDialog(d);
  }

  #setSnapshot(s: AppSnapshot) {
    this.snapshot = s;
    this.turnRunning = s.turnRunning;
  }

  #push(item: TranscriptItem) {
    this.items.push(item);
  }

  #addDialog(d: Elicitation | PermissionRequest) {
    if (this.dialogs.some((x) => x.dialogId === d.dialogId)) return;
    this.dialogs.push(new DialogEntry(d));
  }

  find(dialogId: number): DialogEntry | undefined {
    return this.dialogs.find((x) => x.dialogId === dialogId);
  }

  /** Remove a dialog from the queue (after it was answered or the user closed a notice). */
  close(dialogId: number) {
    const i = this.dialogs.findIndex((x) => x.dialogId === dialogId);
    if (i >= 0) this.dialogs.splice(i, 1);
  }

  #applyOne(e: UiEvent) {
    switch (e.type) {
      case "connection":
        this.#setSnapshot((e as { snapshot: AppSnapshot }).snapshot);
        return;
      case "user_prompt":
        this.#push(new TextItem("user", null, (e as { text: string }).text));
        this.#plan = null;
        this.turnRunning = true;
        return;
      case "session_update":
        this.#applyUpdate((e as { update: SessionUpdate }).update);
        return;
      case "unknown_update":
        // Forward-compatible: ignore silently in the transcript (backend logs it).
        return;
      case "elicitation":
      case "permission":
        this.#addDialog(e as Elicitation | PermissionRequest);
        return;
      case "elicitation_dismissed":
      case "permission_dismissed": {
        const ev = e as { dialogId: number; reason: DismissReason };
        const d = this.find(ev.dialogId);
        if (d && d.status !== "completed") {
          d.status = "dismissed";
          d.reason = ev.reason;
        }
        return;
      }
      case "elicitation_complete": {
        const ev = e as { elicitationId: string; dialogId: number | null };
        const d =
          ev.dialogId !== null
            ? this.find(ev.dialogId)
            : this.dialogs.find(
                (x) => x.dialog.type === "elicitation" && x.dialog.mode === "url" && x.dialog.elicitationId === ev.elicitationId,
              );
        if (d && d.status !== "dismissed") d.status = "completed";
        return;
      }
      case "elicitation_rejected": {
        const ev = e as { mode: string | null; error: { message: string } };
        this.#push(new NoticeItem(`The agent sent a request Porthole could not show (${ev.mode ?? "unknown mode"}): ${ev.error.message}`, "error"));
        return;
      }
      case "turn_ended": {
        const ev = e as { stopReason: string | null; error: { code: number; message: string } | null };
        this.turnRunning = false;
        if (ev.error) this.#push(new NoticeItem(`The turn failed: ${ev.error.message}`, "error"));
        else if (ev.stopReason && ev.stopReason !== "end_turn") this.#push(new NoticeItem(`Turn ended: ${ev.stopReason.replace(/_/g, " ")}`));
        return;
      }
      case "agent_exited": {
        const ev = e as { status: string; requested: boolean };
        this.turnRunning = false;
        if (!ev.requested) this.#push(new NoticeItem(`The agent stopped (${ev.status}).`, "error"));
        return;
      }
      case "url_view": {
        const ev = e as { dialogId: number } & UrlViewState;
        const d = this.find(ev.dialogId);
        if (d) d.urlView = { state: ev.state, detail: ev.detail };
        return;
      }
      case "stdout_noise":
      default:
        return;
    }
  }

  #applyUpdate(u: SessionUpdate) {
    switch (u.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const uu = u as { sessionUpdate: string; content: ContentBlock; messageId?: string | null };
        const kind = uu.sessionUpdate === "user_message_chunk" ? "user" : uu.sessionUpdate === "agent_message_chunk" ? "agent" : "thought";
        this.#appendText(kind, uu.messageId ?? null, blockText(uu.content));
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const uu = u as { toolCallId: string } & ToolCallFields;
        const existing = this.#tools.get(uu.toolCallId);
        if (existing) existing.merge(uu);
        else {
          const t = new ToolItem(uu.toolCallId, uu);
          this.#tools.set(uu.toolCallId, t);
          this.#push(t);
        }
        return;
      }
      case "plan": {
        const entries = (u as { entries: PlanEntry[] }).entries;
        if (this.#plan) this.#plan.entries = entries;
        else {
          this.#plan = new PlanItem(entries);
          this.#push(this.#plan);
        }
        return;
      }
      case "available_commands_update":
        this.commands = (u as { availableCommands: { name: string; description: string }[] }).availableCommands;
        return;
      default:
        return;
    }
  }

  #appendText(kind: TextItem["kind"], messageId: string | null, text: string) {
    if (messageId) {
      const key = `${kind}:${messageId}`;
      const m = this.#messages.get(key);
      if (m) {
        m.append(text);
        return;
      }
      const item = new TextItem(kind, messageId, text);
      this.#messages.set(key, item);
      this.#push(item);
      return;
    }
    const last = this.items[this.items.length - 1];
    if (last instanceof TextItem && last.kind === kind && last.messageId === null) {
      last.append(text);
      return;
    }
    this.#push(new TextItem(kind, null, text));
  }
}
