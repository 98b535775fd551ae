//! A scripted ACP agent for integration tests. It speaks raw JSON lines on purpose, so it
//! can send what a well-behaved SDK never would (bad modes, huge lines, garbage).
//!
//! Each prompt's text names a scenario; the agent runs it, then reports what the client
//! answered as one `agent_message_chunk` whose text is JSON: `{"scenario", "results": [...]}`.
//! With `PORTHOLE_TEST_AGENT_LOG=FILE` every line the client sent is appended to FILE.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::mpsc;

use serde_json::{Value, json};

mod bench;

struct Agent {
    incoming: mpsc::Receiver<Value>,
    /// Messages read while waiting for something else.
    backlog: VecDeque<Value>,
    next_id: i64,
    session: String,
    cwd: String,
    prompt_id: Value,
}

fn write_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

fn send(v: Value) {
    write_line(&v.to_string());
}

impl Agent {
    fn recv(&mut self) -> Value {
        if let Some(v) = self.backlog.pop_front() {
            return v;
        }
        match self.incoming.recv() {
            Ok(v) => v,
            Err(_) => std::process::exit(0),
        }
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        id
    }

    /// Wait for the response to `id`, keeping everything else for later.
    fn response(&mut self, id: i64) -> Value {
        let mut kept = VecDeque::new();
        loop {
            let v = match self.incoming.recv() {
                Ok(v) => v,
                Err(_) => std::process::exit(0),
            };
            if v.get("method").is_none() && v.get("id") == Some(&json!(id)) {
                self.backlog.extend(kept);
                return v;
            }
            kept.push_back(v);
        }
    }

    /// Wait for the responses to all of `ids`, in any order, keeping everything else.
    /// Waits for the answers to `ids` and counts them: by `outcome` for a result, by code and
    /// message for an error.
    fn summarize(&mut self, ids: &[i64], outcome: impl Fn(&Value) -> Option<String>) -> Value {
        let mut summary = std::collections::BTreeMap::<String, u64>::new();
        for r in self.responses(ids) {
            let key = outcome(&r).unwrap_or_else(|| {
                let e = &r["error"];
                format!("error {}: {}", e["code"], e["message"].as_str().unwrap_or(""))
            });
            *summary.entry(key).or_default() += 1;
        }
        json!(summary)
    }

    fn responses(&mut self, ids: &[i64]) -> Vec<Value> {
        let mut waiting: std::collections::HashSet<i64> = ids.iter().copied().collect();
        let mut got = Vec::with_capacity(ids.len());
        let mut kept = VecDeque::new();
        while !waiting.is_empty() {
            let v = match self.incoming.recv() {
                Ok(v) => v,
                Err(_) => std::process::exit(0),
            };
            match v.get("id").and_then(Value::as_i64) {
                Some(id) if v.get("method").is_none() && waiting.remove(&id) => got.push(v),
                _ => kept.push_back(v),
            }
        }
        self.backlog.extend(kept);
        got
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        let r = self.response(id);
        strip(r)
    }

    fn update(&self, update: Value) {
        send(
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":self.session,"update":update}}),
        );
    }

    fn say(&self, text: &str) {
        self.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":text}}));
    }

    fn form(&self, extra: Value) -> Value {
        let mut p = json!({"sessionId": self.session, "mode":"form", "message":"Pick a name",
            "requestedSchema":{"type":"object","properties":{
                "name":{"type":"string","title":"Name","minLength":2,"default":"alpha"},
                "port":{"type":"integer","minimum":1,"maximum":65535,"default":8080},
                "fast":{"type":"boolean","default":true}},
                "required":["name","port"]}});
        merge(&mut p, extra);
        p
    }

    fn url(&self, id: &str, url: &str) -> Value {
        json!({"sessionId": self.session, "mode":"url", "elicitationId": id, "url": url, "message": "Sign in"})
    }

    fn run(&mut self, prompt: &str) -> Vec<Value> {
        if let Some(results) = bench::run(self, prompt) {
            return results;
        }
        let mut results = Vec::new();
        // A scenario may take one number: `update-flood 1000`.
        let (scenario, arg) = match prompt.split_once(' ') {
            Some((name, n)) => (name, n.trim().parse::<u64>().ok()),
            None => (prompt, None),
        };
        match scenario {
            "form" => {
                let p = self.form(json!({"toolCallId":"tc-1"}));
                results.push(self.call("elicitation/create", p));
            }
            "modes" => {
                let f = self.form(json!({}));
                results.push(self.call("elicitation/create", f));
                let u = self.url("m-1", "https://example.com/connect");
                results.push(self.call("elicitation/create", u));
            }
            "hostile-requests" => {
                let cases = vec![
                    self.form(json!({"mode":"_sms"})),
                    self.form(json!({"sessionId":"not-a-session"})),
                    {
                        let mut p = self.form(json!({}));
                        p.as_object_mut().map(|o| o.remove("sessionId"));
                        p
                    },
                    {
                        // Not a JSON-RPC id.
                        let mut p = self.form(json!({}));
                        p.as_object_mut().map(|o| o.remove("sessionId"));
                        p["requestId"] = json!(1.5);
                        p
                    },
                    // Both scopes at once.
                    self.form(json!({"requestId": 987654})),
                    self.form(json!({"requestedSchema":{"type":"object","properties":null}})),
                    self.url("h-1", "https://user:secret@example.com/"),
                    self.url("h-2", "javascript:alert(1)"),
                    self.url("h-3", "file:///etc/passwd"),
                    self.url("h-4", "/relative/path"),
                    json!({"sessionId": self.session, "mode":"url", "url":"https://example.com/"}),
                ];
                for c in cases {
                    results.push(self.call("elicitation/create", c));
                }
            }
            "request-scope" => {
                let mut p = self.form(json!({}));
                p.as_object_mut().map(|o| o.remove("sessionId"));
                p["requestId"] = self.prompt_id.clone();
                results.push(self.call("elicitation/create", p));
            }
            "agent-level-request" => {
                // A request id that names no request of the client: an agent-level question.
                let mut p = self.form(json!({}));
                p.as_object_mut().map(|o| o.remove("sessionId"));
                p["requestId"] = json!("agent-setup-1");
                results.push(self.call("elicitation/create", p));
            }
            "url-lifecycle" => {
                let a = self.url("dup", "https://accounts.example.com/a?state=1");
                results.push(self.call("elicitation/create", a.clone()));
                // Outstanding (accepted, not completed): a second request with the same id is refused.
                results.push(self.call("elicitation/create", a.clone()));
                send(
                    json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"dup"}}),
                );
                send(
                    json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"dup"}}),
                );
                send(
                    json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"never-seen"}}),
                );
                // Completed: the id is free again.
                results.push(self.call("elicitation/create", a));
                let warn = self.url("w", "http://xn--80ak6aa92e.com:8443/x");
                results.push(self.call("elicitation/create", warn));
            }
            "secret" => {
                let p = self.form(json!({"message":"Enter your password",
                    "requestedSchema":{"type":"object","properties":{"password":{"type":"string","title":"Password"}},"required":["password"]}}));
                results.push(self.call("elicitation/create", p));
            }
            "unsupported-required" => {
                let p = self.form(json!({"requestedSchema":{"type":"object","properties":{"blob":{"type":"_custom"}},"required":["blob"]}}));
                results.push(self.call("elicitation/create", p));
            }
            "concurrent" => {
                let ids: Vec<i64> = (0..50)
                    .map(|i| {
                        let p = self.form(json!({"toolCallId": format!("tc-{i}")}));
                        self.request("elicitation/create", p)
                    })
                    .collect();
                for id in ids {
                    results.push(strip(self.response(id)));
                }
                // Exactly one response per id: nothing else may arrive for them.
            }
            "noise" => {
                write_line("Starting agent... banner text that is not JSON");
                write_line("{this is not json either");
                send(
                    json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":self.session,"update":{"sessionUpdate":"_future_kind","x":1}}}),
                );
                send(json!({"jsonrpc":"2.0","method":"_vendor/notice","params":{}}));
                results.push(self.call("_vendor/unknown_method", json!({})));
                self.say("still alive");
            }
            "huge" => {
                let big = "A".repeat(17 * 1024 * 1024);
                let id = self.next_id;
                self.next_id += 1;
                write_line(&format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"elicitation/create\",\"params\":{{\"sessionId\":\"{}\",\"mode\":\"form\",\"message\":\"{big}\",\"requestedSchema\":{{}}}}}}",
                    self.session
                ));
                results.push(strip(self.response(id)));
                let p = self.form(json!({}));
                results.push(self.call("elicitation/create", p));
            }
            "burst" => {
                for i in 0..20_000 {
                    self.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":format!("{i} ")}}));
                }
            }
            "fs" => {
                let inside = format!("{}/written.txt", self.cwd);
                results.push(self.call(
                    "fs/write_text_file",
                    json!({"sessionId":self.session,"path":inside,"content":"one\ntwo\n"}),
                ));
                results.push(self.call(
                    "fs/read_text_file",
                    json!({"sessionId":self.session,"path":inside,"line":2,"limit":1}),
                ));
                results.push(self.call(
                    "fs/read_text_file",
                    json!({"sessionId":self.session,"path":"/etc/hostname"}),
                ));
                results.push(self.call("fs/write_text_file", json!({"sessionId":self.session,"path":format!("{}/../escape.txt", self.cwd),"content":"x"})));
                results.push(self.call(
                    "fs/read_text_file",
                    json!({"sessionId":self.session,"path":format!("{}/missing.txt", self.cwd)}),
                ));
            }
            "permission" => {
                results.push(self.call("session/request_permission", json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"tc-9","title":"Delete everything","kind":"delete"},
                    "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]})));
            }
            "withdraw" => {
                // Ask, then withdraw the request before anyone answers.
                let p = self.form(json!({}));
                let id = self.request("elicitation/create", p);
                std::thread::sleep(std::time::Duration::from_millis(200));
                send(json!({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":id}}));
                results.push(strip(self.response(id)));
            }
            "hang" => {
                // Ask and never continue: the test kills us or cancels.
                let p = self.form(json!({}));
                let _ = self.request("elicitation/create", p);
                loop {
                    let v = self.recv();
                    if v.get("method") == Some(&json!("session/cancel")) {
                        break;
                    }
                }
            }
            "crash" => {
                let p = self.form(json!({}));
                let _ = self.request("elicitation/create", p);
                // Give the client time to show the dialog, then die mid-elicitation.
                std::thread::sleep(std::time::Duration::from_millis(300));
                eprintln!("fatal: the test agent crashed on purpose");
                std::process::exit(3);
            }
            "terminal" => {
                // A command that exits with a code, its output and exit; then one that never exits.
                let t = self.call(
                    "terminal/create",
                    json!({"sessionId":self.session,"command":"/bin/sh",
                    "args":["-c","echo hello; echo oops >&2; exit 3"]}),
                );
                let id = t["result"]["terminalId"].clone();
                results.push(t);
                results.push(self.call(
                    "terminal/wait_for_exit",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                results.push(self.call(
                    "terminal/output",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                results.push(self.call(
                    "terminal/release",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                results.push(self.call(
                    "terminal/output",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                let t = self.call(
                    "terminal/create",
                    json!({"sessionId":self.session,"command":"sleep","args":["1000"]}),
                );
                let id = t["result"]["terminalId"].clone();
                self.update(
                    json!({"sessionUpdate":"tool_call","toolCallId":"tc-term","title":"Run sleep",
                    "kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":id}]}),
                );
                results.push(self.call("terminal/kill", json!({"sessionId":self.session,"terminalId":id})));
                results.push(self.call(
                    "terminal/wait_for_exit",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                results.push(self.call(
                    "terminal/release",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                let t = self.call("terminal/create", json!({"sessionId":self.session,"command":"/bin/sh",
                    "args":["-c","i=0; while [ $i -lt 100 ]; do echo line-$i; i=$((i+1)); done"],"outputByteLimit":40}));
                let id = t["result"]["terminalId"].clone();
                self.call(
                    "terminal/wait_for_exit",
                    json!({"sessionId":self.session,"terminalId":id}),
                );
                results.push(self.call(
                    "terminal/output",
                    json!({"sessionId":self.session,"terminalId":id}),
                ));
                self.call(
                    "terminal/release",
                    json!({"sessionId":self.session,"terminalId":id}),
                );
                results.push(self.call(
                    "terminal/create",
                    json!({"sessionId":self.session,"command":"/no/such/program"}),
                ));
                results.push(self.call(
                    "terminal/create",
                    json!({"sessionId":self.session,"command":"true","cwd":"relative"}),
                ));
            }
            "updates" => {
                // One of every stable update kind.
                self.update(json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"},"messageId":"u1"}));
                self.update(json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking"},"messageId":"t1"}));
                self.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part one "},"messageId":"m1"}));
                self.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part two"},"messageId":"m1"}));
                self.update(json!({"sessionUpdate":"tool_call","toolCallId":"tc-1","title":"Edit main.rs","kind":"edit",
                    "status":"pending","locations":[{"path":"/w/main.rs","line":3}],
                    "content":[{"type":"diff","path":"/w/main.rs","oldText":"a","newText":"b"}]}));
                self.update(
                    json!({"sessionUpdate":"tool_call_update","toolCallId":"tc-1","status":"completed"}),
                );
                self.update(json!({"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"pending"}]}));
                self.update(
                    json!({"sessionUpdate":"available_commands_update","availableCommands":[
                    {"name":"test","description":"Run tests","input":{"hint":"filter"}}]}),
                );
                self.update(json!({"sessionUpdate":"current_mode_update","currentModeId":"code"}));
                self.update(json!({"sessionUpdate":"config_option_update","configOptions":config_options("deep", true)}));
                self.update(json!({"sessionUpdate":"session_info_update","title":"Refactor parser","updatedAt":"2026-12-02T10:00:00Z"}));
                self.update(json!({"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}));
            }
            "permission-always" => {
                // The client answers "always" to the first; the second of that kind is answered
                // by the remembered rule; a third of another kind is asked again.
                let options = json!([{"optionId":"once","name":"Allow once","kind":"allow_once"},
                    {"optionId":"always","name":"Always allow","kind":"allow_always"},
                    {"optionId":"no","name":"Reject","kind":"reject_once"}]);
                results.push(self.call(
                    "session/request_permission",
                    json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"tc-a","title":"Edit a","kind":"edit"},"options":options}),
                ));
                self.update(
                    json!({"sessionUpdate":"tool_call","toolCallId":"tc-b","title":"Edit b","kind":"edit"}),
                );
                // No kind on the request: the kind comes from the tool call update above.
                results.push(self.call(
                    "session/request_permission",
                    json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"tc-b"},"options":options}),
                ));
                results.push(self.call(
                    "session/request_permission",
                    json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"tc-c","title":"Run c","kind":"execute"},"options":options}),
                ));
            }
            "xss" => {
                // Every agent-controlled string the window shows, once per payload.
                for (i, x) in payloads().iter().enumerate() {
                    let tc = format!("xss-{i}");
                    self.say(x);
                    self.update(
                        json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":x}}),
                    );
                    self.update(
                        json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":x}}),
                    );
                    self.update(json!({"sessionUpdate":"tool_call","toolCallId":tc,"title":x,"kind":"edit",
                        "status":"pending","locations":[{"path":format!("/w/{x}"),"line":1}],
                        "content":[{"type":"content","content":{"type":"text","text":x}},
                                   {"type":"diff","path":format!("/w/{x}"),"oldText":x,"newText":format!("{x}\n{x}")}]}));
                    self.update(json!({"sessionUpdate":"tool_call_update","toolCallId":tc,"status":"completed","title":x}));
                }
                let all = payloads();
                self.update(json!({"sessionUpdate":"plan","entries":all.iter()
                    .map(|x| json!({"content":x,"priority":"high","status":"pending"})).collect::<Vec<_>>()}));
                self.update(
                    json!({"sessionUpdate":"available_commands_update","availableCommands":all.iter()
                    .map(|x| json!({"name":x,"description":x,"input":{"hint":x}})).collect::<Vec<_>>()}),
                );
                self.update(json!({"sessionUpdate":"session_info_update","title":all[1]}));
                // The first four payloads, and the right-to-left override one (a hidden
                // character the dialog must flag).
                let options: Vec<Value> = all.iter().take(4).chain(&all[50..51]).enumerate()
                    .map(|(i, x)| json!({"optionId":format!("o{i}"),"name":x,"kind":if i % 2 == 0 {"allow_once"} else {"reject_once"}}))
                    .collect();
                results.push(self.call("session/request_permission", json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"xss-perm","title":all[0],"kind":"execute",
                        "content":[{"type":"content","content":{"type":"text","text":all[2]}}]},"options":options})));
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
                results.push(self.call("elicitation/create", json!({"sessionId":self.session,"mode":"form","message":all[5],
                    "requestedSchema":{"type":"object","title":all[6],"description":all[7],"properties":properties}})));
                results.push(self.call(
                    "elicitation/create",
                    json!({"sessionId":self.session,"mode":"url","message":all[8],
                    "elicitationId":"xss-url","url":"https://evil.example/login?next=%3Cscript%3E"}),
                ));
                self.say("xss done");
            }
            "crash-permission" => {
                // A permission dialog and a file-access dialog pending, then the agent dies.
                self.request("session/request_permission", json!({"sessionId":self.session,
                    "toolCall":{"toolCallId":"tc-crash","title":"Delete everything","kind":"delete"},
                    "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}));
                self.request(
                    "fs/read_text_file",
                    json!({"sessionId":self.session,"path":"/etc/hostname"}),
                );
                std::thread::sleep(std::time::Duration::from_millis(300));
                eprintln!("fatal: the test agent died mid-permission");
                std::process::exit(4);
            }
            "kill-turn" => {
                // Mid-turn, with no dialog: some output, then SIGKILL (no chance to clean up).
                self.say("working on it");
                eprintln!("fatal: the test agent was killed mid-turn");
                let _ = std::process::Command::new("kill")
                    .args(["-9", &std::process::id().to_string()])
                    .status();
                std::thread::sleep(std::time::Duration::from_secs(60));
            }
            "stderr-flood" => {
                // `stderr-flood MB`: that many MiB on stderr, in lines, then a normal reply.
                let line = format!("{}\n", "e".repeat(1023));
                let mut err = std::io::stderr().lock();
                for _ in 0..arg.unwrap_or(200) * 1024 {
                    let _ = err.write_all(line.as_bytes());
                }
                let _ = writeln!(err, "stderr flood done");
                drop(err);
                self.say("still alive");
            }
            "elicit-flood" => {
                // `elicit-flood N`: N form requests at once, then every answer, summarized.
                let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
                    .map(|_| {
                        let p = self.form(json!({}));
                        self.request("elicitation/create", p)
                    })
                    .collect();
                results.push(self.summarize(&ids, |r| r["result"]["action"].as_str().map(str::to_string)));
            }
            "permission-flood" => {
                // `permission-flood N`: N permission requests at once, then every answer, summarized.
                let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
                    .map(|i| {
                        self.request(
                            "session/request_permission",
                            json!({"sessionId":self.session,
                            "toolCall":{"toolCallId":format!("flood-{i}"),"title":format!("Step {i}")},
                            "options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},
                                       {"optionId":"no","name":"Reject","kind":"reject_once"}]}),
                        )
                    })
                    .collect();
                let summary = self.summarize(&ids, |r| {
                    r["result"]["outcome"]["outcome"].as_str().map(str::to_string)
                });
                results.push(summary);
            }
            "file-flood" => {
                // `file-flood N`: N reads outside the workspace at once (each asks the user),
                // then every answer, summarized.
                let ids: Vec<i64> = (0..arg.unwrap_or(10_000))
                    .map(|_| {
                        self.request(
                            "fs/read_text_file",
                            json!({"sessionId":self.session,
                            "path":"/etc/hostname"}),
                        )
                    })
                    .collect();
                let summary = self.summarize(&ids, |r| {
                    r["result"]["content"].as_str().map(|_| "read".to_string())
                });
                results.push(summary);
            }
            "update-flood" => {
                // `update-flood N`: N message chunks as fast as the pipe takes them.
                let head = format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"{}\",\"update\":{{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{{\"type\":\"text\",\"text\":\"",
                    self.session
                );
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                for i in 0..arg.unwrap_or(1_000_000) {
                    let _ = writeln!(out, "{head}{i} \"}}}}}}}}");
                }
                let _ = out.flush();
            }
            "endless-line" => {
                // `endless-line MB`: one JSON line that goes on for that many MiB before its
                // newline arrives (far past the client's cap), then a normal message.
                let mut out = std::io::stdout().lock();
                let _ = write!(
                    out,
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"{}\",\"update\":{{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{{\"type\":\"text\",\"text\":\"",
                    self.session
                );
                let chunk = vec![b'A'; 1 << 20];
                for _ in 0..arg.unwrap_or(256) {
                    let _ = out.write_all(&chunk);
                }
                let _ = out.write_all(b"\"}}}}\n");
                let _ = out.flush();
                drop(out);
                self.say("survived the endless line");
            }
            other => self.say(&format!("unknown scenario {other}")),
        }
        results
    }
}

/// The XSS corpus shared with the end-to-end test.
fn payloads() -> Vec<String> {
    serde_json::from_str(include_str!("../../../tests/xss/payloads.json"))
        .expect("payloads.json is a JSON array")
}

/// With `PORTHOLE_TEST_AGENT_HOSTILE` set, names the agent controls (its own name, modes,
/// config options) are XSS payloads too.
fn hostile() -> bool {
    std::env::var("PORTHOLE_TEST_AGENT_HOSTILE").is_ok()
}

fn config_options(model: &str, web: bool) -> Value {
    if hostile() {
        let p = payloads();
        return json!([{"id":"model","name":p[9],"description":p[10],"type":"select","currentValue":model,
            "options":[{"value":"fast","name":p[11]},{"value":"deep","name":p[12]}]},
            {"id":"web","name":p[13],"type":"boolean","currentValue":web}]);
    }
    json!([{"id":"model","name":"Model","type":"select","currentValue":model,
            "options":[{"value":"fast","name":"Fast"},{"value":"deep","name":"Deep"}]},
           {"id":"web","name":"Web search","type":"boolean","currentValue":web}])
}

fn modes(current: &str) -> Value {
    if hostile() {
        let p = payloads();
        return json!({"currentModeId":current,"availableModes":[{"id":"ask","name":p[14],"description":p[15]},
            {"id":"code","name":p[16]}]});
    }
    json!({"currentModeId":current,"availableModes":[{"id":"ask","name":"Ask"},{"id":"code","name":"Code"}]})
}

fn reply(id: Value, result: Value) {
    send(json!({"jsonrpc":"2.0","id":id,"result":result}));
}

fn reply_error(id: Value, code: i64, message: &str) {
    send(json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}}));
}

fn strip(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("jsonrpc");
    }
    v
}

fn merge(base: &mut Value, extra: Value) {
    if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
        for (k, v) in e {
            b.insert(k, v);
        }
    }
}

/// `--login`: what terminal authentication runs. Asks for a name on stdin, like a CLI login.
fn login() {
    println!("Signing in to the test agent.");
    print!("Your name: ");
    let _ = std::io::stdout().flush();
    let mut name = String::new();
    let _ = std::io::stdin().read_line(&mut name);
    let name = name.trim();
    if name.is_empty() {
        eprintln!("no name given; not signed in");
        std::process::exit(1);
    }
    println!(
        "Signed in as {name}. ACP_INTERACTIVE_LOGIN={}",
        std::env::var("ACP_INTERACTIVE_LOGIN").unwrap_or_default()
    );
}

fn main() {
    if std::env::args().any(|a| a == "--login") {
        return login();
    }
    let log = std::env::var("PORTHOLE_TEST_AGENT_LOG").ok();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut log = log.and_then(|p| std::fs::OpenOptions::new().create(true).append(true).open(p).ok());
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if let Some(f) = log.as_mut() {
                let _ = writeln!(f, "{line}");
            }
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let mut agent = Agent {
        incoming: rx,
        backlog: VecDeque::new(),
        next_id: 1000,
        session: String::new(),
        cwd: String::new(),
        prompt_id: Value::Null,
    };
    if std::env::var("PORTHOLE_TEST_AGENT_MUTE").is_ok() {
        // Never answers initialize.
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
    // With PORTHOLE_TEST_AGENT_AUTH set, session/new fails with auth_required until
    // `authenticate` succeeds.
    let needs_auth = std::env::var("PORTHOLE_TEST_AGENT_AUTH").is_ok();
    let mut authenticated = false;
    loop {
        let msg = agent.recv();
        let (Some(method), id) = (msg.get("method").and_then(Value::as_str), msg.get("id").cloned()) else {
            continue;
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            ("initialize", Some(id)) => {
                let terminal_auth = params["clientCapabilities"]["auth"]["terminal"] == json!(true);
                let mut auth_methods = vec![json!({"id":"agent-login","name":"Agent login",
                    "description":"Sign in with the agent's own flow"})];
                if terminal_auth {
                    auth_methods.push(json!({"id":"terminal-login","name":"Log in from the terminal",
                        "type":"terminal","args":["--login"],"env":{"ACP_INTERACTIVE_LOGIN":"1"}}));
                }
                let (name, title) = if hostile() {
                    (payloads()[1].clone(), payloads()[50].clone())
                } else {
                    ("porthole-test-agent".to_string(), "Test Agent".to_string())
                };
                reply(
                    id,
                    json!({
                "protocolVersion":1,
                "agentInfo":{"name":name,"title":title,"version":"0.0.1"},
                "agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"embeddedContext":true},
                    "sessionCapabilities":{"list":{},"resume":{},"close":{},"delete":{}},
                    "auth":{"logout":{}}},
                "authMethods":auth_methods}),
                )
            }
            ("authenticate", Some(id)) => {
                if params["methodId"] == json!("agent-login") {
                    authenticated = true;
                    reply(id, json!({}));
                } else {
                    reply_error(id, -32602, "unknown auth method");
                }
            }
            ("logout", Some(id)) => {
                authenticated = false;
                reply(id, json!({}));
            }
            ("session/new", Some(id)) if needs_auth && !authenticated => {
                reply_error(id, -32000, "Authentication required")
            }
            ("session/new", Some(id)) => {
                agent.session = "test-session-1".into();
                agent.cwd = params
                    .get("cwd")
                    .and_then(Value::as_str)
                    .unwrap_or("/")
                    .to_string();
                reply(
                    id,
                    json!({"sessionId":agent.session,"modes":modes("ask"),
                    "configOptions":config_options("fast", false)}),
                );
            }
            ("session/load", Some(id)) => {
                let sid = params["sessionId"].as_str().unwrap_or("").to_string();
                if sid != "old-1" {
                    reply_error(id, -32002, "no such session");
                    continue;
                }
                agent.session = sid;
                agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
                agent.update(json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"earlier question"}}));
                agent.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"earlier answer"}}));
                agent.update(json!({"sessionUpdate":"tool_call","toolCallId":"old-tc","title":"Read file","kind":"read","status":"completed"}));
                reply(
                    id,
                    json!({"modes":modes("code"),"configOptions":config_options("deep", true)}),
                );
            }
            ("session/resume", Some(id)) => {
                agent.session = params["sessionId"].as_str().unwrap_or("").to_string();
                agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
                reply(id, json!({"modes":modes("ask")}));
            }
            ("session/list", Some(id)) => match params.get("cursor").and_then(Value::as_str) {
                None => reply(
                    id,
                    json!({"sessions":[{"sessionId":"old-1","cwd":"/w","title":"First",
                    "updatedAt":"2026-12-01T09:00:00Z"}],"nextCursor":"page-2"}),
                ),
                Some("page-2") => reply(id, json!({"sessions":[{"sessionId":"old-2","cwd":"/w"}]})),
                // Never answered: the client abandons it and sends $/cancel_request.
                Some("hang") => {}
                Some(_) => reply_error(id, -32602, "bad cursor"),
            },
            ("session/close" | "session/delete", Some(id)) => reply(id, json!({})),
            ("session/set_mode", Some(id)) => {
                let mode = params["modeId"].as_str().unwrap_or("").to_string();
                if mode != "ask" && mode != "code" {
                    reply_error(id, -32602, "unknown mode");
                    continue;
                }
                reply(id, json!({}));
                agent.update(json!({"sessionUpdate":"current_mode_update","currentModeId":mode}));
            }
            ("session/set_config_option", Some(id)) => {
                let (model, web) = match (params["configId"].as_str(), &params["value"]) {
                    (Some("model"), Value::String(v)) => (v.clone(), false),
                    (Some("web"), Value::Bool(b)) => ("fast".to_string(), *b),
                    _ => {
                        reply_error(id, -32602, "bad config option");
                        continue;
                    }
                };
                reply(id, json!({"configOptions":config_options(&model, web)}));
            }
            ("session/prompt", Some(id)) => {
                agent.prompt_id = id.clone();
                let text = params["prompt"][0]["text"].as_str().unwrap_or("").to_string();
                let results = agent.run(&text);
                agent.say(&json!({"scenario": text, "results": results}).to_string());
                send(json!({"jsonrpc":"2.0","id":id,"result":{"stopReason":"end_turn"}}));
            }
            (_, Some(id)) => {
                send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"method not found"}}))
            }
            _ => {}
        }
    }
}
