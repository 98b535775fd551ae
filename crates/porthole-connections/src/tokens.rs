//! Signed-in connections' tokens: kept in the OS keyring (`secrets`, key [`GRANT_KEY`]),
//! cached in memory while Porthole runs, refreshed before they expire and after a 401 (once,
//! however many requests failed together). The gateway asks here; nothing else sees a token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use url::Url;

use crate::gateway::{SignInLost, TokenSource};
use crate::oauth::{self, Grant, Registration};
use crate::secrets::{SecretError, SecretStore};

/// The keyring key of a connection's grant (tokens, endpoints, registration).
pub const GRANT_KEY: &str = "oauth";
/// The keyring key of a connection's client registrations, one per authorization server
/// (issuer), kept across sign-outs so signing in again does not register Porthole anew, and
/// a server that moves to another authorization server and back finds its registration.
pub const REGISTRATION_KEY: &str = "oauth-client";
/// At most this many registrations are kept per connection (the newest).
const REGISTRATIONS_KEPT: usize = 8;
/// The keyring key of a pending step-up: the scopes a 403 `insufficient_scope` asked for
/// with the granted ones, and how many step-ups there were since the last sign-out.
pub const STEP_UP_KEY: &str = "oauth-step-up";
/// The keyring key of the last 401 challenge the gateway saw for a connection not signed in
/// (its `scope` and `resource_metadata`; no secret), for the next sign-in.
pub const CHALLENGE_KEY: &str = "oauth-challenge";
/// At most this many step-ups between sign-outs: a server that keeps naming new scopes
/// cannot make Porthole ask for sign-in forever.
pub const MAX_STEP_UPS: u32 = 3;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct StepUp {
    scopes: Vec<String>,
    count: u32,
}

/// What a connection's sign-in looks like from outside (no secret in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInState {
    SignedOut,
    SignedIn {
        expires_at: Option<u64>,
        scopes: Vec<String>,
    },
    /// Refresh failed: the person must sign in again.
    Expired {
        reason: String,
    },
}

pub struct Tokens {
    secrets: Arc<SecretStore>,
    client: reqwest::Client,
    /// One lock per connection, so a refresh waits only for its own connection.
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Grant>>>>>,
    /// Connections whose refresh failed: why, and the access token that failed. A grant in
    /// the keyring with another token (a sign-in since, perhaps by another Porthole process)
    /// clears it.
    lost: Mutex<HashMap<String, (String, String)>>,
}

impl Tokens {
    pub fn new(secrets: Arc<SecretStore>) -> Self {
        Self {
            secrets,
            client: crate::http::sign_in_client(),
            slots: Mutex::new(HashMap::new()),
            lost: Mutex::new(HashMap::new()),
        }
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.client
    }

    fn slot(&self, connection: &str) -> Arc<tokio::sync::Mutex<Option<Grant>>> {
        self.slots
            .lock()
            .expect("token slots")
            .entry(connection.to_string())
            .or_default()
            .clone()
    }

    fn lost(&self, connection: &str) -> Option<(String, String)> {
        self.lost.lock().expect("lost").get(connection).cloned()
    }

    /// The connection's grant, from the cache; from the keyring when there is none cached or
    /// the cached one failed (a sign-in elsewhere is picked up). `Err` (reason) while the
    /// sign-in is still the one that failed.
    fn current_grant<'a>(
        &self,
        connection: &str,
        cached: &'a mut Option<Grant>,
    ) -> Result<&'a mut Option<Grant>, String> {
        let lost = self.lost(connection);
        if cached.is_none() || lost.is_some() {
            *cached = match self.secrets.get(connection, GRANT_KEY) {
                Ok(Some(text)) => Some(serde_json::from_str(&text).map_err(|_| {
                    format!(
                        "its tokens cannot be read: {}",
                        SecretError::Damaged(format!("{connection}/{GRANT_KEY}"))
                    )
                })?),
                Ok(None) => None,
                Err(e) => return Err(format!("its tokens cannot be read: {e}")),
            };
        }
        if let Some((reason, failed)) = lost {
            match cached.as_ref() {
                Some(g) if g.access_token != failed => {
                    self.lost.lock().expect("lost").remove(connection);
                }
                _ => return Err(reason),
            }
        }
        Ok(cached)
    }

    fn write(&self, connection: &str, grant: &Grant) -> Result<(), SecretError> {
        let text = serde_json::to_string(grant).expect("a grant serializes");
        self.secrets.set(connection, GRANT_KEY, &text)?;
        let mut kept = self.registrations(connection);
        kept.retain(|r| r.issuer != grant.registration.issuer);
        kept.push(grant.registration.clone());
        if kept.len() > REGISTRATIONS_KEPT {
            kept.drain(..kept.len() - REGISTRATIONS_KEPT);
        }
        let registrations = serde_json::to_string(&kept).expect("registrations serialize");
        self.secrets.set(connection, REGISTRATION_KEY, &registrations)
    }

    /// Keep a new sign-in's grant.
    pub async fn store(&self, connection: &str, grant: Grant) -> Result<(), SecretError> {
        let slot = self.slot(connection);
        let mut cached = slot.lock().await;
        self.write(connection, &grant)?;
        self.lost.lock().expect("lost").remove(connection);
        *cached = Some(grant);
        Ok(())
    }

    fn step_up_record(&self, connection: &str) -> StepUp {
        self.secrets
            .get(connection, STEP_UP_KEY)
            .ok()
            .flatten()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// The scopes the next sign-in asks for besides the ones discovery finds: the granted
    /// ones and those a 403 `insufficient_scope` asked for (empty with no step-up pending).
    pub fn step_up_scopes(&self, connection: &str) -> Vec<String> {
        self.step_up_record(connection).scopes
    }

    async fn ask_step_up(&self, connection: &str, scopes: &[String]) -> Option<Vec<String>> {
        let slot = self.slot(connection);
        let mut cached = slot.lock().await;
        let granted = match self.current_grant(connection, &mut cached) {
            Ok(Some(grant)) => grant.scopes.clone(),
            _ => Vec::new(),
        };
        if scopes.iter().all(|s| granted.contains(s)) {
            return None;
        }
        let record = self.step_up_record(connection);
        if record.count >= MAX_STEP_UPS {
            return None;
        }
        let mut all = granted;
        for s in scopes {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
        let record = StepUp {
            scopes: all.clone(),
            count: record.count + 1,
        };
        let text = serde_json::to_string(&record).expect("a step-up serializes");
        if let Err(e) = self.secrets.set(connection, STEP_UP_KEY, &text) {
            tracing::warn!(connection, error = %e, "a step-up could not be kept in the keyring");
        }
        Some(all)
    }

    /// The last 401 challenge the gateway kept for this connection (see [`CHALLENGE_KEY`]).
    pub fn challenge(&self, connection: &str) -> Option<oauth::Challenge> {
        let text = self.secrets.get(connection, CHALLENGE_KEY).ok().flatten()?;
        serde_json::from_str(&text).ok()
    }

    /// The registration the latest sign-in made.
    pub fn registration(&self, connection: &str) -> Option<Registration> {
        self.registrations(connection).pop()
    }

    /// The registrations earlier sign-ins made, one per issuer, oldest first (for
    /// [`oauth::begin_with`], which reuses the one of the issuer it finds). An entry of an
    /// older Porthole (one registration) reads as a list of one.
    pub fn registrations(&self, connection: &str) -> Vec<Registration> {
        let Some(text) = self.secrets.get(connection, REGISTRATION_KEY).ok().flatten() else {
            return Vec::new();
        };
        serde_json::from_str::<Vec<Registration>>(&text)
            .or_else(|_| serde_json::from_str::<Registration>(&text).map(|r| vec![r]))
            .unwrap_or_default()
    }

    /// The sign-in of `connection`, whose server is now at `server`: a grant made for another
    /// address reads as expired (its tokens are not sent, see [`Grant::check_server`]).
    pub async fn state(&self, connection: &str, server: &Url) -> Result<SignInState, SecretError> {
        let slot = self.slot(connection);
        let mut cached = slot.lock().await;
        Ok(match self.current_grant(connection, &mut cached) {
            Err(reason) => SignInState::Expired { reason },
            Ok(grant) => match grant.as_ref() {
                None => SignInState::SignedOut,
                Some(g) if let Err(reason) = g.check_server(server) => SignInState::Expired { reason },
                Some(g) => SignInState::SignedIn {
                    expires_at: g.expires_at,
                    scopes: g.scopes.clone(),
                },
            },
        })
    }

    /// Sign out: revoke where the server offers it, then delete the tokens (even when
    /// revocation failed: the person asked for them to be gone). Returns whether the server
    /// confirmed revocation, and its error if it refused.
    pub async fn sign_out(&self, connection: &str) -> Result<(bool, Option<String>), SecretError> {
        let slot = self.slot(connection);
        let mut cached = slot.lock().await;
        self.lost.lock().expect("lost").remove(connection);
        let stored = match self.current_grant(connection, &mut cached) {
            Ok(grant) => grant.take(),
            Err(_) => cached.take(),
        };
        let outcome = match stored {
            Some(grant) => match oauth::revoke(&self.client, grant).await {
                Ok(revoked) => (revoked, None),
                Err(e) => (false, Some(e.to_string())),
            },
            None => (false, None),
        };
        self.secrets.delete(connection, GRANT_KEY)?;
        self.secrets.delete(connection, STEP_UP_KEY)?;
        self.secrets.delete(connection, CHALLENGE_KEY)?;
        Ok(outcome)
    }

    /// Forget everything of a removed connection, its registration too.
    pub async fn forget(&self, connection: &str) -> Result<(), SecretError> {
        self.sign_out(connection).await?;
        self.secrets.delete(connection, REGISTRATION_KEY)
    }

    /// The access token to send to `server`, refreshed first when stale (or when `failed` is
    /// still the current one); `None` when no sign-in is kept. A grant made for another address
    /// is neither sent nor refreshed.
    async fn current(
        &self,
        connection: &str,
        server: &Url,
        failed: Option<&str>,
    ) -> Result<Option<String>, SignInLost> {
        let slot = self.slot(connection);
        let mut cached = slot.lock().await;
        let grant = self.current_grant(connection, &mut cached).map_err(SignInLost)?;
        let Some(current) = grant.as_ref() else {
            return Ok(None);
        };
        current.check_server(server).map_err(SignInLost)?;
        let stale = match failed {
            // Another request may have refreshed already while this one waited for the lock.
            Some(failed) => current.access_token == failed,
            None => current.needs_refresh(oauth::grant::now_secs()),
        };
        if !stale {
            return Ok(Some(current.access_token.clone()));
        }
        match oauth::refresh(&self.client, current.clone()).await {
            Ok(fresh) => {
                if let Err(e) = self.write(connection, &fresh) {
                    tracing::warn!(connection, error = %e, "a refreshed token could not be saved in the keyring");
                }
                let token = fresh.access_token.clone();
                *grant = Some(fresh);
                Ok(Some(token))
            }
            Err(e) => {
                let reason = format!("refresh failed: {e}");
                let failed = current.access_token.clone();
                self.lost
                    .lock()
                    .expect("lost")
                    .insert(connection.to_string(), (reason.clone(), failed));
                Err(SignInLost(reason))
            }
        }
    }
}

impl TokenSource for Tokens {
    fn token<'a>(
        &'a self,
        connection: &'a str,
        server: &'a Url,
    ) -> BoxFuture<'a, Result<Option<String>, SignInLost>> {
        Box::pin(self.current(connection, server, None))
    }

    fn refreshed<'a>(
        &'a self,
        connection: &'a str,
        server: &'a Url,
        failed: &'a str,
    ) -> BoxFuture<'a, Result<String, SignInLost>> {
        Box::pin(async move {
            self.current(connection, server, Some(failed))
                .await?
                .ok_or_else(|| SignInLost("it is not signed in".into()))
        })
    }

    fn step_up<'a>(
        &'a self,
        connection: &'a str,
        scopes: &'a [String],
    ) -> BoxFuture<'a, Option<Vec<String>>> {
        Box::pin(self.ask_step_up(connection, scopes))
    }

    fn challenged(&self, connection: &str, challenge: &oauth::Challenge) {
        let kept = oauth::Challenge {
            error: None,
            ..challenge.clone()
        };
        if self.challenge(connection).as_ref() == Some(&kept) {
            return;
        }
        let text = serde_json::to_string(&kept).expect("a challenge serializes");
        if let Err(e) = self.secrets.set(connection, CHALLENGE_KEY, &text) {
            tracing::warn!(connection, error = %e, "a sign-in challenge could not be kept in the keyring");
        }
    }
}
