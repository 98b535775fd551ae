//! ACP v2, chosen by the `initialize` the client sends: with `PORTHOLE_TEST_AGENT_V2` set, an
//! `initialize` offering 2 is answered with 2 in v2's shape, and the connection speaks v2 (a
//! `session/prompt` only acknowledges; the turn runs between `state_update`s). Without it the
//! agent answers 1 to any offer, as a v1 agent does, which is how clients' fallback is tested.
//!
//! Each prompt names a scenario; the agent runs it, reports what the client answered as one
//! `agent_message_chunk` (message `report`) whose text is `{"scenario", "results"}`, then goes
//! idle.

use serde_json::{Value, json};

use super::{Agent, reply, reply_error, send};

/// Whether this `initialize` starts a v2 connection.
pub(crate) fn offered(params: &Value) -> bool {
    std::env::var_os("PORTHOLE_TEST_AGENT_V2").is_some() && params["protocolVersion"] == json!(2)
}

/// With `PORTHOLE_TEST_AGENT_REFUSE_V2` set, an offer of 2 is refused with an error (as an
/// agent that checks the version strictly may), and a v1 `initialize` answered as usual.
pub(crate) fn refused(id: &Value, params: &Value) -> bool {
    let refuse =
        std::env::var_os("PORTHOLE_TEST_AGENT_REFUSE_V2").is_some() && params["protocolVersion"] == json!(2);
    if refuse {
        reply_error(id.clone(), -32022, "Unsupported protocol version");
    }
    refuse
}

/// With `PORTHOLE_TEST_AGENT_V1_BODY_FOR_V2` set, an offer of 2 is answered `protocolVersion: 2`
/// with a v1 body (`agentCapabilities`, `agentInfo`), as Factory Droid and Goose do: not a v2
/// answer, so a client falls back to v1 (the agent keeps running).
pub(crate) fn answered_in_v1_shape(id: &Value, params: &Value) -> bool {
    let v1_body = std::env::var_os("PORTHOLE_TEST_AGENT_V1_BODY_FOR_V2").is_some()
        && params["protocolVersion"] == json!(2);
    if v1_body {
        reply(
            id.clone(),
            json!({"protocolVersion": 2,
                "agentInfo": {"name": "porthole-test-agent", "version": "0.0.1"},
                "agentCapabilities": {"loadSession": false, "promptCapabilities": {"image": true}},
                "authMethods": []}),
        );
    }
    v1_body
}

/// The v2 answer to `initialize`: `info` and `capabilities` (v2's names).
pub(crate) fn initialize(id: Value) {
    reply(
        id,
        json!({"protocolVersion": 2,
            "info": {"name": "porthole-test-agent", "title": "Test Agent", "version": "0.0.1"},
            "capabilities": {"session": {"prompt": {"image": true}, "delete": {}, "fork": {}}},
            "authMethods": [{"type": "agent", "methodId": "agent-login", "name": "Agent login"}]}),
    );
}

/// v2's config options: one select (v2 names its id `configId`, v1 `id`).
fn config(model: &str) -> Value {
    json!([{"configId": "model", "name": "Model", "type": "select", "currentValue": model,
        "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}]}])
}

/// One message of a v2 connection; false when it is not one of v2's (answered by the caller).
pub(crate) fn handle(agent: &mut Agent, method: &str, id: Option<Value>, params: &Value) -> bool {
    match (method, id) {
        ("session/new", Some(id)) => {
            agent.session = "v2-session-1".into();
            agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
            reply(id, json!({"sessionId": agent.session}));
        }
        ("session/prompt", Some(id)) => {
            // v2: the prompt is acknowledged at once; its work follows.
            reply(id, json!({"messageId": "user-1"}));
            let text = params["prompt"][0]["text"].as_str().unwrap_or("").to_string();
            let mut results = Vec::new();
            let stop = run(agent, &text, &mut results);
            chunk(
                agent,
                "report",
                &json!({"scenario": text, "results": results}).to_string(),
            );
            state(agent, json!({"state": "idle", "stopReason": stop}));
        }
        ("session/cancel", None) => {}
        ("session/list", Some(id)) => reply(
            id,
            json!({"sessions": [{"sessionId": "v2-old", "cwd": "/w", "title": "Earlier"}]}),
        ),
        ("session/resume", Some(id)) => {
            agent.session = params["sessionId"].as_str().unwrap_or("").to_string();
            // With `replayFrom`, the history first (v2's load).
            if params["replayFrom"]["type"] == "start" {
                agent.update(json!({"sessionUpdate": "user_message", "messageId": "old-u",
                    "content": [{"type": "text", "text": "earlier question"}]}));
            }
            reply(id, json!({"configOptions": config("fast")}));
        }
        ("session/close" | "session/delete" | "auth/logout", Some(id)) => reply(id, json!({})),
        ("session/fork", Some(id)) => {
            let forked = format!("{}-fork", params["sessionId"].as_str().unwrap_or(""));
            reply(id, json!({"sessionId": forked, "configOptions": config("fast")}));
        }
        ("tool_call/cancel" | "terminal/cancel", Some(id)) => reply(id, json!({})),
        ("session/set_config_option", Some(id)) => match (&params["type"], params["value"].as_str()) {
            (t, Some(v @ ("fast" | "deep"))) if t == "id" => reply(id, json!({"configOptions": config(v)})),
            _ => reply_error(id, -32602, "bad config option"),
        },
        ("auth/login", Some(id)) if params["methodId"] == "agent-login" => reply(id, json!({})),
        ("auth/login", Some(id)) => reply_error(id, -32602, "unknown auth method"),
        ("session/load" | "fs/read_text_file", Some(id)) => reply_error(id, -32601, "method not found"),
        _ => return false,
    }
    true
}

fn state(agent: &Agent, state: Value) {
    let mut update = json!({"sessionUpdate": "state_update"});
    super::merge(&mut update, state);
    agent.update(update);
}

fn chunk(agent: &Agent, message_id: &str, text: &str) {
    agent.update(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": message_id,
        "content": {"type": "text", "text": text}}),
    );
}

fn running(agent: &Agent) {
    state(agent, json!({"state": "running"}));
}

/// Runs scenario `name`; returns the stop reason of its `idle`.
fn run(agent: &mut Agent, name: &str, results: &mut Vec<Value>) -> &'static str {
    match name {
        // Upserts by messageId: chunks append, a list replaces, a left-out content keeps,
        // `null` clears, and an id never seen creates the message.
        "v2-upserts" => {
            running(agent);
            chunk(agent, "m1", "Hel");
            chunk(agent, "m1", "lo");
            agent.update(json!({"sessionUpdate": "agent_message", "messageId": "m1",
                "content": [{"type": "text", "text": "Hello, edited"}]}));
            agent.update(json!({"sessionUpdate": "agent_message", "messageId": "m1",
                "_meta": {"note": "content left out"}}));
            agent.update(json!({"sessionUpdate": "agent_thought", "messageId": "t1", "content": null}));
            agent.update(json!({"sessionUpdate": "agent_message", "messageId": "m2",
                "content": [{"type": "text", "text": "fresh"}]}));
            "end_turn"
        }
        // Running, then waiting for the user (a permission about a tool call), then running on.
        "v2-permission" => {
            running(agent);
            agent.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc1",
                "title": "Edit a.rs", "kind": "edit", "status": "pending"}));
            state(agent, json!({"state": "requires_action"}));
            let answer = agent.call(
                "session/request_permission",
                json!({"sessionId": agent.session, "title": "Edit a.rs?",
                    "subject": {"type": "tool_call", "toolCall": {"toolCallId": "tc1"}},
                    "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}),
            );
            results.push(answer);
            running(agent);
            agent.update(
                json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "tc1",
                "content": {"type": "content", "content": {"type": "text", "text": "one "}}}),
            );
            agent.update(
                json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "tc1",
                "content": {"type": "content", "content": {"type": "text", "text": "two"}}}),
            );
            agent.update(
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "tc1", "status": "completed"}),
            );
            "end_turn"
        }
        // A permission about a command (v2's other subject).
        "v2-command-permission" => {
            running(agent);
            let answer = agent.call(
                "session/request_permission",
                json!({"sessionId": agent.session, "title": "Run the tests?",
                    "subject": {"type": "command", "command": "cargo test", "cwd": agent.cwd},
                    "options": [{"optionId": "yes", "name": "Run", "kind": "allow_once"},
                                {"optionId": "no", "name": "Skip", "kind": "reject_once"}]}),
            );
            results.push(answer);
            "end_turn"
        }
        // Questions as forms and URLs, session-scoped (v2: exactly one scope).
        "v2-form" => {
            running(agent);
            let answer = agent.call("elicitation/create", agent.form(json!({})));
            results.push(answer);
            "end_turn"
        }
        "v2-url" => {
            running(agent);
            let answer = agent.call("elicitation/create", agent.url("v2-e1", "https://example.com/v2"));
            send(json!({"jsonrpc": "2.0", "method": "elicitation/complete",
                "params": {"elicitationId": "v2-e1"}}));
            results.push(answer);
            "end_turn"
        }
        // Both scopes at once: refused by the client.
        "v2-two-scopes" => {
            running(agent);
            let answer = agent.call("elicitation/create", agent.form(json!({"requestId": 7})));
            results.push(answer);
            "end_turn"
        }
        // A state this client does not know: busy, not idle; then more output.
        "v2-unknown-state" => {
            state(agent, json!({"state": "_compacting"}));
            std::thread::sleep(std::time::Duration::from_millis(100));
            chunk(agent, "m1", "still working");
            "end_turn"
        }
        // A stale idle before the work starts does not end the turn.
        "v2-stale-idle" => {
            state(agent, json!({"state": "idle"}));
            running(agent);
            chunk(agent, "m1", "after the stale idle");
            "end_turn"
        }
        // A kind the client does not model (an extension), beside kinds it does: a subagent
        // (unstable in the schema), the plan, a notice.
        "v2-unknown-kinds" => {
            running(agent);
            agent.update(json!({"sessionUpdate": "_porthole_test", "payload": 1}));
            agent.update(
                json!({"sessionUpdate": "subagent_update", "sessionId": "child-1", "title": "Helper"}),
            );
            agent.update(
                json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1",
                "entries": [{"content": "Write the test", "priority": "high", "status": "in_progress"}]}}),
            );
            agent.update(json!({"sessionUpdate": "notice", "severity": "warning", "title": "Heads up"}));
            "end_turn"
        }
        // Malformed: null where required, a wrong type. The client refuses them and goes on.
        "v2-malformed" => {
            running(agent);
            agent.update(json!({"sessionUpdate": "agent_message", "messageId": null, "content": []}));
            agent.update(json!({"sessionUpdate": "tool_call_update", "toolCallId": 5}));
            // Read by Porthole's own types (the schema's are behind a feature): no `sessionId`.
            agent.update(json!({"sessionUpdate": "subagent_update", "title": "no session"}));
            send(json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": 3}}));
            chunk(agent, "m1", "still here");
            "end_turn"
        }
        // Work until the client cancels: then idle with `cancelled`.
        "v2-cancel" => {
            running(agent);
            chunk(agent, "m1", "waiting for a cancel");
            if agent.wait_for_cancel(std::time::Duration::from_secs(10)) {
                "cancelled"
            } else {
                "end_turn"
            }
        }
        // More lines than the client lets its SDK connection fall behind by (its barrier).
        "v2-flood" => {
            running(agent);
            for i in 0..500 {
                chunk(agent, "flood", &format!("{i} "));
            }
            "end_turn"
        }
        // Background work listed with the state.
        "v2-background" => {
            state(
                agent,
                json!({"state": "running", "background": [
                {"type": "tool_call", "toolCallId": "bg-1"},
                {"type": "_indexing", "title": "Indexing the workspace"}]}),
            );
            "end_turn"
        }
        other => {
            chunk(agent, "m1", &format!("unknown v2 scenario {other}"));
            "end_turn"
        }
    }
}
