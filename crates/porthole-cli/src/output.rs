//! Printing events: JSON lines (`--json`) or short readable text.

use std::cell::RefCell;
use std::io::Write;

use porthole_core::AgentClient;
use porthole_core::events::Event;
use porthole_core::transcript::TextLine;
use serde::Serialize;
use serde_json::{Value, json};

use crate::policy::{self, Decision};
use crate::term::{self, note, note_part, say};

pub struct Output {
    json: bool,
    /// `--json` lines not written to stdout yet. During a flood of events they are written
    /// together (one `write` for many lines instead of one each); every line is out as soon
    /// as no more events are waiting, so a reader never waits for one.
    pending: RefCell<Vec<u8>>,
}

/// Written out once this much is pending, even while more events wait.
const PENDING_BYTES: usize = 64 * 1024;

impl Output {
    pub fn new(json: bool) -> Self {
        Self {
            json,
            pending: RefCell::default(),
        }
    }

    /// One JSON line, written out now.
    fn line(&self, value: Value) {
        self.queue(&value);
        self.flush();
    }

    /// One JSON line, written out with the next [`Output::flush`] (or once much is pending).
    fn queue(&self, value: &impl Serialize) {
        let full = {
            let mut pending = self.pending.borrow_mut();
            crate::json_line::append(&mut pending, value);
            pending.push(b'\n');
            pending.len() >= PENDING_BYTES
        };
        if full {
            self.flush();
        }
    }

    /// Write out the pending lines.
    pub fn flush(&self) {
        let mut pending = self.pending.borrow_mut();
        if pending.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&pending);
        let _ = stdout.flush();
        pending.clear();
    }

    pub fn initialized(&self, client: &AgentClient) {
        let agent = client.agent();
        if self.json {
            self.line(json!({
                "type": "initialized",
                "agent": agent,
                "protocolVersion": client.init_response().protocol_version,
                "agentCapabilities": client.init_response().agent_capabilities,
                "authMethods": client.init_response().auth_methods,
            }));
        } else {
            note!(
                "connected to {} {} (ACP v{})",
                term::line(&agent.display_name()),
                term::line(agent.version.as_deref().unwrap_or("")),
                client.protocol_version()
            );
        }
    }

    /// A request the run was for (`--logout`, `--delete-session`) succeeded.
    pub fn done(&self, request: &str) {
        if self.json {
            self.line(json!({"type": "done", "request": request}));
        } else {
            note!("{request}: done");
        }
    }

    pub fn session_listing(&self, page: &porthole_core::SessionListing) {
        for s in &page.sessions {
            if self.json {
                self.line(json!({"type": "listed_session", "session": s}));
            } else {
                say!(
                    "{}\t{}\t{}\t{}",
                    term::line(&s.session_id.0),
                    term::line(&s.cwd.display().to_string()),
                    term::line(s.updated_at.as_deref().unwrap_or("-")),
                    term::line(s.title.as_deref().unwrap_or(""))
                );
            }
        }
    }

    pub fn session(&self, session_id: &str, models: Option<&porthole_core::models::SessionModels>) {
        if self.json {
            self.line(json!({"type": "session", "sessionId": session_id, "models": models}));
        } else if let Some(models) = models {
            let names: Vec<String> = models
                .available_models
                .iter()
                .map(|m| term::line(&m.model_id))
                .collect();
            note!(
                "[session {}] model {} (offers: {})",
                term::line(session_id),
                term::line(&models.current_model_id),
                names.join(", ")
            );
        }
    }

    /// The session's config options after `--config` set them (the agent's full answer).
    pub fn config_options(
        &self,
        session_id: &str,
        options: &[porthole_core::acp::v1::schema::SessionConfigOption],
    ) {
        if self.json {
            self.line(json!({"type": "config_options", "sessionId": session_id, "configOptions": options}));
        } else {
            for option in options {
                let value = match &option.kind {
                    porthole_core::acp::v1::schema::SessionConfigKind::Select(s) => {
                        s.current_value.0.to_string()
                    }
                    porthole_core::acp::v1::schema::SessionConfigKind::Boolean(b) => {
                        b.current_value.to_string()
                    }
                    _ => "?".to_string(),
                };
                crate::term::note!(
                    "[session {session_id}] {} ({}) = {value}",
                    option.id.0,
                    option.name
                );
            }
        }
    }

    /// A UI tool call of an MCP connection that finished (`crate::mcp_apps`).
    pub fn mcp_app(&self, line: &crate::mcp_apps::Line) {
        if self.json {
            self.line(line.json());
        } else {
            note!(
                "[mcp app] {} {} shows {}{}",
                term::line(&line.call.who.connection),
                term::line(&line.call.tool),
                term::line(&line.call.resource_uri),
                match &line.tool_call_id {
                    Some(id) => format!(" (tool call {})", term::line(id)),
                    None => String::new(),
                }
            );
        }
    }

    /// An event; with `more_waiting`, its JSON line may wait for the next one's (the caller
    /// flushes once none is waiting).
    pub fn event(&self, event: &Event, decision: Option<&Decision>, more_waiting: bool) {
        if !self.json {
            return text_event(event, decision);
        }
        match event {
            // The flood's event, serialized straight from its type (no `Value` in between:
            // the same bytes, as `preserve_order` keeps the fields' order in a `Value`).
            Event::SessionUpdate { session_id, update } => self.queue(&UpdateLine::of(session_id, update)),
            _ => self.queue(&json_event(event, decision)),
        }
        if !more_waiting {
            self.flush();
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A `session_update` line: the update as the agent sent it (its `sessionUpdate` kind and
/// fields, or a kind Porthole does not know exactly as it came), not Porthole's model of it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    update: porthole_core::transcript::Wire<'a>,
}

impl<'a> UpdateLine<'a> {
    fn of(session_id: &'a str, update: &'a porthole_core::transcript::TranscriptUpdate) -> Self {
        UpdateLine {
            kind: "session_update",
            session_id,
            update: update.wire(),
        }
    }
}

fn json_event(event: &Event, decision: Option<&Decision>) -> Value {
    match event {
        Event::SessionUpdate { session_id, update } => {
            serde_json::to_value(UpdateLine::of(session_id, update))
                .unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()}))
        }
        Event::Dialog(prompt) => policy::dialog_json(prompt, decision),
        Event::ElicitationRejected {
            mode,
            message,
            url,
            elicitation_id,
            session_id,
            tool_call_id,
            error,
        } => json!({
            "type": "elicitation",
            "mode": mode,
            "message": message,
            "url": url,
            "elicitationId": elicitation_id,
            "sessionId": session_id,
            "toolCallId": tool_call_id,
            "warnings": [],
            "action": Value::Null,
            "content": Value::Null,
            "error": {"code": error.code, "message": error.message},
        }),
        Event::ElicitationComplete {
            elicitation_id,
            known,
            ..
        } => {
            json!({"type": "elicitation_complete", "elicitationId": elicitation_id, "known": known})
        }
        Event::TurnEnded {
            session_id,
            stop_reason,
            error,
        } => {
            json!({"type": "turn_end", "sessionId": session_id, "stopReason": stop_reason, "error": error})
        }
        other => {
            serde_json::to_value(other).unwrap_or_else(|e| json!({"type": "error", "message": e.to_string()}))
        }
    }
}

/// Human mode. Every line goes through `term` (the `say!`/`note!` macros show control, escape,
/// bidi and invisible characters as code points); the agent's one-line strings (titles, names,
/// messages of dialogs and errors) also through `term::line`, so a line feed in them cannot
/// start a line that looks like Porthole's.
fn text_event(event: &Event, decision: Option<&Decision>) {
    match event {
        // Each kind's words are core's (`TranscriptUpdate::text_lines`, beside the kind).
        Event::SessionUpdate { update, .. } => {
            for line in update.text_lines() {
                match line {
                    TextLine::Reply(text) => term::out(&text),
                    TextLine::Line(line) => note!("{}", term::line(&line)),
                    TextLine::Note(text) => note!("{text}"),
                }
            }
        }
        Event::Dialog(prompt) => policy::dialog_text(prompt, decision),
        Event::ElicitationRejected { mode, error, .. } => {
            note!(
                "[elicitation {} refused] {} (code {})",
                term::line(mode.as_deref().unwrap_or("?")),
                term::line(&error.message),
                error.code
            )
        }
        Event::ElicitationComplete {
            elicitation_id,
            known,
            ..
        } => {
            note!(
                "[elicitation complete] {} known={known}",
                term::line(elicitation_id)
            )
        }
        Event::DialogDismissed { dialog_id, reason } => {
            note!("[dialog {dialog_id} dismissed] {}", term::line(reason.describe()))
        }
        Event::TurnEnded {
            stop_reason, error, ..
        } => {
            say!();
            match error {
                Some(e) => note!("[turn failed] {}", term::line(&e.message)),
                None => note!(
                    "[turn ended: {}]",
                    stop_reason.as_ref().map(term::name).unwrap_or_else(|| "?".into())
                ),
            }
        }
        Event::StdoutNoise { line } => note!("[agent stdout, not JSON] {}", term::line(line)),
        Event::StdoutNotShown { lines } => {
            note!("[agent stdout] {lines} more lines not shown (printed faster than shown)")
        }
        Event::LineTooLong { bytes, limit } => note!(
            "[agent message too long] a line of {bytes} bytes from the agent was discarded (limit {limit} bytes)"
        ),
        Event::MalformedUpdate { error, .. } => note!("[malformed update] {}", term::line(error)),
        Event::AgentExited(info) => note!("[agent exited] {}", term::line(&info.status.to_string())),
        Event::TerminalCreated {
            terminal_id,
            command,
            args,
            ..
        } => {
            let args: Vec<String> = args.iter().map(|a| term::line(a)).collect();
            note!(
                "[terminal {}] $ {} {}",
                term::line(terminal_id),
                term::line(command),
                args.join(" ")
            )
        }
        Event::TerminalOutput { data, .. } => note_part!("{data}"),
        Event::TerminalExited {
            terminal_id,
            exit_code,
            signal,
        } => note!(
            "[terminal {} exited] {}",
            term::line(terminal_id),
            match (exit_code, signal) {
                (Some(code), _) => format!("exit code {code}"),
                (None, Some(signal)) => format!("killed by {}", term::line(signal)),
                (None, None) => "exit status unknown".into(),
            }
        ),
        Event::TerminalReleased { terminal_id } => {
            note!("[terminal {} released]", term::line(terminal_id))
        }
        Event::PermissionAuto {
            option_name, rule_id, ..
        } => {
            note!(
                "[permission answered by remembered rule {}] {}",
                term::line(&rule_id.to_string()),
                term::line(option_name)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Session updates of every kind, as an agent sends them (hidden characters included).
    const UPDATES: &[&str] = &[
        r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"00000001 chunk"}}"#,
        r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a\u009b2J\u202e\u2028é 例","annotations":{"priority":0.5,"audience":["user"]}},"messageId":"m1","_meta":{"z":1,"a":[true,null,1.5e300]}}"#,
        r#"{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking"}}"#,
        r#"{"sessionUpdate":"user_message_chunk","content":{"type":"image","data":"AAAA","mimeType":"image/png"}}"#,
        r#"{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit\u200bfile","kind":"edit","status":"pending","content":[{"type":"diff","path":"/a/b","oldText":"x","newText":"y"},{"type":"content","content":{"type":"text","text":"out"}}],"locations":[{"path":"/a/b","line":3}],"rawInput":{"b":2,"a":1}}"#,
        r#"{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","rawOutput":{"ok":true}}"#,
        r#"{"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"in_progress"}]}"#,
        r#"{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"search","input":{"hint":"query"}}]}"#,
        r#"{"sessionUpdate":"current_mode_update","currentModeId":"code"}"#,
        r#"{"sessionUpdate":"usage_update","used":12,"size":100,"cost":{"amount":0.1,"currency":"USD"}}"#,
        r#"{"sessionUpdate":"session_info_update","title":"T","updatedAt":"2026-01-01T00:00:00Z"}"#,
    ];

    /// A session update's line, straight from its type, is byte for byte the line made through
    /// a `serde_json::Value`, and the line of the SDK's own update (how it was printed before
    /// Porthole's model came between).
    #[test]
    fn session_update_lines_are_the_same_as_through_a_value() {
        for raw in UPDATES {
            let update: porthole_core::acp::v1::schema::SessionUpdate =
                serde_json::from_str(raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
            let event = Event::SessionUpdate {
                session_id: "s\u{2029}1".into(),
                update: Box::new(update.clone().into()),
            };
            let Event::SessionUpdate {
                session_id,
                update: model,
            } = &event
            else {
                unreachable!()
            };
            let mut straight = Vec::new();
            crate::json_line::append(&mut straight, &UpdateLine::of(session_id, model));
            let through_value = crate::json_line::to_line(&json_event(&event, None));
            let straight = String::from_utf8(straight).unwrap();
            assert_eq!(straight, through_value, "{raw}");
            let sdk = json!({"type": "session_update", "sessionId": "s\u{2029}1", "update": update});
            assert_eq!(straight, crate::json_line::to_line(&sdk), "{raw}");
        }
    }
}
