//! `porthole-test-mcp-registry [--port N] [--token T] [--remote NAME=URL ...] [--bundle
//! NAME=PROGRAM ...]`: the fake MCP Registry with its fixtures, for the window's end-to-end
//! tests; prints its address, serves until killed. `--remote` adds a remote entry with no
//! header at URL (a test server on 127.0.0.1: whether it asks for sign-in is the server's to
//! say); `--bundle` an MCP bundle entry whose `.mcpb` holds PROGRAM (`porthole-test-mcp`) as a
//! binary bundle, served by this registry.

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut port, mut token, mut remotes, mut bundles) = (0u16, None, Vec::new(), Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).expect("--port N"),
            "--token" => token = args.next(),
            "--remote" => remotes.push(args.next().expect("--remote NAME=URL")),
            "--bundle" => bundles.push(args.next().expect("--bundle NAME=PROGRAM")),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let server = porthole_test_mcp_registry::Server::start_on(&format!("127.0.0.1:{port}"));
    for (_, v) in porthole_test_mcp_registry::official_fixtures() {
        server.add(v);
    }
    server.add(porthole_test_mcp_registry::server_everything());
    for (_, v) in porthole_test_mcp_registry::hostile_fixtures() {
        server.add(v);
    }
    for remote in remotes {
        let (name, url) = remote.split_once('=').expect("--remote NAME=URL");
        server.add(porthole_test_mcp_registry::remote_entry(name, url));
    }
    for bundle in bundles {
        let (name, program) = bundle.split_once('=').expect("--bundle NAME=PROGRAM");
        let program = std::fs::read(program).expect("the bundle's program");
        let bytes = porthole_test_mcp_registry::binary_bundle(&program);
        let sha = porthole_test_mcp_registry::sha256_hex(&bytes);
        let file = format!("{}.mcpb", name.replace('/', "-"));
        let url = server.serve_file(&file, bytes);
        server.add(porthole_test_mcp_registry::bundle_entry(
            name, "1.0.0", &url, &sha,
        ));
    }
    if let Some(t) = token {
        server.require_token(&t);
    }
    println!("{}", server.url());
    loop {
        std::thread::park();
    }
}
