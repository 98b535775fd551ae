//! Each agent connection owns its sessions (issue 41): two agents that name their sessions
//! alike (two copies of the test agent both open `test-session-1`, as two instances of one
//! real agent may) each keep theirs and their commands, and a restart of one takes its own
//! dialogs and sessions, not the other's.
//! Its own process: it sets the test agent's environment.

mod common;

use std::time::Duration;

use serde_json::Value;

/// The open sessions as the window reads them: (agent id, session id, commands listed).
fn sessions(backend: &porthole_app::Backend) -> Vec<(String, String, usize)> {
    let state = common::app_state(backend);
    let mut out: Vec<(String, String, usize)> = state["snapshot"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["agentId"].as_str().unwrap().to_string(),
                s["sessionId"].as_str().unwrap().to_string(),
                s["availableCommands"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    out.sort();
    out
}

/// The agents whose dialogs wait, sorted.
fn askers(backend: &porthole_app::Backend) -> Vec<String> {
    let state = common::app_state(backend);
    let mut agents: Vec<String> = state["dialogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["agentId"].as_str().unwrap().to_string())
        .collect();
    agents.sort();
    agents
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_that_name_their_sessions_alike_each_keep_theirs() {
    let home = tempfile::tempdir().unwrap();
    common::set_home(home.path());
    let agent = porthole_test_bins::workspace_bin("porthole-test-agent", "porthole-test-agent")
        .display()
        .to_string();
    let mut launch =
        porthole_app::Launch::from_args(Some(&agent), Some(home.path().to_path_buf())).expect("launch");
    launch.sealed_view = Some(common::fake_sealed_view());
    let first = launch.default_agent.clone();
    let mut twin = launch
        .profiles
        .iter()
        .find(|p| p.id == first)
        .expect("the start-up agent's profile")
        .clone();
    twin.id = "twin".into();
    twin.name = "Twin".into();
    // The twin sends its commands right after its session opens; the first agent sends none.
    twin.env
        .insert("PORTHOLE_TEST_AGENT_COMMANDS_AT_OPEN".into(), "1".into());
    launch.profiles.push(twin);
    let shell = std::sync::Arc::new(common::FakeShell::default());
    let backend = porthole_app::Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);

    backend.start();
    shell.wait_for_session().await;
    backend.connect_agent("twin").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while sessions(&backend).len() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Give the twin's commands time to arrive (they follow its answer at once).
    while sessions(&backend).iter().all(|s| s.2 == 0) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        sessions(&backend),
        vec![
            (first.clone(), "test-session-1".to_string(), 0),
            ("twin".to_string(), "test-session-1".to_string(), 2),
        ],
        "each agent keeps its own session, and only the twin's got its commands"
    );

    // Each agent asks for a permission: the twin in a session of its own name.
    let ws = tempfile::tempdir().unwrap();
    let second = backend
        .new_session_in("twin", ws.path().to_str().unwrap(), &[])
        .await
        .expect("the twin's second session");
    let second = serde_json::to_value(&second).unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(second, "test-session-1");
    backend.send_prompt("test-session-1", "permission", &[]).unwrap();
    backend.send_prompt(&second, "permission", &[]).unwrap();
    while askers(&backend).len() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(askers(&backend), vec![first.clone(), "twin".to_string()]);

    // The first agent restarts: its dialog goes, the twin's session and dialog stay.
    backend.restart(&first).unwrap();
    let state: Value = common::app_state(&backend);
    let twin_kept = state["snapshot"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["agentId"] == "twin" && s["sessionId"] == "test-session-1");
    assert!(
        twin_kept,
        "a restart of one agent leaves the other's session: {state:#}"
    );
    assert_eq!(askers(&backend), vec!["twin".to_string()]);
    backend.stop().await;
}
