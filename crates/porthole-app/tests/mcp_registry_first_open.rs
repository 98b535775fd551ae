//! The first open of a registry with no copy anywhere (the official one, thousands of entries,
//! read 100 a page): the first page is listed as soon as it is read, not after the whole
//! listing; the rest fills the copy in behind, the window told after each page; search over
//! titles and descriptions is complete once the copy is, and the state says it is filling until
//! then. The fake registry holds every page after the first until the test lets them go.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::FakeShell;
use porthole_app::Backend;
use porthole_test_mcp_registry as fake;
use serde_json::json;

const ENTRIES: usize = 250;

fn bulk(i: usize) -> serde_json::Value {
    json!({
        "name": format!("io.github.bulk/server-{i:04}"),
        "description": format!("Bulk server number {i}, keyword k{i:04}x."),
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}]
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_page_is_listed_before_the_whole_registry_is_read() {
    let home = tempfile::tempdir().unwrap();
    let registry = fake::Server::start();
    for i in 0..ENTRIES {
        registry.add(bulk(i));
    }
    registry.hold_later_pages();
    common::set_home(home.path());
    // SAFETY: set before the app model starts; one test in this binary.
    unsafe {
        std::env::set_var("PORTHOLE_CONNECTIONS_FILE", home.path().join("connections.json"));
        std::env::set_var("PORTHOLE_CACHE_DIR", home.path().join("cache"));
        std::env::set_var("PORTHOLE_MCP_REGISTRY_URL", registry.url());
    }
    let launch = porthole_app::Launch::from_args(None, Some(home.path().to_path_buf())).unwrap();
    let shell = Arc::new(FakeShell::default());
    let backend = Backend::new(shell.clone(), tokio::runtime::Handle::current(), launch);

    // The later pages are held: the first search answers with the first page alone.
    let started = Instant::now();
    let first = tokio::time::timeout(Duration::from_secs(20), backend.mcp_registry_search("", None))
        .await
        .expect("the first search waited for the whole listing")
        .unwrap();
    let took = started.elapsed();
    assert_eq!(first.total, 100, "one page of 100");
    let state = &first.registries[0];
    assert!(state.filling && state.refreshing, "{state:?}");
    assert_eq!(state.updated_since, None, "a partial copy is not up to date");
    // An entry of the last page is not found by its description yet...
    let late = backend.mcp_registry_search("k0240x", None).await.unwrap();
    assert_eq!(late.total, 0);
    // ...nor is the partial copy on disk.
    assert_eq!(
        std::fs::read_dir(home.path().join("cache"))
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );

    // The rest comes: the window is told as the copy fills and when it is whole.
    registry.release_pages();
    shell
        .wait_for("the whole registry read", |e| {
            e["type"] == "mcp_registry_refreshed" && e["problem"].is_null()
        })
        .await;
    let done = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let r = backend.mcp_registry_search("", None).await.unwrap();
            if !r.registries[0].filling {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the copy never became whole");
    assert_eq!(done.total, ENTRIES);
    assert!(done.registries[0].updated_since.is_some());
    let late = backend.mcp_registry_search("k0240x", None).await.unwrap();
    let names: Vec<&str> = late.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["io.github.bulk/server-0240"]);
    // The pages the registry was asked for: three, each once.
    let pages = registry
        .requests()
        .iter()
        .filter(|r| r.starts_with("/v0.1/servers?"))
        .count();
    assert_eq!(pages, 3, "{:?}", registry.requests());
    eprintln!("first page listed after {took:?}");

    // A registry that cannot be read: the first search says why (the reading ended first).
    // SAFETY: one test in this binary; nothing else reads the environment now.
    unsafe { std::env::set_var("PORTHOLE_MCP_REGISTRY_URL", "http://127.0.0.1:9") };
    let unread = backend.mcp_registry_search("", None).await.unwrap();
    assert_eq!(unread.total, 0);
    assert!(
        unread.registries[0].problem.is_some(),
        "{:?}",
        unread.registries[0]
    );
}
