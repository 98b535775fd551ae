//! The tokens a sign-in earned, and what keeps them useful: the code exchange, refresh and
//! RFC 7009 revocation. A `Grant` lives only in the OS keyring (`crate::tokens`); its `Debug`
//! hides every secret so it can never reach a log by accident.

use std::time::{SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicRequestTokenError, BasicTokenResponse};
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, EndpointNotSet, EndpointSet, PkceCodeVerifier,
    RedirectUrl, RefreshToken, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use url::Url;

use super::{AuthServer, Discovered, Registration, SignInError};
use crate::http::{self, HttpError};

/// A token is refreshed this long before it expires.
const REFRESH_MARGIN_SECS: u64 = 60;

#[derive(Clone, Serialize, Deserialize, PartialEq)]
pub struct Grant {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch; `None` when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(default)]
    pub scopes: Vec<String>,
    /// RFC 8707's `resource`, sent again with each refresh.
    pub resource: String,
    pub authorization_endpoint: Url,
    pub token_endpoint: Url,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<Url>,
    pub registration: Registration,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("access_token", &"<hidden>")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "<hidden>"))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("resource", &self.resource)
            .field("issuer", &self.registration.issuer)
            .finish()
    }
}

pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Grant {
    /// `Err` (why) unless this grant's tokens may go to `server`: a grant is kept under the
    /// connection's name, and a connection whose address changed (connections.json edited by
    /// hand, say) must not hand the old server's token to the new one.
    pub fn check_server(&self, server: &Url) -> Result<(), String> {
        let covered = Url::parse(&self.resource).is_ok_and(|r| super::discovery::resource_covers(&r, server));
        if covered {
            Ok(())
        } else {
            Err(format!("it was made for {}, not for {server}", self.resource))
        }
    }

    /// True when the access token has expired or is about to.
    pub fn needs_refresh(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now + REFRESH_MARGIN_SECS)
    }

    fn from_response(answer: &BasicTokenResponse, previous: GrantBasis<'_>) -> Result<Grant, SignInError> {
        if !answer.token_type().as_ref().eq_ignore_ascii_case("bearer") {
            return Err(SignInError::Token(format!(
                "the token is of type `{}`, not a bearer token",
                answer.token_type().as_ref()
            )));
        }
        Ok(Grant {
            access_token: answer.access_token().secret().clone(),
            // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
            refresh_token: answer
                .refresh_token()
                .map(|t| t.secret().clone())
                .or_else(|| previous.refresh_token.map(str::to_string)),
            expires_at: answer.expires_in().map(|d| now_secs() + d.as_secs()),
            scopes: answer
                .scopes()
                .map(|s| s.iter().map(|s| s.to_string()).collect())
                .unwrap_or_else(|| previous.scopes.to_vec()),
            resource: previous.resource.to_string(),
            authorization_endpoint: previous.authorization_endpoint.clone(),
            token_endpoint: previous.token_endpoint.clone(),
            revocation_endpoint: previous.revocation_endpoint.cloned(),
            registration: previous.registration.clone(),
        })
    }
}

/// What a new grant keeps of the sign-in or the grant before it.
struct GrantBasis<'a> {
    refresh_token: Option<&'a str>,
    scopes: &'a [String],
    resource: &'a str,
    authorization_endpoint: &'a Url,
    token_endpoint: &'a Url,
    revocation_endpoint: Option<&'a Url>,
    registration: &'a Registration,
}

type Client = BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

fn client_for(registration: &Registration, authorization_endpoint: &Url, token_endpoint: &Url) -> Client {
    let mut client = BasicClient::new(ClientId::new(registration.client_id.clone()))
        .set_auth_uri(AuthUrl::from_url(authorization_endpoint.clone()))
        .set_token_uri(TokenUrl::from_url(token_endpoint.clone()))
        .set_redirect_uri(RedirectUrl::from_url(registration.redirect_uri.clone()));
    let method = registration.token_endpoint_auth_method.as_deref();
    if let Some(secret) = &registration.client_secret
        && method != Some("none")
    {
        client = client.set_client_secret(ClientSecret::new(secret.clone()));
    }
    // `client_secret_post`: the id and secret in the form (RFC 6749 §2.3.1), not a Basic header.
    if method == Some("client_secret_post") {
        client = client.set_auth_type(oauth2::AuthType::RequestBody);
    }
    client
}

pub(super) fn oauth_client(registration: &Registration, server: &AuthServer) -> Result<Client, SignInError> {
    Ok(client_for(
        registration,
        &server.authorization_endpoint,
        &server.token_endpoint,
    ))
}

/// The token endpoint's refusal in its own words (RFC 6749 §5.2), never the body itself: a
/// malformed answer may still hold a token.
fn token_error(e: BasicRequestTokenError<HttpError>) -> SignInError {
    match e {
        oauth2::RequestTokenError::ServerResponse(r) => SignInError::Token(describe(&r)),
        oauth2::RequestTokenError::Request(e) => SignInError::Http(e),
        oauth2::RequestTokenError::Parse(e, _body) => {
            SignInError::Token(format!("its answer is not a token response ({})", e.path()))
        }
        oauth2::RequestTokenError::Other(s) => SignInError::Token(s),
    }
}

fn describe(r: &BasicErrorResponse) -> String {
    let description: String = r
        .error_description()
        .map(|d| d.chars().take(200).collect())
        .unwrap_or_default();
    if description.is_empty() {
        format!("`{}`", r.error().as_ref())
    } else {
        format!("`{}`: {description}", r.error().as_ref())
    }
}

/// oauth2's HTTP function over `client`. It owns its clone of the client (a handle), so the
/// futures it makes borrow nothing and stay `Send` for any caller.
fn sender(
    client: &reqwest::Client,
) -> impl Fn(
    oauth2::HttpRequest,
) -> std::pin::Pin<Box<dyn Future<Output = Result<oauth2::HttpResponse, HttpError>> + Send>> {
    let client = client.clone();
    move |request| {
        let client = client.clone();
        Box::pin(async move { http::oauth_request(&client, request).await })
    }
}

pub(super) async fn exchange(
    client: &reqwest::Client,
    discovered: &Discovered,
    registration: &Registration,
    code: String,
    verifier: PkceCodeVerifier,
) -> Result<Grant, SignInError> {
    let oauth = oauth_client(registration, &discovered.server)?;
    let send = sender(client);
    let answer = oauth
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", discovered.resource.as_str())
        .request_async(&send)
        .await
        .map_err(token_error)?;
    Grant::from_response(
        &answer,
        GrantBasis {
            refresh_token: None,
            scopes: &discovered.scopes,
            resource: discovered.resource.as_str(),
            authorization_endpoint: &discovered.server.authorization_endpoint,
            token_endpoint: &discovered.server.token_endpoint,
            revocation_endpoint: discovered.server.revocation_endpoint.as_ref(),
            registration,
        },
    )
}

/// A fresh access token for `grant`, by its refresh token.
pub async fn refresh(client: &reqwest::Client, grant: Grant) -> Result<Grant, SignInError> {
    let Some(refresh_token) = &grant.refresh_token else {
        return Err(SignInError::Token(
            "the sign-in has expired and there is no refresh token".into(),
        ));
    };
    let oauth = client_for(
        &grant.registration,
        &grant.authorization_endpoint,
        &grant.token_endpoint,
    );
    let send = sender(client);
    let token = RefreshToken::new(refresh_token.clone());
    let answer = oauth
        .exchange_refresh_token(&token)
        .add_extra_param("resource", grant.resource.as_str())
        .request_async(&send)
        .await
        .map_err(token_error)?;
    Grant::from_response(
        &answer,
        GrantBasis {
            refresh_token: Some(refresh_token),
            scopes: &grant.scopes,
            resource: &grant.resource,
            authorization_endpoint: &grant.authorization_endpoint,
            token_endpoint: &grant.token_endpoint,
            revocation_endpoint: grant.revocation_endpoint.as_ref(),
            registration: &grant.registration,
        },
    )
}

/// Revoke `grant` where the server offers RFC 7009 (the refresh token, which ends the whole
/// grant on most servers, then the access token). `Ok(false)` when there is nothing to call.
///
/// Written here rather than through oauth2's `revoke_token`, which refuses any http endpoint,
/// loopback included; `check_endpoint` applies the same rule as everywhere else.
///
/// A public client sends its `client_id` alone (RFC 7009 §5). The MCP Python SDK's `/revoke`
/// (1.x and 2.x, python-sdk issue 3508) refuses that with `invalid_request` because its form
/// model wants a `client_secret` key; a public client then asks once more with an empty
/// `client_secret`, which RFC 6749 §2.3.1 treats as no secret.
pub async fn revoke(client: &reqwest::Client, grant: Grant) -> Result<bool, SignInError> {
    let Some(endpoint) = &grant.revocation_endpoint else {
        return Ok(false);
    };
    http::check_endpoint("revocation endpoint", endpoint)?;
    let mut tokens = Vec::new();
    if let Some(r) = &grant.refresh_token {
        tokens.push((r.as_str(), "refresh_token"));
    }
    tokens.push((grant.access_token.as_str(), "access_token"));
    for (token, hint) in tokens {
        let mut answer = revoke_one(client, endpoint, &grant.registration, token, hint, false).await?;
        if grant.registration.client_secret.is_none()
            && answer.as_ref().is_err_and(|e| e == "invalid_request")
        {
            answer = revoke_one(client, endpoint, &grant.registration, token, hint, true).await?;
        }
        if let Err(error) = answer {
            return Err(SignInError::Token(format!("revocation refused: `{error}`")));
        }
    }
    Ok(true)
}

/// One RFC 7009 request: `Ok(Ok(()))` when the server took it, `Ok(Err(error))` when it refused.
async fn revoke_one(
    client: &reqwest::Client,
    endpoint: &Url,
    registration: &Registration,
    token: &str,
    hint: &str,
    empty_secret: bool,
) -> Result<Result<(), String>, SignInError> {
    let mut form = vec![("token", token), ("token_type_hint", hint)];
    let mut request = client.post(endpoint.clone());
    let method = registration.token_endpoint_auth_method.as_deref();
    match &registration.client_secret {
        Some(secret) if method == Some("client_secret_post") => {
            form.push(("client_id", registration.client_id.as_str()));
            form.push(("client_secret", secret.as_str()));
        }
        Some(secret) if method != Some("none") => {
            request = request.basic_auth(&registration.client_id, Some(secret))
        }
        _ => form.push(("client_id", registration.client_id.as_str())),
    }
    if empty_secret {
        form.push(("client_secret", ""));
    }
    let body: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = request
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| http::transport(endpoint.as_str(), e))?;
    // RFC 7009 §2.2: 200 whether or not the token was valid; anything else is a refusal.
    let status = response.status().as_u16();
    let said = http::read_capped(response, http::METADATA_CAP).await?;
    if status == 200 {
        return Ok(Ok(()));
    }
    Ok(Err(serde_json::from_slice::<serde_json::Value>(&said)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
        .unwrap_or_else(|| format!("HTTP {status}"))))
}
