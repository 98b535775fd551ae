//! The typed events core delivers to front ends, in wire order, through one bounded stream.

use serde::{Deserialize, Serialize};

use agent_client_protocol::v1::schema::{PermissionOption, PermissionOptionKind, StopReason, ToolCallUpdate};

use crate::form::FormSchema;
use crate::url_safety::UrlAnalysis;

/// Identifies one pending dialog (elicitation or permission).
pub type DialogId = u64;

/// A new dialog id. Ids are unique in the process, not per connection: a front end with
/// several agents (and dialogs of its own, such as an MCP sign-in) addresses every dialog by
/// its id alone.
pub fn new_dialog_id() -> DialogId {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Who is asking: every prompt to the user names the agent (from `agentInfo`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentIdentity {
    pub name: String,
    pub title: Option<String>,
    pub version: Option<String>,
}

impl AgentIdentity {
    /// The name a person should see (title when given), with invisible/bidi characters neutralised.
    pub fn display_name(&self) -> String {
        crate::hidden_chars::neutralize(self.title.as_deref().unwrap_or(&self.name))
    }
}

/// Where an elicitation belongs.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Scope {
    #[serde(rename_all = "camelCase")]
    Session {
        session_id: String,
        tool_call_id: Option<String>,
    },
    /// Outside any session. `during` is the method of our request to the agent that this id
    /// names (`session/new`, `authenticate`, ...) when it was in flight; `None` when the id
    /// names no request of ours: an agent-level interaction.
    #[serde(rename_all = "camelCase")]
    Request {
        #[cfg_attr(feature = "ts", ts(type = "string | number | null"))]
        request_id: serde_json::Value,
        during: Option<String>,
    },
}

impl Scope {
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Scope::Session { session_id, .. } => Some(session_id),
            Scope::Request { .. } => None,
        }
    }
    pub fn tool_call_id(&self) -> Option<&str> {
        match self {
            Scope::Session { tool_call_id, .. } => tool_call_id.as_deref(),
            Scope::Request { .. } => None,
        }
    }
    pub fn request_id(&self) -> Option<&serde_json::Value> {
        match self {
            Scope::Request { request_id, .. } => Some(request_id),
            Scope::Session { .. } => None,
        }
    }
    /// For a request scope, the method of our request it arrived during (if any).
    pub fn during(&self) -> Option<&str> {
        match self {
            Scope::Request { during, .. } => during.as_deref(),
            Scope::Session { .. } => None,
        }
    }
}

/// The mode-specific part of an elicitation shown to the user.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ElicitationKind {
    #[serde(rename_all = "camelCase")]
    Form {
        #[cfg_attr(feature = "ts", ts(type = "FormSchema"))]
        schema: FormSchema,
        #[cfg_attr(feature = "ts", ts(type = "FormContent"))]
        initial_values: serde_json::Map<String, serde_json::Value>,
        /// Field name -> what it accepts, in words (`FormSchema::hints`), shown before typing.
        #[cfg_attr(feature = "ts", ts(type = "Record<string, string>"))]
        hints: serde_json::Map<String, serde_json::Value>,
        can_accept: bool,
        blocking_reason: Option<String>,
        /// The form looks like it asks for a secret (the protocol forbids that): the window
        /// shows it as a warning first and makes sending it a deliberate act.
        secret: bool,
        /// Why this form looks like it asks for a secret (empty when it does not).
        secret_indicators: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    Url {
        elicitation_id: String,
        #[cfg_attr(feature = "ts", ts(type = "UrlAnalysis"))]
        url: UrlAnalysis,
    },
}

/// An elicitation waiting for the user. Answer it with `AgentClient::respond_elicitation`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ElicitationPrompt {
    pub dialog_id: DialogId,
    pub agent: AgentIdentity,
    pub scope: Scope,
    pub message: String,
    #[serde(flatten)]
    pub kind: ElicitationKind,
    /// Warning codes: `secret-request` for forms, the URL analyzer's codes, and
    /// `bidi-control` / `invisible-char` found in the message.
    pub warnings: Vec<String>,
    /// Set only when an MCP connection asked, through Porthole's gateway, in this agent's
    /// session (`AgentClient::ask_for_connection`): the agent's own requests never set it, so
    /// an agent cannot pass its question off as a server's, nor a server's as the agent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub mcp: Option<McpAsker>,
}

/// The MCP connection that asked a question through Porthole's gateway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpAsker {
    /// The connection's name in `connections.json`.
    pub connection: String,
    /// Where it runs: the remote server's host, or `None` for a stdio server on this computer.
    pub host: Option<String>,
}

impl ElicitationPrompt {
    pub fn mode_name(&self) -> &'static str {
        match self.kind {
            ElicitationKind::Form { .. } => "form",
            ElicitationKind::Url { .. } => "url",
        }
    }
}

/// A permission request waiting for the user.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PermissionPrompt {
    pub dialog_id: DialogId,
    pub agent: AgentIdentity,
    pub session_id: String,
    #[cfg_attr(feature = "ts", ts(type = "ToolCallUpdate"))]
    pub tool_call: ToolCallUpdate,
    /// The tool kind (`edit`, `execute`, ...) from this request or the tool call's earlier
    /// updates, `other` when the agent gave none: what an "always" rule is keyed on.
    pub tool_kind: String,
    #[cfg_attr(feature = "ts", ts(type = "Array<PermissionOption>"))]
    pub options: Vec<PermissionOption>,
    /// `bidi-control` / `invisible-char` when the tool call's title or an option's name
    /// carries characters that can disguise what the user is agreeing to.
    pub warnings: Vec<String>,
    /// Set only for a tool call an MCP App of this connection asks to make (through the
    /// gateway's owner, `AgentClient::ask_app_permission`): the dialog names the server, not
    /// the agent. An agent's own `session/request_permission` never has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub mcp: Option<McpAsker>,
}

impl PermissionPrompt {
    /// The warnings for the strings a permission dialog asks the user to trust.
    pub fn text_warnings(tool_call: &ToolCallUpdate, options: &[PermissionOption]) -> Vec<String> {
        let texts = tool_call
            .fields
            .title
            .iter()
            .map(String::as_str)
            .chain(options.iter().map(|o| o.name.as_str()));
        let codes: std::collections::BTreeSet<&'static str> = texts
            .flat_map(crate::url_safety::text_warnings)
            .map(|w| w.code())
            .collect();
        codes.into_iter().map(str::to_string).collect()
    }
}

/// Why a dialog went away without the user deciding.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum DismissReason {
    /// The agent sent `$/cancel_request` for it.
    AgentCancelled,
    /// The turn was cancelled (`session/cancel`), which resolves permission requests.
    TurnCancelled,
    /// The session it belonged to ended.
    SessionEnded,
    /// The agent process exited or the connection closed.
    AgentExited,
    /// The MCP connection's question ended before the user answered (its tool call ended).
    QuestionEnded,
}

impl DismissReason {
    pub fn describe(&self) -> &'static str {
        match self {
            DismissReason::AgentCancelled => "the agent withdrew this request",
            DismissReason::TurnCancelled => "the turn was cancelled",
            DismissReason::SessionEnded => "the session ended",
            DismissReason::AgentExited => "the agent stopped running",
            DismissReason::QuestionEnded => "the MCP server's question ended (its tool call is over)",
        }
    }
}

/// A JSON-RPC error as front ends see it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RpcError {
    pub code: i32,
    pub message: String,
}

impl From<&agent_client_protocol::Error> for RpcError {
    fn from(e: &agent_client_protocol::Error) -> Self {
        // Agents often put the useful part in `data` ("Internal error" + what went wrong).
        let detail = match &e.data {
            Some(serde_json::Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(serde_json::Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let message = match detail {
            Some(d) if d != e.message => format!("{}: {}", e.message, truncate_chars(&d, 2000)),
            _ => e.message.clone(),
        };
        RpcError {
            code: e.code.value(),
            message,
        }
    }
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// How the agent process ended.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExitInfo {
    /// Exit code, when it exited normally.
    pub code: Option<i32>,
    /// Signal number, when it was killed by one.
    pub signal: Option<i32>,
    /// A readable summary such as "exit status 3" or "killed by signal 9".
    pub status: String,
    pub stderr_tail: String,
    /// True when we asked it to stop.
    pub requested: bool,
}

/// Everything core reports to front ends, in the order it happened on the wire.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "CoreEvent"))]
pub enum Event {
    /// A `session/update`, as Porthole models it (`crate::transcript`): one of its kinds, or
    /// one it does not know (a newer or private kind), kept as it came.
    #[serde(rename_all = "camelCase")]
    SessionUpdate {
        session_id: String,
        update: Box<crate::transcript::TranscriptUpdate>,
    },
    /// A `session/update` that is malformed: a kind ACP knows whose fields do not parse, no
    /// kind, no session. Refused: logged, not fatal, not shown.
    #[serde(rename_all = "camelCase")]
    MalformedUpdate {
        session_id: Option<String>,
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        raw: serde_json::Value,
        error: String,
    },
    /// An elicitation we answered with an error without asking the user (bad mode, scope, URL...).
    #[serde(rename_all = "camelCase")]
    ElicitationRejected {
        mode: Option<String>,
        message: Option<String>,
        url: Option<String>,
        elicitation_id: Option<String>,
        session_id: Option<String>,
        tool_call_id: Option<String>,
        error: RpcError,
    },
    /// `elicitation/complete` arrived. `known` is false for unknown or already-completed ids
    /// (which are otherwise ignored).
    #[serde(rename_all = "camelCase")]
    ElicitationComplete {
        elicitation_id: String,
        known: bool,
        dialog_id: Option<DialogId>,
    },
    /// A `session/prompt` finished: with a stop reason, or with an error.
    #[serde(rename_all = "camelCase")]
    TurnEnded {
        session_id: String,
        #[cfg_attr(feature = "ts", ts(type = "StopReason | null"))]
        stop_reason: Option<StopReason>,
        error: Option<RpcError>,
    },
    /// The agent wrote a line on stdout that is not JSON (ignored).
    #[serde(rename_all = "camelCase")]
    StdoutNoise { line: String },
    /// `lines` more lines of the agent's stdout were not shown: the front end fell behind
    /// while the agent printed them (non-JSON lines, or notices beyond the few kept).
    #[serde(rename_all = "camelCase")]
    StdoutNotShown { lines: u64 },
    /// The agent wrote a line of `bytes` bytes, over the limit of `limit` bytes per line: it
    /// was discarded (a request in it was answered with an error).
    #[serde(rename_all = "camelCase")]
    LineTooLong { bytes: u64, limit: u64 },
    /// The agent process is gone.
    AgentExited(ExitInfo),
    /// A terminal started (`terminal/create`, or the login command of terminal auth when
    /// `session_id` is `None`).
    #[serde(rename_all = "camelCase")]
    TerminalCreated {
        terminal_id: String,
        session_id: Option<String>,
        command: String,
        args: Vec<String>,
        cwd: Option<String>,
    },
    /// More output of a terminal: append `data`. `truncated`: the retained output lost its start.
    #[serde(rename_all = "camelCase")]
    TerminalOutput {
        terminal_id: String,
        data: String,
        truncated: bool,
    },
    #[serde(rename_all = "camelCase")]
    TerminalExited {
        terminal_id: String,
        exit_code: Option<u32>,
        signal: Option<String>,
    },
    /// The agent released the terminal; its output stays on screen.
    #[serde(rename_all = "camelCase")]
    TerminalReleased { terminal_id: String },
    /// A waiting dialog (of any kind) went away without a user decision; the agent got its
    /// kind's "no decision" answer (`cancel`, `cancelled`, an error).
    #[serde(rename_all = "camelCase")]
    DialogDismissed {
        dialog_id: DialogId,
        reason: DismissReason,
    },
    /// A permission request answered by a remembered "always" decision, without asking.
    #[serde(rename_all = "camelCase")]
    PermissionAuto {
        session_id: String,
        #[cfg_attr(feature = "ts", ts(type = "ToolCallUpdate"))]
        tool_call: Box<ToolCallUpdate>,
        option_id: String,
        option_name: String,
        /// `allow_once`, `allow_always`, `reject_once` or `reject_always`.
        #[cfg_attr(feature = "ts", ts(type = "PermissionOptionKind"))]
        option_kind: PermissionOptionKind,
        /// The tool kind the rule matched (`edit`, `execute`, ..., `other`).
        tool_kind: String,
        rule_id: u64,
    },
    /// A dialog waiting for the user: an elicitation, a permission request, a file outside the
    /// workspace. One variant for every kind, so a new kind is a [`DialogPrompt`] variant and
    /// front ends that treat dialogs alike need no change. On the wire it is the prompt itself
    /// (`{"type": "elicitation", ...}`), as each kind was before.
    #[serde(untagged)]
    Dialog(DialogPrompt),
}

/// `fs/read_text_file` or `fs/write_text_file` for a path outside the workspace roots.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileAccessPrompt {
    pub dialog_id: DialogId,
    pub agent: AgentIdentity,
    pub session_id: String,
    pub path: String,
    pub operation: FileOperation,
    /// Why we ask, in words for the dialog.
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FileOperation {
    Read,
    Write,
}

impl FileOperation {
    /// As the wire spells it.
    pub fn name(self) -> &'static str {
        match self {
            FileOperation::Read => "read",
            FileOperation::Write => "write",
        }
    }
}

/// A dialog waiting for the user, of any kind, as front ends keep it in their list of waiting
/// dialogs (`Event::Dialog`). A new kind is a variant here and of [`DialogAnswer`]; the compiler
/// then points at the places that handle every kind.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum DialogPrompt {
    Elicitation(Box<ElicitationPrompt>),
    Permission(Box<PermissionPrompt>),
    /// The agent wants a file outside the session's workspace roots: the user decides.
    FileAccess(Box<FileAccessPrompt>),
}

impl DialogPrompt {
    pub fn dialog_id(&self) -> DialogId {
        match self {
            DialogPrompt::Elicitation(p) => p.dialog_id,
            DialogPrompt::Permission(p) => p.dialog_id,
            DialogPrompt::FileAccess(p) => p.dialog_id,
        }
    }

    pub fn agent(&self) -> &AgentIdentity {
        match self {
            DialogPrompt::Elicitation(p) => &p.agent,
            DialogPrompt::Permission(p) => &p.agent,
            DialogPrompt::FileAccess(p) => &p.agent,
        }
    }

    /// The kind's name: the wire's `type`, as [`DialogAnswer::kind`] names it.
    pub fn kind(&self) -> &'static str {
        match self {
            DialogPrompt::Elicitation(_) => "elicitation",
            DialogPrompt::Permission(_) => "permission",
            DialogPrompt::FileAccess(_) => "file_access",
        }
    }

    /// The answer that decides nothing (`cancel`, `cancelled`, not allowed): what a front end
    /// with no rule for this kind sends (the CLI), so a scripted run never consents to a kind
    /// it does not know.
    pub fn undecided(&self) -> DialogAnswer {
        match self {
            DialogPrompt::Elicitation(_) => DialogAnswer::Elicitation {
                action: Action::Cancel,
                content: None,
            },
            DialogPrompt::Permission(_) => DialogAnswer::Permission { option_id: None },
            DialogPrompt::FileAccess(_) => DialogAnswer::FileAccess { allow: false },
        }
    }

    /// What is asked, in one line for a terminal or a log (`[permission] Edit a.rs
    /// options=[yes=Allow, no=Reject]`), before its outcome ([`DialogAnswer::outcome`]). The
    /// agent's text is raw: a front end that prints it neutralises it first (the CLI's
    /// `term::line`).
    pub fn summary(&self) -> String {
        match self {
            DialogPrompt::Elicitation(p) => {
                let url = match &p.kind {
                    ElicitationKind::Url { url, .. } => format!(" url={}", url.full),
                    ElicitationKind::Form { .. } => String::new(),
                };
                format!(
                    "[elicitation {} from {}] \"{}\"{url}{}",
                    p.mode_name(),
                    p.agent.display_name(),
                    p.message,
                    warnings_suffix(&p.warnings)
                )
            }
            DialogPrompt::Permission(p) => {
                let options: Vec<String> = p
                    .options
                    .iter()
                    .map(|o| format!("{}={}", o.option_id.0, o.name))
                    .collect();
                format!(
                    "[permission] {} options=[{}]{}",
                    p.tool_call.fields.title.as_deref().unwrap_or_default(),
                    options.join(", "),
                    warnings_suffix(&p.warnings)
                )
            }
            DialogPrompt::FileAccess(p) => format!(
                "[file access: {} outside the workspace] {}",
                p.operation.name(),
                p.path
            ),
        }
    }

    /// The dialog and its answer as one flat JSON object with stable names, the line a
    /// scripted front end prints (porthole-cli's `--json`): `type`, the kind's own fields, then
    /// its answer's ([`DialogAnswer::fields`]), null (or false) while unanswered. An answer of
    /// another kind is left out.
    pub fn record(&self, answer: Option<&DialogAnswer>) -> serde_json::Map<String, serde_json::Value> {
        use serde_json::{Value, json};
        let value = match self {
            DialogPrompt::Elicitation(p) => {
                let (url, elicitation_id, analysis, schema, hints) = match &p.kind {
                    ElicitationKind::Url { elicitation_id, url } => (
                        json!(url.full),
                        json!(elicitation_id),
                        json!(url),
                        Value::Null,
                        Value::Null,
                    ),
                    ElicitationKind::Form { schema, hints, .. } => {
                        (Value::Null, Value::Null, Value::Null, json!(schema), json!(hints))
                    }
                };
                json!({
                    "type": self.kind(),
                    "mode": p.mode_name(),
                    "message": p.message,
                    "url": url,
                    "urlAnalysis": analysis,
                    "elicitationId": elicitation_id,
                    "sessionId": p.scope.session_id(),
                    "toolCallId": p.scope.tool_call_id(),
                    "requestId": p.scope.request_id(),
                    "during": p.scope.during(),
                    "agent": p.agent,
                    "warnings": p.warnings,
                    "schema": schema,
                    "hints": hints,
                    "action": null,
                    "content": null,
                    "note": null,
                    "error": null,
                })
            }
            DialogPrompt::Permission(p) => json!({
                "type": self.kind(),
                "sessionId": p.session_id,
                "toolCall": p.tool_call,
                "options": p.options,
                "warnings": p.warnings,
                "selected": null,
            }),
            DialogPrompt::FileAccess(p) => json!({
                "type": self.kind(),
                "sessionId": p.session_id,
                "path": p.path,
                "operation": p.operation,
                "allowed": false,
            }),
        };
        let Value::Object(mut record) = value else {
            unreachable!("a json! object literal")
        };
        for (name, value) in answer
            .filter(|a| a.kind() == self.kind())
            .map(DialogAnswer::fields)
            .into_iter()
            .flatten()
        {
            record.insert(name.to_string(), value);
        }
        record
    }

    /// What the agent asks, in words after its name ("asks for permission"), for notifications
    /// and logs.
    pub fn what(&self) -> &'static str {
        match self {
            DialogPrompt::Elicitation(p) => match p.kind {
                ElicitationKind::Form { .. } => "asks you to fill in a form",
                ElicitationKind::Url { .. } => "asks to open a web page",
            },
            DialogPrompt::Permission(_) => "asks for permission",
            DialogPrompt::FileAccess(_) => "asks to use a file outside the workspace",
        }
    }
}

/// A dialog's warning codes for its line: ` warnings: a, b`, nothing when there are none.
fn warnings_suffix(codes: &[String]) -> String {
    if codes.is_empty() {
        return String::new();
    }
    format!(" warnings: {}", codes.join(", "))
}

impl Event {
    /// The dialog this event asks the user, if it is one.
    pub fn dialog(&self) -> Option<&DialogPrompt> {
        match self {
            Event::Dialog(prompt) => Some(prompt),
            _ => None,
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Form: submit this content (validated by core first). URL: consent to open (content ignored).
    Accept(serde_json::Map<String, serde_json::Value>),
    Decline,
    Cancel,
}

/// What the user chose in an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "AnswerAction"))]
pub enum Action {
    Accept,
    Decline,
    Cancel,
}

impl Action {
    /// As the wire spells it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
}

/// The user's answer to a waiting dialog, of the dialog's kind: what `AgentClient::respond`
/// takes, and what a front end sends (`{"type": "permission", "optionId": "..."}`). An answer
/// of another kind than the dialog's is refused.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum DialogAnswer {
    /// Form: accept with `content` (validated by core first). URL: accept is consent to open.
    Elicitation {
        action: Action,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional, type = "FormContent"))]
        content: Option<serde_json::Map<String, serde_json::Value>>,
    },
    /// `Some(option_id)` selects that option, `None` cancels.
    Permission { option_id: Option<String> },
    /// `true` performs the read or write on the path shown.
    FileAccess { allow: bool },
}

impl DialogAnswer {
    /// The kind of dialog this answers, as `DialogPrompt` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            DialogAnswer::Elicitation { .. } => "elicitation",
            DialogAnswer::Permission { .. } => "permission",
            DialogAnswer::FileAccess { .. } => "file_access",
        }
    }

    /// What was decided, in words for a line after the dialog's summary: the action
    /// (`accept`), the option chosen or `cancelled`, `allowed` or `denied`.
    pub fn outcome(&self) -> String {
        match self {
            DialogAnswer::Elicitation { action, .. } => action.name().to_string(),
            DialogAnswer::Permission { option_id } => option_id.clone().unwrap_or_else(|| "cancelled".into()),
            DialogAnswer::FileAccess { allow } => (if *allow { "allowed" } else { "denied" }).into(),
        }
    }

    /// The answer's fields in its dialog's [`DialogPrompt::record`].
    pub fn fields(&self) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::json;
        match self {
            DialogAnswer::Elicitation { action, content } => {
                vec![("action", json!(action.name())), ("content", json!(content))]
            }
            DialogAnswer::Permission { option_id } => vec![("selected", json!(option_id))],
            DialogAnswer::FileAccess { allow } => vec![("allowed", json!(allow))],
        }
    }
}

impl From<Answer> for DialogAnswer {
    fn from(answer: Answer) -> Self {
        let (action, content) = match answer {
            Answer::Accept(content) => (Action::Accept, Some(content)),
            Answer::Decline => (Action::Decline, None),
            Answer::Cancel => (Action::Cancel, None),
        };
        DialogAnswer::Elicitation { action, content }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file-access prompt for `/etc/hosts`, outside the workspace.
    fn file_access(dialog_id: DialogId, operation: FileOperation) -> DialogPrompt {
        DialogPrompt::FileAccess(Box::new(FileAccessPrompt {
            dialog_id,
            agent: AgentIdentity {
                name: "a".into(),
                title: None,
                version: None,
            },
            session_id: "s".into(),
            path: "/etc/hosts".into(),
            operation,
            reason: "outside".into(),
        }))
    }

    #[test]
    fn a_dialog_event_is_its_prompt_on_the_wire() {
        let event = Event::Dialog(file_access(7, FileOperation::Read));
        let wire = serde_json::to_value(&event).unwrap();
        assert_eq!(wire["type"], "file_access");
        assert_eq!(wire["dialogId"], 7);
        assert_eq!(wire["path"], "/etc/hosts");
        assert_eq!(
            wire.as_object().unwrap().len(),
            7,
            "no wrapper and no second tag: {wire}"
        );
        assert_eq!(event.dialog().map(DialogPrompt::dialog_id), Some(7));
    }

    /// What a line-printing front end (the CLI) shows of a dialog comes from the kind: its
    /// summary, its record with the answer's fields, and the answer that decides nothing.
    #[test]
    fn a_dialog_kind_describes_its_line_and_its_undecided_answer() {
        let prompt = file_access(3, FileOperation::Write);
        assert_eq!(
            prompt.summary(),
            "[file access: write outside the workspace] /etc/hosts"
        );
        let line =
            |answer: Option<&DialogAnswer>| serde_json::Value::Object(prompt.record(answer)).to_string();
        let unanswered = r#"{"type":"file_access","sessionId":"s","path":"/etc/hosts","operation":"write","allowed":false}"#;
        assert_eq!(line(None), unanswered);
        let allow = DialogAnswer::FileAccess { allow: true };
        assert_eq!(line(Some(&allow)), unanswered.replace("false", "true"));
        assert_eq!(allow.outcome(), "allowed");
        // An answer of another kind is not this dialog's: left out.
        let other = DialogAnswer::Permission {
            option_id: Some("yes".into()),
        };
        assert_eq!(line(Some(&other)), unanswered);
        // Undecided is the kind's refusal, of its own kind.
        let undecided = prompt.undecided();
        assert_eq!(
            (undecided.kind(), undecided.outcome().as_str()),
            ("file_access", "denied")
        );
        assert_eq!(
            DialogAnswer::from(Answer::Cancel).outcome(),
            "cancel",
            "an elicitation's outcome is its action"
        );
        assert_eq!(
            DialogAnswer::Permission { option_id: None }.outcome(),
            "cancelled"
        );
    }

    #[test]
    fn hidden_characters_in_a_permission_request_are_flagged() {
        use agent_client_protocol::v1::schema::ToolCallUpdateFields;
        let call =
            |title: &str| ToolCallUpdate::new("t", ToolCallUpdateFields::new().title(title.to_string()));
        let option =
            |name: &str| PermissionOption::new("o", name.to_string(), PermissionOptionKind::AllowOnce);
        let plain = [option("Allow"), option("Reject")];
        assert!(PermissionPrompt::text_warnings(&call("Read README.md"), &plain).is_empty());
        // A title that reads "Read txt.exe" but is "Read exe.txt" backwards.
        assert_eq!(
            PermissionPrompt::text_warnings(&call("Read \u{202E}txt.exe"), &plain),
            ["bidi-control"]
        );
        assert_eq!(
            PermissionPrompt::text_warnings(&call("Run tests"), &[option("Al\u{200B}low"), option("Reject")]),
            ["invisible-char"]
        );
        let both = PermissionPrompt::text_warnings(&call("\u{2067}rm -rf"), &[option("Allow\u{FEFF}")]);
        assert_eq!(both, ["bidi-control", "invisible-char"]);
        // No title at all: only the options are looked at.
        let untitled = ToolCallUpdate::new("t", ToolCallUpdateFields::new());
        assert!(PermissionPrompt::text_warnings(&untitled, &plain).is_empty());
    }

    #[test]
    fn a_front_end_answers_any_dialog_in_one_shape() {
        let answer = |v: serde_json::Value| serde_json::from_value::<DialogAnswer>(v).unwrap();
        assert_eq!(
            answer(serde_json::json!({"type": "permission", "optionId": "yes"})),
            DialogAnswer::Permission {
                option_id: Some("yes".into())
            }
        );
        assert_eq!(
            answer(serde_json::json!({"type": "file_access", "allow": false})),
            DialogAnswer::FileAccess { allow: false }
        );
        assert_eq!(
            answer(serde_json::json!({"type": "elicitation", "action": "decline"})),
            Answer::Decline.into()
        );
        let mut content = serde_json::Map::new();
        content.insert("name".into(), "x".into());
        assert_eq!(
            answer(serde_json::json!({"type": "elicitation", "action": "accept", "content": {"name": "x"}})),
            Answer::Accept(content).into()
        );
        assert!(serde_json::from_value::<DialogAnswer>(serde_json::json!({"type": "nope"})).is_err());
    }

    #[test]
    fn agent_names_are_shown_with_hidden_characters_neutralised() {
        let agent = |name: &str, title: Option<&str>| AgentIdentity {
            name: name.into(),
            title: title.map(str::to_string),
            version: None,
        };
        assert_eq!(agent("Claude", None).display_name(), "Claude");
        assert_eq!(
            agent("x", Some("Cla\u{200B}ude \u{202E}edoC")).display_name(),
            "Cla⟨U+200B⟩ude ⟨U+202E⟩edoC"
        );
        assert_eq!(
            agent("\u{2066}evil\u{2069}", None).display_name(),
            "⟨U+2066⟩evil⟨U+2069⟩"
        );
    }
}
