//! Tauri commands: each maps one UI request onto the app model (porthole-app's `Backend`). The
//! functions are written from the one list (command_list.rs); no logic lives here.

use tauri::{Manager, State};

use crate::wire::*;
use porthole_app::{AnswerError, Backend, Launch};

type Result<T> = std::result::Result<T, AnswerError>;

/// The window's event stream: every batch of the app model's events from now on. The one command
/// that is not a `Backend` call: the channel is the shell's.
#[tauri::command]
fn subscribe_events(window: State<'_, std::sync::Arc<crate::shell::WindowChannel>>, channel: EventChannel) {
    window.set(channel);
}

/// Each command of the list with a body: an async Tauri command over the `Backend`.
macro_rules! backend_commands {
    ($( $(#[doc = $doc:literal])* $name:ident ( $($arg:ident : $ty:ty $(as $ts:literal)?),* ) -> $ret:ty
        $(= |$b:ident| $body:expr)? ; )*) => {
        $( backend_command!($(#[doc = $doc])* $name ($($arg: $ty),*) -> $ret $(= |$b| $body)?); )*
    };
}

macro_rules! backend_command {
    // Written by hand above.
    ($(#[doc = $doc:literal])* $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {};
    ($(#[doc = $doc:literal])* $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty = |$b:ident| $body:expr) => {
        $(#[doc = $doc])*
        #[tauri::command]
        async fn $name(backend: State<'_, Backend>, $($arg: $ty),*) -> Result<$ret> {
            let $b: &Backend = &backend;
            $body
        }
    };
}

with_app_commands!(backend_commands);

/// Registers the one list of commands (src/command_list.rs) with Tauri.
macro_rules! handler {
    ($( $(#[doc = $doc:literal])* $name:ident $args:tt -> $ret:ty $(= |$b:ident| $body:expr)? ; )*) => {
        tauri::generate_handler![$($name),*]
    };
}

pub fn run(launch: Launch, companion_only: bool) {
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(with_app_commands!(handler))
        // MCP Apps' pages, for the window's sandboxed frames (app_page.rs).
        .register_asynchronous_uri_scheme_protocol(porthole_app::MCP_APP_SCHEME, |ctx, request, responder| {
            let backend = ctx.app_handle().try_state::<Backend>().map(|b| b.inner().clone());
            let webview = ctx.webview_label().to_string();
            tauri::async_runtime::spawn(async move {
                responder.respond(crate::app_page::respond(backend, &webview, &request).await);
            });
        })
        // Devices (camera, microphone, location) only for what the person allowed an MCP App.
        .on_permission_request(|webview, kind| {
            let backend = webview.try_state::<Backend>().map(|b| b.inner().clone());
            crate::app_page::device_permission(backend, kind)
        })
        .setup(move |app| {
            std::thread::spawn(crate::sealed_view::sweep_left_behind);
            let window = std::sync::Arc::new(crate::shell::WindowChannel::default());
            app.manage(window.clone());
            let shell = std::sync::Arc::new(crate::shell::TauriShell {
                app: app.handle().clone(),
                window,
            });
            let runtime = tauri::async_runtime::handle().inner().clone();
            let backend = Backend::new(shell, runtime.clone(), launch);
            if !companion_only {
                backend.start();
            }
            // Editors' proxies (`porthole proxy`) find this app at the companion socket.
            let companion = backend.clone();
            runtime.spawn(async move {
                let path = porthole_companion::socket::socket_path();
                // A refusal is logged and shown in the window by the app model.
                let _ = companion.serve_companion(path).await;
            });
            app.manage(backend);
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"));
    match result {
        Ok(app) => app.run(|handle, event| {
            if let tauri::RunEvent::Exit = event
                && let Some(backend) = handle.try_state::<Backend>()
            {
                backend.stop_blocking();
            }
        }),
        Err(e) => {
            eprintln!("porthole: cannot start the window: {e}");
            std::process::exit(1);
        }
    }
}
