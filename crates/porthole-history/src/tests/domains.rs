//! Domain memory and trusted marks.

use super::*;

#[test]
fn domain_memory_counts_accepted_urls_per_agent_and_domain() {
    let dir = temp_dir();
    let store = mixed_store(&dir);
    let memory = |agent: &str, domain: &str| ok(store.domain_memory(agent, "Name", domain)).times_opened;
    // docs.example.com (agent a) counts for example.com; agent b's example.com is b's.
    assert_eq!(memory("a", "example.com"), 1);
    assert_eq!(memory("b", "example.com"), 1);
    assert_eq!(memory("a", "other.net"), 0, "declined");
    assert_eq!(memory("a", "127.0.0.1"), 1, "an IP host is its own domain");
    assert_eq!(memory("c", "example.com"), 0);
    ok(store.record(&url_entry(
        "a",
        "https://www.example.com/2",
        ElicitationOutcome::Accept,
    )));
    ok(store.record(&url_entry(
        "a",
        "https://example.com/3",
        ElicitationOutcome::Cancel,
    )));
    assert_eq!(memory("a", "example.com"), 2);
    let full = ok(store.domain_memory("a", "Agent A", "example.com"));
    assert_eq!(
        serde_json::to_value(&full).unwrap_or_default(),
        json!({"agentId": "a", "agentName": "Agent A", "domain": "example.com", "timesOpened": 2, "trusted": false})
    );
}

#[test]
fn trust_marks_are_set_listed_and_removed() {
    let dir = temp_dir();
    let store = mixed_store(&dir);
    ok(store.set_trusted("a", "Agent A", "example.com", true));
    ok(store.set_trusted("c", "Agent C", "never-opened.org", true));
    ok(store.set_trusted("c", "Agent C", "never-opened.org", true));
    assert!(ok(store.domain_memory("a", "Agent A", "example.com")).trusted);
    assert!(
        !ok(store.domain_memory("b", "Agent B", "example.com")).trusted,
        "per agent"
    );

    let marks = ok(store.domain_marks());
    let summary: Vec<(&str, &str, bool, u64)> = marks
        .iter()
        .map(|m| (m.agent_id.as_str(), m.domain.as_str(), m.trusted, m.times_opened))
        .collect();
    assert_eq!(
        summary,
        [
            ("a", "127.0.0.1", false, 1),
            ("a", "example.com", true, 1),
            ("b", "example.com", false, 1),
            ("c", "never-opened.org", true, 0),
        ]
    );
    assert_eq!(marks[1].last_opened, Some(1000));
    assert_eq!(marks[3].last_opened, None);
    assert_eq!(marks[3].agent_name, "Agent C");

    ok(store.set_trusted("a", "Agent A", "example.com", false));
    ok(store.set_trusted("c", "Agent C", "never-opened.org", false));
    let marks = ok(store.domain_marks());
    assert_eq!(marks.len(), 3);
    assert!(marks.iter().all(|m| !m.trusted));
}

/// An MCP server's URL question (asked through the agent's session) is kept under the server:
/// its consents count for the server, never for the agent that carried it.
#[test]
fn a_servers_question_is_kept_under_the_server_not_the_agent() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let mut prompt = url_prompt("https://github.com/login/device", "Sign in");
    prompt.mcp = Some(porthole_core::events::McpAsker {
        connection: "github".into(),
        host: Some("api.githubcopilot.com".into()),
    });
    ok(store.record(&NewEntry::elicitation(
        "a",
        &prompt,
        &ElicitationOutcome::Accept,
        None,
    )));
    let page = all(&store);
    assert_eq!(page.entries.len(), 1);
    assert_eq!(page.entries[0].agent_id, "mcp/github");
    assert!(
        page.entries[0]
            .agent_name
            .starts_with("the MCP server github (through ")
    );
    let (agent_id, agent_name) = crate::asker("a", &prompt);
    assert_eq!(
        ok(store.domain_memory(&agent_id, &agent_name, "github.com")).times_opened,
        1
    );
    assert_eq!(
        ok(store.domain_memory("a", "Agent", "github.com")).times_opened,
        0
    );
}

/// A tool call an MCP App asked to make (a permission dialog naming its server) is kept under
/// the server too, never under the agent whose session showed the app.
#[test]
fn an_apps_tool_call_is_kept_under_its_server() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let mut prompt = permission_prompt("The app of MCP server “basic” wants to call its tool “get-time”");
    prompt.mcp = Some(porthole_core::events::McpAsker {
        connection: "basic".into(),
        host: Some("127.0.0.1".into()),
    });
    ok(store.record(&NewEntry::permission("a", &prompt, PermissionOutcome::Cancelled)));
    let page = all(&store);
    assert_eq!(page.entries[0].agent_id, "mcp/basic");
    assert!(
        page.entries[0]
            .agent_name
            .starts_with("the MCP server basic (through ")
    );
}
