//! What the app model's integration tests share: a fake shell that records what the window
//! would receive, and workspace binaries built on demand.

#![allow(dead_code)] // each test binary uses its own part of this

pub mod mcp;

use std::sync::Mutex;
use std::time::Duration;

use porthole_app::Shell;
use serde_json::Value;
use serde_json::value::RawValue;

/// Records every batch; counts the waiting dialogs and attention requests.
#[derive(Default)]
pub struct FakeShell {
    pub events: Mutex<Vec<Value>>,
    pub waiting: Mutex<usize>,
    pub attention: Mutex<Vec<String>>,
}

impl Shell for FakeShell {
    fn deliver(&self, batch: Box<RawValue>) -> Result<(), String> {
        let batch: Value = serde_json::from_str(batch.get()).map_err(|e| e.to_string())?;
        let events = batch["events"].as_array().cloned().unwrap_or_default();
        self.events.lock().unwrap().extend(events);
        Ok(())
    }
    fn set_waiting_count(&self, waiting: usize) {
        *self.waiting.lock().unwrap() = waiting;
    }
    fn dialog_waiting(&self, _summary: &str, body: &str) {
        self.attention.lock().unwrap().push(body.to_string());
    }
    fn open_in_browser(&self, _url: &str) -> Result<(), String> {
        Err("no browser in tests".into())
    }
}

impl FakeShell {
    /// Waits for the first snapshot with an open session (start-up opens one).
    pub async fn wait_for_session(&self) -> Value {
        self.wait_for("a session in a snapshot", |e| {
            e["type"] == "connection"
                && e["snapshot"]["sessions"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty())
        })
        .await
    }

    /// Waits until an event matches, and returns the first that does.
    pub async fn wait_for(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        self.wait(what, |events| events.iter().find(|e| matches(e)).cloned())
            .await
    }

    /// Waits until an event matches, and returns the latest that does.
    pub async fn wait_for_latest(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        self.wait(what, |events| events.iter().rev().find(|e| matches(e)).cloned())
            .await
    }

    /// The elicitation dialogs listed so far.
    pub fn dialog_ids(&self) -> std::collections::HashSet<u64> {
        let events = self.events.lock().unwrap();
        listed(&events)
            .filter(|d| d["type"] == "elicitation")
            .filter_map(|d| d["dialogId"].as_u64())
            .collect()
    }

    /// Waits until a dialog in a list of waiting dialogs (`dialogs` events) matches, and
    /// returns the latest listing of it.
    pub async fn wait_for_dialog(&self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        self.wait(what, |events| {
            let found: Vec<&Value> = listed(events).filter(|d| matches(d)).collect();
            found.last().map(|d| (*d).clone())
        })
        .await
    }

    pub async fn wait(&self, what: &str, look: impl Fn(&[Value]) -> Option<Value>) -> Value {
        for _ in 0..750 {
            if let Some(e) = look(&self.events.lock().unwrap()) {
                return e;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("no {what} in {:#?}", self.events.lock().unwrap());
    }
}

pub use porthole_test_bins::workspace_bin;

/// Every dialog of every list of waiting dialogs delivered, in order.
pub fn listed(events: &[Value]) -> impl Iterator<Item = &Value> {
    events
        .iter()
        .filter(|e| e["type"] == "dialogs")
        .flat_map(|e| e["dialogs"].as_array().into_iter().flatten())
}

/// What `app_state` returns, as the window reads it.
pub fn app_state(backend: &porthole_app::Backend) -> Value {
    serde_json::to_value(backend.app_state()).unwrap()
}

/// The app model with the scripted test agent, started: everything it reads or writes stays in
/// the throwaway `home`, and `env` is set first (for the agent, which inherits it).
///
/// Sets process-wide variables: one test per test binary may call it (each binary is a process).
pub fn start_with_test_agent(
    home: &std::path::Path,
    env: &[(&str, &str)],
) -> (porthole_app::Backend, std::sync::Arc<FakeShell>) {
    set_home(home);
    // SAFETY: set before any thread of this test reads the environment; one test per process.
    unsafe {
        for (name, value) in env {
            std::env::set_var(name, value);
        }
    }
    let agent = workspace_bin("porthole-test-agent", "porthole-test-agent")
        .display()
        .to_string();
    let mut launch = porthole_app::Launch::from_args(Some(&agent), Some(home.to_path_buf())).expect("launch");
    launch.sealed_view = Some(fake_sealed_view());
    let shell = std::sync::Arc::new(FakeShell::default());
    let backend = porthole_app::Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    backend.start();
    (backend, shell)
}

/// Everything the app model reads or writes goes to the throwaway `home`.
///
/// Sets process-wide variables: call it before the app model starts, once per test binary.
pub fn set_home(home: &std::path::Path) {
    // SAFETY: set before any thread of this test reads the environment; one test per process.
    unsafe {
        std::env::set_var("HOME", home);
        std::env::set_var("XDG_CONFIG_HOME", home.join(".config"));
        std::env::set_var("XDG_DATA_HOME", home.join(".local/share"));
        std::env::set_var("XDG_CACHE_HOME", home.join(".cache"));
        std::env::remove_var("PORTHOLE_AGENT");
        // The built-in demo agent speaks ACP v1 in these tests: they are about what v1 does
        // (client-side files and terminals, modes, the person's MCP connections through its
        // v1 MCP client), and Porthole's offer of v2 falls back to it, which they exercise too.
        // The v2 wire is tested with the scripted agent (`v2_state.rs`, core's `tests/v2.rs`),
        // the demo agent's own `protocol_v2.rs`, and the window's `tests/e2e/v2.test.mjs`.
        std::env::set_var("PORTHOLE_DEMO_AGENT_PROTOCOLS", "1");
    }
}

/// A stand-in for `porthole sealed-view` (no display here): reads its request, says `opened`,
/// and says `closed` when asked to close, as the real view does.
pub fn fake_sealed_view() -> (std::path::PathBuf, Vec<String>) {
    let script = r#"read request; echo '{"event":"opened"}'; read command; echo '{"event":"closed"}'"#;
    ("sh".into(), vec!["-c".into(), script.into()])
}

/// What the window received in a run is one of the UI's golden streams
/// (`ui/src/test/fixtures/streams/NAME.json`, replayed through the store by
/// `golden-stream.test.ts`). `PORTHOLE_BLESS=1` rewrites it: the throwaway home written as
/// `/home/user`, the build dir as `/target/debug`, and of a run of lines on stdout that are not
/// JSON only the first few kept (a flood is thousands of alike events). Otherwise every event
/// type of this run must be in it, so a new kind of event cannot reach the window without the
/// store's replay seeing it.
pub fn golden_stream(name: &str, home: &std::path::Path, events: &[Value]) {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../ui/src/test/fixtures/streams/{name}.json"));
    let types = |events: &[Value]| -> std::collections::BTreeSet<String> {
        events
            .iter()
            .filter_map(|e| e["type"].as_str().map(str::to_string))
            .collect()
    };
    if std::env::var_os("PORTHOLE_BLESS").is_some() {
        const NOISE_KEPT: usize = 20;
        let mut noise = 0;
        let kept: Vec<&Value> = events
            .iter()
            .filter(|e| {
                noise += usize::from(e["type"] == "stdout_noise");
                e["type"] != "stdout_noise" || noise <= NOISE_KEPT
            })
            .collect();
        // The build's own dir (the test agent and this test run from it) as `/target/debug`.
        let build_dir = workspace_bin("porthole-test-agent", "porthole-test-agent")
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let text = serde_json::to_string_pretty(&kept)
            .unwrap()
            .replace(&home.display().to_string(), "/home/user")
            .replace(&build_dir, "/target/debug");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text + "\n").unwrap();
        return;
    }
    let golden: Vec<Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let missing: Vec<String> = types(events).difference(&types(&golden)).cloned().collect();
    assert!(
        missing.is_empty(),
        "{} lacks the event types {missing:?}; run this test with PORTHOLE_BLESS=1",
        path.display()
    );
}
