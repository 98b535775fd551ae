//! The proxy on its own (the installed app runs the same as `porthole proxy`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(porthole_companion::cli::main(&args, None));
}
