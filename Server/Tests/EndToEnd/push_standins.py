"""Stand-ins for the two push services on loopback, checking what the real ones check.

APNs: HTTP/2 over TLS (ALPN h2, a certificate made for 127.0.0.1 that the server trusts through `ca_file`), `POST
/3/device/TOKEN` with a provider token (an ES256 JWT by the team, its key id in the header), `apns-topic`,
`apns-push-type: alert` and an `apns-expiration` in the future; 410 Unregistered for a token it was told is gone.
FCM: a service account's token endpoint (RFC 7523 JWT bearer, RS256, the messaging scope) and `messages:send` with
the access token it issued. Both keep what they received for the tests to read."""
from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import h2.config
import h2.connection
import h2.events
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey

from gatehouse_harness import free_port


def loopback_certificate(directory):
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files; the certificate is its own authority."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "APNs stand-in")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_file, key_file = directory / "apns-standin.pem", directory / "apns-standin.key"
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return str(certificate_file), str(key_file)


class APNsStandIn:
    TEAM_ID = "TEAM123456"
    KEY_ID = "KEY7890ABC"
    TOPIC = "com.example.authenticator"

    def __init__(self, directory):
        self.port = free_port()
        self.endpoint = f"https://127.0.0.1:{self.port}"
        self.certificate_file, key_file = loopback_certificate(directory)
        # The team's `.p8` key: PKCS#8 P-256, as Apple's developer account hands it out.
        provider_key = ec.generate_private_key(ec.SECP256R1())
        self.provider_key_file = directory / f"AuthKey_{self.KEY_ID}.p8"
        self.provider_key_file.write_bytes(
            provider_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self.verifier = ECKey.import_key(provider_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        self.received: list[dict] = []
        self.refused: list[dict] = []
        self.unregistered: set[str] = set()
        self.protocols: list[str] = []
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certificate_file, key_file)
        context.set_alpn_protocols(["h2"])
        self.context = context
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.listener.settimeout(0.5)
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def settings(self):
        return {"team_id": self.TEAM_ID, "key_id": self.KEY_ID, "private_key_file": str(self.provider_key_file), "topic": self.TOPIC,
                "endpoint": self.endpoint, "ca_file": self.certificate_file}

    def stop(self):
        self.running = False
        self.thread.join(timeout=5)
        self.listener.close()

    def serve(self):
        while self.running:
            try:
                connection, _ = self.listener.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self.converse, args=(connection,), daemon=True).start()

    def converse(self, raw):
        try:
            connection = self.context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        self.protocols.append(connection.selected_alpn_protocol() or "http/1.1")
        protocol = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        protocol.initiate_connection()
        connection.sendall(protocol.data_to_send())
        streams: dict[int, dict] = {}
        connection.settimeout(30)
        try:
            while True:
                data = connection.recv(65535)
                if not data:
                    return
                for event in protocol.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                    elif isinstance(event, h2.events.DataReceived):
                        streams[event.stream_id]["body"] += event.data
                        protocol.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        status, body = self.answer(streams.pop(event.stream_id))
                        headers = [(":status", str(status)), ("apns-id", str(uuid.uuid4()))]
                        if body:
                            headers.append(("content-type", "application/json"))
                        protocol.send_headers(event.stream_id, headers, end_stream=not body)
                        if body:
                            protocol.send_data(event.stream_id, body, end_stream=True)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return
                connection.sendall(protocol.data_to_send())
        except (OSError, ssl.SSLError):
            return
        finally:
            connection.close()

    def answer(self, stream):
        """What APNs answers: 200 for a well-formed push from the team, 403 for a bad provider token, 400 otherwise."""
        headers, now = stream["headers"], int(time.time())

        def refuse(status, reason):
            self.refused.append({"status": status, "reason": reason, "headers": headers})
            return status, json.dumps({"reason": reason}).encode()

        if headers.get(":method") != "POST" or not headers.get(":path", "").startswith("/3/device/"):
            return refuse(404, "BadPath")
        token = headers[":path"][len("/3/device/"):]
        try:
            scheme, _, provider_token = headers.get("authorization", "").partition(" ")
            decoded = jwt.decode(provider_token, self.verifier, algorithms=["ES256"])
            assert scheme.lower() == "bearer" and decoded.header.get("kid") == self.KEY_ID
            assert decoded.claims.get("iss") == self.TEAM_ID and abs(now - int(decoded.claims.get("iat", 0))) < 3600
        except Exception:  # noqa: BLE001 - any flaw in the token is Apple's 403
            return refuse(403, "InvalidProviderToken")
        if headers.get("apns-topic") != self.TOPIC:
            return refuse(400, "TopicDisallowed")
        if headers.get("apns-push-type") != "alert" or int(headers.get("apns-expiration", "0")) <= now:
            return refuse(400, "BadExpirationDate" if headers.get("apns-push-type") == "alert" else "InvalidPushType")
        payload = json.loads(stream["body"])
        if "alert" not in payload.get("aps", {}) or "gatehouse" not in payload:
            return refuse(400, "PayloadEmpty")
        if token in self.unregistered:
            return refuse(410, "Unregistered")
        self.received.append({"token": token, "headers": headers, "payload": payload})
        return 200, b""


class FCMStandIn:
    PROJECT = "gatehouse-push-test"
    CLIENT_EMAIL = "push@gatehouse-push-test.iam.gserviceaccount.com"
    SCOPE = "https://www.googleapis.com/auth/firebase.messaging"

    def __init__(self, directory):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.verifier = RSAKey.import_key(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        self.account_file = directory / "service-account.json"
        self.account_file.write_text(json.dumps({
            "type": "service_account", "project_id": self.PROJECT, "private_key_id": "sa-key-1", "client_email": self.CLIENT_EMAIL,
            "private_key": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
            "token_uri": f"{self.endpoint}/token",
        }))
        self.issued: set[str] = set()
        self.assertions: list[dict] = []
        self.received: list[dict] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status, answer = standin.answer(self.path, self.headers, body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(answer).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def settings(self):
        return {"service_account_file": str(self.account_file), "endpoint": self.endpoint}

    def stop(self):
        self.server.shutdown()

    def answer(self, path, headers, body):
        now = int(time.time())
        if path == "/token":
            form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
            try:
                assert form.get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer"
                decoded = jwt.decode(form["assertion"], self.verifier, algorithms=["RS256"])
                claims = decoded.claims
                assert decoded.header.get("kid") == "sa-key-1"
                assert claims["iss"] == self.CLIENT_EMAIL and claims["scope"] == self.SCOPE and claims["aud"] == f"{self.endpoint}/token"
                assert claims["iat"] <= now + 60 < claims["exp"] + 60
            except Exception:  # noqa: BLE001 - Google's token endpoint answers invalid_grant to any flaw
                return 400, {"error": "invalid_grant"}
            self.assertions.append(claims)
            token = "fcm-" + uuid.uuid4().hex
            self.issued.add(token)
            return 200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}
        if path == f"/v1/projects/{self.PROJECT}/messages:send":
            bearer = headers.get("Authorization", "").removeprefix("Bearer ")
            if bearer not in self.issued:
                return 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}
            message = json.loads(body)["message"]
            if not message.get("token") or not message.get("notification") or not isinstance(message.get("data", {}).get("gatehouse"), str):
                return 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}}
            ttl = message.get("android", {}).get("ttl", "")
            if not (ttl.endswith("s") and int(ttl[:-1]) > 0):
                return 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}}
            self.received.append(message)
            return 200, {"name": f"projects/{self.PROJECT}/messages/{len(self.received)}"}
        return 404, {"error": {"code": 404, "status": "NOT_FOUND"}}
