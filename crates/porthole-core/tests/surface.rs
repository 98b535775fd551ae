//! The rest of the ACP v1 client surface against the scripted agent: terminals, every update
//! kind, remembered permissions, session lifecycle, config, authentication, cancellation.

mod common;

use std::time::Duration;

use common::{start, start_with};
use porthole_core::acp::v1::schema::SessionConfigKind;
use porthole_core::events::{DialogPrompt, Event};
use porthole_core::sessions::ConfigValue;
use porthole_core::transcript::{ItemUpdate, MessageRole, SessionState, TranscriptUpdate};
use porthole_core::{AgentClient, AgentCommand, ClientError, ClientOptions};
use serde_json::json;

#[tokio::test]
async fn terminals_run_real_processes_with_exit_status_kill_release_and_limits() {
    let mut h = start().await;
    let (events, report) = h.turn("terminal", |_, _| {}).await;
    let r = report["results"].as_array().unwrap();
    let id = r[0]["result"]["terminalId"]
        .as_str()
        .expect("terminal id")
        .to_string();
    assert_eq!(r[1]["result"], json!({"exitCode":3}), "{}", r[1]);
    let output = r[2]["result"]["output"].as_str().unwrap();
    assert!(
        output.contains("hello\n") && output.contains("oops\n"),
        "{output:?}"
    );
    assert_eq!(r[2]["result"]["truncated"], false);
    assert_eq!(r[2]["result"]["exitStatus"]["exitCode"], 3);
    assert!(r[3]["result"].is_object(), "release: {}", r[3]);
    assert_eq!(r[4]["error"]["code"], -32602, "output after release: {}", r[4]);
    assert!(r[5]["result"].is_object(), "kill: {}", r[5]);
    assert_eq!(r[6]["result"]["signal"], "SIGKILL", "{}", r[6]);
    assert!(r[7]["result"].is_object(), "release after kill: {}", r[7]);
    let limited = &r[8]["result"];
    assert_eq!(limited["truncated"], true, "{limited}");
    assert!(limited["output"].as_str().unwrap().len() <= 40);
    assert!(limited["output"].as_str().unwrap().ends_with("line-99\n"));
    assert_eq!(r[9]["error"]["code"], -32603, "missing program: {}", r[9]);
    assert!(r[9]["error"].to_string().contains("/no/such/program"));
    assert_eq!(r[10]["error"]["code"], -32602, "relative cwd: {}", r[10]);

    // The front end saw the terminal live: created, output, exit, release, in that order.
    let mine: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::TerminalCreated { terminal_id, .. } if *terminal_id == id => Some("created"),
            Event::TerminalOutput { terminal_id, .. } if *terminal_id == id => Some("output"),
            Event::TerminalExited {
                terminal_id,
                exit_code,
                ..
            } if *terminal_id == id => {
                assert_eq!(*exit_code, Some(3));
                Some("exited")
            }
            Event::TerminalReleased { terminal_id } if *terminal_id == id => Some("released"),
            _ => None,
        })
        .collect();
    assert_eq!(mine.first(), Some(&"created"));
    assert!(mine.contains(&"output"));
    let exited = mine.iter().position(|k| *k == "exited").unwrap();
    let released = mine.iter().position(|k| *k == "released").unwrap();
    assert!(exited < released, "{mine:?}");
    h.check_schema();
}

#[tokio::test]
async fn every_stable_update_kind_arrives_typed() {
    let mut h = start().await;
    let (events, _) = h.turn("updates", |_, _| {}).await;
    assert!(
        !events.iter().any(|e| matches!(e, Event::MalformedUpdate { .. })
            || matches!(e, Event::SessionUpdate { update, .. } if update.kind() == "unknown")),
        "all kinds typed"
    );
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::SessionUpdate { update, .. } => Some(match update.as_ref() {
                TranscriptUpdate::Item(ItemUpdate::Message(m)) => m.role.name(),
                TranscriptUpdate::Item(ItemUpdate::ToolCall(c)) if c.opened => "tool_call",
                TranscriptUpdate::Item(ItemUpdate::ToolCall(_)) => "tool_call_update",
                TranscriptUpdate::Item(ItemUpdate::Plan(_)) => "plan",
                TranscriptUpdate::Session(SessionState::AvailableCommands(_)) => "commands",
                TranscriptUpdate::Session(SessionState::CurrentMode(_)) => "mode",
                TranscriptUpdate::Session(SessionState::ConfigOptions(_)) => "config",
                TranscriptUpdate::Session(SessionState::SessionInfo(_)) => "info",
                TranscriptUpdate::Session(SessionState::Usage(_)) => "usage",
                other => other.kind(),
            }),
            _ => None,
        })
        .collect();
    for kind in [
        "user",
        "thought",
        "tool_call",
        "tool_call_update",
        "plan",
        "commands",
        "mode",
        "config",
        "info",
        "usage",
    ] {
        assert!(kinds.contains(&kind), "missing {kind}: {kinds:?}");
    }
    // Message ids survive for grouping.
    let ids: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::SessionUpdate { update, .. } => update
                .message()
                .filter(|m| m.role == MessageRole::Agent)
                .and_then(|m| m.message_id.as_ref().map(|m| m.0.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(ids, vec!["m1".to_string(), "m1".to_string()]);
}

#[tokio::test]
async fn always_allow_is_remembered_per_session_and_kind_visible_and_revocable() {
    let mut h = start().await;
    let mut asked = Vec::new();
    let mut auto = Vec::new();
    let (_, report) = h
        .turn("permission-always", |client, e| match e {
            Event::Dialog(DialogPrompt::Permission(p)) => {
                asked.push(p.tool_call.tool_call_id.0.to_string());
                client
                    .respond_permission(p.dialog_id, Some("always".into()))
                    .unwrap();
            }
            Event::PermissionAuto {
                tool_call, option_id, ..
            } => auto.push((tool_call.tool_call_id.0.to_string(), option_id.clone())),
            _ => {}
        })
        .await;
    let r = report["results"].as_array().unwrap();
    for answer in r {
        assert_eq!(answer["result"]["outcome"]["optionId"], "always", "{answer}");
    }
    // tc-b's kind came from its tool_call update; tc-c is another kind and was asked.
    assert_eq!(asked, vec!["tc-a", "tc-c"]);
    assert_eq!(auto, vec![("tc-b".to_string(), "always".to_string())]);
    let rules = h.client.permission_rules();
    assert_eq!(rules.len(), 2, "{rules:?}");
    let edit = rules.iter().find(|r| r.tool_kind == "edit").unwrap();
    assert!(h.client.revoke_permission_rule(edit.rule_id));
    assert_eq!(h.client.permission_rules().len(), 1);

    // Revoked: the next edit is asked again. tc-b's request names it by id alone: its title and
    // kind come from its tool_call update (Mistral Vibe asks so).
    let mut asked_again = Vec::new();
    h.turn("permission-always", |client, e| {
        if let Event::Dialog(DialogPrompt::Permission(p)) = e {
            if p.tool_call.tool_call_id.0.as_ref() == "tc-b" {
                assert_eq!(p.tool_call.fields.title.as_deref(), Some("Edit b"));
                assert_eq!(p.tool_kind, "edit");
            }
            asked_again.push(p.tool_call.tool_call_id.0.to_string());
            client
                .respond_permission(p.dialog_id, Some("once".into()))
                .unwrap();
        }
    })
    .await;
    // execute is still remembered, edit is not.
    assert_eq!(asked_again, vec!["tc-a", "tc-b"]);
}

#[tokio::test]
async fn sessions_list_load_resume_close_delete_and_settings() {
    let mut h = start().await;
    let caps = h.client.agent_capabilities();
    assert!(caps.load_session);

    let page = h.client.list_sessions(None, None).await.unwrap();
    assert_eq!(page.sessions.len(), 1);
    assert_eq!(page.sessions[0].title.as_deref(), Some("First"));
    let page2 = h
        .client
        .list_sessions(None, page.next_cursor.clone())
        .await
        .unwrap();
    assert_eq!(page2.sessions[0].session_id.0.as_ref(), "old-2");
    assert!(page2.next_cursor.is_none());

    // Load replays history as updates before the answer.
    let cwd = h.dir.path().canonicalize().unwrap();
    let loaded = h.client.load_session("old-1", cwd.clone()).await.unwrap();
    assert_eq!(loaded.modes.as_ref().unwrap().current_mode_id.0.as_ref(), "code");
    assert_eq!(loaded.config_options.len(), 2);
    let mut replay = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(300), h.events.recv()).await {
        if let Event::SessionUpdate { session_id, update } = e {
            assert_eq!(session_id, "old-1");
            replay.push(update);
        }
    }
    assert_eq!(
        replay.first().and_then(|u| u.message()).map(|m| m.role),
        Some(MessageRole::User)
    );
    assert_eq!(replay.len(), 3);
    // The loaded session is live: prompts and modes work in it.
    h.client.set_mode("old-1", "ask").await.unwrap();
    let err = h.client.set_mode("old-1", "nonsense").await.unwrap_err();
    assert!(matches!(err, ClientError::Rpc { .. }), "{err}");

    let options = h
        .client
        .set_config_option("old-1", "model", ConfigValue::Select("deep".into()))
        .await
        .unwrap();
    match &options[0].kind {
        SessionConfigKind::Select(select) => assert_eq!(select.current_value.0.as_ref(), "deep"),
        other => panic!("select expected: {other:?}"),
    }
    let options = h
        .client
        .set_config_option("old-1", "web", ConfigValue::Boolean(true))
        .await
        .unwrap();
    assert!(matches!(&options[1].kind, SessionConfigKind::Boolean(b) if b.current_value));

    let missing = h.client.load_session("nope", cwd.clone()).await.unwrap_err();
    assert!(matches!(missing, ClientError::Rpc { .. }), "{missing}");
    assert!(matches!(
        h.client.set_mode("nope", "ask").await,
        Err(ClientError::UnknownSession(_))
    ));

    let resumed = h.client.resume_session("old-2", cwd.clone()).await.unwrap();
    assert_eq!(resumed.session_id, "old-2");
    h.client.close_session("old-2").await.unwrap();
    assert!(matches!(
        h.client.prompt_text("old-2", "x"),
        Err(ClientError::UnknownSession(_))
    ));
    h.client.delete_session("old-1").await.unwrap();
    h.client.logout().await.unwrap();
    h.check_schema();
    let sent: Vec<String> = h
        .tap
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(_, l)| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["method"].as_str().map(str::to_string))
        .collect();
    for method in [
        "session/list",
        "session/load",
        "session/resume",
        "session/close",
        "session/delete",
    ] {
        assert!(sent.iter().any(|m| m == method), "{method} sent");
    }
}

/// The demo agent: it advertises no session list, resume or fork.
async fn start_demo_agent() -> (AgentClient, tokio::sync::mpsc::Receiver<Event>) {
    let command = AgentCommand {
        program: common::workspace_bin_path("porthole-demo-agent")
            .display()
            .to_string(),
        args: vec![],
        env: vec![],
        cwd: None,
    };
    AgentClient::start(command, ClientOptions::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn unadvertised_methods_are_not_sent() {
    // The demo agent advertises no session list/resume: nothing goes on the wire.
    let (client, _events) = start_demo_agent().await;
    let caps = client.agent_capabilities().clone();
    if caps.session_capabilities.list.is_none() {
        assert!(matches!(
            client.list_sessions(None, None).await,
            Err(ClientError::Unsupported("session/list"))
        ));
    }
    if caps.session_capabilities.resume.is_none() {
        assert!(matches!(
            client.resume_session("x", std::path::PathBuf::from("/")).await,
            Err(ClientError::Unsupported("session/resume"))
        ));
    }
    assert!(matches!(
        client.authenticate("not-advertised").await,
        Err(ClientError::UnknownAuthMethod(_))
    ));
    client.shutdown().await;
}

#[tokio::test]
async fn auth_required_leads_to_authenticate_then_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let command = AgentCommand {
        program: common::test_agent().display().to_string(),
        args: vec![],
        env: vec![("PORTHOLE_TEST_AGENT_AUTH".into(), "1".into())],
        cwd: None,
    };
    let opts = ClientOptions {
        terminal_auth: true,
        ..Default::default()
    };
    let (client, _events) = AgentClient::start(command, opts).await.unwrap();
    let ids: Vec<String> = client
        .auth_methods()
        .iter()
        .map(|m| m.id().0.to_string())
        .collect();
    assert_eq!(
        ids,
        vec!["agent-login", "url-login", "terminal-login", "api-key"],
        "terminal methods only when advertised; url-login to a client with URL elicitation"
    );
    let err = client.new_session(dir.path().to_path_buf()).await.unwrap_err();
    assert!(err.is_auth_required(), "{err}");
    client.authenticate("agent-login").await.unwrap();
    client.new_session(dir.path().to_path_buf()).await.unwrap();
    client.shutdown().await;
}

#[tokio::test]
async fn terminal_auth_runs_the_login_command_interactively() {
    use porthole_core::terminal::Spec;
    let h = start_with(ClientOptions::default(), vec![]).await;
    let id = h
        .client
        .terminals()
        .create(Spec {
            command: common::test_agent().display().to_string(),
            args: vec!["--login".into()],
            env: vec![("ACP_INTERACTIVE_LOGIN".into(), "1".into())],
            interactive: true,
            ..Spec::default()
        })
        .await
        .unwrap();
    h.client.terminals().write_input(&id, "ada\n").await.unwrap();
    let exit = tokio::time::timeout(
        Duration::from_secs(10),
        h.client.terminals().wait_for_exit(&id).unwrap(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(exit.exit_code, Some(0));
    let (output, _, _) = h.client.terminals().output(&id).unwrap();
    assert!(
        output.contains("Signed in as ada. ACP_INTERACTIVE_LOGIN=1"),
        "{output}"
    );
}

#[tokio::test]
async fn an_abandoned_request_is_cancelled_on_the_wire() {
    let h = start().await;
    let abandoned = tokio::time::timeout(
        Duration::from_millis(300),
        h.client.list_sessions(None, Some("hang".into())),
    )
    .await;
    assert!(abandoned.is_err(), "the agent never answers this page");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let cancelled = h
            .tap
            .lines
            .lock()
            .unwrap()
            .iter()
            .any(|(_, l)| l.contains("$/cancel_request"));
        if cancelled {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no $/cancel_request sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The connection still works.
    assert!(h.client.list_sessions(None, None).await.is_ok());
    h.check_schema();
}

/// `session/set_model` and `session/fork`: unstable methods, sent only when the agent offers
/// them (models with the session, `fork` in its capabilities), and only with a model it offers.
#[tokio::test]
async fn models_and_fork_only_when_offered() {
    let mut h = start().await;
    let cwd = h.dir.path().canonicalize().unwrap();
    let opened = h.client.open_session(cwd.clone()).await.unwrap();
    let models = opened.models.clone().expect("the test agent offers models");
    assert_eq!(models.current_model_id, "model-small");
    assert_eq!(models.available_models.len(), 2);
    h.session = opened.session_id.clone();

    let changed = h.client.set_model(&h.session, "model-large").await.unwrap();
    assert_eq!(changed.current_model_id, "model-large");
    let (_, report) = h.turn("current-model", |_, _| {}).await;
    assert_eq!(report["results"][0]["model"], "model-large", "{report}");

    // A model it does not offer is refused here, before anything is sent.
    let before = h.tap.lines.lock().unwrap().len();
    assert!(matches!(
        h.client.set_model(&h.session, "model-huge").await,
        Err(ClientError::UnknownModel(_))
    ));
    assert_eq!(h.tap.lines.lock().unwrap().len(), before, "nothing on the wire");

    // Fork: a new session, live, carrying the models; the original stays open.
    assert!(h.client.agent_capabilities().session_capabilities.fork.is_some());
    let forked = h.client.fork_session(&h.session, cwd.clone()).await.unwrap();
    assert_ne!(forked.session_id, h.session);
    assert_eq!(forked.models.unwrap().current_model_id, "model-large");
    h.session = forked.session_id.clone();
    let (_, report) = h.turn("current-model", |_, _| {}).await;
    assert_eq!(report["results"][0]["session"], forked.session_id.as_str());

    // A loaded session whose answer carried no models offers no choice: nothing is sent.
    h.client.load_session("old-1", cwd.clone()).await.unwrap();
    assert!(matches!(
        h.client.set_model("old-1", "model-large").await,
        Err(ClientError::Unsupported("session/set_model"))
    ));
    let sent: Vec<String> = h
        .tap
        .lines
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(_, l)| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["method"].as_str().map(str::to_string))
        .collect();
    assert_eq!(sent.iter().filter(|m| *m == "session/set_model").count(), 1);
    assert_eq!(sent.iter().filter(|m| *m == "session/fork").count(), 1);
}

#[tokio::test]
async fn fork_is_not_sent_to_an_agent_that_does_not_advertise_it() {
    let (client, _events) = start_demo_agent().await;
    assert!(client.agent_capabilities().session_capabilities.fork.is_none());
    let dir = tempfile::tempdir().unwrap();
    let opened = client.open_session(dir.path().to_path_buf()).await.unwrap();
    assert!(matches!(
        client
            .fork_session(&opened.session_id, dir.path().to_path_buf())
            .await,
        Err(ClientError::Unsupported("session/fork"))
    ));
    client.shutdown().await;
}

#[tokio::test]
async fn env_var_sign_in_methods_are_kept_in_the_raw_initialize_answer() {
    let h = start().await;
    // porthole-profiles reads `env_var` methods (and their `vars`) from this raw list.
    let raw = h.client.raw_auth_methods();
    let env_var: Vec<&serde_json::Value> = raw
        .as_array()
        .expect("authMethods is a list")
        .iter()
        .filter(|m| m["type"] == "env_var")
        .collect();
    assert_eq!(env_var.len(), 1, "{raw}");
    assert_eq!(env_var[0]["id"], "api-key");
    assert_eq!(env_var[0]["link"], "https://example.com/test-agent/keys");
    assert_eq!(env_var[0]["vars"][0]["name"], "PORTHOLE_TEST_API_KEY");
    // The SDK's typed list still has it (as an agent method): the id is advertised.
    assert!(
        h.client
            .auth_methods()
            .iter()
            .any(|m| m.id().0.as_ref() == "api-key")
    );
}
