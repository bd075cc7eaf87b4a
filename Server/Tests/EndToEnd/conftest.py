import os

# authlib refuses plain http unless told; these tests only talk to loopback.
os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

import pytest

from gatehouse_harness import Server

PASSWORD = "correct horse battery staple"
WEB_SECRET = "web-client-secret-0123456789-abcdefghijklmnop"
ES_SECRET = "es256-client-secret-0123456789-abcdefghijklmno"
WEB_REDIRECT = "http://127.0.0.1:9/callback"
APP_REDIRECT = "com.example.app:/callback"


@pytest.fixture(scope="session")
def server():
    """One server for the suite, with a user, a confidential web client, an ES256 client and a public app."""
    instance = Server()
    try:
        instance.add_user("alice", PASSWORD, name="Alice Example")
        instance.add_client("web", WEB_REDIRECT, secret=WEB_SECRET,
                            extra=["--name", "Web App", "--post-logout-redirect-uri", "http://127.0.0.1:9/signed-out"])
        instance.add_client("es-web", WEB_REDIRECT, secret=ES_SECRET, extra=["--id-token-alg", "ES256"])
        instance.add_client("app", APP_REDIRECT, public=True)
        yield instance
    finally:
        instance.stop()
