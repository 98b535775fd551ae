#!/usr/bin/env python3
"""An OAuth-protected MCP server built on the official MCP Python SDK (`mcp` on PyPI), for
crates/porthole-connections/tests/sdk_server.rs: Porthole signs in to a server nobody here wrote.

The SDK serves everything that matters to sign-in: RFC 9728 protected resource metadata, the
401 with `resource_metadata`, RFC 8414 metadata, RFC 7591 registration, /authorize (PKCE S256
only), /token (PKCE verifier, redirect_uri, code and refresh checks), RFC 7009 /revoke, and the
bearer check on /mcp (scope, and with `validate_token_resource` the RFC 8707 resource). This file
only keeps the SDK's objects in memory and approves every authorization at once (no login page),
the way the SDK's own examples do.

    oauth_server.py [--port N]     listens on 127.0.0.1 (a free port by default) and prints
                                   `ready http://127.0.0.1:PORT/mcp` once it takes connections.

Test-only routes, on 127.0.0.1 only: POST /test/expire forgets every access token (so the next
call needs a refresh); GET /test/seen says what the authorization server was sent.
"""
import argparse
import asyncio
import secrets
import socket
import sys
import time

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "mcp:tools"
ACCESS_LIFETIME = 3600


class ApproveAtOnce:
    """The SDK's OAuthAuthorizationServerProvider, in memory, approving every request."""

    def __init__(self):
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        # What the authorization server was sent, for the test to read.
        self.seen = {"registrations": 0, "authorize": [], "exchanges": 0, "refreshes": 0, "revoked": 0}

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.seen["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams):
        self.seen["authorize"].append(
            {
                "client_id": client.client_id,
                "scopes": params.scopes,
                "resource": params.resource,
                "redirect_uri": str(params.redirect_uri),
                "has_code_challenge": bool(params.code_challenge),
            }
        )
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="test-user",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    def _issue(self, client_id, scopes, resource):
        access = "sdk-at-" + secrets.token_urlsafe(24)
        refresh = "sdk-rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + ACCESS_LIFETIME,
            resource=resource,
            subject="test-user",
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject="test-user"
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_LIFETIME,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def exchange_authorization_code(self, client, authorization_code):
        # Single use: the SDK loads the code, this provider forgets it.
        self.codes.pop(authorization_code.code, None)
        self.seen["exchanges"] += 1
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        # Rotation: the old refresh token and every access token of this client end here.
        self.refresh.pop(refresh_token.token, None)
        for token in [t for t, a in self.access.items() if a.client_id == client.client_id]:
            del self.access[token]
        self.seen["refreshes"] += 1
        return self._issue(client.client_id, scopes, refresh_token.resource)

    async def load_access_token(self, token):
        access = self.access.get(token)
        if access and access.expires_at and access.expires_at < time.time():
            return None
        return access

    async def revoke_token(self, token):
        # The whole grant: every token of this client.
        self.seen["revoked"] += 1
        for store in (self.access, self.refresh):
            for t in [t for t, v in store.items() if v.client_id == token.client_id]:
                del store[t]

    async def exchange_identity_assertion(self, client, params):
        raise TokenError(error="unsupported_grant_type", error_description="not offered")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    # Bound before the SDK is configured, so the issuer and resource carry the real port.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"

    provider = ApproveAtOnce()
    server = MCPServer(
        "porthole-sdk-test",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=True,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
            required_scopes=[SCOPE],
        ),
        log_level="WARNING",
    )

    @server.tool()
    def echo(text: str) -> str:
        """Echoes its text back."""
        return f"echo: {text}"

    @server.tool()
    def whoami() -> str:
        """Says which client, resource and scopes the caller's token was issued for."""
        token = get_access_token()
        if token is None:
            return "not signed in"
        return f"client={token.client_id} resource={token.resource} scopes={' '.join(token.scopes)}"

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(_: Request) -> Response:
        provider.access.clear()
        return Response(status_code=204)

    @server.custom_route("/test/seen", methods=["GET"])
    async def seen(_: Request) -> Response:
        return JSONResponse(provider.seen)

    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv = uvicorn.Server(config)

    async def serve():
        task = asyncio.create_task(uv.serve(sockets=[sock]))
        while not uv.started:
            if task.done():
                task.result()
                sys.exit("oauth_server.py: the server stopped before it started")
            await asyncio.sleep(0.01)
        print(f"ready {base}/mcp", flush=True)
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
