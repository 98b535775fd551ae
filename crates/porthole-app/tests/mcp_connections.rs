//! The person's MCP connections reach the window's sessions: the demo agent (an MCP client
//! that takes only stdio servers) lists the tools of a remote connection through the gateway
//! and the bridge, and of a stdio connection (served by the gateway, as the window answers its
//! questions). A connection that wants sign-in is said
//! in the session, with how to sign in.

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_gets_the_connections_through_the_gateway() {
    let home = tempfile::tempdir().unwrap();
    // Kept whole: it owns the test servers, which stop when it is dropped.
    let started = common::mcp::start_with_connections(home.path()).await;
    let (backend, shell, session) = (&started.backend, &started.shell, &started.session);

    backend.send_prompt(session, "/tools", &[]).unwrap();
    shell
        .wait_for("the end of the turn", |e| {
            e["type"] == "turn_ended" && e["sessionId"] == session.as_str()
        })
        .await;
    let text = common::mcp::said(shell);
    assert!(
        text.contains("MCP server `tracker`: `echo`, `whoami`, `env`"),
        "{text}"
    );
    assert!(
        text.contains("MCP server `local`: `echo`, `whoami`, `env`"),
        "{text}"
    );
    assert!(
        !text.contains("`off`"),
        "a switched-off connection was handed over: {text}"
    );

    // A server that wants sign-in: the model reads why, the window says how, in this session.
    backend
        .send_prompt(session, "/tools guarded whoami", &[])
        .unwrap();
    let problem = shell
        .wait_for("the connection's problem", |e| {
            e["type"] == "mcp_connection_problem"
        })
        .await;
    assert_eq!(problem["connection"], "guarded");
    assert_eq!(problem["needsSignIn"], true);
    assert_eq!(problem["sessions"], serde_json::json!([session]));
    shell
        .wait_for("the tool's answer", |e| {
            e["type"] == "session_update"
                && e["update"]["content"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("Sign in to `guarded`"))
        })
        .await;
    backend.stop().await;
}
