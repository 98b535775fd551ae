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
mod scenarios;
mod v2;

/// `additionalDirectories` of a session/new, load or resume (absent: none).
fn additional_directories(params: &Value) -> Vec<String> {
    params["additionalDirectories"]
        .as_array()
        .map(|dirs| dirs.iter().filter_map(|d| d.as_str().map(String::from)).collect())
        .unwrap_or_default()
}

struct Agent {
    incoming: mpsc::Receiver<Value>,
    /// Messages read while waiting for something else.
    backlog: VecDeque<Value>,
    next_id: i64,
    session: String,
    cwd: String,
    /// The session's `additionalDirectories`, as the client sent them.
    additional: Vec<String>,
    prompt_id: Value,
    /// The session's model (`session/set_model`).
    model: String,
    /// How the current turn ends (a scenario that honours `session/cancel` sets `cancelled`).
    stop_reason: &'static str,
    /// The client declared Gemini CLI's host input (`clientCapabilities._meta`
    /// `["geminiCli.hostInput"].requestUserInput`), so it may be asked `gemini/requestUserInput`.
    host_input: bool,
    /// The connection speaks ACP v2 (`v2.rs`).
    v2: bool,
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

    /// Whether `session/cancel` arrives within `wait`; everything else is kept for later.
    fn wait_for_cancel(&mut self, wait: std::time::Duration) -> bool {
        if let Some(i) = self
            .backlog
            .iter()
            .position(|v| v.get("method") == Some(&json!("session/cancel")))
        {
            self.backlog.remove(i);
            return true;
        }
        let deadline = std::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(v) if v.get("method") == Some(&json!("session/cancel")) => return true,
                Ok(v) => self.backlog.push_back(v),
                Err(mpsc::RecvTimeoutError::Timeout) => return false,
                Err(mpsc::RecvTimeoutError::Disconnected) => std::process::exit(0),
            }
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

    /// With `PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN` set, an opened session's commands (new,
    /// loaded, resumed or forked) follow its answer at once, as the demo agent and Claude Code
    /// send them.
    fn commands_at_open(&self) {
        if commands_at_open() {
            self.update(
                json!({"sessionUpdate":"available_commands_update","availableCommands":[
                {"name":"web","description":"Search the web","input":{"hint":"query"}},
                {"name":"review","description":"Review the changes"}]}),
            );
        }
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
        match scenarios::find(scenario) {
            Some(run) => run(self, arg, &mut results),
            None => self.say(&format!("unknown scenario {scenario}")),
        }
        results
    }
}

/// The XSS corpus shared with the end-to-end test.
fn payloads() -> Vec<String> {
    serde_json::from_str(include_str!("../../../tests/xss/payloads.json"))
        .expect("payloads.json is a JSON array")
}

/// `PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN`: a session's commands follow the answer that opens it.
fn commands_at_open() -> bool {
    std::env::var_os("PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN").is_some()
}

/// `PORTHOLE_TEST_AGENT_SIGNED_OUT=FILE`: session requests are refused while FILE exists.
fn signed_out() -> bool {
    std::env::var_os("PORTHOLE_TEST_AGENT_SIGNED_OUT").is_some_and(|f| std::path::Path::new(&f).exists())
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

/// `PORTHOLE_TEST_AGENT_NAME`: present as another agent (`gemini-cli`, a `codex-acp`), with
/// its sign-in methods and the quirks the client works around for it.
fn agent_name() -> Option<String> {
    std::env::var("PORTHOLE_TEST_AGENT_NAME")
        .ok()
        .filter(|n| !n.is_empty())
}

/// The one API key the Gemini- and Codex-like `_meta["api-key"]` methods accept.
const ACCEPTED_API_KEY: &str = "test-key-accepted";

/// The variable of the test agent's `env_var` sign-in method.
const API_KEY_VAR: &str = "PORTHOLE_TEST_API_KEY";

/// The models `session/set_model` may choose from: id and name.
const MODELS: [(&str, &str); 2] = [("model-small", "Small"), ("model-large", "Large")];

fn models(current: &str) -> Value {
    let available: Vec<Value> = MODELS
        .iter()
        .map(|(id, name)| json!({"modelId": id, "name": name}))
        .collect();
    json!({"currentModelId": current, "availableModels": available})
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
            while scenarios::floods::STOP_READING.load(std::sync::atomic::Ordering::SeqCst) {
                std::thread::park();
            }
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
        additional: Vec::new(),
        prompt_id: Value::Null,
        model: MODELS[0].0.to_string(),
        stop_reason: "end_turn",
        host_input: false,
        v2: false,
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
    let mut authenticated = std::env::var_os(API_KEY_VAR).is_some_and(|v| !v.is_empty());
    let mut forks = 0u32;
    let mut opened = 0u32;
    // The session's config options: model and web search.
    let mut config = ("fast".to_string(), false);
    loop {
        let msg = agent.recv();
        let (Some(method), id) = (msg.get("method").and_then(Value::as_str), msg.get("id").cloned()) else {
            continue;
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        if agent.v2 && v2::handle(&mut agent, method, id.clone(), &params) {
            continue;
        }
        match (method, id) {
            ("initialize", Some(id)) if v2::refused(&id, &params) => {}
            ("initialize", Some(id)) if v2::answered_in_v1_shape(&id, &params) => {}
            ("initialize", Some(id)) if v2::offered(&params) => {
                agent.v2 = true;
                v2::initialize(id);
            }
            ("initialize", Some(id)) => {
                agent.host_input = params["clientCapabilities"]["_meta"]["geminiCli.hostInput"]["requestUserInput"]
                    == json!(true);
                let terminal_auth = params["clientCapabilities"]["auth"]["terminal"] == json!(true);
                let mut auth_methods = vec![json!({"id":"agent-login","name":"Agent login",
                    "description":"Sign in with the agent's own flow"})];
                // Like Codex's device-code sign-in: offered to clients with URL elicitation, and
                // answered with a URL elicitation scoped to `authenticate`.
                if params["clientCapabilities"]["elicitation"]["url"].is_object() {
                    auth_methods.push(json!({"id":"url-login","name":"Sign in on the web",
                        "description":"Open a page and enter a code"}));
                }
                if terminal_auth {
                    auth_methods.push(json!({"id":"terminal-login","name":"Log in from the terminal",
                        "type":"terminal","args":["--login"],"env":{"ACP_INTERACTIVE_LOGIN":"1"}}));
                }
                // Presenting as Gemini CLI or Codex: their API-key methods, which take the key
                // in `authenticate`'s `_meta["api-key"]`.
                match agent_name().as_deref() {
                    Some("gemini-cli") => auth_methods.push(json!({"id":"gemini-api-key",
                        "name":"Gemini API key","description":"Use an API key with Gemini Developer API",
                        "_meta":{"api-key":{"provider":"google"}}})),
                    Some(name) if name.contains("codex-acp") => auth_methods.push(json!({"id":"api-key",
                        "name":"API Key","description":"Use an API key to authenticate"})),
                    // Signed in when the client started it with this variable set.
                    _ => auth_methods.push(json!({"id":"api-key","name":"API key","type":"env_var",
                        "link":"https://example.com/test-agent/keys",
                        "vars":[{"name":API_KEY_VAR,"label":"Test agent API key"}]})),
                }
                // PORTHOLE_TEST_AGENT_NAME: present as another agent (`gemini-cli`), whose
                // known quirks the client works around.
                let (name, title) = if hostile() {
                    (payloads()[1].clone(), payloads()[50].clone())
                } else if let Some(name) = agent_name() {
                    (name.clone(), name)
                } else {
                    ("porthole-test-agent".to_string(), "Test Agent".to_string())
                };
                reply(
                    id,
                    json!({
                "protocolVersion":1,
                "agentInfo":{"name":name,"title":title,"version":"0.0.1"},
                "agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"embeddedContext":true},
                    "sessionCapabilities":{"list":{},"resume":{},"close":{},"delete":{},"fork":{},
                        "additionalDirectories":{}},
                    "auth":{"logout":{}}},
                "authMethods":auth_methods}),
                )
            }
            ("authenticate", Some(id)) => {
                // Like Gemini CLI, an API-key method answers success whatever the key; only
                // the right key signs in (session/new says whether it did).
                let key = match (params["methodId"].as_str(), &params["_meta"]["api-key"]) {
                    (Some("gemini-api-key"), Value::String(key)) => Some(key.as_str()),
                    (Some("api-key"), key) if key.is_object() => key["apiKey"].as_str(),
                    _ => None,
                };
                let api_key_method = matches!(params["methodId"].as_str(), Some("gemini-api-key"))
                    || (params["methodId"] == json!("api-key")
                        && agent_name().is_some_and(|n| n.contains("codex-acp")));
                if api_key_method {
                    authenticated = key == Some(ACCEPTED_API_KEY);
                    reply(id, json!({}));
                } else if params["methodId"] == json!("url-login") {
                    // The client must answer this while `authenticate` is still waiting.
                    let answer = agent.call(
                        "elicitation/create",
                        json!({"mode":"url","requestId":id,"elicitationId":"login-1",
                            "url":"https://login.example.com/device","message":"Enter the code TEST-1234"}),
                    );
                    send(
                        json!({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"login-1"}}),
                    );
                    authenticated = answer["result"]["action"] == json!("accept");
                    if authenticated {
                        reply(id, json!({}));
                    } else {
                        reply_error(id, -32000, "Sign-in did not complete");
                    }
                } else if params["methodId"] == json!("agent-login") {
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
            // PORTHOLE_TEST_AGENT_SIGNED_OUT=FILE: while FILE exists, every session request is
            // refused for want of sign-in (one that expired), whichever way it opens a session.
            ("session/new" | "session/load" | "session/resume" | "session/fork", Some(id))
                if signed_out() =>
            {
                reply_error(id, -32000, "Authentication required")
            }
            ("session/new", Some(id)) if needs_auth && !authenticated => {
                reply_error(id, -32000, "Authentication required")
            }
            ("session/new", Some(id)) => {
                // Each session a new id when its commands follow the answer (a test opens many).
                opened += 1;
                agent.session = if commands_at_open() {
                    format!("test-session-{opened}")
                } else {
                    "test-session-1".into()
                };
                agent.cwd = params
                    .get("cwd")
                    .and_then(Value::as_str)
                    .unwrap_or("/")
                    .to_string();
                agent.additional = additional_directories(&params);
                reply(
                    id,
                    json!({"sessionId":agent.session,"modes":modes("ask"),
                    "configOptions":config_options("fast", false),"models":models(&agent.model)}),
                );
                agent.commands_at_open();
                // PORTHOLE_TEST_AGENT_FS_AT_OPEN: a file written in the new session at once, as
                // an agent may do before any prompt; what the client answered is reported.
                if std::env::var_os("PORTHOLE_TEST_AGENT_FS_AT_OPEN").is_some() {
                    let path = format!("{}/at-open.txt", agent.cwd);
                    let answer = agent.call(
                        "fs/write_text_file",
                        json!({"sessionId": agent.session, "path": path, "content": "written at open\n"}),
                    );
                    agent.say(&json!({"fsAtOpen": answer}).to_string());
                }
            }
            ("session/set_model", Some(id)) => {
                let model = params["modelId"].as_str().unwrap_or("");
                if params["sessionId"] != json!(agent.session) || !MODELS.iter().any(|(m, _)| *m == model) {
                    reply_error(id, -32602, "unknown session or model");
                    continue;
                }
                agent.model = model.to_string();
                reply(id, json!({}));
            }
            // PORTHOLE_TEST_AGENT_FORK_AUTH: forking wants a sign-in (say, an expired one).
            ("session/fork", Some(id)) if std::env::var_os("PORTHOLE_TEST_AGENT_FORK_AUTH").is_some() => {
                reply_error(id, -32000, "Authentication required")
            }
            ("session/fork", Some(id)) => {
                // The open session, or the stored one `session/list` names.
                if params["sessionId"] != json!(agent.session) && params["sessionId"] != json!("old-1") {
                    reply_error(id, -32002, "no such session to fork");
                    continue;
                }
                forks += 1;
                agent.session = format!("test-session-fork-{forks}");
                agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
                reply(
                    id,
                    json!({"sessionId":agent.session,"modes":modes("ask"),"models":models(&agent.model)}),
                );
                agent.commands_at_open();
            }
            ("session/load", Some(id)) => {
                let sid = params["sessionId"].as_str().unwrap_or("").to_string();
                if sid != "old-1" {
                    reply_error(id, -32002, "no such session");
                    continue;
                }
                agent.session = sid;
                agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
                agent.additional = additional_directories(&params);
                agent.update(json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"earlier question"}}));
                reply(
                    id,
                    json!({"modes":modes("code"),"configOptions":config_options("deep", true)}),
                );
                agent.commands_at_open();
                // The rest of the history after the answer, as Gemini CLI sends most of it.
                std::thread::sleep(std::time::Duration::from_millis(50));
                agent.update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"earlier answer"}}));
                agent.update(json!({"sessionUpdate":"tool_call","toolCallId":"old-tc","title":"Read file","kind":"read","status":"completed"}));
            }
            ("session/resume", Some(id)) => {
                agent.session = params["sessionId"].as_str().unwrap_or("").to_string();
                agent.cwd = params["cwd"].as_str().unwrap_or("/").to_string();
                agent.additional = additional_directories(&params);
                reply(id, json!({"modes":modes("ask")}));
                agent.commands_at_open();
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
                match (params["configId"].as_str(), &params["value"]) {
                    (Some("model"), Value::String(v)) if v == "fast" || v == "deep" => config.0 = v.clone(),
                    (Some("web"), Value::Bool(b)) => config.1 = *b,
                    _ => {
                        reply_error(id, -32602, "bad config option");
                        continue;
                    }
                };
                reply(id, json!({"configOptions":config_options(&config.0, config.1)}));
            }
            ("session/prompt", Some(id)) => {
                agent.prompt_id = id.clone();
                agent.stop_reason = "end_turn";
                let text = params["prompt"][0]["text"].as_str().unwrap_or("").to_string();
                let results = agent.run(&text);
                agent.say(&json!({"scenario": text, "results": results}).to_string());
                send(json!({"jsonrpc":"2.0","id":id,"result":{"stopReason":agent.stop_reason}}));
            }
            (_, Some(id)) => {
                send(json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":"method not found"}}))
            }
            _ => {}
        }
    }
}
