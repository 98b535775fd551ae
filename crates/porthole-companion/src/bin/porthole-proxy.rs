//! The proxy on its own (the installed app runs the same as `porthole proxy`). It is also the
//! MCP bridge its agents run for `--connections` (`porthole-proxy mcp-bridge [--pipe] URL`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "mcp-bridge") {
        std::process::exit(porthole_companion::connections::bridge_main(&args[1..]));
    }
    std::process::exit(porthole_companion::cli::main(&args, None));
}
