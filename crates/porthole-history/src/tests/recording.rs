//! What each decision records, and what it must not.

use super::*;

#[test]
fn records_each_kind_and_lists_newest_first() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let form = login_form();
    ok(store.record(&NewEntry::elicitation(
        "a",
        &form,
        &ElicitationOutcome::Accept,
        Some(&values(json!({"user": "ann", "pw": "hunter2", "region": "eu"}))),
    )));
    ok(store.record(&url_entry(
        "a",
        "https://login.example.com/device?code=1",
        ElicitationOutcome::Accept,
    )));
    let p = permission_prompt("Edit main.rs");
    ok(store.record(&NewEntry::permission(
        "b",
        &p,
        PermissionOutcome::Selected(&p.options[1]),
    )));

    let page = all(&store);
    assert_eq!(page.total, 3);
    let kinds: Vec<&str> = page.entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["permission", "url", "form"]);

    let perm = &page.entries[0];
    assert_eq!(
        (perm.agent_id.as_str(), perm.agent_name.as_str()),
        ("b", "Agent B")
    );
    assert_eq!(perm.action, "selected");
    assert_eq!(perm.message, "Edit main.rs");
    assert_eq!(perm.detail.as_deref(), Some("Always allow"));
    assert_eq!(
        perm.permission,
        Some(PermissionDetail {
            tool_title: Some("Edit main.rs".into()),
            tool_kind: Some("edit".into()),
            option_id: Some("always".into()),
            option_name: Some("Always allow".into()),
            option_kind: Some("allow_always".into()),
        })
    );

    let url = &page.entries[1];
    // The query's values are not kept at rest (a device or OAuth code); the keys are.
    assert_eq!(
        url.url.as_deref(),
        Some("https://login.example.com/device?code=…")
    );
    assert_eq!(url.domain.as_deref(), Some("example.com"));
    assert_eq!(url.action, "accept");
    assert_eq!(
        (url.session_id.as_deref(), url.tool_call_id.as_deref()),
        (Some("s1"), Some("tc1"))
    );
    assert_eq!(url.permission, None);

    let form = &page.entries[2];
    assert_eq!(form.message, "Sign in to the build server");
    assert_eq!(
        form.values,
        Some(json!({"user": "ann", "region": "eu"})),
        "the password field is dropped"
    );
    assert!(form.time > 0 && form.time <= now_ms());
}

#[test]
fn secrets_are_never_stored() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let submitted = values(json!({"user": "ann", "pw": "hunter2", "region": "eu"}));
    // The form as a whole asks for a secret: no field can be trusted to be harmless.
    let token_form = form_prompt(
        "Paste your access token",
        json!({"type": "object", "properties": {"value": {"type": "string"}}}),
    );
    let id = ok(store.record(&NewEntry::elicitation(
        "a",
        &token_form,
        &ElicitationOutcome::Accept,
        Some(&values(json!({"value": "ghp_secret"}))),
    )));
    // Values the agent's schema does not have are not kept either.
    let mut extra = submitted.clone();
    extra.insert("apiKey".into(), json!("sk-123"));
    ok(store.record(&NewEntry::elicitation(
        "a",
        &login_form(),
        &ElicitationOutcome::Accept,
        Some(&extra),
    )));
    // Not passed (the setting is off), or not accepted: nothing.
    ok(store.record(&NewEntry::elicitation(
        "a",
        &login_form(),
        &ElicitationOutcome::Accept,
        None,
    )));
    ok(store.record(&NewEntry::elicitation(
        "a",
        &login_form(),
        &ElicitationOutcome::Decline,
        Some(&submitted),
    )));

    let page = all(&store);
    let by_id: Vec<(i64, Option<Value>)> = page.entries.iter().map(|e| (e.id, e.values.clone())).collect();
    assert_eq!(
        by_id,
        [
            (id + 3, None),
            (id + 2, None),
            (id + 1, Some(json!({"user": "ann", "region": "eu"}))),
            (id, None),
        ]
    );
    let export = ok(store.export_json()).to_string();
    for secret in ["hunter2", "ghp_secret", "sk-123"] {
        assert!(!export.contains(secret), "{secret} leaked into {export}");
    }
}

#[test]
fn dismissals_cancels_and_auto_answers() {
    let dir = temp_dir();
    let store = store_in(&dir);
    ok(store.record(&url_entry(
        "a",
        "https://example.org/",
        ElicitationOutcome::Dismissed(DismissReason::AgentExited),
    )));
    let p = permission_prompt("Run tests");
    ok(store.record(&NewEntry::permission(
        "b",
        &p,
        PermissionOutcome::Dismissed(&DismissReason::TurnCancelled),
    )));
    ok(store.record(&NewEntry::permission("b", &p, PermissionOutcome::Cancelled)));
    let auto = Event::PermissionAuto {
        session_id: "s2".into(),
        tool_call: Box::new(ToolCallUpdate::new("tc10", ToolCallUpdateFields::new())),
        option_id: "always".into(),
        option_name: "Always allow".into(),
        option_kind: PermissionOptionKind::AllowAlways,
        tool_kind: "execute".into(),
        rule_id: 7,
    };
    let entry = NewEntry::permission_auto("b", "Agent B", &auto);
    assert_eq!(
        NewEntry::permission_auto("b", "Agent B", &Event::StdoutNoise { line: "x".into() }),
        None
    );
    ok(store.record(&entry.unwrap_or_else(|| panic!("auto entry"))));

    let page = all(&store);
    let summary: Vec<(&str, &str, Option<&str>)> = page
        .entries
        .iter()
        .map(|e| (e.kind.as_str(), e.action.as_str(), e.detail.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            ("permission", "auto", Some("Always allow")),
            ("permission", "cancel", None),
            ("permission", "dismissed", Some("turn_cancelled")),
            ("url", "dismissed", Some("agent_exited")),
        ]
    );
    let auto = &page.entries[0];
    assert_eq!(auto.tool_call_id.as_deref(), Some("tc10"));
    assert_eq!(
        auto.permission.as_ref().and_then(|p| p.tool_kind.as_deref()),
        Some("execute")
    );
    assert_eq!(
        auto.permission.as_ref().and_then(|p| p.option_kind.as_deref()),
        Some("allow_always")
    );
}

/// OAuth codes, `state` and tokens in a URL or a message that repeats it never reach the file.
#[test]
fn url_query_values_and_fragments_are_not_kept() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let url = "https://auth.example.com/authorize?client_id=abc&state=S3CR3T#access_token=T0K3N";
    let prompt = url_prompt(url, &format!("Open {url} to sign in"));
    ok(store.record(&NewEntry::elicitation(
        "a",
        &prompt,
        &ElicitationOutcome::Accept,
        None,
    )));
    let entry = &all(&store).entries[0];
    assert_eq!(
        entry.url.as_deref(),
        Some("https://auth.example.com/authorize?client_id=…&state=…#…")
    );
    assert_eq!(
        entry.message,
        "Open https://auth.example.com/authorize?client_id=…&state=…#… to sign in"
    );
    assert_eq!(entry.domain.as_deref(), Some("example.com"));
    let export = serde_json::to_string(&all(&store).entries).unwrap();
    assert!(
        !export.contains("S3CR3T") && !export.contains("T0K3N"),
        "{export}"
    );
}
