//! A registry agent's icon as a `data:` URL the window shows in an `<img>`: an image element
//! runs no script and loads nothing else from an SVG, and the window's CSP allows `data:`
//! images only, so the icon never reaches the page as markup or as a remote URL.

use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine;

use super::RegistryError;
use super::fetch::{self, Timeouts};

/// Icons are small; anything larger is refused rather than shown.
const MAX_ICON_BYTES: u64 = 256 * 1024;

/// Fetch the icon `url` of an agent of the registry read from `registry_source`, and return it
/// as a `data:` URL, if it is an SVG or a PNG.
///
/// A registry names icons on the web (http(s)). Only a registry that is itself a local file may
/// name local files (a path or `file://`, relative to the registry's folder), and only files in
/// that folder or below it: a remote registry never makes Porthole read the user's disk, and a
/// local one cannot reach outside its folder (`..`, absolute paths and symlinks that lead out
/// are refused). Every read stops at the size cap while reading.
pub fn icon_data_url(url: &str, registry_source: &str) -> Result<String, RegistryError> {
    let bytes = if fetch::is_http(url) {
        let mut bytes = Vec::new();
        let timeouts = Timeouts {
            connect: std::time::Duration::from_secs(10),
            response: std::time::Duration::from_secs(10),
            total: std::time::Duration::from_secs(20),
            idle: std::time::Duration::from_secs(10),
            min_rate: 256,
            rate_window: std::time::Duration::from_secs(10),
        };
        fetch::download(
            url,
            &mut bytes,
            MAX_ICON_BYTES,
            &timeouts,
            &mut |_, _| {},
            &super::install::Cancel::default(),
        )?;
        bytes
    } else {
        let path = local_icon(url, registry_source)?;
        read_capped(&path, MAX_ICON_BYTES).map_err(|e| RegistryError::Fetch {
            from: url.to_string(),
            error: e,
        })?
    };
    let mime = image_type(&bytes)
        .ok_or_else(|| RegistryError::Format(format!("the icon {url} is neither an SVG nor a PNG")))?;
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

/// Where a local icon is, if the registry may name it: beside a registry that is a local file.
fn local_icon(url: &str, registry_source: &str) -> Result<PathBuf, RegistryError> {
    let refused = |why: &str| RegistryError::Format(format!("the icon {url} is refused: {why}"));
    if fetch::is_http(registry_source) {
        return Err(refused(
            "a registry on the web may only name icons on the web (http or https)",
        ));
    }
    if url.contains("://") && !url.starts_with("file://") {
        return Err(refused(
            "icons are http(s) URLs or, for a local registry, files beside it",
        ));
    }
    let registry_file = Path::new(registry_source.strip_prefix("file://").unwrap_or(registry_source));
    let folder = registry_file
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .and_then(|p| p.canonicalize().ok())
        .ok_or_else(|| refused("the registry's folder cannot be found"))?;
    let path = Path::new(url.strip_prefix("file://").unwrap_or(url));
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        folder.join(path)
    };
    // Resolved through symlinks, then compared: `..` and links cannot lead out.
    let real = joined.canonicalize().map_err(|e| RegistryError::Fetch {
        from: url.to_string(),
        error: e.to_string(),
    })?;
    if !real.starts_with(&folder) {
        return Err(refused("it is not in the registry's folder"));
    }
    if !real.is_file() {
        return Err(refused("it is not a file"));
    }
    Ok(real)
}

/// At most `cap` bytes of `path`, refused if there are more; never reads past `cap + 1`.
fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!("larger than {cap} bytes"));
    }
    Ok(bytes)
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
        let registry = dir.path().join("registry.json");
        let registry = registry.to_str().unwrap();
        let icon_data_url = |url: &str| icon_data_url(url, registry);
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

    #[test]
    fn local_icons_only_beside_a_local_registry() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.svg");
        std::fs::write(&secret, "<svg>secret</svg>").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("icons")).unwrap();
        std::fs::write(dir.path().join("icons/a.svg"), "<svg/>").unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join("icons/link.svg")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("icons/zero.svg")).unwrap();
        let registry = dir.path().join("registry.json").display().to_string();
        let file_registry = format!("file://{registry}");
        // Beside it: relative, absolute inside, file://.
        for source in [&registry, &file_registry] {
            assert!(icon_data_url("icons/a.svg", source).is_ok());
            let inside = dir.path().join("icons/a.svg").display().to_string();
            assert!(icon_data_url(&inside, source).is_ok());
            assert!(icon_data_url(&format!("file://{inside}"), source).is_ok());
        }
        // Out of its folder: absolute, `..`, a symlink leading out, a device.
        let secret = secret.display().to_string();
        for bad in [
            secret.as_str(),
            &format!("file://{secret}"),
            "../secret.svg",
            "icons/../../secret.svg",
            "icons/link.svg",
            "icons/zero.svg",
            "/dev/zero",
            "/etc/passwd",
            "ftp://example.invalid/a.svg",
        ] {
            let err = icon_data_url(bad, &registry).unwrap_err().to_string();
            assert!(!err.contains("secret</svg>"), "{bad}: {err}");
        }
        // A registry on the web names no local files at all, not even beside a cached copy.
        for bad in ["icons/a.svg", "/dev/zero", &secret, "file:///etc/passwd"] {
            let err = icon_data_url(bad, "https://example.invalid/registry.json").unwrap_err();
            assert!(err.to_string().contains("on the web"), "{bad}: {err}");
        }
    }

    #[test]
    fn reads_stop_at_the_cap_while_reading() {
        // /dev/zero never ends: a read that is not capped would exhaust memory.
        let err = read_capped(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(err.contains("larger than 1024"), "{err}");
    }
}
