"""Starts real `gatehouse` processes on loopback and drives them like a browser and an operator would."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import uuid
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import requests
from joserfc import jwk, jws, jwt
from joserfc.jwk import KeySet

ROOT = Path(__file__).resolve().parents[2]


def binary() -> str:
    path = os.environ.get("GATEHOUSE_BINARY") or str(ROOT / ".build" / "debug" / "gatehouse")
    if not Path(path).exists():
        raise RuntimeError(f"{path} does not exist; build it with `swift build --package-path Server` first")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def closed_port() -> socket.socket:
    """A loopback port that refuses every connection for as long as the returned socket is open.

    Bound but never listening, so no other process can take the port while a test counts on nothing answering there
    (a port from `free_port` may be reused by a later server under a parallel run)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


# The accounts and clients the suite registers.
PASSWORD = "correct horse battery staple"
WEB_SECRET = "web-client-secret-0123456789-abcdefghijklmnop"
ES_SECRET = "es256-client-secret-0123456789-abcdefghijklmno"
WEB_REDIRECT = "http://127.0.0.1:9/callback"
APP_REDIRECT = "com.example.app:/callback"

# The code verifier and S256 challenge of RFC 7636 Appendix B.
RFC7636_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC7636_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

POSTGRES_URL = os.environ.get("GATEHOUSE_TEST_POSTGRES_URL")
SHARED_SECRET = "end-to-end-shared-server-secret-0123456789"


def fresh_postgres_database() -> str:
    """Creates an empty database on the test PostgreSQL server and returns its URL."""
    assert POSTGRES_URL, "GATEHOUSE_TEST_POSTGRES_URL is not set"
    name = "gatehouse_e2e_" + os.urandom(6).hex()
    subprocess.run(["psql", POSTGRES_URL, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=60)
    parsed = urlparse(POSTGRES_URL)
    return parsed._replace(path="/" + name).geturl()


@contextlib.contextmanager
def balanced_nodes(engine: str, prepare, config: dict | None = None, shared_issuer: bool = True):
    """One node on SQLite; on PostgreSQL two nodes sharing a fresh database behind one imagined load balancer: the
    second serves the first's issuer (which DPoP proofs name in `htu`), or its own with `shared_issuer=False`.
    `prepare` registers users and clients once."""
    config = config or {}
    if engine == "postgres":
        url = fresh_postgres_database()
        first = Server(database_url=url, owns_database=True, config=config)
        prepare(first)
        started = [first, Server(database_url=url, config={**config, "issuer": first.issuer} if shared_issuer else config)]
    else:
        first = Server(config=config)
        prepare(first)
        started = [first]
    try:
        yield started
    finally:
        for node in reversed(started):
            node.stop()


def drop_postgres_database(url: str) -> None:
    name = urlparse(url).path.lstrip("/")
    subprocess.run(["psql", POSTGRES_URL, "-q", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True, timeout=60)


class PostgresInstance:
    """A PostgreSQL server of a test's own (initdb in a temporary folder, loopback only, as a non-root user), which the
    test may stop and start again: what the shared test server must not be made to do."""

    def __init__(self):
        import glob
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            raise RuntimeError("no PostgreSQL server is installed (apt-get install postgresql)")
        self.bin = bins[-1]
        self.folder = tempfile.mkdtemp(prefix="gatehouse-pg-")
        os.chmod(self.folder, 0o755)
        self.run_as = []
        if os.getuid() == 0:
            user = "postgres"
            if subprocess.run(["id", "-u", user], capture_output=True).returncode != 0:
                user = "nobody"
            subprocess.run(["chown", user, self.folder], check=True)
            self.run_as = ["runuser", "-u", user, "--"]
        self.port = free_port()
        self._run("initdb", "-D", self.folder + "/data", "-U", "gatehouse", "--auth=trust", "-E", "UTF8", "--no-instructions")
        self.start()
        self.url = f"postgres://gatehouse@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([*self.run_as, f"{self.bin}/{tool}", *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run("pg_ctl", "-D", self.folder + "/data", "-l", self.folder + "/server.log", "-w", "-t", "60",
                  "-o", f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off -c max_connections=200", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", self.folder + "/data", "-m", "fast", "-w", "stop")

    def create_database(self) -> str:
        name = "gatehouse_" + os.urandom(6).hex()
        subprocess.run(["psql", self.url, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=60)
        return urlparse(self.url)._replace(path="/" + name).geturl()

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            self.stop()
        subprocess.run(["rm", "-rf", self.folder], check=False)


class Server:
    """One `gatehouse serve` process with its own database: a SQLite file in a temporary folder, or a
    PostgreSQL database URL (several servers may share one, as nodes behind a load balancer)."""

    def __init__(self, *, demo: bool = False, config: dict | None = None, database_url: str | None = None,
                 owns_database: bool = False, open_files: int | None = None, host_name: str = "127.0.0.1", env: dict | None = None):
        """`host_name="localhost"` puts the issuer on localhost, as passkeys need (browsers refuse IP addresses);
        `env` adds environment variables for the process."""
        self.env = env
        self.folder = tempfile.TemporaryDirectory(prefix="gatehouse-e2e-")
        self.port = free_port()
        self.issuer = f"http://{host_name}:{self.port}"
        self.database = database_url or os.path.join(self.folder.name, "gatehouse.sqlite")
        self.owns_database = owns_database
        settings = {
            # Cheaper scrypt than the production default keeps the suite fast; the format is the same.
            "password_hashing": {"log_n": 12, "block_size": 8, "parallelism": 1},
            "token_lifetimes": {"authorization_code": 5},
            "login_throttling": {"max_failures": 5, "window": 900, "cooldown": 300},
            # Chosen explicitly: `serve` refuses to fall back to the development outbox on its own.
            "courier": {"email": {"delivery": "outbox"}, "sms": {"delivery": "outbox"}},
        }
        if host_name != "127.0.0.1":
            settings["issuer"] = self.issuer
        if database_url:
            settings["secret"] = SHARED_SECRET  # every node must share the server secret
        settings.update(config or {})
        settings = {key: value for key, value in settings.items() if value is not None}
        self.config_path = os.path.join(self.folder.name, "config.json")
        Path(self.config_path).write_text(json.dumps(settings))
        self.demo = demo
        self.open_files = open_files  # soft and hard RLIMIT_NOFILE of the process, when a test needs a small one
        self.stdout_path = os.path.join(self.folder.name, "stdout.txt")
        self.stderr_path = os.path.join(self.folder.name, "stderr.txt")
        self._launch()

    def _launch(self) -> None:
        args = [binary(), "serve", "--config", self.config_path, "--database", self.database, "--port", str(self.port)]
        if self.demo:
            args.append("--demo")
        def limit_open_files():
            import resource
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))
        self.process = subprocess.Popen(args, stdout=open(self.stdout_path, "w"), stderr=open(self.stderr_path, "w"),
                                        stdin=subprocess.DEVNULL, preexec_fn=limit_open_files if self.open_files else None,
                                        env=dict(os.environ, **self.env) if self.env else None)
        self._wait_until_ready()

    def restart(self) -> None:
        """Stops the process gracefully and starts it again on the same database and configuration."""
        with self.stopped():
            pass

    @contextlib.contextmanager
    def stopped(self):
        """Stops the process gracefully for the block's length (its database stays), then starts it again."""
        self.process.terminate()
        self.process.wait(timeout=20)
        try:
            yield
        finally:
            self._launch()

    def _wait_until_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gatehouse exited early:\n{self.stderr()}")
            try:
                if requests.get(self.issuer + "/health/ready", timeout=2).status_code == 200:
                    if "Gatehouse is running" in self.stdout():
                        return
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gatehouse did not become ready in {timeout}s:\n{self.stderr()}")

    def stdout(self) -> str:
        return Path(self.stdout_path).read_text()

    def stderr(self) -> str:
        return Path(self.stderr_path).read_text()

    def cli(self, *args: str, stdin: str | None = None, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
        """Runs a `gatehouse` command against this server's database and configuration."""
        return gatehouse(*args, "--database", self.database, "--config", self.config_path, stdin=stdin, check=check, timeout=timeout)

    def add_user(self, username: str, password: str, email: str | None = None, name: str | None = None) -> None:
        args = ["users", "add", username, "--email", email or f"{username}@example.com", "--password-stdin"]
        if name:
            args += ["--name", name]
        self.cli(*args, stdin=password)

    def add_client(self, client_id: str, redirect_uri: str, *, secret: str | None = None, public: bool = False,
                   extra: list[str] | None = None) -> None:
        args = ["clients", "add", client_id, "--redirect-uri", redirect_uri]
        if public:
            args.append("--public")
        else:
            args.append("--secret-stdin")
        self.cli(*args, *(extra or []), stdin=secret)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if self.owns_database and self.database.startswith("postgres"):
            drop_postgres_database(self.database)
        self.folder.cleanup()


class ReverseProxy:
    """A real nginx in front of a server, as in a production deployment: it listens on its own loopback port, passes
    requests to the server from 127.0.0.1 and appends each client's address to X-Forwarded-For."""

    def __init__(self, server: Server):
        self.folder = tempfile.TemporaryDirectory(prefix="gatehouse-nginx-")
        os.chmod(self.folder.name, 0o777)  # nginx's workers run as another user when started by root
        self.port = free_port()
        # Where clients reach the server, as an issuer behind a proxy would be.
        self.issuer = f"http://127.0.0.1:{self.port}"
        temp = {name: os.path.join(self.folder.name, name) for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
        config = f"""
daemon off;
worker_processes 1;
pid {self.folder.name}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://127.0.0.1:{server.port};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }}
    }}
}}
"""
        config_path = os.path.join(self.folder.name, "nginx.conf")
        Path(config_path).write_text(config)
        self.process = subprocess.Popen(["nginx", "-c", config_path, "-p", self.folder.name], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited early: {self.process.stderr.read().decode()}")
            try:
                if requests.get(self.issuer + "/health/ready", timeout=2).status_code == 200:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("nginx did not start in 20 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.folder.cleanup()


def gatehouse(*args: str, stdin: str | None = None, check: bool = True, env: dict | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs the `gatehouse` tool; with `check`, a non-zero exit fails the test with its error output."""
    result = subprocess.run([binary(), *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                            env=None if env is None else dict(os.environ, **env))
    if check and result.returncode != 0:
        raise AssertionError(f"gatehouse {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result


class FormParser(HTMLParser):
    """Collects the forms and inputs of a page, as a browser would see them."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attributes.get("action"), "method": attributes.get("method"), "inputs": {}, "fields": []})
        elif tag in ("input", "button") and self.forms:
            self.forms[-1]["fields"].append(attributes)
            if attributes.get("name") and attributes.get("value") is not None and tag == "input":
                self.forms[-1]["inputs"][attributes["name"]] = attributes["value"]


def form_token(html: str) -> str:
    """The CSRF token the first form of a page carries."""
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no form with a token"
    return match.group(1)


def forms(html: str) -> list[dict]:
    parser = FormParser()
    parser.feed(html)
    return parser.forms


class Browser:
    """A cookie-keeping HTTP client that follows redirects on the server's own origin only,
    so the redirect back to the client can be inspected instead of followed."""

    def __init__(self, server: Server):
        self.server = server
        self.session = requests.Session()

    def get(self, url: str) -> requests.Response:
        return self._follow(self.session.get(url, allow_redirects=False, timeout=10))

    def post(self, url: str, data: dict) -> requests.Response:
        return self._follow(self.session.post(url, data=data, allow_redirects=False, timeout=30))

    def _follow(self, response: requests.Response) -> requests.Response:
        for _ in range(10):
            location = response.headers.get("Location")
            if response.status_code not in (301, 302, 303, 307, 308) or not location:
                return response
            target = urljoin(response.url, location)
            if not target.startswith(self.server.issuer):
                return response  # leaving Gatehouse: stop, the caller reads the redirect
            response = self.session.get(target, allow_redirects=False, timeout=10)
        raise AssertionError("too many redirects")

    def sign_in(self, authorization_url: str, username: str, password: str) -> requests.Response:
        """Opens the authorization URL, fills the sign-in form, and returns the response that leaves Gatehouse."""
        page = self.get(authorization_url)
        if page.status_code in (301, 302, 303):
            return page  # already signed in (single sign-on)
        assert page.status_code == 200, page.text
        return self.submit_login(page, username, password)

    def submit_login(self, page: requests.Response, username: str, password: str) -> requests.Response:
        form = forms(page.text)[0]
        data = dict(form["inputs"])
        data.update({"username": username, "password": password})
        return self.post(urljoin(page.url, form["action"]), data)


def redirect_parameters(response: requests.Response) -> dict[str, str]:
    location = response.headers["Location"]
    return {key: values[0] for key, values in parse_qs(urlparse(location).query).items()}


def error_of(response: requests.Response) -> str | None:
    try:
        return response.json().get("error")
    except ValueError:
        return None


def hidden_text(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}">(.*?)</pre>', html, re.S)
    assert match, f"no element {element_id} in page"
    import html as html_module
    return html_module.unescape(match.group(1))


_openapi_documents: dict = {}


def conforms_to_openapi(server: Server, response: requests.Response) -> requests.Response:
    """Validates a real response (status, headers, JSON body) against the OpenAPI document the server serves."""
    from openapi_core import OpenAPI
    from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse
    if server.issuer not in _openapi_documents:
        document = requests.get(server.issuer + "/openapi.json", timeout=10)
        assert document.status_code == 200 and document.headers["Content-Type"] == "application/json"
        _openapi_documents[server.issuer] = OpenAPI.from_dict(document.json())
    _openapi_documents[server.issuer].validate_response(RequestsOpenAPIRequest(response.request), RequestsOpenAPIResponse(response))
    return response


def conforms_to_admin_openapi(server: Server, response: requests.Response) -> requests.Response:
    """Validates a real response of the admin API against the admin OpenAPI document the server serves."""
    return conforms_to_document(server, response, "/openapi/admin.json")


def conforms_to_document(server: Server, response: requests.Response, document: str) -> requests.Response:
    """Validates a real response against the OpenAPI document the server serves at `document`."""
    from openapi_core import Config, OpenAPI
    from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse
    key = server.issuer + document
    if key not in _openapi_documents:
        # Problem details are JSON too (RFC 9457's application/problem+json).
        config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
        _openapi_documents[key] = OpenAPI.from_dict(requests.get(key, timeout=10).json(), config=config)
    _openapi_documents[key].validate_response(RequestsOpenAPIRequest(response.request), RequestsOpenAPIResponse(response))
    return response


class _SourceAddressAdapter(requests.adapters.HTTPAdapter):
    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def session_from(address: str) -> requests.Session:
    """An HTTP session whose connections come from `address` (any 127.x.y.z is this machine's loopback), so tests can
    play clients at different addresses, as the per-source attempt limits see them."""
    session = requests.Session()
    session.mount("http://", _SourceAddressAdapter(address))
    return session



# Clients of the server's endpoints, shared by the test modules.

NEW_PASSWORD = "a long and unusual passphrase 42"


CODE_PATTERN = re.compile(r"Enter this code in the app: ([A-Za-z0-9_-]{22,})")


def metadata(server):
    return requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()


def key_set(server) -> KeySet:
    return KeySet.import_key_set(requests.get(metadata(server)["jwks_uri"], timeout=10).json())


def verify_id_token(server, token: dict, client_id: str, nonce: str | None, algorithm: str) -> dict:
    """Verifies an ID token as OpenID Connect Core §3.1.3.7 asks, with joserfc (authlib's JOSE library)."""
    decoded = jwt.decode(token["id_token"], key_set(server), algorithms=[algorithm])
    registry = jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": server.issuer},
        aud={"essential": True, "value": client_id},
        sub={"essential": True}, exp={"essential": True}, iat={"essential": True}, auth_time={"essential": True},
        nonce={"essential": True, "value": nonce} if nonce else {"essential": False},
    )
    registry.validate(decoded.claims)
    assert decoded.claims["azp"] == client_id
    return decoded.claims


def authorize_url(server, **overrides) -> str:
    parameters = {
        "response_type": "code", "client_id": "web", "redirect_uri": WEB_REDIRECT, "scope": "openid profile offline_access",
        "state": "s-123", "nonce": "n-456", "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256",
    }
    parameters.update(overrides)
    return server.issuer + "/authorize?" + urlencode({k: v for k, v in parameters.items() if v is not None})


def get_code(server, browser=None, **overrides) -> str:
    response = (browser or Browser(server)).sign_in(authorize_url(server, **overrides), "alice", PASSWORD)
    parameters = redirect_parameters(response)
    assert "code" in parameters, parameters
    return parameters["code"]


def redeem(server, code, verifier=RFC7636_VERIFIER, auth=("web", WEB_SECRET), redirect_uri=WEB_REDIRECT, **extra):
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
    if verifier:
        data["code_verifier"] = verifier
    data.update(extra)
    return requests.post(server.issuer + "/token", data=data, auth=auth, timeout=10)


def refresh(server, refresh_token, auth=("web", WEB_SECRET)):
    return requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token},
                         auth=auth, timeout=10)


def start(server, client_id="app", **overrides):
    body = {"client_id": client_id, "redirect_uri": APP_REDIRECT, "scope": "openid profile offline_access", "state": "st",
            "nonce": "nn", "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    body.update(overrides)
    response = requests.post(server.issuer + "/flows/login", json={k: v for k, v in body.items() if v is not None}, timeout=10)
    return conforms_to_openapi(server, response)


def submit(server, flow_id, values, client_id="app", action="submit"):
    response = requests.post(f"{server.issuer}/flows/{flow_id}", json={"client_id": client_id, "action": action, "values": values}, timeout=30)
    return conforms_to_openapi(server, response)


def exchange(server, code, client_id="app"):
    return requests.post(server.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "client_id": client_id,
                                                         "redirect_uri": APP_REDIRECT, "code_verifier": RFC7636_VERIFIER}, timeout=10)


def begin(server, kind, client_id="app"):
    """Starts a registration or recovery flow with the same authorization parameters as `start` (a login)."""
    body = {"client_id": client_id, "redirect_uri": APP_REDIRECT, "scope": "openid profile offline_access", "state": "st",
            "nonce": "nn", "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    response = conforms_to_openapi(server, requests.post(f"{server.issuer}/flows/{kind}", json=body, timeout=10))
    assert response.status_code == 200, response.text
    return response.json()


def outbox(server, to):
    """The messages to `to`, newest first, as `gatehouse outbox --json` prints them."""
    return json.loads(server.cli("outbox", "--to", to, "--json", "--limit", "50").stdout)


def latest_code(server, to, after=0):
    """The code in the newest message to `to`, waiting briefly for it; `after` is how many messages were there before."""
    for _ in range(50):
        messages = outbox(server, to)
        if len(messages) > after:
            found = re.search(r"\b([0-9A-Z]{5}-[0-9A-Z]{5}|\d{6})\b", messages[0]["body"])
            assert found, messages[0]
            return found.group(1)
        time.sleep(0.1)
    raise AssertionError(f"no message to {to}")


def authenticator(home, *args, stdin=None, check=True):
    return gatehouse("authenticator", *args, "--home", str(home), stdin=stdin, check=check)


# DPoP proofs (RFC 9449), made with joserfc: used by the DPoP and pushed-request modules.
DPOP_ALGORITHMS = ["ES256", "EdDSA", "Ed25519", "PS256", "RS256"]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DPoPHolder:
    """A client's DPoP key and the proofs it makes (RFC 9449 §4.2), signed by joserfc."""

    def __init__(self, algorithm="ES256"):
        self.algorithm = algorithm
        self.key = {"ES256": lambda: jwk.ECKey.generate_key("P-256"), "EdDSA": lambda: jwk.OKPKey.generate_key("Ed25519"),
                    "Ed25519": lambda: jwk.OKPKey.generate_key("Ed25519"),
                    "PS256": lambda: jwk.RSAKey.generate_key(2048), "RS256": lambda: jwk.RSAKey.generate_key(2048)}[algorithm]()

    @property
    def thumbprint(self) -> str:
        return self.key.thumbprint()

    def proof(self, method, url, access_token=None, nonce=None, header=None, claims=None, key=None, algorithm=None):
        body = {"jti": str(uuid.uuid4()), "htm": method, "htu": url, "iat": int(time.time())}
        if access_token:
            body["ath"] = b64url(hashlib.sha256(access_token.encode()).digest())
        if nonce:
            body["nonce"] = nonce
        body.update(claims or {})
        protected = {"typ": "dpop+jwt", "alg": algorithm or self.algorithm, "jwk": self.key.as_dict(private=False)}
        protected.update(header or {})
        return jws.serialize_compact(protected, json.dumps(body).encode(), key or self.key, algorithms=DPOP_ALGORITHMS + ["HS256"])


def show_qr_code(server, browser: Browser):
    """Opens the demo, signs in with the app: returns the page showing the QR code, its flow id and its payload."""
    page = browser.get(server.issuer + "/demo/login")
    assert page.status_code == 200 and "Sign in with the app" in page.text, page.text
    form = forms(page.text)[0]
    shown = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="app"))
    assert shown.status_code == 200 and 'data-node="login.app"' in shown.text, shown.text
    assert "<svg" in shown.text
    code = CODE_PATTERN.search(html.unescape(shown.text)).group(1)
    return shown, forms(shown.text)[0]["inputs"]["flow"], f"{server.issuer}/authenticator#{code}"
