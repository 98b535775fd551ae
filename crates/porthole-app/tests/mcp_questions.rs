//! An MCP server's questions reach the person in the window, for an agent that declared no
//! elicitation (the demo agent): the official MCP TypeScript SDK's `elicitationFormExample.js`
//! (a server nobody here wrote) asks with `elicitInput`; Porthole's gateway takes the
//! question out, and it waits in the window's one list of dialogs like an agent's, but naming
//! the server (`mcp`), under the agent's rules (an invalid answer is refused and the dialog
//! stays; a password form is flagged), and the answer reaches the server, whose tool result
//! reaches the agent. The consent history keeps it under the connection's name.
//!
//! Needs the SDK: `./scripts/test-mcp-ts-sdk --install`; scripts/test runs it.

mod common;

use serde_json::{Value, json};

fn content(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the official TypeScript SDK: run via scripts/test"]
async fn a_servers_questions_wait_in_the_window_naming_the_server_and_the_answers_reach_it() {
    let example =
        tokio::task::spawn_blocking(|| porthole_test_mcp::ts_sdk::start("elicitationFormExample.js"))
            .await
            .unwrap();
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) =
        common::mcp::demo_app_without_keyring(home.path(), json!({"forms": {"url": example.url}}));
    let session = common::mcp::start(&backend, &shell).await;

    backend
        .send_prompt(&session, "/tools forms create_event {}", &[])
        .unwrap();
    let first = shell
        .wait_for_dialog("the server's first question", |d| {
            d["message"] == "Step 1: Enter basic event information"
        })
        .await;
    // The window's dialog says who asks, truthfully: the server, through the demo agent's session.
    assert_eq!(first["type"], "elicitation");
    assert_eq!(first["mode"], "form");
    assert_eq!(first["mcp"], json!({"connection": "forms", "host": "127.0.0.1"}));
    assert_eq!(first["agent"]["name"], "porthole-demo-agent", "{first}");
    assert_eq!(first["scope"]["sessionId"], session.as_str());
    // It came while the demo agent's `/tools` call ran: the dialog is that tool call's.
    let tool_call = first["scope"]["toolCallId"]
        .as_str()
        .expect("the dialog names its tool call");
    assert!(
        common::app_state(&backend)
            .to_string()
            .contains(&format!("\"toolCallId\":\"{tool_call}\"")),
        "{tool_call} is none of the session's tool calls"
    );
    let id = first["dialogId"].as_u64().unwrap();

    // The same checks as an agent's form: a missing required field is refused, the dialog stays.
    let refused = backend.answer_elicitation(id, "accept", Some(content(json!({"description": "no title"}))));
    assert!(
        refused.is_err(),
        "an answer without the required title was accepted"
    );
    assert!(
        common::app_state(&backend)["dialogs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["dialogId"] == id),
        "a refused answer must leave the dialog waiting"
    );
    backend
        .answer_elicitation(
            id,
            "accept",
            Some(content(json!({"title": "Standup", "description": "daily"}))),
        )
        .unwrap();

    let second = shell
        .wait_for_dialog("the server's second question", |d| {
            d["message"] == "Step 2: Enter date and time"
        })
        .await;
    assert_eq!(second["mcp"]["connection"], "forms");
    backend
        .answer_elicitation(
            second["dialogId"].as_u64().unwrap(),
            "accept",
            Some(content(
                json!({"date": "2026-12-06", "startTime": "09:30", "duration": 30}),
            )),
        )
        .unwrap();
    shell
        .wait_for("the tool's result in the session", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Event created successfully!"))
        })
        .await;
    let text = common::mcp::said(&shell);
    assert!(text.contains("\"title\": \"Standup\""), "{text}");
    assert!(text.contains("\"startTime\": \"09:30\""), "{text}");

    // A form asking for a password: flagged as a secret request, and declined here.
    backend
        .send_prompt(&session, "/tools forms register_user {}", &[])
        .unwrap();
    let secret = shell
        .wait_for_dialog("the password form", |d| {
            d["mcp"]["connection"] == "forms" && d["dialogId"] != id && d["dialogId"] != second["dialogId"]
        })
        .await;
    assert!(
        secret["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == "secret-request"),
        "{secret}"
    );
    backend
        .answer_elicitation(secret["dialogId"].as_u64().unwrap(), "decline", None)
        .unwrap();
    shell
        .wait_for("the declined registration", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Registration cancelled by user."))
        })
        .await;

    // The consent history keeps them under the connection, not the agent.
    let page = backend.history_list(None).unwrap();
    let page = serde_json::to_value(&page).unwrap();
    let entries = page["entries"].as_array().unwrap();
    let from_server: Vec<&Value> = entries.iter().filter(|e| e["agentId"] == "mcp/forms").collect();
    assert_eq!(from_server.len(), 3, "{page}");
    assert!(
        from_server.iter().all(|e| e["agentName"]
            .as_str()
            .unwrap()
            .starts_with("the MCP server forms (through")),
        "{page}"
    );
    backend.stop().await;
}
