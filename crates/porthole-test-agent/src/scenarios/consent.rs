//! Dialogs for the crash-consistency and soak tests.
//!
//! `consent-loop TAG` asks without end: each round a form, a permission and a URL elicitation
//! at once (ids and texts carry TAG and the round, so a test can match what the agent got, from
//! `PORTHOLE_TEST_AGENT_LOG`, with the consent history), waits for all three answers, and goes
//! on until stdin closes. `timeout-form SECS` asks once and gives up after SECS seconds.

use super::super::*;

/// `consent-loop`
pub(crate) fn consent_loop(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    let tag = arg.unwrap_or(0);
    for round in 0u64.. {
        let key = format!("{tag}-{round}");
        let form = agent.form(json!({"message": format!("consent form {key}")}));
        let permission = json!({"sessionId": agent.session,
            "toolCall": {"toolCallId": format!("tc-{key}"), "title": format!("consent permission {key}"), "kind": "edit"},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                        {"optionId": "no", "name": "Reject", "kind": "reject_once"}]});
        let mut url = agent.url(
            &format!("el-{key}"),
            &format!("https://example.com/login?round={round}"),
        );
        url["message"] = json!(format!("consent url {key}"));
        let ids = [format!("cf-{key}"), format!("cp-{key}"), format!("cu-{key}")];
        for (id, (method, params)) in ids.iter().zip([
            ("elicitation/create", form),
            ("session/request_permission", permission),
            ("elicitation/create", url),
        ]) {
            send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        }
        agent.responses_to(&ids);
    }
}

impl Agent {
    /// Wait for the answers to the string `ids`, keeping everything else for later.
    fn responses_to(&mut self, ids: &[String]) {
        let mut waiting: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
        while !waiting.is_empty() {
            let v = self.recv();
            match v.get("id").and_then(Value::as_str) {
                Some(id) if v.get("method").is_none() && waiting.remove(id) => {}
                _ => {
                    if v.get("method") == Some(&json!("session/cancel")) {
                        return;
                    }
                }
            }
        }
    }
}

/// `timeout-form SECS`: a form nobody answers in time: after SECS seconds (default 2) the agent
/// gives up and withdraws it (`$/cancel_request`), as an agent with a timeout would.
pub(crate) fn timeout_form(agent: &mut Agent, arg: Option<u64>, results: &mut Vec<Value>) {
    let secs = arg.unwrap_or(2);
    let p = agent.form(json!({"message": format!("Answer within {secs} s")}));
    let id = agent.request("elicitation/create", p);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    // An answer in time ends the wait; anything else is kept for later.
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match agent.incoming.recv_timeout(left) {
            Ok(v) if v.get("method").is_none() && v.get("id") == Some(&json!(id)) => {
                results.push(strip(v));
                return;
            }
            Ok(v) => agent.backlog.push_back(v),
            Err(mpsc::RecvTimeoutError::Timeout) => break,
            Err(mpsc::RecvTimeoutError::Disconnected) => std::process::exit(0),
        }
    }
    send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":id}}));
    results.push(strip(agent.response(id)));
}
