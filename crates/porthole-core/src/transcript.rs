//! Porthole's own session updates: what every front end switches on, one `kind` tag each.
//!
//! The SDK's `SessionUpdate` is `#[non_exhaustive]` and says what arrived on the wire; a
//! [`TranscriptUpdate`] says what changed in the session as Porthole models it, and is made from
//! the SDK's in exactly one place ([`From<SessionUpdate>`], called by core's `deliver_update`
//! for both the SDK's path and the fast path). A kind the SDK adds later, or one the agent sends
//! that the SDK does not know, becomes [`ItemUpdate::Unknown`]: kept, shown generically ("an
//! update Porthole does not know: KIND"), never dropped. Everything after that point (the app
//! model, the CLI, the window through the generated `TranscriptUpdate` type) matches Porthole's
//! kinds exhaustively, so a kind added here is a compiler error (or a svelte-check one) in each
//! place that must handle it. `tests::the_schema_and_the_model_name_the_same_kinds` keeps the
//! kinds equal to the ACP schema's and the SDK's.
//!
//! Shaped for both wires. ACP v1 streams messages in chunks; v2 also upserts them by
//! `messageId` (a field left out is unchanged, `null` clears). A [`MessageChange`] is keyed by its
//! role and `messageId` and carries a [`MessageEdit`]: v1's chunks are `Append`, a v2 upsert
//! will be `Replace` (`null` content is an empty `Replace`) or `Keep` (content left out: the
//! message exists). A tool call is created by the first update naming its id (v1's `tool_call`
//! or, as Gemini CLI does, a `tool_call_update`; v2 has only the latter). Session-level state
//! (commands, mode, config, title, usage and cost; v2's running state will join) is a
//! [`SessionState`], apart from the transcript's items, so the app model folds it with an
//! exhaustive match of its own and a new item kind never touches it.
//!
//! In TypeScript the SDK's payloads are named `Acp.X`, the official TypeScript SDK's types
//! (`generated/core.ts` imports them as `Acp`), so a kind carrying a new SDK type needs no import.

use std::borrow::Cow;

use agent_client_protocol::v1::schema::{
    AvailableCommandsUpdate, CompactionStatus, CompactionSummaryChunk, CompactionUpdate, ConfigOptionUpdate,
    ContentBlock, ContentChunk, CurrentModeUpdate, MessageId, Meta, Notice, NoticeSeverity, Plan,
    SessionInfoUpdate, SessionUpdate, ToolCall, ToolCallContent, ToolCallId, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind, UsageUpdate,
};
use serde::Serialize;
use serde_json::Value;

/// One change to a session. Serialized for the window as its kind's object (`{"kind":
/// "message", ...}` or `{"kind": "usage", ...}`): the two halves share one `kind` namespace.
// Sized as its largest kind: it travels boxed (`Event::SessionUpdate`), and boxing a kind
// would cost an allocation per chunk of a flood.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum TranscriptUpdate {
    /// An item of the transcript: a message, a tool call, the plan...
    Item(ItemUpdate),
    /// State of the session beside the transcript (the app model's session view).
    Session(SessionState),
}

/// A change to the transcript's items: what the window shows as rows and the CLI as lines.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ItemUpdate {
    /// Text of the user, the agent or its thinking, keyed by role and `messageId`.
    Message(MessageChange),
    /// A tool call: created by the first update naming its id, patched by the later ones.
    ToolCall(ToolCallChange),
    /// The agent's plan, whole (each one replaces the last).
    Plan(#[cfg_attr(feature = "ts", ts(type = "Acp.Plan"))] Plan),
    /// Information for the user that is not part of the conversation (`notice`).
    Notice(#[cfg_attr(feature = "ts", ts(type = "Acp.Notice"))] Notice),
    /// A compaction of the context started, finished, failed or was cancelled.
    Compaction(#[cfg_attr(feature = "ts", ts(type = "Acp.CompactionUpdate"))] CompactionUpdate),
    /// A block appended to a compaction's summary.
    CompactionSummary(
        #[cfg_attr(feature = "ts", ts(type = "Acp.CompactionSummaryChunk"))] CompactionSummaryChunk,
    ),
    /// A terminal the agent runs itself (ACP v2's display-only `terminal_update` and
    /// `terminal_output_chunk`): its command, output and exit, shown where a tool call names it.
    Terminal(TerminalChange),
    /// A subagent: a session the agent started and owns under this one (ACP v2's
    /// `subagent_update`, unstable in the schema), shown under the tool call whose content
    /// names its session.
    Subagent(SubagentChange),
    /// A message this session sent to or got from another one (v2's `session_message` and
    /// `session_message_chunk`): what it said to a subagent, and what the subagent answered.
    SessionMessage(SessionMessageChange),
    /// An update Porthole does not model: a kind newer than the SDK, or one the SDK knows and
    /// Porthole does not yet. Kept as it came and shown by its name.
    Unknown(UnknownUpdate),
}

/// Session-level state: the app model keeps it in the session view, which the window gets
/// with the snapshot; the CLI prints some of it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SessionState {
    /// The commands the agent offers (`/name`).
    AvailableCommands(
        #[cfg_attr(feature = "ts", ts(type = "Acp.AvailableCommandsUpdate"))] AvailableCommandsUpdate,
    ),
    /// The session's mode changed.
    CurrentMode(#[cfg_attr(feature = "ts", ts(type = "Acp.CurrentModeUpdate"))] CurrentModeUpdate),
    /// The session's configuration options, whole.
    ConfigOptions(#[cfg_attr(feature = "ts", ts(type = "Acp.ConfigOptionUpdate"))] ConfigOptionUpdate),
    /// The session's title or time changed.
    SessionInfo(#[cfg_attr(feature = "ts", ts(type = "Acp.SessionInfoUpdate"))] SessionInfoUpdate),
    /// Context use and cost.
    Usage(#[cfg_attr(feature = "ts", ts(type = "Acp.UsageUpdate"))] UsageUpdate),
    /// The session's running state (ACP v2's `state_update`): running, waiting for the user,
    /// idle, or a state Porthole does not know (busy).
    State(RunState),
}

/// A v2 `state_update`, as Porthole models it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunState {
    /// `running`, `requires_action`, `idle`, or a value Porthole does not know, as it came.
    pub state: String,
    /// Foreground work goes on: false only for `idle` (an unknown state counts as busy, never
    /// idle, as the protocol requires).
    pub busy: bool,
    /// Why foreground work stopped (an `idle` state's `stopReason`), as the agent named it.
    pub stop_reason: Option<String>,
    /// Work running beside the foreground work, each as the agent described it; `None`: the
    /// agent does not report it (not "nothing runs").
    #[cfg_attr(feature = "ts", ts(type = "Array<unknown> | null"))]
    pub background: Option<Vec<Value>>,
}

/// Whose text a message is.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum MessageRole {
    User,
    Agent,
    /// The agent's thinking.
    Thought,
}

/// A change to one message. Messages are keyed by role and `messageId`; without an id, a
/// change continues the last message of its role when that one has no id either.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MessageChange {
    pub role: MessageRole,
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub message_id: Option<MessageId>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(flatten))]
    pub edit: MessageEdit,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown }", optional))]
    pub meta: Option<Meta>,
}

/// What a change does to a message's content (`op`). A message never seen is created by any.
// `Append` holds its block inline: a chunk (the flood's update) is not allocated twice.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "op", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum MessageEdit {
    /// A block added at the end (v1's and v2's chunks).
    Append {
        #[cfg_attr(feature = "ts", ts(type = "Acp.ContentBlock"))]
        content: ContentBlock,
    },
    /// The message's whole content (a v2 upsert; its `null` content is an empty list).
    Replace {
        #[cfg_attr(feature = "ts", ts(type = "Array<Acp.ContentBlock>"))]
        content: Vec<ContentBlock>,
    },
    /// The content unchanged (a v2 upsert that left it out).
    Keep,
}

/// A tool call's update. `fields` are those it sets: a field left out is unchanged.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ToolCallChange {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub tool_call_id: ToolCallId,
    /// The agent announced the call with this update (v1's `tool_call`): its fields are the
    /// whole call (a title at least). False for a patch, which may still be the first update.
    pub opened: bool,
    #[cfg_attr(
        feature = "ts",
        ts(type = "Omit<Acp.ToolCallUpdate, \"toolCallId\" | \"_meta\">")
    )]
    pub fields: ToolCallUpdateFields,
    /// Sessions this update's content refers to (v2's display-only `session` content, a
    /// subagent the call started or waits on), taken out of `fields.content`, which v1's
    /// types hold. Empty for v1 and for an update that names none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(type = "Array<string>", optional))]
    pub sessions: Vec<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown }", optional))]
    pub meta: Option<Meta>,
}

/// A subagent's upsert, keyed by its own session's id. Each field left out (`undefined`) is
/// unchanged, `null` clears it, a value replaces it: v2's rule, kept as it came.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubagentChange {
    /// The subagent's own session (its updates come with this `sessionId`).
    pub session_id: String,
    /// The parent's display title for the subagent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<Option<String>>,
    /// What the subagent is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<Option<String>>,
    /// Its running state, mirrored by the parent (`null`: no report, not idle).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub state: Option<Option<RunState>>,
    /// Fields Porthole does not show (`cwd`, `capabilities`, `additionalDirectories`, newer
    /// ones), as they came.
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown }", optional))]
    pub other: serde_json::Map<String, Value>,
    /// The `_meta` patch as it came (`null` clears the stored metadata).
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown } | null", optional))]
    pub meta: Option<Value>,
    /// The update as the agent sent it: what `--json` prints.
    #[serde(skip)]
    pub(crate) wire: Value,
}

/// A change to a message between this session and another (keyed by `messageId` within this
/// session). The upsert's sender and recipient follow the subagent's rule (left out unchanged,
/// `null` clears); a chunk has neither, and appends to the message of its id.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionMessageChange {
    pub message_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub sender_session_id: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub recipient_session_id: Option<Option<String>>,
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(flatten))]
    pub edit: MessageEdit,
    /// Fields Porthole does not show (`senderMessageId`, `recipientMessageId`, newer ones).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown }", optional))]
    pub other: serde_json::Map<String, Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "{ [key: string]: unknown } | null", optional))]
    pub meta: Option<Value>,
    /// The update as the agent sent it: what `--json` prints.
    #[serde(skip)]
    pub(crate) wire: Value,
}

/// A change to a terminal the agent runs (v2): each field it leaves out is unchanged.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TerminalChange {
    /// Unique within the session.
    pub terminal_id: String,
    pub command: Option<String>,
    pub cwd: Option<String>,
    /// Output, decoded from base64 (bytes that are not UTF-8 are replaced, as a terminal shows
    /// them); `null` when this update has none.
    pub output: Option<TerminalOutputEdit>,
    /// Set once the command ended: the terminal is done.
    pub exit_status: Option<TerminalExit>,
    /// The update as the agent sent it (its base64 data included): what `--json` prints.
    #[serde(skip)]
    pub(crate) wire: Value,
}

/// What an update does to a terminal's output (`op`).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "op", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum TerminalOutputEdit {
    /// Bytes added at the end (`terminal_output_chunk`).
    Append { text: String },
    /// The whole output so far (`terminal_update`'s authoritative snapshot).
    Replace { text: String },
}

/// How a terminal's command ended.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TerminalExit {
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub exit_code: Option<i64>,
    pub signal: Option<String>,
}

/// An update whose kind Porthole does not model.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UnknownUpdate {
    /// Its kind as the agent named it (`sessionUpdate`).
    pub session_update: String,
    /// The update as it came (the SDK's JSON of it, when the SDK read it).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub update: Value,
}

/// The `sessionUpdate` kinds of ACP v1 that the SDK reads and Porthole models, in the SDK's
/// order. An update of another kind fails the SDK's parse; it is kept as
/// [`ItemUpdate::Unknown`] when its kind is not one of these (a newer kind), and refused as
/// malformed when it is (a known kind with fields that do not parse).
pub const V1_KINDS: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    "notice",
    "compaction_update",
    "compaction_summary_chunk",
];

/// The one conversion from the SDK's v1 update.
impl From<SessionUpdate> for TranscriptUpdate {
    fn from(update: SessionUpdate) -> Self {
        use TranscriptUpdate::{Item, Session};
        match update {
            SessionUpdate::UserMessageChunk(c) => {
                Item(ItemUpdate::Message(MessageChange::chunk(MessageRole::User, c)))
            }
            SessionUpdate::AgentMessageChunk(c) => {
                Item(ItemUpdate::Message(MessageChange::chunk(MessageRole::Agent, c)))
            }
            SessionUpdate::AgentThoughtChunk(c) => {
                Item(ItemUpdate::Message(MessageChange::chunk(MessageRole::Thought, c)))
            }
            SessionUpdate::ToolCall(call) => Item(ItemUpdate::ToolCall(ToolCallChange::opened(call))),
            SessionUpdate::ToolCallUpdate(u) => Item(ItemUpdate::ToolCall(ToolCallChange {
                tool_call_id: u.tool_call_id,
                opened: false,
                fields: u.fields,
                sessions: Vec::new(),
                meta: u.meta,
            })),
            SessionUpdate::Plan(p) => Item(ItemUpdate::Plan(p)),
            SessionUpdate::Notice(n) => Item(ItemUpdate::Notice(n)),
            SessionUpdate::CompactionUpdate(c) => Item(ItemUpdate::Compaction(c)),
            SessionUpdate::CompactionSummaryChunk(c) => Item(ItemUpdate::CompactionSummary(c)),
            SessionUpdate::AvailableCommandsUpdate(u) => Session(SessionState::AvailableCommands(u)),
            SessionUpdate::CurrentModeUpdate(u) => Session(SessionState::CurrentMode(u)),
            SessionUpdate::ConfigOptionUpdate(u) => Session(SessionState::ConfigOptions(u)),
            SessionUpdate::SessionInfoUpdate(u) => Session(SessionState::SessionInfo(u)),
            SessionUpdate::UsageUpdate(u) => Session(SessionState::Usage(u)),
            // The SDK's enum is non-exhaustive: a kind a newer SDK (or one of its unstable
            // features) adds is kept and shown by its name until Porthole models it. The
            // schema test fails for it, so it does not stay here unnoticed.
            newer => {
                let update = serde_json::to_value(&newer).unwrap_or(Value::Null);
                let kind = update["sessionUpdate"].as_str().unwrap_or("?").to_string();
                TranscriptUpdate::unknown(kind, update)
            }
        }
    }
}

impl TranscriptUpdate {
    /// An update of a kind Porthole does not model, as it came.
    pub fn unknown(session_update: String, update: Value) -> Self {
        TranscriptUpdate::Item(ItemUpdate::Unknown(UnknownUpdate {
            session_update,
            update,
        }))
    }

    /// Porthole's name of the update's kind (its `kind` tag).
    pub fn kind(&self) -> &'static str {
        match self {
            TranscriptUpdate::Item(item) => match item {
                ItemUpdate::Message(_) => "message",
                ItemUpdate::ToolCall(_) => "tool_call",
                ItemUpdate::Plan(_) => "plan",
                ItemUpdate::Notice(_) => "notice",
                ItemUpdate::Compaction(_) => "compaction",
                ItemUpdate::CompactionSummary(_) => "compaction_summary",
                ItemUpdate::Terminal(_) => "terminal",
                ItemUpdate::Subagent(_) => "subagent",
                ItemUpdate::SessionMessage(_) => "session_message",
                ItemUpdate::Unknown(_) => "unknown",
            },
            TranscriptUpdate::Session(state) => match state {
                SessionState::AvailableCommands(_) => "available_commands",
                SessionState::CurrentMode(_) => "current_mode",
                SessionState::ConfigOptions(_) => "config_options",
                SessionState::SessionInfo(_) => "session_info",
                SessionState::Usage(_) => "usage",
                SessionState::State(_) => "state",
            },
        }
    }

    /// The agent's own output in a turn (what porthole-cli's `--cancel-after-updates` counts):
    /// its messages, thoughts, tool calls and plan; not the user's message echoed, notices,
    /// compactions, session state or an update Porthole does not know.
    pub fn is_agent_output(&self) -> bool {
        match self {
            TranscriptUpdate::Item(item) => match item {
                ItemUpdate::Message(m) => m.role != MessageRole::User,
                ItemUpdate::ToolCall(_) | ItemUpdate::Plan(_) => true,
                ItemUpdate::Notice(_)
                | ItemUpdate::Compaction(_)
                | ItemUpdate::CompactionSummary(_)
                | ItemUpdate::Unknown(_) => false,
                // The agent's command working: its output is the agent's doing.
                ItemUpdate::Terminal(_) => true,
                // The agent's own work, done in a session of its own.
                ItemUpdate::Subagent(_) | ItemUpdate::SessionMessage(_) => true,
            },
            TranscriptUpdate::Session(_) => false,
        }
    }

    /// The text an agent's message chunk appends (a text block of `MessageRole::Agent`).
    pub fn agent_text(&self) -> Option<&str> {
        match self {
            TranscriptUpdate::Item(ItemUpdate::Message(MessageChange {
                role: MessageRole::Agent,
                edit:
                    MessageEdit::Append {
                        content: ContentBlock::Text(t),
                    },
                ..
            })) => Some(&t.text),
            _ => None,
        }
    }

    /// The message this update changes.
    pub fn message(&self) -> Option<&MessageChange> {
        match self {
            TranscriptUpdate::Item(ItemUpdate::Message(m)) => Some(m),
            _ => None,
        }
    }

    /// The tool call this update creates or patches.
    pub fn tool_call(&self) -> Option<&ToolCallChange> {
        match self {
            TranscriptUpdate::Item(ItemUpdate::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    /// The update as the agent sent it (a v1 `session/update`'s `update`, or v2's names where
    /// v1 has none): what porthole-cli's `--json` prints, written from the model without a copy.
    pub fn wire(&self) -> Wire<'_> {
        Wire(self)
    }

    /// How a front end without a window shows the update in text (porthole-cli's human mode):
    /// the kind's own words, in this file beside it. The agent's text is raw in them: a front
    /// end that prints them neutralises it first (the CLI's `term`).
    pub fn text_lines(&self) -> Vec<TextLine<'_>> {
        let mut out = Vec::new();
        match self {
            TranscriptUpdate::Item(item) => match item {
                ItemUpdate::Message(m) => match (&m.edit, m.role) {
                    (MessageEdit::Append { content }, MessageRole::Agent) => {
                        out.push(TextLine::Reply(block_text(content)))
                    }
                    (MessageEdit::Append { content }, MessageRole::Thought) => {
                        out.push(TextLine::Note(format!("[thought] {}", block_text(content))))
                    }
                    // The user's own words (a replayed history) are not repeated.
                    (MessageEdit::Append { .. }, MessageRole::User) | (MessageEdit::Keep, _) => {}
                    (MessageEdit::Replace { content }, role) => {
                        let text: Vec<Cow<'_, str>> = content.iter().map(block_text).collect();
                        out.push(TextLine::Note(format!(
                            "[{} message {} now] {}",
                            role.name(),
                            m.message_id.as_ref().map_or("?", |id| &id.0),
                            text.concat()
                        )));
                    }
                },
                ItemUpdate::ToolCall(t) => {
                    if t.opened {
                        let status = t.fields.status.unwrap_or_default();
                        out.push(TextLine::Line(format!(
                            "[tool] {} ({})",
                            t.fields.title.as_deref().unwrap_or_default(),
                            name(&status)
                        )));
                    } else {
                        out.push(TextLine::Line(format!(
                            "[tool update] {}{}{}",
                            t.tool_call_id.0,
                            t.fields
                                .status
                                .map(|s| format!(" {}", name(&s)))
                                .unwrap_or_default(),
                            t.fields
                                .title
                                .as_deref()
                                .map(|title| format!(" {title}"))
                                .unwrap_or_default()
                        )));
                    }
                    for c in t.fields.content.iter().flatten() {
                        match c {
                            ToolCallContent::Content(c) => out.push(TextLine::Note(format!(
                                "[tool output] {}",
                                block_text(&c.content)
                            ))),
                            ToolCallContent::Diff(d) => {
                                out.push(TextLine::Line(format!("[tool diff] {}", d.path.display())))
                            }
                            // A terminal's output is shown by its own events.
                            _ => {}
                        }
                    }
                    for session in &t.sessions {
                        out.push(TextLine::Line(format!(
                            "[tool {}] runs subagent {session}",
                            t.tool_call_id.0
                        )));
                    }
                }
                ItemUpdate::Plan(p) => {
                    for e in &p.entries {
                        out.push(TextLine::Line(format!(
                            "[plan] {} {}",
                            name(&e.status),
                            e.content
                        )));
                    }
                }
                ItemUpdate::Notice(n) => out.push(TextLine::Line(format!(
                    "[notice: {}] {}{}",
                    severity_name(&n.severity),
                    n.title,
                    n.description
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                ))),
                ItemUpdate::Compaction(c) => out.push(TextLine::Line(format!(
                    "[compaction {}] {}",
                    c.compaction_id.0,
                    compaction_words(&c.status)
                ))),
                ItemUpdate::CompactionSummary(c) => out.push(TextLine::Note(format!(
                    "[compaction {} summary] {}",
                    c.compaction_id.0,
                    block_text(&c.content)
                ))),
                ItemUpdate::Terminal(t) => {
                    if let Some(command) = &t.command {
                        out.push(TextLine::Line(format!("[terminal {}] {command}", t.terminal_id)));
                    }
                    if let Some(TerminalOutputEdit::Append { text } | TerminalOutputEdit::Replace { text }) =
                        &t.output
                    {
                        out.push(TextLine::Note(format!(
                            "[terminal {} output] {text}",
                            t.terminal_id
                        )));
                    }
                    if let Some(exit) = &t.exit_status {
                        let how = match (&exit.signal, exit.exit_code) {
                            (Some(signal), _) => format!("killed ({signal})"),
                            (None, Some(code)) => format!("exit {code}"),
                            (None, None) => "ended".to_string(),
                        };
                        out.push(TextLine::Line(format!("[terminal {}] {how}", t.terminal_id)));
                    }
                }
                ItemUpdate::Subagent(a) => {
                    let mut said = Vec::new();
                    if let Some(title) = &a.title {
                        said.push(title.clone().unwrap_or_else(|| "(title cleared)".into()));
                    }
                    if let Some(Some(description)) = &a.description {
                        said.push(format!("“{description}”"));
                    }
                    match &a.state {
                        Some(Some(r)) => said.push(match &r.stop_reason {
                            Some(reason) => format!("{} ({reason})", r.state),
                            None => r.state.clone(),
                        }),
                        Some(None) => said.push("state unknown".into()),
                        None => {}
                    }
                    out.push(TextLine::Line(format!(
                        "[subagent {}] {}",
                        a.session_id,
                        said.join(" · ")
                    )));
                }
                ItemUpdate::SessionMessage(m) => {
                    let who = match (&m.sender_session_id, &m.recipient_session_id) {
                        (Some(Some(from)), Some(Some(to))) => format!(" {from} → {to}"),
                        (Some(Some(from)), _) => format!(" from {from}"),
                        (_, Some(Some(to))) => format!(" to {to}"),
                        _ => String::new(),
                    };
                    let text = match &m.edit {
                        MessageEdit::Append { content } => block_text(content).into_owned(),
                        MessageEdit::Replace { content } => content.iter().map(block_text).collect(),
                        MessageEdit::Keep => String::new(),
                    };
                    out.push(TextLine::Note(format!(
                        "[session message {}{who}] {text}",
                        m.message_id
                    )));
                }
                ItemUpdate::Unknown(u) => out.push(TextLine::Line(format!(
                    "[update] an update Porthole does not know: {}",
                    u.session_update
                ))),
            },
            TranscriptUpdate::Session(state) => match state {
                SessionState::AvailableCommands(u) => {
                    for c in &u.available_commands {
                        out.push(TextLine::Line(format!("[command] /{} {}", c.name, c.description)));
                    }
                }
                SessionState::Usage(u) => {
                    let share = (u.used as f64 / u.size.max(1) as f64 * 100.0).round();
                    let cost = u
                        .cost
                        .as_ref()
                        .map(|c| format!(" · {:.2} {}", c.amount, c.currency))
                        .unwrap_or_default();
                    out.push(TextLine::Line(format!(
                        "[usage] {} of {} tokens of context ({share}%){cost}",
                        u.used, u.size
                    )));
                }
                SessionState::State(r) => {
                    let reason = r
                        .stop_reason
                        .as_deref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default();
                    let background = r
                        .background
                        .as_ref()
                        .map(|b| format!(", {} in the background", b.len()))
                        .unwrap_or_default();
                    out.push(TextLine::Line(format!("[state] {}{reason}{background}", r.state)));
                }
                // Shown where they are set (`--mode`, `--config`, the session's line).
                SessionState::CurrentMode(_)
                | SessionState::ConfigOptions(_)
                | SessionState::SessionInfo(_) => {}
            },
        }
        out
    }
}

/// One piece of an update's text ([`TranscriptUpdate::text_lines`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextLine<'a> {
    /// The agent's reply as it streams: shown as it comes, no line end added.
    Reply(Cow<'a, str>),
    /// A line about the update (`[tool] Edit a.rs (pending)`): one line when shown, its line
    /// breaks shown as characters (a title must not start a line that looks like Porthole's).
    Line(String),
    /// A note whose text may run over lines (`[thought] ...`, a tool's output).
    Note(String),
}

impl MessageRole {
    pub fn name(self) -> &'static str {
        match self {
            MessageRole::User => "user",
            MessageRole::Agent => "agent",
            MessageRole::Thought => "thought",
        }
    }
}

impl MessageChange {
    /// A v1 chunk: appended to the message.
    fn chunk(role: MessageRole, chunk: ContentChunk) -> Self {
        let ContentChunk {
            content,
            message_id,
            meta,
            ..
        } = chunk;
        MessageChange {
            role,
            message_id,
            edit: MessageEdit::Append { content },
            meta,
        }
    }
}

impl ToolCallChange {
    /// A v1 `tool_call`: the fields its JSON has (a default kind or status, an empty list, is
    /// left out there and so here: what the window merged before).
    fn opened(call: ToolCall) -> Self {
        let ToolCallUpdate {
            tool_call_id,
            mut fields,
            meta,
            ..
        } = ToolCallUpdate::from(call);
        if fields.kind == Some(ToolKind::default()) {
            fields.kind = None;
        }
        if fields.status == Some(ToolCallStatus::default()) {
            fields.status = None;
        }
        if fields.content.as_ref().is_some_and(Vec::is_empty) {
            fields.content = None;
        }
        if fields.locations.as_ref().is_some_and(Vec::is_empty) {
            fields.locations = None;
        }
        ToolCallChange {
            tool_call_id,
            opened: true,
            fields,
            sessions: Vec::new(),
            meta,
        }
    }

    /// The change as the SDK's update (a copy).
    pub fn to_update(&self) -> ToolCallUpdate {
        ToolCallUpdate::new(self.tool_call_id.clone(), self.fields.clone()).meta(self.meta.clone())
    }
}

/// A content block in text: a text block's text, another kind named (`[image]`).
fn block_text(content: &ContentBlock) -> Cow<'_, str> {
    match content {
        ContentBlock::Text(t) => Cow::Borrowed(&t.text),
        other => Cow::Owned(format!(
            "[{}]",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_default()
        )),
    }
}

/// A protocol value's name as the wire spells it (`in_progress`).
fn name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => "?".into(),
    }
}

fn severity_name(severity: &NoticeSeverity) -> String {
    name(severity)
}

fn compaction_words(status: &CompactionStatus) -> String {
    match status {
        CompactionStatus::InProgress => "compacting the conversation".into(),
        CompactionStatus::Completed => "the conversation was compacted".into(),
        CompactionStatus::Failed => "compaction failed".into(),
        CompactionStatus::Cancelled => "compaction cancelled".into(),
        other => format!("compaction: {}", name(other)),
    }
}

/// [`TranscriptUpdate::wire`]: serializes as the `update` of the `session/update` it came in.
pub struct Wire<'a>(&'a TranscriptUpdate);

/// `{"sessionUpdate": kind, ...fields}` in the SDK's order: the tag, then the payload's fields.
#[derive(Serialize)]
struct Tagged<'a, T: Serialize> {
    #[serde(rename = "sessionUpdate")]
    kind: &'a str,
    #[serde(flatten)]
    payload: T,
}

/// A chunk's fields as the SDK's `ContentChunk` writes them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChunkFields<'a> {
    content: &'a ContentBlock,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_id: Option<&'a MessageId>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
}

/// A v2 message upsert's fields (`content: null` for an empty replacement).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpsertFields<'a> {
    message_id: Option<&'a MessageId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Option<&'a [ContentBlock]>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
}

impl Serialize for Wire<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        fn tagged<S: serde::Serializer, T: Serialize>(
            s: S,
            kind: &str,
            payload: T,
        ) -> Result<S::Ok, S::Error> {
            Tagged { kind, payload }.serialize(s)
        }
        match self.0 {
            TranscriptUpdate::Item(item) => match item {
                ItemUpdate::Message(m) => match &m.edit {
                    MessageEdit::Append { content } => {
                        let kind = match m.role {
                            MessageRole::User => "user_message_chunk",
                            MessageRole::Agent => "agent_message_chunk",
                            MessageRole::Thought => "agent_thought_chunk",
                        };
                        let fields = ChunkFields {
                            content,
                            message_id: m.message_id.as_ref(),
                            meta: m.meta.as_ref(),
                        };
                        tagged(s, kind, fields)
                    }
                    edit @ (MessageEdit::Replace { .. } | MessageEdit::Keep) => {
                        let kind = match m.role {
                            MessageRole::User => "user_message",
                            MessageRole::Agent => "agent_message",
                            MessageRole::Thought => "agent_thought",
                        };
                        let content = match edit {
                            MessageEdit::Replace { content } if content.is_empty() => Some(None),
                            MessageEdit::Replace { content } => Some(Some(content.as_slice())),
                            _ => None,
                        };
                        let fields = UpsertFields {
                            message_id: m.message_id.as_ref(),
                            content,
                            meta: m.meta.as_ref(),
                        };
                        tagged(s, kind, fields)
                    }
                },
                // v2's session references go back into the content, where the agent sent them.
                ItemUpdate::ToolCall(t) if !t.sessions.is_empty() => {
                    use serde::ser::Error;
                    let bare = ToolCallChange {
                        sessions: Vec::new(),
                        ..t.clone()
                    };
                    let bare = TranscriptUpdate::Item(ItemUpdate::ToolCall(bare));
                    let mut wire = serde_json::to_value(bare.wire()).map_err(S::Error::custom)?;
                    let refs = t
                        .sessions
                        .iter()
                        .map(|id| serde_json::json!({"type": "session", "sessionId": id}));
                    match wire.get_mut("content").and_then(Value::as_array_mut) {
                        Some(content) => content.extend(refs),
                        None => wire["content"] = Value::Array(refs.collect()),
                    }
                    wire.serialize(s)
                }
                ItemUpdate::ToolCall(t) => match t.opened.then(|| ToolCall::try_from(t.to_update())) {
                    Some(Ok(call)) => tagged(s, "tool_call", call),
                    _ => tagged(
                        s,
                        "tool_call_update",
                        ToolCallUpdateRef {
                            tool_call_id: &t.tool_call_id,
                            fields: &t.fields,
                            meta: t.meta.as_ref(),
                        },
                    ),
                },
                ItemUpdate::Plan(p) => tagged(s, "plan", p),
                ItemUpdate::Notice(n) => tagged(s, "notice", n),
                ItemUpdate::Compaction(c) => tagged(s, "compaction_update", c),
                ItemUpdate::CompactionSummary(c) => tagged(s, "compaction_summary_chunk", c),
                ItemUpdate::Terminal(t) => t.wire.serialize(s),
                ItemUpdate::Subagent(a) => a.wire.serialize(s),
                ItemUpdate::SessionMessage(m) => m.wire.serialize(s),
                ItemUpdate::Unknown(u) => u.update.serialize(s),
            },
            TranscriptUpdate::Session(state) => match state {
                SessionState::AvailableCommands(u) => tagged(s, "available_commands_update", u),
                SessionState::CurrentMode(u) => tagged(s, "current_mode_update", u),
                SessionState::ConfigOptions(u) => tagged(s, "config_option_update", u),
                SessionState::SessionInfo(u) => tagged(s, "session_info_update", u),
                SessionState::Usage(u) => tagged(s, "usage_update", u),
                SessionState::State(r) => tagged(s, "state_update", StateFields::from(r)),
            },
        }
    }
}

/// A v2 `state_update`'s fields as the agent sends them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StateFields<'a> {
    state: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    background: Option<&'a [Value]>,
}

impl<'a> From<&'a RunState> for StateFields<'a> {
    fn from(r: &'a RunState) -> Self {
        StateFields {
            state: &r.state,
            stop_reason: r.stop_reason.as_deref(),
            background: r.background.as_deref(),
        }
    }
}

/// The SDK's `ToolCallUpdate` fields, borrowed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallUpdateRef<'a> {
    tool_call_id: &'a ToolCallId,
    #[serde(flatten)]
    fields: &'a ToolCallUpdateFields,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
}

pub(crate) mod v2;

#[cfg(test)]
mod tests;
