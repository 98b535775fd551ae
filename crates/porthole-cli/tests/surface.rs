//! The CLI over the rest of the client surface: sessions, auth, permissions, terminals, files.

mod support;

use std::process::{Command, Output};

use serde_json::Value;
use support::workspace_bin;

fn cli_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let agent = workspace_bin("porthole-test-agent").display().to_string();
    Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &agent, "--json"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn cli(args: &[&str]) -> Output {
    cli_env(args, &[])
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn report(lines: &[Value]) -> Value {
    lines
        .iter()
        .rev()
        .find_map(|l| serde_json::from_str(l["update"]["content"]["text"].as_str()?).ok())
        .unwrap_or(Value::Null)
}

#[test]
fn list_sessions_prints_every_page() {
    let out = cli(&["--list-sessions"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ids: Vec<String> = lines(&out)
        .iter()
        .filter(|l| l["type"] == "listed_session")
        .map(|l| l["session"]["sessionId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, vec!["old-1", "old-2"]);
}

#[test]
fn load_replays_history_then_prompts_run_in_the_loaded_session() {
    let out = cli(&["--load", "old-1", "--mode", "code", "updates"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let first_update = l.iter().find(|l| l["type"] == "session_update").unwrap();
    assert_eq!(first_update["sessionId"], "old-1");
    assert_eq!(first_update["update"]["sessionUpdate"], "user_message_chunk");
    assert_eq!(first_update["update"]["content"]["text"], "earlier question");
    let unknown = cli(&["--load", "missing"]);
    assert_eq!(unknown.status.code(), Some(1));
}

#[test]
fn auth_required_names_the_methods_and_auth_fixes_it() {
    let env = [("PORTHOLE_TEST_AGENT_AUTH", "1")];
    let out = cli_env(&["form"], &env);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("run again with --auth agent-login"), "{stderr}");
    // A terminal method is named with the agent's own login command and its environment.
    assert!(
        stderr.contains("terminal-login")
            && stderr.contains("ACP_INTERACTIVE_LOGIN=1")
            && stderr.contains("--login"),
        "{stderr}"
    );
    let out = cli_env(&["--auth", "agent-login", "form"], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn permission_policy_allow_always_is_remembered_by_core() {
    let out = cli(&["--permission", "allow-always", "permission-always"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let asked = l.iter().filter(|l| l["type"] == "permission").count();
    let auto = l.iter().filter(|l| l["type"] == "permission_auto").count();
    assert_eq!((asked, auto), (2, 1));
    let r = report(&l);
    for answer in r["results"].as_array().unwrap() {
        assert_eq!(answer["result"]["outcome"]["optionId"], "always");
    }
    // The default rejects.
    let l = lines(&cli(&["permission-always"]));
    assert_eq!(report(&l)["results"][0]["result"]["outcome"]["optionId"], "no");
}

#[test]
fn terminals_stream_as_events() {
    let out = cli(&["terminal"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let output: String = l
        .iter()
        .filter(|l| l["type"] == "terminal_output")
        .filter_map(|l| l["data"].as_str())
        .collect();
    assert!(output.contains("hello"), "{output}");
    assert!(
        l.iter()
            .any(|l| l["type"] == "terminal_exited" && l["exitCode"] == 3)
    );
}

#[test]
fn files_outside_the_workspace_are_denied_unless_allowed() {
    let l = lines(&cli(&["fs"]));
    let asked: Vec<&Value> = l.iter().filter(|l| l["type"] == "file_access").collect();
    assert!(!asked.is_empty());
    assert!(asked.iter().all(|a| a["allowed"] == false));
    assert_eq!(report(&l)["results"][2]["error"]["code"], -32602);
}

#[test]
fn agent_by_name_from_a_zed_shaped_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("agents.json");
    let agent = workspace_bin("porthole-test-agent").display().to_string();
    let text = format!(
        "{{ // like Zed's\n \"agent_servers\": {{ \"Test Agent\": {{ \"command\": {agent:?}, \"args\": [], }} }} }}"
    );
    std::fs::write(&settings, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap(), "--json", "--agents-file"])
        .arg(&settings)
        .args(["--agent", "Test Agent", "form"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(lines(&out)[0]["agent"]["name"], "porthole-test-agent");
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap(), "--agents-file"])
        .arg(&settings)
        .args(["--agent", "nonexistent-agent-name"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Test Agent"));
}

#[test]
fn the_xss_corpus_scenario_is_well_formed_acp() {
    // The end-to-end injection test relies on every payload reaching the window as valid
    // ACP: typed updates, a form that parses, a URL that passes the rules.
    let out = cli_env(&["xss"], &[("PORTHOLE_TEST_AGENT_HOSTILE", "1")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    assert!(!l.iter().any(|l| l["type"] == "malformed_update"));
    let elicitations: Vec<&Value> = l.iter().filter(|l| l["type"] == "elicitation").collect();
    assert_eq!(elicitations.len(), 2);
    assert!(
        elicitations.iter().all(|e| e["error"].is_null()),
        "{elicitations:?}"
    );
    assert_eq!(l[0]["agent"]["name"], "<img src=x onerror=\"window.__pwned=1\">");
    // The permission request's right-to-left override option is flagged by core.
    let permission = l
        .iter()
        .find(|l| l["type"] == "permission")
        .expect("a permission request");
    assert_eq!(
        permission["warnings"],
        serde_json::json!(["bidi-control"]),
        "{permission}"
    );
    let corpus: Vec<String> = serde_json::from_str(include_str!("../../../tests/xss/payloads.json")).unwrap();
    assert!(corpus.len() >= 50);
}

#[test]
fn model_switches_the_session_to_an_offered_model() {
    let out = cli(&["--model", "model-large", "current-model"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let session = l.iter().find(|l| l["type"] == "session").unwrap();
    assert_eq!(session["models"]["currentModelId"], "model-large", "{session}");
    assert_eq!(session["models"]["availableModels"].as_array().unwrap().len(), 2);
    assert_eq!(report(&l)["results"][0]["model"], "model-large");

    let out = cli(&["--model", "model-huge", "current-model"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not offer the model `model-huge`"));
}

#[test]
fn fork_prompts_in_a_new_session_forked_from_a_stored_one() {
    let out = cli(&["--fork", "old-1", "current-model"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let session = l.iter().find(|l| l["type"] == "session").unwrap();
    assert_eq!(session["sessionId"], "test-session-fork-1");
    assert_eq!(report(&l)["results"][0]["session"], "test-session-fork-1");
}

#[test]
fn fork_is_refused_for_an_agent_that_does_not_advertise_it() {
    let dir = tempfile::tempdir().unwrap();
    let demo = workspace_bin("porthole-demo-agent").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args([
            "--cwd",
            dir.path().to_str().unwrap(),
            "--agent",
            &demo,
            "--fork",
            "x",
            "hello",
        ])
        .output()
        .unwrap();
    // Not advertised: a usage error, and nothing is sent.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does not advertise `session/fork`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn env_var_sign_in_uses_the_environment_and_never_prints_the_value() {
    let needs = [("PORTHOLE_TEST_AGENT_AUTH", "1")];
    let out = cli_env(&["env"], &needs);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("api-key (API key): set PORTHOLE_TEST_API_KEY (Test agent API key) in the environment"),
        "{stderr}"
    );

    let out = cli_env(&["--auth", "api-key", "env"], &needs);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("needs these variables set in the environment: PORTHOLE_TEST_API_KEY")
    );

    let secret = "sk-test-value-never-printed";
    let env = [
        ("PORTHOLE_TEST_AGENT_AUTH", "1"),
        ("PORTHOLE_TEST_API_KEY", secret),
    ];
    let out = cli_env(&["--auth", "api-key", "env"], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(report(&lines(&out))["results"][0]["apiKeySet"], true);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(secret));
}

fn texts(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "session_update")
        .filter_map(|l| {
            l["update"]["content"]["text"]
                .as_str()
                .or(l["update"]["title"].as_str())
                .map(str::to_string)
        })
        .collect()
}

/// The lines the CLI sent to the agent (`PORTHOLE_TEST_AGENT_LOG`).
fn sent(args: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Value>) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let path = log.path().to_str().unwrap().to_string();
    let mut env = env.to_vec();
    env.push(("PORTHOLE_TEST_AGENT_LOG", &path));
    let out = cli_env(args, &env);
    let sent = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, sent)
}

fn methods(sent: &[Value]) -> Vec<&str> {
    sent.iter().filter_map(|l| l["method"].as_str()).collect()
}

#[test]
fn load_with_no_prompt_prints_the_history_replayed_after_the_answer_too() {
    // The test agent replays one message before answering session/load and the rest after it,
    // 50 ms later (as Gemini CLI does); the CLI reads until the agent has been quiet for 3 s.
    let out = cli(&["--load", "old-1", "--load-quiet-ms", "3000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    assert_eq!(texts(&l), vec!["earlier question", "earlier answer", "Read file"]);
    assert!(
        l.iter()
            .all(|l| l["type"] != "session_update" || l["sessionId"] == "old-1")
    );
}

#[test]
fn cancel_after_updates_counts_only_the_turns_own_content() {
    // Five updates that are not the turn's content come first (commands, a mode notice, the
    // user's message echoed, usage, session info): the cancel still comes after chunk 4.
    let out = cli(&["--cancel-after-updates", "4", "cancel-count"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    assert_eq!(
        report(&l)["results"][0]["chunksBeforeCancel"],
        4,
        "{:?}",
        texts(&l)
    );
    let end = l.iter().find(|l| l["type"] == "turn_end").unwrap();
    assert_eq!(end["stopReason"], "cancelled");
}

#[test]
fn mode_must_be_advertised_or_nothing_is_sent() {
    let (out, sent_lines) = sent(&["--mode", "turbo", "updates"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--mode turbo: the agent does not offer this mode; its modes: ask, code"),
        "{stderr}"
    );
    let m = methods(&sent_lines);
    assert!(
        !m.contains(&"session/set_mode") && !m.contains(&"session/prompt"),
        "{m:?}"
    );
    // An advertised one is sent.
    let (out, sent_lines) = sent(&["--mode", "code", "updates"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(methods(&sent_lines).contains(&"session/set_mode"));
}

#[test]
fn config_sets_advertised_options_and_refuses_anything_else_unsent() {
    let (out, sent_lines) = sent(
        &["--config", "model=deep", "--config", "web=true", "updates"],
        &[],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let set: Vec<&Value> = sent_lines
        .iter()
        .filter(|l| l["method"] == "session/set_config_option")
        .collect();
    assert_eq!(set.len(), 2);
    assert_eq!(
        (&set[0]["params"]["configId"], &set[0]["params"]["value"]),
        (&Value::from("model"), &Value::from("deep"))
    );
    assert_eq!(
        (&set[1]["params"]["configId"], &set[1]["params"]["value"]),
        (&Value::from("web"), &Value::Bool(true))
    );
    let l = lines(&out);
    let options = l.iter().find(|l| l["type"] == "config_options").unwrap();
    assert_eq!(options["configOptions"][0]["currentValue"], "deep", "{options}");
    assert_eq!(options["configOptions"][1]["currentValue"], true, "{options}");

    for (flag, expected) in [
        (
            "model=huge",
            "--config model=huge: not one of the option's values: fast, deep",
        ),
        (
            "colour=red",
            "--config colour: the agent has no such config option; its options: model, web",
        ),
        (
            "web=maybe",
            "--config web=maybe: a boolean option takes true or false",
        ),
    ] {
        let (out, sent_lines) = sent(&["--config", "model=deep", "--config", flag, "updates"], &[]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{flag}: {stderr}");
        // Checked before anything is sent, the valid one included.
        let m = methods(&sent_lines);
        assert!(
            !m.contains(&"session/set_config_option") && !m.contains(&"session/prompt"),
            "{flag}: {m:?}"
        );
    }
    let out = cli(&["--config", "model", "updates"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected ID=VALUE"));
}

#[test]
fn api_key_sign_in_sends_the_key_in_authenticate_meta_and_words_a_refusal_truthfully() {
    let gemini = [
        ("PORTHOLE_TEST_AGENT_AUTH", "1"),
        ("PORTHOLE_TEST_AGENT_NAME", "gemini-cli"),
    ];
    // Without --auth: the method is named, with where the key comes from.
    let out = cli_env(&["env"], &gemini);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gemini-api-key (Gemini API key): an API key; run again with --auth gemini-api-key"),
        "{stderr}"
    );
    // No key and no terminal: authenticate without one (an agent may find its own, as Gemini
    // does in GEMINI_API_KEY); this one has none, and the hint says what to do.
    let (out, sent_lines) = sent(&["--auth", "gemini-api-key", "env"], &gemini);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "yet the agent still asks you to sign in: no API key was given (set PORTHOLE_API_KEY, \
             or run porthole-cli in a terminal to type it)"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("run again with --auth gemini-api-key"),
        "{stderr}"
    );
    let auth = sent_lines.iter().find(|l| l["method"] == "authenticate").unwrap();
    assert_eq!(auth["params"].get("_meta"), None, "{auth}");

    // The right key: sent as Gemini reads it, and never printed.
    let key = "test-key-accepted";
    let mut env = gemini.to_vec();
    env.push(("PORTHOLE_API_KEY", key));
    let (out, sent_lines) = sent(&["--auth", "gemini-api-key", "env"], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let auth = sent_lines.iter().find(|l| l["method"] == "authenticate").unwrap();
    assert_eq!(auth["params"]["methodId"], "gemini-api-key");
    assert_eq!(auth["params"]["_meta"]["api-key"], key);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(key));
    assert!(!String::from_utf8_lossy(&out.stderr).contains(key));

    // A key the agent does not accept: authenticate succeeds, session/new still asks. The
    // hint says so instead of "run again with --auth gemini-api-key", which was just done.
    let mut env = gemini.to_vec();
    env.push(("PORTHOLE_API_KEY", "wrong-key"));
    let out = cli_env(&["--auth", "gemini-api-key", "env"], &env);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "signed in with --auth gemini-api-key, yet the agent still asks you to sign in: \
             the API key from PORTHOLE_API_KEY was not accepted"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("run again with --auth gemini-api-key"),
        "{stderr}"
    );
    assert!(!stderr.contains("wrong-key"), "{stderr}");

    // Codex's `api-key` method: the key as `{apiKey}`.
    let codex = [
        ("PORTHOLE_TEST_AGENT_AUTH", "1"),
        ("PORTHOLE_TEST_AGENT_NAME", "@agentclientprotocol/codex-acp"),
        ("PORTHOLE_API_KEY", key),
    ];
    let (out, sent_lines) = sent(&["--auth", "api-key", "env"], &codex);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let auth = sent_lines.iter().find(|l| l["method"] == "authenticate").unwrap();
    assert_eq!(auth["params"]["_meta"]["api-key"]["apiKey"], key);
    assert_eq!(
        auth["params"]["_meta"]["apiKey"], key,
        "for codex-acp versions that read _meta.apiKey"
    );
}

/// The demo agent advertises none of session/delete, logout or additionalDirectories.
fn demo(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let demo = workspace_bin("porthole-demo-agent").display().to_string();
    Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", dir.path().to_str().unwrap(), "--agent", &demo])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn add_dir_makes_another_root_the_agent_may_write_in() {
    let ws = tempfile::tempdir().unwrap();
    let extra = tempfile::tempdir().unwrap();
    let log = tempfile::NamedTempFile::new().unwrap();
    let agent = workspace_bin("porthole-test-agent").display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_porthole-cli"))
        .args(["--cwd", ws.path().to_str().unwrap(), "--agent", &agent, "--json"])
        .args(["--add-dir", extra.path().to_str().unwrap(), "roots"])
        .env("PORTHOLE_TEST_AGENT_LOG", log.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let extra_real = extra.path().canonicalize().unwrap();
    let sent: Vec<Value> = std::fs::read_to_string(log.path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let new = sent.iter().find(|l| l["method"] == "session/new").unwrap();
    assert_eq!(
        new["params"]["additionalDirectories"],
        serde_json::json!([extra_real])
    );
    let results = &report(&lines(&out))["results"];
    assert_eq!(
        results[0]["additionalDirectories"][0],
        extra_real.to_str().unwrap()
    );
    // Inside the additional folder: written. Beside it: refused like any path outside.
    assert!(results[1]["result"].is_object(), "{results}");
    assert_eq!(
        std::fs::read_to_string(extra.path().join("from-agent.txt")).unwrap(),
        "written by the agent\n"
    );
    assert!(results[2]["error"].is_object(), "{results}");
    assert!(!extra_real.parent().unwrap().join("beside-root.txt").exists());
}

#[test]
fn add_dir_load_and_resume_send_the_folders_again() {
    let extra = tempfile::tempdir().unwrap();
    let extra = extra.path().to_str().unwrap();
    for how in ["--load", "--resume"] {
        let (out, log) = sent(&[how, "old-1", "--add-dir", extra, "roots"], &[]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let method = if how == "--load" {
            "session/load"
        } else {
            "session/resume"
        };
        let request = log.iter().find(|l| l["method"] == method).unwrap();
        assert_eq!(
            request["params"]["additionalDirectories"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
    // No --add-dir: the field is left out.
    let (_, log) = sent(&["roots"], &[]);
    let new = log.iter().find(|l| l["method"] == "session/new").unwrap();
    assert!(new["params"].get("additionalDirectories").is_none(), "{new}");
}

#[test]
fn add_dir_is_a_usage_error_for_an_agent_without_it_or_a_missing_folder() {
    let extra = tempfile::tempdir().unwrap();
    let out = demo(&["--add-dir", extra.path().to_str().unwrap(), "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does not advertise `additionalDirectories`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = cli(&["--add-dir", "/no/such/folder", "roots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--add-dir /no/such/folder is not a directory"));
}

#[test]
fn delete_session_and_logout_are_sent_when_advertised_and_refused_unsent_otherwise() {
    let (out, log) = sent(&["--delete-session", "old-2"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let delete = log.iter().find(|l| l["method"] == "session/delete").unwrap();
    assert_eq!(delete["params"]["sessionId"], "old-2");
    assert!(
        lines(&out)
            .iter()
            .any(|l| l["type"] == "done" && l["request"] == "session/delete")
    );
    assert!(!methods(&log).contains(&"session/new"), "nothing else is opened");

    let (out, log) = sent(&["--logout"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(methods(&log).contains(&"logout"));

    for (flag, what) in [
        (&["--logout"][..], "logout"),
        (&["--delete-session", "x"][..], "session/delete"),
    ] {
        let out = demo(flag);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("does not advertise `{what}`")),
            "{stderr}"
        );
    }
}

#[test]
fn a_url_elicitation_during_authenticate_is_answered_while_the_sign_in_waits() {
    // As Codex's device-code sign-in: the agent asks before it answers `authenticate`. The CLI
    // must answer then (it used to read events only once the session was open, and hung).
    let needs = [("PORTHOLE_TEST_AGENT_AUTH", "1")];
    let out = cli_env(&["--auth", "url-login", "--elicit", "accept", "roots"], &needs);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let l = lines(&out);
    let asked = l
        .iter()
        .find(|l| l["type"] == "elicitation")
        .expect("the elicitation is printed");
    assert_eq!(asked["mode"], "url");
    assert_eq!(asked["action"], "accept");
    assert!(l.iter().any(|l| l["type"] == "elicitation_complete"));
    assert!(
        l.iter().any(|l| l["type"] == "turn_end"),
        "the session opened after the sign-in"
    );

    let out = cli_env(&["--auth", "url-login", "--elicit", "decline", "roots"], &needs);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Sign-in did not complete"));
}
