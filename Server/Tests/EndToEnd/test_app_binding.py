"""An attacker who can read only a person's mailbox binds an authenticator app to their address (the code comes by
email), sets its PIN, and approves a QR sign-in as that person. The app then counts as the one factor its binding
proved — the mailbox — so the person's enrolled second factor is still asked for, never by email again; a request for
the multi-factor acr (acr_values) is met by a real second factor or not at all. The attacker is this script with
`gatehouse authenticator` as the phone and the flow API as the browser; on SQLite, and on PostgreSQL with two nodes
sharing the database (the app on one, the browser on the other)."""
import base64
import json
import time

import pyotp
import pytest

from conftest import ENGINES
from app_approval import approve_qr_sign_in, bind_app, node_id, start, submit
from gatehouse_harness import APP_REDIRECT, PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, balanced_nodes, latest_code, session_from

MFA = "urn:gatehouse:acr:mfa"
CONFIG = {
    "sign_on": {"second_factor": "if_enrolled", "factors": ["totp", "email"], "app_login": True},
    "client_sign_on": {"enroll-app": {"second_factor": "required", "factors": ["totp"]}},
    "authenticator": {"registrations_per_hour": 20},
}


def prepare(node):
    node.add_user("victim", PASSWORD, email="victim@example.com")
    node.add_user("plain", PASSWORD, email="plain@example.com")
    node.add_client("app", APP_REDIRECT, public=True)
    node.add_client("enroll-app", APP_REDIRECT, public=True)


@pytest.fixture(scope="module", params=ENGINES)
def nodes(request):
    # Each node under its own address: the app keeps to the node it registered with, the browser uses the other.
    with balanced_nodes(request.param, prepare, CONFIG, shared_issuer=False) as started:
        yield started


def id_token_claims(session, node, code):
    tokens = session.post(node.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "client_id": "app",
                                                        "redirect_uri": APP_REDIRECT, "code_verifier": RFC7636_VERIFIER}, timeout=10).json()
    return json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "==="))


def fresh_totp_code(totp, used_at):
    """A code of the step after the one used at `used_at` (a TOTP code works once; the server allows a step of drift)."""
    return totp.at((int(used_at) // 30 + 1) * 30)


def choose_totp(session, node, flow, answer):
    """The second-factor choice after the app: the enrolled factors, never a code by email; TOTP chosen."""
    assert answer["status"] == "continue" and node_id(answer) == "mfa.choose", answer
    options = {option["value"] for field in answer["node"]["fields"] for option in field.get("options") or []}
    assert options == {"totp", "recovery_code"}, options
    return submit(session, node, flow, {"factor": "totp"})


def enroll_totp(node, username):
    """The owner's own sign-in to a client that requires a second factor: enrolls TOTP."""
    owner = session_from("127.0.0.1")
    flow = start(owner, node, client_id="enroll-app")["flow_id"]
    answer = submit(owner, node, flow, {"username": username, "password": PASSWORD}, client_id="enroll-app")
    totp = pyotp.parse_uri({field["key"]: field for field in answer["node"]["fields"]}["otpauth"]["default_value"])
    answer = submit(owner, node, flow, {"code": totp.now()}, client_id="enroll-app")
    assert node_id(answer) == "mfa.enroll.recovery_codes", answer
    assert submit(owner, node, flow, {}, client_id="enroll-app")["status"] == "success"
    return totp


def test_a_mailbox_alone_never_gets_past_the_victims_second_factor(nodes, tmp_path):
    first, last = nodes[0], nodes[-1]
    enroll_totp(first, "victim")
    attacker = session_from("127.0.0.9")
    bind_app(last, tmp_path / "attacker-phone", "victim@example.com")

    # The app's approval is not a sign-in: the victim's TOTP is asked for next, and email is not among the ways.
    flow, answer = approve_qr_sign_in(first, last, tmp_path / "attacker-phone", attacker)
    assert "authorization" not in answer
    answer = choose_totp(attacker, last, flow, answer)
    assert node_id(answer) == "mfa.totp", answer
    again = submit(attacker, last, flow, {"code": "000000"})
    assert again["status"] == "error" and node_id(again) == "mfa.totp" and "authorization" not in again

    # Asking for the multi-factor acr changes nothing for the attacker: the same TOTP stands in the way.
    flow, answer = approve_qr_sign_in(first, last, tmp_path / "attacker-phone", attacker, acr_values=MFA)
    assert "authorization" not in answer
    assert node_id(choose_totp(attacker, first, flow, answer)) == "mfa.totp"


def test_without_a_second_factor_the_app_cannot_claim_one(nodes, tmp_path):
    first, last = nodes[0], nodes[-1]
    attacker = session_from("127.0.0.9")
    bind_app(last, tmp_path / "phone", "plain@example.com")
    # The relying party asks for two factors; the account has only its password and its (verified) address. The app
    # proved the address, so a code to it adds nothing: the person is sent to the password instead, with no code.
    flow, answer = approve_qr_sign_in(first, last, tmp_path / "phone", attacker, acr_values=MFA)
    assert answer["status"] == "error" and node_id(answer) == "login.credentials", answer
    assert answer["node"]["messages"][0]["code"] == "app_login_insufficient"
    assert "authorization" not in answer
    # Without acr_values and with nothing enrolled, the policy asks no second factor: the app signs in, as one factor.
    _, signed_in = approve_qr_sign_in(first, last, tmp_path / "phone", attacker)
    assert signed_in["status"] == "success", signed_in
    claims = id_token_claims(attacker, first, signed_in["authorization"]["code"])
    assert claims["amr"] == ["swk", "pin"] and claims["acr"] == "urn:gatehouse:acr:password", claims


def test_the_owner_with_their_app_and_their_totp_gets_the_multi_factor_acr(nodes, tmp_path):
    first, last = nodes[0], nodes[-1]
    owner = session_from("127.0.0.1")
    totp = enroll_totp(first, "plain")
    enrolled_at = time.time()
    bind_app(last, tmp_path / "owners-phone", "plain@example.com")
    flow, answer = approve_qr_sign_in(first, last, tmp_path / "owners-phone", owner, acr_values=MFA)
    assert node_id(choose_totp(owner, first, flow, answer)) == "mfa.totp"
    done = submit(owner, last, flow, {"code": fresh_totp_code(totp, enrolled_at)})
    assert done["status"] == "success", done
    claims = id_token_claims(owner, first, done["authorization"]["code"])
    assert claims["acr"] == MFA and set(claims["amr"]) >= {"swk", "pin", "otp", "mfa"}, claims


def test_a_recovery_that_cannot_give_the_requested_acr_is_refused(nodes):
    """acr_values for two factors on a path that ends with one (a reset by email, nothing else enrolled) is refused with
    OpenID Connect's unmet_authentication_requirements, never handed over as the weaker sign-in."""
    first, last = nodes[0], nodes[-1]
    first.add_user("lone", PASSWORD, email="lone@example.com")
    person = session_from("127.0.0.1")
    body = {"client_id": "app", "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "st", "nonce": "nn", "acr_values": MFA,
            "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    flow = person.post(first.issuer + "/flows/recovery", json=body, timeout=10).json()["flow_id"]
    answer = submit(person, first, flow, {"username": "lone"})
    if node_id(answer) == "recovery.choose":
        answer = submit(person, last, flow, {"method": "email"})
    assert node_id(answer) == "recovery.code", answer
    answer = submit(person, first, flow, {"code": latest_code(first, "lone@example.com")})
    assert node_id(answer) == "recovery.password", answer
    answer = submit(person, last, flow, {"new_password": "another long passphrase 9876"})
    assert answer["status"] == "failure" and answer["failure"]["error"] == "unmet_authentication_requirements", answer
    assert "authorization" not in answer
