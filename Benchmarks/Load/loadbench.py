"""The load benchmark: a release build of `gatehouse serve` on loopback with a fresh database, seeded users and
clients, driven by wrk (simple requests) and by a bounded pool of Python threads (multi-step sign-ins, which
cost a password hash each and so need few connections). Prints a table and writes JSON.

    scripts/benchmark-load                      # SQLite, 1,000 users, 10 s per scenario
    scripts/benchmark-load --scale              # also with 1,000,000 users and 10,000,000 stored tokens
    GATEHOUSE_POSTGRES_DURABLE=1 scripts/with-postgres scripts/benchmark-load --postgres-only --two-nodes --scale
    scripts/with-postgres scripts/benchmark-load --postgres
    GATEHOUSE_POSTGRES_DURABLE=1 scripts/with-postgres scripts/benchmark-load --postgres-only   # fsync and synchronous_commit on
    scripts/benchmark-load --metrics --against OLD/gatehouse   # this build with metrics on against an earlier one
    scripts/benchmark-load --config '{"sqlite_synchronous": "full"}' --against "$GATEHOUSE_BINARY"   # a setting's cost
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import http.client
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Server" / "Tests" / "EndToEnd"))
from gatehouse_harness import POSTGRES_URL, Server, binary, fresh_postgres_database  # noqa: E402

PASSWORD = "benchmark passphrase 2026"
REDIRECT = "dev.gatehouse.bench:/callback"
VERIFIER = "bench-verifier-" + "x" * 40
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).decode().rstrip("=")
SERVICE_SECRET = "bench-service-secret-0123456789abcdefghijklmnop"
JWT_APIS = {"https://rs256.bench.example": "RS256", "https://es256.bench.example": "ES256"}
OPAQUE_API = "https://opaque.bench.example"
WRK_SCRIPTS = Path(__file__).resolve().parent / "wrk"


def phc_scrypt(password: str, log_n: int = 17) -> str:
    """The hash Gatehouse stores, made once by Python's hashlib so a million users import in seconds."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2 ** log_n, r=8, p=1, dklen=32, maxmem=2 ** 30)
    b64 = lambda raw: base64.b64encode(raw).decode().rstrip("=")
    return f"$scrypt$ln={log_n},r=8,p=1${b64(salt)}${b64(digest)}"


def raw_hash_rate(seconds: float, log_n: int) -> float:
    """Password hashes per second on every core at the server's parameters, by `gatehouse hash-rate` (the same
    hasher the server runs), with nothing else running: the ceiling for sign-ins."""
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps({"password_hashing": {"log_n": log_n, "block_size": 8, "parallelism": 1}}))
        output = subprocess.run([binary(), "hash-rate", "--seconds", str(seconds), "--json", "--config", str(config),
                                 "--database", str(Path(folder) / "unused.sqlite")], capture_output=True, text=True, check=True, timeout=600)
    return json.loads(output.stdout)["hashes_per_second"]


def signature_baseline(seconds: float) -> dict:
    """RSA-2048 signatures per second by OpenSSL's own `openssl speed`, on one core and on every core at once
    (`-multi`), next to what the server's signers make (`gatehouse sign-rate`), all with nothing else running: the
    ceiling of every grant that signs a token."""
    cores = os.cpu_count() or 1

    def openssl(processes: int) -> float:
        command = ["openssl", "speed", "-seconds", str(max(1, round(seconds)))] + (["-multi", str(processes)] if processes > 1 else []) + ["rsa2048"]
        output = subprocess.run(command, capture_output=True, text=True, timeout=600).stdout
        found = re.search(r"^rsa 2048 bits\s+\S+\s+\S+\s+([\d.]+)", output, re.MULTILINE)
        if not found:
            raise RuntimeError(f"openssl speed printed no RSA-2048 line:\n{output}")
        return float(found.group(1))

    measured = subprocess.run([binary(), "sign-rate", "--seconds", str(seconds), "--json"], capture_output=True, text=True,
                              check=True, timeout=600)
    return {"openssl_rsa2048_one_core": openssl(1), "openssl_rsa2048_every_core": openssl(cores), "cores": cores,
            "gatehouse": json.loads(measured.stdout)["signatures_per_second"]}


def signature_line(scenarios: dict, baseline: dict) -> str:
    """The token grants that sign, against the signature rates measured in the same run."""
    one, every, cores = baseline["openssl_rsa2048_one_core"], baseline["openssl_rsa2048_every_core"], baseline["cores"]
    signers = ", ".join(f"{name} {rate:.0f}/s" for name, rate in sorted(baseline["gatehouse"].items()))
    line = (f"signatures: openssl speed rsa2048 {one:.0f}/s on one core, {every:.0f}/s with -multi {cores}; "
            f"gatehouse sign-rate {signers}")
    if "refresh_token" in scenarios:
        rate = scenarios["refresh_token"]["requests_per_second"]
        line += (f"\nRS256 refresh {rate:.0f}/s = {rate / (cores * one):.2f} of {cores} cores × openssl speed rsa2048 (goal ≥ 0.85), "
                 f"{rate / every:.2f} of openssl -multi {cores}")
    es256_signature = cores * 1e6 / baseline["gatehouse"]["ES256"]  # µs of one core, as the server signs on every core
    refreshes = [scenarios.get(name, {}) for name in ("refresh_token", "refresh_token_es256")]
    if all("server_cpu_us" in figures for figures in refreshes):
        # What bounds the RS256 ratio whatever the driver costs: the signature against everything else a refresh does.
        signature, rest = 1e6 / one, refreshes[1]["server_cpu_us"] - es256_signature
        line += (f"\n  server CPU per RS256 refresh {refreshes[0]['server_cpu_us']:.0f} µs, an RSA-2048 signature {signature:.0f} µs of it "
                 f"(openssl speed, one core); the rest of a refresh (the ES256 one's {refreshes[1]['server_cpu_us']:.0f} µs less its "
                 f"{es256_signature:.0f} µs signature) {rest:.0f} µs: with {cores} cores to itself the server would reach "
                 f"{signature / (signature + rest):.2f} of {cores} × openssl speed")
    if "refresh_token_es256" in scenarios:
        line += f"\nES256 refresh {scenarios['refresh_token_es256']['requests_per_second']:.0f}/s (goal ≥ 8,000/s)"
    if all(name in scenarios for name in ("client_credentials_opaque_api", "client_credentials_jwt", "client_credentials_jwt_es256")):
        opaque = scenarios["client_credentials_opaque_api"]["requests_per_second"]
        rs256, es256 = scenarios["client_credentials_jwt"]["requests_per_second"], scenarios["client_credentials_jwt_es256"]["requests_per_second"]
        line += (f"\nJWT access tokens (client credentials for an API) / opaque ones {opaque:.0f}/s: ES256 {es256:.0f}/s = {es256 / opaque:.2f} (goal ≥ 0.8), "
                 f"RS256 {rs256:.0f}/s = {rs256 / opaque:.2f}; RS256 / the server's RS256 signing rate "
                 f"{rs256 / baseline['gatehouse']['RS256']:.2f} (goal ≥ 0.85)")
        costs = [scenarios[name].get("server_cpu_us") for name in ("client_credentials_opaque_api", "client_credentials_jwt_es256")]
        if all(costs):
            line += (f"\n  server CPU per token: opaque {costs[0]:.0f} µs, ES256 JWT {costs[1]:.0f} µs ({costs[1] - costs[0]:.0f} µs more, "
                     f"{es256_signature:.0f} µs of it the signature at gatehouse sign-rate's pace)")
    return line


def totp(secret_b32: str, at: float) -> str:
    """RFC 6238 with SHA-1, 6 digits, 30 s steps (what an authenticator app computes)."""
    key = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


class Client:
    """One keep-alive connection speaking the flow API, as an app would."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: dict | None = None, form: dict | None = None,
             headers: dict | None = None) -> tuple[int, dict]:
        headers = dict(headers or {})
        payload = None
        if body is not None:
            payload, headers["Content-Type"] = json.dumps(body), "application/json"
        if form is not None:
            payload, headers["Content-Type"] = urlencode(form), "application/x-www-form-urlencoded"
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def start(self, kind: str, client_id: str) -> dict:
        status, answer = self.call("POST", f"/flows/{kind}", {
            "client_id": client_id, "redirect_uri": REDIRECT, "scope": "openid profile offline_access", "state": "s",
            "nonce": "n", "code_challenge": CHALLENGE, "code_challenge_method": "S256"})
        assert status == 200, answer
        return answer

    def submit(self, flow_id: str, client_id: str, values: dict) -> dict:
        return self.call("POST", f"/flows/{flow_id}", {"client_id": client_id, "action": "submit", "values": values})[1]

    def exchange(self, answer: dict, client_id: str, proof: str | None = None) -> dict:
        assert answer.get("status") == "success", answer
        status, tokens = self.call("POST", "/token", form={
            "grant_type": "authorization_code", "code": answer["authorization"]["code"], "client_id": client_id,
            "redirect_uri": REDIRECT, "code_verifier": VERIFIER}, headers={"DPoP": proof} if proof else None)
        assert status == 200, tokens
        return tokens

    def password_login(self, username: str, client_id: str = "bench-app", proof: str | None = None) -> dict:
        """Signs in; with a DPoP `proof` for the token request, the tokens are bound to its key."""
        flow = self.start("login", client_id)
        return self.exchange(self.submit(flow["flow_id"], client_id, {"username": username, "password": PASSWORD}), client_id, proof)

    def totp_login(self, username: str, secret: str, at: float) -> dict:
        flow = self.start("login", "bench-mfa")
        answer = self.submit(flow["flow_id"], "bench-mfa", {"username": username, "password": PASSWORD})
        if answer["node"]["id"] == "mfa.choose":
            answer = self.submit(flow["flow_id"], "bench-mfa", {"factor": "totp"})
        return self.exchange(self.submit(flow["flow_id"], "bench-mfa", {"code": totp(secret, at)}), "bench-mfa")

    def enroll_totp(self, username: str) -> str:
        flow = self.start("enrollment", "bench-app")
        answer = self.submit(flow["flow_id"], "bench-app", {"username": username, "password": PASSWORD})
        uri = next(f["default_value"] for f in answer["node"]["fields"] if f["key"] == "otpauth")
        secret = re.search(r"secret=([A-Z2-7]+)", uri).group(1)
        answer = self.submit(flow["flow_id"], "bench-app", {"code": totp(secret, time.time())})
        self.exchange(self.submit(flow["flow_id"], "bench-app", {}), "bench-app")
        return secret


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def drive(port: int, work, concurrency: int, seconds: float, limit: int | None = None) -> dict:
    """Runs `work(client, index)` on `concurrency` threads for `seconds` (or `limit` calls); latencies in ms."""
    latencies: list[float] = []
    errors = [0]
    counter = iter(range(limit if limit is not None else 10 ** 9))
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker():
        client = Client(port)
        while time.monotonic() < deadline:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            began = time.perf_counter()
            try:
                work(client, index)
            except Exception:  # counted, and the connection renewed
                with lock:
                    errors[0] += 1
                client = Client(port)
                continue
            with lock:
                latencies.append((time.perf_counter() - began) * 1000)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    return {"requests_per_second": len(latencies) / elapsed, "p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99),
            "count": len(latencies), "errors": errors[0], "connections": concurrency}


def wrk(url: str, script: str, seconds: float, connections: int, args: list[str] | None = None) -> dict:
    """One wrk run with a scenario script plus the shared reporter; latencies in ms."""
    # The DPoP scenarios share proofs.lua, which hands out the pre-signed proofs.
    library = (WRK_SCRIPTS / "proofs.lua").read_text() + "\n" if script.endswith("_dpop.lua") else ""
    source = library + (WRK_SCRIPTS / script).read_text() + "\n" + (WRK_SCRIPTS / "report.lua").read_text()
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(source)
    threads = min(2, connections)
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s", "-s", handle.name, url]
    if args:
        command += ["--", str(threads), *args]
    output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60).stdout
    os.unlink(handle.name)
    found = re.search(r"^WRKJSON (.*)$", output, re.MULTILINE)
    if not found:
        raise RuntimeError(f"wrk printed no summary:\n{output}")
    raw = json.loads(found.group(1))
    return {"requests_per_second": raw["requests"] / (raw["duration_us"] / 1e6), "p50_ms": raw["p50_us"] / 1000,
            "p99_ms": raw["p99_us"] / 1000, "count": raw["requests"], "errors": raw["errors"], "connections": connections}


class DPoPProofPool:
    """One P-256 key and proofs signed with it ahead of a run (RFC 9449 §4.2): each proof is good once and for 60 s,
    and wrk cannot sign, so Python signs as many as the scenario could use and writes them one per line."""

    def __init__(self):
        from cryptography.hazmat.primitives.asymmetric import ec
        self.key = ec.generate_private_key(ec.SECP256R1())
        numbers = self.key.public_key().public_numbers()
        jwk = {"crv": "P-256", "kty": "EC", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
        self.header = b64url(json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}).encode())

    def one(self, method: str, url: str) -> str:
        """A single proof, for a token request that binds the tokens to the pool's key."""
        path = self.write(1, method, url)
        try:
            return Path(path).read_text().strip()
        finally:
            os.unlink(path)

    def write(self, count: int, method: str, url: str, access_token: str | None = None) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        claims = {"htm": method, "htu": url, "iat": int(time.time())}
        if access_token:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode()).digest())
        prefix = os.urandom(6).hex()
        with tempfile.NamedTemporaryFile("w", suffix=".proofs", delete=False) as handle:
            for index in range(count):
                signing_input = self.header + "." + b64url(json.dumps({**claims, "jti": f"{prefix}-{index}"}).encode())
                r, s = decode_dss_signature(self.key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
                handle.write(signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big")) + "\n")
        return handle.name


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def dpop_scenario(url: str, script: str, seconds: float, connections: int, expected_rate: float, proofs: DPoPProofPool,
                  method: str, access_token: str | None, before: list[str], after: list[str]) -> dict:
    """A wrk run whose requests carry DPoP proofs: as many as the bearer run's rate could use (a proof cannot be reused),
    up to 400,000, signed just before the run."""
    count = min(int(expected_rate * max(1, round(seconds)) * 1.1) + 200, 400_000)
    path = proofs.write(count, method, url, access_token)
    try:
        return wrk(url, script, seconds, connections, [*before, path, *after])
    finally:
        os.unlink(path)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) the process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metered(pid: int, run) -> dict:
    """The figures `run()` returns, with the server's own CPU for the scenario: `server_cpu_seconds`, and `server_cpu_us`
    per request. What a request costs the server alone, whatever the driver (wrk, Python) on the same cores costs."""
    before = cpu_seconds(pid)
    figures = run()
    figures["server_cpu_seconds"] = cpu_seconds(pid) - before
    figures["server_cpu_us"] = figures["server_cpu_seconds"] * 1e6 / max(1, figures["count"])
    return figures


def peak_memory_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def start_server(engine: str, extra_config: dict | None = None) -> Server:
    # The production password hashing unless --log-n says otherwise (the harness's cheaper default removed).
    hashing = None if LOG_N == 17 else {"log_n": LOG_N, "block_size": 8, "parallelism": 1}
    config = {"password_hashing": hashing, "client_sign_on": {"bench-mfa": {"second_factor": "if_enrolled"}},
              "login_throttling": None}
    config.update(EXTRA_CONFIG if extra_config is None else extra_config)
    if engine == "postgres":
        return Server(database_url=fresh_postgres_database(), owns_database=True, config=config)
    return Server(config=config)


def seed(server: Server, users: int, password_hash: str) -> float:
    """Imports `users` users sharing one password hash; returns the seconds it took."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for index in range(users):
            handle.write(f'{{"username":"user{index}","email":"user{index}@example.com","password_hash":"{password_hash}"}}\n')
    began = time.monotonic()
    server.cli("users", "import", handle.name, timeout=3600)  # a million users take minutes on PostgreSQL
    os.unlink(handle.name)
    return time.monotonic() - began


def run_engine(engine: str, users: int, seconds: float, connections: int, password_hash: str, only: set[str] | None = None,
               extra_config: dict | None = None) -> dict:
    server = start_server(engine, EXTRA_CONFIG if extra_config is None else extra_config)
    results: dict = {"engine": engine, "users": users, "scenarios": {}}
    try:
        results["seed_seconds"] = seed(server, users, password_hash)
        server.add_client("bench-app", REDIRECT, public=True)
        # The same app with ES256 ID tokens: every refresh answer carries a new ID token, and an RSA-2048
        # signature costs ~0.7 ms of a core, so the signing algorithm sets the refresh grant's ceiling.
        server.add_client("bench-app-es256", REDIRECT, public=True, extra=["--id-token-alg", "ES256"])
        server.add_client("bench-mfa", REDIRECT, public=True)
        server.add_client("bench-service", REDIRECT, secret=SERVICE_SECRET)
        # Two APIs whose access tokens are JWTs (RFC 9068), one signed RS256 (the default), one ES256: the same grant
        # as `client_credentials` (opaque) plus a signature, so their ratio to it is the signature's cost.
        for api, algorithm in JWT_APIS.items():
            server.cli("resources", "add", api, "--name", f"Bench {algorithm}", "--scope", f"bench:{algorithm}=Benchmark",
                       "--client", "bench-service", "--token-alg", algorithm)
        # The same grant for an API whose tokens are opaque: the JWTs' baseline (a resource is looked up either way).
        server.cli("resources", "add", OPAQUE_API, "--name", "Bench opaque", "--scope", "bench:opaque=Benchmark", "--client", "bench-service",
                   "--format", "opaque")
        # Tokens to refresh, one family per connection plus one per wrk thread (wrk calls the first thread's
        # request() once before the run to check it, which takes a family out of play), and an access token for userinfo.
        port = server.port

        def sign_in_families(client_id: str) -> list[dict]:
            sessions: list[dict] = []
            signed_in = drive(port, lambda client, i: sessions.append(client.password_login(f"user{i}", client_id)), 8, 120,
                              limit=connections + 2)
            assert signed_in["errors"] == 0, signed_in
            return sessions

        sessions = sign_in_families("bench-app")
        es256_sessions = sign_in_families("bench-app-es256")
        access_token = sessions[0]["access_token"]
        secrets = []
        wanted = (lambda name: only is None or name in only)
        enrolled = {"errors": 0} if not wanted("password_totp_login") else drive(port, lambda client, i: secrets.append((f"user{users - 1 - i}", client.enroll_totp(f"user{users - 1 - i}"))),
                         8, 300, limit=TOTP_USERS)
        assert enrolled["errors"] == 0, enrolled
        scenarios = results["scenarios"]
        base = server.issuer

        def measure(run) -> dict:
            return metered(server.process.pid, run)

        # The HTTP floor: the cheapest route (a constant JSON body through the same router and middleware).
        scenarios["http_floor"] = measure(lambda: wrk(base + "/health/live", "get.lua", seconds, connections))
        if wanted("discovery"):
            scenarios["discovery"] = measure(lambda: wrk(base + "/.well-known/openid-configuration", "get.lua", seconds, connections))
        if wanted("jwks"):
            scenarios["jwks"] = measure(lambda: wrk(base + "/jwks", "get.lua", seconds, connections))
        if wanted("userinfo"):
            scenarios["userinfo"] = measure(lambda: wrk(base + "/userinfo", "userinfo.lua", seconds, connections, [access_token]))
        for name, client_id, families in (("refresh_token", "bench-app", sessions), ("refresh_token_es256", "bench-app-es256", es256_sessions)):
            if wanted(name):
                scenarios[name] = measure(lambda: wrk(base + "/token", "refresh.lua", seconds, connections, [client_id, *[t["refresh_token"] for t in families]]))
        # The same with DPoP-bound tokens (RFC 9449): the proof's check (a signature, a jti recorded once) is the cost.
        proofs = DPoPProofPool()
        if wanted("userinfo_dpop") and "userinfo" in scenarios:
            bound = Client(port).password_login("user0", proof=proofs.one("POST", base + "/token"))["access_token"]
            scenarios["userinfo_dpop"] = measure(lambda: dpop_scenario(
                base + "/userinfo", "userinfo_dpop.lua", seconds, connections, scenarios["userinfo"]["requests_per_second"], proofs, "GET",
                bound, [bound], []))
        if wanted("refresh_token_es256_dpop") and "refresh_token_es256" in scenarios:
            dpop_sessions = sign_in_families("bench-app-es256")
            scenarios["refresh_token_es256_dpop"] = measure(lambda: dpop_scenario(
                base + "/token", "refresh_dpop.lua", seconds, connections, scenarios["refresh_token_es256"]["requests_per_second"], proofs,
                "POST", None, [], ["bench-app-es256", *[t["refresh_token"] for t in dpop_sessions]]))
        service = base64.b64encode(f"bench-service:{SERVICE_SECRET}".encode()).decode()
        if wanted("client_credentials"):
            scenarios["client_credentials"] = measure(lambda: wrk(base + "/token", "client_credentials.lua", seconds, connections, [service]))
        for name, api, scope in [("client_credentials_opaque_api", OPAQUE_API, "bench:opaque"),
                                 *[("client_credentials_jwt" + ("" if algorithm == "RS256" else "_es256"), api, f"bench:{algorithm}")
                                   for api, algorithm in JWT_APIS.items()]]:
            if wanted(name):
                body = "&" + urlencode({"resource": api, "scope": scope})
                scenarios[name] = measure(lambda: wrk(base + "/token", "client_credentials.lua", seconds, connections, [service, body]))
        sign_in_users = max(1, users - TOTP_USERS)
        # The hash rate again right before and right after the sign-ins, with the server idle: these machines change
        # speed by a third within minutes, so the start-up figure alone can move the logins' ratio more than any change.
        baseline_seconds = min(3.0, max(1.0, seconds / 3))
        if wanted("password_login") or wanted("password_totp_login"):
            results["hash_rate_around_logins"] = [raw_hash_rate(baseline_seconds, LOG_N)]
        if wanted("password_login"):
            scenarios["password_login"] = measure(lambda: drive(port, lambda client, i: client.password_login(f"user{(i * 7919) % sign_in_users}"),
                                                                LOGIN_CONCURRENCY, seconds))
        # Each enrolled user signs in once, with the next time step's code (enrollment used the current one).
        later = time.time() + 30
        if wanted("password_totp_login"):
            scenarios["password_totp_login"] = measure(lambda: drive(port, lambda client, i: client.totp_login(secrets[i][0], secrets[i][1], later),
                                                                     LOGIN_CONCURRENCY, seconds, limit=len(secrets)))
        if "hash_rate_around_logins" in results:
            results["hash_rate_around_logins"].append(raw_hash_rate(baseline_seconds, LOG_N))
        results["peak_memory_mib"] = peak_memory_mib(server.process.pid)
    finally:
        server.stop()
    return results


SCALE_SCENARIOS = {"userinfo", "refresh_token_es256", "password_login"}
SCALE_USERS = 1_000_000
SCALE_TOKENS = 10_000_000


def seed_tokens(server: Server, engine: str, count: int, users: int) -> float:
    """Bulk-inserts `count` live tokens — half access tokens, half refresh tokens, each of a grant of its own — for the
    users already imported, with keys ordered before any the server issues from now on, as a long-running server's
    would be; returns the seconds it took. SQLite's file is written with the server stopped (by the sqlite3 shell),
    PostgreSQL's through psql with the server running."""
    half = count // 2
    now = int(time.time())
    base = int(time.time() * 1_000_000) - 10 * count  # microseconds, as the keys' issue-time prefix
    began = time.monotonic()
    if engine == "sqlite":
        script = f"""
            PRAGMA journal_mode = WAL;
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {half - 1})
            INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at)
            SELECT printf('%016x', {base} + 2 * i) || lower(hex(randomblob(32))), 'seed-a' || i, 'bench-app',
                   (SELECT id FROM users WHERE rowid = 1 + i % {users}), 'openid profile', {now}, {now + 86_400} FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {half - 1})
            INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at)
            SELECT printf('%016x', {base} + 2 * i + 1) || lower(hex(randomblob(32))), 'seed-r' || i, 'bench-app',
                   (SELECT id FROM users WHERE rowid = 1 + i % {users}), 'openid profile offline_access', {now}, 'pwd', {now},
                   {now + 30 * 86_400} FROM n;
            COMMIT;
            ANALYZE;
            PRAGMA wal_checkpoint(TRUNCATE);
        """
        with server.stopped():
            subprocess.run(["sqlite3", server.database], input=script, text=True, check=True, capture_output=True, timeout=7200)
    else:
        script = f"""
            CREATE TEMP TABLE seed_users AS SELECT id, row_number() OVER () - 1 AS n FROM users;
            CREATE INDEX ON seed_users (n);
            INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at)
            SELECT lpad(to_hex({base} + 2 * i), 16, '0') || md5(i::text || 'a') || md5(i::text || 'b'), 'seed-a' || i, 'bench-app',
                   u.id, 'openid profile', {now}, {now + 86_400}
            FROM generate_series(0, {half - 1}) i JOIN seed_users u ON u.n = i % {users};
            INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at)
            SELECT lpad(to_hex({base} + 2 * i + 1), 16, '0') || md5(i::text || 'c') || md5(i::text || 'd'), 'seed-r' || i, 'bench-app',
                   u.id, 'openid profile offline_access', {now}, 'pwd', {now}, {now + 30 * 86_400}
            FROM generate_series(0, {half - 1}) i JOIN seed_users u ON u.n = i % {users};
            ANALYZE;
        """
        subprocess.run(["psql", server.database, "-q", "-v", "ON_ERROR_STOP=1"], input=script, text=True, check=True, capture_output=True,
                       timeout=7200)
    return time.monotonic() - began


def run_scale(engine: str, seconds: float, connections: int, password_hash: str, rounds: int) -> dict:
    """Userinfo, refresh and sign-in with a million users and ten million stored tokens, against the same on a fresh
    database with a thousand users: both servers run side by side, the scenarios alternate between them for `rounds`
    rounds, and each keeps its best round (the machine's noise only ever slows a round down)."""
    servers: dict[str, Server] = {}
    figures: dict = {"fresh": {"users": 1_000, "scenarios": {}}, "big": {"users": SCALE_USERS, "scenarios": {}}}
    try:
        for name, users, tokens in (("fresh", 1_000, 0), ("big", SCALE_USERS, SCALE_TOKENS)):
            server = servers[name] = start_server(engine)
            figures[name]["seed_seconds"] = seed(server, users, password_hash)
            server.add_client("bench-app", REDIRECT, public=True)
            server.add_client("bench-app-es256", REDIRECT, public=True, extra=["--id-token-alg", "ES256"])
            if tokens:
                figures[name]["token_seed_seconds"] = seed_tokens(server, engine, tokens, users)
        for _ in range(rounds):
            for name, server in servers.items():
                port, users = server.port, figures[name]["users"]
                families: list[dict] = []
                signed_in = drive(port, lambda client, i: families.append(client.password_login(f"user{i}", "bench-app-es256")), 8, 120,
                                  limit=connections + 2)
                assert signed_in["errors"] == 0, signed_in
                measured = {
                    "userinfo": wrk(server.issuer + "/userinfo", "userinfo.lua", seconds, connections, [families[0]["access_token"]]),
                    "refresh_token_es256": wrk(server.issuer + "/token", "refresh.lua", seconds, connections,
                                               ["bench-app-es256", *[t["refresh_token"] for t in families]]),
                    "password_login": drive(port, lambda client, i: client.password_login(f"user{(i * 7919) % users}"), LOGIN_CONCURRENCY,
                                            seconds),
                }
                for scenario, result in measured.items():
                    best = figures[name]["scenarios"].get(scenario)
                    if best is None or result["requests_per_second"] > best["requests_per_second"]:
                        figures[name]["scenarios"][scenario] = result
    finally:
        for server in servers.values():
            server.stop()
    figures["rounds"] = rounds
    figures["ratios"] = {name: figures["big"]["scenarios"][name]["requests_per_second"] / figures["fresh"]["scenarios"][name]["requests_per_second"]
                         for name in sorted(SCALE_SCENARIOS)}
    return figures


def scale_line(scale: dict) -> str:
    big = scale["big"]
    figures = ", ".join(f"{name} {scale['fresh']['scenarios'][name]['requests_per_second']:.0f} → "
                        f"{big['scenarios'][name]['requests_per_second']:.0f}/s ({ratio:.2f})" for name, ratio in scale["ratios"].items())
    return (f"with {big['users']:,} users and {SCALE_TOKENS:,} stored tokens against a fresh database (best of {scale['rounds']}): {figures}; "
            f"users imported in {big['seed_seconds']:.0f} s, tokens in {big['token_seed_seconds']:.0f} s")


TWO_NODE_SCENARIOS = ("userinfo", "refresh_token_es256", "client_credentials")


def run_two_nodes(seconds: float, connections: int, password_hash: str, one_node: dict) -> dict:
    """Two nodes on one PostgreSQL database, each driven by its own wrk with half the connections, at the same time:
    each node's figure, the total, and the total against one node with all the connections (`one_node`)."""
    url = fresh_postgres_database()
    config = {"password_hashing": None if LOG_N == 17 else {"log_n": LOG_N, "block_size": 8, "parallelism": 1}, "login_throttling": None}
    config.update(EXTRA_CONFIG)
    first = Server(database_url=url, owns_database=True, config=config)
    second = None
    try:
        second = Server(database_url=url, config=config)
        seed(first, 100, password_hash)
        first.add_client("bench-app-es256", REDIRECT, public=True, extra=["--id-token-alg", "ES256"])
        first.add_client("bench-service", REDIRECT, secret=SERVICE_SECRET)
        half = max(1, connections // 2)
        families: list[dict] = []
        signed_in = drive(first.port, lambda client, i: families.append(client.password_login(f"user{i}", "bench-app-es256")), 8, 120,
                          limit=2 * (half + 2))
        assert signed_in["errors"] == 0, signed_in
        basic = base64.b64encode(f"bench-service:{SERVICE_SECRET}".encode()).decode()
        figures: dict = {}
        for name in TWO_NODE_SCENARIOS:
            runs: dict = {}

            def drive_node(index: int, node: Server) -> None:
                if name == "userinfo":
                    runs[index] = wrk(node.issuer + "/userinfo", "userinfo.lua", seconds, half, [families[0]["access_token"]])
                elif name == "refresh_token_es256":
                    own = families[index * (half + 2):(index + 1) * (half + 2)]
                    runs[index] = wrk(node.issuer + "/token", "refresh.lua", seconds, half, ["bench-app-es256", *[t["refresh_token"] for t in own]])
                else:
                    runs[index] = wrk(node.issuer + "/token", "client_credentials.lua", seconds, half, [basic])

            threads = [threading.Thread(target=drive_node, args=(index, node)) for index, node in enumerate((first, second))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            total = runs[0]["requests_per_second"] + runs[1]["requests_per_second"]
            figures[name] = {"nodes": [runs[0], runs[1]], "total": total,
                             "against_one_node": total / one_node[name]["requests_per_second"]}
        return figures
    finally:
        if second:
            second.stop()
        first.stop()


def two_node_lines(figures: dict) -> str:
    lines = [f"two nodes on one PostgreSQL, wrk against each at once{'':<4}{'node 1/s':>10}{'node 2/s':>10}{'total/s':>10}{'/ one node':>12}"]
    for name, figure in figures.items():
        lines.append(f"{name:<58}{figure['nodes'][0]['requests_per_second']:>10.0f}{figure['nodes'][1]['requests_per_second']:>10.0f}"
                     f"{figure['total']:>10.0f}{figure['against_one_node']:>12.2f}")
    return "\n".join(lines)


TOTP_USERS = 150
LOGIN_CONCURRENCY = 4
LOG_N = 17
EXTRA_CONFIG: dict = {}


def table(results: dict, hash_rate: float) -> str:
    lines = [f"Gatehouse load benchmark — {results['engine']}, {results['users']:,} users, {os.cpu_count()} cores, "
             f"raw hash rate (gatehouse hash-rate, scrypt N=2^{LOG_N}) {hash_rate:.2f}/s",
             f"{'scenario':<30}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'conns':>7}{'errors':>8}{'server µs':>11}"]
    for name, figures in results["scenarios"].items():
        cost = f"{figures['server_cpu_us']:>11.0f}" if "server_cpu_us" in figures else ""
        lines.append(f"{name:<30}{figures['requests_per_second']:>10.1f}{figures['p50_ms']:>10.2f}{figures['p99_ms']:>10.2f}"
                     f"{figures['connections']:>7}{figures['errors']:>8}{cost}")
    floor = results["scenarios"]["http_floor"]["requests_per_second"]
    lines.append("against the HTTP floor: " + ", ".join(
        f"{name} {results['scenarios'][name]['requests_per_second'] / floor:.2f}" for name in ("discovery", "jwks", "userinfo")))
    scenarios = results["scenarios"]
    dpop = [(bound, bearer) for bound, bearer in (("userinfo_dpop", "userinfo"), ("refresh_token_es256_dpop", "refresh_token_es256"))
            if bound in scenarios and bearer in scenarios]
    if dpop:
        lines.append("DPoP-bound / bearer (the proof's check: a signature and a jti recorded once): " + ", ".join(
            f"{bearer} {scenarios[bound]['requests_per_second'] / scenarios[bearer]['requests_per_second']:.2f} "
            f"({1e6 / scenarios[bound]['requests_per_second'] - 1e6 / scenarios[bearer]['requests_per_second']:.0f} µs more per request)"
            for bound, bearer in dpop))
    login = results["scenarios"]["password_login"]["requests_per_second"]
    baseline, measured = login_baseline(results, hash_rate)
    lines.append(f"password logins / raw hash rate ({baseline:.1f}/s, {measured}): {login / baseline:.0%}; "
                 f"server peak memory {results['peak_memory_mib']:.0f} MiB; {results['users']:,} users imported in {results['seed_seconds']:.1f} s")
    lines.append(login_cost_line(scenarios, baseline, measured))
    return "\n".join(lines)


def login_baseline(results: dict, hash_rate: float) -> tuple[float, str]:
    """The raw hash rate sign-ins are set against, and how it was measured: the mean of the rates right before and
    after the sign-ins where the run has both, else the run's start-up figure."""
    around = results.get("hash_rate_around_logins") or []
    if len(around) == 2:
        return sum(around) / 2, f"mean of {around[0]:.1f}/s before and {around[1]:.1f}/s after the sign-ins"
    return hash_rate, "at the start"


def login_cost_line(scenarios: dict, hash_rate: float, measured: str) -> str:
    """Logins per second of the server's own CPU, per core, against the raw hash rate per core: 1.0 would be a login
    that costs its password hash and nothing more (the goal is at least 0.9 at scrypt log_n 13, about 8 MiB)."""
    per_core_hashes = hash_rate / os.cpu_count()
    parts = []
    for name in ("password_login", "password_totp_login"):
        figures = scenarios.get(name)
        if figures and figures.get("server_cpu_seconds", 0) > 0 and figures["count"]:
            per_core = figures["count"] / figures["server_cpu_seconds"]
            parts.append(f"{name} {per_core:.1f}/s = {per_core / per_core_hashes:.2f}")
    return (f"logins per server core-second / raw hash rate per core ({per_core_hashes:.1f}/s at scrypt N=2^{LOG_N}, {measured}): "
            + (", ".join(parts) if parts else "not measured"))


def postgres_settings(url: str) -> str:
    """The durability settings the PostgreSQL server runs with, as the figures should say."""
    values = []
    for name in ("fsync", "synchronous_commit"):
        values.append(name + "=" + subprocess.run(["psql", url, "-Atc", f"SHOW {name}"], capture_output=True, text=True, check=True,
                                                  timeout=60).stdout.strip())
    return ", ".join(values)


def pgbench_baseline(seconds: float, connections: int) -> dict:
    """pgbench on the same PostgreSQL server and cores: its built-in TPC-B-like transaction, and a script with the
    statements of one refresh (Benchmarks/Load/pgbench/refresh.sql), each with `connections` clients — what the
    database can do at all, for Gatehouse's figures to be read against."""
    url = fresh_postgres_database()
    figures = {}
    try:
        def tps(arguments: list[str]) -> float:
            output = subprocess.run(["pgbench", *arguments, "-n", "-c", str(connections), "-j", "2", "-T", str(max(1, int(seconds))), url],
                                    capture_output=True, text=True, check=True, timeout=600).stdout
            return float(re.search(r"tps = ([\d.]+)", output).group(1))
        subprocess.run(["pgbench", "-i", "-q", "-s", "1", url], capture_output=True, check=True, timeout=600)
        figures["tpcb_like"] = tps([])
        subprocess.run(["psql", url, "-q", "-f", str(Path(__file__).resolve().parent / "pgbench" / "setup.sql")], capture_output=True,
                       check=True, timeout=600)
        figures["refresh_statements"] = tps(["-f", str(Path(__file__).resolve().parent / "pgbench" / "refresh.sql")])
    finally:
        from gatehouse_harness import drop_postgres_database
        drop_postgres_database(url)
    return figures


# The request scenarios, and the two sign-ins that go through the flow engine node by node.
AGAINST_SCENARIOS = {"discovery", "userinfo", "refresh_token", "refresh_token_es256", "client_credentials", "client_credentials_opaque_api",
                     "client_credentials_jwt", "client_credentials_jwt_es256", "password_login", "password_totp_login"}


def run_against(baseline: Path, engine: str, options, password_hash: str) -> dict:
    """The request scenarios and the flow engine's sign-ins on a baseline build and on this one, alternately for `--rounds` rounds, each scenario's
    best round kept per build (the machine's noise only ever slows a round down). The baseline runs with its defaults,
    this build with the extra configuration (`--metrics`): the cost of what was added, measured in the same run."""
    builds = {"baseline": str(baseline.resolve()), "current": os.environ.get("GATEHOUSE_BINARY") or binary()}
    best: dict[str, dict] = {"baseline": {}, "current": {}}
    for round_number in range(options.rounds):
        for build, path in builds.items():
            os.environ["GATEHOUSE_BINARY"] = path
            print(f"round {round_number + 1}: {build} ({path})…", flush=True)
            results = run_engine(engine, options.users, options.seconds, options.connections, password_hash, only=AGAINST_SCENARIOS,
                                 extra_config={} if build == "baseline" else EXTRA_CONFIG)
            for name, figures in results["scenarios"].items():
                if figures["requests_per_second"] > best[build].get(name, {}).get("requests_per_second", 0):
                    best[build][name] = figures
    os.environ["GATEHOUSE_BINARY"] = builds["current"]
    lines = [f"this build ({'with ' + ', '.join(EXTRA_CONFIG) if EXTRA_CONFIG else 'defaults'}) against {baseline}, {engine}, "
             f"best of {options.rounds} rounds",
             f"{'scenario':<30}{'baseline/s':>12}{'current/s':>12}{'ratio':>8}"]
    for name, old in best["baseline"].items():
        new = best["current"][name]["requests_per_second"]
        lines.append(f"{name:<30}{old['requests_per_second']:>12.0f}{new:>12.0f}{new / old['requests_per_second']:>8.3f}")
    print("\n".join(lines), flush=True)
    return {"engine": engine, "rounds": options.rounds, "baseline": str(baseline), "best": best}


def main() -> int:
    global TOTP_USERS, LOG_N, EXTRA_CONFIG, SCALE_USERS, SCALE_TOKENS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10, help="duration of each scenario")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (and refresh-token families)")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--postgres", action="store_true", help="also run against PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL)")
    parser.add_argument("--postgres-only", action="store_true", help="run against PostgreSQL only")
    parser.add_argument("--scale", action="store_true",
                        help="also userinfo, refresh and sign-in with 1,000,000 users and 10,000,000 stored tokens, against a fresh database")
    parser.add_argument("--scale-users", type=int, default=SCALE_USERS, help="with --scale: users in the big database")
    parser.add_argument("--scale-tokens", type=int, default=SCALE_TOKENS, help="with --scale: stored tokens in the big database")
    parser.add_argument("--two-nodes", action="store_true", help="with PostgreSQL: also two nodes on one database, driven at once")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--totp-users", type=int, default=TOTP_USERS, help="users enrolled in TOTP (each signs in once)")
    parser.add_argument("--log-n", type=int, default=LOG_N, help="scrypt cost (17 is the production default; lower only for a smoke run)")
    parser.add_argument("--metrics", action="store_true", help="serve Prometheus metrics (on a port of their own) while measuring")
    parser.add_argument("--config", dest="config_json", help="extra server configuration as JSON, e.g. '{\"sqlite_synchronous\": \"full\"}'")
    parser.add_argument("--against", type=Path, help="a baseline build's gatehouse binary: compare the request scenarios and the flow sign-ins with it, same run")
    parser.add_argument("--rounds", type=int, default=2, help="with --against or --scale: alternating rounds (the best is kept)")
    options = parser.parse_args()
    TOTP_USERS, LOG_N = options.totp_users, options.log_n
    SCALE_USERS, SCALE_TOKENS = options.scale_users, options.scale_tokens
    if options.metrics:
        from gatehouse_harness import free_port
        EXTRA_CONFIG = {"metrics": {"port": free_port()}}
    if options.config_json:
        EXTRA_CONFIG.update(json.loads(options.config_json))
    options.postgres = options.postgres or options.postgres_only
    if options.postgres and not POSTGRES_URL:
        parser.error("--postgres needs GATEHOUSE_TEST_POSTGRES_URL; run under scripts/with-postgres")
    print("measuring the raw password-hash rate…", flush=True)
    hash_rate = raw_hash_rate(5 if LOG_N >= 15 else 1, LOG_N)
    password_hash = phc_scrypt(PASSWORD, LOG_N)
    print("measuring the raw signature rates…", flush=True)
    signatures = signature_baseline(2 if options.seconds >= 5 else 1)
    report = {"raw_hash_rate": hash_rate, "scrypt_log_n": LOG_N, "cores": os.cpu_count(), "signatures": signatures, "runs": []}
    if options.against:
        report["against"] = run_against(options.against, "postgres" if options.postgres_only else "sqlite", options, password_hash)
        if options.json:
            options.json.write_text(json.dumps(report, indent=2))
        return 0
    for engine in ([] if options.postgres_only else ["sqlite"]) + (["postgres"] if options.postgres else []):
        print(f"running on {engine}…", flush=True)
        results = run_engine(engine, options.users, options.seconds, options.connections, password_hash)
        report["runs"].append(results)
        print(table(results, hash_rate), flush=True)
        print(signature_line(results["scenarios"], signatures), flush=True)
        if engine == "postgres":
            results["postgres_settings"] = postgres_settings(POSTGRES_URL)
            results["pgbench"] = pgbench_baseline(options.seconds, min(options.connections, 16))
            refresh_rate = results["scenarios"]["refresh_token_es256"]["requests_per_second"]
            print(f"PostgreSQL {results['postgres_settings']}; pgbench, same server and cores, 16 clients: TPC-B-like "
                  f"{results['pgbench']['tpcb_like']:.0f} tps, a refresh's statements {results['pgbench']['refresh_statements']:.0f} tps; "
                  f"ES256 refresh / refresh statements {refresh_rate / results['pgbench']['refresh_statements']:.2f}", flush=True)
        if engine == "postgres" and options.two_nodes:
            results["two_nodes"] = run_two_nodes(options.seconds, options.connections, password_hash, results["scenarios"])
            print(two_node_lines(results["two_nodes"]), flush=True)
        if options.scale:
            # Printed apart, after the table: seeding takes minutes.
            results["scale"] = run_scale(engine, options.seconds, options.connections, password_hash, options.rounds)
            print(scale_line(results["scale"]), flush=True)
    if options.json:
        options.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
