//! Signing a person in to a remote MCP server (the MCP authorization spec, 2025-11-25):
//! discovery (`discovery`), client registration (`registration`: a client ID metadata document
//! where the server supports it and Porthole has one, else RFC 7591 dynamic registration,
//! else a client id the person enters), the authorization code grant with PKCE S256, `state`
//! and RFC 8707 `resource`, the answer on a one-shot loopback listener (`loopback`), refresh
//! and RFC 7009 revocation (`grant`).
//!
//! The protocol's pieces (PKCE, state, the token requests, revocation) are the `oauth2`
//! crate's: well kept, small, and it lets us pass our own HTTP function, so every request gets
//! Porthole's caps and redirect rules (`crate::http`). The official Rust MCP SDK's `auth`
//! does the same on top of `oauth2` but ties it to its own transport and client types.

mod discovery;
pub mod grant;
mod loopback;
mod registration;

use std::time::Duration;

use url::Url;

pub use discovery::{AuthServer, Challenge, Discovered, bearer_challenge, parse_challenge, probe};
pub use grant::{Grant, refresh, revoke};
pub use registration::{ClientChoice, METADATA_DOCUMENT_ENV, Registration, published_metadata_document};

use crate::http::HttpError;

/// How long the person has to finish in the browser.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(10 * 60);

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error("{0}")]
    Discovery(String),
    #[error("{0}")]
    Registration(String),
    #[error("{0}")]
    Callback(String),
    #[error("the token endpoint refused: {0}")]
    Token(String),
    #[error("no answer from the browser within {} minutes; nothing was stored", .0.as_secs() / 60)]
    TimedOut(Duration),
    #[error("the sign-in was cancelled")]
    Cancelled,
    #[error("{0} does not ask for sign-in (it answered without a 401 and publishes no resource metadata)")]
    NotNeeded(Url),
    #[error("cannot listen on loopback for the sign-in answer: {0}")]
    Listen(#[from] std::io::Error),
}

/// A sign-in waiting for the person: show `authorization_url` (through the URL consent
/// dialog), then [`PendingSignIn::finish`].
pub struct PendingSignIn {
    pub authorization_url: Url,
    /// What the person is asked to grant, shown beside the URL.
    pub scopes: Vec<String>,
    pub discovered: Discovered,
    pub registration: Registration,
    listener: loopback::Listener,
    expect: loopback::Expect,
    verifier: oauth2::PkceCodeVerifier,
}

/// Everything up to the browser: discovery, registration, the authorization URL.
/// `known` is the registration kept from an earlier sign-in to the same server, reused when
/// the same issuer and redirect port still fit.
pub async fn begin(
    client: &reqwest::Client,
    server: &Url,
    choice: &ClientChoice,
    known: Option<&Registration>,
) -> Result<PendingSignIn, SignInError> {
    let hints = Hints {
        known: known.map(std::slice::from_ref).unwrap_or_default(),
        ..Hints::default()
    };
    begin_with(client, server, choice, &hints).await
}

/// What Porthole kept about a connection for its next sign-in (`Tokens` has each).
#[derive(Debug, Default)]
pub struct Hints<'a> {
    /// Every registration kept for this connection (one per authorization server): the one
    /// of the issuer discovery finds is reused.
    pub known: &'a [Registration],
    /// Scopes to ask for besides the ones discovery finds: a step-up's (the scopes a 403
    /// `insufficient_scope` asked for, with the ones granted before).
    pub more_scopes: &'a [String],
    /// The last 401 challenge the gateway saw for the connection: a server may ask for
    /// sign-in only at a request discovery does not send (a tool call); its `scope` is asked
    /// for, and its `resource_metadata` used where discovery's own probe finds none.
    pub challenge: Option<&'a Challenge>,
}

/// [`begin`] with what was kept about the connection ([`Hints`]).
pub async fn begin_with(
    client: &reqwest::Client,
    server: &Url,
    choice: &ClientChoice,
    hints: &Hints<'_>,
) -> Result<PendingSignIn, SignInError> {
    let known = hints.known;
    let challenge = match (discovery::probe(client, server).await?, hints.challenge) {
        (Some(mut found), Some(kept)) => {
            found.resource_metadata = found.resource_metadata.or_else(|| kept.resource_metadata.clone());
            found
        }
        (Some(found), None) => found,
        (None, Some(kept)) => kept.clone(),
        (None, None) => return Err(SignInError::NotNeeded(server.clone())),
    };
    let mut discovered = discovery::discover(client, server, &challenge).await?;
    let kept_scopes: Vec<String> = hints
        .challenge
        .and_then(|c| c.scope.as_deref())
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    for scope in hints.more_scopes.iter().chain(&kept_scopes) {
        if !discovered.scopes.contains(scope) {
            discovered.scopes.push(scope.clone());
        }
    }
    let known = known
        .iter()
        .find(|r| r.issuer == discovered.server.issuer.as_str());
    let listener = loopback::Listener::bind(known.and_then(|r| r.redirect_uri.port())).await?;
    let registration =
        registration::register(client, &discovered.server, choice, known, listener.redirect_uri()).await?;

    let (challenge, verifier) = oauth2::PkceCodeChallenge::new_random_sha256();
    let auth = grant::oauth_client(&registration, &discovered.server)?;
    let mut request = auth
        .authorize_url(oauth2::CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", discovered.resource.as_str());
    for scope in &discovered.scopes {
        request = request.add_scope(oauth2::Scope::new(scope.clone()));
    }
    let (authorization_url, state) = request.url();
    http_check(&authorization_url)?;
    Ok(PendingSignIn {
        authorization_url,
        scopes: discovered.scopes.clone(),
        expect: loopback::Expect {
            state: state.secret().clone(),
            issuer: discovered.server.issuer.to_string(),
            iss_required: discovered.server.authorization_response_iss_parameter_supported,
        },
        discovered,
        registration,
        listener,
        verifier,
    })
}

fn http_check(url: &Url) -> Result<(), SignInError> {
    crate::http::check_endpoint("authorization page", url).map_err(SignInError::from)
}

impl PendingSignIn {
    /// The address the browser will come back to.
    pub fn redirect_uri(&self) -> &Url {
        self.listener.redirect_uri()
    }

    /// Wait for the browser's answer (at most `timeout`), then exchange the code.
    pub async fn finish(self, client: &reqwest::Client, timeout: Duration) -> Result<Grant, SignInError> {
        let callback = self.listener.wait(self.expect, timeout).await?;
        grant::exchange(
            client,
            &self.discovered,
            &self.registration,
            callback.code,
            self.verifier,
        )
        .await
    }
}
