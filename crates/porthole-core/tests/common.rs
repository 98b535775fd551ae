//! Shared helpers for integration tests: the scripted test agent and the ACP schema check.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use porthole_core::transport::{Direction, TransportNote, WireTap};
use serde_json::{Value, json};

/// The scripted agent binary (crate `porthole-test-agent`).
pub fn test_agent() -> PathBuf {
    workspace_bin("porthole-test-agent")
}

/// Path of a workspace binary next to this test's target dir, built on demand: `cargo test`
/// builds only the binaries of the packages under test, and these belong to other packages.
fn workspace_bin(package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // <target>/debug/deps/<test> -> <target>/debug/<package>
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target dir")
        .to_path_buf();
    let bin = profile_dir.join(package);
    static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|p| p.into_inner());
    if !bin.exists() {
        let target_dir = profile_dir.parent().expect("target dir");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "-p", package, "--target-dir"])
            .arg(target_dir)
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p {package} failed");
    }
    bin
}

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
        "authenticate" => "AuthenticateRequest",
        _ => return None,
    })
}

fn notification_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "session/cancel" => "CancelNotification",
        _ => return None,
    })
}

fn response_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "elicitation/create" => "CreateElicitationResponse",
        "session/request_permission" => "RequestPermissionResponse",
        "fs/read_text_file" => "ReadTextFileResponse",
        "fs/write_text_file" => "WriteTextFileResponse",
        _ => return None,
    })
}
