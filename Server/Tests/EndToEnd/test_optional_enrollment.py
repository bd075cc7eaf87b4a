"""An offered second factor (`optional_enrollment` under `if_enrolled`): after the password, a user without a
second factor is offered to set one up and may answer "Not now", which keeps the offer away for a while —
through the flow API, the hosted page and the terminal client."""
import os

import pexpect
import pyotp
import pytest

from conftest import APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import Browser, Server, authorize_url, binary, exchange, forms, redirect_parameters, start, submit, verify_id_token

CLI_CLIENT = "gatehouse-cli"
CLI_REDIRECT = "dev.gatehouse.cli:/callback"


@pytest.fixture(scope="module")
def offer_server():
    server = Server(config={"sign_on": {"second_factor": "if_enrolled", "optional_enrollment": True, "enrollment_reminder_days": 3}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client(CLI_CLIENT, CLI_REDIRECT, public=True)
        yield server
    finally:
        server.stop()


def test_flow_api_offers_then_remembers_not_now_and_sets_up_when_accepted(offer_server):
    offer_server.add_user("nora", PASSWORD)
    flow_id = start(offer_server).json()["flow_id"]
    offer = submit(offer_server, flow_id, {"username": "nora", "password": PASSWORD}).json()
    node = offer["node"]
    assert offer["status"] == "continue" and node["id"] == "mfa.enroll.choose" and node["category"] == "mfa_enrollment_required"
    assert [a["id"] for a in node["actions"]] == ["submit", "skip"]
    assert [o["value"] for o in node["fields"][0]["options"]] == ["totp"]
    skipped = submit(offer_server, flow_id, {}, action="skip").json()
    assert skipped["status"] == "success"
    claims = verify_id_token(offer_server, exchange(offer_server, skipped["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd"]
    # Remembered: the next sign-in is the password alone.
    again = start(offer_server).json()["flow_id"]
    assert submit(offer_server, again, {"username": "nora", "password": PASSWORD}).json()["status"] == "success"

    # Another user accepts: the offer leads to TOTP enrollment, checked with pyotp.
    offer_server.add_user("ravi", PASSWORD)
    flow_id = start(offer_server).json()["flow_id"]
    submit(offer_server, flow_id, {"username": "ravi", "password": PASSWORD})
    setup = submit(offer_server, flow_id, {"factor": "totp"}).json()["node"]
    assert setup["id"] == "mfa.enroll.totp"
    totp = pyotp.parse_uri(next(f["default_value"] for f in setup["fields"] if f["key"] == "otpauth"))
    assert submit(offer_server, flow_id, {"code": totp.now()}).json()["node"]["id"] == "mfa.enroll.recovery_codes"
    done = submit(offer_server, flow_id, {}).json()
    claims = verify_id_token(offer_server, exchange(offer_server, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "otp", "mfa"]
    # A factor that was not offered is refused.
    offer_server.add_user("tom", PASSWORD)
    flow_id = start(offer_server).json()["flow_id"]
    submit(offer_server, flow_id, {"username": "tom", "password": PASSWORD})
    refused = submit(offer_server, flow_id, {"factor": "sms"}).json()
    assert refused["status"] == "error" and refused["node"]["id"] == "mfa.enroll.choose"
    assert refused["node"]["messages"][0]["field"] == "factor" and refused["node"]["messages"][0]["code"] == "invalid_value"


def test_hosted_page_has_a_not_now_button_that_signs_in(offer_server):
    offer_server.add_user("hedy", PASSWORD)
    browser = Browser(offer_server)
    page = browser.sign_in(authorize_url(offer_server), "hedy", PASSWORD)
    assert page.status_code == 200 and 'data-node="mfa.enroll.choose"' in page.text and "Not now" in page.text
    form = forms(page.text)[0]
    done = browser.post(offer_server.issuer + form["action"], dict(form["inputs"]) | {"action": "skip"})
    assert "code" in redirect_parameters(done)


def test_terminal_login_offers_set_up_or_not_now(offer_server, tmp_path):
    offer_server.add_user("lin", PASSWORD)
    session = pexpect.spawn(binary(), ["login", "--issuer", offer_server.issuer, "--home", str(tmp_path)], encoding="utf-8", timeout=60,
                            env=dict(os.environ, COLUMNS="120"))
    session.expect("Username: ")
    session.sendline("lin")
    session.expect("Password: ")
    session.sendline(PASSWORD)
    session.expect("Protect your account")
    session.expect(r"2\) Not now")
    session.expect("Number: ")
    session.sendline("2")
    session.expect("Signed in as lin")
    session.expect(pexpect.EOF)
    session.close()
    assert session.exitstatus == 0
