//! An MCP App's page as the window's frame gets it: the HTML from the server's
//! `resources/read`, and the Content-Security-Policy built from the resource's `_meta.ui.csp`
//! (MCP Apps 2026-01-26), and the device permissions it asks for (`_meta.ui.permissions`).
//! The one place that decides what an app may load.
//!
//! The frame is sandboxed without `allow-same-origin` (an opaque origin: no storage, no
//! cookies, nothing of Porthole's), served from its own scheme with this policy as a header
//! and, in case a webview ignores the header of a custom scheme, as the first `<meta>` of the
//! document. Nothing is allowed that the resource did not declare: no `'self'` (it would match
//! the other apps' pages), scripts and styles only inline or from declared resource domains,
//! network only to declared connect domains.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use porthole_connections::gateway::APP_MIME_TYPE as APP_MIME;
/// Largest page served (the official examples inline everything: about 0.3-1 MB).
pub(crate) const MAX_PAGE_BYTES: usize = 8 * 1024 * 1024;
/// Domains kept per CSP list; more are dropped.
const MAX_DOMAINS: usize = 32;

/// A page ready to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub html: String,
    pub csp: String,
    /// What the resource asks to use; none is given unless the person allows it.
    pub permissions: Vec<AppPermission>,
    /// Declared entries that were not used, with why (logged as warnings).
    pub dropped: Vec<String>,
}

/// A device or feature an app's resource may ask for (`_meta.ui.permissions`); given to its frame
/// through the `allow` attribute only if the person allows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(test, feature = "ts"), derive(ts_rs::TS))]
pub enum AppPermission {
    Camera,
    Microphone,
    Geolocation,
    ClipboardWrite,
}

impl AppPermission {
    const ALL: [AppPermission; 4] = [
        AppPermission::Camera,
        AppPermission::Microphone,
        AppPermission::Geolocation,
        AppPermission::ClipboardWrite,
    ];

    /// Its key in `_meta.ui.permissions`.
    fn key(self) -> &'static str {
        match self {
            AppPermission::Camera => "camera",
            AppPermission::Microphone => "microphone",
            AppPermission::Geolocation => "geolocation",
            AppPermission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// The permissions a resource declares (an object of empty objects), in a fixed order; other
/// keys are dropped with why.
fn permissions(declared: &Value, dropped: &mut Vec<String>) -> Vec<AppPermission> {
    let Some(map) = declared.as_object() else {
        if !declared.is_null() {
            dropped.push("permissions: not an object".into());
        }
        return Vec::new();
    };
    for key in map.keys() {
        if !AppPermission::ALL.iter().any(|p| p.key() == key) {
            dropped.push(format!("permissions: {key:?} is not one Porthole knows"));
        }
    }
    (AppPermission::ALL.into_iter())
        .filter(|p| map.contains_key(p.key()))
        .collect()
}

/// The app's page from a `resources/read` result for `uri`.
pub(crate) fn from_read_result(uri: &str, result: &Value) -> Result<Page, String> {
    let contents = result["contents"]
        .as_array()
        .ok_or("the server's resources/read answer has no contents")?;
    let content = contents
        .iter()
        .find(|c| c["uri"].as_str() == Some(uri))
        .or_else(|| contents.first())
        .ok_or("the server's resources/read answer is empty")?;
    let mime = content["mimeType"].as_str().unwrap_or("");
    if !same_mime(mime) {
        return Err(format!(
            "the resource is {mime:?}, not an MCP App ({APP_MIME}): not shown"
        ));
    }
    let html = match (content["text"].as_str(), content["blob"].as_str()) {
        (Some(text), _) => text.to_string(),
        (None, Some(blob)) => {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("the resource's blob is not base64: {e}"))?;
            String::from_utf8(bytes).map_err(|_| "the resource's HTML is not UTF-8".to_string())?
        }
        (None, None) => return Err("the resource has neither text nor blob".into()),
    };
    if html.len() > MAX_PAGE_BYTES {
        return Err(format!(
            "the app's page is {} bytes, more than the {MAX_PAGE_BYTES} shown",
            html.len()
        ));
    }
    let (csp, mut dropped) = policy(&content["_meta"]["ui"]["csp"]);
    let permissions = permissions(&content["_meta"]["ui"]["permissions"], &mut dropped);
    let html = with_policy_meta(&html, &csp);
    Ok(Page {
        html,
        csp,
        permissions,
        dropped,
    })
}

/// `text/html;profile=mcp-app`, whatever the spacing and case.
fn same_mime(mime: &str) -> bool {
    let squeezed: String = mime
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    squeezed == APP_MIME
}

/// The policy for a resource's declared `csp` (`connectDomains`, `resourceDomains`,
/// `frameDomains`, `baseUriDomains`), and the declared entries dropped.
pub(crate) fn policy(csp: &Value) -> (String, Vec<String>) {
    let mut dropped = Vec::new();
    let mut list = |key: &str| -> Vec<String> {
        let mut kept = Vec::new();
        for entry in csp[key].as_array().into_iter().flatten() {
            let Some(text) = entry.as_str() else {
                dropped.push(format!("{key}: not a string"));
                continue;
            };
            match source(text) {
                Ok(s) if kept.len() < MAX_DOMAINS => kept.push(s),
                Ok(_) => dropped.push(format!("{key}: more than {MAX_DOMAINS}")),
                Err(why) => dropped.push(format!("{key}: {why}")),
            }
        }
        kept
    };
    let resource = list("resourceDomains");
    let connect = list("connectDomains");
    let frame = list("frameDomains");
    let base = list("baseUriDomains");
    let join = |fixed: &[&str], declared: &[String]| -> String {
        let all: Vec<&str> = fixed
            .iter()
            .copied()
            .chain(declared.iter().map(String::as_str))
            .collect();
        if all.is_empty() {
            "'none'".into()
        } else {
            all.join(" ")
        }
    };
    let directives = [
        ("default-src", "'none'".to_string()),
        ("script-src", join(&["'unsafe-inline'"], &resource)),
        ("style-src", join(&["'unsafe-inline'"], &resource)),
        ("img-src", join(&["data:", "blob:"], &resource)),
        ("font-src", join(&["data:"], &resource)),
        ("media-src", join(&["data:", "blob:"], &resource)),
        ("connect-src", join(&[], &connect)),
        ("frame-src", join(&[], &frame)),
        ("worker-src", "'none'".to_string()),
        ("object-src", "'none'".to_string()),
        ("base-uri", join(&[], &base)),
        ("form-action", "'none'".to_string()),
    ];
    let policy = directives
        .iter()
        .map(|(name, value)| format!("{name} {value}"))
        .collect::<Vec<_>>()
        .join("; ");
    (policy, dropped)
}

/// One declared origin as a CSP source: `https://host[:port]` or `wss://…`, a leading `*.`
/// wildcard allowed; plain `http`/`ws` only for this computer. No path, no quotes or
/// separators (which would add directives of their own), no bare schemes or `*`.
fn source(text: &str) -> Result<String, String> {
    if text.len() > 253 + 16 || text.chars().any(|c| c.is_whitespace() || "'\";,".contains(c)) {
        return Err(format!("{text:?} is not an origin"));
    }
    let (scheme, rest) = text
        .split_once("://")
        .ok_or_else(|| format!("{text:?} has no scheme"))?;
    let scheme = scheme.to_ascii_lowercase();
    let (wild, host_port) = match rest.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let host_port = host_port.trim_end_matches('/');
    let parsed = Url::parse(&format!("{scheme}://{host_port}"))
        .map_err(|e| format!("{text:?} is not an origin: {e}"))?;
    let host = parsed.host_str().ok_or_else(|| format!("{text:?} has no host"))?;
    if parsed.path() != "/" || parsed.query().is_some() || !parsed.username().is_empty() {
        return Err(format!("{text:?} is more than an origin"));
    }
    let local = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    match scheme.as_str() {
        "https" | "wss" => {}
        "http" | "ws" if local && !wild => {}
        _ => {
            return Err(format!(
                "{text:?}: only https and wss (http only for this computer)"
            ));
        }
    }
    let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
    let star = if wild { "*." } else { "" };
    Ok(format!("{scheme}://{star}{host}{port}"))
}

/// The policy as the document's first `<meta>`, after a leading doctype (before it would
/// put the page in quirks mode): no script of the page can run before it.
fn with_policy_meta(html: &str, csp: &str) -> String {
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        csp.replace('"', "&quot;")
    );
    let trimmed = html.trim_start_matches('\u{feff}');
    let lead = trimmed.len() - trimmed.trim_start().len();
    let body = &trimmed[lead..];
    if body.get(..9).is_some_and(|s| s.eq_ignore_ascii_case("<!doctype"))
        && let Some(end) = body.find('>')
    {
        return format!("{}{meta}{}", &body[..=end], &body[end + 1..]);
    }
    format!("{meta}{body}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(meta: Value) -> Value {
        json!({"contents": [{"uri": "ui://t/app.html", "mimeType": "text/html;profile=mcp-app",
            "text": "<!DOCTYPE html><html><head><script>go()</script></head></html>", "_meta": meta}]})
    }

    #[test]
    fn nothing_declared_allows_only_inline_code_and_no_network() {
        let page = from_read_result("ui://t/app.html", &read(json!({}))).unwrap();
        assert_eq!(
            page.csp,
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; \
             frame-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
        );
        assert!(
            !page.csp.contains("'self'"),
            "'self' would reach the other apps' pages"
        );
        // The policy comes before the page's first script, after its doctype.
        assert!(
            page.html
                .starts_with("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\"")
        );
        assert!(page.html.find("<meta").unwrap() < page.html.find("<script").unwrap());
    }

    #[test]
    fn declared_domains_are_added_where_they_belong() {
        let meta = json!({"ui": {"csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.com/"],
            "frameDomains": ["https://www.youtube.com"],
        }}});
        let page = from_read_result("ui://t/app.html", &read(meta)).unwrap();
        assert!(
            page.csp
                .contains("connect-src https://api.example.com wss://live.example.com:8443;")
        );
        assert!(
            page.csp
                .contains("script-src 'unsafe-inline' https://*.cdn.example.com;")
        );
        assert!(
            page.csp
                .contains("img-src data: blob: https://*.cdn.example.com;")
        );
        assert!(page.csp.contains("frame-src https://www.youtube.com;"));
        assert!(page.dropped.is_empty());
    }

    #[test]
    fn declared_entries_that_are_not_plain_origins_are_dropped() {
        let meta = json!({"ui": {"csp": {"connectDomains": [
            "*", "https:", "http://evil.example", "https://a.example; script-src *",
            "https://a.example 'unsafe-eval'", "https://a.example/path", "javascript://x",
            "https://user@a.example", 7, "http://127.0.0.1:8080", "data:"
        ]}}});
        let page = from_read_result("ui://t/app.html", &read(meta)).unwrap();
        assert!(
            page.csp.contains("connect-src http://127.0.0.1:8080;"),
            "{}",
            page.csp
        );
        assert_eq!(page.dropped.len(), 10, "{:?}", page.dropped);
        assert!(!page.csp.contains("evil") && !page.csp.contains("unsafe-eval"));
    }

    #[test]
    fn declared_permissions_are_read_and_unknown_ones_dropped() {
        let meta = json!({"ui": {"permissions": {
            "clipboardWrite": {}, "microphone": {}, "usb": {}, "camera": {}
        }}});
        let page = from_read_result("ui://t/app.html", &read(meta)).unwrap();
        assert_eq!(
            page.permissions,
            [
                AppPermission::Camera,
                AppPermission::Microphone,
                AppPermission::ClipboardWrite
            ]
        );
        assert_eq!(page.dropped.len(), 1, "{:?}", page.dropped);
        assert!(page.dropped[0].contains("usb"));
        let none = from_read_result("ui://t/app.html", &read(json!({}))).unwrap();
        assert!(none.permissions.is_empty() && none.dropped.is_empty());
        let odd = json!({"ui": {"permissions": ["camera"]}});
        let page = from_read_result("ui://t/app.html", &read(odd)).unwrap();
        assert!(page.permissions.is_empty());
        assert_eq!(page.dropped, ["permissions: not an object"]);
    }

    #[test]
    fn only_an_mcp_app_resource_of_bounded_size_is_a_page() {
        let plain = json!({"contents": [{"uri": "ui://t/app.html", "mimeType": "text/html", "text": "<p>"}]});
        assert!(
            from_read_result("ui://t/app.html", &plain)
                .unwrap_err()
                .contains("not an MCP App")
        );
        let spaced = json!({"contents": [{"uri": "ui://t/app.html", "mimeType": "Text/HTML; profile=mcp-app", "text": "<p>hi"}]});
        assert!(
            from_read_result("ui://t/app.html", &spaced)
                .unwrap()
                .html
                .ends_with("<p>hi")
        );
        let big = json!({"contents": [{"uri": "ui://t/app.html", "mimeType": APP_MIME, "text": "x".repeat(MAX_PAGE_BYTES + 1)}]});
        assert!(
            from_read_result("ui://t/app.html", &big)
                .unwrap_err()
                .contains("more than")
        );
        use base64::Engine;
        let blob = base64::engine::general_purpose::STANDARD.encode("<b>blob</b>");
        let blobbed = json!({"contents": [{"uri": "ui://t/app.html", "mimeType": APP_MIME, "blob": blob}]});
        assert!(
            from_read_result("ui://t/app.html", &blobbed)
                .unwrap()
                .html
                .ends_with("<b>blob</b>")
        );
        assert!(from_read_result("ui://t/app.html", &json!({})).is_err());
    }

    #[test]
    fn a_page_starting_with_other_text_is_not_cut_inside_a_character() {
        let page = json!({"contents": [{"uri": "u", "mimeType": APP_MIME, "text": "<p>ééééé</p>"}]});
        assert!(
            from_read_result("u", &page)
                .unwrap()
                .html
                .ends_with("<p>ééééé</p>")
        );
    }

    #[test]
    fn a_page_without_doctype_gets_the_policy_first() {
        let page =
            json!({"contents": [{"uri": "u", "mimeType": APP_MIME, "text": "  <script>x()</script>"}]});
        assert!(
            from_read_result("u", &page)
                .unwrap()
                .html
                .starts_with("<meta http-equiv")
        );
    }
}
