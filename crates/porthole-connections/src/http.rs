//! The one HTTP client sign-in and the gateway use, and the rules every address they reach
//! must meet: https, or plain http only on this machine's loopback (RFC 8252 §8.3, and the MCP
//! authorization spec's "all authorization server endpoints MUST be served over HTTPS").
//!
//! Every body read here has a cap: a server that answers with an endless or oversized
//! response gets an error, never Porthole's memory.

use std::time::Duration;

use url::Url;

use porthole_http::builder as base_builder;
pub(crate) use porthole_http::transport;
/// The one client stack's pieces (`porthole-http`): sign-in and the gateway build on them.
pub use porthole_http::{HttpError, install_crypto_provider, read_capped};

/// Metadata documents, registration and token answers are a few KiB; this is generous.
pub const METADATA_CAP: usize = 256 * 1024;
/// How long one sign-in request may take, start to end.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Redirects followed while fetching metadata (same origin only); a loop ends here.
const MAX_REDIRECTS: usize = 3;

/// True for `localhost` and addresses in 127.0.0.0/8 or `::1`: the one rule of
/// `porthole_elicitation::loopback`, which the URL dialog's warnings follow too.
pub use porthole_elicitation::loopback::is_loopback_url as is_loopback;

/// The rule for every endpoint sign-in talks to or sends the person to: https, or http on
/// loopback; no credentials in the URL; no fragment (RFC 8414 §2 for the issuer).
pub fn check_endpoint(what: &str, url: &Url) -> Result<(), HttpError> {
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(url) => {}
        "http" => {
            return Err(HttpError::Refused(format!(
                "the {what} {url} is plain http on another machine; Porthole only signs in over https"
            )));
        }
        other => {
            return Err(HttpError::Refused(format!(
                "the {what} {url} uses `{other}:`, not https"
            )));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(HttpError::Refused(format!(
            "the {what} carries a user name or password in its address"
        )));
    }
    if url.fragment().is_some() {
        return Err(HttpError::Refused(format!(
            "the {what} {url} has a fragment (#...)"
        )));
    }
    Ok(())
}

/// A client for sign-in: follows at most [`MAX_REDIRECTS`] redirects, each to the same origin
/// and under [`check_endpoint`]'s rule.
pub fn sign_in_client() -> reqwest::Client {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects (a redirect loop?)"));
        }
        let origin = attempt.previous().first().map(Url::origin);
        if origin.as_ref() != Some(&attempt.url().origin()) {
            let to = attempt.url().to_string();
            return attempt.error(format!("a redirect to another origin ({to})"));
        }
        if let Err(e) = check_endpoint("redirect", attempt.url()) {
            return attempt.error(e.to_string());
        }
        attempt.follow()
    });
    base_builder()
        .redirect(policy)
        .timeout(REQUEST_TIMEOUT)
        .build()
        .expect("the sign-in HTTP client builds")
}

/// A client for the gateway's upstream requests: no redirects (a 3xx goes back as it came),
/// no overall timeout (streams stay open as long as the server keeps them).
pub fn gateway_client() -> reqwest::Client {
    base_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("the gateway's HTTP client builds")
}

/// GET `url` (checked first) as JSON, capped at [`METADATA_CAP`]. `None` for a 404, so
/// discovery can try the next well-known address.
pub async fn get_json(
    client: &reqwest::Client,
    what: &str,
    url: &Url,
) -> Result<Option<serde_json::Value>, HttpError> {
    check_endpoint(what, url)?;
    let response = client
        .get(url.clone())
        .header("Accept", "application/json")
        .header("MCP-Protocol-Version", crate::MCP_PROTOCOL_VERSION)
        .send()
        .await
        .map_err(|e| transport(url.as_str(), e))?;
    let status = response.status().as_u16();
    if status == 404 {
        return Ok(None);
    }
    if !(200..300).contains(&status) {
        return Err(HttpError::Status {
            url: url.to_string(),
            status,
        });
    }
    let body = read_capped(response, METADATA_CAP).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| HttpError::BadJson {
            url: url.to_string(),
            message: e.to_string(),
        })
}

/// oauth2's HTTP hook: one request through `client`, its answer capped.
pub async fn oauth_request(
    client: &reqwest::Client,
    request: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, HttpError> {
    let url = Url::parse(&request.uri().to_string())
        .map_err(|e| HttpError::Refused(format!("a token request to a bad address: {e}")))?;
    check_endpoint("token endpoint", &url)?;
    let (parts, body) = request.into_parts();
    let mut builder = client.request(parts.method, url.clone()).body(body);
    for (name, value) in &parts.headers {
        builder = builder.header(name, value);
    }
    let response = builder.send().await.map_err(|e| transport(url.as_str(), e))?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = read_capped(response, METADATA_CAP).await?;
    let mut answer = oauth2::HttpResponse::new(body.to_vec());
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_https_or_loopback_http() {
        let ok = [
            "https://auth.example.com/token",
            "http://127.0.0.1:8080/x",
            "http://localhost/x",
            "http://[::1]:9/x",
        ];
        for u in ok {
            check_endpoint("token endpoint", &Url::parse(u).unwrap()).unwrap();
        }
        let bad = [
            "http://auth.example.com/token",
            "http://10.0.0.1/token",
            "ftp://auth.example.com/x",
            "https://user:pw@auth.example.com/x",
            "https://auth.example.com/x#frag",
            "http://127.0.0.1.evil.example/x",
        ];
        for u in bad {
            let e = check_endpoint("token endpoint", &Url::parse(u).unwrap()).unwrap_err();
            assert!(e.to_string().contains("token endpoint"), "{u}: {e}");
        }
    }
}
