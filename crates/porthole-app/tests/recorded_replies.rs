//! The window's mock backend (`ui/src/lib/mock.ts`) plays back what the app model answered
//! here, against the demo agent, instead of building values of its own:
//! `ui/src/lib/generated/replies.json` holds, per command, what it was called with, its reply (or
//! its error, as the window receives it) and the events that followed it. A command the mock does
//! not simulate answers from this file, so a new command is recorded here (one call below) or
//! simulated in mock.ts; `mock-replies.test.ts` fails while it is neither.
//!
//! `PORTHOLE_BLESS=1 cargo test -p porthole-app --test recorded_replies` records it again (the
//! throwaway home written as `/home/user`, the build dir as `/target/debug`, the start-up
//! session's id as `demo-1` (the mock's) and this test's binary (the built-in agent's command)
//! as `porthole`; protocol-log times from
//! the first line on). Otherwise the recording must still be this run's: the same commands, each
//! answered the same way (a reply, or the same error), every event type and session-update kind
//! that followed, and every protocol method, so the mock cannot fall behind the app model.

use std::collections::{BTreeMap, BTreeSet};

use porthole_app::{AnswerError, Backend};
use serde::Serialize;
use serde_json::{Value, json};

mod common;

use common::FakeShell;

const BLESS: &str = "PORTHOLE_BLESS=1 cargo test -p porthole-app --test recorded_replies";

/// The mock's name for the start-up session.
const SESSION_ID: &str = "demo-1";

/// The recordings, by command name.
#[derive(Default)]
struct Recorder(BTreeMap<&'static str, Value>);

impl Recorder {
    /// A command's answer: what it was called with (as the window passes it), and its reply or
    /// its error.
    fn answer<T: Serialize>(&mut self, command: &'static str, args: Value, result: Result<T, AnswerError>) {
        let entry = match result {
            Ok(reply) => json!({ "args": args, "reply": reply }),
            Err(error) => json!({ "args": args, "error": error }),
        };
        self.0.insert(command, entry);
    }

    /// A command's answer and the events the window received after it, until `until` matched one.
    async fn with_events<T: Serialize>(
        &mut self,
        shell: &FakeShell,
        command: &'static str,
        args: Value,
        call: impl AsyncFnOnce() -> Result<T, AnswerError>,
        until: impl Fn(&Value) -> bool,
    ) {
        let from = shell.events.lock().unwrap().len();
        let result = call().await;
        let what = format!("the events after {command}");
        shell
            .wait(&what, |events| events[from..].iter().find(|e| until(e)).cloned())
            .await;
        let events: Vec<Value> = shell.events.lock().unwrap()[from..].to_vec();
        self.answer(command, args, result);
        self.0.get_mut(command).unwrap()["events"] = json!(events);
    }
}

/// The JSON-RPC methods in a protocol log's lines.
fn methods(log: &Value) -> BTreeSet<String> {
    log["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::from_str::<Value>(e["text"].as_str()?).ok())
        .filter_map(|line| line["method"].as_str().map(str::to_string))
        .collect()
}

/// Times from the first line on, so a recording reads the same whenever it was made.
fn from_first_line(mut log: Value) -> Value {
    let entries = log["entries"].as_array_mut().unwrap();
    let first = entries.first().and_then(|e| e["atMs"].as_u64()).unwrap_or(0);
    for entry in entries {
        entry["atMs"] = json!(entry["atMs"].as_u64().unwrap() - first);
    }
    log
}

/// Every string that is exactly `from` becomes `to` (ids, not text that mentions them).
fn rename(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s == from => *s = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, from, to)),
        Value::Object(map) => map.values_mut().for_each(|v| rename(v, from, to)),
        _ => {}
    }
}

/// How a recording answered, in the terms that do not change from run to run: reply or error
/// (with its message), and the kinds of event that followed.
fn shape(entry: &Value) -> Value {
    let kinds: BTreeSet<String> = entry["events"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| match e["update"]["kind"].as_str() {
            Some(update) => format!("{}/{update}", e["type"].as_str().unwrap_or("")),
            None => e["type"].as_str().unwrap_or("").to_string(),
        })
        .collect();
    json!({
        "answered": if entry.get("error").is_some() { "error" } else { "reply" },
        "error": entry["error"]["message"],
        "events": kinds,
    })
}

async fn record(backend: &Backend, shell: &FakeShell, home: &std::path::Path) -> (String, Recorder) {
    let session = common::mcp::start(backend, shell).await;
    let state = serde_json::to_value(backend.app_state()).unwrap();
    let agent = state["snapshot"]["connections"][0]["agentId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut r = Recorder::default();
    r.answer("app_state", json!(null), Ok(state));
    r.answer(
        "connect_agent",
        json!({ "agentId": agent }),
        backend.connect_agent(&agent),
    );

    // A prompt turn (a thought, a plan, streamed markdown), until it ends.
    let text = "Hello from the recording";
    r.with_events(
        shell,
        "send_prompt",
        json!({ "sessionId": session, "text": text }),
        async || backend.send_prompt(&session, text, &[]),
        |e| e["type"] == "turn_ended",
    )
    .await;

    // What the demo agent does not offer: the window never shows these controls for it, and the
    // mock answers them as the app model does.
    let cwd = home.display().to_string();
    r.answer(
        "list_sessions",
        json!({ "agentId": agent }),
        backend.list_sessions(&agent, None, None).await,
    );
    r.answer(
        "load_session",
        json!({ "agentId": agent, "sessionId": "past-1", "cwd": cwd }),
        backend.load_session(&agent, "past-1", &cwd, &[]).await,
    );
    r.answer(
        "resume_session",
        json!({ "agentId": agent, "sessionId": "past-1", "cwd": cwd }),
        backend.resume_session(&agent, "past-1", &cwd, &[]).await,
    );
    r.answer(
        "fork_session",
        json!({ "sessionId": session }),
        backend.fork_session(&session).await,
    );
    r.answer(
        "delete_session",
        json!({ "agentId": agent, "sessionId": "past-1" }),
        backend.delete_session(&agent, "past-1").await,
    );
    r.answer(
        "set_model",
        json!({ "sessionId": session, "modelId": "default" }),
        backend.set_model(&session, "default").await,
    );
    r.answer(
        "logout",
        json!({ "agentId": agent }),
        backend.logout(&agent).await,
    );
    r.answer(
        "start_terminal_auth",
        json!({ "agentId": agent, "methodId": "terminal" }),
        backend.start_terminal_auth(&agent, "terminal").await,
    );

    r.answer(
        "authenticate",
        json!({ "agentId": agent, "methodId": "none" }),
        backend.authenticate(&agent, "none").await,
    );
    r.answer(
        "terminal_input",
        json!({ "terminalId": "none", "text": "y" }),
        backend.terminal_input("none", "y").await,
    );
    r.answer(
        "set_mode",
        json!({ "sessionId": session, "modeId": "default" }),
        backend.set_mode(&session, "default").await,
    );
    r.answer(
        "revoke_permission_rule",
        json!({ "ruleId": 1 }),
        backend.revoke_permission_rule(1),
    );
    r.answer(
        "mcp_import",
        json!({ "text": "not a client's settings" }),
        backend.mcp_import("not a client's settings"),
    );

    // The "Add from the registry" view, against the fake MCP Registry the test points the app
    // at: a search (the first: it answers at the first page, the copy still filling), an
    // entry's form, its values checked (none given: the validator's verdict), and a package
    // with no secret added (no keyring needed).
    let base = std::env::var("PORTHOLE_MCP_REGISTRY_URL").unwrap();
    let brave = "io.modelcontextprotocol.anonymous/brave-search";
    let package = porthole_app::McpRegistryChoice {
        remote: false,
        index: 0,
    };
    r.answer(
        "mcp_registry_search",
        json!({ "text": "", "cursor": null }),
        backend.mcp_registry_search("", None).await,
    );
    let (name, version) = (brave, "1.0.2");
    r.answer(
        "mcp_registry_form",
        json!({ "registry": base, "name": name, "version": version, "choice": package }),
        backend.mcp_registry_form(&base, name, version, package).await,
    );
    r.answer(
        "mcp_registry_check",
        json!({ "registry": base, "name": name, "version": version, "choice": package,
                "connectionName": "brave-search", "values": {} }),
        backend
            .mcp_registry_check(&base, name, version, package, "brave-search", Default::default())
            .await,
    );
    let link = backend.mcp_registry_link(&base, name, version, false).await;
    if let Ok(dialog_id) = &link {
        // Its dialog is not part of what follows: cancelled at once.
        let cancel = porthole_core::DialogAnswer::Elicitation {
            action: porthole_core::events::Action::Cancel,
            content: None,
        };
        backend.answer_dialog(*dialog_id, cancel).unwrap();
    }
    r.answer(
        "mcp_registry_link",
        json!({ "registry": base, "name": name, "version": version, "website": false }),
        link,
    );
    // A package (a remote would go on to its sign-in, which contacts its server).
    let fs = "io.github.modelcontextprotocol/filesystem";
    r.answer(
        "mcp_registry_add",
        json!({ "registry": base, "name": fs, "version": "1.0.2", "choice": package,
                "connectionName": "filesystem", "values": {} }),
        backend
            .mcp_registry_add(&base, fs, "1.0.2", package, "filesystem", Default::default())
            .await,
    );

    // Bookkeeping answers.
    r.answer(
        "cancel_install",
        json!({ "registryId": "none" }),
        Ok(backend.cancel_install("none")),
    );
    r.answer("dialog_shown", json!({ "dialogId": 0 }), {
        backend.dialog_shown(0);
        Ok(())
    });
    r.answer("close_url_view", json!({ "dialogId": 0 }), {
        backend.close_url_view(0);
        Ok(())
    });
    r.answer("perf_stats", json!(null), Ok(backend.perf_stats()));

    let log = backend.protocol_log(&agent, 0).unwrap();
    r.answer("protocol_log", json!({ "agentId": agent, "since": 0 }), Ok(log));
    (session, r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mocks_replies_are_the_app_models() {
    let home = tempfile::tempdir().unwrap();
    let connections = home.path().join("connections.json");
    std::fs::write(&connections, r#"{"connections": {}}"#).unwrap();
    let registry = porthole_test_mcp_registry::Server::with_fixtures();
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_MCP_REGISTRY_URL", registry.url());
        std::env::set_var("PORTHOLE_CACHE_DIR", home.path().join("cache"));
    }
    let (backend, shell) = common::mcp::demo_app(home.path(), &connections);
    let (session, recorder) = record(&backend, &shell, home.path()).await;

    let mut replies = json!(recorder.0);
    for method in ["initialize", "session/new", "session/prompt"] {
        let log = &replies["protocol_log"]["reply"];
        assert!(methods(log).contains(method), "no {method} in {log:#}");
    }
    let log = replies["protocol_log"]["reply"].take();
    replies["protocol_log"]["reply"] = from_first_line(log);
    rename(&mut replies, &session, SESSION_ID);

    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/generated/replies.json");
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        let build_dir = common::workspace_bin("porthole-demo-agent", "porthole-demo-agent")
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        // The demo agent runs as this test's own binary (`demo-agent`), as it runs as `porthole`.
        let exe = std::env::current_exe().unwrap().display().to_string();
        let text = serde_json::to_string_pretty(&replies)
            .unwrap()
            .replace(&exe, "porthole")
            .replace(&home.path().display().to_string(), "/home/user")
            .replace(&build_dir, "/target/debug")
            .replace(&registry.url(), "http://127.0.0.1:8765");
        std::fs::write(&path, text + "\n").unwrap();
        return;
    }
    let recorded: Value = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let commands = |v: &Value| -> BTreeSet<String> {
        v.as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect()
    };
    assert_eq!(
        commands(&recorded),
        commands(&replies),
        "{} records other commands; run `{BLESS}`",
        path.display()
    );
    for (command, entry) in replies.as_object().unwrap() {
        let (now, then) = (shape(entry), shape(&recorded[command]));
        assert_eq!(
            then["answered"], now["answered"],
            "{command} answers otherwise now; run `{BLESS}`"
        );
        assert_eq!(
            then["error"], now["error"],
            "{command} fails otherwise now; run `{BLESS}`"
        );
        let missing: Vec<&Value> = now["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| !then["events"].as_array().unwrap().contains(k))
            .collect();
        assert!(
            missing.is_empty(),
            "after {command} the recording lacks {missing:?}; run `{BLESS}`"
        );
    }
    let missing: Vec<String> = methods(&replies["protocol_log"]["reply"])
        .difference(&methods(&recorded["protocol_log"]["reply"]))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "{} lacks the methods {missing:?}; run `{BLESS}`",
        path.display()
    );
}
