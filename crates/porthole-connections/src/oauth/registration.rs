//! Who Porthole is to an authorization server, in the MCP spec's order of preference: a
//! client id the person entered (pre-registration), a client ID metadata document where the
//! server supports them and Porthole has one published, RFC 7591 dynamic registration, else a
//! clear request for a client id.

use serde::{Deserialize, Serialize};
use url::Url;

use super::{AuthServer, SignInError};
use crate::http::{self, HttpError, METADATA_CAP};

/// Where Porthole's client ID metadata document is published, for authorization servers that
/// take them: `PORTHOLE_MCP_CLIENT_METADATA_URL` (https; plain http only on loopback). The
/// document to publish is `docs/oauth-client-metadata.json`; unset, Porthole registers
/// dynamically instead.
pub const METADATA_DOCUMENT_ENV: &str = "PORTHOLE_MCP_CLIENT_METADATA_URL";

/// The published document's address from [`METADATA_DOCUMENT_ENV`]; an unusable value is an
/// error that names it (never silently ignored).
pub fn published_metadata_document() -> Result<Option<Url>, SignInError> {
    let Some(value) = std::env::var(METADATA_DOCUMENT_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
    else {
        return Ok(None);
    };
    let url = Url::parse(value.trim())
        .map_err(|e| SignInError::Registration(format!("{METADATA_DOCUMENT_ENV} is not a URL ({e})")))?;
    http::check_endpoint("client ID metadata document", &url)?;
    Ok(Some(url))
}

/// What the person (or the build) gives for registration.
#[derive(Debug, Clone, Default)]
pub struct ClientChoice {
    /// A client id registered by hand with the server's owner.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// The https address of Porthole's client ID metadata document, when one is published.
    pub metadata_document: Option<Url>,
}

/// A registration, kept with the grant (its secret, if any, only in the keyring).
#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct Registration {
    pub issuer: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub redirect_uri: Url,
    /// `entered`, `metadata-document` or `dynamic`: shown in the connection's details.
    pub how: String,
    /// How the token endpoint takes this client's credentials (RFC 7591 / RFC 8414):
    /// `client_secret_basic`, `client_secret_post` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
}

/// How a client with (or without) `secret` authenticates at the token endpoint: what its
/// registration said, else what the server supports (RFC 8414 §2: `client_secret_basic`
/// when it says nothing), Basic first, then `client_secret_post`.
pub fn auth_method(secret: bool, registered: Option<&str>, supported: &[String]) -> String {
    if let Some(m) = registered.filter(|m| !m.is_empty()) {
        return m.to_string();
    }
    if !secret {
        return "none".into();
    }
    let offers = |m: &str| supported.iter().any(|s| s == m);
    if supported.is_empty() || offers("client_secret_basic") || !offers("client_secret_post") {
        "client_secret_basic".into()
    } else {
        "client_secret_post".into()
    }
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<hidden>"))
            .field("redirect_uri", &self.redirect_uri.as_str())
            .field("how", &self.how)
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .finish()
    }
}

pub(super) async fn register(
    client: &reqwest::Client,
    server: &AuthServer,
    choice: &ClientChoice,
    known: Option<&Registration>,
    redirect_uri: &Url,
) -> Result<Registration, SignInError> {
    let issuer = server.issuer.to_string();
    if let Some(id) = &choice.client_id {
        return Ok(Registration {
            issuer,
            client_id: id.clone(),
            client_secret: choice.client_secret.clone(),
            redirect_uri: redirect_uri.clone(),
            how: "entered".into(),
            token_endpoint_auth_method: Some(auth_method(
                choice.client_secret.is_some(),
                None,
                &server.token_endpoint_auth_methods_supported,
            )),
        });
    }
    if let (true, Some(document)) = (
        server.client_id_metadata_document_supported,
        &choice.metadata_document,
    ) {
        return Ok(Registration {
            issuer,
            client_id: document.to_string(),
            client_secret: None,
            redirect_uri: redirect_uri.clone(),
            how: "metadata-document".into(),
            token_endpoint_auth_method: Some("none".into()),
        });
    }
    // A dynamic registration is kept while its redirect address is still ours.
    if let Some(known) = known.filter(|k| k.how == "dynamic" && &k.redirect_uri == redirect_uri) {
        return Ok(known.clone());
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(SignInError::Registration(format!(
            "{issuer} offers neither dynamic registration nor client ID metadata documents that \
             Porthole can use; ask its owner for a client id and enter it (under MCP connections in the window, or `porthole-cli mcp login NAME --client-id ID`)"
        )));
    };
    dynamic(client, server, endpoint, redirect_uri).await
}

#[derive(Deserialize)]
struct RegistrationAnswer {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<String>,
}

async fn dynamic(
    client: &reqwest::Client,
    server: &AuthServer,
    endpoint: &Url,
    redirect_uri: &Url,
) -> Result<Registration, SignInError> {
    http::check_endpoint("registration endpoint", endpoint)?;
    // Porthole asks to be a public client (a native app keeps no secret); a server that
    // hands out a secret anyway gets it back the way it says, else the way it supports.
    let supported = &server.token_endpoint_auth_methods_supported;
    let body = serde_json::json!({
        "client_name": "Porthole",
        "redirect_uris": [redirect_uri.as_str()],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    let response = client
        .post(endpoint.clone())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| http::transport(endpoint.as_str(), e))?;
    let status = response.status().as_u16();
    let bytes = http::read_capped(response, METADATA_CAP).await?;
    if !(200..300).contains(&status) {
        // RFC 7591 §3.2.2: error and error_description; nothing else of the body is shown.
        let said = serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|v| v.get("error_description").or(v.get("error")).cloned())
            .and_then(|v| v.as_str().map(|s| s.chars().take(200).collect::<String>()))
            .unwrap_or_default();
        return Err(SignInError::Registration(format!(
            "{endpoint} refused to register Porthole (HTTP {status}) {said}"
        )));
    }
    let answer: RegistrationAnswer = serde_json::from_slice(&bytes).map_err(|e| {
        SignInError::from(HttpError::BadJson {
            url: endpoint.to_string(),
            message: e.to_string(),
        })
    })?;
    if answer.client_id.is_empty() {
        return Err(SignInError::Registration(format!(
            "{endpoint} registered an empty client id"
        )));
    }
    let method = auth_method(
        answer.client_secret.is_some(),
        answer.token_endpoint_auth_method.as_deref(),
        supported,
    );
    Ok(Registration {
        issuer: server.issuer.to_string(),
        client_id: answer.client_id,
        client_secret: answer.client_secret,
        redirect_uri: redirect_uri.clone(),
        how: "dynamic".into(),
        token_endpoint_auth_method: Some(method),
    })
}

#[cfg(test)]
mod tests {
    use super::auth_method;

    #[test]
    fn the_token_endpoint_gets_the_method_registered_else_one_it_supports() {
        let s = |v: &[&str]| v.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        assert_eq!(
            auth_method(true, Some("client_secret_post"), &[]),
            "client_secret_post"
        );
        assert_eq!(auth_method(true, None, &[]), "client_secret_basic");
        assert_eq!(
            auth_method(true, None, &s(&["client_secret_post"])),
            "client_secret_post"
        );
        assert_eq!(
            auth_method(true, None, &s(&["client_secret_post", "client_secret_basic"])),
            "client_secret_basic"
        );
        assert_eq!(auth_method(false, None, &s(&["client_secret_post"])), "none");
    }
}
