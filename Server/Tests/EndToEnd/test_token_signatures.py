"""Every signature the server makes, checked by two verifiers that share no code with it: joserfc (authlib's JOSE
library) and Python's `cryptography` (OpenSSL underneath) working from the JWKS alone. RS256 ID tokens and JWT access
tokens are signed by OpenSSL's libcrypto on Linux, ES256 by swift-crypto; both are driven from many connections at once,
since one key signs on every core."""
import base64
import json
from concurrent.futures import ThreadPoolExecutor

import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from joserfc import jwt

from conftest import ES_SECRET, PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import authorize_url, Browser, key_set, redeem, redirect_parameters, refresh, verify_id_token

SIGNED_API = "https://signatures.example.com"
SIGNER_SECRET = "signature-worker-secret-0123456789-abcdefgh"


def unpadded(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def number(text: str) -> int:
    return int.from_bytes(unpadded(text), "big")


def verified_by_cryptography(server, token: str) -> dict:
    """Checks `token`'s signature with `cryptography` and the JWKS key its `kid` names; returns the header."""
    header_part, payload_part, signature_part = token.split(".")
    header = json.loads(unpadded(header_part))
    published = {key["kid"]: key for key in requests.get(server.issuer + "/jwks", timeout=10).json()["keys"]}
    jwk = published[header["kid"]]
    signing_input, signature = f"{header_part}.{payload_part}".encode(), unpadded(signature_part)
    if header["alg"] == "RS256":
        assert jwk["kty"] == "RSA" and len(signature) == 256
        key = rsa.RSAPublicNumbers(number(jwk["e"]), number(jwk["n"])).public_key()
        key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        try:
            key.verify(signature, signing_input + b"x", padding.PKCS1v15(), hashes.SHA256())
            raise AssertionError("a signature verified for another message")
        except InvalidSignature:
            pass
    elif header["alg"] == "ES256":
        assert jwk["kty"] == "EC" and jwk["crv"] == "P-256" and len(signature) == 64
        key = ec.EllipticCurvePublicNumbers(number(jwk["x"]), number(jwk["y"]), ec.SECP256R1()).public_key()
        r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(hashes.SHA256()))
    else:
        raise AssertionError(f"unexpected algorithm {header['alg']}")
    return header


def signed_in(server, client_id: str, secret: str) -> dict:
    response = Browser(server).sign_in(authorize_url(server, client_id=client_id), "alice", PASSWORD)
    answer = redeem(server, redirect_parameters(response)["code"], auth=(client_id, secret))
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_id_tokens_of_both_algorithms_verify_with_joserfc_and_cryptography_under_concurrent_refreshes(server):
    for client_id, secret, algorithm in (("web", WEB_SECRET, "RS256"), ("es-web", ES_SECRET, "ES256")):
        # One token family per worker: a refresh token is single use, so each worker refreshes its own in turn.
        families = [signed_in(server, client_id, secret) for _ in range(4)]

        def refreshes(tokens: dict) -> list[dict]:
            answers = [tokens]
            for _ in range(6):
                answer = refresh(server, answers[-1]["refresh_token"], auth=(client_id, secret))
                assert answer.status_code == 200, answer.text
                answers.append(answer.json())
            return answers

        with ThreadPoolExecutor(max_workers=len(families)) as pool:
            answers = [answer for chain in pool.map(refreshes, families) for answer in chain]
        assert len(answers) == 28
        assert len({answer["id_token"] for answer in answers}) == 28
        for answer in answers:
            claims = verify_id_token(server, answer, client_id, nonce=None, algorithm=algorithm)
            assert claims["sub"] and claims["aud"] == client_id
            header = verified_by_cryptography(server, answer["id_token"])
            assert header["alg"] == algorithm and header["typ"] == "JWT"

        # A changed byte anywhere fails both verifiers.
        token = answers[-1]["id_token"]
        head, payload, signature = token.split(".")
        flipped = f"{head}.{payload}.{signature[:10]}{'A' if signature[10] != 'A' else 'B'}{signature[11:]}"
        try:
            jwt.decode(flipped, key_set(server), algorithms=[algorithm])
            raise AssertionError("joserfc accepted a changed signature")
        except Exception as error:  # joserfc raises BadSignatureError
            assert "signature" in type(error).__name__.lower() or "signature" in str(error).lower(), error
        try:
            verified_by_cryptography(server, flipped)
            raise AssertionError("cryptography accepted a changed signature")
        except InvalidSignature:
            pass


def test_jwt_access_tokens_of_both_algorithms_verify_with_joserfc_and_cryptography(server):
    server.add_client("signature-worker", "https://worker.example.com/cb", secret=SIGNER_SECRET)
    for algorithm, api in (("RS256", SIGNED_API), ("ES256", SIGNED_API + "/es256")):
        options = [] if algorithm == "RS256" else ["--token-alg", "ES256"]  # RS256 is the default (RFC 9068 §4)
        added = server.cli("resources", "add", api, "--name", f"Signed API {algorithm}", "--scope", f"signed:{algorithm}=Read what is signed",
                           "--client", "signature-worker", *options)
        assert f"(jwt {algorithm} access tokens)" in added.stdout, added.stdout
        shown = json.loads(server.cli("resources", "show", api, "--json").stdout)
        assert shown["token_alg"] == algorithm and shown["token_format"] == "jwt"

        def issued(_: int) -> str:
            answer = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "resource": api,
                                                                   "scope": f"signed:{algorithm}"}, auth=("signature-worker", SIGNER_SECRET), timeout=10)
            assert answer.status_code == 200, answer.text
            return answer.json()["access_token"]

        with ThreadPoolExecutor(max_workers=8) as pool:
            tokens = list(pool.map(issued, range(40)))
        assert len(set(tokens)) == 40
        for token in tokens:
            decoded = jwt.decode(token, key_set(server), algorithms=[algorithm])
            assert decoded.header["typ"] == "at+jwt" and decoded.header["alg"] == algorithm
            assert decoded.claims["aud"] == api and decoded.claims["client_id"] == "signature-worker"
            assert verified_by_cryptography(server, token)["alg"] == algorithm


def test_a_token_algorithm_other_than_rs256_or_es256_is_refused(server):
    refused = server.cli("resources", "add", "https://hs.example.com", "--name", "HMAC API", "--token-alg", "HS256", check=False)
    assert refused.returncode != 0 and "RS256" in refused.stderr and "ES256" in refused.stderr, refused.stderr
    assert "hs.example.com" not in server.cli("resources", "list").stdout
