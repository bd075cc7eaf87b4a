"""The courier against real receivers on loopback: an SMTP server (aiosmtpd) that insists on STARTTLS and
authentication, and an HTTP webhook for SMS. Each refuses its first delivery, so the queue's retry is what
delivers; the flow waiting for the code carries on either way."""
import datetime
import email
import ipaddress
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conftest import APP_REDIRECT
from gatehouse_harness import NEW_PASSWORD, begin, exchange, free_port, outbox, Server, start, submit, verify_id_token

SMTP_USER, SMTP_PASSWORD = "gatehouse", "smtp-relay-password"
WEBHOOK_TOKEN = "Bearer webhook-token-0123456789"


def self_signed_certificate(folder: Path) -> tuple[str, str]:
    """A certificate for 127.0.0.1, so the courier verifies it (by IP address) against this file as its only root."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gatehouse test relay")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "relay.pem", folder / "relay.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return str(cert_path), str(key_path)


class Relay:
    """Keeps what the SMTP server received; refuses the first message with a temporary error."""

    def __init__(self):
        self.messages = []
        self.refused = 0
        self.tls_sessions = []

    async def handle_DATA(self, server, session, envelope):
        self.tls_sessions.append(session.ssl is not None)
        if self.refused == 0:
            self.refused += 1
            return "451 4.3.0 Try again later"
        self.messages.append(envelope)
        return "250 OK"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == SMTP_USER.encode() and auth_data.password == SMTP_PASSWORD.encode()
    return AuthResult(success=ok)


class Gateway(BaseHTTPRequestHandler):
    """An SMS gateway: answers 503 to the first message, 200 afterwards."""
    received: list = []
    calls = 0
    calls_placed: list = []  # what reached /voice, the voice gateway (answers 200 at once)

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/voice":
            type(self).calls_placed.append(json.loads(body))
            self.send_response(200)
            self.end_headers()
            return
        type(self).calls += 1
        if type(self).calls == 1:
            self.send_response(503)
            self.end_headers()
            return
        type(self).received.append((self.headers.get("Authorization"), self.headers.get("Content-Type"), json.loads(body)))
        self.send_response(202)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def delivery(tmp_path_factory):
    folder = tmp_path_factory.mktemp("courier")
    cert, key = self_signed_certificate(folder)
    import ssl
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    relay = Relay()
    smtp_port = free_port()
    controller = Controller(relay, hostname="127.0.0.1", port=smtp_port, tls_context=context, require_starttls=True,
                            authenticator=authenticate, auth_required=True)
    controller.start()
    gateway = ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
    threading.Thread(target=gateway.serve_forever, daemon=True).start()
    server = Server(config={
        "registration": {"enabled": True, "collect_phone": True},
        "courier": {
            "sender": "Gatehouse Test <no-reply@example.com>", "retry_delay": 1,
            "email": {"delivery": "smtp", "smtp": {"host": "127.0.0.1", "port": smtp_port, "security": "starttls", "username": SMTP_USER,
                                                   "password": SMTP_PASSWORD, "trusted_certificates": cert, "timeout": 10}},
            "sms": {"delivery": "webhook", "webhook": {"url": f"http://127.0.0.1:{gateway.server_address[1]}/sms", "authorization": WEBHOOK_TOKEN}},
            "voice": {"delivery": "webhook", "webhook": {"url": f"http://127.0.0.1:{gateway.server_address[1]}/voice"}},
        },
        # A second factor only on request (acr_values), by text message or phone call.
        "client_sign_on": {"app": {"second_factor": "off", "factors": ["sms", "voice"]}},
    })
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        yield server, relay
    finally:
        server.stop()
        controller.stop()
        gateway.shutdown()


def wait_for(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_codes_go_out_by_smtp_with_starttls_and_by_webhook_each_after_a_retry_and_by_phone_call(delivery):
    server, relay = delivery
    flow = begin(server, "registration")
    answer = submit(server, flow["flow_id"], {"given_name": "Mail", "family_name": "Test", "email": "mail@example.com", "username": "mail",
                                              "phone_number": "+15550003333", "new_password": NEW_PASSWORD}).json()
    assert answer["node"]["id"] == "register.verify_email"

    # The relay refused the first attempt; the queue retried and the message arrived, over TLS, authenticated.
    wait_for(lambda: relay.messages)
    assert relay.refused == 1 and relay.tls_sessions == [True, True]
    envelope = relay.messages[0]
    assert envelope.mail_from == "no-reply@example.com" and envelope.rcpt_tos == ["mail@example.com"]
    message = email.message_from_bytes(envelope.original_content)
    assert message["Subject"] == "Confirm your address" and message["From"] == "Gatehouse Test <no-reply@example.com>"
    body = message.get_payload(decode=True).decode()
    code = body.split()[0]
    assert code.isdigit() and len(code) == 6
    record = outbox(server, "mail@example.com")[0]
    assert record["status"] == "sent" and record["attempts"] == 2

    answer = submit(server, flow["flow_id"], {"code": code}).json()
    assert answer["node"]["id"] == "register.verify_phone"
    # The gateway answered 503 first; the retry delivered the JSON with the bearer token.
    wait_for(lambda: Gateway.received)
    authorization, content_type, payload = Gateway.received[0]
    assert Gateway.calls == 2 and authorization == WEBHOOK_TOKEN and content_type == "application/json"
    assert payload["channel"] == "sms" and payload["to"] == "+15550003333" and payload["template"] == "verification_code"
    sms_code = payload["body"].split()[0]
    record = outbox(server, "+15550003333")[0]
    assert record["status"] == "sent" and record["attempts"] == 2 and record["id"] == payload["id"]
    done = submit(server, flow["flow_id"], {"code": sms_code}).json()
    assert done["status"] == "success"

    # Signing in with a second factor, the new account chooses a phone call: the voice gateway receives the code
    # spoken digit by digit.
    flow_id = start(server, acr_values="urn:gatehouse:acr:mfa").json()["flow_id"]
    choose = submit(server, flow_id, {"username": "mail", "password": NEW_PASSWORD}).json()["node"]
    assert choose["id"] == "mfa.choose" and [o["value"] for o in choose["fields"][0]["options"]] == ["sms", "voice"]
    call = submit(server, flow_id, {"factor": "voice"}).json()["node"]
    assert call["id"] == "mfa.voice" and "ending in 33" in call["description"]
    wait_for(lambda: Gateway.calls_placed)
    placed = Gateway.calls_placed[0]
    assert placed["channel"] == "voice" and placed["to"] == "+15550003333" and placed["template"] == "sign_in_code"
    spoken = re.match(r"((?:\d, ){5}\d) is your", placed["body"])
    assert spoken and placed["body"].endswith(f"Again, your code is: {spoken.group(1)}."), placed["body"]
    again = submit(server, flow_id, {}, action="resend").json()
    assert again["status"] == "error" and again["node"]["messages"][0]["code"] == "resend_too_soon"
    signed_in = submit(server, flow_id, {"code": spoken.group(1).replace(", ", "")}).json()
    assert signed_in["status"] == "success"
    claims = verify_id_token(server, exchange(server, signed_in["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "tel", "mfa"]
