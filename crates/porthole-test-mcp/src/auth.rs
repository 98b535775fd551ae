//! The authorization server half, and the resource metadata.

use base64::Engine;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::{Body, Code, Ctx, Hostile, json, now, random_token, read_body, text};

fn hostile(ctx: &Ctx, h: Hostile) -> bool {
    ctx.options.hostile == Some(h)
}

pub(crate) fn resource_metadata(ctx: &Ctx, path: &str) -> Response<Body> {
    if hostile(ctx, Hostile::RedirectLoop) {
        return Response::builder()
            .status(StatusCode::FOUND)
            .header("Location", path)
            .body(http_body_util::Full::new(Bytes::new()).boxed())
            .expect("response");
    }
    let resource = if hostile(ctx, Hostile::ResourceOtherOrigin) {
        "https://other.example/mcp".to_string()
    } else {
        format!("{}/mcp", ctx.base)
    };
    json(
        StatusCode::OK,
        &json!({
            "resource": resource,
            "authorization_servers": [format!("{}/auth", ctx.base)],
            "scopes_supported": ["tools:read", "tools:call"],
            "bearer_methods_supported": ["header"],
        }),
    )
}

pub(crate) async fn server_metadata(ctx: &Ctx) -> Response<Body> {
    if hostile(ctx, Hostile::Oversized) {
        let big = format!("{{\"issuer\":\"{}\"}}", "x".repeat(8 * 1024 * 1024));
        return json_text(big);
    }
    if hostile(ctx, Hostile::Endless) {
        return Response::builder()
            .status(StatusCode::OK)
            .header("Content-Type", "application/json")
            .body(Endless.boxed())
            .expect("response");
    }
    let issuer = if hostile(ctx, Hostile::IssuerMismatch) {
        "https://other.example/auth".to_string()
    } else {
        format!("{}/auth", ctx.base)
    };
    let token_endpoint = if hostile(ctx, Hostile::TokenEndpointPlainHttp) {
        "http://auth.other.example/token".to_string()
    } else {
        format!("{}/auth/token", ctx.base)
    };
    let mut metadata = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{}/auth/authorize", ctx.base),
        "token_endpoint": token_endpoint,
        "revocation_endpoint": format!("{}/auth/revoke", ctx.base),
        "registration_endpoint": format!("{}/auth/register", ctx.base),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": ["tools:read", "tools:call"],
    });
    if ctx.options.client_metadata {
        metadata["client_id_metadata_document_supported"] = json!(true);
    }
    if ctx.options.client_secret_post {
        metadata["token_endpoint_auth_methods_supported"] = json!(["client_secret_post"]);
    }
    if hostile(ctx, Hostile::NoPkce) {
        metadata
            .as_object_mut()
            .expect("object")
            .remove("code_challenge_methods_supported");
    }
    if hostile(ctx, Hostile::NoRegistration) {
        metadata
            .as_object_mut()
            .expect("object")
            .remove("registration_endpoint");
    }
    json(StatusCode::OK, &metadata)
}

fn json_text(body: String) -> Response<Body> {
    Response::builder()
        .status(StatusCode::OK)
        .header("Content-Type", "application/json")
        .body(http_body_util::Full::new(Bytes::from(body)).boxed())
        .expect("response")
}

/// A body of 64 KiB chunks of spaces, forever (the client must stop reading).
struct Endless;

impl hyper::body::Body for Endless {
    type Data = Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        std::task::Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![b' '; 64 * 1024])))))
    }
}

pub(crate) async fn register(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    if hostile(ctx, Hostile::NoRegistration) {
        return text(StatusCode::NOT_FOUND, "no registration");
    }
    let body = read_body(req).await;
    let Ok(request) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return json(
            StatusCode::BAD_REQUEST,
            &json!({"error": "invalid_client_metadata"}),
        );
    };
    let uris: Vec<String> = request["redirect_uris"]
        .as_array()
        .map(|a| a.iter().filter_map(|u| u.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if uris.is_empty() {
        return json(StatusCode::BAD_REQUEST, &json!({"error": "invalid_redirect_uri"}));
    }
    let client_id = random_token("client-");
    let mut state = ctx.state.lock().expect("state");
    state.clients.insert(client_id.clone(), uris.clone());
    if ctx.options.client_secret_post {
        let secret = random_token("cs-");
        state.secrets.insert(client_id.clone(), secret.clone());
        return json(
            StatusCode::CREATED,
            &json!({"client_id": client_id, "client_secret": secret, "redirect_uris": uris,
                    "token_endpoint_auth_method": "client_secret_post"}),
        );
    }
    json(
        StatusCode::CREATED,
        &json!({"client_id": client_id, "redirect_uris": uris, "token_endpoint_auth_method": "none"}),
    )
}

fn query(req: &Request<Incoming>) -> std::collections::HashMap<String, String> {
    url::form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// Approves at once: the "browser" following this redirect lands on the client's listener.
pub(crate) fn authorize(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    let q = query(&req);
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let client_id = get("client_id");
    let redirect_uri = get("redirect_uri");
    let mut state = ctx.state.lock().expect("state");
    let Some(registered) = state.clients.get(&client_id) else {
        return text(StatusCode::BAD_REQUEST, "unknown client_id");
    };
    // A loopback redirect may use any port (RFC 8252 §7.3): compare without it.
    let without_port = |u: &str| {
        url::Url::parse(u).map(|mut u| {
            let _ = u.set_port(None);
            u.to_string()
        })
    };
    if !registered.is_empty()
        && !registered
            .iter()
            .any(|r| without_port(r).ok() == without_port(&redirect_uri).ok())
    {
        return text(StatusCode::BAD_REQUEST, "redirect_uri not registered");
    }
    if get("response_type") != "code"
        || get("code_challenge_method") != "S256"
        || get("code_challenge").is_empty()
    {
        return text(StatusCode::BAD_REQUEST, "PKCE S256 required");
    }
    if get("resource") != format!("{}/mcp", ctx.base) {
        return text(StatusCode::BAD_REQUEST, "resource must name the MCP server");
    }
    let code = match (&state.last_code, hostile(ctx, Hostile::ReplayedCode)) {
        (Some(old), true) => old.clone(),
        _ => random_token("code-"),
    };
    state.last_code = Some(code.clone());
    state.authorized_scopes.push(get("scope"));
    state.codes.entry(code.clone()).or_insert(Code {
        client_id,
        redirect_uri: redirect_uri.clone(),
        challenge: get("code_challenge"),
        resource: get("resource"),
        scope: get("scope"),
        used: false,
    });
    let answer_state = if hostile(ctx, Hostile::WrongState) {
        "not-your-state".to_string()
    } else {
        get("state")
    };
    let iss = if hostile(ctx, Hostile::IssuerMixUp) {
        "https://other.example/auth".to_string()
    } else {
        format!("{}/auth", ctx.base)
    };
    let mut to = match url::Url::parse(&redirect_uri) {
        Ok(u) => u,
        Err(_) => return text(StatusCode::BAD_REQUEST, "bad redirect_uri"),
    };
    to.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &answer_state)
        .append_pair("iss", &iss);
    Response::builder()
        .status(StatusCode::FOUND)
        .header("Location", to.as_str())
        .body(http_body_util::Full::new(Bytes::new()).boxed())
        .expect("response")
}

fn oauth_error(error: &str) -> Response<Body> {
    json(
        StatusCode::BAD_REQUEST,
        &json!({"error": error, "error_description": format!("test server: {error}")}),
    )
}

pub(crate) async fn token(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    let basic = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("Basic "));
    let body = read_body(req).await;
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    let mut state = ctx.state.lock().expect("state");
    let how = match (basic, form.contains_key("client_secret")) {
        (true, _) => "basic",
        (false, true) => "post",
        (false, false) => "none",
    };
    state.token_auth.push(how.to_string());
    if ctx.options.client_secret_post {
        let known = state.secrets.get(&get("client_id"));
        if how != "post" || known.is_none() || known != form.get("client_secret") {
            return oauth_error("invalid_client");
        }
    }
    let issue = |state: &mut crate::State, scope: String| {
        let scope = if scope.is_empty() {
            "tools:read tools:call".to_string()
        } else {
            scope
        };
        let access = random_token("at-");
        let refresh = random_token("rt-");
        state
            .access
            .insert(access.clone(), now() + ctx.options.token_lifetime);
        state.scopes.insert(
            access.clone(),
            scope.split_whitespace().map(str::to_string).collect(),
        );
        state.refresh.insert(refresh.clone());
        state.issued.extend([access.clone(), refresh.clone()]);
        json(
            StatusCode::OK,
            &json!({
                "access_token": access, "token_type": "Bearer",
                "expires_in": ctx.options.token_lifetime, "refresh_token": refresh,
                "scope": scope,
            }),
        )
    };
    match get("grant_type").as_str() {
        "authorization_code" => {
            let Some(code) = state.codes.get_mut(&get("code")) else {
                return oauth_error("invalid_grant");
            };
            if code.used {
                return oauth_error("invalid_grant");
            }
            code.used = true;
            let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(get("code_verifier").as_bytes()));
            if code.challenge != challenge
                || code.client_id != get("client_id")
                || code.redirect_uri != get("redirect_uri")
                || code.resource != get("resource")
            {
                return oauth_error("invalid_grant");
            }
            let scope = code.scope.clone();
            issue(&mut state, scope)
        }
        "refresh_token" => {
            // Rotation: the old refresh token is spent.
            if !state.refresh.remove(&get("refresh_token")) || get("resource") != format!("{}/mcp", ctx.base)
            {
                return oauth_error("invalid_grant");
            }
            state.refreshes += 1;
            issue(&mut state, String::new())
        }
        _ => oauth_error("unsupported_grant_type"),
    }
}

pub(crate) async fn revoke(ctx: &Ctx, req: Request<Incoming>) -> Response<Body> {
    let body = read_body(req).await;
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(&body).into_owned().collect();
    let token = form.get("token").cloned().unwrap_or_default();
    let mut state = ctx.state.lock().expect("state");
    state.access.remove(&token);
    state.refresh.remove(&token);
    state.revoked.push(token);
    Response::builder()
        .status(StatusCode::OK)
        .body(http_body_util::Full::new(Bytes::new()).boxed())
        .expect("response")
}
