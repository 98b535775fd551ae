//! What v2 adds, one command each, so the window has something to show: a subagent in a
//! session of its own, background work that outlives the turn, a compaction, notices, cost,
//! and a message the agent edits and then clears.

use std::sync::Arc;
use std::time::Duration;

use agent_client_protocol::Error;
use serde_json::json;
use tokio::sync::watch;

use crate::commands::Stop;
use crate::v2::session::V2Session;
use crate::v2::turn::{Turn, send_state, send_update};
use crate::v2::typed;

/// The commands only a v2 client sees.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "subagent",
        "Hand a question to a subagent, a session of its own under this turn's tool call",
    ),
    (
        "background",
        "Start work that keeps running after the turn (listed; cancel it with tool_call/cancel)",
    ),
    ("compact", "Compact the context: progress, then a summary"),
    ("notices", "Send a notice of each severity (info, warning, error)"),
    ("cost", "Report context usage and what the session cost"),
    ("retract", "Write a message, edit it, then clear it"),
];

/// `/subagent`: a child session under a tool call. The parent's transcript shows the messages
/// it sent to and got from the child (`session_message`); the child's own session streams its
/// work and state; `subagent_update` mirrors the child's state in the parent.
pub async fn subagent(turn: &mut Turn) -> Result<Stop, Error> {
    let parent = turn.session_id().to_owned();
    let child = turn
        .agent
        .new_session(turn.session.base.cwd.clone(), Vec::new(), Some(parent.clone()));
    let child_id = child.id().to_owned();
    let call = turn.agent.state.tool_call_id("subagent");
    turn.tool(
        &call,
        json!({
            "title": "Ask a subagent to read notes.txt", "kind": "think", "status": "in_progress",
            "content": [{ "type": "session", "sessionId": child_id }]
        }),
    )?;
    turn.update(json!({
        "sessionUpdate": "subagent_update", "sessionId": child_id, "title": "Reader",
        "description": "Reads notes.txt and sums it up", "state": { "state": "running" }
    }))?;
    let question = "Read notes.txt and tell me what it says.";
    let sent = turn.agent.message_id("sent");
    let received = turn.agent.message_id("received");
    turn.update(json!({
        "sessionUpdate": "session_message", "messageId": sent, "senderSessionId": parent,
        "recipientSessionId": child_id, "recipientMessageId": received,
        "content": [{ "type": "text", "text": question }]
    }))?;
    // The child's own transcript.
    let cx = turn.cx.clone();
    let child_update = |update: serde_json::Value| send_update(&cx, &child, typed(update)?);
    child_update(json!({
        "sessionUpdate": "session_message", "messageId": received, "senderSessionId": parent,
        "recipientSessionId": child_id, "senderMessageId": sent,
        "content": [{ "type": "text", "text": question }]
    }))?;
    send_state(&turn.cx, &child, "running", None)?;
    let notes = std::fs::read_to_string(turn.session.base.cwd.join("notes.txt")).ok();
    let summary = match &notes {
        Some(text) => format!(
            "notes.txt has {} line(s); the last one reads: {}",
            text.lines().count(),
            text.lines().last().unwrap_or("")
        ),
        None => "There is no notes.txt in the workspace yet (try /edit first).".to_owned(),
    };
    let child_message = turn.agent.message_id("agent");
    for chunk in ["Reading notes.txt… ", "done. ", summary.as_str()] {
        if !turn.sleep(120).await {
            send_state(&turn.cx, &child, "idle", Some("cancelled"))?;
            turn.update(json!({ "sessionUpdate": "subagent_update", "sessionId": child_id, "state": { "state": "idle", "stopReason": "cancelled" } }))?;
            turn.tool_status(&call, "failed")?;
            return Ok(Stop::Cancelled);
        }
        child_update(
            json!({ "sessionUpdate": "agent_message_chunk", "messageId": child_message, "content": { "type": "text", "text": chunk } }),
        )?;
    }
    send_state(&turn.cx, &child, "idle", Some("end_turn"))?;
    // The answer, sent back to the parent.
    let reply = turn.agent.message_id("reply");
    turn.update(json!({
        "sessionUpdate": "session_message", "messageId": reply, "senderSessionId": child_id,
        "recipientSessionId": parent, "content": [{ "type": "text", "text": summary }]
    }))?;
    turn.update(json!({ "sessionUpdate": "subagent_update", "sessionId": child_id, "state": { "state": "idle", "stopReason": "end_turn" } }))?;
    turn.tool_status(&call, "completed")?;
    turn.say(format!("The subagent `{child_id}` answered: {summary}\n"))?;
    Ok(Stop::EndTurn)
}

/// `/background`: a tool call that keeps running after the turn ends. Every `state_update`
/// lists it until it finishes; `tool_call/cancel` stops it. Its progress streams as
/// `tool_call_content_chunk`s.
pub async fn background(turn: &mut Turn) -> Result<Stop, Error> {
    let call = turn.agent.state.tool_call_id("background");
    turn.tool(&call, json!({ "title": "Index the workspace in the background", "kind": "search", "status": "in_progress" }))?;
    let (stop_tx, stop) = watch::channel(false);
    turn.session
        .background
        .lock()
        .unwrap()
        .insert(call.clone(), stop_tx);
    let (cx, session, id) = (turn.cx.clone(), turn.session.clone(), call.clone());
    turn.cx.spawn(async move { index(cx, session, id, stop).await })?;
    turn.say(format!(
        "Started `{call}`: it keeps indexing after this turn ends (every `state_update` lists it). \
         Cancel it with `tool_call/cancel`, or wait about 5 seconds.\n"
    ))?;
    Ok(Stop::EndTurn)
}

/// The background work of `/background`: ten steps, or fewer if cancelled.
async fn index(
    cx: agent_client_protocol::v2::ConnectionTo<agent_client_protocol::Client>,
    session: Arc<V2Session>,
    call: String,
    mut stop: watch::Receiver<bool>,
) -> Result<(), Error> {
    let chunk = |text: String| -> Result<(), Error> {
        send_update(
            &cx,
            &session,
            typed(json!({
                "sessionUpdate": "tool_call_content_chunk", "toolCallId": call,
                "content": { "type": "content", "content": { "type": "text", "text": text } }
            }))?,
        )
    };
    let mut cancelled = false;
    for step in 1..=10 {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(500)) => chunk(format!("indexed {} files\n", step * 10))?,
            _ = stop.changed() => { cancelled = true; break; }
        }
    }
    session.background.lock().unwrap().remove(&call);
    if cancelled {
        chunk("cancelled\n".to_owned())?;
    }
    let status = if cancelled { "failed" } else { "completed" };
    send_update(
        &cx,
        &session,
        typed(json!({ "sessionUpdate": "tool_call_update", "toolCallId": call, "status": status }))?,
    )?;
    // The session's state again, now without this work (a turn may be running meanwhile).
    let state = if session.turn.try_lock().is_ok() {
        "idle"
    } else {
        "running"
    };
    send_state(&cx, &session, state, None)
}

/// `/compact`: a compaction in progress, its summary streamed, then completed; the context's
/// usage drops.
pub async fn compact(turn: &mut Turn) -> Result<Stop, Error> {
    let id = turn.agent.message_id("compaction");
    turn.update(
        json!({ "sessionUpdate": "compaction_update", "compactionId": id, "status": "in_progress" }),
    )?;
    for text in [
        "The user is trying the demo agent. ",
        "They asked about v2 updates. ",
        "Nothing is pending.",
    ] {
        if !turn.sleep(150).await {
            turn.update(
                json!({ "sessionUpdate": "compaction_update", "compactionId": id, "status": "cancelled" }),
            )?;
            return Ok(Stop::Cancelled);
        }
        turn.update(json!({ "sessionUpdate": "compaction_summary_chunk", "compactionId": id, "content": { "type": "text", "text": text } }))?;
    }
    turn.update(json!({ "sessionUpdate": "compaction_update", "compactionId": id, "status": "completed" }))?;
    turn.update(json!({ "sessionUpdate": "usage_update", "used": 1200, "size": 200000 }))?;
    turn.say("Compacted the context: 48,000 tokens down to 1,200.\n")?;
    Ok(Stop::EndTurn)
}

/// `/notices`: one notice of each severity (not part of the session's history).
pub async fn notices(turn: &mut Turn) -> Result<Stop, Error> {
    for (severity, title, description) in [
        ("info", "The demo agent has no model", "Every answer is scripted."),
        (
            "warning",
            "Model metadata for `demo` not found",
            "Codex sends this one every turn with an unknown model.",
        ),
        (
            "error",
            "The demo service is unreachable",
            "Nothing was lost: this notice is only a demo.",
        ),
    ] {
        turn.update(json!({ "sessionUpdate": "notice", "severity": severity, "title": title, "description": description }))?;
    }
    turn.say("Sent three notices: info, warning and error.\n")?;
    Ok(Stop::EndTurn)
}

/// `/cost`: the context's usage and what the session cost so far.
pub async fn cost(turn: &mut Turn) -> Result<Stop, Error> {
    turn.update(json!({ "sessionUpdate": "usage_update", "used": 4200, "size": 200000, "cost": { "amount": 0.0123, "currency": "USD" } }))?;
    turn.say("This session used 4,200 of 200,000 tokens and cost $0.0123 (made up: there is no model).\n")?;
    Ok(Stop::EndTurn)
}

/// `/retract`: a message written whole (an upsert), replaced, then cleared (`content: null`).
pub async fn retract(turn: &mut Turn) -> Result<Stop, Error> {
    let id = turn.agent.message_id("draft");
    turn.update(json!({ "sessionUpdate": "agent_message", "messageId": id, "content": [{ "type": "text", "text": "A first draft: the answer is 41." }] }))?;
    if !turn.sleep(600).await {
        return Ok(Stop::Cancelled);
    }
    turn.update(json!({ "sessionUpdate": "agent_message", "messageId": id, "content": [{ "type": "text", "text": "Edited: the answer is 42." }] }))?;
    if !turn.sleep(600).await {
        return Ok(Stop::Cancelled);
    }
    turn.update(json!({ "sessionUpdate": "agent_message", "messageId": id, "content": null }))?;
    turn.new_message();
    turn.say("I cleared that message: it should be gone from the transcript.\n")?;
    Ok(Stop::EndTurn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v2::schema;

    #[test]
    fn every_showcase_update_is_v2() {
        for update in [
            json!({ "sessionUpdate": "subagent_update", "sessionId": "c", "title": "Reader", "state": { "state": "running" } }),
            json!({ "sessionUpdate": "subagent_update", "sessionId": "c", "state": { "state": "idle", "stopReason": "end_turn" } }),
            json!({ "sessionUpdate": "session_message", "messageId": "m", "senderSessionId": "p", "recipientSessionId": "c", "content": [{ "type": "text", "text": "q" }] }),
            json!({ "sessionUpdate": "tool_call_update", "toolCallId": "t", "content": [{ "type": "session", "sessionId": "c" }] }),
            json!({ "sessionUpdate": "tool_call_content_chunk", "toolCallId": "t", "content": { "type": "content", "content": { "type": "text", "text": "x" } } }),
            json!({ "sessionUpdate": "compaction_update", "compactionId": "k", "status": "in_progress" }),
            json!({ "sessionUpdate": "compaction_summary_chunk", "compactionId": "k", "content": { "type": "text", "text": "s" } }),
            json!({ "sessionUpdate": "notice", "severity": "warning", "title": "t", "description": "d" }),
            json!({ "sessionUpdate": "usage_update", "used": 4200, "size": 200000, "cost": { "amount": 0.0123, "currency": "USD" } }),
            json!({ "sessionUpdate": "agent_message", "messageId": "m", "content": null }),
        ] {
            typed::<schema::SessionUpdate>(update.clone()).unwrap_or_else(|e| panic!("{update}: {e:?}"));
        }
    }
}
