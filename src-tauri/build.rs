fn main() {
    // tauri.conf.json, capabilities and icons live at the repository root.
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    println!("cargo:rerun-if-changed=../capabilities");
    println!("cargo:rerun-if-changed=../ui/dist");
    println!("cargo:rerun-if-changed=../icons");
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .capabilities_path_pattern("../capabilities/**/*")
        // Declaring the app's commands makes each one a permission that a capability must
        // grant; the main window gets exactly these and nothing else.
        .app_manifest(tauri_build::AppManifest::new().commands(&[
            "app_state",
            "connect_agent",
            "restart_agent",
            "new_session",
            "list_sessions",
            "load_session",
            "resume_session",
            "close_session",
            "authenticate",
            "start_terminal_auth",
            "terminal_input",
            "send_prompt",
            "cancel_turn",
            "set_mode",
            "set_model",
            "fork_session",
            "set_config_option",
            "revoke_permission_rule",
            "answer_file_access",
            "protocol_log",
            "save_settings",
            "validate_form",
            "answer_elicitation",
            "answer_permission",
            "open_url",
            "close_url_view",
            "dialog_shown",
            "history_list",
            "history_export",
            "history_clear",
            "domain_marks",
            "set_domain_trust",
            "perf_stats",
            "registry_agents",
            "registry_icon",
            "install_agent",
            "remove_agent",
            "save_sign_in",
            "forget_sign_in",
        ]));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build failed: {e:#}");
    }
}
