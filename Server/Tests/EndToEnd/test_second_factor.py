"""Sign-in with a second factor: TOTP enrollment and challenge, checked with pyotp (an independent TOTP
implementation), replay and guess limits, recovery codes, amr/acr in the ID token, step-up by acr_values,
the hosted pages. (The terminal client walks the same steps in test_terminal_walkthrough.py.)"""
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlencode, urlparse

import pyotp
import pytest

from conftest import APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import RFC7636_CHALLENGE, RFC7636_VERIFIER, Browser, exchange, forms, redirect_parameters, Server, start, submit, verify_id_token

MFA_ACR = "urn:gatehouse:acr:mfa"


@pytest.fixture(scope="module")
def mfa_server():
    """The app must use a second factor; the web client asks for one from users who enrolled one."""
    server = Server(config={"sign_on": {"second_factor": "if_enrolled"},
                            "client_sign_on": {"app": {"second_factor": "required", "max_code_attempts": 3}}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        yield server
    finally:
        server.stop()


def password_step(server, username):
    flow = start(server).json()
    answer = submit(server, flow["flow_id"], {"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return flow["flow_id"], answer.json()


def enroll(server, username):
    """Signs in for the first time: the password, then TOTP enrollment. Returns the pyotp generator, the
    recovery codes, the ID token's claims and the code that confirmed enrollment (a later `now()` may already be the
    next time step's)."""
    flow_id, answer = password_step(server, username)
    node = answer["node"]
    assert answer["status"] == "continue" and node["id"] == "mfa.enroll.totp" and node["category"] == "mfa_enrollment"
    fields = {field["key"]: field for field in node["fields"]}
    assert fields["otpauth"]["type"] == "qr_code" and fields["code"]["type"] == "one_time_code"
    uri = fields["otpauth"]["default_value"]
    parsed = pyotp.parse_uri(uri)
    assert parsed.name == username and parsed.digits == 6 and parsed.interval == 30
    assert parse_qs(urlparse(uri).query)["algorithm"] == ["SHA1"]
    # The key shown for typing matches the QR code's secret.
    assert fields["secret"]["label"].replace(" ", "").endswith(parsed.secret)

    wrong = submit(server, flow_id, {"code": "000000" if parsed.now() != "000000" else "111111"}).json()
    assert wrong["status"] == "error" and wrong["node"]["messages"][0]["code"] == "invalid_code"
    confirming_code = parsed.now()
    codes_node = submit(server, flow_id, {"code": confirming_code}).json()
    assert codes_node["status"] == "continue" and codes_node["node"]["id"] == "mfa.enroll.recovery_codes"
    codes = codes_node["node"]["fields"][0]["label"].split()
    assert len(codes) == 10 and len(set(codes)) == 10 and all(re.fullmatch(r"[a-z2-7]{5}-[a-z2-7]{5}", c) for c in codes)
    done = submit(server, flow_id, {}).json()
    assert done["status"] == "success"
    tokens = exchange(server, done["authorization"]["code"])
    assert tokens.status_code == 200, tokens.text
    return parsed, codes, verify_id_token(server, tokens.json(), "app", "nn", "RS256"), confirming_code


def test_totp_enrollment_then_sign_in_with_the_next_code(mfa_server):
    mfa_server.add_user("tess", PASSWORD)
    totp, _, claims, confirming_code = enroll(mfa_server, "tess")
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["acr"] == MFA_ACR

    flow_id, answer = password_step(mfa_server, "tess")
    node = answer["node"]
    assert node["id"] == "mfa.choose" and node["category"] == "mfa_required"
    assert [o["value"] for o in node["fields"][0]["options"]] == ["totp", "recovery_code"]
    challenge = submit(mfa_server, flow_id, {"factor": "totp"}).json()["node"]
    assert challenge["id"] == "mfa.totp" and challenge["category"] == "mfa_challenge"
    assert [a["id"] for a in challenge["actions"]] == ["submit", "choose"]

    # The code that confirmed enrollment was used: it is refused as a replay.
    replay = submit(mfa_server, flow_id, {"code": confirming_code}).json()
    assert replay["status"] == "error" and "already used" in replay["node"]["messages"][0]["text"]
    # The next step's code is inside the clock-skew window and is accepted once.
    next_code = totp.at(time.time() + 30)
    done = submit(mfa_server, flow_id, {"code": next_code}).json()
    assert done["status"] == "success"
    claims = verify_id_token(mfa_server, exchange(mfa_server, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "otp", "mfa"]

    flow_id, _ = password_step(mfa_server, "tess")
    submit(mfa_server, flow_id, {"factor": "totp"})
    again = submit(mfa_server, flow_id, {"code": next_code}).json()
    assert again["status"] == "error" and "already used" in again["node"]["messages"][0]["text"]
    # A code from two steps away is outside the window.
    far = submit(mfa_server, flow_id, {"code": totp.at(time.time() - 90)}).json()
    assert far["status"] == "error" and far["node"]["messages"][0]["text"] == "The code is incorrect."


def test_wrong_codes_beyond_the_limit_end_the_flow(mfa_server):
    mfa_server.add_user("gus", PASSWORD)
    totp, _, _, _ = enroll(mfa_server, "gus")
    flow_id, _ = password_step(mfa_server, "gus")
    submit(mfa_server, flow_id, {"factor": "totp"})
    good = totp.at(time.time() + 30)
    wrong = "123456" if good != "123456" else "654321"
    for _ in range(2):
        assert submit(mfa_server, flow_id, {"code": wrong}).json()["status"] == "error"
    ended = submit(mfa_server, flow_id, {"code": wrong})
    assert ended.status_code == 429
    assert ended.json()["status"] == "failure" and ended.json()["failure"]["error"] == "too_many_attempts"
    # The flow is gone: even the right code cannot finish it now.
    assert submit(mfa_server, flow_id, {"code": good}).status_code == 404


def test_concurrent_wrong_codes_are_checked_at_most_the_limit(mfa_server):
    """Ten wrong codes at once on one flow: the count is taken in the database before each check, so no more than
    `max_code_attempts` (3) are looked at. (Counted in the flow's state, all ten could read "0 so far".)"""
    mfa_server.add_user("vera", PASSWORD)
    totp, _, _, _ = enroll(mfa_server, "vera")
    flow_id, _ = password_step(mfa_server, "vera")
    submit(mfa_server, flow_id, {"factor": "totp"})
    wrong = "123456" if totp.now() != "123456" and totp.at(time.time() + 30) != "123456" else "654321"
    barrier = threading.Barrier(10)

    def guess(_):
        barrier.wait(timeout=10)
        return submit(mfa_server, flow_id, {"code": wrong})

    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(guess, range(10)))
    statuses = [a.status_code for a in answers]
    checked_and_wrong = [a for a in answers if a.status_code == 200 and a.json()["node"]["messages"][0]["code"] == "invalid_code"]
    assert len(checked_and_wrong) <= 2, f"more codes were checked than the limit allows: {statuses}"
    assert all(code in (200, 404, 429) for code in statuses), statuses
    assert 429 in statuses, "the guess that used up the limit ends the flow"
    assert submit(mfa_server, flow_id, {"code": totp.at(time.time() + 30)}).status_code == 404
    # At most three wrong codes reached the account's failure count (five lock it): the password still signs in.
    _, answer = password_step(mfa_server, "vera")
    assert answer["node"]["id"] == "mfa.choose", answer


def test_recovery_code_signs_in_once_and_the_code_field_is_checked(mfa_server):
    mfa_server.add_user("ria", PASSWORD)
    _, codes, _, _ = enroll(mfa_server, "ria")
    flow_id, _ = password_step(mfa_server, "ria")
    node = submit(mfa_server, flow_id, {"factor": "recovery_code"}).json()["node"]
    assert node["id"] == "mfa.recovery_code"
    # Typed back in capitals is the same code.
    done = submit(mfa_server, flow_id, {"code": codes[0].upper()}).json()
    assert done["status"] == "success"
    flow_id, _ = password_step(mfa_server, "ria")
    submit(mfa_server, flow_id, {"factor": "recovery_code"})
    reused = submit(mfa_server, flow_id, {"code": codes[0]}).json()
    assert reused["status"] == "error" and "already used" in reused["node"]["messages"][0]["text"]
    # "Use another method" goes back to the choice without checking the empty field.
    back = submit(mfa_server, flow_id, {}, action="choose").json()
    assert back["status"] == "continue" and back["node"]["id"] == "mfa.choose"


def test_hosted_page_asks_enrolled_users_and_acr_values_steps_up(mfa_server):
    mfa_server.add_user("hana", PASSWORD)
    totp, _, _, _ = enroll(mfa_server, "hana")
    mfa_server.add_user("otto", PASSWORD)  # no second factor

    def authorize(browser, **extra):
        query = {"response_type": "code", "client_id": "web", "redirect_uri": WEB_REDIRECT, "scope": "openid", "state": "s1", "nonce": "n1",
                 "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
        query.update(extra)
        return f"{mfa_server.issuer}/authorize?{urlencode(query)}"

    # if_enrolled: a user without a second factor signs in with the password alone.
    otto = Browser(mfa_server)
    assert "code" in redirect_parameters(otto.sign_in(authorize(otto), "otto", PASSWORD))
    # ...but a request for the multi-factor acr makes him enroll one.
    stepped = otto.sign_in(authorize(otto, acr_values=MFA_ACR, prompt="login"), "otto", PASSWORD)
    assert stepped.status_code == 200 and 'data-node="mfa.enroll.totp"' in stepped.text
    assert "<svg" in stepped.text and "otpauth://totp/" not in stepped.text.split("<svg")[0]

    browser = Browser(mfa_server)
    page = browser.sign_in(authorize(browser), "hana", PASSWORD)
    assert page.status_code == 200 and 'data-node="mfa.choose"' in page.text
    form = forms(page.text)[0]
    data = dict(form["inputs"]) | {"factor": "totp"}
    page = browser.post(mfa_server.issuer + form["action"], data)
    assert 'data-node="mfa.totp"' in page.text and 'autocomplete="one-time-code"' in page.text
    form = forms(page.text)[0]
    wrong = browser.post(mfa_server.issuer + form["action"], dict(form["inputs"]) | {"code": "000000", "action": "submit"})
    assert wrong.status_code == 401 and "incorrect" in wrong.text
    form = forms(wrong.text)[0]
    done = browser.post(mfa_server.issuer + form["action"], dict(form["inputs"]) | {"code": totp.at(time.time() + 30), "action": "submit"})
    code = redirect_parameters(done)["code"]
    tokens = browser.session.post(mfa_server.issuer + "/token", data={"grant_type": "authorization_code", "code": code,
                                                                     "redirect_uri": WEB_REDIRECT, "code_verifier": RFC7636_VERIFIER},
                                  auth=("web", WEB_SECRET), timeout=10)
    claims = verify_id_token(mfa_server, tokens.json(), "web", "n1", "RS256")
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["acr"] == MFA_ACR

    # The browser session already has both factors: a request for the multi-factor acr is answered at once.
    again = browser.get(authorize(browser, acr_values=MFA_ACR))
    assert "code" in redirect_parameters(again)


def test_discovery_lists_the_acr_values(mfa_server):
    import requests
    metadata = requests.get(mfa_server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["acr_values_supported"] == ["urn:gatehouse:acr:password", MFA_ACR]


def test_the_right_password_sent_twice_at_once_moves_the_flow_on_once(mfa_server):
    """A double tap on a flow that continues to TOTP enrollment: before flows were written with a version check, both
    answers continued, each with its own secret (20 of 20 trials). Now exactly one continues; the other is told the step
    was already answered and shown where the flow is, with the same QR code."""
    codes = []
    for trial in range(5):
        username = f"twin{trial}"
        mfa_server.add_user(username, PASSWORD)
        flow_id = start(mfa_server).json()["flow_id"]
        with ThreadPoolExecutor(max_workers=2) as pool:
            answers = list(pool.map(lambda _: submit(mfa_server, flow_id, {"username": username, "password": PASSWORD}).json(), range(2)))
        statuses = sorted(answer["status"] for answer in answers)
        assert statuses == ["continue", "error"], answers
        loser = next(answer for answer in answers if answer["status"] == "error")
        winner = next(answer for answer in answers if answer["status"] == "continue")
        # Both show the one enrollment that was stored: the loser read the flow before the winner wrote it (and is told
        # the step was already answered) or after (and is asked for the code the enrollment node wants).
        assert winner["node"]["id"] == loser["node"]["id"] == "mfa.enroll.totp", answers
        secrets_shown = {tuple(f["default_value"] for f in answer["node"]["fields"] if f["key"] == "otpauth") for answer in answers}
        assert len(secrets_shown) == 1
        codes.append(loser["node"]["messages"][0].get("code"))
    print(f"double tap: the second copy was {codes.count('already_answered')} times already answered, otherwise asked for a code")
