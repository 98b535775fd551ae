//! Tool scenarios: fs requests, permission requests (and remembered answers), terminals, session updates.

use super::super::*;

/// `fs`
pub(crate) fn fs(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let inside = format!("{}/written.txt", agent.cwd);
    results.push(agent.call(
        "fs/write_text_file",
        json!({"sessionId":agent.session,"path":inside,"content":"one\ntwo\n"}),
    ));
    results.push(agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":inside,"line":2,"limit":1}),
    ));
    results.push(agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":"/etc/hostname"}),
    ));
    results.push(agent.call(
        "fs/write_text_file",
        json!({"sessionId":agent.session,"path":format!("{}/../escape.txt", agent.cwd),"content":"x"}),
    ));
    results.push(agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":format!("{}/missing.txt", agent.cwd)}),
    ));
}

/// `roots`: what the session's folders are, then a file written in each additional folder
/// (allowed: they are the session's roots too) and one beside them (refused).
pub(crate) fn roots(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    results.push(json!({"cwd":agent.cwd,"additionalDirectories":agent.additional}));
    for dir in agent.additional.clone() {
        results.push(agent.call(
            "fs/write_text_file",
            json!({"sessionId":agent.session,"path":format!("{dir}/from-agent.txt"),"content":"written by the agent\n"}),
        ));
        results.push(agent.call(
            "fs/write_text_file",
            json!({"sessionId":agent.session,"path":format!("{dir}/../beside-root.txt"),"content":"x"}),
        ));
    }
}

/// `permission`
pub(crate) fn permission(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    results.push(agent.call("session/request_permission", json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"tc-9","title":"Delete everything","kind":"delete"},
            "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]})));
}

/// `permission-always`
pub(crate) fn permission_always(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    // The client answers "always" to the first; the second of that kind is answered
    // by the remembered rule; a third of another kind is asked again.
    let options = json!([{"optionId":"once","name":"Allow once","kind":"allow_once"},
            {"optionId":"always","name":"Always allow","kind":"allow_always"},
            {"optionId":"no","name":"Reject","kind":"reject_once"}]);
    results.push(agent.call(
        "session/request_permission",
        json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"tc-a","title":"Edit a","kind":"edit"},"options":options}),
    ));
    agent.update(json!({"sessionUpdate":"tool_call","toolCallId":"tc-b","title":"Edit b","kind":"edit"}));
    // No kind on the request: the kind comes from the tool call update above.
    results.push(agent.call(
        "session/request_permission",
        json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"tc-b"},"options":options}),
    ));
    results.push(agent.call(
        "session/request_permission",
        json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"tc-c","title":"Run c","kind":"execute"},"options":options}),
    ));
}

/// `terminal`
pub(crate) fn terminal(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    // A command that exits with a code, its output and exit; then one that never exits.
    let t = agent.call(
        "terminal/create",
        json!({"sessionId":agent.session,"command":"/bin/sh",
            "args":["-c","echo hello; echo oops >&2; exit 3"]}),
    );
    let id = t["result"]["terminalId"].clone();
    results.push(t);
    results.push(agent.call(
        "terminal/wait_for_exit",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    results.push(agent.call(
        "terminal/output",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    results.push(agent.call(
        "terminal/release",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    results.push(agent.call(
        "terminal/output",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    let t = agent.call(
        "terminal/create",
        json!({"sessionId":agent.session,"command":"sleep","args":["1000"]}),
    );
    let id = t["result"]["terminalId"].clone();
    agent.update(
        json!({"sessionUpdate":"tool_call","toolCallId":"tc-term","title":"Run sleep",
            "kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":id}]}),
    );
    results.push(agent.call(
        "terminal/kill",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    results.push(agent.call(
        "terminal/wait_for_exit",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    results.push(agent.call(
        "terminal/release",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    let t = agent.call("terminal/create", json!({"sessionId":agent.session,"command":"/bin/sh",
            "args":["-c","i=0; while [ $i -lt 100 ]; do echo line-$i; i=$((i+1)); done"],"outputByteLimit":40}));
    let id = t["result"]["terminalId"].clone();
    agent.call(
        "terminal/wait_for_exit",
        json!({"sessionId":agent.session,"terminalId":id}),
    );
    results.push(agent.call(
        "terminal/output",
        json!({"sessionId":agent.session,"terminalId":id}),
    ));
    agent.call(
        "terminal/release",
        json!({"sessionId":agent.session,"terminalId":id}),
    );
    results.push(agent.call(
        "terminal/create",
        json!({"sessionId":agent.session,"command":"/no/such/program"}),
    ));
    results.push(agent.call(
        "terminal/create",
        json!({"sessionId":agent.session,"command":"true","cwd":"relative"}),
    ));
}

/// `updates`
pub(crate) fn updates(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    // One of every stable update kind.
    agent.update(
        json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"},"messageId":"u1"}),
    );
    agent.update(json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking"},"messageId":"t1"}));
    agent.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part one "},"messageId":"m1"}));
    agent.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part two"},"messageId":"m1"}));
    agent.update(
        json!({"sessionUpdate":"tool_call","toolCallId":"tc-1","title":"Edit main.rs","kind":"edit",
            "status":"pending","locations":[{"path":"/w/main.rs","line":3}],
            "content":[{"type":"diff","path":"/w/main.rs","oldText":"a","newText":"b"}]}),
    );
    agent.update(json!({"sessionUpdate":"tool_call_update","toolCallId":"tc-1","status":"completed"}));
    agent.update(
        json!({"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"pending"}]}),
    );
    agent.update(
        json!({"sessionUpdate":"available_commands_update","availableCommands":[
            {"name":"test","description":"Run tests","input":{"hint":"filter"}}]}),
    );
    agent.update(json!({"sessionUpdate":"current_mode_update","currentModeId":"code"}));
    agent
        .update(json!({"sessionUpdate":"config_option_update","configOptions":config_options("deep", true)}));
    agent.update(json!({"sessionUpdate":"session_info_update","title":"Refactor parser","updatedAt":"2026-12-02T10:00:00Z"}));
    agent.update(json!({"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}));
}

/// `current-model`: which model the session runs with (`session/set_model` changes it).
pub(crate) fn current_model(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    results.push(json!({"model": agent.model, "session": agent.session}));
}

/// `env`: whether the agent was started with its sign-in variable set (never its value).
pub(crate) fn env(_agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let set = std::env::var_os(super::super::API_KEY_VAR).is_some_and(|v| !v.is_empty());
    results.push(json!({"apiKeySet": set}));
}

/// `new-file`: what Gemini CLI's `write_file` does through ACP. It reads the file first; a
/// read that fails in any way is "Error checking existing file" and nothing is written
/// (Gemini's SDK hands a JSON-RPC error on as a plain object, which its "not found" check never
/// recognises). Then two reads of missing files outside the workspace: one in a folder that
/// exists, one in a folder that does not.
pub(crate) fn new_file(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let path = format!("{}/created.txt", agent.cwd);
    let read = agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":path}),
    );
    results.push(read.clone());
    if read.get("error").is_some() {
        results.push(json!({"toolError": format!("Error checking existing file: {}",
            read["error"]["message"].as_str().unwrap_or(""))}));
    } else {
        results.push(agent.call(
            "fs/write_text_file",
            json!({"sessionId":agent.session,"path":path,"content":"new file\n"}),
        ));
    }
    let parent = std::path::Path::new(&agent.cwd)
        .parent()
        .unwrap_or(std::path::Path::new("/"))
        .join("porthole-missing-outside.txt");
    results.push(agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":parent}),
    ));
    results.push(agent.call(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":"/porthole-no-such-dir/missing.txt"}),
    ));
}

/// `cancel-count`: updates that are not the turn's own (commands, a mode notice, the user's
/// message echoed, usage), then up to 10 message chunks, each followed by a wait for
/// `session/cancel` (700 ms, far longer than a client needs to answer a chunk it counted).
/// Reports how many chunks were sent when the cancel came, and ends the turn `cancelled`.
pub(crate) fn cancel_count(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    agent.update(
        json!({"sessionUpdate":"available_commands_update","availableCommands":[
        {"name":"test","description":"Run tests"}]}),
    );
    agent.update(json!({"sessionUpdate":"current_mode_update","currentModeId":"code"}));
    agent.update(
        json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"cancel-count"}}),
    );
    agent.update(json!({"sessionUpdate":"usage_update","used":10,"size":1000}));
    agent.update(json!({"sessionUpdate":"session_info_update","title":"Counting"}));
    for chunk in 1..=10u64 {
        agent.say(&format!("chunk {chunk} "));
        if agent.wait_for_cancel(std::time::Duration::from_millis(700)) {
            agent.stop_reason = "cancelled";
            results.push(json!({"chunksBeforeCancel": chunk}));
            return;
        }
    }
    results.push(json!({"chunksBeforeCancel": null}));
}
