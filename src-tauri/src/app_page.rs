//! Serves MCP Apps' pages on their own scheme (`mcp-app://localhost/KEY`) to the main window's
//! sandboxed frames: the page and its Content-Security-Policy come from the app model
//! (`Backend::mcp_app_page`, the one place that decides them); this only writes the response.

use porthole_app::Backend;
use tauri::http::{Request, Response, StatusCode, header};

/// The response for one request of a frame of the `main` webview.
pub async fn respond(
    backend: Option<Backend>,
    webview: &str,
    request: &Request<Vec<u8>>,
) -> Response<Vec<u8>> {
    if webview != "main" || request.method() != tauri::http::Method::GET {
        return error(StatusCode::FORBIDDEN, "not served here");
    }
    let Some(backend) = backend else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "Porthole is starting");
    };
    let key = request.uri().path().trim_start_matches('/');
    match backend.mcp_app_page(key).await {
        Ok(page) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
            .header("Content-Security-Policy", page.csp)
            .header(header::CACHE_CONTROL, "no-store")
            .header("X-Content-Type-Options", "nosniff")
            .header("Referrer-Policy", "no-referrer")
            .body(page.html.into_bytes())
            .expect("a page response builds"),
        Err(e) => {
            let message = match e {
                porthole_app::AnswerError::Error { message } => message,
                porthole_app::AnswerError::Invalid { .. } => "invalid".into(),
            };
            tracing::warn!("an MCP App's page was not served: {message}");
            error(StatusCode::NOT_FOUND, &message)
        }
    }
}

/// A plain page saying why (nothing of it runs: no script, no style).
fn error(status: StatusCode, message: &str) -> Response<Vec<u8>> {
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
        .header("Content-Security-Policy", "default-src 'none'")
        .header(header::CACHE_CONTROL, "no-store")
        .body(format!("<!DOCTYPE html><p>The app could not be shown: {escaped}</p>").into_bytes())
        .expect("an error response builds")
}

/// A page of the window asks the webview for a device (WebKitGTK's permission request): granted
/// only for a kind the person allowed an app of an open session; each frame's `allow` attribute
/// (which lists only what its app was given) then decides which frame may ask. Everything else is
/// refused: Porthole's own page needs no device, and an unhandled request would be left to the
/// webview's default.
pub fn device_permission(
    backend: Option<Backend>,
    kind: tauri::webview::PermissionKind,
) -> tauri::webview::PermissionResponse {
    use porthole_app::McpAppPermission as App;
    use tauri::webview::{PermissionKind, PermissionResponse};
    let app_kind = match kind {
        PermissionKind::Camera => Some(App::Camera),
        PermissionKind::Microphone => Some(App::Microphone),
        PermissionKind::Geolocation => Some(App::Geolocation),
        _ => None,
    };
    let allowed = app_kind
        .zip(backend)
        .is_some_and(|(k, b)| b.mcp_app_device_allowed(k));
    if !allowed {
        tracing::warn!("the webview asked for {kind:?}: refused (no app shown now was allowed it)");
    }
    if allowed {
        PermissionResponse::Allow
    } else {
        PermissionResponse::Deny
    }
}
