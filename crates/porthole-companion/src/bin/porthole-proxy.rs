//! The proxy on its own, the program an editor runs instead of its agent (the installed app's
//! `porthole proxy` runs the same). It links no ACP SDK and no HTTP stack: `--connections` and
//! `mcp-bridge URL` (the MCP bridge the agents of `--connections` run) need them, and run
//! `porthole-proxy-connections` in place of this process (`helper.rs`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "mcp-bridge") {
        std::process::exit(porthole_companion::helper::exec(&args));
    }
    std::process::exit(porthole_companion::cli::main(&args, None, None));
}
