"""An independent OpenID Connect client (authlib) signs in through Gatehouse over loopback."""
import base64
import json

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

from conftest import ES_SECRET, PASSWORD, WEB_REDIRECT, WEB_SECRET, APP_REDIRECT
from gatehouse_harness import Browser, error_of, metadata, redirect_parameters, verify_id_token


def header_of(jwt: str) -> dict:
    segment = jwt.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def sign_in_with_authlib(server, client: OAuth2Session, browser: Browser, **extra):
    meta = metadata(server)
    verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce, **extra)
    response = browser.sign_in(url, "alice", PASSWORD)
    assert response.status_code in (302, 303), response.text
    parameters = redirect_parameters(response)
    assert parameters["state"] == state
    assert parameters["iss"] == server.issuer  # RFC 9207
    token = client.fetch_token(meta["token_endpoint"], authorization_response=response.headers["Location"], code_verifier=verifier)
    return token, nonce


def test_code_flow_with_pkce_userinfo_refresh_and_revoke(server):
    meta = metadata(server)
    client = OAuth2Session("web", WEB_SECRET, scope="openid profile email offline_access", redirect_uri=WEB_REDIRECT,
                           code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    token, nonce = sign_in_with_authlib(server, client, Browser(server))
    assert token["token_type"] == "Bearer" and token["refresh_token"]

    claims = verify_id_token(server, token, "web", nonce, "RS256")
    header = header_of(token["id_token"])
    assert header["alg"] == "RS256"
    assert header["kid"] in {key["kid"] for key in requests.get(meta["jwks_uri"], timeout=10).json()["keys"]}
    assert claims["azp"] == "web" and claims["amr"] == ["pwd"]
    assert claims["auth_time"] <= claims["iat"] < claims["exp"]
    assert claims["preferred_username"] == "alice" and claims["email"] == "alice@example.com"

    userinfo = client.get(meta["userinfo_endpoint"], timeout=10)
    assert userinfo.status_code == 200
    assert userinfo.json()["sub"] == claims["sub"]
    assert userinfo.json()["name"] == "Alice Example"
    assert userinfo.json()["email_verified"] is True

    refreshed = client.refresh_token(meta["token_endpoint"])
    assert refreshed["refresh_token"] != token["refresh_token"]
    assert refreshed["access_token"] != token["access_token"]
    refreshed_claims = verify_id_token(server, refreshed, "web", None, "RS256")
    assert "nonce" not in refreshed_claims
    assert refreshed_claims["sub"] == claims["sub"] and refreshed_claims["auth_time"] == claims["auth_time"]
    assert client.get(meta["userinfo_endpoint"], timeout=10).status_code == 200

    revoked = client.revoke_token(meta["revocation_endpoint"], token=refreshed["refresh_token"], token_type_hint="refresh_token")
    assert revoked.status_code == 200
    # Revoking the refresh token ends its family: the access token stops working too.
    after = requests.get(meta["userinfo_endpoint"], headers={"Authorization": f"Bearer {refreshed['access_token']}"}, timeout=10)
    assert after.status_code == 401
    assert "invalid_token" in after.headers["WWW-Authenticate"]
    again = requests.post(meta["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
                          auth=("web", WEB_SECRET), timeout=10)
    assert again.status_code == 400 and error_of(again) == "invalid_grant"


def test_es256_client_gets_es256_id_token(server):
    client = OAuth2Session("es-web", ES_SECRET, scope="openid email", redirect_uri=WEB_REDIRECT,
                           code_challenge_method="S256", token_endpoint_auth_method="client_secret_post")
    token, nonce = sign_in_with_authlib(server, client, Browser(server))
    assert header_of(token["id_token"])["alg"] == "ES256"
    claims = verify_id_token(server, token, "es-web", nonce, "ES256")
    assert "email" in claims and "preferred_username" not in claims  # no profile scope
    assert "refresh_token" not in token  # no offline_access scope


def test_public_client_with_pkce(server):
    client = OAuth2Session("app", scope="openid profile offline_access", redirect_uri=APP_REDIRECT,
                           code_challenge_method="S256", token_endpoint_auth_method="none")
    token, nonce = sign_in_with_authlib(server, client, Browser(server))
    verify_id_token(server, token, "app", nonce, "RS256")
    refreshed = client.refresh_token(metadata(server)["token_endpoint"])
    assert refreshed["refresh_token"] != token["refresh_token"]


def test_introspection_and_client_credentials(server):
    meta = metadata(server)
    issued = requests.post(meta["token_endpoint"], data={"grant_type": "client_credentials"}, auth=("web", WEB_SECRET), timeout=10)
    assert issued.status_code == 200, issued.text
    body = issued.json()
    assert body["token_type"] == "Bearer" and "refresh_token" not in body and "id_token" not in body
    introspected = requests.post(meta["introspection_endpoint"], data={"token": body["access_token"]}, auth=("web", WEB_SECRET), timeout=10)
    assert introspected.json()["active"] is True
    assert introspected.json()["client_id"] == "web"
    # Another client learns nothing about it.
    foreign = requests.post(meta["introspection_endpoint"], data={"token": body["access_token"]}, auth=("es-web", ES_SECRET), timeout=10)
    assert foreign.json() == {"active": False}
    # A client token cannot read userinfo: it acts for no user.
    userinfo = requests.get(meta["userinfo_endpoint"], headers={"Authorization": f"Bearer {body['access_token']}"}, timeout=10)
    assert userinfo.status_code == 403
    # Public clients cannot use client credentials.
    public = requests.post(meta["token_endpoint"], data={"grant_type": "client_credentials", "client_id": "app"}, timeout=10)
    assert public.status_code == 400 and error_of(public) == "unauthorized_client"


def test_authorization_server_metadata_rfc8414(server):
    """RFC 8414: the same metadata at /.well-known/oauth-authorization-server, for clients that know only OAuth (MCP
    clients look there first); authlib's RFC 8414 and OpenID discovery validators both accept it."""
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
    from authlib.oidc.discovery import OpenIDProviderMetadata

    answer = requests.get(server.issuer + "/.well-known/oauth-authorization-server", timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/json")
    document = answer.json()
    assert document == metadata(server) and document["issuer"] == server.issuer
    AuthorizationServerMetadata(document).validate()
    OpenIDProviderMetadata(document).validate()
    assert "S256" in document["code_challenge_methods_supported"]
