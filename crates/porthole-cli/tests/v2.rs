//! `--protocol 1|2|auto` and the `--json` lines of ACP v2 (docs/acp-v2.md), against the
//! scripted test agent (`PORTHOLE_TEST_AGENT_V2` makes it take a v2 offer).

mod support;

use std::process::{Command, Output};

use serde_json::Value;
use support::workspace_bin;

fn cli(args: &[&str], v2_agent: bool) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let agent = workspace_bin("porthole-test-agent").display().to_string();
    let mut command = Command::new(env!("CARGO_BIN_EXE_porthole-cli"));
    command
        .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &agent])
        .args(args);
    if v2_agent {
        command.env("PORTHOLE_TEST_AGENT_V2", "1");
    }
    command.output().unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn protocol_of(lines: &[Value]) -> Value {
    let init = lines
        .iter()
        .find(|l| l["type"] == "initialized")
        .expect("an initialized line");
    init["protocolVersion"].clone()
}

#[test]
fn the_negotiated_version_is_in_the_initialized_line() {
    for (flag, v2_agent, expected) in [
        ("auto", true, 2),
        ("auto", false, 1),
        ("1", true, 1),
        ("2", true, 2),
    ] {
        let out = cli(&["--json", "--protocol", flag], v2_agent);
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(protocol_of(&lines(&out)), expected, "--protocol {flag}");
    }
}

#[test]
fn protocol_2_with_a_v1_agent_fails_clearly() {
    let out = cli(&["--json", "--protocol", "2"], false);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("protocol version 1") && stderr.contains("version 2 was required"),
        "{stderr}"
    );
}

#[test]
fn the_text_mode_names_the_version() {
    let out = cli(&["--protocol", "auto"], true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(ACP v2)"), "{stderr}");
}

#[test]
fn v2_updates_are_json_lines_and_idle_ends_the_turn() {
    let out = cli(
        &[
            "--json",
            "--protocol",
            "2",
            "--permission",
            "allow-once",
            "v2-upserts",
            "v2-background",
            "v2-permission",
        ],
        true,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let updates: Vec<&Value> = l
        .iter()
        .filter(|l| l["type"] == "session_update")
        .map(|l| &l["update"])
        .collect();
    let kinds: Vec<&str> = updates
        .iter()
        .filter_map(|u| u["sessionUpdate"].as_str())
        .collect();
    for kind in [
        "state_update",
        "agent_message_chunk",
        "agent_message",
        "agent_thought",
        "tool_call_update",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    // An upsert's content as it came: replaced, kept (left out), cleared (null).
    let m1: Vec<&&Value> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message" && u["messageId"] == "m1")
        .collect();
    assert_eq!(m1[0]["content"][0]["text"], "Hello, edited");
    assert!(m1[1].get("content").is_none(), "{}", m1[1]);
    let thought = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "agent_thought")
        .unwrap();
    assert!(
        thought["content"].is_null() && thought.get("content").is_some(),
        "{thought}"
    );
    // The running state, with its background work as it came.
    let background = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "state_update" && u.get("background").is_some())
        .expect("a state with background work");
    assert_eq!(background["background"][0]["toolCallId"], "bg-1");
    let states: Vec<&str> = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "state_update")
        .filter_map(|u| u["state"].as_str())
        .collect();
    assert!(states.contains(&"requires_action"), "{states:?}");
    // One turn_end per prompt, each after its idle.
    let ends: Vec<&Value> = l.iter().filter(|l| l["type"] == "turn_end").collect();
    assert_eq!(ends.len(), 3, "{l:?}");
    assert!(ends.iter().all(|e| e["stopReason"] == "end_turn"), "{ends:?}");
    let permission = l
        .iter()
        .find(|l| l["type"] == "permission")
        .expect("a permission line");
    assert_eq!(permission["selected"], "allow", "{permission}");
}

/// A subagent (v2's `subagent_update`, unstable in the schema): with `--json` a `session_update`
/// line with the update as the agent sent it; as text, a `[subagent ...]` line.
#[test]
fn a_subagent_is_a_json_line_and_a_text_line() {
    let out = cli(&["--json", "--protocol", "2", "v2-unknown-kinds"], true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let subagent = l
        .iter()
        .find(|l| l["type"] == "session_update" && l["update"]["sessionUpdate"] == "subagent_update")
        .expect("a subagent_update line");
    assert_eq!(
        subagent["update"],
        serde_json::json!({"sessionUpdate": "subagent_update", "sessionId": "child-1", "title": "Helper"})
    );

    let out = cli(&["--protocol", "2", "v2-unknown-kinds"], true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[subagent child-1] Helper"), "{stderr}");
    assert!(!stderr.contains("does not know: subagent_update"), "{stderr}");
}

/// `--close`: after the prompts, `session/close` for the session (v2 always has it; the v1
/// test agent advertises it), then a `done` line.
#[test]
fn close_closes_the_session_after_the_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let agent = workspace_bin("porthole-test-agent").display().to_string();
    for (v2, protocol, prompt) in [(true, "2", "v2-upserts"), (false, "1", "hello")] {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_porthole-cli"));
        command
            .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &agent, "--json"])
            .args(["--protocol", protocol, "--close", prompt])
            .env("PORTHOLE_TEST_AGENT_LOG", log.path());
        if v2 {
            command.env("PORTHOLE_TEST_AGENT_V2", "1");
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let l = lines(&out);
        let end = l
            .iter()
            .position(|l| l["type"] == "turn_end")
            .expect("the turn ended");
        let done = l
            .iter()
            .position(|l| l["type"] == "done" && l["request"] == "session/close");
        assert!(done.is_some_and(|d| d > end), "v{protocol}: {l:?}");
        let sent: Vec<Value> = std::fs::read_to_string(log.path())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let session = l.iter().find(|l| l["type"] == "session").unwrap()["sessionId"].clone();
        let close: Vec<&Value> = sent.iter().filter(|m| m["method"] == "session/close").collect();
        assert_eq!(close.len(), 1, "v{protocol}: {sent:?}");
        assert_eq!(close[0]["params"]["sessionId"], session);
    }
}
