// The app's commands come from one list (src/command_list.rs): each becomes a permission, and the
// main window's capability file is written from the same list, so a command cannot be registered
// without being granted, or granted without existing.
include!("src/command_list.rs");

/// The commands' names; their arguments, results and bodies are commands.rs's business.
macro_rules! names {
    ($( $(#[doc = $doc:literal])* $name:ident $args:tt -> $ret:ty $(= |$b:ident| $body:expr)? ; )*) => {
        &[$(stringify!($name)),*]
    };
}

const COMMANDS: &[&str] = with_app_commands!(names);

/// The main window gets the app's commands and nothing of Tauri's own: its events arrive on the
/// channel it subscribes with (`subscribe_events`), so it needs no event listening.
fn main_capability() -> String {
    let permissions: Vec<String> = COMMANDS
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .map(|p| format!("    \"{p}\""))
        .collect();
    format!(
        "{{\n  \"$schema\": \"../src-tauri/gen/schemas/desktop-schema.json\",\n  \
         \"identifier\": \"main-window\",\n  \
         \"description\": \"The main window: the app's own commands, nothing else. \
         Written by src-tauri/build.rs from src/command_list.rs.\",\n  \
         \"windows\": [\n    \"main\"\n  ],\n  \"permissions\": [\n{}\n  ]\n}}\n",
        permissions.join(",\n")
    )
}

fn main() {
    // tauri.conf.json, capabilities and icons live at the repository root.
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    println!("cargo:rerun-if-changed=../capabilities");
    println!("cargo:rerun-if-changed=../ui/dist");
    println!("cargo:rerun-if-changed=../icons");
    println!("cargo:rerun-if-changed=src/command_list.rs");
    // Written only when it differs, so the build does not trigger itself again.
    let capability = main_capability();
    let path = "../capabilities/main.json";
    if std::fs::read_to_string(path).ok().as_deref() != Some(capability.as_str()) {
        std::fs::write(path, &capability).expect("write capabilities/main.json");
    }
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .capabilities_path_pattern("../capabilities/**/*")
        // Declaring the app's commands makes each one a permission that a capability must
        // grant; the main window gets exactly these and nothing else.
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build failed: {e:#}");
    }
}
