"""Apache with mod_auth_openidc (the Debian package) as a relying party: it signs a person in with `private_key_jwt`
(its own RSA key, Gatehouse holding the public half) and, when the person's Gatehouse session ends, Gatehouse's
back-channel logout token ends its session too. A throwaway Apache on a loopback port, configured here."""
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc import jwk

from gatehouse_harness import PASSWORD, Browser, Server, free_port

APACHE = shutil.which("apache2") or "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"

pytestmark = pytest.mark.skipif(not (os.path.exists(APACHE) and os.path.exists(f"{MODULES}/mod_auth_openidc.so")),
                                reason="Apache with mod_auth_openidc is not installed (apt-get install apache2 libapache2-mod-auth-openidc)")


class ApacheRelyingParty:
    """Apache in the foreground with mod_auth_openidc protecting /protected/, authenticating to Gatehouse with a
    private key, and listening for back-channel logout at its redirect URI."""

    def __init__(self, issuer: str, client_id: str, key_pem: bytes, public_pem: bytes, port: int):
        self.port = port
        self.url = f"http://127.0.0.1:{self.port}"
        self.redirect_uri = self.url + "/protected/redirect_uri"
        self.folder = tempfile.mkdtemp(prefix="gatehouse-apache-")
        os.chmod(self.folder, 0o755)  # Apache's children run as www-data when started as root
        root = Path(self.folder)
        (root / "htdocs" / "protected").mkdir(parents=True)
        (root / "htdocs" / "protected" / "index.txt").write_text("the protected page\n")
        os.chmod(root / "htdocs", 0o755)
        os.chmod(root / "htdocs" / "protected", 0o755)
        (root / "rp.pem").write_bytes(key_pem)
        (root / "rp.pub.pem").write_bytes(public_pem)
        user = "User www-data\nGroup www-data\n" if os.geteuid() == 0 else ""
        modules = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "auth_openidc"]
        (root / "httpd.conf").write_text("\n".join(f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in modules) + f"""
ServerRoot {self.folder}
ServerName 127.0.0.1
Listen 127.0.0.1:{self.port}
PidFile {self.folder}/httpd.pid
ErrorLog {self.folder}/error.log
LogLevel warn auth_openidc:info
DocumentRoot {self.folder}/htdocs
TypesConfig /etc/mime.types
{user}
OIDCProviderMetadataURL {issuer}/.well-known/openid-configuration
OIDCClientID {client_id}
# The keys before the method: mod_auth_openidc offers private_key_jwt only once it has a private key, and 2.4.12
# reads the public half too when it signs.
OIDCPrivateKeyFiles rp-1#{self.folder}/rp.pem
OIDCPublicKeyFiles rp-1#{self.folder}/rp.pub.pem
OIDCProviderTokenEndpointAuth private_key_jwt
OIDCRedirectURI {self.redirect_uri}
OIDCCryptoPassphrase {os.urandom(16).hex()}
OIDCScope "openid"
OIDCPKCEMethod S256
OIDCSessionType server-cache
OIDCCacheType shm

<Location /protected/>
    AuthType openid-connect
    Require valid-user
</Location>
""")
        self.process = subprocess.Popen([APACHE, "-f", str(root / "httpd.conf"), "-DFOREGROUND"], stdout=subprocess.DEVNULL,
                                        stderr=open(root / "stderr.txt", "w"))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                requests.get(self.url + "/", timeout=1)
                return
            except requests.ConnectionError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        raise AssertionError("Apache did not start: " + self.log())

    def log(self) -> str:
        root = Path(self.folder)
        return "".join(path.read_text() for path in [root / "stderr.txt", root / "error.log"] if path.exists())

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def apache(tmp_path_factory):
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    public_pem = private_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    public = jwk.RSAKey.import_key(pem).as_dict(private=False)
    keys = tmp_path_factory.mktemp("apache-keys") / "keys.json"
    keys.write_text(json.dumps({"keys": [{**public, "kid": "rp-1", "use": "sig", "alg": "RS256"}]}))
    server = Server()
    server.add_user("alice", PASSWORD)
    relying_party = None
    try:
        # Registered before Apache starts: its redirect URI names the port it will listen on.
        port = free_port()
        redirect = f"http://127.0.0.1:{port}/protected/redirect_uri"
        server.cli("clients", "add", "apache", "--auth-method", "private_key_jwt", "--jwks-file", str(keys), "--redirect-uri", redirect,
                   "--backchannel-logout-uri", redirect + "?logout=backchannel", "--scope", "openid")
        relying_party = ApacheRelyingParty(server.issuer, "apache", pem, public_pem, port)
        yield server, relying_party
    finally:
        if relying_party:
            relying_party.stop()
        server.stop()


def test_mod_auth_openidc_signs_in_with_private_key_jwt_and_hears_back_channel_logout(apache):
    server, relying_party = apache
    browser = Browser(server)
    first = browser.session.get(relying_party.url + "/protected/index.txt", allow_redirects=False, timeout=10)
    assert first.status_code == 302 and first.headers["Location"].startswith(server.issuer + "/authorize"), first.text
    page = browser.get(first.headers["Location"])
    answer = browser.submit_login(page, "alice", PASSWORD)
    assert answer.headers["Location"].startswith(relying_party.redirect_uri), answer.headers
    # Back at Apache: it redeems the code with a private_key_jwt assertion, then shows the page.
    try:
        callback = browser.session.get(answer.headers["Location"], allow_redirects=False, timeout=20)
    except requests.ConnectionError as error:
        raise AssertionError(f"Apache dropped the callback: {relying_party.log()}") from error
    assert callback.status_code == 302, callback.text + relying_party.log()
    shown = browser.session.get(urljoin(relying_party.url, callback.headers["Location"]), allow_redirects=False, timeout=10)
    assert shown.status_code == 200 and shown.text == "the protected page\n", shown.text + relying_party.log()

    # The person signs out everywhere at Gatehouse (an operator ends the session): the logout token reaches Apache.
    for session in json.loads(server.cli("users", "sessions", "alice", "--json").stdout)["sessions"]:
        server.cli("users", "sessions", "alice", "--end", session["id"])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        again = browser.session.get(relying_party.url + "/protected/index.txt", allow_redirects=False, timeout=10)
        if again.status_code == 302:
            break
        time.sleep(0.2)
    assert again.status_code == 302 and again.headers["Location"].startswith(server.issuer + "/authorize"), relying_party.log()
    notified = [json.loads(line) for line in server.cli("events", "--type", "logout.notified", "--jsonl").stdout.splitlines()]
    assert [event["client_id"] for event in notified] == ["apache"]
