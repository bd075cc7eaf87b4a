"""Clients known by the URL of their metadata document (Client ID Metadata Documents, as MCP clients use them), when
`client_metadata_documents` is on: the document is fetched when an authorization request names its URL as `client_id`,
checked, cached as its `Cache-Control` says, and the client signs a person in as a third-party public client after
consent. A document whose `client_id` is not its URL, one on a private address, one larger than the limit, a slow one,
a redirect loop and one that is not JSON are each refused on the sign-in page with a clear reason, within the fetch's
time limit. The documents are served over plain http on loopback, which only the development setting allows."""
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, urljoin

import pytest
import requests
from joserfc import jwk, jwt

from gatehouse_harness import PASSWORD, RFC7636_VERIFIER, Browser, Server, authorize_url, forms, free_port, redirect_parameters

REDIRECT = "http://127.0.0.1:9/documented"
# The key of the document client that authenticates with private_key_jwt; its public half is served at /keys.json.
AGENT_KEY = jwk.ECKey.generate_key("P-256", parameters={"kid": "agent-1"})


class Documents(BaseHTTPRequestHandler):
    """Serves one client metadata document per path, some of them wrong in one way each; counts the fetches."""
    fetched: dict = {}

    def do_GET(self):
        base = f"http://127.0.0.1:{self.server.server_port}"
        Documents.fetched[self.path] = Documents.fetched.get(self.path, 0) + 1
        good = {"client_id": base + self.path, "client_name": "Documented Agent", "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none", "client_uri": "https://agent.example/"}
        if self.path == "/good":
            return self.answer(200, json.dumps(good), {"Cache-Control": "max-age=300"})
        if self.path == "/mismatch":
            return self.answer(200, json.dumps({**good, "client_id": base + "/someone-else"}))
        if self.path == "/large":
            return self.answer(200, json.dumps({**good, "client_name": "x" * 4000}))
        if self.path == "/slow":
            time.sleep(4)
            return self.answer(200, json.dumps(good))
        if self.path == "/loop":
            return self.answer(302, "", {"Location": "/loop"})
        if self.path == "/keyed":
            return self.answer(200, json.dumps({**good, "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": base + "/keys.json"}))
        if self.path == "/keys.json":
            return self.answer(200, json.dumps({"keys": [{**AGENT_KEY.as_dict(private=False), "kid": "agent-1", "use": "sig"}]}))
        if self.path == "/confidential":
            return self.answer(200, json.dumps({**good, "token_endpoint_auth_method": "client_secret_basic"}))
        return self.answer(200, "<html>not json</html>")

    def answer(self, status, body, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body.encode())))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def documents():
    listener = ThreadingHTTPServer(("127.0.0.1", free_port()), Documents)
    listener.daemon_threads = True
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{listener.server_port}"
    listener.shutdown()


@pytest.fixture(scope="module")
def development():
    """Documents from loopback allowed (development), a one-second fetch limit, 2 KiB documents at most."""
    server = Server(config={"client_metadata_documents": {"enabled": True, "allow_private_addresses": True, "timeout": 1, "max_bytes": 2048}})
    server.add_user("alice", PASSWORD)
    yield server
    server.stop()


def test_a_client_known_by_its_document_signs_a_person_in_after_consent(development, documents):
    client_id = documents + "/good"
    metadata = requests.get(development.issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert metadata["client_id_metadata_document_supported"] is True

    browser = Browser(development)
    page = browser.sign_in(authorize_url(development, client_id=client_id, redirect_uri=REDIRECT, scope="openid profile"), "alice", PASSWORD)
    assert page.status_code == 200 and "Allow Documented Agent access?" in page.text, page.text
    assert 'href="https://agent.example/"' in page.text
    form = forms(page.text)[0]
    code = redirect_parameters(browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"}))["code"]
    tokens = requests.post(development.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                                               "client_id": client_id, "code_verifier": RFC7636_VERIFIER}, timeout=10)
    assert tokens.status_code == 200 and tokens.json()["scope"] == "openid profile", tokens.text

    # Cached for its max-age: the next sign-in does not fetch it again.
    again = browser.get(authorize_url(development, client_id=client_id, redirect_uri=REDIRECT, scope="openid profile"))
    assert again.status_code in (302, 303) and "code" in redirect_parameters(again)
    assert Documents.fetched["/good"] == 1
    listed = json.loads(development.cli("clients", "list", "--json").stdout)
    assert next(client for client in listed if client["id"] == client_id)["third_party"]
    # A redirect URI the document does not list is refused like any other.
    wrong = Browser(development).get(authorize_url(development, client_id=client_id, redirect_uri="http://127.0.0.1:9/elsewhere"))
    assert wrong.status_code == 400 and "redirect URI is missing or is not registered" in wrong.text


def test_a_document_client_with_keys_proves_itself_with_an_assertion(development, documents):
    client_id = documents + "/keyed"
    browser = Browser(development)
    page = browser.sign_in(authorize_url(development, client_id=client_id, redirect_uri=REDIRECT, scope="openid"), "alice", PASSWORD)
    form = forms(page.text)[0]
    code = redirect_parameters(browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"}))["code"]
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": development.issuer + "/token", "jti": str(uuid.uuid4()), "iat": now, "exp": now + 60}
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
    # Without the assertion, as a public client: refused; with one its keys (fetched from jwks_uri) verify: tokens.
    assert requests.post(development.issuer + "/token", data={**data, "client_id": client_id, "client_assertion_type": None},
                         timeout=10).status_code == 401
    answer = requests.post(development.issuer + "/token", data={**data, "client_assertion": jwt.encode({"alg": "ES256", "kid": "agent-1"}, claims,
                                                                                                      AGENT_KEY)}, timeout=10)
    assert answer.status_code == 200 and "access_token" in answer.json(), answer.text
    assert Documents.fetched["/keys.json"] == 1


@pytest.mark.parametrize("path, reason", [
    ("/mismatch", "client_id is not its own URL"),
    ("/large", "larger than 2048 bytes"),
    ("/slow", "did not arrive within 1 seconds"),
    ("/loop", "answered with a redirect (302)"),
    ("/not-json", "not a JSON object"),
    ("/confidential", "only a public client may register"),
])
def test_a_bad_document_is_refused_with_its_reason_without_hanging(development, documents, path, reason):
    started = time.monotonic()
    page = Browser(development).get(authorize_url(development, client_id=documents + path, redirect_uri=REDIRECT))
    assert time.monotonic() - started < 3.5
    assert page.status_code == 400 and "Unknown application" in page.text, page.text
    assert reason in page.text.replace("&#39;", "'"), page.text


def test_documents_on_private_addresses_are_refused_outside_development(documents):
    server = Server(config={"client_metadata_documents": {"enabled": True}})
    try:
        for client_id in [f"https://127.0.0.1:{documents.rsplit(':', 1)[1]}/good", "https://localhost/agent", "https://10.1.2.3/agent",
                          "https://[::1]/agent", "https://169.254.169.254/latest/meta-data"]:
            page = Browser(server).get(authorize_url(server, client_id=client_id, redirect_uri=REDIRECT))
            assert page.status_code == 400 and "private, loopback or link-local address" in page.text, (client_id, page.text)
        # Plain http is not a document URL at all outside development.
        page = Browser(server).get(authorize_url(server, client_id=documents + "/good", redirect_uri=REDIRECT))
        assert page.status_code == 400 and "No application is registered" in page.text
        assert Documents.fetched.get("/good", 0) <= 1  # only the development server's one fetch
    finally:
        server.stop()


def test_documents_are_off_unless_configured(server, documents):
    page = Browser(server).get(authorize_url(server, client_id=quote(documents + "/good", safe=":/"), redirect_uri=REDIRECT))
    assert page.status_code == 400 and "No application is registered" in page.text
    assert "client_id_metadata_document_supported" not in requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
