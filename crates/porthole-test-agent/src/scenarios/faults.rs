//! Faults: garbage on stdout, bursts, hangs, crashes mid-request, hostile strings (the XSS corpus), endless lines.

use super::super::*;

/// `noise`
pub(crate) fn noise(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    write_line("Starting agent... banner text that is not JSON");
    write_line("{this is not json either");
    send(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":agent.session,"update":{"sessionUpdate":"_future_kind","x":1}}}),
    );
    // A kind ACP has, malformed (a chunk without its content): refused, never shown.
    send(
        json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":agent.session,"update":{"sessionUpdate":"agent_message_chunk"}}}),
    );
    send(json!({"jsonrpc":"2.0","method":"_vendor/notice","params":{}}));
    results.push(agent.call("_vendor/unknown_method", json!({})));
    agent.say("still alive");
}

/// `burst`
pub(crate) fn burst(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    for i in 0..20_000 {
        agent.update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":format!("{i} ")}}),
        );
    }
}

/// `hang`
pub(crate) fn hang(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    // Ask and never continue: the test kills us or cancels.
    let p = agent.form(json!({}));
    let _ = agent.request("elicitation/create", p);
    loop {
        let v = agent.recv();
        if v.get("method") == Some(&json!("session/cancel")) {
            break;
        }
    }
}

/// `crash`
pub(crate) fn crash(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    let p = agent.form(json!({}));
    let _ = agent.request("elicitation/create", p);
    // Give the client time to show the dialog, then die mid-elicitation.
    std::thread::sleep(std::time::Duration::from_millis(300));
    eprintln!("fatal: the test agent crashed on purpose");
    std::process::exit(3);
}

/// `crash-permission`
pub(crate) fn crash_permission(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    // A permission dialog and a file-access dialog pending, then the agent dies.
    agent.request("session/request_permission", json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"tc-crash","title":"Delete everything","kind":"delete"},
            "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}));
    agent.request(
        "fs/read_text_file",
        json!({"sessionId":agent.session,"path":"/etc/hostname"}),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    eprintln!("fatal: the test agent died mid-permission");
    std::process::exit(4);
}

/// `kill-turn`
pub(crate) fn kill_turn(agent: &mut Agent, _arg: Option<u64>, _results: &mut Vec<Value>) {
    // Mid-turn, with no dialog: some output, then SIGKILL (no chance to clean up).
    agent.say("working on it");
    eprintln!("fatal: the test agent was killed mid-turn");
    let _ = std::process::Command::new("kill")
        .args(["-9", &std::process::id().to_string()])
        .status();
    std::thread::sleep(std::time::Duration::from_secs(60));
}

/// `endless-line`
pub(crate) fn endless_line(agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `endless-line MB`: one JSON line that goes on for that many MiB before its
    // newline arrives (far past the client's cap), then a normal message.
    let mut out = std::io::stdout().lock();
    let _ = write!(
        out,
        "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"{}\",\"update\":{{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{{\"type\":\"text\",\"text\":\"",
        agent.session
    );
    let chunk = vec![b'A'; 1 << 20];
    for _ in 0..arg.unwrap_or(256) {
        let _ = out.write_all(&chunk);
    }
    let _ = out.write_all(b"\"}}}}\n");
    let _ = out.flush();
    drop(out);
    agent.say("survived the endless line");
}

/// `endless-exit`
pub(crate) fn endless_exit(_agent: &mut Agent, arg: Option<u64>, _results: &mut Vec<Value>) {
    // `endless-exit MB`: that many MiB with no newline at all (past the client's cap), then
    // exit: the line ends with the output.
    let mut out = std::io::stdout().lock();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..arg.unwrap_or(64) {
        let _ = out.write_all(&chunk);
    }
    let _ = out.flush();
    std::process::exit(0);
}

/// `xss`
pub(crate) fn xss(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    // Every agent-controlled string the window shows, once per payload.
    for (i, x) in payloads().iter().enumerate() {
        let tc = format!("xss-{i}");
        agent.say(x);
        agent.update(json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":x}}));
        agent.update(json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":x}}));
        agent.update(json!({"sessionUpdate":"tool_call","toolCallId":tc,"title":x,"kind":"edit",
                "status":"pending","locations":[{"path":format!("/w/{x}"),"line":1}],
                "content":[{"type":"content","content":{"type":"text","text":x}},
                           {"type":"diff","path":format!("/w/{x}"),"oldText":x,"newText":format!("{x}\n{x}")}]}));
        agent.update(
            json!({"sessionUpdate":"tool_call_update","toolCallId":tc,"status":"completed","title":x}),
        );
    }
    let all = payloads();
    agent.update(json!({"sessionUpdate":"plan","entries":all.iter()
            .map(|x| json!({"content":x,"priority":"high","status":"pending"})).collect::<Vec<_>>()}));
    agent.update(
        json!({"sessionUpdate":"available_commands_update","availableCommands":all.iter()
            .map(|x| json!({"name":x,"description":x,"input":{"hint":x}})).collect::<Vec<_>>()}),
    );
    agent.update(json!({"sessionUpdate":"session_info_update","title":all[1]}));
    // The first four payloads, and the right-to-left override one (a hidden
    // character the dialog must flag).
    let options: Vec<Value> = all.iter().take(4).chain(&all[50..51]).enumerate()
            .map(|(i, x)| json!({"optionId":format!("o{i}"),"name":x,"kind":if i % 2 == 0 {"allow_once"} else {"reject_once"}}))
            .collect();
    results.push(agent.call(
        "session/request_permission",
        json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"xss-perm","title":all[0],"kind":"execute",
                "content":[{"type":"content","content":{"type":"text","text":all[2]}}]},"options":options}),
    ));
    let mut properties = serde_json::Map::new();
    for (i, x) in all.iter().take(12).enumerate() {
        properties.insert(
            format!("f{i}"),
            json!({"type":"string","title":x,"description":x,"default":x}),
        );
    }
    properties.insert("pick".into(), json!({"type":"string","title":all[3],
            "oneOf":all.iter().take(6).enumerate().map(|(i, x)| json!({"const":format!("v{i}"),"title":x})).collect::<Vec<_>>()}));
    properties.insert("many".into(), json!({"type":"array","title":all[4],
            "items":{"anyOf":all.iter().take(6).enumerate().map(|(i, x)| json!({"const":format!("m{i}"),"title":x})).collect::<Vec<_>>()}}));
    results.push(agent.call(
        "elicitation/create",
        json!({"sessionId":agent.session,"mode":"form","message":all[5],
            "requestedSchema":{"type":"object","title":all[6],"description":all[7],"properties":properties}}),
    ));
    results.push(agent.call(
        "elicitation/create",
        json!({"sessionId":agent.session,"mode":"url","message":all[8],
            "elicitationId":"xss-url","url":"https://evil.example/login?next=%3Cscript%3E"}),
    ));
    agent.say("xss done");
}

/// Text a terminal would obey, one of each escape class: OSC 52 (writes the clipboard), a
/// screen clear and a colour (CSI), a retitle (OSC 0), the 8-bit CSI (C1), backspace and DEL,
/// a lone carriage return that overwrites the line, a right-to-left override and a zero-width
/// space. The CLI test keeps its own copy of this string (`tests/cli.rs`).
pub(crate) const HOSTILE_TEXT: &str = "m\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2J\u{1b}[31mred\u{1b}]0;title\u{1b}\\\u{9b}1m\u{8}\u{7f}x\rfake\u{202E}evil\u{200B}";

/// `hostile-text`: every agent string the CLI prints, carrying [`HOSTILE_TEXT`] (with a line
/// break in the one-line ones, which could start a line that looks like Porthole's): message,
/// thought, tool title and output, plan, command, permission, form, terminal output, stdout noise.
pub(crate) fn hostile_text(agent: &mut Agent, _arg: Option<u64>, results: &mut Vec<Value>) {
    let x = HOSTILE_TEXT;
    let forged = format!("{x}\n[turn ended: end_turn]");
    agent.say(&format!("message {x}\n"));
    agent.update(json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":format!("thought {x}")}}));
    agent.update(json!({"sessionUpdate":"tool_call","toolCallId":"h-1","title":format!("tool {forged}"),"kind":"execute",
        "status":"in_progress","content":[{"type":"content","content":{"type":"text","text":format!("output {x}")}}]}));
    agent.update(json!({"sessionUpdate":"tool_call_update","toolCallId":"h-1","status":"completed","title":format!("update {forged}")}));
    agent.update(json!({"sessionUpdate":"plan","entries":[{"content":format!("plan {forged}"),"priority":"high","status":"pending"}]}));
    agent.update(
        json!({"sessionUpdate":"available_commands_update","availableCommands":[
        {"name":"cmd","description":format!("command {forged}")}]}),
    );
    write_line(&format!("noise {x}"));
    results.push(agent.call(
        "session/request_permission",
        json!({"sessionId":agent.session,
            "toolCall":{"toolCallId":"h-perm","title":format!("permission {forged}"),"kind":"execute"},
            "options":[{"optionId":"yes","name":format!("allow {x}"),"kind":"allow_once"},
                       {"optionId":"no","name":"Reject","kind":"reject_once"}]}),
    ));
    results.push(agent.call(
        "elicitation/create",
        agent.form(json!({"message": format!("form {forged}")})),
    ));
    // Terminal output: the command prints the escapes itself.
    let t = agent.call(
        "terminal/create",
        json!({"sessionId":agent.session,"command":"/bin/sh",
            "args":["-c","printf 'terminal \\033]52;c;cHduZWQ=\\007\\033[2J\\r\\n'"]}),
    );
    let id = t["result"]["terminalId"].clone();
    agent.call(
        "terminal/wait_for_exit",
        json!({"sessionId":agent.session,"terminalId":id}),
    );
    agent.call(
        "terminal/release",
        json!({"sessionId":agent.session,"terminalId":id}),
    );
}
