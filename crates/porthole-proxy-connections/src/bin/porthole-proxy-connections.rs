//! The editor's proxy with the person's MCP connections (`porthole-proxy --connections` runs
//! this in its own place), and the MCP bridge their agents run (`mcp-bridge [--pipe] URL`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "mcp-bridge") {
        std::process::exit(porthole_proxy_connections::bridge_main(&args[1..]));
    }
    std::process::exit(porthole_proxy_connections::proxy_main(&args, None));
}
