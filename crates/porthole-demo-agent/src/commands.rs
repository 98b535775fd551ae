//! The deterministic behaviour of each prompt: free text and slash commands.

use std::time::Duration;

use agent_client_protocol::Error;
use serde_json::{Map, Value, json};

use crate::forms;
use crate::signin::Outcome;
use crate::turn::{Reply, Turn};

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    EndTurn,
    Cancelled,
}

/// Slash commands advertised in `available_commands_update`.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "configure",
        "Configure the demo project with a form that uses every elicitation field type",
    ),
    (
        "connect",
        "Sign in to the Porthole Demo service in your browser (URL elicitation)",
    ),
    (
        "ask",
        "Ask a request-scoped question, then (wrongly) ask for a secret in a form",
    ),
    (
        "edit",
        "Propose an edit to notes.txt and ask permission before writing it",
    ),
    (
        "test",
        "Run the demo test suite in a terminal, after asking permission",
    ),
    (
        "tools",
        "List the tools of the MCP servers this session was given; `/tools SERVER TOOL {json}` calls one",
    ),
    (
        "slow",
        "Stream a slow answer for about 6 seconds (try cancelling it)",
    ),
];

/// The `available_commands_update` session update.
pub fn available_commands_update() -> Value {
    let commands: Vec<Value> = COMMANDS
        .iter()
        .map(|(name, description)| json!({ "name": name, "description": description }))
        .collect();
    json!({ "sessionUpdate": "available_commands_update", "availableCommands": commands })
}

/// Splits `/name rest` into `("name", "rest")`.
pub fn parse_command(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    (!name.is_empty()).then_some((name, args.trim()))
}

/// Runs one prompt turn.
pub async fn run(turn: &mut Turn, text: &str) -> Result<Stop, Error> {
    match parse_command(text) {
        Some(("configure", _)) => configure(turn).await,
        Some(("connect", _)) => connect(turn).await,
        Some(("ask", _)) => ask(turn).await,
        Some(("edit", _)) => edit(turn).await,
        Some(("slow", _)) => slow(turn).await,
        Some(("test", _)) => test(turn).await,
        Some(("tools", args)) => tools(turn, args).await,
        Some((other, _)) => {
            let mut msg = format!("Unknown command `/{other}`. Available commands:\n\n");
            for (name, description) in COMMANDS {
                msg.push_str(&format!("- `/{name}` — {description}\n"));
            }
            turn.say(msg)?;
            Ok(Stop::EndTurn)
        }
        None => chat(turn, text).await,
    }
}

/// Formats a JSON value as an inline code span, whatever it contains.
pub(crate) fn code(value: &str) -> String {
    if value.contains('`') {
        format!("`` {value} ``")
    } else {
        format!("`{value}`")
    }
}

pub(crate) fn error_text(e: &Error) -> String {
    format!(
        "JSON-RPC error {}: {}",
        i32::from(e.code),
        if e.message.is_empty() {
            "(no message)"
        } else {
            &e.message
        }
    )
}

/// `/tools`: each MCP server's tools; `/tools SERVER TOOL {json}`: one call, as a tool call.
async fn tools(turn: &mut Turn, args: &str) -> Result<Stop, Error> {
    let servers = turn.session.mcp_servers.clone();
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
    let id = turn.agent.tool_call_id("mcp");
    turn.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": format!("{server}: {tool}"),
        "kind": "other", "status": "in_progress", "rawInput": arguments}),
    )?;
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

/// The streamed reply to free text (v1 and v2 say the same).
pub(crate) fn chat_chunks(text: &str) -> Vec<String> {
    let quoted: String = if text.trim().is_empty() {
        "> (empty prompt)\n".to_owned()
    } else {
        text.trim().lines().map(|l| format!("> {l}\n")).collect()
    };
    vec![
        "## Porthole demo reply\n\n".to_owned(),
        format!("You said:\n\n{quoted}\n"),
        "This deterministic demo agent can show you:\n\n".to_owned(),
        "- streaming **markdown** in several chunks\n".to_owned(),
        "- a *plan* with three entries and a thought\n".to_owned(),
        "- slash commands such as `/configure`, `/connect` and `/edit`\n\n".to_owned(),
        "A fenced code block:\n\n```rust\nfn main() {\n    println!(\"Hello from Porthole!\");\n}\n```\n\n"
            .to_owned(),
        format!(
            "Your message has {} character(s). Type `/` to see the commands.\n",
            text.trim().chars().count()
        ),
    ]
}

/// Free text: streamed markdown, a thought and a plan.
async fn chat(turn: &mut Turn, text: &str) -> Result<Stop, Error> {
    let words = text.split_whitespace().count();
    turn.think(format!(
        "The user wrote {words} word(s). There is no model here, so I reply with a fixed demo answer that echoes the prompt."
    ))?;
    turn.update(json!({
        "sessionUpdate": "plan",
        "entries": [
            { "content": "Read the prompt", "priority": "high", "status": "completed" },
            { "content": "Compose a markdown reply", "priority": "medium", "status": "in_progress" },
            { "content": "Suggest slash commands to try", "priority": "low", "status": "pending" }
        ]
    }))?;
    let chunks = chat_chunks(text);
    for chunk in chunks {
        if !turn.sleep(30).await {
            return Ok(Stop::Cancelled);
        }
        turn.say(chunk)?;
    }
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

pub(crate) fn action_of(response: &Value) -> (&str, Option<&Map<String, Value>>) {
    let action = response
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("(missing)");
    // `content` is only meaningful for accept; omitted and null are equal.
    let content = (action == "accept")
        .then(|| response.get("content").and_then(Value::as_object))
        .flatten();
    (action, content)
}

/// Markdown list of exactly the received content, one `key: value` per line.
pub fn content_summary(content: &Map<String, Value>) -> String {
    let mut out = String::new();
    for (key, value) in content {
        out.push_str(&format!("- {}: {}\n", code(key), code(&value.to_string())));
    }
    out
}

/// Markdown report of the agent-side validation.
pub fn validation_report(schema: &Value, content: &Map<String, Value>) -> String {
    let errors = forms::validate_content(schema, content);
    if errors.is_empty() {
        "Agent-side validation: all values conform to the requested schema.\n".to_owned()
    } else {
        let mut out = format!("Agent-side validation found {} problem(s):\n\n", errors.len());
        for e in errors {
            out.push_str(&format!("- {e}\n"));
        }
        out
    }
}

/// `/configure`: a session-scoped form tied to a tool call.
async fn configure(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.caps().form {
        let mut msg = "This client does not support form elicitation, so /configure cannot ask you; using defaults instead.\n\n".to_owned();
        msg.push_str(&content_summary(&forms::defaults(&forms::configure_schema())));
        turn.say(msg)?;
        return Ok(Stop::EndTurn);
    }
    let tool_call_id = turn.agent.tool_call_id("configure");
    turn.update(json!({
        "sessionUpdate": "tool_call",
        "toolCallId": tool_call_id,
        "title": "Configure project",
        "kind": "other",
        "status": "pending"
    }))?;
    turn.tool_status(&tool_call_id, "in_progress")?;
    let schema = forms::configure_schema();
    let params = json!({
        "sessionId": turn.session_id(),
        "toolCallId": tool_call_id,
        "mode": "form",
        "message": "Configure the demo project",
        "requestedSchema": schema.clone()
    });
    match turn.request("elicitation/create", params).await {
        Reply::Cancelled => {
            turn.tool_status(&tool_call_id, "failed")?;
            Ok(Stop::Cancelled)
        }
        Reply::Err(e) => {
            turn.say(format!(
                "The client answered the configuration form with {}.\n",
                error_text(&e)
            ))?;
            turn.tool_status(&tool_call_id, "failed")?;
            Ok(Stop::EndTurn)
        }
        Reply::Ok(response) => {
            let (action, content) = action_of(&response);
            match action {
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
                    let valid = forms::validate_content(&schema, content).is_empty();
                    msg.push_str(&validation_report(&schema, content));
                    turn.say(msg)?;
                    let status = if valid { "completed" } else { "failed" };
                    turn.tool_status(&tool_call_id, status)?;
                }
                "decline" => {
                    turn.say("You declined the configuration form.\n")?;
                    turn.tool_status(&tool_call_id, "failed")?;
                }
                "cancel" => {
                    turn.say("You cancelled the configuration form.\n")?;
                    turn.tool_status(&tool_call_id, "failed")?;
                }
                other => {
                    turn.say(format!(
                        "The client answered with an unknown action {}.\n",
                        code(other)
                    ))?;
                    turn.tool_status(&tool_call_id, "failed")?;
                }
            }
            Ok(if turn.is_cancelled() {
                Stop::Cancelled
            } else {
                Stop::EndTurn
            })
        }
    }
}

/// `/connect`: URL-mode sign-in through the local demo service.
async fn connect(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.caps().url {
        turn.say(
            "This client does not support URL elicitation, so /connect cannot open the sign-in page. \
             Signing in is never requested through a form: the spec forbids falling back to form mode for credentials.\n",
        )?;
        return Ok(Stop::EndTurn);
    }
    let service = match turn.agent.signin() {
        Ok(s) => s,
        Err(e) => {
            turn.say(format!("Could not start the sign-in service: {e}\n"))?;
            return Ok(Stop::EndTurn);
        }
    };
    let tool_call_id = turn.agent.tool_call_id("connect");
    turn.update(json!({
        "sessionUpdate": "tool_call",
        "toolCallId": tool_call_id,
        "title": "Connect to the Porthole Demo service",
        "kind": "fetch",
        "status": "in_progress"
    }))?;

    let (state, outcome) = service.begin();
    let elicitation_id = turn.agent.elicitation_id("demo-signin");
    let url = service.authorize_url(&state);
    eprintln!("porthole-demo-agent: {elicitation_id} sign-in URL: {url}");
    let params = json!({
        "sessionId": turn.session_id(),
        "toolCallId": tool_call_id,
        "mode": "url",
        "elicitationId": elicitation_id,
        "url": url,
        "message": "Sign in to the Porthole Demo service to connect your account."
    });
    let response = turn.request("elicitation/create", params).await;
    let finish = |turn: &Turn, msg: &str, status: &str| -> Result<(), Error> {
        service.forget(&state);
        turn.say(msg)?;
        turn.tool_status(&tool_call_id, status)
    };
    let response = match response {
        Reply::Cancelled => {
            service.forget(&state);
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::Cancelled);
        }
        Reply::Err(e) => {
            finish(
                turn,
                &format!(
                    "The client answered the sign-in request with {}.\n",
                    error_text(&e)
                ),
                "failed",
            )?;
            return Ok(Stop::EndTurn);
        }
        Reply::Ok(v) => v,
    };
    match action_of(&response).0 {
        "accept" => {}
        "decline" => {
            finish(
                turn,
                "You declined to sign in to the Porthole Demo service.\n",
                "failed",
            )?;
            return Ok(Stop::EndTurn);
        }
        "cancel" => {
            finish(
                turn,
                "You cancelled the sign-in to the Porthole Demo service.\n",
                "failed",
            )?;
            return Ok(Stop::EndTurn);
        }
        other => {
            finish(
                turn,
                &format!("The client answered with an unknown action {}.\n", code(other)),
                "failed",
            )?;
            return Ok(Stop::EndTurn);
        }
    }

    // `accept` only means the user agreed to open the URL.
    turn.say("Waiting for you to finish signing in…\n\n")?;
    let result = tokio::select! {
        r = outcome => Some(r.ok()),
        _ = tokio::time::sleep(Duration::from_secs(300)) => None,
        _ = turn.cancelled() => {
            service.forget(&state);
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::Cancelled);
        }
    };
    service.forget(&state);
    match result {
        Some(Some(outcome)) => {
            // The external interaction finished either way, so tell the
            // client it can stop waiting. Only the id is sent: nothing
            // obtained in the browser (cookie, state) ever goes over ACP.
            turn.notify("elicitation/complete", json!({ "elicitationId": elicitation_id }))?;
            if outcome == Outcome::Authorized {
                turn.say("Connected to the Porthole Demo service.\n")?;
                turn.tool_status(&tool_call_id, "completed")?;
            } else {
                turn.say("You denied access to the Porthole Demo service.\n")?;
                turn.tool_status(&tool_call_id, "failed")?;
            }
        }
        Some(None) => {
            turn.say("The sign-in service stopped before you finished.\n")?;
            turn.tool_status(&tool_call_id, "failed")?;
        }
        None => {
            turn.say("Sign-in timed out after 5 minutes; the link is no longer valid.\n")?;
            turn.tool_status(&tool_call_id, "failed")?;
        }
    }
    Ok(Stop::EndTurn)
}

/// `/ask`: a request-scoped form, then a (deliberately wrong) secret form.
async fn ask(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.caps().form {
        turn.say("This client does not support form elicitation, so /ask cannot ask you anything.\n")?;
        return Ok(Stop::EndTurn);
    }
    // 1. Request-scoped: tied to the `session/prompt` request in flight.
    let schema = forms::workspace_schema();
    let params = json!({
        "requestId": turn.prompt_request_id,
        "mode": "form",
        "message": "What is the name of your workspace?",
        "requestedSchema": schema.clone()
    });
    let mut msg = format!(
        "**Question 1** (request-scoped, `requestId` = {}): ",
        code(&turn.prompt_request_id.to_string())
    );
    match turn.request("elicitation/create", params).await {
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(e) => msg.push_str(&format!("{}.\n\n", error_text(&e))),
        Reply::Ok(response) => {
            let (action, content) = action_of(&response);
            msg.push_str(&format!("action {}", code(action)));
            if let Some(content) = content {
                msg.push_str(&format!(
                    ", content {}\n\n",
                    code(&Value::Object(content.clone()).to_string())
                ));
                msg.push_str(&validation_report(&schema, content));
            } else if action == "accept" {
                msg.push_str(", no content\n\n");
                msg.push_str(&validation_report(&schema, &Map::new()));
            } else {
                msg.push('\n');
            }
            msg.push('\n');
        }
    }
    turn.say(msg)?;

    // 2. Session-scoped form asking for a secret. This violates the spec on
    //    purpose so the client can show its `secret-request` warning.
    let params = json!({
        "sessionId": turn.session_id(),
        "mode": "form",
        "message": "Paste your API token",
        "requestedSchema": forms::secret_schema()
    });
    let mut msg =
        "**Question 2** (session-scoped form asking for a secret — this violates the spec on purpose): "
            .to_owned();
    match turn.request("elicitation/create", params).await {
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(e) => msg.push_str(&format!("{}.\n", error_text(&e))),
        Reply::Ok(response) => {
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

const EDIT_LINE: &str = "Edited by the Porthole demo agent.";

/// The new text of notes.txt: the old text plus one line.
pub fn edited_text(old: Option<&str>) -> String {
    let mut new = old.unwrap_or("").to_owned();
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(EDIT_LINE);
    new.push('\n');
    new
}

/// `/edit`: a diff tool call, a permission request, then `fs/write_text_file`.
async fn edit(turn: &mut Turn) -> Result<Stop, Error> {
    let path = turn.session.cwd.join("notes.txt");
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
    let tool_call_id = turn.agent.tool_call_id("edit");
    let content = json!([{
        "type": "diff",
        "path": path_str,
        "oldText": old,
        "newText": new
    }]);
    let locations = json!([{ "path": path_str }]);
    turn.update(json!({
        "sessionUpdate": "tool_call",
        "toolCallId": tool_call_id,
        "title": "Edit notes.txt",
        "kind": "edit",
        "status": "pending",
        "content": content,
        "locations": locations
    }))?;
    let params = json!({
        "sessionId": turn.session_id(),
        "toolCall": {
            "toolCallId": tool_call_id,
            "title": "Edit notes.txt",
            "kind": "edit",
            "status": "pending",
            "content": content,
            "locations": locations
        },
        "options": [
            { "optionId": "allow_once", "name": "Allow", "kind": "allow_once" },
            { "optionId": "allow_always", "name": "Always allow", "kind": "allow_always" },
            { "optionId": "reject_once", "name": "Reject", "kind": "reject_once" }
        ]
    });
    let response = match turn.request("session/request_permission", params).await {
        Reply::Cancelled => {
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::Cancelled);
        }
        Reply::Err(e) => {
            turn.say(format!(
                "The permission request failed with {}.\n",
                error_text(&e)
            ))?;
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::EndTurn);
        }
        Reply::Ok(v) => v,
    };
    let outcome = response
        .pointer("/outcome/outcome")
        .and_then(Value::as_str)
        .unwrap_or("");
    let option = response
        .pointer("/outcome/optionId")
        .and_then(Value::as_str)
        .unwrap_or("");
    match (outcome, option) {
        ("selected", "allow_once" | "allow_always") => {}
        ("selected", "reject_once") => {
            turn.say("You rejected the edit; notes.txt was not changed.\n")?;
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::EndTurn);
        }
        ("cancelled", _) => {
            turn.say("The permission request was cancelled; notes.txt was not changed.\n")?;
            turn.tool_status(&tool_call_id, "failed")?;
            // Give an in-flight `session/cancel` a moment to be recorded.
            let _ = turn.sleep(20).await;
            return Ok(if turn.is_cancelled() {
                Stop::Cancelled
            } else {
                Stop::EndTurn
            });
        }
        _ => {
            turn.say(format!(
                "The client answered the permission request with an unexpected outcome {}; notes.txt was not changed.\n",
                code(&response.to_string())
            ))?;
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::EndTurn);
        }
    }
    if !turn.agent.caps().write_text_file {
        turn.say(
            "You allowed the edit, but this client did not advertise `fs.writeTextFile`, so I cannot write the file.\n",
        )?;
        turn.tool_status(&tool_call_id, "failed")?;
        return Ok(Stop::EndTurn);
    }
    turn.tool_status(&tool_call_id, "in_progress")?;
    let params = json!({ "sessionId": turn.session_id(), "path": path_str, "content": new });
    match turn.request("fs/write_text_file", params).await {
        Reply::Cancelled => {
            turn.tool_status(&tool_call_id, "failed")?;
            Ok(Stop::Cancelled)
        }
        Reply::Err(e) => {
            turn.say(format!(
                "Writing {} failed with {}.\n",
                code(&path_str),
                error_text(&e)
            ))?;
            turn.tool_status(&tool_call_id, "failed")?;
            Ok(Stop::EndTurn)
        }
        Reply::Ok(_) => {
            turn.say(format!("Wrote {} through the client.\n", code(&path_str)))?;
            turn.tool_status(&tool_call_id, "completed")?;
            Ok(Stop::EndTurn)
        }
    }
}

/// What `/test` runs: a few seconds of output, like a test runner.
pub(crate) const TEST_SCRIPT: &str =
    "for t in parser lexer printer; do echo \"test $t ... ok\"; sleep 0.3; done; echo '3 passed'";

/// `/test`: an `execute` tool call that asks permission, then runs in a client terminal
/// embedded in the tool call, waits for its exit and releases it.
async fn test(turn: &mut Turn) -> Result<Stop, Error> {
    if !turn.agent.caps().terminal {
        turn.say("This client did not advertise `terminal`, so I cannot run commands.\n")?;
        return Ok(Stop::EndTurn);
    }
    let tool_call_id = turn.agent.tool_call_id("test");
    let title = "Run the demo test suite";
    turn.update(json!({
        "sessionUpdate": "tool_call", "toolCallId": tool_call_id, "title": title,
        "kind": "execute", "status": "pending"
    }))?;
    let params = json!({
        "sessionId": turn.session_id(),
        "toolCall": { "toolCallId": tool_call_id, "title": title, "kind": "execute" },
        "options": [
            { "optionId": "allow_once", "name": "Run", "kind": "allow_once" },
            { "optionId": "allow_always", "name": "Always run commands", "kind": "allow_always" },
            { "optionId": "reject_once", "name": "Don't run", "kind": "reject_once" }
        ]
    });
    let allowed = match turn.request("session/request_permission", params).await {
        Reply::Ok(v) => {
            v.pointer("/outcome/outcome").and_then(Value::as_str) == Some("selected")
                && v.pointer("/outcome/optionId")
                    .and_then(Value::as_str)
                    .is_some_and(|o| o.starts_with("allow"))
        }
        Reply::Cancelled => {
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::Cancelled);
        }
        Reply::Err(_) => false,
    };
    if !allowed {
        turn.say("Not running the tests.\n")?;
        turn.tool_status(&tool_call_id, "failed")?;
        return Ok(Stop::EndTurn);
    }
    let created = turn
        .request(
            "terminal/create",
            json!({ "sessionId": turn.session_id(), "command": "/bin/sh", "args": ["-c", TEST_SCRIPT],
                    "outputByteLimit": 65536 }),
        )
        .await;
    let terminal_id = match created {
        Reply::Ok(v) => v["terminalId"].as_str().unwrap_or_default().to_string(),
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(e) => {
            turn.say(format!("Could not start a terminal: {}.\n", error_text(&e)))?;
            turn.tool_status(&tool_call_id, "failed")?;
            return Ok(Stop::EndTurn);
        }
    };
    turn.update(json!({
        "sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, "status": "in_progress",
        "content": [{ "type": "terminal", "terminalId": terminal_id }]
    }))?;
    let ids = json!({ "sessionId": turn.session_id(), "terminalId": terminal_id });
    let exit = turn.request("terminal/wait_for_exit", ids.clone()).await;
    let _ = turn.request("terminal/release", ids).await;
    let code = match exit {
        Reply::Ok(v) => v["exitCode"].as_i64(),
        Reply::Cancelled => return Ok(Stop::Cancelled),
        Reply::Err(_) => None,
    };
    let passed = code == Some(0);
    turn.tool_status(&tool_call_id, if passed { "completed" } else { "failed" })?;
    turn.say(match code {
        Some(0) => "All 3 tests passed.\n".to_string(),
        Some(c) => format!("The tests failed with exit code {c}.\n"),
        None => "The test run ended without an exit code.\n".to_string(),
    })?;
    Ok(Stop::EndTurn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands() {
        assert_eq!(parse_command("/configure"), Some(("configure", "")));
        assert_eq!(parse_command("  /slow now please "), Some(("slow", "now please")));
        assert_eq!(parse_command("hello /x"), None);
        assert_eq!(parse_command("/"), None);
    }

    #[test]
    fn commands_update_lists_all() {
        let v = available_commands_update();
        let names: Vec<&str> = v["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["configure", "connect", "ask", "edit", "test", "tools", "slow"]
        );
        assert!(v["availableCommands"][0]["description"].is_string());
    }

    #[test]
    fn edit_text() {
        assert_eq!(edited_text(None), format!("{EDIT_LINE}\n"));
        assert_eq!(edited_text(Some("a")), format!("a\n{EDIT_LINE}\n"));
        assert_eq!(edited_text(Some("a\n")), format!("a\n{EDIT_LINE}\n"));
    }

    #[test]
    fn summary_is_exact() {
        let content = json!({"a": "x`y", "b": 1.5, "c": ["p"]});
        let s = content_summary(content.as_object().unwrap());
        assert_eq!(s, "- `a`: `` \"x`y\" ``\n- `b`: `1.5`\n- `c`: `[\"p\"]`\n");
    }
}
