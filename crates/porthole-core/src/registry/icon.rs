//! A registry agent's icon as a `data:` URL the window shows in an `<img>`: an image element
//! runs no script and loads nothing else from an SVG, and the window's CSP allows `data:`
//! images only, so the icon never reaches the page as markup or as a remote URL.

use base64::Engine;

use super::RegistryError;
use super::fetch::{self, Timeouts};

/// Icons are small; anything larger is refused rather than shown.
const MAX_ICON_BYTES: u64 = 256 * 1024;

/// Fetch `url` (http(s), file:// or a path) and return it as a `data:` URL, if it is an SVG or
/// a PNG.
pub fn icon_data_url(url: &str) -> Result<String, RegistryError> {
    let bytes = if fetch::is_http(url) {
        let mut bytes = Vec::new();
        let timeouts = Timeouts {
            connect: std::time::Duration::from_secs(10),
            response: std::time::Duration::from_secs(10),
            total: std::time::Duration::from_secs(20),
        };
        fetch::download(url, &mut bytes, MAX_ICON_BYTES, &timeouts, &mut |_, _| {})?;
        bytes
    } else {
        let path = url.strip_prefix("file://").unwrap_or(url);
        let bytes = std::fs::read(path).map_err(|e| RegistryError::Fetch {
            from: url.to_string(),
            error: e.to_string(),
        })?;
        if bytes.len() as u64 > MAX_ICON_BYTES {
            return Err(RegistryError::Format(format!(
                "the icon {url} is larger than {MAX_ICON_BYTES} bytes"
            )));
        }
        bytes
    };
    let mime = image_type(&bytes)
        .ok_or_else(|| RegistryError::Format(format!("the icon {url} is neither an SVG nor a PNG")))?;
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
    let head = head.trim_start_matches('\u{feff}').trim_start();
    (head.starts_with("<svg")
        || (head.starts_with("<?xml") || head.starts_with("<!--")) && head.contains("<svg"))
    .then_some("image/svg+xml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_and_png_become_data_urls_and_anything_else_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("a.svg");
        std::fs::write(
            &svg,
            "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        )
        .unwrap();
        assert!(
            icon_data_url(svg.to_str().unwrap())
                .unwrap()
                .starts_with("data:image/svg+xml;base64,")
        );
        let png = dir.path().join("a.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\nrest").unwrap();
        assert!(
            icon_data_url(png.to_str().unwrap())
                .unwrap()
                .starts_with("data:image/png;base64,")
        );
        let html = dir.path().join("a.html");
        std::fs::write(&html, "<html><script>alert(1)</script>").unwrap();
        assert!(icon_data_url(html.to_str().unwrap()).is_err());
        let big = dir.path().join("big.svg");
        std::fs::write(
            &big,
            format!("<svg>{}</svg>", " ".repeat(MAX_ICON_BYTES as usize)),
        )
        .unwrap();
        assert!(icon_data_url(big.to_str().unwrap()).is_err());
    }
}
