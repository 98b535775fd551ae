//! Shared helpers for integration tests: the scripted test agent and the ACP schema check.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use porthole_core::events::{DialogPrompt, Event};
use porthole_core::transport::{Direction, TransportNote, WireTap};
use porthole_core::{AgentClient, AgentCommand, Answer, ClientOptions};
use serde_json::{Value, json};
use tokio::sync::mpsc::Receiver;

/// The scripted agent binary (crate `porthole-test-agent`).
pub fn test_agent() -> PathBuf {
    workspace_bin_path("porthole-test-agent")
}

pub use porthole_test_bins::package_bin as workspace_bin_path;

/// Records every line crossing the wire.
#[derive(Default)]
pub struct Recorder {
    pub lines: Mutex<Vec<(Direction, String)>>,
    pub notes: Mutex<Vec<String>>,
}

impl WireTap for Recorder {
    fn line(&self, direction: Direction, line: &str) {
        self.lines.lock().unwrap().push((direction, line.to_string()));
    }
    fn note(&self, note: TransportNote) {
        self.notes.lock().unwrap().push(format!("{note:?}"));
    }
}

fn schema_path() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in manifest.ancestors() {
        for candidate in [
            dir.join("shared/acp-spec/v1/schema.json"),
            dir.join("../shared/acp-spec/v1/schema.json"),
        ] {
            if candidate.exists() {
                return candidate;
            }
        }
    }
    panic!("ACP schema not found: expected shared/acp-spec/v1/schema.json beside the repository");
}

/// Validates messages against one `$defs` entry of the ACP v1 schema.
pub struct SchemaCheck {
    defs: Value,
    cache: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl SchemaCheck {
    pub fn load() -> Self {
        let text = std::fs::read_to_string(schema_path()).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        Self {
            defs: schema["$defs"].clone(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn check(&self, def: &str, value: &Value) -> Result<(), String> {
        let validator = {
            let mut cache = self.cache.lock().unwrap();
            cache
                .entry(def.to_string())
                .or_insert_with(|| {
                    let schema = json!({"$ref": format!("#/$defs/{def}"), "$defs": self.defs});
                    Arc::new(
                        jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("schema {def}: {e}")),
                    )
                })
                .clone()
        };
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("{def}: {}\n{value}", errors.join("; ")))
        }
    }

    /// Check every line the client sent. Returns how many messages were checked.
    pub fn check_client_traffic(&self, lines: &[(Direction, String)]) -> usize {
        let mut agent_requests: HashMap<String, String> = HashMap::new();
        let mut checked = 0;
        for (direction, line) in lines {
            let Ok(msg) = serde_json::from_str::<Value>(line) else {
                assert_eq!(
                    *direction,
                    Direction::Incoming,
                    "client sent invalid JSON: {line}"
                );
                continue;
            };
            match direction {
                Direction::Incoming => {
                    if let (Some(id), Some(m)) = (msg.get("id"), msg.get("method").and_then(Value::as_str)) {
                        agent_requests.insert(id.to_string(), m.to_string());
                    }
                }
                Direction::Outgoing => {
                    checked += 1;
                    assert_eq!(msg["jsonrpc"], "2.0", "{line}");
                    let method = msg.get("method").and_then(Value::as_str);
                    let result = match (method, msg.get("id")) {
                        (Some(m), Some(_)) => {
                            self.check("ClientRequest", &msg)
                                .and_then(|_| match request_def(m) {
                                    Some(def) => self.check(def, &msg["params"]),
                                    None => Err(format!("client sent an unexpected request `{m}`")),
                                })
                        }
                        (Some(m), None) => {
                            self.check("ClientNotification", &msg)
                                .and_then(|_| match notification_def(m) {
                                    Some(def) => self.check(def, &msg["params"]),
                                    None => Ok(()),
                                })
                        }
                        (None, Some(id)) => {
                            if let Some(result) = msg.get("result") {
                                let m = agent_requests.get(&id.to_string()).cloned().unwrap_or_default();
                                match response_def(&m) {
                                    Some(def) => self.check(def, result),
                                    // An extension method (`_vendor/...`): its shape is the
                                    // vendor's, checked by the test that sends it.
                                    None if m.starts_with('_') => Ok(()),
                                    None => Err(format!("result for unknown request {id} ({m}): {line}")),
                                }
                            } else {
                                let e = &msg["error"];
                                if e["code"].is_i64() && e["message"].is_string() {
                                    Ok(())
                                } else {
                                    Err(format!("malformed error response: {line}"))
                                }
                            }
                        }
                        (None, None) => Err(format!("neither request nor response: {line}")),
                    };
                    if let Err(e) = result {
                        panic!("client message violates the ACP v1 schema: {e}");
                    }
                }
            }
        }
        checked
    }
}

fn request_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeRequest",
        "session/new" => "NewSessionRequest",
        "session/prompt" => "PromptRequest",
        "session/load" => "LoadSessionRequest",
        "session/list" => "ListSessionsRequest",
        "session/resume" => "ResumeSessionRequest",
        "session/close" => "CloseSessionRequest",
        "session/delete" => "DeleteSessionRequest",
        "session/set_mode" => "SetSessionModeRequest",
        "session/set_config_option" => "SetSessionConfigOptionRequest",
        "authenticate" => "AuthenticateRequest",
        "logout" => "LogoutRequest",
        _ => return None,
    })
}

fn notification_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "session/cancel" => "CancelNotification",
        "$/cancel_request" => "CancelRequestNotification",
        _ => return None,
    })
}

fn response_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "elicitation/create" => "CreateElicitationResponse",
        "session/request_permission" => "RequestPermissionResponse",
        "fs/read_text_file" => "ReadTextFileResponse",
        "fs/write_text_file" => "WriteTextFileResponse",
        "terminal/create" => "CreateTerminalResponse",
        "terminal/output" => "TerminalOutputResponse",
        "terminal/wait_for_exit" => "WaitForTerminalExitResponse",
        "terminal/kill" => "KillTerminalResponse",
        "terminal/release" => "ReleaseTerminalResponse",
        _ => return None,
    })
}

pub struct Harness {
    pub client: AgentClient,
    pub events: Receiver<Event>,
    pub session: String,
    pub tap: Arc<Recorder>,
    pub dir: tempfile::TempDir,
}

pub async fn start_with(opts: ClientOptions, env: Vec<(String, String)>) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let tap = Arc::new(Recorder::default());
    let command = AgentCommand {
        program: test_agent().display().to_string(),
        args: vec![],
        env,
        cwd: Some(dir.path().to_path_buf()),
    };
    let opts = ClientOptions {
        tap: Some(tap.clone()),
        ..opts
    };
    let (client, events) = AgentClient::start(command, opts).await.expect("agent starts");
    let session = client
        .new_session(dir.path().canonicalize().unwrap())
        .await
        .unwrap();
    Harness {
        client,
        events,
        session,
        tap,
        dir,
    }
}

pub async fn start() -> Harness {
    start_with(ClientOptions::default(), vec![]).await
}

impl Harness {
    pub async fn next(&mut self) -> Event {
        tokio::time::timeout(Duration::from_secs(20), self.events.recv())
            .await
            .expect("an event within 20 s")
            .expect("event stream open")
    }

    /// Run a scenario turn, answering dialogs with `answer`; returns all events and the
    /// agent's JSON report.
    pub async fn turn(
        &mut self,
        scenario: &str,
        mut answer: impl FnMut(&AgentClient, &Event),
    ) -> (Vec<Event>, Value) {
        self.client.prompt_text(&self.session, scenario).unwrap();
        let mut events = Vec::new();
        loop {
            let event = self.next().await;
            answer(&self.client, &event);
            let done = matches!(event, Event::TurnEnded { .. } | Event::AgentExited(_));
            events.push(event);
            if done {
                break;
            }
        }
        let report = events
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::SessionUpdate { update, .. } => {
                    update.agent_text().and_then(|t| serde_json::from_str(t).ok())
                }
                _ => None,
            })
            .unwrap_or(Value::Null);
        (events, report)
    }

    /// The v1-shaped `initialize` the client sent: the only one with `ClientOptions::protocol`
    /// V1, the second one after a v2 offer the test agent answered with 1 (auto).
    pub fn v1_initialize(&self) -> Value {
        let lines = self.tap.lines.lock().unwrap().clone();
        lines
            .iter()
            .filter(|(d, _)| *d == Direction::Outgoing)
            .filter_map(|(_, l)| serde_json::from_str::<Value>(l).ok())
            .find(|m| m["method"] == "initialize" && m["params"]["protocolVersion"] == 1)
            .expect("a v1 initialize was sent")
    }

    pub fn check_schema(&self) -> usize {
        let lines = self.tap.lines.lock().unwrap().clone();
        SchemaCheck::load().check_client_traffic(&lines)
    }
}

pub fn decline(client: &AgentClient, e: &Event) {
    if let Event::Dialog(DialogPrompt::Elicitation(p)) = e {
        client.respond_elicitation(p.dialog_id, Answer::Decline).unwrap();
    }
}
