"""A passkey in Python for tests that drive the flow API without a browser: one P-256 credential with `none`
attestation, user verified, counting its signatures."""
import base64
import hashlib
import json
import os

from gatehouse_harness import b64url


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PythonAuthenticator:
    """One P-256 passkey, `none` attestation, user verified, counting signatures."""

    def __init__(self, origin):
        from cryptography.hazmat.primitives.asymmetric import ec
        self.origin = origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = None

    def client_data(self, kind, options):
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": self.origin, "crossOrigin": False}).encode()

    def create(self, options):
        import cbor2
        self.user_handle = unb64(options["user"]["id"])
        numbers = self.key.public_key().public_numbers()
        key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        data = (hashlib.sha256(options["rp"]["id"].encode()).digest() + bytes([0x45]) + self.counter.to_bytes(4, "big") + bytes(16)
                + len(self.credential_id).to_bytes(2, "big") + self.credential_id + key)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64url(self.client_data("webauthn.create", options)), "attestationObject": b64url(attestation),
                             "transports": ["usb"]}}

    def get(self, options):
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        self.counter += 1
        data = hashlib.sha256(options["rpId"].encode()).digest() + bytes([0x05]) + self.counter.to_bytes(4, "big")
        client_data = self.client_data("webauthn.get", options)
        signature = self.key.sign(data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(data), "signature": b64url(signature),
                             "userHandle": b64url(self.user_handle)}}


def passkey_options(answer):
    node = answer["node"]
    field = next(f for f in node["fields"] if f["type"] in ("passkey_create", "passkey_get"))
    return json.loads(field["default_value"])
