//! Listing, paging, export and clear.

use super::*;

#[test]
fn filters() {
    let dir = temp_dir();
    let store = mixed_store(&dir);
    let f = HistoryFilter::default;
    let (total, _) = matching(&store, f());
    assert_eq!(total, 6);

    let by_agent = matching(
        &store,
        HistoryFilter {
            agent_id: Some("b".into()),
            ..f()
        },
    );
    assert_eq!(
        by_agent,
        (
            2,
            vec!["Delete build/ directory".into(), "https://example.com/".into()]
        )
    );

    let (total, _) = matching(
        &store,
        HistoryFilter {
            kind: Some("url".into()),
            ..f()
        },
    );
    assert_eq!(total, 4);
    let forms = matching(
        &store,
        HistoryFilter {
            kind: Some("form".into()),
            ..f()
        },
    );
    assert_eq!(forms, (1, vec!["Sign in to the build server".into()]));
    assert!(
        store
            .list(&HistoryFilter {
                kind: Some("email".into()),
                ..f()
            })
            .is_err()
    );

    let domain = matching(
        &store,
        HistoryFilter {
            domain: Some("EXAMPLE".into()),
            ..f()
        },
    );
    assert_eq!(domain.0, 2, "{domain:?}");
    let ip = matching(
        &store,
        HistoryFilter {
            domain: Some("127.0".into()),
            ..f()
        },
    );
    assert_eq!(ip.0, 1);

    // Free text over message, URL and tool title; LIKE wildcards are literal.
    let (total, _) = matching(
        &store,
        HistoryFilter {
            text: Some("build".into()),
            ..f()
        },
    );
    assert_eq!(total, 2, "form message and permission title");
    let (total, _) = matching(
        &store,
        HistoryFilter {
            text: Some("login".into()),
            ..f()
        },
    );
    assert_eq!(total, 1);
    let (total, _) = matching(
        &store,
        HistoryFilter {
            text: Some("100%".into()),
            ..f()
        },
    );
    assert_eq!(total, 1);
    let (total, _) = matching(
        &store,
        HistoryFilter {
            text: Some("_".into()),
            ..f()
        },
    );
    assert_eq!(total, 1, "only cb_100% has an underscore");

    let range = matching(
        &store,
        HistoryFilter {
            since: Some(2000),
            until: Some(4000),
            ..f()
        },
    );
    assert_eq!(range.0, 3);
    let combined = matching(
        &store,
        HistoryFilter {
            agent_id: Some("a".into()),
            kind: Some("url".into()),
            since: Some(2000),
            ..f()
        },
    );
    assert_eq!(
        combined,
        (
            2,
            vec![
                "http://127.0.0.1:8080/cb_100%".into(),
                "https://other.net/login".into()
            ]
        )
    );
}

#[test]
fn paging_by_offset_and_before_id() {
    let dir = temp_dir();
    let store = store_in(&dir);
    let mut ids = Vec::new();
    for i in 0..25 {
        ids.push(ok(store.record(&url_entry(
            "a",
            &format!("https://example.com/{i}"),
            ElicitationOutcome::Accept,
        ))));
    }
    ids.reverse();
    let page_ids = |filter: HistoryFilter| -> (u64, Vec<i64>) {
        let page = ok(store.list(&filter));
        (page.total, page.entries.iter().map(|e| e.id).collect())
    };
    let (total, first) = page_ids(HistoryFilter {
        limit: Some(10),
        ..HistoryFilter::default()
    });
    assert_eq!((total, first.as_slice()), (25, &ids[..10]));
    let (_, second) = page_ids(HistoryFilter {
        limit: Some(10),
        offset: Some(10),
        ..HistoryFilter::default()
    });
    assert_eq!(second, &ids[10..20]);
    let (total, after) = page_ids(HistoryFilter {
        limit: Some(10),
        before_id: Some(ids[19]),
        ..HistoryFilter::default()
    });
    assert_eq!((total, after.as_slice()), (25, &ids[20..]));
    let (_, default_page) = page_ids(HistoryFilter::default());
    assert_eq!(default_page, ids);
}

#[test]
fn export_has_stable_fields_and_goes_to_a_new_file() {
    let dir = temp_dir();
    let store = mixed_store(&dir);
    ok(store.set_trusted("a", "Agent A", "example.com", true));
    let export = ok(store.export_json());
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    assert_eq!(
        keys(&export),
        ["domainMarks", "entries", "exportedAt", "format", "version"]
    );
    assert_eq!(export["format"], EXPORT_FORMAT);
    assert_eq!(export["version"], 1);
    let entries = export["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), 6);
    assert_eq!(entries[0]["time"], 1000, "oldest first");
    assert_eq!(
        keys(&entries[0]),
        [
            "action",
            "agentId",
            "agentName",
            "detail",
            "domain",
            "id",
            "kind",
            "message",
            "permission",
            "sessionId",
            "time",
            "toolCallId",
            "url",
            "values",
            "warnings"
        ]
    );
    assert_eq!(
        keys(&entries[4]["permission"]),
        ["optionId", "optionKind", "optionName", "toolKind", "toolTitle"]
    );
    assert_eq!(
        export["domainMarks"][0],
        json!({"agentId": "a", "agentName": "Agent A", "domain": "127.0.0.1", "trusted": false,
               "timesOpened": 1, "lastOpened": 6000})
    );

    let out = dir.path().join("downloads");
    let (first, count) = ok(store.export_to_dir(&out));
    let (second, _) = ok(store.export_to_dir(&out));
    assert_eq!(count, 6);
    assert_ne!(first, second, "an export never overwrites another");
    let name = first.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    assert!(
        name.starts_with("porthole-history-") && name.ends_with(".json"),
        "{name}"
    );
    let text = std::fs::read_to_string(&first).unwrap_or_default();
    let parsed: Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(parsed["entries"], export["entries"]);
}

#[test]
fn clear_removes_entries_and_keeps_trust_marks() {
    let dir = temp_dir();
    let store = mixed_store(&dir);
    ok(store.set_trusted("a", "Agent A", "example.com", true));
    assert_eq!(ok(store.clear()), 6);
    assert_eq!(all(&store).total, 0);
    assert_eq!(ok(store.clear()), 0);
    let memory = ok(store.domain_memory("a", "Agent A", "example.com"));
    assert_eq!((memory.times_opened, memory.trusted), (0, true));
    // Ids are not reused, so a page cursor from before the clear stays meaningful.
    let id = ok(store.record(&url_entry(
        "a",
        "https://example.com/",
        ElicitationOutcome::Accept,
    )));
    assert!(id > 6, "{id}");
}
