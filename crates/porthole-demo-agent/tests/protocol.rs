//! End-to-end tests: run the agent binary and speak ACP JSON-RPC over its
//! stdio, playing the client.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Client {
    fn start(elicitation: Value, write_text_file: bool) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_porthole-demo-agent"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn agent");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("agent wrote non-JSON to stdout: {line:?}: {e}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let mut client = Self {
            child,
            stdin,
            rx,
            next_id: 0,
        };
        let init = client.call(
            "initialize",
            json!({
                "protocolVersion": 1,
                "clientCapabilities": {
                    "elicitation": elicitation,
                    "fs": { "readTextFile": false, "writeTextFile": write_text_file }
                }
            }),
            |_| None,
        );
        let result = &init.last().unwrap()["result"];
        assert_eq!(result["protocolVersion"], 1);
        assert_eq!(result["agentInfo"]["name"], "porthole-demo-agent");
        assert_eq!(result["agentInfo"]["title"], "Porthole Demo Agent");
        assert_eq!(result["agentCapabilities"]["loadSession"], false);
        client
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&self) -> Value {
        self.rx
            .recv_timeout(Duration::from_secs(20))
            .expect("agent message")
    }

    /// Sends a request and answers agent requests with `handler` until the
    /// response arrives. Returns every message received (response last).
    fn call(
        &mut self,
        method: &str,
        params: Value,
        mut handler: impl FnMut(&Value) -> Option<Value>,
    ) -> Vec<Value> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let mut seen = Vec::new();
        loop {
            let message = self.recv();
            seen.push(message.clone());
            if message.get("method").is_none() && message["id"] == id {
                return seen;
            }
            if message.get("method").is_some() && message.get("id").is_some() {
                let reply = handler(&message).unwrap_or_else(
                    || json!({ "error": { "code": -32601, "message": "not handled in test" } }),
                );
                let mut response = json!({ "jsonrpc": "2.0", "id": message["id"] });
                for (k, v) in reply.as_object().unwrap() {
                    response[k] = v.clone();
                }
                self.send(response);
            }
        }
    }

    fn new_session(&mut self, cwd: &str) -> String {
        let messages = self.call("session/new", json!({ "cwd": cwd, "mcpServers": [] }), |_| None);
        let id = messages.last().unwrap()["result"]["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let update = self.recv();
        assert_eq!(update["method"], "session/update");
        assert_eq!(
            update["params"]["update"]["sessionUpdate"],
            "available_commands_update"
        );
        let names: Vec<&str> = update["params"]["update"]["availableCommands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["configure", "connect", "ask", "edit", "test", "tools", "slow"]
        );
        id
    }

    fn prompt(
        &mut self,
        session: &str,
        text: &str,
        handler: impl FnMut(&Value) -> Option<Value>,
    ) -> Vec<Value> {
        self.call(
            "session/prompt",
            json!({ "sessionId": session, "prompt": [{ "type": "text", "text": text }] }),
            handler,
        )
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn updates<'a>(messages: &'a [Value], kind: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| &m["params"]["update"])
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

fn text_of(messages: &[Value]) -> String {
    updates(messages, "agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect()
}

fn stop_reason(messages: &[Value]) -> &str {
    messages.last().unwrap()["result"]["stopReason"].as_str().unwrap()
}

fn both_modes() -> Value {
    json!({ "form": {}, "url": {} })
}

#[test]
fn free_text_streams_markdown_thought_and_plan() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    let messages = client.prompt(&session, "Hello, Porthole", |_| None);
    assert_eq!(stop_reason(&messages), "end_turn");
    assert!(updates(&messages, "agent_message_chunk").len() >= 6);
    assert_eq!(updates(&messages, "agent_thought_chunk").len(), 1);
    let plan = updates(&messages, "plan");
    assert_eq!(plan.len(), 1);
    let statuses: Vec<&str> = plan[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "in_progress", "pending"]);
    let text = text_of(&messages);
    assert!(text.contains("Hello, Porthole"));
    assert!(text.contains("```rust"));
    assert!(text.starts_with("## "));
}

#[test]
fn configure_accept_reports_exact_content() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    let mut request = Value::Null;
    let messages = client.prompt(&session, "/configure", |m| {
        assert_eq!(m["method"], "elicitation/create");
        request = m["params"].clone();
        Some(json!({ "result": { "action": "accept", "content": {
            "email": "ada@example.com", "projectName": "demo-app", "port": 8080,
            "license": "apache-2.0", "targets": ["linux", "windows"]
        }}}))
    });
    assert_eq!(request["mode"], "form");
    assert_eq!(request["sessionId"], session);
    assert_eq!(request["message"], "Configure the demo project");
    let tool_call = updates(&messages, "tool_call");
    assert_eq!(tool_call[0]["title"], "Configure project");
    assert_eq!(request["toolCallId"], tool_call[0]["toolCallId"]);
    let schema: agent_client_protocol::v1::schema::ElicitationSchema =
        serde_json::from_value(request["requestedSchema"].clone()).unwrap();
    assert_eq!(schema.properties.len(), 11);

    let text = text_of(&messages);
    for line in [
        "- `email`: `\"ada@example.com\"`",
        "- `projectName`: `\"demo-app\"`",
        "- `port`: `8080`",
        "- `license`: `\"apache-2.0\"`",
        "- `targets`: `[\"linux\",\"windows\"]`",
        "all values conform",
    ] {
        assert!(text.contains(line), "missing {line:?} in {text}");
    }
    let last = updates(&messages, "tool_call_update");
    assert_eq!(last.last().unwrap()["status"], "completed");
    assert_eq!(stop_reason(&messages), "end_turn");
}

#[test]
fn configure_decline_cancel_and_error() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    let m = client.prompt(&session, "/configure", |_| {
        Some(json!({ "result": { "action": "decline" } }))
    });
    assert!(text_of(&m).contains("You declined the configuration form."));
    let m = client.prompt(&session, "/configure", |_| {
        Some(json!({ "result": { "action": "cancel" } }))
    });
    assert!(text_of(&m).contains("You cancelled the configuration form."));
    let m = client.prompt(&session, "/configure", |_| {
        Some(json!({ "error": { "code": -32602, "message": "form mode not supported" } }))
    });
    assert!(text_of(&m).contains("-32602: form mode not supported"));
    assert_eq!(stop_reason(&m), "end_turn");
}

#[test]
fn no_elicitation_without_capability() {
    let mut client = Client::start(json!({}), false);
    let session = client.new_session("/tmp");
    let m = client.prompt(&session, "/configure", |m| panic!("unexpected request {m}"));
    assert!(text_of(&m).contains("does not support form elicitation"));
    let m = client.prompt(&session, "/connect", |m| panic!("unexpected request {m}"));
    assert!(text_of(&m).contains("does not support URL elicitation"));
    let m = client.prompt(&session, "/ask", |m| panic!("unexpected request {m}"));
    assert_eq!(stop_reason(&m), "end_turn");

    // Form only: /connect must not fall back to a form.
    let mut client = Client::start(json!({ "form": {} }), false);
    let session = client.new_session("/tmp");
    let m = client.prompt(&session, "/connect", |m| panic!("unexpected request {m}"));
    assert!(text_of(&m).contains("does not support URL elicitation"));
}

fn http(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn connect_completes_after_browser_authorizes() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    let mut browser = None;
    let messages = client.prompt(&session, "/connect", |m| {
        let p = &m["params"];
        assert_eq!(p["mode"], "url");
        assert_eq!(p["sessionId"], session);
        assert!(p["elicitationId"].as_str().unwrap().starts_with("demo-signin-"));
        let url = p["url"].as_str().unwrap().to_owned();
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, path) = rest.split_once('/').unwrap();
        let port: u16 = port.parse().unwrap();
        let path = format!("/{path}");
        let state = path.split_once("state=").unwrap().1.to_owned();
        assert!(state.len() >= 32);
        browser = Some(std::thread::spawn(move || {
            let page = http(
                port,
                &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
            );
            assert!(page.contains("Authorize Porthole Demo"));
            let cookie = page
                .lines()
                .find_map(|l| l.strip_prefix("Set-Cookie: "))
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .to_owned();
            let body = format!("state={state}&decision=authorize");
            let done = http(
                port,
                &format!(
                    "POST /authorize HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n\
                     Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                ),
            );
            assert!(done.contains("You can close this window."));
        }));
        Some(json!({ "result": { "action": "accept" } }))
    });
    browser.unwrap().join().unwrap();
    let complete: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "elicitation/complete")
        .collect();
    assert_eq!(complete.len(), 1);
    assert!(
        complete[0]["params"]["elicitationId"]
            .as_str()
            .unwrap()
            .starts_with("demo-signin-")
    );
    let text = text_of(&messages);
    assert!(text.contains("Waiting for you to finish signing in…"));
    assert!(text.contains("Connected to the Porthole Demo service."));
    assert_eq!(stop_reason(&messages), "end_turn");
    // Nothing from the browser (cookie) leaks over ACP.
    assert!(!format!("{messages:?}").contains("porthole_demo_session"));
}

#[test]
fn slow_is_cancellable() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    client.send(json!({ "jsonrpc": "2.0", "id": 99, "method": "session/prompt",
        "params": { "sessionId": session, "prompt": [{ "type": "text", "text": "/slow" }] } }));
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(500));
    client.send(json!({ "jsonrpc": "2.0", "method": "session/cancel",
        "params": { "sessionId": session } }));
    loop {
        let m = client.recv();
        if m["id"] == 99 {
            assert_eq!(m["result"]["stopReason"], "cancelled");
            break;
        }
    }
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn ask_uses_request_scope_then_secret_form() {
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session("/tmp");
    let prompt_id = client.next_id + 1;
    let mut n = 0;
    let messages = client.prompt(&session, "/ask", |m| {
        n += 1;
        let p = &m["params"];
        if n == 1 {
            assert_eq!(p["requestId"], prompt_id);
            assert!(p.get("sessionId").is_none());
            Some(json!({ "result": { "action": "accept", "content": { "workspaceName": "acme" } } }))
        } else {
            assert_eq!(p["sessionId"], session);
            assert_eq!(p["message"], "Paste your API token");
            Some(json!({ "result": { "action": "accept", "content": { "api_token": "tok-SECRET" } } }))
        }
    });
    let text = text_of(&messages);
    assert!(text.contains("acme"));
    assert!(text.contains("(the client should never have accepted this)"));
    assert!(!text.contains("tok-SECRET"));
}

#[test]
fn edit_asks_permission_then_writes_through_client() {
    let dir = std::env::temp_dir().join(format!("porthole-demo-edit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "hello\n").unwrap();
    let cwd = dir.to_string_lossy().into_owned();
    let mut client = Client::start(both_modes(), true);
    let session = client.new_session(&cwd);
    let mut written = None;
    let messages = client.prompt(&session, "/edit", |m| match m["method"].as_str().unwrap() {
        "session/request_permission" => {
            let kinds: Vec<&str> = m["params"]["options"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["kind"].as_str().unwrap())
                .collect();
            assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
            Some(json!({ "result": { "outcome": { "outcome": "selected", "optionId": "allow_once" } } }))
        }
        "fs/write_text_file" => {
            written = Some(m["params"].clone());
            Some(json!({ "result": {} }))
        }
        other => panic!("unexpected {other}"),
    });
    let tool_call = updates(&messages, "tool_call");
    assert_eq!(tool_call[0]["kind"], "edit");
    let diff = &tool_call[0]["content"][0];
    assert_eq!(diff["type"], "diff");
    assert_eq!(diff["oldText"], "hello\n");
    assert_eq!(diff["newText"], "hello\nEdited by the Porthole demo agent.\n");
    let written = written.unwrap();
    assert_eq!(written["path"], dir.join("notes.txt").to_string_lossy().as_ref());
    assert_eq!(written["content"], diff["newText"]);
    let statuses = updates(&messages, "tool_call_update");
    assert_eq!(statuses.last().unwrap()["status"], "completed");

    let messages = client.prompt(&session, "/edit", |_| {
        Some(json!({ "result": { "outcome": { "outcome": "selected", "optionId": "reject_once" } } }))
    });
    assert!(text_of(&messages).contains("rejected"));
    let statuses = updates(&messages, "tool_call_update");
    assert_eq!(statuses.last().unwrap()["status"], "failed");
    std::fs::remove_dir_all(&dir).ok();
}
