use std::path::Path;

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, ToolCallUpdate, ToolCallUpdateFields,
};
use serde_json::{Map, Value, json};

use super::*;
use porthole_core::events::{
    AgentIdentity, DismissReason, ElicitationKind, ElicitationPrompt, Event, PermissionPrompt, Scope,
};
use porthole_core::form::{is_secret_request, parse_form_schema, secret_indicators};
use porthole_core::url_safety::analyze_url;

mod domains;
mod files;
mod queries;
mod recording;

fn temp_dir() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("temp dir: {e}"),
    }
}

fn open(path: &Path) -> Opened {
    match HistoryStore::open(path) {
        Ok(o) => o,
        Err(e) => panic!("open {}: {e}", path.display()),
    }
}

fn store_in(dir: &tempfile::TempDir) -> HistoryStore {
    let opened = open(&dir.path().join("history.sqlite3"));
    assert_eq!(opened.notice, None);
    opened.store
}

fn ok<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("history: {e}"),
    }
}

fn agent(title: &str) -> AgentIdentity {
    AgentIdentity {
        name: title.to_lowercase(),
        title: Some(title.into()),
        version: None,
    }
}

fn scope() -> Scope {
    Scope::Session {
        session_id: "s1".into(),
        tool_call_id: Some("tc1".into()),
    }
}

fn url_prompt(url: &str, message: &str) -> ElicitationPrompt {
    let analysis = match analyze_url(url, message) {
        Ok(a) => a,
        Err(e) => panic!("{url}: {e}"),
    };
    ElicitationPrompt {
        dialog_id: 1,
        agent: agent("Agent A"),
        scope: scope(),
        message: message.into(),
        warnings: analysis.warnings.iter().map(|w| format!("{w:?}")).collect(),
        mcp: None,
        kind: ElicitationKind::Url {
            elicitation_id: "e1".into(),
            url: analysis,
        },
    }
}

fn form_prompt(message: &str, schema: Value) -> ElicitationPrompt {
    let schema = match parse_form_schema(&schema) {
        Ok(s) => s,
        Err(e) => panic!("schema: {e}"),
    };
    let warnings = if is_secret_request(message, &schema) {
        vec!["secret-request".to_string()]
    } else {
        Vec::new()
    };
    ElicitationPrompt {
        dialog_id: 2,
        agent: agent("Agent A"),
        scope: scope(),
        message: message.into(),
        warnings,
        mcp: None,
        kind: ElicitationKind::Form {
            initial_values: schema.initial_values(),
            hints: schema.hints(),
            can_accept: schema.can_accept(),
            blocking_reason: None,
            secret: is_secret_request(message, &schema),
            secret_indicators: secret_indicators(message, &schema),
            schema,
        },
    }
}

fn login_form() -> ElicitationPrompt {
    form_prompt(
        "Sign in to the build server",
        json!({"type": "object", "properties": {
            "user": {"type": "string", "title": "Username"},
            "pw": {"type": "string", "title": "Password"},
            "region": {"type": "string"}
        }}),
    )
}

fn values(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn permission_prompt(title: &str) -> PermissionPrompt {
    PermissionPrompt {
        dialog_id: 3,
        agent: agent("Agent B"),
        session_id: "s2".into(),
        tool_call: ToolCallUpdate::new("tc9", ToolCallUpdateFields::new().title(title.to_string())),
        tool_kind: "edit".into(),
        options: vec![
            PermissionOption::new("yes", "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new("always", "Always allow", PermissionOptionKind::AllowAlways),
        ],
        warnings: vec![],
        mcp: None,
    }
}

fn url_entry(agent_id: &str, url: &str, outcome: ElicitationOutcome) -> NewEntry {
    NewEntry::elicitation(agent_id, &url_prompt(url, "Sign in"), &outcome, None)
}

fn all(store: &HistoryStore) -> HistoryPage {
    ok(store.list(&HistoryFilter {
        limit: Some(1000),
        ..HistoryFilter::default()
    }))
}

/// Entries of two agents and three kinds, with times 1000, 2000, ... in insertion order.
fn mixed_store(dir: &tempfile::TempDir) -> HistoryStore {
    let store = store_in(dir);
    let p = permission_prompt("Delete build/ directory");
    let entries = [
        url_entry("a", "https://docs.example.com/x", ElicitationOutcome::Accept),
        url_entry("a", "https://other.net/login", ElicitationOutcome::Decline),
        url_entry("b", "https://example.com/", ElicitationOutcome::Accept),
        NewEntry::elicitation("a", &login_form(), &ElicitationOutcome::Cancel, None),
        NewEntry::permission("b", &p, PermissionOutcome::Selected(&p.options[0])),
        url_entry("a", "http://127.0.0.1:8080/cb_100%", ElicitationOutcome::Accept),
    ];
    for (i, mut entry) in (1..).zip(entries) {
        entry.time_ms = i * 1000;
        ok(store.record(&entry));
    }
    store
}

fn matching(store: &HistoryStore, filter: HistoryFilter) -> (u64, Vec<String>) {
    let page = ok(store.list(&filter));
    let urls_or_messages = page
        .entries
        .iter()
        .map(|e| e.url.clone().unwrap_or_else(|| e.message.clone()))
        .collect();
    (page.total, urls_or_messages)
}
