//! `porthole-test-mcp [--port N] [--hostile CASE] [--token-lifetime SECS] [--client-id ID] [--open]
//! [--stream-tool] [--client-secret-post] [--late-401]
//! [--step-up-scope SCOPE] [--always-403] [--legacy]
//! [--call-401-scope SCOPE] [--apps]`: serves the test MCP server on 127.0.0.1 and prints
//! `ready http://127.0.0.1:PORT/mcp`. `--stream-tool` adds the `stream` tool (benchmarks);
//! `--apps` the MCP Apps tools and resources (`apps.rs`).
//! `porthole-test-mcp --stdio`: the same MCP server on stdin and stdout, with no sign-in.

use porthole_test_mcp::{Hostile, Options};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut options = Options::default();
    let mut port = 0u16;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--port" => port = value().parse().unwrap_or_else(|_| usage("--port takes a number")),
            "--hostile" => {
                let v = value();
                options.hostile =
                    Some(Hostile::parse(&v).unwrap_or_else(|| usage(&format!("no hostile case `{v}`"))));
            }
            "--token-lifetime" => {
                options.token_lifetime = value()
                    .parse()
                    .unwrap_or_else(|_| usage("--token-lifetime takes seconds"))
            }
            "--client-id" => options.preregistered_client = Some(value()),
            "--open" => options.open = true,
            "--stream-tool" => options.stream_tool = true,
            "--apps" => options.apps = true,
            "--client-metadata" => options.client_metadata = true,
            "--client-secret-post" => options.client_secret_post = true,
            "--late-401" => options.late_401 = true,
            "--step-up-scope" => options.step_up_scope = Some(value()),
            "--always-403" => options.always_403 = true,
            "--legacy" => options.legacy = true,
            "--call-401-scope" => options.call_401_scope = Some(value()),
            "--browse" => {
                let url = value();
                if let Err(e) = browse(&url) {
                    eprintln!("porthole-test-mcp --browse: {e}");
                    std::process::exit(1);
                }
                return;
            }
            "--stdio" => {
                porthole_test_mcp::mcp::serve_stdio().await;
                return;
            }
            other => usage(&format!("unknown argument `{other}`")),
        }
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap_or_else(|e| usage(&format!("cannot listen: {e}")));
    let server = porthole_test_mcp::serve(listener, options).await;
    println!("ready {}", server.mcp_url());
    let _ = tokio::signal::ctrl_c().await;
}

fn usage(message: &str) -> ! {
    let cases: Vec<&str> = Hostile::ALL.iter().map(|h| h.name()).collect();
    eprintln!(
        "porthole-test-mcp: {message}\nhostile cases: {}",
        cases.join(", ")
    );
    std::process::exit(2)
}

/// A person's browser for loopback sign-in tests: GET `url`, following redirects (at most 5),
/// http on 127.0.0.1 or `localhost` only (the MCP conformance suite's servers say `localhost`).
fn browse(url: &str) -> Result<(), String> {
    use std::io::{Read, Write};
    let mut url = url::Url::parse(url).map_err(|e| e.to_string())?;
    for _ in 0..5 {
        let host = url.host_str().unwrap_or("").to_string();
        if url.scheme() != "http" || !(host == "127.0.0.1" || host == "localhost") {
            return Err(format!("not a loopback http address: {url}"));
        }
        let port = url.port().unwrap_or(80);
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
        let target = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        write!(
            stream,
            "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
        )
        .map_err(|e| e.to_string())?;
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        let status = answer.split_whitespace().nth(1).unwrap_or("");
        if !status.starts_with('3') {
            return if status.starts_with('2') {
                Ok(())
            } else {
                Err(format!("HTTP {status}"))
            };
        }
        let location = answer
            .lines()
            .find_map(|l| {
                l.strip_prefix("location: ")
                    .or_else(|| l.strip_prefix("Location: "))
            })
            .ok_or("a redirect without a Location")?;
        url = url.join(location.trim()).map_err(|e| e.to_string())?;
    }
    Err("too many redirects".into())
}
