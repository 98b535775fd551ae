//! `consent-loop TAG`: dialogs for the crash-consistency and soak tests, without end. Each
//! round asks a form, a permission and a URL elicitation at once (ids and texts carry TAG and
//! the round, so a test can match what the agent got, from `PORTHOLE_TEST_AGENT_LOG`, with the
//! consent history), waits for all three answers, and goes on until stdin closes.

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
