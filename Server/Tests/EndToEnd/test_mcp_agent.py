"""An AI agent's client nobody here wrote — the official MCP Python SDK with its OAuth client — reaches a small MCP server
protected by Gatehouse (`mcp_notes_server.py`, the same SDK's server side validating Gatehouse's JWT access tokens with
joserfc). The client finds the authorization server from the MCP server's protected-resource metadata (RFC 9728),
reads Gatehouse's authorization server metadata (RFC 8414), registers itself (RFC 7591, open registration), sends the
person through the hosted sign-in page in headless Chromium with PKCE and `resource` (RFC 8707), the person consents
to the notes server, and the tool call succeeds with a token whose audience is that server. A token for another
resource, or one for Gatehouse itself, is refused by the MCP server."""
import asyncio
import json
import os
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from joserfc import jwt
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_steps import page_node, press
from gatehouse_harness import PASSWORD, Server, free_port, key_set

mcp = pytest.importorskip("mcp", reason="the MCP Python SDK is not installed (pip install mcp)")
from mcp import ClientSession  # noqa: E402
from mcp.client.auth import OAuthClientProvider, TokenStorage  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken  # noqa: E402

WORKER_SECRET = "mcp-worker-secret-0123456789-abcdefghijklmno"
OTHER = "https://other.example.com/api"


@pytest.fixture(scope="module")
def agent_world():
    """Gatehouse with open registration, the MCP server registered as a resource, and the MCP server running."""
    server = Server(config={"dynamic_registration": {"enabled": True, "open": True}})
    port = free_port()
    mcp_url = f"http://127.0.0.1:{port}/mcp"
    notes = None
    try:
        server.add_user("agent-owner", PASSWORD)
        server.cli("resources", "add", mcp_url, "--name", "Notes MCP", "--scope", "notes:read=Read your notes")
        server.add_client("worker", "https://worker.example/cb", secret=WORKER_SECRET)
        server.cli("resources", "add", OTHER, "--name", "Other API", "--client", "worker", "--scope", "other:use=Use the other API")
        here = os.path.dirname(os.path.abspath(__file__))
        notes = subprocess.Popen([sys.executable, os.path.join(here, "mcp_notes_server.py"), server.issuer, str(port)],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        metadata_url = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(metadata_url, timeout=2).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            if notes.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the MCP server did not start: {notes.stdout.read() if notes.poll() is not None else 'timeout'}")
            time.sleep(0.2)
        yield server, mcp_url
    finally:
        if notes:
            notes.terminate()
            notes.wait(timeout=10)
        server.stop()


class MemoryStorage(TokenStorage):
    """Where the MCP client keeps its registration and tokens: here, in memory."""

    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def test_an_mcp_client_registers_signs_in_with_consent_and_calls_a_tool(agent_world, chromium):
    server, mcp_url = agent_world
    callback = f"http://127.0.0.1:{free_port()}/callback"
    seen = {}

    def browse(authorization_url):
        """The person: signs in on the hosted page, reads the consent page, allows the agent."""
        seen["authorization"] = parse_qs(urlparse(authorization_url).query)
        chromium.get(authorization_url)
        chromium.find_element(By.ID, "username").send_keys("agent-owner")
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")
        assert page_node(chromium) == "consent", chromium.current_url
        seen["consent"] = chromium.find_element(By.TAG_NAME, "main").text
        chromium.find_element(By.CSS_SELECTOR, "button[name=action][value=submit]").click()
        WebDriverWait(chromium, 20).until(lambda driver: driver.current_url.startswith(callback))
        seen["callback"] = parse_qs(urlparse(chromium.current_url).query)

    async def redirect(authorization_url):
        await asyncio.to_thread(browse, authorization_url)

    async def answered():
        parameters = seen["callback"]
        return AuthorizationCodeResult(code=parameters["code"][0], state=parameters.get("state", [None])[0], iss=parameters.get("iss", [None])[0])

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(client_name="Notes Agent", redirect_uris=[callback], token_endpoint_auth_method="none",
                                            grant_types=["authorization_code", "refresh_token"]),
        storage=storage, redirect_handler=redirect, callback_handler=answered)

    async def use_the_tool():
        async with create_mcp_http_client(auth=provider) as http:
            async with streamable_http_client(mcp_url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    result = await session.call_tool("read_note", {"title": "groceries"})
                    return [tool.name for tool in tools.tools], result

    names, result = asyncio.run(asyncio.wait_for(use_the_tool(), timeout=120))
    assert "read_note" in names
    assert not result.is_error and "remember the milk" in result.content[0].text, result

    # How it got there: the resource and PKCE on the authorization request, the consent page naming the server.
    authorization = seen["authorization"]
    assert authorization["resource"] == [mcp_url] and authorization["code_challenge_method"] == ["S256"]
    assert "notes:read" in authorization["scope"][0].split()
    assert "Notes Agent" in seen["consent"] and "Notes MCP: Read your notes" in seen["consent"] and "Use Notes MCP as you" in seen["consent"]
    # Registered by itself: a public third-party client the operator sees as such, with the consent recorded.
    client_id = storage.client_info.client_id
    listed = json.loads(server.cli("clients", "list", "--json").stdout)
    registered = next(client for client in listed if client["id"] == client_id)
    assert registered["third_party"] and registered["type"] == "public" and registered["redirect_uris"] == [callback]
    events = [event["type"] for event in json.loads(server.cli("events", "--json", "--limit", "200").stdout) if event.get("client_id") == client_id]
    assert {"client.registered", "consent.granted"} <= set(events), events
    # The token the agent holds: a JWT for the MCP server only.
    claims = jwt.decode(storage.tokens.access_token, key_set(server)).claims
    assert claims["aud"] == mcp_url and claims["client_id"] == client_id and "notes:read" in claims["scope"].split()


def test_the_mcp_server_refuses_tokens_for_anything_else(agent_world):
    server, mcp_url = agent_world
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    unauthenticated = requests.post(mcp_url, json=initialize, headers=headers, timeout=10)
    assert unauthenticated.status_code == 401
    challenge = unauthenticated.headers["WWW-Authenticate"]
    assert "resource_metadata=" in challenge, challenge
    metadata = requests.get(challenge.split('resource_metadata="')[1].split('"')[0], timeout=10).json()
    assert metadata["resource"] == mcp_url and metadata["authorization_servers"][0].rstrip("/") == server.issuer

    # A valid Gatehouse JWT, but for another API: refused.
    other = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "resource": OTHER, "scope": "other:use"},
                          auth=("worker", WORKER_SECRET), timeout=10)
    assert other.status_code == 200, other.text
    refused = requests.post(mcp_url, json=initialize, headers={**headers, "Authorization": f"Bearer {other.json()['access_token']}"}, timeout=10)
    assert refused.status_code == 401, refused.text
    # Gatehouse's own opaque token: not a JWT for this server either.
    own = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials"}, auth=("worker", WORKER_SECRET), timeout=10)
    assert own.status_code == 200, own.text
    assert requests.post(mcp_url, json=initialize, headers={**headers, "Authorization": f"Bearer {own.json()['access_token']}"},
                         timeout=10).status_code == 401
