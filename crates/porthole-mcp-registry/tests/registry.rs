//! The MCP Registry client against the fake registry on 127.0.0.1 (`porthole-test-mcp-registry`):
//! the documentation's real server.json examples, paging and search, the cache's
//! `updated_since` refresh, a registry behind a bearer token, every hostile entry, the caps,
//! and the form from an entry to a saved connection.

use std::time::{Duration, Instant};

use porthole_connections::list::{Connections, EnvValue, Server};
use porthole_connections::secrets::SecretStore;
use porthole_mcp_registry::{
    AddForm, ApiError, Choice, Entry, Query, Registry, Runtime, Status, refresh, save_plan,
};
use porthole_test_mcp_registry::{self as fake, Misbehave};
use serde_json::{Map, Value, json};

fn registry(server: &fake::Server) -> Registry {
    Registry::new(&server.url(), None).unwrap()
}

fn entry(r: &Registry, name: &str) -> Entry {
    r.version(name, "latest")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn values(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

#[test]
fn the_documentations_examples_are_read_with_their_runtimes() {
    let server = fake::Server::with_fixtures();
    let page = registry(&server)
        .list_all(&Query {
            latest: true,
            ..Query::default()
        })
        .unwrap();
    assert!(page.problems.is_empty(), "{:?}", page.problems);
    let by_name = |n: &str| {
        page.entries
            .iter()
            .find(|e| e.name == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    assert_eq!(page.entries.len(), fake::official_fixtures().len() + 1);

    let weather = by_name("io.github.user/local-weather");
    assert_eq!(weather.packages[0].runtime, Runtime::Npx);
    assert_eq!(
        weather.packages[0].identifier,
        "@modelcontextprotocol/server-weather"
    );
    assert_eq!(weather.packages[0].version, "1.0.0");
    assert_eq!(weather.namespace, "io.github.user");

    let fs = by_name("io.github.modelcontextprotocol/filesystem");
    assert_eq!(fs.runtimes(), [Runtime::Npx, Runtime::Docker]);
    assert_eq!(fs.packages[1].identifier, "docker.io/mcp/filesystem");
    assert_eq!(fs.packages[1].version, "1.0.2");
    assert_eq!(fs.title.as_deref(), Some("Filesystem"));
    assert_eq!(
        fs.repository.as_deref(),
        Some("https://github.com/modelcontextprotocol/servers")
    );

    assert_eq!(
        by_name("io.github.example/weather-mcp").runtimes(),
        [Runtime::Uvx]
    );
    assert_eq!(
        by_name("io.github.joelverhagen/knapcode-samplemcpserver").runtimes(),
        [Runtime::Dnx]
    );
    assert_eq!(
        by_name("io.github.example/database-manager").runtimes(),
        [Runtime::Docker]
    );
    let remote = by_name("io.github.user/remote-weather");
    assert_eq!(remote.remotes[0].url, "https://{host}/mcp");
    assert_eq!(remote.icons, ["https://example.com/icon.png"]);
    // Nothing to add: listed, not offered.
    assert!(!by_name("io.github.user/weather").is_offered());
    assert!(remote.is_offered());
}

#[test]
fn pages_follow_the_cursor_and_search_is_the_registrys_name_search() {
    let server = fake::Server::with_fixtures();
    let r = registry(&server);
    let first = r
        .list(&Query {
            limit: Some(3),
            latest: true,
            ..Query::default()
        })
        .unwrap();
    assert_eq!(first.entries.len(), 3);
    assert!(first.next_cursor.is_some());
    let all = r
        .list_all(&Query {
            limit: Some(3),
            latest: true,
            ..Query::default()
        })
        .unwrap();
    assert_eq!(all.entries.len(), fake::official_fixtures().len() + 1);
    let pages = server
        .requests()
        .iter()
        .filter(|q| q.starts_with("/v0.1/servers?"))
        .count();
    assert_eq!(
        pages,
        1 + all.entries.len().div_ceil(3),
        "{:?}",
        server.requests()
    );
    let found = r
        .list(&Query {
            search: Some("weather".into()),
            ..Query::default()
        })
        .unwrap();
    let names: Vec<&str> = found.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "io.github.example/weather-mcp",
            "io.github.user/local-weather",
            "io.github.user/remote-weather",
            "io.github.user/weather"
        ]
    );
    // The name's `/` travels percent-encoded in the path.
    entry(&r, "io.github.user/weather");
    assert!(
        server
            .requests()
            .iter()
            .any(|q| q == "/v0.1/servers/io.github.user%2Fweather/versions/latest")
    );
}

#[test]
fn the_cache_refreshes_with_updated_since_and_searches_titles_and_descriptions() {
    let server = fake::Server::with_fixtures();
    let r = registry(&server);
    let dir = tempfile::tempdir().unwrap();
    let first = refresh(&r, Some(dir.path())).unwrap();
    assert_eq!(first.servers.len(), fake::official_fixtures().len() + 1);
    // Only in the description: the registry's name search would not find it.
    let hits: Vec<&str> = first
        .search("Data ACCESS")
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(hits, ["io.github.example/weather-mcp"]);
    let hits: Vec<&str> = first.search("brave").iter().map(|e| e.name.as_str()).collect();
    assert_eq!(hits, ["io.modelcontextprotocol.anonymous/brave-search"]);
    let since = first.updated_since.clone().unwrap();

    // Later: one server deleted, one deprecated, one with a new version.
    let later = "2099-01-01T00:00:00Z";
    server.set_status("io.modelcontextprotocol.anonymous/brave-search", "deleted", later);
    server.set_status("io.github.example/weather-mcp", "deprecated", later);
    let mut newer = fake::official_fixtures()
        .into_iter()
        .find(|(f, _)| f == "minimal.json")
        .unwrap()
        .1;
    newer["version"] = json!("1.0.3");
    newer["description"] = json!("Now with forecasts for the moon.");
    server.add_as(newer, "active", later, true);

    let second = refresh(&r, Some(dir.path())).unwrap();
    let last = server.requests().last().unwrap().clone();
    assert!(
        last.contains(&format!("updated_since={}", since.replace(':', "%3A"))),
        "{last}"
    );
    assert!(
        !second
            .servers
            .contains_key("io.modelcontextprotocol.anonymous/brave-search")
    );
    assert_eq!(
        second.servers["io.github.example/weather-mcp"].status,
        Status::Deprecated
    );
    assert_eq!(second.servers["io.github.user/weather"].version, "1.0.3");
    assert_eq!(second.search("moon").len(), 1);
    // A newer version whose name sorts before the one it replaces (1.0.10 before 1.0.9): the
    // answer lists the new latest first, then the old one, no longer the latest, changed too.
    let mut v9 = fake::official_fixtures()
        .into_iter()
        .find(|(f, _)| f == "minimal.json")
        .unwrap()
        .1;
    v9["version"] = json!("1.0.9");
    server.add_as(v9.clone(), "active", "2099-02-01T00:00:00Z", true);
    assert_eq!(
        refresh(&r, Some(dir.path())).unwrap().servers["io.github.user/weather"].version,
        "1.0.9"
    );
    let mut v10 = v9;
    v10["version"] = json!("1.0.10");
    // Later than this test's clock can reach, so the next refresh's `updated_since` is before it.
    server.add_as(v10, "active", "2099-03-01T00:00:00Z", true);
    let third = refresh(&r, Some(dir.path())).unwrap();
    assert_eq!(third.servers["io.github.user/weather"].version, "1.0.10");
    let second = third;
    // The copy on disk is what a view opens with.
    let cached = porthole_mcp_registry::load_cache(dir.path(), r.base()).unwrap();
    assert_eq!(cached.servers.len(), second.servers.len());
}

#[test]
fn a_registry_behind_a_bearer_token() {
    let server = fake::Server::with_fixtures();
    server.require_token("org-token-123");
    let without = Registry::new(&server.url(), None)
        .unwrap()
        .list(&Query::default());
    let err = without.unwrap_err().to_string();
    assert!(err.contains("401"), "{err}");
    let with = Registry::new(&server.url(), Some("org-token-123".into())).unwrap();
    assert!(!with.list(&Query::default()).unwrap().entries.is_empty());
    assert_eq!(
        server.authorizations().last().unwrap().as_deref(),
        Some("Bearer org-token-123")
    );
    // Wrong token: refused, and the token is in no error or debug output.
    let wrong = Registry::new(&server.url(), Some("wrong-secret-999".into())).unwrap();
    let err = wrong.list(&Query::default()).unwrap_err().to_string();
    assert!(!err.contains("wrong-secret-999") && !format!("{wrong:?}").contains("wrong-secret-999"));
}

#[test]
fn registry_addresses_follow_the_url_rule() {
    assert!(Registry::new("https://registry.modelcontextprotocol.io", None).is_ok());
    assert!(Registry::new("http://127.0.0.1:9/", None).is_ok());
    for bad in [
        "http://registry.example.com",
        "ftp://x",
        "https://u:p@r.example",
        "not a url",
    ] {
        assert!(Registry::new(bad, None).is_err(), "{bad}");
    }
}

/// What each hostile entry must get.
enum Expect {
    /// Not listed at all; the listing's problem says this.
    NotListed(&'static str),
    /// Listed, its only package or remote left out for this reason, so not offered.
    Dropped(&'static str),
    /// Listed and offered, with its display text made safe.
    Shown,
}

fn expectation(case: &str) -> Expect {
    use Expect::*;
    match case {
        "npm-option-identifier" => Dropped("not a package name"),
        "npm-version-in-identifier" => Dropped("holds a version"),
        "npm-version-latest" => Dropped("not an exact version"),
        "npm-dist-tag" => Dropped("a tag like `next` moves"),
        "npm-version-range" => Dropped("not an exact version"),
        "npm-other-index" => Dropped("not npm's own"),
        "npx-runtime-package-option" => Dropped("`--package` is not one Porthole passes to npx"),
        "npx-runtime-positional" => Dropped("positional runtime argument"),
        "npx-runtime-option-with-value" => Dropped("not an option name"),
        "pypi-index-url" => Dropped("not a bare package name"),
        "pypi-direct-url" => Dropped("not a bare package name"),
        "oci-latest" => Dropped("pinned to a tag other than `latest`"),
        "oci-untagged" => Dropped("no tag or digest"),
        "oci-privileged" => Dropped("`--privileged` is not one Porthole passes to docker"),
        "oci-entrypoint" => Dropped("`--entrypoint` is not one Porthole passes to docker"),
        "oci-env-docker-host" => Dropped("`LD_PRELOAD` would configure docker or how programs load"),
        "oci-mount-host-root" => Dropped("names a folder of this computer itself"),
        "oci-option-image" => Dropped("not an image reference"),
        "env-path" => Dropped("`PATH` would configure"),
        "env-ld-preload" => Dropped("`LD_PRELOAD` would configure"),
        "env-node-options" => Dropped("`NODE_OPTIONS` would configure"),
        "env-npm-config" => Dropped("`npm_config_registry` would configure"),
        "env-uv-index" => Dropped("`UV_INDEX_URL` would configure"),
        "secret-argument" => Dropped("secret command-line argument"),
        "unknown-package-type" => Dropped("`cargo` is not one Porthole runs"),
        // The docs' bundle: offered; its file is checked when chosen (tests/bundle.rs).
        "mcpb-bundle" => Shown,
        "mcpb-plain-http" => Dropped("plain http to another computer"),
        "mcpb-file-url" => Dropped("`file:`; a bundle is downloaded over https only"),
        "mcpb-no-hash" => Dropped("no `fileSha256`"),
        "mcpb-bad-hash" => Dropped("is not a SHA-256"),
        "mcpb-runtime-argument" => Dropped("takes no runtime arguments"),
        "remote-plain-http" => Dropped("plain http is only for a server on this computer"),
        "remote-http-template" => Dropped("host is a variable must be https"),
        "remote-userinfo" => Dropped("user name or password"),
        "remote-file-url" => Dropped("the URL has no host"),
        "remote-host-header" => Dropped("`Host` is not one a registry may set"),
        "hidden-char-identifier" => Dropped("hidden or control characters"),
        "bidi-text" | "long-description" => Shown,
        "bad-name" => NotListed("is not `namespace/name`"),
        "bidi-name" => NotListed("is not `namespace/name`"),
        "unpinned-server-version" => NotListed("not an exact version"),
        other => panic!("no expectation for the hostile case {other}"),
    }
}

#[test]
fn every_hostile_entry_gets_what_its_rule_says() {
    let server = fake::Server::start();
    let hostile = fake::hostile_fixtures();
    for (_, v) in &hostile {
        server.add(v.clone());
    }
    let page = registry(&server)
        .list_all(&Query {
            latest: true,
            ..Query::default()
        })
        .unwrap();
    let mut not_listed = 0;
    for (case, v) in &hostile {
        let name = v["name"].as_str().unwrap();
        let listed = page.entries.iter().find(|e| e.name == name);
        match (expectation(case), listed) {
            (Expect::NotListed(why), None) => {
                not_listed += 1;
                assert!(
                    page.problems.iter().any(|p| p.contains(why)),
                    "{case}: {:?}",
                    page.problems
                );
            }
            (Expect::Dropped(why), Some(e)) => {
                assert!(!e.is_offered(), "{case} is offered");
                assert_eq!(e.problems.len(), 1, "{case}: {:?}", e.problems);
                assert!(e.problems[0].contains(why), "{case}: {}", e.problems[0]);
                assert!(
                    AddForm::new(e, Choice::Package(0)).is_err()
                        && AddForm::new(e, Choice::Remote(0)).is_err()
                );
            }
            (Expect::Shown, Some(e)) => {
                assert!(e.is_offered(), "{case}");
                for text in [e.title.as_deref().unwrap_or_default(), e.description.as_str()] {
                    assert!(
                        !text.contains(['\u{202e}', '\u{200b}', '\u{202c}']),
                        "{case}: {text:?}"
                    );
                    assert!(
                        text.chars().count() <= 2001,
                        "{case}: {} chars",
                        text.chars().count()
                    );
                }
            }
            (_, listed) => panic!("{case}: listed = {}", listed.is_some()),
        }
    }
    assert_eq!(page.problems.len(), not_listed, "{:?}", page.problems);
    let bidi = page
        .entries
        .iter()
        .find(|e| e.name.ends_with("/bidi-text"))
        .unwrap();
    assert_eq!(bidi.title.as_deref(), Some("Innocent⟨U+202E⟩gnp.exe"));
    let long = page
        .entries
        .iter()
        .find(|e| e.name.ends_with("/long-description"))
        .unwrap();
    assert!(long.description.ends_with('…') && long.description.chars().count() == 2001);
}

#[test]
fn an_answer_too_large_is_refused() {
    let server = fake::Server::with_fixtures();
    server.misbehave(Misbehave::Oversize(9 << 20));
    let err = registry(&server).list(&Query::default()).unwrap_err();
    assert!(matches!(err, ApiError::Fetch(_)), "{err}");
    assert!(err.to_string().contains("more than the limit"), "{err}");
}

#[test]
fn an_endless_answer_ends_at_the_cap() {
    let server = fake::Server::with_fixtures();
    server.misbehave(Misbehave::Endless);
    let started = Instant::now();
    let err = registry(&server).list(&Query::default()).unwrap_err().to_string();
    assert!(err.contains("more than the limit"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_stalled_answer_ends_after_the_idle_limit() {
    let server = fake::Server::with_fixtures();
    server.misbehave(Misbehave::Stall);
    let started = Instant::now();
    let err = registry(&server).list(&Query::default()).unwrap_err().to_string();
    assert!(err.contains("nothing arrived"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_dripping_answer_ends_at_the_minimum_rate() {
    let server = fake::Server::with_fixtures();
    server.misbehave(Misbehave::Drip { ms: 50 });
    let started = Instant::now();
    let err = registry(&server).list(&Query::default()).unwrap_err().to_string();
    assert!(err.contains("slower than the minimum"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_cursor_that_comes_round_again_ends_the_listing() {
    let server = fake::Server::with_fixtures();
    server.misbehave(Misbehave::CursorLoop);
    let page = registry(&server)
        .list_all(&Query {
            limit: Some(2),
            ..Query::default()
        })
        .unwrap();
    assert!(
        page.problems
            .iter()
            .any(|p| p.contains("cursor it had sent before"))
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn a_package_form_is_an_elicitation_form_and_becomes_a_pinned_command() {
    let server = fake::Server::with_fixtures();
    let e = entry(&registry(&server), "io.github.user/local-weather");
    let form = AddForm::new(&e, Choice::Package(0)).unwrap();
    // API_KEY: required and secret (masked, and the form is flagged as asking for a secret).
    assert_eq!(
        form.fields(),
        [
            ("API_KEY".to_string(), true, true),
            ("config_path".to_string(), false, false)
        ]
    );
    assert!(porthole_elicitation::form::is_secret_request("", &form.schema));
    // The same validator: a missing required value is named.
    let err = form.plan("weather", &values(&[])).unwrap_err();
    assert_eq!(err.len(), 1);
    assert!(err[0].starts_with("API_KEY"), "{err:?}");
    let plan = form
        .plan(
            "weather",
            &values(&[
                ("API_KEY", json!("sk-test-value-1")),
                ("config_path", json!("/home/me/w.toml")),
            ]),
        )
        .unwrap();
    let Server::Stdio { command, args, env } = &plan.connection.server else {
        panic!("stdio")
    };
    assert_eq!(command, "npx");
    assert_eq!(
        args,
        &[
            "-y",
            "@modelcontextprotocol/server-weather@1.0.0",
            "/home/me/w.toml",
            "--port",
            "8080"
        ]
    );
    assert_eq!(env["API_KEY"], EnvValue::Secret);
    assert_eq!(
        plan.secrets,
        [("env:API_KEY".to_string(), "sk-test-value-1".to_string())]
    );
    assert_eq!(
        plan.shown,
        "API_KEY=<in the OS keyring> npx -y @modelcontextprotocol/server-weather@1.0.0 /home/me/w.toml --port 8080"
    );
}

#[test]
fn choices_formats_and_variables_of_the_docker_example() {
    let server = fake::Server::with_fixtures();
    let e = entry(&registry(&server), "io.github.example/database-manager");
    let form = AddForm::new(&e, Choice::Package(0)).unwrap();
    let names: Vec<String> = form.fields().into_iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        [
            "DB_USERNAME",
            "DB_PASSWORD",
            "SSL_MODE",
            "db_type",
            "host",
            "port",
            "database_name"
        ]
    );
    let good = [
        ("DB_USERNAME", json!("app")),
        ("DB_PASSWORD", json!("pw-123")),
        ("db_type", json!("postgres")),
        ("database_name", json!("orders")),
        ("port", json!(5432)),
    ];
    // A value outside `choices` and a number that is not one: refused by the form's validator.
    let mut bad = values(&good);
    bad.insert("SSL_MODE".into(), json!("maybe"));
    bad.insert("port".into(), json!("five"));
    let err = form.plan("db", &bad).unwrap_err();
    assert!(
        err.iter().any(|e| e.starts_with("SSL_MODE")) && err.iter().any(|e| e.starts_with("port")),
        "{err:?}"
    );
    let mut ok = values(&good);
    ok.insert("SSL_MODE".into(), json!("require"));
    ok.insert("host".into(), json!("db.internal"));
    let plan = form.plan("db", &ok).unwrap();
    let Server::Stdio { command, args, .. } = &plan.connection.server else {
        panic!()
    };
    assert_eq!(command, "docker");
    assert_eq!(
        args.join(" "),
        "run -i --rm --network host -e DB_TYPE=postgres -e DB_PASSWORD -e DB_USERNAME -e SSL_MODE \
         docker.io/example/database-manager-mcp:3.1.0 --host db.internal --port 5432 orders"
    );
    assert!(!plan.shown.contains("pw-123"), "{}", plan.shown);
}

#[test]
fn a_remote_form_fills_the_url_template_before_the_url_check() {
    let server = fake::Server::with_fixtures();
    let e = entry(&registry(&server), "io.github.user/remote-weather");
    let form = AddForm::new(&e, Choice::Remote(0)).unwrap();
    assert_eq!(
        form.fields(),
        [
            ("host".to_string(), false, false),
            ("Authorization".to_string(), true, true)
        ]
    );
    let auth = ("Authorization", json!("Bearer abc-secret"));
    let plan = form
        .plan("weather", &values(std::slice::from_ref(&auth)))
        .unwrap();
    let Server::Remote { url, headers, .. } = &plan.connection.server else {
        panic!()
    };
    assert_eq!(url.as_str(), "https://api.example.com/mcp");
    assert_eq!(headers["Authorization"], EnvValue::Secret);
    assert_eq!(
        plan.shown,
        "https://api.example.com/mcp\nAuthorization: <in the OS keyring>"
    );
    for sneaky in ["evil.example/x", "a@evil.example", "x?y", "x#y"] {
        let err = form
            .plan("weather", &values(&[auth.clone(), ("host", json!(sneaky))]))
            .unwrap_err();
        assert!(err[0].contains("URL variable"), "{sneaky}: {err:?}");
    }
}

#[test]
fn saving_writes_one_connection_and_secrets_only_to_the_keyring() {
    let server = fake::Server::with_fixtures();
    let e = entry(&registry(&server), "io.github.user/local-weather");
    let form = AddForm::new(&e, Choice::Package(0)).unwrap();
    let plan = form
        .plan("weather", &values(&[("API_KEY", json!("sk-test-value-1"))]))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connections.json");
    let store = SecretStore::with_store(keyring_core::sample::Store::new().unwrap());
    save_plan(&path, &plan, Some(&store)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-test-value-1"), "{text}");
    let list = Connections::load(&path).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list.get("weather").unwrap().server, plan.connection.server);
    assert_eq!(
        store.get("weather", "env:API_KEY").unwrap().as_deref(),
        Some("sk-test-value-1")
    );
    // Twice: refused, the first one kept.
    assert!(save_plan(&path, &plan, Some(&store)).is_err());
    assert_eq!(Connections::load(&path).unwrap().len(), 1);
    // Without a keyring, a form with secrets saves nothing.
    let other = dir.path().join("other.json");
    assert!(save_plan(&other, &plan, None).is_err());
    assert!(!other.exists());
}

#[test]
fn deprecated_and_deleted_entries_are_shown_as_such_and_not_offered() {
    let server = fake::Server::start();
    let mut a = server_everything_named("io.github.t/deprecated-one");
    server.add_as(a.take(), "deprecated", "2025-10-01T00:00:00Z", true);
    let mut b = server_everything_named("io.github.t/deleted-one");
    server.add_as(b.take(), "deleted", "2025-10-01T00:00:00Z", true);
    let r = registry(&server);
    let listed = r.list_all(&Query::default()).unwrap();
    // Deleted entries come only with `updated_since`.
    assert_eq!(listed.entries.len(), 1);
    assert_eq!(listed.entries[0].status, Status::Deprecated);
    assert!(!listed.entries[0].is_offered());
    assert!(AddForm::new(&listed.entries[0], Choice::Package(0)).is_err());
    let since = r
        .list_all(&Query {
            updated_since: Some("2025-01-01T00:00:00Z".into()),
            ..Query::default()
        })
        .unwrap();
    let deleted = since
        .entries
        .iter()
        .find(|e| e.status == Status::Deleted)
        .unwrap();
    assert!(!deleted.is_offered());
}

fn server_everything_named(name: &str) -> Value {
    let mut v = fake::server_everything();
    v["name"] = json!(name);
    v
}

/// `isRepeated`: the argument's values are a list field (Porthole's own kind, validated value
/// by value), each value one argument; a named one repeats its name; with `choices`, a
/// multi-select.
#[test]
fn a_repeated_argument_is_a_list_and_each_value_one_argument() {
    let server = fake::Server::with_fixtures();
    let mut tools = fake::server_everything();
    tools["name"] = json!("io.github.t/repeated");
    tools["packages"][0]["packageArguments"] = json!([
        {"type": "named", "name": "--allow", "isRepeated": true, "description": "A host it may reach"},
        {"type": "named", "name": "--mode", "isRepeated": true, "choices": ["read", "write", "admin"]}
    ]);
    server.add(tools);
    let r = registry(&server);

    // The documentation's filesystem example: a repeated positional folder, with a default.
    let fs = AddForm::new(
        &entry(&r, "io.github.modelcontextprotocol/filesystem"),
        Choice::Package(0),
    )
    .unwrap();
    let field = fs.schema.field("target_dir").unwrap();
    assert!(
        matches!(field.kind, porthole_elicitation::form::FieldKind::List { .. }),
        "{:?}",
        field.kind
    );
    assert_eq!(
        fs.schema.initial_values()["target_dir"],
        json!(["/Users/username/Desktop"])
    );
    let plan = fs
        .plan(
            "fs",
            &values(&[("target_dir", json!(["/srv/a", "", "/srv/b c"]))]),
        )
        .unwrap();
    let Server::Stdio { args, .. } = &plan.connection.server else {
        panic!()
    };
    assert_eq!(
        args,
        &[
            "-y",
            "@modelcontextprotocol/server-filesystem@1.0.2",
            "/srv/a",
            "/srv/b c"
        ]
    );
    assert!(plan.shown.ends_with("/srv/a '/srv/b c'"), "{}", plan.shown);
    // Required: an empty list is refused by the validator, naming the field.
    let err = fs
        .plan("fs", &values(&[("target_dir", json!([""]))]))
        .unwrap_err();
    assert!(err[0].starts_with("target_dir"), "{err:?}");

    let form = AddForm::new(&entry(&r, "io.github.t/repeated"), Choice::Package(0)).unwrap();
    assert!(matches!(
        form.schema.field("mode").unwrap().kind,
        porthole_elicitation::form::FieldKind::MultiSelect { .. }
    ));
    let plan = form
        .plan(
            "t",
            &values(&[
                ("allow", json!(["a.example", "b.example"])),
                ("mode", json!(["read", "write"])),
            ]),
        )
        .unwrap();
    let Server::Stdio { args, .. } = &plan.connection.server else {
        panic!()
    };
    assert_eq!(
        args[2..],
        [
            "--allow",
            "a.example",
            "--allow",
            "b.example",
            "--mode",
            "read",
            "--mode",
            "write"
        ]
    );
    // Left empty: no argument at all.
    let plan = form.plan("t", &values(&[])).unwrap();
    let Server::Stdio { args, .. } = &plan.connection.server else {
        panic!()
    };
    assert_eq!(args.len(), 2, "{args:?}");
}
