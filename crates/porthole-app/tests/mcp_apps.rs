//! MCP Apps in the window: a connection's UI tool called by the agent (the demo agent, which
//! declares nothing of MCP Apps) brings its app, matched to the agent's tool call, with the
//! tool's input and result; its page is served with the policy of its declared CSP; what the
//! app asks is decided here: a tool call of its own server asks first (a permission dialog
//! naming the server, "Allow for this app" remembered per server and tool, one question at a
//! time), a link is the URL dialog of an MCP server's question, the devices its resource asks
//! for are given only when the person allows them. The consent history keeps both under the
//! connection.

mod common;

use porthole_app::McpAppPermission;
use porthole_test_mcp::Options;
use porthole_test_mcp::apps::CHART_URI;
use serde_json::{Value, json};

fn message(e: porthole_app::AnswerError) -> String {
    match e {
        porthole_app::AnswerError::Error { message } => message,
        other => format!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ui_tool_call_brings_its_app_under_the_tool_call_and_the_app_asks_before_it_acts() {
    let server = porthole_test_mcp::start(Options {
        open: true,
        apps: true,
        ..Options::default()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let (backend, shell) =
        common::mcp::demo_app_without_keyring(home.path(), json!({"charts": {"url": server.mcp_url()}}));
    let session = common::mcp::start(&backend, &shell).await;

    backend
        .send_prompt(&session, r#"/tools charts show_chart {"data": [1, 2, 3]}"#, &[])
        .unwrap();
    let event = shell
        .wait_for("the app with the tool's result", |e| {
            e["type"] == "mcp_app" && !e["app"]["result"].is_null()
        })
        .await;
    let app = &event["app"];
    let tool_call = shell
        .wait_for("the agent's tool call", |e| {
            e["type"] == "session_update" && e["update"]["fields"]["title"] == "charts: show_chart"
        })
        .await;
    assert_eq!(app["toolCallId"], tool_call["update"]["toolCallId"], "{app}");
    assert_eq!(app["sessionId"], session.as_str());
    assert_eq!(app["connection"], "charts");
    assert_eq!(app["host"], "127.0.0.1");
    assert_eq!(app["tool"], "show_chart");
    assert_eq!(app["resourceUri"], CHART_URI);
    assert_eq!(app["arguments"], json!({"data": [1, 2, 3]}));
    assert_eq!(app["result"]["structuredContent"], json!({"points": 3}));
    assert_eq!(app["firstOfConnection"], true);
    let id = app["id"].as_u64().unwrap();

    // The page, read by Porthole's own session, with the policy of its declared CSP.
    let page = app["page"].as_str().unwrap();
    let key = page.strip_prefix("mcp-app://localhost/").expect(page);
    assert!(
        key.len() >= 32,
        "the page's address must not be guessable: {page}"
    );
    // What its resource asks to use, read before its frame loads: nothing given yet.
    let asked = backend.mcp_app_permissions(id).await.unwrap();
    assert_eq!(
        serde_json::to_value(&asked).unwrap(),
        json!({"requested": ["microphone", "clipboardWrite"], "granted": null})
    );
    assert!(!backend.mcp_app_device_allowed(McpAppPermission::Microphone));
    // "Don't allow": nothing this time, and not remembered.
    let refused = backend.mcp_app_allow(id, false).unwrap();
    assert_eq!(refused.granted, Some(vec![]));
    assert!(!backend.mcp_app_device_allowed(McpAppPermission::Microphone));
    assert_eq!(backend.mcp_app_permissions(id).await.unwrap().granted, None);
    // "Allow for this app": given, and kept for this server's resource.
    let allowed = backend.mcp_app_allow(id, true).unwrap();
    assert_eq!(
        allowed.granted,
        Some(vec![
            McpAppPermission::Microphone,
            McpAppPermission::ClipboardWrite
        ])
    );
    let settings = &common::app_state(&backend)["snapshot"]["appSettings"];
    assert_eq!(
        settings["mcpAppPermissions"],
        json!({"charts": {CHART_URI: ["microphone", "clipboardWrite"]}}),
        "{settings}"
    );
    assert!(backend.mcp_app_device_allowed(McpAppPermission::Microphone));
    assert!(!backend.mcp_app_device_allowed(McpAppPermission::Camera));
    assert_eq!(
        backend.mcp_app_permissions(id).await.unwrap().granted,
        allowed.granted,
        "remembered for the next time it shows"
    );
    let served = backend.mcp_app_page(key).await.unwrap();
    assert!(served.html.contains("<div id=chart>"), "{}", served.html);
    assert!(
        served.csp.contains("connect-src https://api.example.com;"),
        "{}",
        served.csp
    );
    assert!(
        served
            .csp
            .contains("script-src 'unsafe-inline' https://cdn.example.com;")
    );
    assert!(message(backend.mcp_app_page("not-a-key").await.unwrap_err()).contains("no such app"));

    // A tool call of the app asks first, naming the server, the tool and the arguments.
    let asking = backend.clone();
    let call = tokio::spawn(async move { asking.mcp_app_call_tool(id, "echo", json!({"text": "hi"})).await });
    let dialog = shell
        .wait_for_dialog("the app's tool call", |d| {
            d["type"] == "permission" && d["mcp"]["connection"] == "charts"
        })
        .await;
    let title = dialog["toolCall"]["title"].as_str().unwrap();
    assert!(title.contains("charts") && title.contains("echo"), "{title}");
    assert_eq!(dialog["toolCall"]["rawInput"], json!({"text": "hi"}));
    assert_eq!(dialog["sessionId"], session.as_str());
    // One question at a time per app: a flood is refused, not queued.
    let second = backend
        .mcp_app_call_tool(id, "echo", json!({"text": "again"}))
        .await;
    assert!(message(second.unwrap_err()).contains("already waits"));
    backend
        .answer_permission(dialog["dialogId"].as_u64().unwrap(), Some("allow_for_app".into()))
        .unwrap();
    let result = call.await.unwrap().unwrap();
    assert!(result.0.to_string().contains("hi"), "{:?}", result.0);
    // Remembered for this server and tool: the next call does not ask.
    let settings = &common::app_state(&backend)["snapshot"]["appSettings"];
    assert_eq!(settings["mcpAppTools"], json!({"charts": ["echo"]}), "{settings}");
    let again = backend
        .mcp_app_call_tool(id, "echo", json!({"text": "no question"}))
        .await
        .unwrap();
    assert!(again.0.to_string().contains("no question"));

    // Another tool still asks; denied, the app gets an error and the server no call.
    let asking = backend.clone();
    let denied = tokio::spawn(async move { asking.mcp_app_call_tool(id, "fail_ui", json!({})).await });
    let dialog = shell
        .wait_for_dialog("the second tool's question", |d| {
            d["type"] == "permission"
                && d["toolCall"]["title"]
                    .as_str()
                    .is_some_and(|t| t.contains("fail_ui"))
        })
        .await;
    backend
        .answer_permission(dialog["dialogId"].as_u64().unwrap(), Some("reject".into()))
        .unwrap();
    assert!(message(denied.await.unwrap().unwrap_err()).contains("did not allow"));
    assert!(
        message(
            backend
                .mcp_app_call_tool(id, "echo", json!("text"))
                .await
                .unwrap_err()
        )
        .contains("must be an object")
    );

    // A link is the URL dialog of an MCP server's question: every URL rule, the person decides.
    let asking = backend.clone();
    let link = tokio::spawn(async move { asking.mcp_app_open_link(id, "https://example.com/docs").await });
    let dialog = shell
        .wait_for_dialog("the app's link", |d| {
            d["type"] == "elicitation" && d["mode"] == "url"
        })
        .await;
    assert_eq!(dialog["mcp"]["connection"], "charts");
    assert_eq!(dialog["url"]["full"], "https://example.com/docs");
    backend
        .answer_elicitation(dialog["dialogId"].as_u64().unwrap(), "decline", None)
        .unwrap();
    assert_eq!(link.await.unwrap().unwrap(), "decline");

    // The history keeps the app's questions under its server.
    let history = serde_json::to_value(backend.history_list(None).unwrap()).unwrap();
    let askers: Vec<&Value> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["agentId"])
        .collect();
    assert!(
        askers.len() >= 3 && askers.iter().all(|a| *a == "mcp/charts"),
        "{askers:?}"
    );

    // The person turns this connection's apps off: its next call brings no app.
    backend.mcp_set_apps("charts", false).unwrap();
    let settings = &common::app_state(&backend)["snapshot"]["appSettings"];
    assert_eq!(settings["mcpAppsOff"], json!(["charts"]), "{settings}");
    let apps_shown = || {
        let events = shell.events.lock().unwrap();
        events.iter().filter(|e| e["type"] == "mcp_app").count()
    };
    let apps_before = apps_shown();
    backend
        .send_prompt(&session, r#"/tools charts show_chart {"data": [9, 9]}"#, &[])
        .unwrap();
    shell
        .wait_for("the second call's answer", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("a chart of 2 points"))
        })
        .await;
    assert_eq!(
        apps_shown(),
        apps_before,
        "an app of a connection turned off was shown"
    );
    backend.mcp_set_apps("charts", true).unwrap();

    // The session closes: its apps' pages are no longer served.
    backend.close_session(&session).await.unwrap();
    assert!(backend.mcp_app_page(key).await.is_err());
    assert!(
        !backend.mcp_app_device_allowed(McpAppPermission::Microphone),
        "no app of an open session was given it"
    );
    backend.stop().await;
    let run = shell.events.lock().unwrap().clone();
    common::golden_stream("mcp-apps", home.path(), &run);
}
