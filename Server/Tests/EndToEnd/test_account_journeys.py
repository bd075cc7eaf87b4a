"""Registration with confirmed email and phone, codes by email and SMS as second factors, password recovery
(which never skips an enrolled second factor), lock-out with self-service unlock, and password expiry — all
through the flow API, with the codes read from the development outbox by `gatehouse outbox`."""
import re
import time

import pyotp
import pytest
import requests

from conftest import APP_REDIRECT, ENGINES
from gatehouse_harness import NEW_PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, begin, Browser, exchange, forms, fresh_postgres_database, latest_code, outbox, redirect_parameters, Server, start, submit, verify_id_token


@pytest.fixture(scope="module", params=ENGINES)
def journeys(request):
    """Registration with an optional phone; `app` requires a second factor (email, SMS or TOTP) and lets people
    set up only TOTP during sign-in, `open-app` asks only users who enrolled one; codes may be resent after two seconds (the clock counts whole seconds, so one would leave no margin); three wrong passwords lock an account.
    One server per database engine: the single-use and counting rules are the database's."""
    factors = ["totp", "email", "sms"]
    database = {"database_url": fresh_postgres_database(), "owns_database": True} if request.param == "postgres" else {}
    server = Server(**database, config={
        "registration": {"enabled": True, "collect_phone": True},
        "sign_on": {"second_factor": "if_enrolled", "factors": factors},
        "client_sign_on": {"app": {"second_factor": "required", "factors": factors, "enroll": ["totp"], "max_code_attempts": 3}},
        "one_time_codes": {"resend_delay": 2, "max_attempts": 3},
        "login_throttling": {"max_failures": 3, "window": 900, "cooldown": 600},
    })
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_client("open-app", APP_REDIRECT, public=True)
        yield server
    finally:
        server.stop()


def node_of(answer):
    return answer["node"]


def register(server, username, email, phone=None, client_id="open-app"):
    flow = begin(server, "registration", client_id)
    flow_id = flow["flow_id"]
    values = {"given_name": "Grace", "family_name": "Hopper", "email": email, "username": username, "new_password": NEW_PASSWORD}
    if phone:
        values["phone_number"] = phone
    answer = submit(server, flow_id, values, client_id=client_id).json()
    assert answer["status"] == "continue" and node_of(answer)["id"] == "register.verify_email", answer
    answer = submit(server, flow_id, {"code": latest_code(server, email)}, client_id=client_id).json()
    if phone:
        assert node_of(answer)["id"] == "register.verify_phone" and node_of(answer)["category"] == "verification"
        answer = submit(server, flow_id, {"code": latest_code(server, phone)}, client_id=client_id).json()
    assert answer["status"] == "success", answer
    return answer


def test_registration_checks_the_form_then_confirms_email_and_phone(journeys):
    flow = begin(journeys, "registration", "open-app")
    node = node_of(flow)
    assert node["id"] == "register.profile" and node["category"] == "registration"
    assert [field["key"] for field in node["fields"]] == ["given_name", "family_name", "email", "phone_number", "username", "new_password"]
    flow_id = flow["flow_id"]
    base = {"given_name": "Ada", "family_name": "Lovelace", "email": "ada@example.com", "username": "ada"}
    common = submit(journeys, flow_id, dict(base, new_password="password123"), client_id="open-app").json()
    assert common["status"] == "error" and "most common" in common["node"]["messages"][0]["text"]
    assert {f["key"]: f.get("default_value") for f in common["node"]["fields"]}["email"] == "ada@example.com"
    short = submit(journeys, flow_id, dict(base, new_password="short"), client_id="open-app").json()
    assert short["status"] == "error"
    bad_phone = submit(journeys, flow_id, dict(base, new_password=NEW_PASSWORD, phone_number="12345"), client_id="open-app").json()
    assert bad_phone["status"] == "error" and bad_phone["node"]["messages"][0]["field"] == "phone_number"

    answer = submit(journeys, flow_id, dict(base, new_password=NEW_PASSWORD, phone_number="+15550001111"), client_id="open-app").json()
    assert node_of(answer)["id"] == "register.verify_email" and "ada@example.com" in node_of(answer)["description"]
    # Not created yet: the username is still free for an operator, and signing in fails.
    assert "ada" not in journeys.cli("users", "list").stdout
    message = outbox(journeys, "ada@example.com")[0]
    assert message["channel"] == "email" and message["template"] == "verification_code" and message["status"] in ("queued", "sent")
    code = latest_code(journeys, "ada@example.com")
    wrong = submit(journeys, flow_id, {"code": "000000" if code != "000000" else "111111"}, client_id="open-app").json()
    assert wrong["status"] == "error" and wrong["node"]["messages"][0]["code"] == "invalid_code"
    answer = submit(journeys, flow_id, {"code": code}, client_id="open-app").json()
    assert node_of(answer)["id"] == "register.verify_phone"
    # The outbox logs that a message arrived, never what it says: a code in a log is a code anyone with the logs can use.
    logs = journeys.stdout() + journeys.stderr()
    assert "ada@example.com" in logs and code not in logs
    # A username shaped like an email must be the registrant's own address.
    shaped = submit(journeys, begin(journeys, "registration", "open-app")["flow_id"],
                    dict(base, email="ada.l@example.com", username="ada@example.com", new_password=NEW_PASSWORD), client_id="open-app").json()
    assert shaped["status"] == "error" and shaped["node"]["messages"][0]["field"] == "username"
    sms = outbox(journeys, "+15550001111")[0]
    assert sms["channel"] == "sms" and re.search(r"\d{6}", sms["body"])
    done = submit(journeys, flow_id, {"code": latest_code(journeys, "+15550001111")}, client_id="open-app").json()
    assert done["status"] == "success"
    tokens = requests.post(journeys.issuer + "/token", data={
        "grant_type": "authorization_code", "code": done["authorization"]["code"], "client_id": "open-app",
        "redirect_uri": APP_REDIRECT, "code_verifier": RFC7636_VERIFIER}, timeout=10)
    assert tokens.status_code == 200, tokens.text
    claims = verify_id_token(journeys, tokens.json(), "open-app", "nn", "RS256")
    assert claims["preferred_username"] == "ada" and claims["given_name"] == "Ada" and claims["family_name"] == "Lovelace"
    assert claims["name"] == "Ada Lovelace"
    assert "ada" in journeys.cli("users", "list").stdout

    # The username is now taken, and says so; the email is taken too, but the form does not say so.
    again = begin(journeys, "registration", "open-app")
    taken = submit(journeys, again["flow_id"], dict(base, username="ada", email="other@example.com", new_password=NEW_PASSWORD),
                   client_id="open-app").json()
    assert taken["status"] == "error" and "taken" in taken["node"]["messages"][0]["text"]
    before = len(outbox(journeys, "ada@example.com"))
    same_email = submit(journeys, again["flow_id"], dict(base, username="ada2", new_password=NEW_PASSWORD), client_id="open-app").json()
    assert node_of(same_email)["id"] == "register.verify_email"
    notice = outbox(journeys, "ada@example.com")
    assert len(notice) == before + 1 and notice[0]["template"] == "account_exists" and not re.search(r"\d{6}", notice[0]["body"])


def test_guesses_beyond_the_limit_fail_the_step_and_a_resend_does_not_reset_them(journeys):
    flow = begin(journeys, "registration", "open-app")
    flow_id = flow["flow_id"]
    submit(journeys, flow_id, {"given_name": "Limit", "family_name": "Test", "email": "limit@example.com", "username": "limit",
                               "new_password": NEW_PASSWORD}, client_id="open-app")
    code = latest_code(journeys, "limit@example.com")
    wrong = "000000" if code != "000000" else "111111"
    assert submit(journeys, flow_id, {"code": wrong}, client_id="open-app").json()["status"] == "error"
    too_soon = submit(journeys, flow_id, {}, client_id="open-app", action="resend").json()
    assert too_soon["status"] == "error" and too_soon["node"]["messages"][0]["code"] == "resend_too_soon"
    time.sleep(2.1)
    resent = submit(journeys, flow_id, {}, client_id="open-app", action="resend")
    assert resent.status_code == 200 and resent.json()["node"]["messages"][0]["code"] == "code_sent"
    assert len(outbox(journeys, "limit@example.com")) == 2
    new_code = latest_code(journeys, "limit@example.com")
    assert new_code != code or True  # a fresh random code; equal only by chance
    assert submit(journeys, flow_id, {"code": wrong if wrong != new_code else "222222"}, client_id="open-app").json()["status"] == "error"
    last = submit(journeys, flow_id, {"code": "333333" if new_code != "333333" else "444444"}, client_id="open-app")
    assert last.status_code == 429 and last.json()["failure"]["error"] == "too_many_attempts"
    # The flow is gone: even the right code does nothing now.
    assert submit(journeys, flow_id, {"code": new_code}, client_id="open-app").status_code == 404


def test_email_and_sms_codes_as_second_factors_then_totp_enrollment(journeys):
    register(journeys, "grace", "grace@example.com", phone="+15550002222")
    flow = start(journeys).json()
    answer = submit(journeys, flow["flow_id"], {"username": "grace", "password": NEW_PASSWORD}).json()
    node = node_of(answer)
    # No second factor yet, but one is required: prove the email or phone first, then enroll TOTP, the only one
    # `app` lets people set up (a policy that allowed email would enroll the address just proven).
    assert node["id"] == "mfa.choose" and [o["value"] for o in node["fields"][0]["options"]] == ["email", "sms"]
    before = len(outbox(journeys, "grace@example.com"))
    answer = submit(journeys, flow["flow_id"], {"factor": "email"}).json()
    assert node_of(answer)["id"] == "mfa.email" and "g•••@example.com" in node_of(answer)["description"]
    code = latest_code(journeys, "grace@example.com", after=before)
    answer = submit(journeys, flow["flow_id"], {"code": code}).json()
    node = node_of(answer)
    assert node["id"] == "mfa.enroll.totp"
    totp = pyotp.parse_uri({f["key"]: f for f in node["fields"]}["otpauth"]["default_value"])
    answer = submit(journeys, flow["flow_id"], {"code": totp.now()}).json()
    assert node_of(answer)["id"] == "mfa.enroll.recovery_codes"
    done = submit(journeys, flow["flow_id"], {}).json()
    claims = verify_id_token(journeys, exchange(journeys, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["acr"] == "urn:gatehouse:acr:mfa"

    # Next time: every factor is offered; a text message code signs in.
    flow = start(journeys).json()
    answer = submit(journeys, flow["flow_id"], {"username": "grace", "password": NEW_PASSWORD}).json()
    assert [o["value"] for o in node_of(answer)["fields"][0]["options"]] == ["totp", "email", "sms", "recovery_code"]
    before = len(outbox(journeys, "+15550002222"))
    answer = submit(journeys, flow["flow_id"], {"factor": "sms"}).json()
    assert node_of(answer)["id"] == "mfa.sms" and "ending in 22" in node_of(answer)["description"]
    done = submit(journeys, flow["flow_id"], {"code": latest_code(journeys, "+15550002222", after=before)}).json()
    assert done["status"] == "success"
    claims = verify_id_token(journeys, exchange(journeys, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "sms", "mfa"]

    # Password recovery by SMS still asks for the enrolled second factor before the new password.
    flow = begin(journeys, "recovery")
    assert node_of(flow)["id"] == "recovery.identify" and node_of(flow)["category"] == "recovery"
    answer = submit(journeys, flow["flow_id"], {"username": "grace@example.com"}).json()
    assert node_of(answer)["id"] == "recovery.choose"
    before = len(outbox(journeys, "+15550002222"))
    answer = submit(journeys, flow["flow_id"], {"method": "sms"}).json()
    assert node_of(answer)["id"] == "recovery.code"
    answer = submit(journeys, flow["flow_id"], {"code": latest_code(journeys, "+15550002222", after=before)}).json()
    assert node_of(answer)["id"] == "mfa.choose" and node_of(answer)["category"] == "mfa_required", "recovery must not skip the second factor"
    answer = submit(journeys, flow["flow_id"], {"factor": "totp"}).json()
    answer = submit(journeys, flow["flow_id"], {"code": totp.at(time.time() + 30)}).json()  # the next step: enrollment used this one
    assert node_of(answer)["id"] == "recovery.password", answer
    common = submit(journeys, flow["flow_id"], {"new_password": "password1"}).json()
    assert common["status"] == "error" and common["node"]["messages"][0]["field"] == "new_password"
    done = submit(journeys, flow["flow_id"], {"new_password": "a brand new passphrase of hers"}).json()
    assert done["status"] == "success"
    old = submit(journeys, start(journeys).json()["flow_id"], {"username": "grace", "password": NEW_PASSWORD}).json()
    assert old["status"] == "error" and old["node"]["messages"][0]["code"] == "invalid_credentials"


def test_recovery_for_an_unknown_account_looks_the_same_and_sends_nothing(journeys):
    flow = begin(journeys, "recovery")
    answer = submit(journeys, flow["flow_id"], {"username": "nobody@example.com"}).json()
    assert node_of(answer)["id"] == "recovery.choose"
    answer = submit(journeys, flow["flow_id"], {"method": "email"}).json()
    assert node_of(answer)["id"] == "recovery.code" and "If nobody@example.com has the email address on file" in node_of(answer)["description"]
    assert outbox(journeys, "nobody@example.com") == []
    wrong = submit(journeys, flow["flow_id"], {"code": "123456"}).json()
    assert wrong["status"] == "error" and wrong["node"]["messages"][0]["code"] == "invalid_code"


def test_lockout_after_failures_and_self_service_unlock_by_email_code(journeys):
    journeys.add_user("bob", NEW_PASSWORD, email="bob@example.com")
    flow = start(journeys, client_id="open-app").json()
    flow_id = flow["flow_id"]
    for _ in range(3):
        submit(journeys, flow_id, {"username": "bob", "password": "wrong password"}, client_id="open-app")
    locked = submit(journeys, flow_id, {"username": "bob", "password": NEW_PASSWORD}, client_id="open-app").json()
    assert locked["status"] == "error" and locked["node"]["category"] == "locked_out"
    assert locked["node"]["messages"][0]["code"] == "throttled"
    assert "unlock" in [action["id"] for action in locked["node"]["actions"]]
    answer = submit(journeys, flow_id, {}, client_id="open-app", action="unlock").json()
    assert node_of(answer)["id"] == "unlock.code" and node_of(answer)["category"] == "locked_out"
    message = outbox(journeys, "bob@example.com")[0]
    assert message["template"] == "unlock_code"
    answer = submit(journeys, flow_id, {"code": latest_code(journeys, "bob@example.com")}, client_id="open-app").json()
    assert node_of(answer)["id"] == "login.credentials" and node_of(answer)["category"] == "sign_in"
    done = submit(journeys, flow_id, {"username": "bob", "password": NEW_PASSWORD}, client_id="open-app").json()
    assert done["status"] == "success"


def test_an_expired_password_must_be_changed(journeys):
    journeys.add_user("carol", NEW_PASSWORD, email="carol@example.com")
    journeys.cli("users", "require-password-change", "carol")
    flow = start(journeys, client_id="open-app").json()
    answer = submit(journeys, flow["flow_id"], {"username": "carol", "password": NEW_PASSWORD}, client_id="open-app").json()
    node = node_of(answer)
    assert node["id"] == "password.expired" and node["category"] == "password_expired"
    assert [a["id"] for a in node["actions"]] == ["submit"]  # no skipping
    same = submit(journeys, flow["flow_id"], {"new_password": NEW_PASSWORD}, client_id="open-app").json()
    assert same["status"] == "error" and "different" in same["node"]["messages"][0]["text"]
    done = submit(journeys, flow["flow_id"], {"new_password": "a fresh passphrase for her"}, client_id="open-app").json()
    assert done["status"] == "success"
    again = submit(journeys, start(journeys, client_id="open-app").json()["flow_id"], {"username": "carol", "password": "a fresh passphrase for her"},
                   client_id="open-app").json()
    assert again["status"] == "success"


@pytest.fixture(scope="module")
def short_lived():
    """Codes that live two seconds, and passwords that expire in 30 days with a 30-day warning (so always in it)."""
    server = Server(config={"registration": {"enabled": True}, "one_time_codes": {"lifetime": 2},
                            "password_policy": {"max_age_days": 30, "warning_days": 30}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        yield server
    finally:
        server.stop()


def refresh_grant(server, refresh_token, client_id="open-app"):
    return requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token,
                                                         "client_id": client_id}, timeout=10)


def test_a_password_change_signs_out_every_other_session_but_this_one(journeys):
    journeys.add_user("hedy", NEW_PASSWORD, email="hedy@example.com")
    url = journeys.issuer + "/authorize?" + requests.compat.urlencode({
        "response_type": "code", "client_id": "open-app", "redirect_uri": APP_REDIRECT, "scope": "openid offline_access",
        "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"})
    elsewhere = Browser(journeys)
    tokens = exchange(journeys, redirect_parameters(elsewhere.sign_in(url, "hedy", NEW_PASSWORD))["code"], client_id="open-app").json()
    rotated = refresh_grant(journeys, tokens["refresh_token"]).json()["refresh_token"]  # a live token, not a replay
    journeys.cli("users", "require-password-change", "hedy")
    here = Browser(journeys)
    page = here.submit_login(here.get(url + "&prompt=login"), "hedy", NEW_PASSWORD)
    assert 'name="new_password"' in page.text, page.text
    form = forms(page.text)[0]
    done = here.post(journeys.issuer + form["action"], dict(form["inputs"], new_password="a brand new passphrase for her"))
    assert "code" in redirect_parameters(done), done.text
    # This browser stays signed in; the other browser and the tokens issued before the change do not.
    assert "code" in redirect_parameters(here.get(url + "&prompt=none"))
    assert redirect_parameters(elsewhere.get(url + "&prompt=none"))["error"] == "login_required"
    assert refresh_grant(journeys, rotated).json()["error"] == "invalid_grant"


def test_a_code_past_its_lifetime_is_refused(short_lived):
    flow = begin(short_lived, "registration")
    submit(short_lived, flow["flow_id"], {"given_name": "Old", "family_name": "Code", "email": "old@example.com", "username": "old",
                                          "new_password": NEW_PASSWORD})
    code = latest_code(short_lived, "old@example.com")
    time.sleep(2.2)
    late = submit(short_lived, flow["flow_id"], {"code": code}).json()
    assert late["status"] == "error" and late["node"]["messages"][0]["code"] == "expired_code"


def test_a_password_in_its_warning_period_may_be_changed_or_kept(short_lived):
    short_lived.add_user("dave", NEW_PASSWORD, email="dave@example.com")
    flow = start(short_lived).json()
    answer = submit(short_lived, flow["flow_id"], {"username": "dave", "password": NEW_PASSWORD}).json()
    node = node_of(answer)
    assert node["id"] == "password.warning" and node["category"] == "password_warning"
    assert [a["id"] for a in node["actions"]] == ["submit", "skip"]
    done = submit(short_lived, flow["flow_id"], {}, action="skip").json()
    assert done["status"] == "success"


def test_hosted_page_links_to_recovery_and_registration(journeys):
    browser = Browser(journeys)
    page = browser.get(journeys.issuer + "/authorize?" + requests.compat.urlencode({
        "response_type": "code", "client_id": "open-app", "redirect_uri": APP_REDIRECT, "scope": "openid",
        "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256", "prompt": "create"}))
    assert page.status_code == 200 and "Create your account" in page.text and 'name="given_name"' in page.text
    form = forms(page.text)[0]
    fields = dict(form["inputs"], action="cancel")
    back = browser.post(journeys.issuer + form["action"], fields)
    assert "Forgot your password?" in back.text and "Create an account" in back.text


def sign_in_with_totp(server, username, password, code, client_id="app"):
    """A sign-in on a client that requires a second factor, answered with an authenticator code."""
    flow_id = start(server, client_id=client_id).json()["flow_id"]
    answer = submit(server, flow_id, {"username": username, "password": password}, client_id=client_id).json()
    assert node_of(answer)["id"] == "mfa.choose", answer
    submit(server, flow_id, {"factor": "totp"}, client_id=client_id)
    return submit(server, flow_id, {"code": code}, client_id=client_id).json()


def test_enrollment_journey_sets_up_then_replaces_the_authenticator_and_recovery_codes(journeys):
    register(journeys, "linus", "linus@example.com")
    # Nothing enrolled: the journey still asks for a second factor (the verified email), then offers what the
    # client's policy lets people set up, even on a client whose policy would not ask for one at sign-in.
    flow = begin(journeys, "enrollment", "open-app")
    assert node_of(flow)["id"] == "login.credentials" and "two-step verification" in node_of(flow)["description"]
    before = len(outbox(journeys, "linus@example.com"))
    answer = submit(journeys, flow["flow_id"], {"username": "linus", "password": NEW_PASSWORD}, client_id="open-app").json()
    assert node_of(answer)["id"] == "mfa.email", answer
    answer = submit(journeys, flow["flow_id"], {"code": latest_code(journeys, "linus@example.com", after=before)}, client_id="open-app").json()
    node = node_of(answer)
    assert node["id"] == "enroll.choose" and [o["value"] for o in node["fields"][0]["options"]] == ["totp", "phone", "email"], node
    answer = submit(journeys, flow["flow_id"], {"setup": "totp"}, client_id="open-app").json()
    assert node_of(answer)["id"] == "mfa.enroll.totp" and node_of(answer)["category"] == "mfa_enrollment"
    first = pyotp.parse_uri({f["key"]: f for f in node_of(answer)["fields"]}["otpauth"]["default_value"])
    answer = submit(journeys, flow["flow_id"], {"code": first.now()}, client_id="open-app").json()
    assert node_of(answer)["id"] == "mfa.enroll.recovery_codes"
    first_codes = node_of(answer)["fields"][0]["label"].split()
    assert len(first_codes) == 10
    done = submit(journeys, flow["flow_id"], {}, client_id="open-app").json()
    assert done["status"] == "success", done
    before_replacing = exchange(journeys, done["authorization"]["code"], client_id="open-app").json()
    claims = verify_id_token(journeys, before_replacing, "open-app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "otp", "mfa"]

    # Replace the authenticator: sign in with the current one, choose, confirm the new one.
    flow = begin(journeys, "enrollment", "open-app")
    answer = submit(journeys, flow["flow_id"], {"username": "linus", "password": NEW_PASSWORD}, client_id="open-app").json()
    assert [o["value"] for o in node_of(answer)["fields"][0]["options"]] == ["totp", "email", "recovery_code"]
    submit(journeys, flow["flow_id"], {"factor": "totp"}, client_id="open-app")
    answer = submit(journeys, flow["flow_id"], {"code": first.at(time.time() + 30)}, client_id="open-app").json()
    node = node_of(answer)
    assert node["id"] == "enroll.choose" and [o["value"] for o in node["fields"][0]["options"]] == ["totp", "phone", "email", "recovery_codes"], node
    answer = submit(journeys, flow["flow_id"], {"setup": "totp"}, client_id="open-app").json()
    second = pyotp.parse_uri({f["key"]: f for f in node_of(answer)["fields"]}["otpauth"]["default_value"])
    assert second.secret != first.secret
    wrong = submit(journeys, flow["flow_id"], {"code": first.at(time.time() + 60)}, client_id="open-app").json()
    assert wrong["status"] == "error" and node_of(wrong)["id"] == "mfa.enroll.totp", "the old app's code must not confirm the new one"
    answer = submit(journeys, flow["flow_id"], {"code": second.now()}, client_id="open-app").json()
    assert node_of(answer)["id"] == "mfa.enroll.recovery_codes"
    second_codes = node_of(answer)["fields"][0]["label"].split()
    assert submit(journeys, flow["flow_id"], {}, client_id="open-app").json()["status"] == "success"
    notices = [m["template"] for m in outbox(journeys, "linus@example.com")]
    assert notices.count("authenticator_changed") == 2, notices
    # Whoever held the old authenticator keeps no session: tokens issued before the replacement are revoked.
    assert refresh_grant(journeys, before_replacing["refresh_token"]).json()["error"] == "invalid_grant"

    # The old app's codes and the old recovery codes no longer sign in; the new ones do.
    refused = sign_in_with_totp(journeys, "linus", NEW_PASSWORD, first.at(time.time() + 90))
    assert refused["status"] == "error" and node_of(refused)["messages"][0]["code"] == "invalid_code"
    assert sign_in_with_totp(journeys, "linus", NEW_PASSWORD, second.at(time.time() + 30))["status"] == "success"
    flow_id = start(journeys).json()["flow_id"]
    submit(journeys, flow_id, {"username": "linus", "password": NEW_PASSWORD})
    submit(journeys, flow_id, {"factor": "recovery_code"})
    assert submit(journeys, flow_id, {"code": first_codes[0]}).json()["status"] == "error"
    assert submit(journeys, flow_id, {"code": second_codes[0]}).json()["status"] == "success"

    # New recovery codes only: the authenticator stays, the earlier codes stop working.
    flow = begin(journeys, "enrollment", "open-app")
    submit(journeys, flow["flow_id"], {"username": "linus", "password": NEW_PASSWORD}, client_id="open-app")
    submit(journeys, flow["flow_id"], {"factor": "recovery_code"}, client_id="open-app")
    answer = submit(journeys, flow["flow_id"], {"code": second_codes[1]}, client_id="open-app").json()
    assert node_of(answer)["id"] == "enroll.choose", answer
    answer = submit(journeys, flow["flow_id"], {"setup": "recovery_codes"}, client_id="open-app").json()
    third_codes = node_of(answer)["fields"][0]["label"].split()
    assert node_of(answer)["id"] == "mfa.enroll.recovery_codes" and len(third_codes) == 10 and not set(third_codes) & set(second_codes)
    assert submit(journeys, flow["flow_id"], {}, client_id="open-app").json()["status"] == "success"
    assert outbox(journeys, "linus@example.com")[0]["template"] == "recovery_codes_changed"
    flow_id = start(journeys).json()["flow_id"]
    submit(journeys, flow_id, {"username": "linus", "password": NEW_PASSWORD})
    submit(journeys, flow_id, {"factor": "recovery_code"})
    assert submit(journeys, flow_id, {"code": second_codes[2]}).json()["status"] == "error"
    assert submit(journeys, flow_id, {"code": third_codes[0]}).json()["status"] == "success"
    answer = submit(journeys, start(journeys).json()["flow_id"], {"username": "linus", "password": NEW_PASSWORD}).json()
    assert "totp" in [o["value"] for o in node_of(answer)["fields"][0]["options"]], "new recovery codes keep the authenticator"
