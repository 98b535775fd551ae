//! Finding who signs a person in to an MCP server, as the MCP authorization spec
//! (2025-11-25) orders it: the 401's `WWW-Authenticate` `resource_metadata` or the RFC 9728
//! well-known addresses for the protected resource's metadata, then RFC 8414 / OpenID
//! discovery for its authorization server. Every document is checked before it is used.

use serde::Deserialize;
use url::Url;

use super::SignInError;
use crate::http;

/// What sign-in needs to know about one MCP server.
#[derive(Debug, Clone)]
pub struct Discovered {
    /// The protected resource's identifier, sent as RFC 8707's `resource`.
    pub resource: Url,
    /// The scopes to ask for: the 401's `scope`, else the resource's `scopes_supported`.
    pub scopes: Vec<String>,
    pub server: AuthServer,
}

/// An authorization server's metadata (RFC 8414), the fields sign-in uses.
#[derive(Debug, Clone, Deserialize)]
pub struct AuthServer {
    pub issuer: Url,
    pub authorization_endpoint: Url,
    pub token_endpoint: Url,
    #[serde(default)]
    pub registration_endpoint: Option<Url>,
    #[serde(default)]
    pub revocation_endpoint: Option<Url>,
    #[serde(default)]
    pub code_challenge_methods_supported: Vec<String>,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// RFC 8414: how the token endpoint takes a client's credentials; left out means
    /// `client_secret_basic`.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
}

#[derive(Deserialize)]
struct ResourceMetadata {
    resource: Url,
    #[serde(default)]
    authorization_servers: Vec<Url>,
    #[serde(default)]
    scopes_supported: Vec<String>,
}

/// What a 401's `WWW-Authenticate: Bearer ...` offers.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Challenge {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// RFC 6750 §3.1: `invalid_token`, `insufficient_scope`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Ask the server with no token and read its challenge. A server may let `initialize` through
/// and ask for sign-in only at the requests after it, so when `initialize` is answered the
/// session goes on as a client's would (`notifications/initialized`, then `tools/list`) and
/// the first 401 is the challenge. A server that never answers 401 but publishes protected
/// resource metadata (RFC 9728) can be signed in to with that (an empty challenge: discovery
/// reads the well-known address). Anything else needs no sign-in: `Ok(None)`.
pub async fn probe(client: &reqwest::Client, server: &Url) -> Result<Option<Challenge>, SignInError> {
    http::check_endpoint("MCP server address", server)?;
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": crate::MCP_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "porthole", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let response = post(client, server, &initialize, None).await?;
    if let Some(challenge) = challenge_of(&response) {
        return Ok(Some(challenge));
    }
    if response.status().is_success() {
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        // The answer is not needed (it may be an event stream: dropping it closes it).
        drop(response);
        let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let tools = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        for message in [initialized, tools] {
            let response = post(client, server, &message, session.as_deref()).await?;
            if let Some(challenge) = challenge_of(&response) {
                return Ok(Some(challenge));
            }
        }
    }
    for url in well_known(server, "oauth-protected-resource", false) {
        if matches!(
            http::get_json(client, "resource metadata address", &url).await,
            Ok(Some(_))
        ) {
            return Ok(Some(Challenge::default()));
        }
    }
    Ok(None)
}

async fn post(
    client: &reqwest::Client,
    server: &Url,
    message: &serde_json::Value,
    session: Option<&str>,
) -> Result<reqwest::Response, SignInError> {
    let mut request = client
        .post(server.clone())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", crate::MCP_PROTOCOL_VERSION);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    request
        .body(message.to_string())
        .send()
        .await
        .map_err(|e| SignInError::from(http::transport(server.as_str(), e)))
}

/// A 401's `Bearer` challenge (empty when it has none).
fn challenge_of(response: &reqwest::Response) -> Option<Challenge> {
    if response.status().as_u16() != 401 {
        return None;
    }
    Some(bearer_challenge(response.headers()).unwrap_or_default())
}

/// The `Bearer` challenge among `headers`' `WWW-Authenticate`, if any.
pub fn bearer_challenge(headers: &reqwest::header::HeaderMap) -> Option<Challenge> {
    headers
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.trim_start().to_ascii_lowercase().starts_with("bearer"))
        .map(parse_challenge)
}

/// The parameters of a `Bearer` challenge (RFC 6750 §3: `auth-param`s, quoted or not).
pub fn parse_challenge(header: &str) -> Challenge {
    let rest = header.trim_start()[6.min(header.trim_start().len())..].trim_start();
    let mut challenge = Challenge::default();
    let mut chars = rest.char_indices().peekable();
    while let Some(&(start, _)) = chars.peek() {
        // name
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c == '=' || c == ',' {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        let name = rest[start..end].trim().to_ascii_lowercase();
        let mut value = String::new();
        if chars.peek().is_some_and(|&(_, c)| c == '=') {
            chars.next();
            while chars.peek().is_some_and(|&(_, c)| c == ' ') {
                chars.next();
            }
            if chars.peek().is_some_and(|&(_, c)| c == '"') {
                chars.next();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(escaped);
                            }
                        }
                        '"' => break,
                        c => value.push(c),
                    }
                }
            } else {
                while let Some(&(_, c)) = chars.peek() {
                    if c == ',' {
                        break;
                    }
                    value.push(c);
                    chars.next();
                }
                value = value.trim().to_string();
            }
        }
        while chars.peek().is_some_and(|&(_, c)| c == ',' || c == ' ') {
            chars.next();
        }
        match name.as_str() {
            "resource_metadata" => challenge.resource_metadata = Some(value),
            "scope" => challenge.scope = Some(value),
            "error" => challenge.error = Some(value),
            _ => {}
        }
    }
    challenge
}

/// Discover everything sign-in needs for `server`, starting from its challenge.
pub async fn discover(
    client: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<Discovered, SignInError> {
    let Some(metadata) = resource_metadata(client, server, challenge).await? else {
        return legacy(client, server, challenge).await;
    };
    check_resource(server, &metadata.resource)?;
    let Some(issuer) = metadata.authorization_servers.first() else {
        return Err(SignInError::Discovery(format!(
            "{server}'s metadata names no authorization server"
        )));
    };
    let auth = auth_server(client, issuer).await?;
    let scopes = match &challenge.scope {
        Some(s) => s.split_whitespace().map(str::to_string).collect(),
        None => metadata.scopes_supported,
    };
    Ok(Discovered {
        resource: metadata.resource,
        scopes,
        server: auth,
    })
}

/// The protected resource metadata; `None` when the server publishes none at the well-known
/// addresses and its challenge named none (a server of the 2025-03-26 revision).
async fn resource_metadata(
    client: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, SignInError> {
    let candidates: Vec<Url> = match &challenge.resource_metadata {
        Some(given) => vec![Url::parse(given).map_err(|e| {
            SignInError::Discovery(format!(
                "the server's resource_metadata `{given}` is not a URL: {e}"
            ))
        })?],
        None => well_known(server, "oauth-protected-resource", false),
    };
    for url in &candidates {
        if let Some(value) = http::get_json(client, "resource metadata address", url).await? {
            return serde_json::from_value(value).map(Some).map_err(|e| {
                SignInError::Discovery(format!("the resource metadata at {url} is not usable: {e}"))
            });
        }
    }
    if challenge.resource_metadata.is_none() {
        return Ok(None);
    }
    Err(SignInError::Discovery(format!(
        "{server} asks for sign-in but publishes no resource metadata (tried {})",
        list(&candidates)
    )))
}

/// Whether a token for `resource` may be sent to `server`: the same origin, and a path that is
/// the server's or one of its parents (RFC 9728 §3.3). The one rule for both the metadata a
/// sign-in reads and the grant a request is about to send.
pub(crate) fn resource_covers(resource: &Url, server: &Url) -> bool {
    let path = resource.path().trim_end_matches('/');
    let server_path = server.path().trim_end_matches('/');
    resource.origin() == server.origin()
        && (server_path == path || server_path.starts_with(&format!("{path}/")))
}

/// The metadata's `resource` must name this server ([`resource_covers`]): a document naming
/// another server is how a token for one server is steered to another.
fn check_resource(server: &Url, resource: &Url) -> Result<(), SignInError> {
    if resource_covers(resource, server) {
        Ok(())
    } else {
        Err(SignInError::Discovery(format!(
            "the resource metadata is for {resource}, not for {server}; refusing to sign in with it"
        )))
    }
}

async fn auth_server(client: &reqwest::Client, issuer: &Url) -> Result<AuthServer, SignInError> {
    http::check_endpoint("authorization server", issuer)?;
    let mut candidates = well_known(issuer, "oauth-authorization-server", false);
    candidates.extend(well_known(issuer, "openid-configuration", true));
    for url in &candidates {
        let Some(value) = http::get_json(client, "authorization server metadata address", url).await? else {
            continue;
        };
        let server: AuthServer = serde_json::from_value(value).map_err(|e| {
            SignInError::Discovery(format!(
                "the authorization server metadata at {url} is not usable: {e}"
            ))
        })?;
        check_auth_server(issuer, &server)?;
        return Ok(server);
    }
    Err(SignInError::Discovery(format!(
        "no authorization server metadata for {issuer} (tried {})",
        list(&candidates)
    )))
}

/// The 2025-03-26 revision's discovery, for a server that publishes no resource metadata:
/// the authorization server is the MCP server's origin (its "authorization base URL"), its
/// RFC 8414 metadata at the root well-known address, else the default endpoints `/authorize`,
/// `/token` and `/register` there. The metadata's issuer must be of the same origin (the
/// revision names no issuer to compare with); PKCE S256 is still required.
async fn legacy(
    client: &reqwest::Client,
    server: &Url,
    challenge: &Challenge,
) -> Result<Discovered, SignInError> {
    let mut base = server.clone();
    base.set_path("/");
    base.set_query(None);
    base.set_fragment(None);
    let at = |path: &str| base.join(path).expect("a path joins an http URL");
    let metadata_url = at("/.well-known/oauth-authorization-server");
    let auth = match http::get_json(client, "authorization server metadata address", &metadata_url).await? {
        Some(value) => {
            let auth: AuthServer = serde_json::from_value(value).map_err(|e| {
                SignInError::Discovery(format!(
                    "the authorization server metadata at {metadata_url} is not usable: {e}"
                ))
            })?;
            if auth.issuer.origin() != server.origin() {
                return Err(SignInError::Discovery(format!(
                    "the authorization server metadata at {metadata_url} claims to be {}, another origin; refusing (issuer mix-up)",
                    auth.issuer
                )));
            }
            check_endpoints(&auth.issuer, &auth)?;
            auth
        }
        None => AuthServer {
            issuer: base.clone(),
            authorization_endpoint: at("/authorize"),
            token_endpoint: at("/token"),
            registration_endpoint: Some(at("/register")),
            revocation_endpoint: None,
            code_challenge_methods_supported: vec!["S256".into()],
            authorization_response_iss_parameter_supported: false,
            client_id_metadata_document_supported: false,
            token_endpoint_auth_methods_supported: Vec::new(),
        },
    };
    let scopes = challenge
        .scope
        .as_deref()
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    Ok(Discovered {
        resource: server.clone(),
        scopes,
        server: auth,
    })
}

fn check_auth_server(issuer: &Url, server: &AuthServer) -> Result<(), SignInError> {
    // RFC 8414 §3.3: the issuer in the document is the one it was fetched for.
    if server.issuer.as_str().trim_end_matches('/') != issuer.as_str().trim_end_matches('/') {
        return Err(SignInError::Discovery(format!(
            "the authorization server metadata for {issuer} claims to be {}; refusing (issuer mix-up)",
            server.issuer
        )));
    }
    check_endpoints(issuer, server)
}

/// Every endpoint https or plain http on loopback, and PKCE S256 offered.
fn check_endpoints(issuer: &Url, server: &AuthServer) -> Result<(), SignInError> {
    http::check_endpoint("authorization endpoint", &server.authorization_endpoint)?;
    http::check_endpoint("token endpoint", &server.token_endpoint)?;
    if let Some(u) = &server.registration_endpoint {
        http::check_endpoint("registration endpoint", u)?;
    }
    if let Some(u) = &server.revocation_endpoint {
        http::check_endpoint("revocation endpoint", u)?;
    }
    // The MCP spec: PKCE is required, and a server that does not say it supports S256 is refused.
    if !server
        .code_challenge_methods_supported
        .iter()
        .any(|m| m == "S256")
    {
        return Err(SignInError::Discovery(format!(
            "{issuer} does not offer PKCE with S256, which MCP sign-in requires"
        )));
    }
    Ok(())
}

/// The well-known addresses for `url`, in the spec's order: the suffix inserted before the
/// path, then (OpenID only) appended after it; for a URL with no path, the root one.
fn well_known(url: &Url, suffix: &str, openid: bool) -> Vec<Url> {
    let path = url.path().trim_end_matches('/');
    let mut out = Vec::new();
    let mut at = |p: String| {
        let mut u = url.clone();
        u.set_path(&p);
        u.set_query(None);
        u.set_fragment(None);
        if !out.contains(&u) {
            out.push(u);
        }
    };
    if path.is_empty() {
        at(format!("/.well-known/{suffix}"));
    } else {
        at(format!("/.well-known/{suffix}{path}"));
        if openid {
            at(format!("{path}/.well-known/{suffix}"));
        } else if suffix == "oauth-protected-resource" {
            at(format!("/.well-known/{suffix}"));
        }
    }
    out
}

fn list(urls: &[Url]) -> String {
    urls.iter().map(Url::as_str).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_quoted_or_not() {
        let c = parse_challenge(
            r#"Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write""#,
        );
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
        let c = parse_challenge("Bearer realm=x, scope=read");
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(c.resource_metadata, None);
        assert_eq!(parse_challenge("Bearer"), Challenge::default());
        let c = parse_challenge(r#"Bearer scope="a \"b\"""#);
        assert_eq!(c.scope.as_deref(), Some(r#"a "b""#));
    }

    #[test]
    fn well_known_addresses_follow_the_spec_order() {
        let u = Url::parse("https://mcp.example.com/public/mcp").unwrap();
        let got: Vec<String> = well_known(&u, "oauth-protected-resource", false)
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(
            got,
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource"
            ]
        );
        let issuer = Url::parse("https://auth.example.com/tenant1").unwrap();
        let mut got = well_known(&issuer, "oauth-authorization-server", false);
        got.extend(well_known(&issuer, "openid-configuration", true));
        let got: Vec<String> = got.into_iter().map(String::from).collect();
        assert_eq!(
            got,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        let root = Url::parse("https://auth.example.com").unwrap();
        assert_eq!(well_known(&root, "openid-configuration", true).len(), 1);
    }

    #[test]
    fn a_resource_must_name_this_server() {
        let server = Url::parse("https://mcp.example.com/mcp/").unwrap();
        for ok in [
            "https://mcp.example.com/mcp",
            "https://mcp.example.com/",
            "https://mcp.example.com",
        ] {
            check_resource(&server, &Url::parse(ok).unwrap()).unwrap();
        }
        for bad in [
            "https://evil.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
            "http://mcp.example.com/mcp",
            "https://mcp.example.com/mcpx",
            "https://mcp.example.com/other",
        ] {
            assert!(
                check_resource(&server, &Url::parse(bad).unwrap()).is_err(),
                "{bad}"
            );
        }
    }
}
