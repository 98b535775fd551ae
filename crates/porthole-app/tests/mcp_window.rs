//! The Connections view's commands against a running app model: the list with each
//! connection's sign-in and the open sessions that have it (a remote one through the gateway, a
//! stdio one served by it), its tools through the gateway, switching, signing out, removing.
//! No keyring here (the session bus points nowhere): open and stdio connections need none.

mod common;

fn message(e: porthole_app::AnswerError) -> String {
    match e {
        porthole_app::AnswerError::Error { message } => message,
        porthole_app::AnswerError::Invalid { .. } => panic!("not a message"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connections_view_lists_lists_tools_switches_and_removes() {
    let home = tempfile::tempdir().unwrap();
    // Kept whole: it owns the test servers, which stop when it is dropped.
    let started = common::mcp::start_with_connections(home.path()).await;
    let (backend, session, file) = (&started.backend, &started.session, &started.file);
    let tracker_url = &started.tracker_url;

    let listed = serde_json::to_value(backend.mcp_connections().await).unwrap();
    assert_eq!(listed["path"], file.display().to_string());
    assert_eq!(listed["problem"], serde_json::Value::Null);
    let by_name = |name: &str| {
        listed["connections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {listed}"))
    };
    let names: Vec<_> = listed["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["tracker", "local", "guarded", "off"]);
    let tracker = by_name("tracker");
    assert_eq!(
        tracker["server"],
        serde_json::json!({"kind": "remote", "url": tracker_url, "transport": "http"})
    );
    assert_eq!(tracker["sessions"], serde_json::json!([session]));
    assert_eq!(tracker["agents"], serde_json::Value::Null);
    // No keyring: the sign-in of a remote connection is not known, and says why.
    assert_eq!(tracker["signIn"]["state"], "unknown", "{tracker}");
    let local = by_name("local");
    assert_eq!(local["server"]["kind"], "stdio");
    assert_eq!(local["signIn"], serde_json::json!({"state": "notNeeded"}));
    // A stdio connection goes through the gateway too (the window answers its questions).
    assert_eq!(local["sessions"], serde_json::json!([session]));
    let off = by_name("off");
    assert_eq!(off["enabled"], false);
    assert_eq!(off["sessions"], serde_json::json!([]));

    // Tools through the gateway, a remote one and a stdio one, switched off or not.
    for name in ["tracker", "local", "off"] {
        let tools = backend.mcp_tools(name).await.unwrap();
        let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["echo", "whoami", "env"], "{name}");
    }
    let e = message(backend.mcp_tools("guarded").await.unwrap_err());
    assert!(e.contains("cannot list the tools of `guarded`"), "{e}");
    assert!(message(backend.mcp_tools("nope").await.unwrap_err()).contains("no connection named `nope`"));

    // Switching writes the file; a stdio server has nothing to sign out of.
    backend.mcp_set_enabled("off", true).unwrap();
    let listed = serde_json::to_value(backend.mcp_connections().await).unwrap();
    assert_eq!(listed["connections"][3]["enabled"], true);
    let e = message(backend.mcp_sign_out("local").await.unwrap_err());
    assert!(e.contains("nothing to sign out of"), "{e}");

    // Removing says the open session keeps it; the list no longer has it.
    let said = backend.mcp_remove("local").await.unwrap();
    assert_eq!(said, "Removed `local`. 1 open session keeps it until it closes.");
    let listed = serde_json::to_value(backend.mcp_connections().await).unwrap();
    assert!(
        listed["connections"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "local")
    );

    // A closed session has none.
    backend.close_session(session).await.unwrap();
    let listed = serde_json::to_value(backend.mcp_connections().await).unwrap();
    assert_eq!(listed["connections"][0]["sessions"], serde_json::json!([]));

    // A file that cannot be read is said, not an error.
    std::fs::write(file, "{not json").unwrap();
    let listed = serde_json::to_value(backend.mcp_connections().await).unwrap();
    assert!(
        listed["problem"].as_str().unwrap().contains("not valid JSON"),
        "{listed}"
    );
    backend.stop().await;
}
