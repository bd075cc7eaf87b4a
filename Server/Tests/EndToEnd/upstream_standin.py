"""A small stand-in identity provider the identity provider tests start on loopback: GitHub-shaped OAuth 2.0 endpoints
(authorize, access_token, /user, /user/emails) and an OpenID provider whose ID tokens a test can spoil on purpose
(wrong iss or aud, expired, another nonce, `alg: none`, HS256 keyed with the public key). It approves every
authorization at once; it checks PKCE and the client's credentials like the real ones do. ``Visit`` is a browser visit
without JavaScript that signs in through a provider's button."""
from __future__ import annotations

import base64
import hashlib
import hmac
import html
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import requests
from joserfc import jwt
from joserfc.jwk import RSAKey

from gatehouse_harness import WEB_REDIRECT, authorize_url, form_token, free_port


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class StandIn:
    CLIENT_ID = "gatehouse-standin"
    CLIENT_SECRET = "standin-secret-0123456789"

    def __init__(self):
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "standin-1", "use": "sig", "alg": "RS256"})
        self.mode = "good"  # how the next ID token (or answer) is spoiled
        self.user = {"id": 583231, "login": "octocat", "name": "The Octocat", "email": None}
        self.emails = [{"email": "octocat@github.example", "primary": True, "verified": True}]
        # A sign-in there with two factors: only a provider trusted for MFA has its amr believed.
        self.claims = {"sub": "standin-user", "email": "standin@example.net", "email_verified": True, "name": "Stand In", "amr": ["pwd", "mfa"]}
        self.client_keys: dict[str, object] = {}  # client id -> public key, for clients authenticating by private_key_jwt
        self.verified_assertions: list[dict] = []
        self.codes: dict[str, dict] = {}
        self.token_requests: list[dict] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                standin.handle(self, "GET")

            def do_POST(self):
                standin.handle(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    # The routes.

    def handle(self, request, method):
        url = urlparse(request.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        body = {}
        if method == "POST":
            length = int(request.headers.get("Content-Length") or 0)
            body = {k: v[0] for k, v in parse_qs(request.rfile.read(length).decode()).items()}
        routes = {
            "/.well-known/openid-configuration": self.discovery, "/jwks": self.jwks,
            "/authorize": self.authorize, "/login/oauth/authorize": self.authorize,
            "/token": self.token, "/login/oauth/access_token": self.token,
            "/userinfo": self.userinfo, "/user": self.github_user, "/user/emails": self.github_emails,
        }
        route = routes.get(url.path)
        if route is None:
            return self.reply(request, 404, {"error": "not_found"})
        route(request, query, body)

    def reply(self, request, status, payload, headers=None):
        data = json.dumps(payload).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        try:
            request.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (the slow mode), as it should

    def discovery(self, request, query, body):
        self.reply(request, 200, {
            "issuer": self.issuer, "authorization_endpoint": self.issuer + "/authorize", "token_endpoint": self.issuer + "/token",
            "userinfo_endpoint": self.issuer + "/userinfo", "jwks_uri": self.issuer + "/jwks", "response_types_supported": ["code"],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
        })

    def jwks(self, request, query, body):
        self.reply(request, 200, {"keys": [self.key.as_dict(private=False)]})

    def authorize(self, request, query, body):
        redirect = query["redirect_uri"]
        if query.get("response_mode") == "form_post" and self.mode != "access_denied":
            code = b64url(hashlib.sha256(str(time.monotonic_ns()).encode()).digest())
            self.codes[code] = query
            page = (f'<form method="post" action="{redirect}"><input type="hidden" name="code" value="{code}">'
                    f'<input type="hidden" name="state" value="{query.get("state")}"><button>Continue</button></form>').encode()
            request.send_response(200)
            request.send_header("Content-Type", "text/html")
            request.send_header("Content-Length", str(len(page)))
            request.end_headers()
            request.wfile.write(page)
            return
        if self.mode == "access_denied":
            answer = {"error": "access_denied", "error_description": "The user said no", "state": query.get("state")}
        else:
            code = b64url(hashlib.sha256(str(time.monotonic_ns()).encode()).digest())
            self.codes[code] = query
            answer = {"code": code, "state": query.get("state")}
        request.send_response(302)
        request.send_header("Location", redirect + ("&" if "?" in redirect else "?") + urlencode(answer))
        request.end_headers()

    def token(self, request, query, body):
        self.token_requests.append({"body": body, "authorization": request.headers.get("Authorization")})
        if self.mode == "slow":
            time.sleep(5)
        client_id = body.get("client_id")
        if client_id in self.client_keys:
            # private_key_jwt (RFC 7523): the assertion, signed by the client's registered key, for this token endpoint.
            try:
                assertion = jwt.decode(body.get("client_assertion", ""), self.client_keys[client_id], algorithms=["ES256"])
                jwt.JWTClaimsRegistry(iss={"essential": True, "value": client_id}, sub={"essential": True, "value": client_id},
                                      aud={"essential": True, "value": self.issuer + "/token"}, exp={"essential": True},
                                      jti={"essential": True}).validate(assertion.claims)
            except Exception as error:  # noqa: BLE001 - any failure is the client's
                return self.reply(request, 401, {"error": "invalid_client", "error_description": str(error)})
            if body.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" or "client_secret" in body:
                return self.reply(request, 401, {"error": "invalid_client"})
            self.verified_assertions.append(assertion.claims)
        request_of_code = self.codes.pop(body.get("code", ""), None)
        if request_of_code is None or self.mode == "token_error":
            return self.reply(request, 400, {"error": "invalid_grant", "error_description": "unknown or used code"})
        challenge = b64url(hashlib.sha256(body.get("code_verifier", "").encode()).digest())
        if challenge != request_of_code.get("code_challenge") or body.get("redirect_uri") != request_of_code.get("redirect_uri"):
            return self.reply(request, 400, {"error": "invalid_grant", "error_description": "PKCE or redirect_uri mismatch"})
        tokens = {"access_token": "at-" + body["code"], "token_type": "bearer", "scope": request_of_code.get("scope", "")}
        if "openid" in request_of_code.get("scope", "").split():
            tokens["id_token"] = self.id_token(request_of_code.get("nonce"), request_of_code.get("client_id", self.CLIENT_ID))
        self.reply(request, 200, tokens)

    def id_token(self, nonce, client_id):
        now = int(time.time())
        claims = dict(self.claims, iss=self.issuer, aud=client_id, iat=now, exp=now + 300, nonce=nonce)
        if self.mode in ("tenant", "tenant_mismatch"):
            # A multi-tenant issuer names the user's tenant, as Microsoft Entra ID's do.
            claims["tid"] = "9188040d-6c67-4c5b-b112-36a304b66dad"
            named = claims["tid"] if self.mode == "tenant" else "72f988bf-86f1-41af-91ab-2d7cd011db47"
            claims["iss"] = f"{self.issuer}/{named}/v2.0"
        if self.mode == "wrong_iss":
            claims["iss"] = "http://127.0.0.1:1"
        elif self.mode == "wrong_aud":
            claims["aud"] = "someone-else"
        elif self.mode == "expired":
            claims["iat"], claims["exp"] = now - 3600, now - 1800
        elif self.mode == "nonce_mismatch":
            claims["nonce"] = "not-the-nonce"
        elif self.mode == "alg_none":
            return b64url(json.dumps({"alg": "none"}).encode()) + "." + b64url(json.dumps(claims).encode()) + "."
        elif self.mode == "hs256_public_key":
            # The classic confusion: an HMAC keyed with the provider's public key, which anyone has.
            header = b64url(json.dumps({"alg": "HS256", "kid": "standin-1"}).encode()) + "." + b64url(json.dumps(claims).encode())
            secret = self.key.as_pem(private=False)
            return header + "." + b64url(hmac.new(secret, header.encode(), hashlib.sha256).digest())
        return jwt.encode({"alg": "RS256", "kid": "standin-1"}, claims, self.key)

    def bearer(self, request):
        authorization = request.headers.get("Authorization") or ""
        return authorization.startswith("Bearer at-")

    def userinfo(self, request, query, body):
        if not self.bearer(request):
            return self.reply(request, 401, {"error": "invalid_token"})
        self.reply(request, 200, {"sub": self.claims["sub"], "email": self.claims.get("email"), "name": self.claims.get("name")})

    def github_user(self, request, query, body):
        if not self.bearer(request):
            return self.reply(request, 401, {"message": "Requires authentication"})
        self.reply(request, 200, self.user)

    def github_emails(self, request, query, body):
        if not self.bearer(request):
            return self.reply(request, 401, {"message": "Requires authentication"})
        self.reply(request, 200, self.emails)


# Without JavaScript: a session that follows the hosted pages and the providers' redirects.

class Visit:
    """One browser visit without JavaScript: the sign-in page, a provider's button, and where the answer leads."""

    def __init__(self, server):
        self.server = server
        self.session = requests.Session()
        self.page = self.session.get(authorize_url(server, scope="openid profile email"), timeout=10)
        assert self.page.status_code == 200 and "/login?flow=" in self.page.url, self.page.text[:300]

    def provider_url(self, provider_id):
        found = re.search(r'<a class="button idp" href="([^"]+)" data-idp="idp:' + re.escape(provider_id) + '"', self.page.text)
        assert found, f"no button for {provider_id}"
        return html.unescape(found.group(1))

    def go(self, provider_id):
        """Opens the provider's button; returns the provider's authorization URL it redirected to."""
        response = self.session.get(self.provider_url(provider_id), allow_redirects=False, timeout=10)
        assert response.status_code == 302, response.text[:300]
        return response.headers["Location"]

    def answer(self, callback_url):
        """Brings the provider's answer back, following the server's redirects up to the client's."""
        response = self.session.get(callback_url, allow_redirects=False, timeout=30)
        while response.status_code in (302, 303) and not response.headers["Location"].startswith(WEB_REDIRECT):
            response = self.session.get(self.server.issuer + response.headers["Location"] if response.headers["Location"].startswith("/")
                                        else response.headers["Location"], allow_redirects=False, timeout=30)
        self.page = response
        return response

    def via_mock(self, provider_id, sub):
        authorization = self.go(provider_id)
        approved = self.session.post(authorization, data={"sub": sub}, allow_redirects=False, timeout=10)
        assert approved.status_code == 302, approved.text[:300]
        return self.answer(approved.headers["Location"])

    def via_standin(self, provider_id):
        authorization = self.go(provider_id)
        answered = self.session.get(authorization, allow_redirects=False, timeout=10)
        return self.answer(answered.headers["Location"])

    def form_submit(self, action, **values):
        token = form_token(self.page.text)
        flow = re.search(r'name="flow" value="([^"]+)"', self.page.text).group(1)
        response = self.session.post(self.server.issuer + "/login", data={"flow": flow, "csrf_token": token, "action": action, **values},
                                     allow_redirects=False, timeout=30)
        if response.status_code == 303 and response.headers["Location"].startswith("/login"):
            response = self.session.get(self.server.issuer + response.headers["Location"], timeout=10)
        self.page = response
        return response

    @property
    def node(self):
        found = re.search(r'data-node="([^"]+)"', self.page.text)
        return found.group(1) if found else None

    def code(self):
        assert self.page.status_code in (302, 303), (self.page.status_code, self.page.text[:500])
        location = self.page.headers["Location"]
        assert location.startswith(WEB_REDIRECT), location
        return parse_qs(urlparse(location).query)["code"][0]
