//! Elicitation scenarios: valid and hostile `elicitation/create` requests, scopes, URL ids, bounds.

use super::super::*;

/// `form`
pub(crate) fn form(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let p = agent.form(json!({"toolCallId":"tc-1"}));
    results.push(agent.call("elicitation/create", p));
}

/// `modes`
pub(crate) fn modes(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let f = agent.form(json!({}));
    results.push(agent.call("elicitation/create", f));
    let u = agent.url("m-1", "https://example.com/connect");
    results.push(agent.call("elicitation/create", u));
}

/// `hostile-requests`
pub(crate) fn hostile_requests(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let cases = vec![
        agent.form(json!({"mode":"_sms"})),
        agent.form(json!({"sessionId":"not-a-session"})),
        {
            let mut p = agent.form(json!({}));
            p.as_object_mut().map(|o| o.remove("sessionId"));
            p
        },
        {
            // Not a JSON-RPC id.
            let mut p = agent.form(json!({}));
            p.as_object_mut().map(|o| o.remove("sessionId"));
            p["requestId"] = json!(1.5);
            p
        },
        // Both scopes at once.
        agent.form(json!({"requestId": 987654})),
        agent.form(json!({"requestedSchema":{"type":"object","properties":null}})),
        agent.url("h-1", "https://user:secret@example.com/"),
        agent.url("h-2", "javascript:alert(1)"),
        agent.url("h-3", "file:///etc/passwd"),
        agent.url("h-4", "/relative/path"),
        json!({"sessionId": agent.session, "mode":"url", "url":"https://example.com/"}),
    ];
    for c in cases {
        results.push(agent.call("elicitation/create", c));
    }
}

/// `request-scope`
pub(crate) fn request_scope(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let mut p = agent.form(json!({}));
    p.as_object_mut().map(|o| o.remove("sessionId"));
    p["requestId"] = agent.prompt_id.clone();
    results.push(agent.call("elicitation/create", p));
}

/// `agent-level-request`
pub(crate) fn agent_level_request(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    // A request id that names no request of the client: an agent-level question.
    let mut p = agent.form(json!({}));
    p.as_object_mut().map(|o| o.remove("sessionId"));
    p["requestId"] = json!("agent-setup-1");
    results.push(agent.call("elicitation/create", p));
}

/// `url-lifecycle`
pub(crate) fn url_lifecycle(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let a = agent.url("dup", "https://accounts.example.com/a?state=1");
    results.push(agent.call("elicitation/create", a.clone()));
    // Outstanding (accepted, not completed): a second request with the same id is refused.
    results.push(agent.call("elicitation/create", a.clone()));
    send(json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"dup"}}));
    send(json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"dup"}}));
    send(json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"never-seen"}}));
    // Completed: the id is free again.
    results.push(agent.call("elicitation/create", a));
    let warn = agent.url("w", "http://xn--80ak6aa92e.com:8443/x");
    results.push(agent.call("elicitation/create", warn));
}

/// `secret`
pub(crate) fn secret(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let p = agent.form(json!({"message":"Enter your password",
            "requestedSchema":{"type":"object","properties":{"password":{"type":"string","title":"Password"}},"required":["password"]}}));
    results.push(agent.call("elicitation/create", p));
}

/// `unsupported-required`
pub(crate) fn unsupported_required(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let p = agent.form(json!({"requestedSchema":{"type":"object","properties":{"blob":{"type":"_custom"}},"required":["blob"]}}));
    results.push(agent.call("elicitation/create", p));
}

/// `concurrent`
pub(crate) fn concurrent(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let ids: Vec<i64> = (0..50)
        .map(|i| {
            let p = agent.form(json!({"toolCallId": format!("tc-{i}")}));
            agent.request("elicitation/create", p)
        })
        .collect();
    for id in ids {
        results.push(strip(agent.response(id)));
    }
    // Exactly one response per id: nothing else may arrive for them.
}

/// `withdraw`
pub(crate) fn withdraw(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    // Ask, then withdraw the request before anyone answers.
    let p = agent.form(json!({}));
    let id = agent.request("elicitation/create", p);
    std::thread::sleep(std::time::Duration::from_millis(200));
    send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":id}}));
    results.push(strip(agent.response(id)));
}

/// `huge`
pub(crate) fn huge(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let big = "A".repeat(17 * 1024 * 1024);
    let id = agent.next_id;
    agent.next_id += 1;
    write_line(&format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"elicitation/create\",\"params\":{{\"sessionId\":\"{}\",\"mode\":\"form\",\"message\":\"{big}\",\"requestedSchema\":{{}}}}}}",
        agent.session
    ));
    results.push(strip(agent.response(id)));
    let p = agent.form(json!({}));
    results.push(agent.call("elicitation/create", p));
}
