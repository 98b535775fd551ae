//! Porthole's one HTTP client: every request Porthole makes (MCP sign-in and the gateway's
//! upstream in `porthole-connections`, the ACP registry and MCP bundles in `porthole-registry`,
//! the MCP Registry through it) goes through a client built here, with the same TLS set-up
//! (rustls with ring and the Mozilla roots, so behaviour does not depend on the machine's
//! certificate store), no system proxy lookups, one user agent, and every body read with a cap.
//!
//! - [`builder`]: the base client builder; callers add their redirect and timeout rules.
//! - [`read_capped`]: a response's body, at most N bytes.
//! - [`blocking`]: a GET for synchronous callers (the registries), with connect, answer, total
//!   and idle time limits, streamed chunk by chunk.

pub mod blocking;

use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("{0}")]
    Refused(String),
    #[error("{url}: {message}")]
    Transport { url: String, message: String },
    #[error("{url}: the answer is larger than {cap} bytes")]
    TooLarge { url: String, cap: usize },
    #[error("{url} answered HTTP {status}")]
    Status { url: String, status: u16 },
    #[error("{url}: the answer is not the JSON expected ({message})")]
    BadJson { url: String, message: String },
}

/// The TLS set-up: rustls with ring and the Mozilla roots (webpki-roots).
fn tls_config() -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// rustls's process-wide provider (ring), for any reqwest client built in this process; ours
/// pass their own configuration, but a provider must still be installed (`rustls-no-provider`).
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one first; either does.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The base of every Porthole client: the TLS set-up, a 10 s connect limit, no proxies, the
/// user agent. Redirects and overall time limits are the caller's.
pub fn builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls_config())
        .connect_timeout(CONNECT_TIMEOUT)
        .no_proxy()
        .user_agent(concat!("Porthole/", env!("CARGO_PKG_VERSION")))
}

/// The body of `response`, at most `cap` bytes.
pub async fn read_capped(response: reqwest::Response, cap: usize) -> Result<Bytes, HttpError> {
    let url = response.url().to_string();
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(HttpError::TooLarge { url, cap });
    }
    let mut response = response;
    let mut body = BytesMut::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(&url, e))? {
        if body.len() + chunk.len() > cap {
            return Err(HttpError::TooLarge { url, cap });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A transport error with its whole chain of causes (reqwest's own text is often just "error
/// sending request").
pub fn transport(url: &str, e: reqwest::Error) -> HttpError {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        message = format!("{message}: {s}");
        source = s.source();
    }
    HttpError::Transport {
        url: url.to_string(),
        message,
    }
}
