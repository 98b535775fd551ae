//! The window's setting of the ACP version per agent (`set_agent_protocol`, saved in the
//! settings' `agentProtocols`): read when the agent's connection starts, so a change applies at
//! its next start or restart; a version the agent does not speak is the connection's error.

mod common;

use std::time::Duration;

use serde_json::{Value, json};

/// The connection of `agent` in the app model's state now, once `ready` says it is what the
/// test waits for.
async fn connection_when(
    backend: &porthole_app::Backend,
    agent: &str,
    what: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..750 {
        let state = common::app_state(backend);
        let found = state["snapshot"]["connections"]
            .as_array()
            .and_then(|all| all.iter().find(|c| c["agentId"] == agent).cloned());
        if let Some(c) = found.filter(|c| ready(c)) {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "{agent}: no {what} in {:#}",
        common::app_state(backend)["snapshot"]["connections"]
    );
}

async fn speaking(backend: &porthole_app::Backend, agent: &str, version: u16) -> Value {
    connection_when(
        backend,
        agent,
        &format!("connection speaking ACP v{version}"),
        |c| c["state"] == "connected" && c["protocolVersion"] == version,
    )
    .await
}

fn message(e: porthole_app::AnswerError) -> String {
    serde_json::to_value(&e).unwrap()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn an_agents_acp_version_setting_applies_at_its_next_start() {
    let home = tempfile::tempdir().unwrap();
    common::set_home(home.path());
    let demo = common::workspace_bin("porthole-demo-agent", "porthole-demo-agent");
    // The demo agent twice: serving both versions (as it does by default), and v1 only (it
    // answers a v2 `initialize` with 1).
    let agents = home.path().join("agents.json");
    let entry = |versions: &str| json!({"command": demo, "env": {"PORTHOLE_DEMO_AGENT_PROTOCOLS": versions}});
    std::fs::write(
        &agents,
        json!({"agent_servers": {"Both": entry("1,2"), "Only v1": entry("1")}}).to_string(),
    )
    .unwrap();
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_AGENTS_FILE", &agents);
    }
    let mut launch = porthole_app::Launch::from_args(Some("both"), Some(home.path().to_path_buf())).unwrap();
    launch.sealed_view = Some(common::fake_sealed_view());
    let shell = std::sync::Arc::new(common::FakeShell::default());
    let backend = porthole_app::Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);
    backend.start();

    // Auto (no setting): the agent takes the v2 offer.
    speaking(&backend, "both", 2).await;
    let settings = || common::app_state(&backend)["snapshot"]["appSettings"]["agentProtocols"].clone();
    assert_eq!(settings(), json!({}));

    // 1: saved at once, used from the next start; the running connection keeps its version.
    backend.set_agent_protocol("both", "1").expect("set");
    assert_eq!(settings(), json!({"both": "1"}));
    let saved: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".config/porthole/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        saved["agentProtocols"],
        json!({"both": "1"}),
        "saved with the settings"
    );
    speaking(&backend, "both", 2).await;
    backend.restart("both").expect("restart");
    speaking(&backend, "both", 1).await;

    // 2: v2 again after a restart.
    backend.set_agent_protocol("both", "2").expect("set");
    backend.restart("both").expect("restart");
    speaking(&backend, "both", 2).await;

    // Bad values are refused with what is allowed, and the setting is unchanged.
    for bad in ["3", "v1", ""] {
        let e = message(backend.set_agent_protocol("both", bad).unwrap_err());
        assert!(e.contains(r#""auto", "1" or "2""#), "{bad}: {e}");
    }
    let e = message(backend.set_agent_protocol("nobody", "1").unwrap_err());
    assert!(e.contains("unknown agent `nobody`"), "{e}");
    assert_eq!(settings(), json!({"both": "2"}));

    // An agent that speaks only v1, forced to 2: its connection fails and says why.
    backend.set_agent_protocol("only-v1", "2").expect("set");
    backend.connect_agent("only-v1").expect("connect");
    let failed = connection_when(&backend, "only-v1", "failed connection", |c| {
        c["state"] == "failed"
    })
    .await;
    let why = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(why.contains("version 2 was required"), "{failed:#}");

    // Back to auto: the entry goes, and the same agent connects in v1.
    backend.set_agent_protocol("only-v1", "auto").expect("set");
    assert_eq!(settings(), json!({"both": "2"}));
    backend.restart("only-v1").expect("restart");
    speaking(&backend, "only-v1", 1).await;
    backend.stop().await;
}
