//! `--agent ID` starts a configured agent with the sign-in values the window saved for it in the
//! OS keyring (a GNOME Keyring of scripts/with-keyring; ignored by a plain `cargo test`).

mod support;

use std::process::Command;

use porthole_core::secrets::AgentSecrets;
use support::workspace_bin;

#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-cli --test keyring -- --ignored"]
fn a_configured_agent_starts_with_its_saved_sign_in_values() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config");
    std::fs::create_dir_all(config.join("porthole")).unwrap();
    let agent_id = format!("keyring-cli-{}", std::process::id());
    // The test agent refuses a session until signed in; its env_var method's variable signs it in.
    std::fs::write(
        config.join("porthole/agents.json"),
        serde_json::json!({"agent_servers": {agent_id.clone(): {
            "command": workspace_bin("porthole-test-agent"),
            "env": {"PORTHOLE_TEST_AGENT_AUTH": "1"}}}})
        .to_string(),
    )
    .unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
            .args([
                "--cwd",
                home.path().to_str().unwrap(),
                "--agent",
                &agent_id,
                "--json",
                "hello",
            ])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", &config)
            .env_remove("PORTHOLE_TEST_API_KEY")
            .output()
            .unwrap()
    };

    let before = run();
    assert!(!before.status.success(), "refused before signing in");
    assert!(String::from_utf8_lossy(&before.stderr).contains("PORTHOLE_TEST_API_KEY"));

    let secrets = AgentSecrets::os(config.join("porthole/secret-names.json")).expect("a Secret Service");
    secrets
        .set(&agent_id, &[("PORTHOLE_TEST_API_KEY".into(), "sk-cli".into())])
        .unwrap();
    let after = run();
    let _ = secrets.forget(&agent_id);
    assert!(
        after.status.success(),
        "signed in from the keyring: {}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert!(String::from_utf8_lossy(&after.stdout).contains("unknown scenario hello"));
}
