//! Sign-in values in a real OS keyring: the Secret Service of a GNOME Keyring started for the
//! test run (`scripts/with-keyring`, which `scripts/test` uses). Ignored by a plain
//! `cargo test`, which has no keyring to talk to.

use porthole_profiles::secrets::AgentSecrets;

#[test]
#[ignore = "needs a Secret Service: run with scripts/with-keyring cargo test -p porthole-profiles --test keyring -- --ignored"]
fn values_live_in_the_secret_service_and_only_names_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("secret-names.json");
    let agent = format!("keyring-test-{}", std::process::id());
    let secrets = AgentSecrets::os(index.clone()).expect("a Secret Service (run under scripts/with-keyring)");
    secrets
        .set(
            &agent,
            &[("PORTHOLE_TEST_API_KEY".into(), "sk-live-value".into())],
        )
        .expect("stored in the keyring");

    // A second handle (as after a restart) reads the value back from the keyring.
    let again = AgentSecrets::os(index.clone()).unwrap();
    assert_eq!(
        again.env_for(&agent).unwrap(),
        vec![("PORTHOLE_TEST_API_KEY".to_string(), "sk-live-value".to_string())]
    );
    // The value is in the Secret Service, under Porthole's service name.
    let out = std::process::Command::new("secret-tool")
        .args([
            "lookup",
            "service",
            "porthole",
            "username",
            &format!("{agent}:PORTHOLE_TEST_API_KEY"),
        ])
        .output()
        .expect("secret-tool (libsecret-tools) is installed");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "sk-live-value");
    // And nowhere in the file.
    let file = std::fs::read_to_string(&index).unwrap();
    assert!(!file.contains("sk-live-value"), "{file}");

    assert_eq!(
        again.forget(&agent).unwrap(),
        vec!["PORTHOLE_TEST_API_KEY".to_string()]
    );
    let out = std::process::Command::new("secret-tool")
        .args([
            "lookup",
            "service",
            "porthole",
            "username",
            &format!("{agent}:PORTHOLE_TEST_API_KEY"),
        ])
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "the value is deleted from the keyring");
}
