// The app's commands, listed once. `build.rs` includes this file to declare each command as a
// permission (and to check the main window's capability grants exactly these); `commands.rs`
// registers the same list with Tauri; a test writes `ui/src/lib/generated/command-names.ts`,
// which the UI's `Commands` interface must match. A new command is added here and nowhere else
// by hand (plus its function in commands.rs and its signature in protocol.ts, which the compiler
// then demands).
//
// `with_app_commands!(m)` expands to `m!(name, name, ...)`.
macro_rules! with_app_commands {
    ($m:ident) => {
        $m!(
            subscribe_events,
            app_state,
            connect_agent,
            restart_agent,
            new_session,
            list_sessions,
            load_session,
            resume_session,
            close_session,
            delete_session,
            authenticate,
            logout,
            start_terminal_auth,
            terminal_input,
            send_prompt,
            cancel_turn,
            set_mode,
            set_model,
            fork_session,
            set_config_option,
            revoke_permission_rule,
            protocol_log,
            save_settings,
            validate_form,
            answer_dialog,
            open_url,
            close_url_view,
            dialog_shown,
            history_list,
            history_export,
            history_clear,
            domain_marks,
            set_domain_trust,
            perf_stats,
            registry_agents,
            registry_icon,
            install_agent,
            cancel_install,
            remove_agent,
            save_sign_in,
            forget_sign_in,
            mcp_connections,
            mcp_tools,
            mcp_set_enabled,
            mcp_sign_out,
            mcp_remove,
            mcp_sign_in,
            mcp_add,
            mcp_import,
        )
    };
}

#[cfg(test)]
mod tests {
    macro_rules! names {
        ($($name:ident),* $(,)?) => {
            &[$(stringify!($name)),*]
        };
    }

    /// The window's list of command names is this one; protocol.ts checks its `Commands`
    /// interface against it at type-check time.
    #[test]
    fn the_windows_command_names_are_this_list() {
        let names: &[&str] = with_app_commands!(names);
        let mut ts = String::from(
            "// Generated from src-tauri/src/command_list.rs by\n\
             // `PORTHOLE_BLESS=1 cargo test -p porthole command_list`. Do not edit.\n\n\
             /** Every command the backend registers (and the main window may call). */\n\
             export const COMMAND_NAMES = [\n",
        );
        for name in names {
            ts.push_str(&format!("  \"{name}\",\n"));
        }
        ts.push_str("] as const;\n\nexport type CommandName = (typeof COMMAND_NAMES)[number];\n");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../ui/src/lib/generated/command-names.ts"
        );
        if std::env::var_os("PORTHOLE_BLESS").is_some() {
            std::fs::write(path, &ts).unwrap();
            return;
        }
        let current = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            current == ts,
            "ui/src/lib/generated/command-names.ts is out of date; run `PORTHOLE_BLESS=1 cargo test -p porthole command_list`"
        );
    }
}
