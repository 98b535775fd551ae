//! The one conversion from ACP v2's `session/update` to Porthole's model, beside v1's
//! `From<SessionUpdate>`: the same kinds come out, so front ends need nothing per version.
//!
//! - `agent_message` / `agent_thought` / `user_message` upsert by `messageId`: content left
//!   out is [`MessageEdit::Keep`], `null` an empty [`MessageEdit::Replace`], a list a
//!   `Replace`; their `*_chunk`s are `Append`. A `messageId` never seen creates the message
//!   (the front ends' rule for any change).
//! - `tool_call_update`: the first one of an id creates the call; `null` clears a field
//!   (content and locations to empty lists). `tool_call_content_chunk` is resolved by the
//!   caller, which knows the call's content so far ([`tool_content`]); a `session` block
//!   there too names the subagent the call started.
//! - `state_update` is [`SessionState::State`]; `plan_update` with items is the plan; notices,
//!   usage, compaction, commands, config options and session info keep their v1 shapes.
//! - Terminals (display-only: `terminal_update`, `terminal_output_chunk`) are
//!   [`ItemUpdate::Terminal`], their base64 output decoded.
//! - Subagents (`subagent_update`, `session_message`, `session_message_chunk`, unstable in the
//!   schema) are [`ItemUpdate::Subagent`] and [`ItemUpdate::SessionMessage`], read by
//!   [`subagents`] with Porthole's own types; a tool call's `session` content (the subagent it
//!   started) is its [`ToolCallChange::sessions`]. Malformed, they are refused (`Err`).
//! - Everything else (a kind newer than the schema, a payload v1's types cannot hold, terminal
//!   data that is not base64) is [`ItemUpdate::Unknown`], kept as it came and shown by its name.

use agent_client_protocol::schema::MaybeUndefined;
use agent_client_protocol::v1::schema::{
    ConfigOptionUpdate, ContentBlock, SessionConfigOption, ToolCallContent, ToolCallId, ToolCallUpdateFields,
};
use agent_client_protocol::v2::schema as v2;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{
    ItemUpdate, MessageChange, MessageEdit, MessageRole, RunState, SessionState, TerminalChange,
    TerminalExit, TerminalOutputEdit, ToolCallChange, TranscriptUpdate,
};

mod subagents;

/// v2's update as Porthole's model. `known_call`: whether a tool call of that id was seen
/// (the first `tool_call_update` of an id announces the call). `Err`: why an update the SDK
/// hands over untyped (a subagent's) is malformed.
pub(crate) fn convert(
    update: v2::SessionUpdate,
    known_call: impl Fn(&str) -> bool,
) -> Result<TranscriptUpdate, String> {
    use TranscriptUpdate::{Item, Session};
    let raw = serde_json::to_value(&update).unwrap_or(Value::Null);
    let kind = raw["sessionUpdate"].as_str().unwrap_or("?").to_string();
    let converted = match update {
        v2::SessionUpdate::UserMessageChunk(c) => chunk(MessageRole::User, c),
        v2::SessionUpdate::AgentMessageChunk(c) => chunk(MessageRole::Agent, c),
        v2::SessionUpdate::AgentThoughtChunk(c) => chunk(MessageRole::Thought, c),
        v2::SessionUpdate::UserMessage(m) => upsert(MessageRole::User, m.message_id, m.content, m.meta),
        v2::SessionUpdate::AgentMessage(m) => upsert(MessageRole::Agent, m.message_id, m.content, m.meta),
        v2::SessionUpdate::AgentThought(m) => upsert(MessageRole::Thought, m.message_id, m.content, m.meta),
        v2::SessionUpdate::StateUpdate(s) => Some(Session(SessionState::State(run_state(&s)))),
        v2::SessionUpdate::ToolCallUpdate(_) => tool_call(&raw, &known_call),
        v2::SessionUpdate::PlanUpdate(_) => plan(&raw),
        v2::SessionUpdate::Notice(n) => as_v1(&n).map(|n| Item(ItemUpdate::Notice(n))),
        v2::SessionUpdate::CompactionUpdate(c) => as_v1(&c).map(|c| Item(ItemUpdate::Compaction(c))),
        v2::SessionUpdate::CompactionSummaryChunk(c) => {
            as_v1(&c).map(|c| Item(ItemUpdate::CompactionSummary(c)))
        }
        v2::SessionUpdate::UsageUpdate(u) => as_v1(&u).map(|u| Session(SessionState::Usage(u))),
        v2::SessionUpdate::AvailableCommandsUpdate(u) => {
            as_v1(&u).map(|u| Session(SessionState::AvailableCommands(u)))
        }
        v2::SessionUpdate::ConfigOptionUpdate(u) => Some(Session(SessionState::ConfigOptions(
            ConfigOptionUpdate::new(config_options(&u.config_options)),
        ))),
        v2::SessionUpdate::SessionInfoUpdate(u) => as_v1(&u).map(|u| Session(SessionState::SessionInfo(u))),
        v2::SessionUpdate::TerminalUpdate(t) => terminal_update(t, &raw),
        v2::SessionUpdate::TerminalOutputChunk(c) => terminal_chunk(&c, &raw),
        // Subagents (untyped: the schema's feature is off); then a kind v1 has in the same
        // shape (the schema's newer kinds so far have v1's: a kind added on both wires is
        // converted once, in transcript.rs); extensions and kinds newer than both: shown
        // generically until Porthole models them.
        _ => match subagents::convert(&kind, &raw) {
            Some(subagent) => return subagent,
            None => serde_json::from_value::<agent_client_protocol::v1::schema::SessionUpdate>(raw.clone())
                .ok()
                .map(TranscriptUpdate::from),
        },
    };
    Ok(converted.unwrap_or_else(|| TranscriptUpdate::unknown(kind, raw)))
}

/// v2's `usage_update` patches the cost (left out: unchanged, `null`: cleared), where the
/// model's usage, as v1's, carries the session's whole cost: one that leaves it out gets the
/// cost the session had (`last`), and `last` follows what each update says.
pub(crate) fn keep_cost(usage: &mut v2::UsageUpdate, last: &mut Option<v2::Cost>) {
    match &usage.cost {
        MaybeUndefined::Undefined => {
            if let Some(cost) = last {
                usage.cost = MaybeUndefined::Value(cost.clone());
            }
        }
        MaybeUndefined::Null => *last = None,
        MaybeUndefined::Value(cost) => *last = Some(cost.clone()),
    }
}

/// A `tool_call_content_chunk`: the call's content so far with the chunk's block appended
/// (v1's model gives a call's content whole). A `session` block (the subagent the call
/// started, as in [`tool_call`]) is the change's [`ToolCallChange::sessions`], the content
/// unchanged. `None` when v1 cannot hold the block.
pub(crate) fn tool_content(
    chunk: &v2::ToolCallContentChunk,
    so_far: &mut Vec<ToolCallContent>,
) -> Option<TranscriptUpdate> {
    let mut sessions = Vec::new();
    match session_reference(&chunk.content) {
        Some(id) => sessions.push(id),
        None => so_far.push(as_v1(&chunk.content)?),
    }
    let fields = ToolCallUpdateFields::new().content(so_far.clone());
    Some(TranscriptUpdate::Item(ItemUpdate::ToolCall(ToolCallChange {
        tool_call_id: ToolCallId::new(chunk.tool_call_id.to_string()),
        opened: false,
        fields,
        sessions,
        meta: chunk.meta.clone(),
    })))
}

/// The session a `{"type": "session", "sessionId": ID}` content block names: the SDK holds
/// it as other content while its unstable subagents feature is off.
fn session_reference(block: &impl Serialize) -> Option<String> {
    let raw = serde_json::to_value(block).ok()?;
    match (raw["type"].as_str(), raw["sessionId"].as_str()) {
        (Some("session"), Some(id)) => Some(id.to_string()),
        _ => None,
    }
}

/// A terminal's text: its bytes decoded from base64, then as UTF-8 with what is not replaced.
/// `None` (the update stays `unknown`, shown as it came) when the data is not base64.
fn terminal_text(data: &str) -> Option<String> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn terminal_update(t: v2::TerminalUpdate, raw: &Value) -> Option<TranscriptUpdate> {
    let output = match t.output {
        MaybeUndefined::Value(o) => Some(TerminalOutputEdit::Replace {
            text: terminal_text(&o.data)?,
        }),
        // `null` clears the output: an empty replacement.
        MaybeUndefined::Null => Some(TerminalOutputEdit::Replace { text: String::new() }),
        MaybeUndefined::Undefined => None,
    };
    let exit_status = match t.exit_status {
        MaybeUndefined::Value(e) => Some(TerminalExit {
            exit_code: e.exit_code,
            signal: e.signal,
        }),
        _ => None,
    };
    let cwd = match t.cwd {
        MaybeUndefined::Value(cwd) => serde_json::to_value(cwd).ok()?.as_str().map(str::to_string),
        _ => None,
    };
    Some(terminal(TerminalChange {
        terminal_id: t.terminal_id.to_string(),
        command: t.command.take(),
        cwd,
        output,
        exit_status,
        wire: raw.clone(),
    }))
}

fn terminal_chunk(c: &v2::TerminalOutputChunk, raw: &Value) -> Option<TranscriptUpdate> {
    Some(terminal(TerminalChange {
        terminal_id: c.terminal_id.to_string(),
        command: None,
        cwd: None,
        output: Some(TerminalOutputEdit::Append {
            text: terminal_text(&c.data)?,
        }),
        exit_status: None,
        wire: raw.clone(),
    }))
}

fn terminal(change: TerminalChange) -> TranscriptUpdate {
    TranscriptUpdate::Item(ItemUpdate::Terminal(change))
}

fn chunk(role: MessageRole, c: v2::ContentChunk) -> Option<TranscriptUpdate> {
    let content: ContentBlock = as_v1(&c.content)?;
    Some(message(
        role,
        c.message_id,
        MessageEdit::Append { content },
        c.meta,
    ))
}

fn upsert(
    role: MessageRole,
    id: v2::MessageId,
    content: MaybeUndefined<Vec<v2::ContentBlock>>,
    meta: MaybeUndefined<v2::Meta>,
) -> Option<TranscriptUpdate> {
    let edit = match content {
        MaybeUndefined::Undefined => MessageEdit::Keep,
        MaybeUndefined::Null => MessageEdit::Replace { content: Vec::new() },
        MaybeUndefined::Value(blocks) => MessageEdit::Replace {
            content: blocks.iter().map(as_v1).collect::<Option<Vec<ContentBlock>>>()?,
        },
    };
    let meta = match meta {
        MaybeUndefined::Value(meta) => Some(meta),
        _ => None,
    };
    Some(message(role, id, edit, meta))
}

fn message(
    role: MessageRole,
    id: v2::MessageId,
    edit: MessageEdit,
    meta: Option<v2::Meta>,
) -> TranscriptUpdate {
    TranscriptUpdate::Item(ItemUpdate::Message(MessageChange {
        role,
        message_id: Some(agent_client_protocol::v1::schema::MessageId::new(id.to_string())),
        edit,
        meta,
    }))
}

pub(super) fn run_state(state: &v2::StateUpdate) -> RunState {
    let raw = serde_json::to_value(state).unwrap_or(Value::Null);
    let name = raw["state"].as_str().unwrap_or("?").to_string();
    let idle = matches!(state, v2::StateUpdate::Idle(_));
    RunState {
        state: name,
        busy: !idle,
        stop_reason: idle
            .then(|| raw["stopReason"].as_str().map(str::to_string))
            .flatten(),
        background: state.background().map(|b| {
            b.iter()
                .map(|w| serde_json::to_value(w).unwrap_or(Value::Null))
                .collect()
        }),
    }
}

/// A `tool_call_update` in v1's shape: `null` clears (content and locations to empty lists,
/// a title to empty; other fields cannot be cleared in v1's model and stay). A `session`
/// content (a subagent's session, which v1's content cannot hold) is taken out into
/// [`ToolCallChange::sessions`].
fn tool_call(raw: &Value, known_call: &impl Fn(&str) -> bool) -> Option<TranscriptUpdate> {
    let mut fields = raw.as_object()?.clone();
    fields.remove("sessionUpdate");
    let mut sessions = Vec::new();
    if let Some(Value::Array(content)) = fields.get_mut("content") {
        content.retain(|c| match session_reference(c) {
            Some(id) => {
                sessions.push(id);
                false
            }
            None => true,
        });
    }
    for (key, cleared) in [
        ("content", Value::Array(Vec::new())),
        ("locations", Value::Array(Vec::new())),
    ] {
        if fields.get(key) == Some(&Value::Null) {
            fields.insert(key.into(), cleared);
        }
    }
    if fields.get("title") == Some(&Value::Null) {
        fields.insert("title".into(), Value::String(String::new()));
    }
    fields.retain(|_, v| !v.is_null());
    let update: agent_client_protocol::v1::schema::ToolCallUpdate =
        serde_json::from_value(Value::Object(fields)).ok()?;
    let opened = !known_call(&update.tool_call_id.0);
    Some(TranscriptUpdate::Item(ItemUpdate::ToolCall(ToolCallChange {
        tool_call_id: update.tool_call_id,
        opened,
        fields: update.fields,
        sessions,
        meta: update.meta,
    })))
}

/// A `plan_update` with items is the session's plan (v1's model has one plan per session).
fn plan(raw: &Value) -> Option<TranscriptUpdate> {
    let plan = &raw["plan"];
    if plan["type"] != "items" {
        return None;
    }
    let v1 = serde_json::json!({"entries": plan["entries"], "_meta": plan.get("_meta")});
    let mut v1 = v1;
    if v1["_meta"].is_null() {
        v1.as_object_mut()?.remove("_meta");
    }
    serde_json::from_value(v1)
        .ok()
        .map(|p| TranscriptUpdate::Item(ItemUpdate::Plan(p)))
}

/// v2's config options in v1's shape (v2 names an option's id `configId`, v1 `id`). One v1
/// cannot hold is left out, and logged.
pub(crate) fn config_options(options: &[v2::SessionConfigOption]) -> Vec<SessionConfigOption> {
    options
        .iter()
        .filter_map(|o| {
            let mut raw = serde_json::to_value(o).ok()?;
            let fields = raw.as_object_mut()?;
            if let Some(id) = fields.remove("configId") {
                fields.insert("id".into(), id);
            }
            let v1 = serde_json::from_value(raw).ok();
            if v1.is_none() {
                tracing::warn!("a v2 config option v1's shape cannot hold: {o:?}");
            }
            v1
        })
        .collect()
}

/// A v2 value in v1's type of the same shape.
pub(super) fn as_v1<T: DeserializeOwned>(value: &impl Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn converted(update: Value) -> TranscriptUpdate {
        convert(serde_json::from_value(update).expect("a v2 update"), |_| false).expect("well formed")
    }

    fn terminal_of(update: &TranscriptUpdate) -> &TerminalChange {
        match update {
            TranscriptUpdate::Item(ItemUpdate::Terminal(t)) => t,
            other => panic!("not a terminal: {other:?}"),
        }
    }

    #[test]
    fn a_terminal_is_modelled_with_its_output_decoded() {
        let started = converted(json!({"sessionUpdate": "terminal_update", "terminalId": "t1",
            "command": "cargo test", "cwd": "/w", "output": {"data": "aGk="}}));
        let t = terminal_of(&started);
        assert_eq!(
            (t.command.as_deref(), t.cwd.as_deref()),
            (Some("cargo test"), Some("/w"))
        );
        assert_eq!(t.output, Some(TerminalOutputEdit::Replace { text: "hi".into() }));
        assert_eq!(t.exit_status, None);

        // Bytes that are not UTF-8 are replaced, never a failure.
        let chunk = converted(
            json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
            "data": "b2sg/w=="}),
        );
        assert_eq!(
            terminal_of(&chunk).output,
            Some(TerminalOutputEdit::Append {
                text: "ok \u{FFFD}".into()
            })
        );
        // The wire form is what the agent sent (the CLI's --json).
        assert_eq!(serde_json::to_value(chunk.wire()).unwrap()["data"], "b2sg/w==");

        let ended = converted(json!({"sessionUpdate": "terminal_update", "terminalId": "t1",
            "exitStatus": {"signal": "SIGKILL"}}));
        let t = terminal_of(&ended);
        assert_eq!(
            (t.command.as_ref(), t.output.as_ref()),
            (None, None),
            "left out: unchanged"
        );
        assert_eq!(
            t.exit_status,
            Some(TerminalExit {
                exit_code: None,
                signal: Some("SIGKILL".into())
            })
        );
        assert_eq!(ended.kind(), "terminal");
    }

    /// A kind the v2 match does not name but v1 has in the same shape goes through v1's
    /// conversion (so a kind added on both wires is written once); one neither knows stays
    /// `unknown`, kept as it came.
    #[test]
    fn a_kind_v1_shares_is_converted_by_v1s_arm() {
        let mode = converted(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"}));
        assert!(
            matches!(&mode, TranscriptUpdate::Session(SessionState::CurrentMode(m)) if &*m.current_mode_id.0 == "code"),
            "{mode:?}"
        );
        let newer = converted(json!({"sessionUpdate": "_weather", "sky": "clear"}));
        assert!(
            matches!(newer, TranscriptUpdate::Item(ItemUpdate::Unknown(_))),
            "{newer:?}"
        );
    }

    #[test]
    fn a_usage_update_that_leaves_the_cost_out_keeps_the_last_one_and_null_clears_it() {
        let mut last = None;
        let mut cost_after = |update: Value| {
            let mut usage: v2::UsageUpdate = serde_json::from_value(update).expect("a usage update");
            keep_cost(&mut usage, &mut last);
            match convert(v2::SessionUpdate::UsageUpdate(usage), |_| false).expect("well formed") {
                TranscriptUpdate::Session(SessionState::Usage(u)) => {
                    (u.used, u.cost.map(|c| (c.amount, c.currency)))
                }
                other => panic!("not usage: {other:?}"),
            }
        };
        // Claude's order in a turn: usage without a cost, then with the turn's cost.
        assert_eq!(cost_after(json!({"used": 1, "size": 9})), (1, None));
        let usd = Some((0.0123, "USD".to_string()));
        assert_eq!(
            cost_after(json!({"used": 2, "size": 9, "cost": {"amount": 0.0123, "currency": "USD"}})),
            (2, usd.clone())
        );
        assert_eq!(
            cost_after(json!({"used": 3, "size": 9})),
            (3, usd),
            "left out: unchanged"
        );
        assert_eq!(
            cost_after(json!({"used": 4, "size": 9, "cost": null})),
            (4, None),
            "null clears"
        );
        assert_eq!(cost_after(json!({"used": 5, "size": 9})), (5, None));
    }

    #[test]
    fn notices_and_compactions_keep_what_v2_says() {
        let notice = converted(
            json!({"sessionUpdate": "notice", "severity": "_vendor_critical", "title": "Quota", "description": "90% used"}),
        );
        let raw = serde_json::to_value(notice.wire()).unwrap();
        assert_eq!(
            (
                notice.kind(),
                &raw["severity"],
                &raw["title"],
                &raw["description"]
            ),
            (
                "notice",
                &json!("_vendor_critical"),
                &json!("Quota"),
                &json!("90% used")
            )
        );
        // A compaction's summary and error are patches: left out, cleared (`null`), or replaced.
        let started = converted(
            json!({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}),
        );
        let raw = serde_json::to_value(started.wire()).unwrap();
        assert_eq!(started.kind(), "compaction");
        assert!(
            raw.get("summary").is_none() && raw.get("error").is_none(),
            "{raw}"
        );
        let cleared = converted(
            json!({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "failed",
            "summary": null, "error": "out of tokens"}),
        );
        let raw = serde_json::to_value(cleared.wire()).unwrap();
        assert_eq!(
            (&raw["status"], &raw["summary"], &raw["error"]),
            (&json!("failed"), &Value::Null, &json!("out of tokens"))
        );
        assert!(
            raw.as_object().unwrap().contains_key("summary"),
            "null, not left out: {raw}"
        );
        let chunk = converted(
            json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": {"type": "text", "text": "We fixed the parser."}}),
        );
        assert_eq!(chunk.kind(), "compaction_summary");
    }

    /// A subagent's session streamed into its call: the call names the session, its content
    /// so far unchanged; then a text block appends to that content.
    #[test]
    fn a_session_block_in_a_content_chunk_names_the_calls_subagent() {
        let mut so_far = vec![ToolCallContent::from("started")];
        let chunk = |content: Value| -> v2::ToolCallContentChunk {
            serde_json::from_value(json!({"toolCallId": "call_1", "content": content})).expect("a chunk")
        };
        let call_of = |update: TranscriptUpdate| match update {
            TranscriptUpdate::Item(ItemUpdate::ToolCall(t)) => t,
            other => panic!("not a tool call: {other:?}"),
        };
        let named = tool_content(
            &chunk(json!({"type": "session", "sessionId": "sub-1"})),
            &mut so_far,
        )
        .map(call_of)
        .expect("a tool call change");
        assert_eq!(named.sessions, ["sub-1"]);
        assert_eq!(named.fields.content, Some(vec![ToolCallContent::from("started")]));
        let text = tool_content(
            &chunk(json!({"type": "content", "content": {"type": "text", "text": "done"}})),
            &mut so_far,
        )
        .map(call_of)
        .expect("a tool call change");
        assert!(text.sessions.is_empty());
        assert_eq!(
            text.fields.content,
            Some(vec![
                ToolCallContent::from("started"),
                ToolCallContent::from("done")
            ])
        );
        // A session block without its id is no reference: v1 cannot hold it either.
        assert!(tool_content(&chunk(json!({"type": "session"})), &mut so_far).is_none());
    }

    #[test]
    fn terminal_data_that_is_not_base64_is_kept_as_it_came() {
        let bad = converted(
            json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
            "data": "not base64!"}),
        );
        match bad {
            TranscriptUpdate::Item(ItemUpdate::Unknown(u)) => {
                assert_eq!(u.session_update, "terminal_output_chunk");
                assert_eq!(u.update["data"], "not base64!");
            }
            other => panic!("kept as it came, not {other:?}"),
        }
    }
}
