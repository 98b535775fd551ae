//! The demo agent's prompts and commands in v2, the same as v1's (`commands.rs`) where v2 has
//! them: the reply streams as chunks of one `messageId`, a tool call is created by its first
//! `tool_call_update`, a question is bracketed by `requires_action`, and the agent writes files
//! and runs commands itself (v2 has no `fs/*` or `terminal/*` requests).

use std::process::Stdio;

use agent_client_protocol::Error;
use agent_client_protocol::v2::schema;
use base64::Engine as _;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::commands::{
    COMMANDS, Stop, TEST_SCRIPT, action_of, chat_chunks, code, content_summary, edited_text, error_text,
    parse_command, validation_report,
};
use crate::forms;
use crate::signin::Outcome;
use crate::v2::session::Mode;
use crate::v2::showcase;
use crate::v2::turn::{Reply, Turn};
use crate::v2::typed;

/// The commands a v2 client sees: v1's and what v2 adds.
pub fn commands() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    COMMANDS.iter().chain(showcase::COMMANDS)
}

/// The v2 `available_commands_update` (each entry a `type: "command"`).
pub fn available_commands_update() -> Value {
    let commands: Vec<Value> = commands()
        .map(|(name, description)| json!({ "type": "command", "name": name, "description": description }))
        .collect();
    json!({ "sessionUpdate": "available_commands_update", "availableCommands": commands })
}

/// Runs one prompt turn.
pub async fn run(turn: &mut Turn, text: &str) -> Result<Stop, Error> {
    match parse_command(text) {
        Some(("configure", _)) => configure(turn).await,
        Some(("connect", _)) => connect(turn).await,
        Some(("ask", _)) => ask(turn).await,
        Some(("edit", _)) => edit(turn).await,
        Some(("test", _)) => test(turn).await,
        Some(("tools", args)) => tools(turn, args).await,
        Some(("slow", _)) => slow(turn).await,
        Some(("subagent", _)) => showcase::subagent(turn).await,
        Some(("background", _)) => showcase::background(turn).await,
        Some(("compact", _)) => showcase::compact(turn).await,
        Some(("notices", _)) => showcase::notices(turn).await,
        Some(("cost", _)) => showcase::cost(turn).await,
        Some(("retract", _)) => showcase::retract(turn).await,
        Some((other, _)) => {
            let mut msg = format!("Unknown command `/{other}`. Available commands:\n\n");
            for (name, description) in commands() {
                msg.push_str(&format!("- `/{name}` — {description}\n"));
            }
            turn.say(msg)?;
            Ok(Stop::EndTurn)
        }
        None => chat(turn, text).await,
    }
}

/// The reply's plan, by `planId` (v2 updates a plan in place).
fn plan(statuses: [&str; 3]) -> Value {
    let entries = [
        "Read the prompt",
        "Compose a markdown reply",
        "Suggest slash commands to try",
    ];
    let priorities = ["high", "medium", "low"];
    let entries: Vec<Value> = (0..3)
        .map(|i| json!({ "content": entries[i], "priority": priorities[i], "status": statuses[i] }))
        .collect();
    json!({ "sessionUpdate": "plan_update", "plan": { "type": "items", "planId": "reply", "entries": entries } })
}

/// Free text: a thought, a plan, the reply streamed as one message; the plan completed.
async fn chat(turn: &mut Turn, text: &str) -> Result<Stop, Error> {
    let words = text.split_whitespace().count();
    turn.think(format!(
        "The user wrote {words} word(s). There is no model here, so I reply with a fixed demo answer that echoes the prompt."
    ))?;
    turn.update(plan(["completed", "in_progress", "pending"]))?;
    for chunk in chat_chunks(text) {
        if !turn.sleep(30).await {
            return Ok(Stop::Cancelled);
        }
        turn.say(chunk)?;
    }
    turn.update(plan(["completed", "completed", "completed"]))?;
    Ok(Stop::EndTurn)
}

/// `/slow`: ~40 chunks over ~6 s, stopping promptly on `session/cancel`.
async fn slow(turn: &mut Turn) -> Result<Stop, Error> {
    turn.say("Starting a slow task. Cancel at any time.\n\n")?;
    for step in 1..=40 {
        if !turn.sleep(150).await {
            return Ok(Stop::Cancelled);
        }
        turn.say(format!("Working… step {step}\n\n"))?;
    }
    turn.say("Done.\n")?;
    Ok(Stop::EndTurn)
}

/// An elicitation request, from its JSON (v2: scope, mode and schema side by side).
fn elicitation(request: Value) -> Result<schema::CreateElicitationRequest, Error> {
    typed(request)
}

/// The client's answer to an elicitation, as JSON (`action`, `content`).
fn answer(response: &schema::CreateElicitationResponse) -> Result<Value, Error> {
    serde_json::to_value(response).map_err(Error::into_internal_error)
}

/// `/configure`: a form scoped to the session and tied to a tool call.
async fn configure(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.state.caps().form {
        let mut msg = "This client does not support form elicitation, so /configure cannot ask you; using defaults instead.\n\n".to_owned();
        msg.push_str(&content_summary(&forms::defaults(&forms::configure_schema())));
        turn.say(msg)?;
        return Ok(Stop::EndTurn);
    }
    let id = turn.agent.state.tool_call_id("configure");
    turn.tool(
        &id,
        json!({ "title": "Configure project", "kind": "other", "status": "pending" }),
    )?;
    turn.tool_status(&id, "in_progress")?;
    let schema = forms::configure_schema();
    let request = elicitation(json!({
        "sessionId": turn.session_id(), "toolCallId": id, "mode": "form",
        "message": "Configure the demo project", "requestedSchema": schema.clone()
    }))?;
    let response = match turn.ask(request).await? {
        Reply::Cancelled => {
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::Cancelled);
        }
        Reply::Err(e) => {
            turn.say(format!(
                "The client answered the configuration form with {}.\n",
                error_text(&e)
            ))?;
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::EndTurn);
        }
        Reply::Ok(response) => answer(&response)?,
    };
    let (action, content) = action_of(&response);
    let (msg, status) = match action {
        "accept" => {
            let empty = Map::new();
            let content = content.unwrap_or(&empty);
            let mut msg = "### Configuration received\n\n".to_owned();
            if content.is_empty() {
                msg.push_str("The client accepted the form but sent no content.\n\n");
            } else {
                msg.push_str(&content_summary(content));
                msg.push('\n');
            }
            msg.push_str(&validation_report(&schema, content));
            let valid = forms::validate_content(&schema, content).is_empty();
            (msg, if valid { "completed" } else { "failed" })
        }
        "decline" => ("You declined the configuration form.\n".to_owned(), "failed"),
        "cancel" => ("You cancelled the configuration form.\n".to_owned(), "failed"),
        other => (
            format!("The client answered with an unknown action {}.\n", code(other)),
            "failed",
        ),
    };
    turn.say(msg)?;
    turn.tool_status(&id, status)?;
    Ok(if turn.is_cancelled() {
        Stop::Cancelled
    } else {
        Stop::EndTurn
    })
}

/// `/connect`: URL-mode sign-in through the local demo service, scoped to the session.
async fn connect(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.state.caps().url {
        turn.say(
            "This client does not support URL elicitation, so /connect cannot open the sign-in page. \
             Signing in is never requested through a form: the spec forbids falling back to form mode for credentials.\n",
        )?;
        return Ok(Stop::EndTurn);
    }
    let service = match turn.agent.state.signin() {
        Ok(s) => s,
        Err(e) => {
            turn.say(format!("Could not start the sign-in service: {e}\n"))?;
            return Ok(Stop::EndTurn);
        }
    };
    let id = turn.agent.state.tool_call_id("connect");
    turn.tool(
        &id,
        json!({ "title": "Connect to the Porthole Demo service", "kind": "fetch", "status": "in_progress" }),
    )?;
    let (state, outcome) = service.begin();
    let elicitation_id = turn.agent.state.elicitation_id("demo-signin");
    let request = elicitation(json!({
        "sessionId": turn.session_id(), "toolCallId": id, "mode": "url",
        "elicitationId": elicitation_id, "url": service.authorize_url(&state),
        "message": "Sign in to the Porthole Demo service to connect your account."
    }))?;
    let reply = turn.ask(request).await?;
    let response = match reply {
        Reply::Cancelled => {
            service.forget(&state);
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::Cancelled);
        }
        Reply::Err(e) => {
            service.forget(&state);
            turn.say(format!(
                "The client answered the sign-in request with {}.\n",
                error_text(&e)
            ))?;
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::EndTurn);
        }
        Reply::Ok(response) => answer(&response)?,
    };
    let refused = match action_of(&response).0 {
        "accept" => None,
        "decline" => Some("You declined to sign in to the Porthole Demo service.\n".to_owned()),
        "cancel" => Some("You cancelled the sign-in to the Porthole Demo service.\n".to_owned()),
        other => Some(format!(
            "The client answered the sign-in request with an unknown action {}.\n",
            code(other)
        )),
    };
    if let Some(msg) = refused {
        service.forget(&state);
        turn.say(msg)?;
        turn.tool_status(&id, "failed")?;
        return Ok(Stop::EndTurn);
    }
    // `accept` only means the person agreed to open the URL: the turn waits for the browser.
    turn.say("Waiting for you to finish signing in…\n\n")?;
    turn.state("requires_action")?;
    let result = tokio::select! {
        r = outcome => Some(r.ok()),
        _ = tokio::time::sleep(std::time::Duration::from_secs(300)) => None,
        _ = turn.cancelled() => {
            service.forget(&state);
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::Cancelled);
        }
    };
    turn.state("running")?;
    service.forget(&state);
    let (msg, status) = match result {
        Some(Some(outcome)) => {
            // Only the id goes over ACP: nothing obtained in the browser.
            turn.cx
                .send_notification(schema::CompleteElicitationNotification::new(elicitation_id))?;
            if outcome == Outcome::Authorized {
                ("Connected to the Porthole Demo service.\n", "completed")
            } else {
                ("You denied access to the Porthole Demo service.\n", "failed")
            }
        }
        Some(None) => ("The sign-in service stopped before you finished.\n", "failed"),
        None => (
            "Sign-in timed out after 5 minutes; the link is no longer valid.\n",
            "failed",
        ),
    };
    turn.say(msg)?;
    turn.tool_status(&id, status)?;
    Ok(Stop::EndTurn)
}

/// `/ask`: a question scoped to the session, then a (deliberately wrong) secret form. v1 scopes
/// the first to the `session/prompt` request; a v2 prompt is answered at once, and v2's request
/// scope is for requests outside a session, so v2 asks in the session's scope.
async fn ask(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.state.caps().form {
        turn.say("This client does not support form elicitation, so /ask cannot ask you anything.\n")?;
        return Ok(Stop::EndTurn);
    }
    let schema = forms::workspace_schema();
    let request = elicitation(json!({
        "sessionId": turn.session_id(), "mode": "form",
        "message": "What is the name of your workspace?", "requestedSchema": schema.clone()
    }))?;
    let mut msg = "**Question 1** (session-scoped): ".to_owned();
    match turn.ask(request).await? {
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(e) => msg.push_str(&format!("{}.\n\n", error_text(&e))),
        Reply::Ok(response) => {
            let response = answer(&response)?;
            let (action, content) = action_of(&response);
            msg.push_str(&format!("action {}", code(action)));
            match content {
                Some(content) => {
                    msg.push_str(&format!(
                        ", content {}\n\n",
                        code(&Value::Object(content.clone()).to_string())
                    ));
                    msg.push_str(&validation_report(&schema, content));
                }
                None if action == "accept" => {
                    msg.push_str(", no content\n\n");
                    msg.push_str(&validation_report(&schema, &Map::new()));
                }
                None => msg.push('\n'),
            }
            msg.push('\n');
        }
    }
    turn.say(msg)?;

    // Asking for a secret in a form violates the spec on purpose: the client shows its warning.
    let request = elicitation(json!({
        "sessionId": turn.session_id(), "mode": "form",
        "message": "Paste your API token", "requestedSchema": forms::secret_schema()
    }))?;
    let mut msg =
        "**Question 2** (session-scoped form asking for a secret — this violates the spec on purpose): "
            .to_owned();
    match turn.ask(request).await? {
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(e) => msg.push_str(&format!("{}.\n", error_text(&e))),
        Reply::Ok(response) => {
            let response = answer(&response)?;
            let (action, content) = action_of(&response);
            msg.push_str(&format!("action {}", code(action)));
            if action == "accept" {
                // Never echo the secret itself: only which keys arrived.
                let keys: Vec<String> = content
                    .map(|c| c.keys().map(|k| code(k)).collect())
                    .unwrap_or_default();
                if keys.is_empty() {
                    msg.push_str(", no content");
                } else {
                    msg.push_str(&format!(", content keys {} (values withheld)", keys.join(", ")));
                }
                msg.push_str(" (the client should never have accepted this)\n");
            } else {
                msg.push_str(" — good: secrets must never be collected through form mode.\n");
            }
        }
    }
    turn.say(msg)?;
    Ok(if turn.is_cancelled() {
        Stop::Cancelled
    } else {
        Stop::EndTurn
    })
}

/// The permission options of `/edit` and `/test`.
fn options(allow: &str, always: &str, reject: &str) -> Value {
    json!([
        { "optionId": "allow_once", "name": allow, "kind": "allow_once" },
        { "optionId": "allow_always", "name": always, "kind": "allow_always" },
        { "optionId": "reject_once", "name": reject, "kind": "reject_once" }
    ])
}

/// Asks permission (unless the session's mode is `auto`): `Ok(None)` allowed, `Ok(Some(why))`
/// not allowed, `Err(Stop)` the turn was cancelled.
async fn permission(turn: &mut Turn, request: Value) -> Result<Result<Option<String>, Stop>, Error> {
    if *turn.session.mode.lock().unwrap() == Mode::Auto {
        return Ok(Ok(None));
    }
    let request: schema::RequestPermissionRequest = typed(request)?;
    let response = match turn.ask(request).await? {
        Reply::Cancelled => return Ok(Err(Stop::Cancelled)),
        Reply::Err(e) => {
            return Ok(Ok(Some(format!(
                "The permission request failed with {}.",
                error_text(&e)
            ))));
        }
        Reply::Ok(r) => serde_json::to_value(&r).map_err(Error::into_internal_error)?,
    };
    let outcome = response
        .pointer("/outcome/outcome")
        .and_then(Value::as_str)
        .unwrap_or("");
    let option = response
        .pointer("/outcome/optionId")
        .and_then(Value::as_str)
        .unwrap_or("");
    Ok(Ok(match (outcome, option) {
        ("selected", "allow_once" | "allow_always") => None,
        ("selected", "reject_once") => Some("You rejected it.".to_owned()),
        ("cancelled", _) => Some("The permission request was cancelled.".to_owned()),
        _ => Some(format!(
            "The client answered with an unexpected outcome {}.",
            code(&response.to_string())
        )),
    }))
}

/// A git patch for `edited_text`'s change: one line appended (or a new file).
fn append_patch(path: &str, old: Option<&str>, line: &str) -> Value {
    match old {
        None => {
            json!({ "format": "git_patch", "text": format!("--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+{line}\n") })
        }
        Some(old) => {
            let n = old.lines().count();
            let mut text = format!("--- {path}\n+++ {path}\n");
            if old.is_empty() || old.ends_with('\n') {
                text.push_str(&format!("@@ -{n},0 +{},1 @@\n+{line}\n", n + 1));
            } else {
                // The last line gains its newline: it is replaced.
                let last = old.lines().last().unwrap_or_default();
                text.push_str(&format!(
                    "@@ -{n},1 +{n},2 @@\n-{last}\n\\ No newline at end of file\n+{last}\n+{line}\n"
                ));
            }
            json!({ "format": "git_patch", "text": text })
        }
    }
}

/// `/edit`: a diff tool call, permission (unless the mode is `auto`), then the agent writes.
async fn edit(turn: &mut Turn) -> Result<Stop, Error> {
    let path = turn.session.base.cwd.join("notes.txt");
    let path_str = path.to_string_lossy().into_owned();
    let old = match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            turn.say(format!("Could not read {}: {e}\n", code(&path_str)))?;
            return Ok(Stop::EndTurn);
        }
    };
    let new = edited_text(old.as_deref());
    let id = turn.agent.state.tool_call_id("edit");
    let operation = if old.is_some() { "modify" } else { "add" };
    let call = json!({
        "toolCallId": id, "title": "Edit notes.txt", "kind": "edit", "status": "pending",
        "content": [{
            "type": "diff",
            "changes": [{ "operation": operation, "path": path_str, "fileType": "text" }],
            "patch": append_patch(&path_str, old.as_deref(), new.lines().last().unwrap_or_default()),
        }],
        "locations": [{ "path": path_str }]
    });
    turn.tool(&id, call.clone())?;
    let request = json!({
        "sessionId": turn.session_id(), "title": "Edit notes.txt",
        "subject": { "type": "tool_call", "toolCall": call },
        "options": options("Allow", "Always allow", "Reject")
    });
    match permission(turn, request).await? {
        Err(stop) => {
            turn.tool_status(&id, "failed")?;
            return Ok(stop);
        }
        Ok(Some(why)) => {
            turn.say(format!("{why} notes.txt was not changed.\n"))?;
            turn.tool_status(&id, "failed")?;
            return Ok(if turn.is_cancelled() {
                Stop::Cancelled
            } else {
                Stop::EndTurn
            });
        }
        Ok(None) => {}
    }
    turn.tool_status(&id, "in_progress")?;
    match tokio::fs::write(&path, &new).await {
        Ok(()) => {
            turn.tool(
                &id,
                json!({ "status": "completed", "rawOutput": { "written": path_str } }),
            )?;
            turn.say(format!(
                "Wrote {} (a v2 agent writes files itself).\n",
                code(&path_str)
            ))?;
        }
        Err(e) => {
            turn.tool_status(&id, "failed")?;
            turn.say(format!("Writing {} failed: {e}.\n", code(&path_str)))?;
        }
    }
    Ok(Stop::EndTurn)
}

/// `/test`: permission for the command (unless the mode is `auto`), then the agent runs it in a
/// terminal of its own, shown in the tool call (`terminal_update`, `terminal_output_chunk`).
async fn test(turn: &mut Turn) -> Result<Stop, Error> {
    let id = turn.agent.state.tool_call_id("test");
    let terminal = format!("{id}-terminal");
    let cwd = turn.session.base.cwd.to_string_lossy().into_owned();
    let command = format!("/bin/sh -c {TEST_SCRIPT:?}");
    turn.tool(
        &id,
        json!({ "title": "Run the demo test suite", "kind": "execute", "status": "pending" }),
    )?;
    let request = json!({
        "sessionId": turn.session_id(), "title": "Run the demo test suite",
        "subject": { "type": "command", "command": command, "cwd": cwd, "toolCallId": id },
        "options": options("Run", "Always run commands", "Don't run")
    });
    match permission(turn, request).await? {
        Err(stop) => {
            turn.tool_status(&id, "failed")?;
            return Ok(stop);
        }
        Ok(Some(why)) => {
            turn.say(format!("{why} Not running the tests.\n"))?;
            turn.tool_status(&id, "failed")?;
            return Ok(Stop::EndTurn);
        }
        Ok(None) => {}
    }
    turn.update(
        json!({ "sessionUpdate": "terminal_update", "terminalId": terminal, "command": command, "cwd": cwd }),
    )?;
    turn.tool(
        &id,
        json!({ "status": "in_progress", "content": [{ "type": "terminal", "terminalId": terminal }] }),
    )?;
    let mut child = match tokio::process::Command::new("/bin/sh")
        .args(["-c", TEST_SCRIPT])
        .current_dir(&turn.session.base.cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            turn.tool_status(&id, "failed")?;
            turn.say(format!("Could not start the tests: {e}.\n"))?;
            return Ok(Stop::EndTurn);
        }
    };
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    // `terminal/cancel` stops the command; the turn goes on and says so.
    let (stop_tx, mut stop) = tokio::sync::watch::channel(false);
    turn.session
        .terminals
        .lock()
        .unwrap()
        .insert(terminal.clone(), stop_tx);
    let mut stopped = false;
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            _ = stop.changed(), if !stopped => {
                stopped = true;
                let _ = child.kill().await;
                continue;
            }
            _ = turn.cancelled() => {
                let _ = child.kill().await;
                turn.session.terminals.lock().unwrap().remove(&terminal);
                turn.tool_status(&id, "failed")?;
                return Ok(Stop::Cancelled);
            }
        };
        match line {
            Ok(Some(line)) => {
                let data = base64::engine::general_purpose::STANDARD.encode(format!("{line}\n"));
                turn.update(
                    json!({ "sessionUpdate": "terminal_output_chunk", "terminalId": terminal, "data": data }),
                )?;
            }
            Ok(None) => break,
            Err(e) => {
                turn.say(format!("Reading the tests' output failed: {e}.\n"))?;
                break;
            }
        }
    }
    turn.session.terminals.lock().unwrap().remove(&terminal);
    let status = child.wait().await.map_err(Error::into_internal_error)?;
    let exit = status.code();
    let exit_status = match (exit, stopped) {
        (Some(code), _) => json!({ "exitCode": code }),
        (None, true) => json!({ "signal": "SIGKILL" }),
        (None, false) => json!({}),
    };
    turn.update(
        json!({ "sessionUpdate": "terminal_update", "terminalId": terminal, "exitStatus": exit_status }),
    )?;
    turn.tool_status(&id, if exit == Some(0) { "completed" } else { "failed" })?;
    turn.say(match exit {
        _ if stopped => "You stopped the tests (`terminal/cancel`).\n".to_string(),
        Some(0) => "All 3 tests passed.\n".to_string(),
        Some(c) => format!("The tests failed with exit code {c}.\n"),
        None => "The test run ended without an exit code.\n".to_string(),
    })?;
    Ok(Stop::EndTurn)
}

/// `/tools`: each MCP server's tools; `/tools SERVER TOOL {json}`: one call, as a tool call.
async fn tools(turn: &mut Turn, args: &str) -> Result<Stop, Error> {
    let servers = turn.session.base.mcp_servers.clone();
    if servers.is_empty() {
        turn.say("This session was given no MCP servers.")?;
        return Ok(Stop::EndTurn);
    }
    let mut words = args.splitn(3, char::is_whitespace);
    let (server, tool) = (words.next().filter(|w| !w.is_empty()), words.next());
    let Some((server, tool)) = server.zip(tool) else {
        for s in &servers {
            let name = crate::mcp::name(s);
            match crate::mcp::tools(s).await {
                Ok(list) => {
                    let names: Vec<String> = list.iter().map(|(n, _)| code(n)).collect();
                    turn.say(format!("MCP server {}: {}\n\n", code(name), names.join(", ")))?;
                }
                Err(e) => turn.say(format!("MCP server {}: {e}\n\n", code(name)))?,
            }
        }
        return Ok(Stop::EndTurn);
    };
    let Some(target) = servers.iter().find(|s| crate::mcp::name(s) == server) else {
        turn.say(format!("No MCP server named {}.", code(server)))?;
        return Ok(Stop::EndTurn);
    };
    let arguments: Value = match words.next().map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) => match serde_json::from_str(a) {
            Ok(v) => v,
            Err(e) => {
                turn.say(format!("The arguments are not JSON: {e}"))?;
                return Ok(Stop::EndTurn);
            }
        },
        None => json!({}),
    };
    let id = turn.agent.state.tool_call_id("mcp");
    turn.tool(&id, json!({ "title": format!("{server}: {tool}"), "kind": "other", "status": "in_progress", "rawInput": arguments }))?;
    match crate::mcp::call(target, tool, arguments).await {
        Ok(text) => {
            turn.tool_status(&id, "completed")?;
            turn.say(format!("{server} answered: {text}"))?;
        }
        Err(e) => {
            turn.tool_status(&id, "failed")?;
            turn.say(format!("{server} failed: {e}"))?;
        }
    }
    Ok(Stop::EndTurn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_say_what_edited_text_does() {
        let line = "Edited by the Porthole demo agent.";
        assert_eq!(
            append_patch("/w/n", None, line)["text"],
            format!("--- /dev/null\n+++ /w/n\n@@ -0,0 +1 @@\n+{line}\n")
        );
        assert_eq!(
            append_patch("/w/n", Some("a\nb\n"), line)["text"],
            format!("--- /w/n\n+++ /w/n\n@@ -2,0 +3,1 @@\n+{line}\n")
        );
        assert_eq!(
            append_patch("/w/n", Some("a"), line)["text"],
            format!("--- /w/n\n+++ /w/n\n@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+{line}\n")
        );
    }

    #[test]
    fn the_command_list_is_v1_and_v2s_own_and_each_parses_as_v2() {
        let names: Vec<&str> = commands().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "configure",
                "connect",
                "ask",
                "edit",
                "test",
                "tools",
                "slow",
                "subagent",
                "background",
                "compact",
                "notices",
                "cost",
                "retract"
            ]
        );
        typed::<schema::SessionUpdate>(available_commands_update()).unwrap();
        typed::<schema::SessionUpdate>(plan(["completed", "in_progress", "pending"])).unwrap();
    }
}
