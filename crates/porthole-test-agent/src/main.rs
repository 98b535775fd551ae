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

    fn run(&mut self, scenario: &str) -> Vec<Value> {
        let mut results = Vec::new();
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
                        let mut p = self.form(json!({}));
                        p.as_object_mut().map(|o| o.remove("sessionId"));
                        p["requestId"] = json!(987654);
                        p
                    },
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
            other => self.say(&format!("unknown scenario {other}")),
        }
        results
    }
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

fn main() {
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
    loop {
        let msg = agent.recv();
        let (Some(method), id) = (msg.get("method").and_then(Value::as_str), msg.get("id").cloned()) else {
            continue;
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match (method, id) {
            ("initialize", Some(id)) => send(json!({"jsonrpc":"2.0","id":id,"result":{
                "protocolVersion":1,
                "agentInfo":{"name":"porthole-test-agent","title":"Test Agent","version":"0.0.1"},
                "agentCapabilities":{},
                "authMethods":[]}})),
            ("session/new", Some(id)) => {
                agent.session = "test-session-1".into();
                agent.cwd = params
                    .get("cwd")
                    .and_then(Value::as_str)
                    .unwrap_or("/")
                    .to_string();
                send(json!({"jsonrpc":"2.0","id":id,"result":{"sessionId":agent.session}}));
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
