"""A small MCP server protected by Gatehouse, written with the official MCP Python SDK's server side: it serves its
protected-resource metadata (RFC 9728) naming Gatehouse as its authorization server, answers requests without a valid
token with 401 and `WWW-Authenticate: Bearer resource_metadata=…`, and accepts only JWT access tokens (RFC 9068) that
joserfc validates against Gatehouse's JWKS with this server as their audience.

    python3 mcp_notes_server.py ISSUER PORT
"""
import asyncio
import sys

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

SCOPE = "notes:read"


class GatehouseTokenVerifier(TokenVerifier):
    """Validates Gatehouse's JWT access tokens offline: signature by a key of the JWKS (fetched again for an unknown
    key), `typ: at+jwt`, issuer, this resource as audience, expiry."""

    def __init__(self, issuer: str, resource: str):
        self.issuer = issuer
        self.resource = resource
        self.keys: KeySet | None = None

    async def key_set(self, refresh: bool = False) -> KeySet:
        if self.keys is None or refresh:
            async with httpx.AsyncClient(timeout=10) as client:
                metadata = (await client.get(self.issuer + "/.well-known/oauth-authorization-server")).json()
                self.keys = KeySet.import_key_set((await client.get(metadata["jwks_uri"])).json())
        return self.keys

    async def verify_token(self, token: str) -> AccessToken | None:
        for refresh in (False, True):
            try:
                decoded = jwt.decode(token, await self.key_set(refresh), algorithms=["RS256", "ES256"])
                break
            except JoseError:
                if refresh:
                    return None
        else:
            return None
        if decoded.header.get("typ") != "at+jwt":
            return None
        try:
            jwt.JWTClaimsRegistry(iss={"essential": True, "value": self.issuer}, aud={"essential": True, "value": self.resource},
                                  exp={"essential": True}, client_id={"essential": True}).validate(decoded.claims)
        except JoseError:
            return None
        claims = decoded.claims
        return AccessToken(token=token, client_id=claims["client_id"], scopes=claims.get("scope", "").split(), expires_at=claims["exp"],
                           resource=claims["aud"], subject=claims["sub"], claims=claims)


def main() -> None:
    issuer, port = sys.argv[1], int(sys.argv[2])
    resource = f"http://127.0.0.1:{port}/mcp"
    server = MCPServer(
        "Gatehouse notes", token_verifier=GatehouseTokenVerifier(issuer, resource),
        auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[SCOPE],
                          validate_token_resource=True))

    @server.tool()
    async def read_note(title: str) -> str:
        """Reads one of the person's notes."""
        return f"The note {title!r} says: remember the milk."

    asyncio.run(server.run_streamable_http_async(host="127.0.0.1", port=port))


if __name__ == "__main__":
    main()
