//! The trusted origin strip above the page: a complete static HTML document, written by the
//! sealed process and shown in a webview with JavaScript disabled. It shows the page's ORIGIN only
//! (scheme, host with the registrable domain in bold, port) and warnings; never path, query or
//! fragment, which carry OAuth state.

use porthole_core::url_safety::analyze_url;

/// Height of the strip in logical pixels.
pub const HEIGHT: u32 = 36;

/// The badge that says what this window is.
const BADGE: &str = "Porthole sealed view — the agent cannot see this page";

/// Escape text for HTML element content and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The origin line as HTML: a lock or warning sign, then `scheme://host[:port]` with the
/// registrable domain in `<b>`, then the analyzer's warning codes. Everything from the URL is
/// escaped.
pub fn origin_html(url: &str) -> String {
    let Ok(a) = analyze_url(url, "") else {
        return r#"<span class="warn">⚠ unusual address (not shown)</span>"#.to_string();
    };
    let host = a.host_unicode.as_str();
    let host_html = match a.registrable_domain.as_deref() {
        Some(rd) if host.len() > rd.len() && host.ends_with(rd) => {
            let prefix = &host[..host.len() - rd.len()];
            format!("{}<b>{}</b>", escape(prefix), escape(rd))
        }
        _ => format!("<b>{}</b>", escape(host)),
    };
    let port = a.port.map(|p| format!(":{p}")).unwrap_or_default();
    let lock = if a.scheme == "https" {
        r#"<span class="lock">🔒 https</span>"#
    } else {
        r#"<span class="warn">⚠ not encrypted (http)</span>"#
    };
    let warnings = if a.warnings.is_empty() {
        String::new()
    } else {
        let codes: Vec<&str> = a.warnings.iter().map(|w| w.code()).collect();
        format!(r#" <span class="warn">⚠ {}</span>"#, escape(&codes.join(", ")))
    };
    format!(
        r#"{lock} <span class="origin">{}://{host_html}{}</span>{warnings}"#,
        escape(&a.scheme),
        escape(&port)
    )
}

/// The whole strip document for the page at `url`. Its CSP loads nothing (no script, no image,
/// no font, no frame); inline style only.
pub fn document(url: &str) -> String {
    format!(
        r#"<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
:root {{ color-scheme: light dark; }}
html, body {{ margin: 0; height: 100%; overflow: hidden; user-select: none; cursor: default; }}
body {{ display: flex; align-items: center; gap: 12px; padding: 0 10px; box-sizing: border-box;
  font: 13px system-ui, sans-serif; background: Canvas; color: CanvasText;
  border-bottom: 1px solid GrayText; white-space: nowrap; }}
/* Right-to-left so that a long host is cut at its start and the registrable domain stays. */
.line {{ flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; direction: rtl; text-align: left; }}
.line > span {{ direction: ltr; unicode-bidi: isolate; }}
.warn {{ color: #b3261e; font-weight: 600; }}
.badge {{ opacity: 0.7; }}
</style></head>
<body><div class="line"><span>{}</span></div><div class="badge">{BADGE}</div></body></html>
"#,
        origin_html(url)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_origin_only_with_the_registrable_domain_in_bold() {
        let h = origin_html("https://accounts.example.co.uk/oauth?state=SECRET#frag");
        assert_eq!(
            h,
            r#"<span class="lock">🔒 https</span> <span class="origin">https://accounts.<b>example.co.uk</b></span>"#
        );
        let h = origin_html("http://127.0.0.1:8080/x?state=SECRET");
        assert!(
            h.starts_with(r#"<span class="warn">⚠ not encrypted (http)</span>"#),
            "{h}"
        );
        assert!(h.contains("<b>127.0.0.1</b>:8080"), "{h}");
        assert!(!h.contains("SECRET"));
        assert_eq!(
            origin_html("not a url"),
            r#"<span class="warn">⚠ unusual address (not shown)</span>"#
        );
    }

    #[test]
    fn warns_and_escapes_what_comes_from_the_url() {
        let h = origin_html("https://xn--pple-43d.com/");
        assert!(h.contains("punycode"), "{h}");
        assert!(!h.contains("<script"));
        let doc = document("https://example.com/<script>alert(1)</script>");
        assert!(
            !doc.contains("<script>"),
            "path never shown, markup never passed through"
        );
        assert!(doc.contains("default-src 'none'"));
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
