//! `porthole-test-mcp [--port N] [--hostile CASE] [--token-lifetime SECS] [--client-id ID]`:
//! serves the test MCP server on 127.0.0.1 and prints `ready http://127.0.0.1:PORT/mcp`.

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
