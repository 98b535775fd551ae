// The app's commands, listed once, each with its arguments and its result. From this list:
// `build.rs` declares each command as a permission (and writes the main window's capability,
// which grants exactly these); `commands.rs` writes each command's Tauri function (the body
// after `=` is its whole logic: one call into porthole-app's `Backend`) and registers them; a
// test writes `ui/src/lib/generated/commands.ts`, the window's `Commands` interface (arguments
// under their camelCase names, as Tauri takes them; result types named as ts-rs generates them).
// A new command is added here and nowhere else by hand, besides its `Backend` method.
//
// Each entry: `/// docs` `name(arg: Type, ...) -> Result = |backend| expression;`. An argument's
// TypeScript comes from its Rust type (ts-rs) unless `as "TypeScript"` names it (for a JSON value
// or the event channel). An entry without `= ...` (`subscribe_events`) has its function written
// by hand in commands.rs. The types are named as `crate::wire` imports them.
//
// `with_app_commands!(m)` expands to `m! { entries }`.
macro_rules! with_app_commands {
    ($m:ident) => {
        $m! {
            /// The event stream: every batch from now on arrives on `channel` (the window calls it once, first).
            subscribe_events(channel: EventChannel as "Channel<{ events: UiEvent[] }>") -> ();
            /// Current state; call once, after subscribing. Also returns the dialogs waiting.
            app_state() -> WindowState = |backend| Ok(backend.app_state());
            connect_agent(agent_id: String) -> () = |backend| backend.connect_agent(&agent_id);
            restart_agent(agent_id: String) -> () = |backend| backend.restart(&agent_id);
            /// `additionalDirectories`: more folders, only for an agent that advertises them.
            new_session(agent_id: String, cwd: String, additional_directories: Option<Vec<String>>) -> SessionView =
                |backend| backend.new_session_in(&agent_id, &cwd, &additional_directories.unwrap_or_default()).await;
            list_sessions(agent_id: String, cwd: Option<String>, cursor: Option<String>) -> SessionList =
                |backend| backend.list_sessions(&agent_id, cwd, cursor).await;
            load_session(agent_id: String, session_id: String, cwd: String, additional_directories: Option<Vec<String>>) -> SessionView =
                |backend| backend.load_session(&agent_id, &session_id, &cwd, &additional_directories.unwrap_or_default()).await;
            resume_session(agent_id: String, session_id: String, cwd: String, additional_directories: Option<Vec<String>>) -> SessionView =
                |backend| backend.resume_session(&agent_id, &session_id, &cwd, &additional_directories.unwrap_or_default()).await;
            close_session(session_id: String) -> () = |backend| backend.close_session(&session_id).await;
            /// `session/delete` of a stored session (when the agent advertises it).
            delete_session(agent_id: String, session_id: String) -> () = |backend| backend.delete_session(&agent_id, &session_id).await;
            authenticate(agent_id: String, method_id: String) -> () = |backend| backend.authenticate(&agent_id, &method_id).await;
            /// `logout` (when advertised); the sign-in values kept for the agent are forgotten too.
            logout(agent_id: String) -> () = |backend| backend.logout(&agent_id).await;
            /// Runs the agent's login command in a terminal; returns its terminal id.
            start_terminal_auth(agent_id: String, method_id: String) -> String =
                |backend| backend.start_terminal_auth(&agent_id, &method_id).await;
            terminal_input(terminal_id: String, text: String) -> () = |backend| backend.terminal_input(&terminal_id, &text).await;
            send_prompt(session_id: String, text: String, attachments: Option<Vec<Attachment>>) -> () =
                |backend| backend.send_prompt(&session_id, &text, &attachments.unwrap_or_default());
            cancel_turn(session_id: String) -> () = |backend| backend.cancel_turn(&session_id);
            /// ACP v2: stop one piece of background work, a tool call (`tool_call/cancel`) or a
            /// terminal the agent runs (`terminal/cancel`); `kind` is the background item's type.
            cancel_background(session_id: String, kind: String, id: String) -> () =
                |backend| backend.cancel_background(&session_id, &kind, &id).await;
            set_mode(session_id: String, mode_id: String) -> () = |backend| backend.set_mode(&session_id, &mode_id).await;
            set_model(session_id: String, model_id: String) -> () = |backend| backend.set_model(&session_id, &model_id).await;
            /// A new session forked from this one (when the agent advertises `session/fork`).
            fork_session(session_id: String) -> SessionView = |backend| backend.fork_session(&session_id).await;
            /// A select's value id or a boolean option's new value.
            set_config_option(session_id: String, config_id: String, value: Value as "string | boolean") -> () =
                |backend| backend.set_config_option(&session_id, &config_id, value).await;
            revoke_permission_rule(rule_id: u64) -> () = |backend| backend.revoke_permission_rule(rule_id);
            /// The agent's protocol messages (the inspector), from sequence number `since` on.
            protocol_log(agent_id: String, since: Option<u64>) -> ProtocolLog =
                |backend| backend.protocol_log(&agent_id, since.unwrap_or(0));
            save_settings(settings: Settings) -> () = |backend| backend.save_settings(settings);
            /// The ACP version an agent is spoken to in from its next start: "auto", "1" or "2".
            set_agent_protocol(agent_id: String, protocol: String as "\"auto\" | \"1\" | \"2\"") -> () =
                |backend| backend.set_agent_protocol(&agent_id, &protocol);
            /// Core validates (the one source of truth).
            validate_form(dialog_id: u64, content: FormValues as "FormContent") -> Validation =
                |backend| backend.validate_form(dialog_id, &content);
            /// Any waiting dialog, with an answer of its kind. Err: { kind: "invalid", validation } when a
            /// form's content fails validation; { kind: "error", message } otherwise.
            answer_dialog(dialog_id: u64, answer: DialogAnswer) -> () = |backend| backend.answer_dialog(dialog_id, answer);
            /// After consent (the dialog already answered accept): open the URL the backend holds.
            open_url(dialog_id: u64, target: String as "UrlOpener") -> () = |backend| backend.open_url(dialog_id, &target);
            /// The user closed a URL dialog (e.g. after "Completed"): its isolated window closes too.
            close_url_view(dialog_id: u64) -> () = |backend| {
                backend.close_url_view(dialog_id);
                Ok(())
            };
            /// Ack for latency measurement: the UI painted the dialog.
            dialog_shown(dialog_id: u64) -> () = |backend| {
                backend.dialog_shown(dialog_id);
                Ok(())
            };
            /// A page of the consent history; no filter lists the newest.
            history_list(filter: Option<HistoryFilter>) -> HistoryPage = |backend| backend.history_list(filter);
            /// Writes the history's export file: where, and how many entries.
            history_export() -> HistoryExport = |backend| backend.history_export();
            /// Deletes the consent history; returns how many entries went.
            history_clear() -> usize = |backend| backend.history_clear();
            /// The domains opened or marked trusted, per agent (the settings list).
            domain_marks() -> Vec<DomainMark> = |backend| backend.domain_marks();
            set_domain_trust(agent_id: String, agent_name: String, domain: String, trusted: bool) -> () =
                |backend| backend.set_domain_trust(&agent_id, &agent_name, &domain, trusted);
            /// Benchmark counters (IPC batches, dialog and answer latencies; docs/benchmarks-app.md).
            perf_stats() -> PerfStats = |backend| Ok(backend.perf_stats());
            /// The ACP registry's agents, with what is installed here.
            registry_agents() -> RegistryListing = |backend| backend.registry_agents().await;
            /// A registry icon as a data: URL (fetched and checked by the backend).
            registry_icon(url: String) -> String = |backend| backend.registry_icon(url).await;
            /// Install or update; progress arrives as install_progress events. Returns the agent's profile id.
            install_agent(registry_id: String) -> String = |backend| backend.install_agent(registry_id).await;
            /// Cancel the install under way of that agent (install_agent then fails); false when none is.
            cancel_install(registry_id: String) -> bool = |backend| Ok(backend.cancel_install(&registry_id));
            remove_agent(registry_id: String) -> () = |backend| backend.remove_agent(registry_id).await;
            /// env_var sign-in: the values go to the OS keyring and the agent restarts with them.
            save_sign_in(agent_id: String, method_id: String, values: BTreeMap<String, String>) -> () =
                |backend| backend.save_sign_in(&agent_id, &method_id, values).await;
            /// Delete an agent's saved sign-in values from the OS keyring.
            forget_sign_in(agent_id: String) -> () = |backend| backend.forget_sign_in(&agent_id).await;
            /// The person's MCP connections: where each points, who gets it, its sign-in, the open sessions that have it.
            mcp_connections() -> McpConnectionList = |backend| Ok(backend.mcp_connections().await);
            /// A connection's tools (`tools/list` through the gateway, as an agent reaches it).
            mcp_tools(name: String) -> Vec<McpTool> = |backend| backend.mcp_tools(&name).await;
            /// Switch a connection on or off for the sessions opened from now on.
            mcp_set_enabled(name: String, on: bool) -> () = |backend| backend.mcp_set_enabled(&name, on);
            /// Show a connection's MCP Apps or not (while apps are on, Settings > MCP Apps).
            mcp_set_apps(name: String, on: bool) -> () = |backend| backend.mcp_set_apps(&name, on);
            /// Revoke (where the server offers it) and delete a remote connection's tokens; says which.
            mcp_sign_out(name: String) -> String = |backend| backend.mcp_sign_out(&name).await;
            /// Take a connection out of the list and delete its keyring values; says what happened.
            mcp_remove(name: String) -> String = |backend| backend.mcp_remove(&name).await;
            /// Start signing in to a remote connection: its URL consent dialog arrives in the dialog list;
            /// returns that dialog's id. `clientId`: one the person entered, for a server that registers none.
            mcp_sign_in(name: String, client_id: Option<String>) -> u64 = |backend| backend.mcp_sign_in(&name, client_id).await;
            /// Add a connection (every agent gets it in the sessions opened from now on).
            mcp_add(name: String, server: NewServer) -> () = |backend| backend.mcp_add(&name, server);
            /// An MCP App calls a tool of its own server: asked first unless the person allowed that tool
            /// for the server's apps. The tool's `CallToolResult`.
            mcp_app_call_tool(app_id: u64, name: String, arguments: Value as "Record<string, unknown>") -> McpToolResult =
                |backend| backend.mcp_app_call_tool(app_id, &name, arguments).await;
            /// What an MCP App's resource asks to use (camera, microphone, ...), read before its frame loads;
            /// `granted` is null until the person answers.
            mcp_app_permissions(app_id: u64) -> McpAppPermissions = |backend| backend.mcp_app_permissions(app_id).await;
            /// The person's answer about what an MCP App asked to use: allowed for this app (kept), or not now.
            mcp_app_allow(app_id: u64, allow: bool) -> McpAppPermissions = |backend| backend.mcp_app_allow(app_id, allow);
            /// An MCP App asks to open a link: the URL consent dialog (every URL rule). The person's action.
            mcp_app_open_link(app_id: u64, url: String) -> String = |backend| backend.mcp_app_open_link(app_id, &url).await;
            /// Import another client's MCP servers from pasted text: what happened to each.
            mcp_import(text: String) -> Vec<McpImported> = |backend| backend.mcp_import(&text);
            /// Search the MCP Registries' copies (names, titles, descriptions); a page from `cursor`. The copies
            /// refresh in the background (`mcp_registry_refreshed`); only a registry with no copy is waited for.
            mcp_registry_search(text: String, cursor: Option<String>) -> McpRegistryResults =
                |backend| backend.mcp_registry_search(&text, cursor.as_deref()).await;
            /// The form of one way (package or remote) of a registry entry, rendered as an elicitation form.
            mcp_registry_form(registry: String, name: String, version: String, choice: McpRegistryChoice) -> McpRegistryForm =
                |backend| backend.mcp_registry_form(&registry, &name, &version, choice).await;
            /// Validate the form's values (the elicitation validator) and show what saving would write; saves nothing.
            mcp_registry_check(registry: String, name: String, version: String, choice: McpRegistryChoice, connection_name: String, values: FormValues as "FormContent") -> McpRegistryCheck =
                |backend| backend.mcp_registry_check(&registry, &name, &version, choice, &connection_name, values).await;
            /// Ask in Porthole's URL consent dialog before opening an entry's repository (`website`: its website);
            /// returns the dialog's id (the address is the registry's, never the window's).
            mcp_registry_link(registry: String, name: String, version: String, website: bool) -> u64 =
                |backend| backend.mcp_registry_link(&registry, &name, &version, website).await;
            /// Save the entry as one connection (secrets to the keyring); validated again.
            mcp_registry_add(registry: String, name: String, version: String, choice: McpRegistryChoice, connection_name: String, values: FormValues as "FormContent") -> McpRegistryAdded =
                |backend| backend.mcp_registry_add(&registry, &name, &version, choice, &connection_name, values).await;
        }
    };
}

#[cfg(test)]
mod tests;
