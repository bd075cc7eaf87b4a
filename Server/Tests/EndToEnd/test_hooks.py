"""Hooks: the operator's endpoint asked before tokens are issued, its requests checked by an independent Standard
Webhooks implementation (the `standardwebhooks` package); the claims it adds appear in the ID token, and a hook that is
slow, answers garbage or reaches outside its namespace is a failure handled as its policy says. A hook at `events` is
told of the audit events it names, in order, again until it accepts."""
import json
import time
from urllib.parse import parse_qs, quote, urlparse

import pytest
import requests
from joserfc import jwt

from app_approval import approve_qr_sign_in, bind_app, node_id
from conftest import APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import (authorize_url, begin, Browser, free_port, gatehouse, key_set, latest_code, outbox, redeem, redirect_parameters,
                               refresh, Server, start, submit)
from hook_receiver import NAMESPACE, Receiver, SECRET
from soft_passkey import PythonAuthenticator, passkey_options
from upstream_standin import StandIn, Visit

API = "https://orders.example.com/"


def hooked_server(receiver: Receiver, failure: str) -> Server:
    server = Server(config={"hooks": [{"id": "claims", "url": f"http://127.0.0.1:{receiver.port}/hooks/tokens", "secret": SECRET,
                                       "points": ["tokens"], "timeout": 1, "failure": failure, "claims_namespace": NAMESPACE}]})
    server.add_user("alice", PASSWORD)
    server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    server.cli("resources", "add", API, "--name", "Orders API")
    return server


def signed_in(server):
    return redeem(server, redirect_parameters(Browser(server).sign_in(authorize_url(server), "alice", PASSWORD))["code"])


@pytest.fixture(scope="module")
def receiver():
    started = Receiver()
    yield started
    started.stop()


def test_a_hook_adds_claims_to_the_id_token_and_is_told_who_and_why(receiver):
    server = hooked_server(receiver, "deny")
    try:
        receiver.mode = "claims"
        answer = signed_in(server)
        assert answer.status_code == 200, answer.text
        claims = jwt.decode(answer.json()["id_token"], key_set(server), algorithms=["RS256"]).claims
        assert claims[NAMESPACE + "roles"] == ["admin", "ops"] and claims[NAMESPACE + "team"] == {"name": "blue", "size": 3}
        assert claims["sub"] and claims["aud"] == "web"
        told = receiver.requests[-1]
        assert told["type"] == "tokens" and told["client_id"] == "web" and told["grant_type"] == "authorization_code"
        assert told["user"]["username"] == "alice" and told["user"]["id"] == claims["sub"] and "openid" in told["scopes"]

        refreshed = refresh(server, answer.json()["refresh_token"])
        assert refreshed.status_code == 200
        assert jwt.decode(refreshed.json()["id_token"], key_set(server), algorithms=["RS256"]).claims[NAMESPACE + "roles"] == ["admin", "ops"]
        assert receiver.requests[-1]["grant_type"] == "refresh_token"
        assert "audience" not in receiver.requests[-1] and receiver.requests[-1]["access_token_format"] == "opaque"
        assert NAMESPACE + "tier" not in jwt.decode(refreshed.json()["id_token"], key_set(server), algorithms=["RS256"]).claims
        # Userinfo answers the hook's userinfo claims for the access token they were added to, beside the scopes' claims.
        info = requests.get(server.issuer + "/userinfo", headers={"Authorization": "Bearer " + refreshed.json()["access_token"]}, timeout=10)
        assert info.status_code == 200 and info.json()[NAMESPACE + "plan"] == {"seats": 5} and info.json()["sub"] == claims["sub"], info.text
        assert NAMESPACE + "plan" not in jwt.decode(refreshed.json()["id_token"], key_set(server), algorithms=["RS256"]).claims

        # A JWT access token (RFC 9068) for a resource carries the hook's access-token claims, and only those.
        named = Browser(server).sign_in(authorize_url(server) + "&resource=" + quote(API, safe=""), "alice", PASSWORD)
        for_api = redeem(server, redirect_parameters(named)["code"], resource=API)
        assert for_api.status_code == 200, for_api.text
        access = jwt.decode(for_api.json()["access_token"], key_set(server), algorithms=["RS256"])
        assert access.header["typ"] == "at+jwt" and access.claims["aud"] == API and access.claims[NAMESPACE + "tier"] == "gold"
        assert NAMESPACE + "roles" not in access.claims
        assert receiver.requests[-1]["audience"] == API and receiver.requests[-1]["access_token_format"] == "jwt"
        assert receiver.bad_signatures == 0
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["slow", "garbage", "outside", "unknown"])
def test_a_failing_hook_with_the_deny_policy_refuses_the_tokens(receiver, mode):
    server = hooked_server(receiver, "deny")
    try:
        receiver.mode = mode
        code = redirect_parameters(Browser(server).sign_in(authorize_url(server), "alice", PASSWORD))["code"]
        started = time.monotonic()
        answer = redeem(server, code)
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"] == "temporarily_unavailable"
        if mode == "slow":
            assert time.monotonic() - started < 10, "the hook's one-second timeout held"
        assert "hook" in server.stderr() and "claims" in server.stderr()
        # The hook was asked before the code was spent: once it answers again, the same code gets the tokens.
        receiver.mode = "claims"
        again = redeem(server, code)
        assert again.status_code == 200, again.text
    finally:
        server.stop()


def test_a_slow_hook_with_the_continue_policy_adds_nothing_and_tokens_are_issued(receiver):
    server = hooked_server(receiver, "continue")
    try:
        receiver.mode = "slow"
        answer = signed_in(server)
        assert answer.status_code == 200, answer.text
        claims = jwt.decode(answer.json()["id_token"], key_set(server), algorithms=["RS256"]).claims
        assert not any(name.startswith(NAMESPACE) for name in claims)
    finally:
        server.stop()


def test_a_hook_without_a_namespace_or_with_a_short_secret_is_refused_at_start(tmp_path):
    for hook, named in [({"id": "x", "url": "http://127.0.0.1:9/h", "secret": SECRET, "points": ["tokens"]}, "hooks[0].claims_namespace"),
                        ({"id": "x", "url": "http://127.0.0.1:9/h", "secret": "short", "points": ["tokens"], "claims_namespace": NAMESPACE},
                         "hooks[0].secret"),
                        ({"id": "x", "url": "http://example.com/h", "secret": SECRET, "points": ["tokens"], "claims_namespace": NAMESPACE},
                         "hooks[0].url")]:
        config = tmp_path / "config.json"
        config.write_text(json.dumps({"hooks": [hook]}))
        result = gatehouse("serve", "--config", str(config), "--database", str(tmp_path / "g.sqlite"), "--port", str(free_port()),
                           check=False, timeout=60)
        assert result.returncode != 0 and named in result.stderr, result.stderr


def first_factor_server(receiver: Receiver, failure: str = "deny") -> Server:
    server = Server(config={"hooks": [{"id": "risk", "url": f"http://127.0.0.1:{receiver.port}/hooks/risk", "secret": SECRET,
                                       "points": ["first_factor"], "timeout": 1, "failure": failure}]})
    for name in ("alice", "bob", "mallory"):
        server.add_user(name, PASSWORD)
    server.add_client("app", "com.example.app:/callback", public=True)
    return server


def password(server, username):
    flow = start(server).json()["flow_id"]
    return submit(server, flow, {"username": username, "password": PASSWORD})


def test_after_the_password_a_hook_allows_requires_a_second_factor_or_refuses(receiver):
    server = first_factor_server(receiver)
    try:
        receiver.mode = "decide"
        assert password(server, "alice").json()["status"] == "success"
        told = receiver.requests[-1]
        assert told["type"] == "first_factor" and told["factor"] == "pwd" and told["client_id"] == "app"
        assert told["user"]["username"] == "alice" and told["client_address"] == "127.0.0.1"

        # The policy asks for no second factor; the hook does, for bob: set one up before going on.
        bob = password(server, "bob").json()
        assert bob["status"] == "continue" and bob["node"]["category"] in ("mfa_enrollment", "mfa_challenge"), bob

        refused = password(server, "mallory")
        assert refused.json()["status"] == "failure", refused.text
        assert refused.json()["failure"]["error"] == "access_denied"
        assert refused.json()["failure"]["error_description"] == "Sign-ins from this account are paused; call the help desk."
        failed = json.loads(server.cli("events", "--type", "sign_in.failed", "--json").stdout)
        assert any(event["details"].get("reason") == "hook_denied" for event in failed)

        # A wrong password never reaches the hook.
        asked = len(receiver.requests)
        flow = start(server).json()["flow_id"]
        assert submit(server, flow, {"username": "alice", "password": "not the password"}).json()["status"] != "success"
        assert len(receiver.requests) == asked
        assert receiver.bad_signatures == 0
    finally:
        server.stop()


def test_after_another_providers_answer_a_hook_allows_requires_a_second_factor_or_refuses(receiver):
    standin = StandIn()
    server = Server(config={
        "identity_providers": [{"id": "partner", "name": "Partner", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID,
                                "client_secret": StandIn.CLIENT_SECRET, "trust_email": True}],
        "hooks": [{"id": "risk", "url": f"http://127.0.0.1:{receiver.port}/hooks/risk", "secret": SECRET, "points": ["first_factor"],
                   "timeout": 1}]})
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        receiver.mode = "decide"
        for username in ("alice", "bob", "mallory"):
            standin.claims = dict(standin.claims, sub=f"partner-{username}", email=f"{username}@partner.example", preferred_username=username)
            # The first answer makes the account: nobody is asked (registration hooks do not see it either).
            asked = len(receiver.requests)
            assert Visit(server).via_standin("partner").headers["Location"].startswith(WEB_REDIRECT)
            assert len(receiver.requests) == asked

        standin.claims = dict(standin.claims, sub="partner-alice", email="alice@partner.example", preferred_username="alice")
        allowed = Visit(server)
        allowed.via_standin("partner")
        assert "code=" in allowed.page.headers["Location"]
        told = receiver.requests[-1]
        assert told["type"] == "first_factor" and told["factor"] == "fed" and told["user"]["username"] == "alice"

        standin.claims = dict(standin.claims, sub="partner-bob", email="bob@partner.example", preferred_username="bob")
        stepped_up = Visit(server)
        stepped_up.via_standin("partner")
        # A second factor whatever the policy says: bob has none, so he sets one up first.
        assert stepped_up.page.status_code == 200 and stepped_up.node == "mfa.enroll.totp", stepped_up.node

        standin.claims = dict(standin.claims, sub="partner-mallory", email="mallory@partner.example", preferred_username="mallory")
        refused = Visit(server)
        refused.via_standin("partner")
        answer = parse_qs(urlparse(refused.page.headers["Location"]).query)
        assert answer["error"] == ["access_denied"] and answer["error_description"] == ["Sign-ins from this account are paused; call the help desk."]
        failed = json.loads(server.cli("events", "--type", "sign_in.failed", "--json").stdout)
        assert failed[-1]["details"]["reason"] == "hook_denied" and failed[-1]["details"]["methods"] == "fed"
        assert receiver.bad_signatures == 0
    finally:
        server.stop()
        standin.stop()


def test_after_a_passkey_sign_in_a_hook_allows_or_refuses(receiver):
    server = Server(host_name="localhost", config={
        "webauthn": {"user_verification": "required", "resident_key": "required"},
        "client_sign_on": {"app": {"second_factor": "required", "factors": ["passkey", "totp"], "passkey_sign_in": True}},
        "hooks": [{"id": "risk", "url": f"http://127.0.0.1:{receiver.port}/hooks/risk", "secret": SECRET, "points": ["first_factor"],
                   "timeout": 1, "failure": "continue"}]})
    try:
        server.add_client("app", "com.example.app:/callback", public=True)
        # Setting the passkeys up: the hook answers garbage, a failure passed over (continue), so the passwords go through.
        receiver.mode = "garbage"
        authenticators = {}
        for username in ("alice", "mallory"):
            server.add_user(username, PASSWORD)
            authenticators[username] = PythonAuthenticator(server.issuer)
            flow = start(server).json()["flow_id"]
            assert submit(server, flow, {"username": username, "password": PASSWORD}).json()["node"]["id"] == "mfa.enroll.choose"
            options = passkey_options(submit(server, flow, {"factor": "passkey"}).json())
            assert submit(server, flow, {"credential": json.dumps(authenticators[username].create(options))}).json()["status"] == "success"

        receiver.mode = "decide"

        def with_passkey(username):
            first = start(server).json()
            assertion = authenticators[username].get(passkey_options(first))
            return submit(server, first["flow_id"], {"credential": json.dumps(assertion)}, action="passkey").json()

        assert with_passkey("alice")["status"] == "success"
        told = receiver.requests[-1]
        assert told["type"] == "first_factor" and told["factor"] == "hwk" and told["user"]["username"] == "alice"
        refused = with_passkey("mallory")
        assert refused["status"] == "failure" and refused["failure"]["error"] == "access_denied", refused
        assert refused["failure"]["error_description"] == "Sign-ins from this account are paused; call the help desk."
        failed = json.loads(server.cli("events", "--type", "sign_in.failed", "--json").stdout)
        assert failed[-1]["details"] == {"reason": "hook_denied", "methods": "hwk user mfa"}

        # An assertion that does not check out never reaches the hook.
        asked = len(receiver.requests)
        first = start(server).json()
        spoiled = authenticators["alice"].get(passkey_options(first))
        spoiled["response"]["signature"] = spoiled["response"]["signature"][:-4] + "AAAA"
        assert submit(server, first["flow_id"], {"credential": json.dumps(spoiled)}, action="passkey").json()["status"] != "success"
        assert len(receiver.requests) == asked and receiver.bad_signatures == 0
    finally:
        server.stop()


def test_after_an_apps_approval_a_hook_allows_requires_a_second_factor_or_refuses(receiver, tmp_path):
    server = Server(config={
        "sign_on": {"second_factor": "if_enrolled", "factors": ["totp"], "app_login": True},
        "hooks": [{"id": "risk", "url": f"http://127.0.0.1:{receiver.port}/hooks/risk", "secret": SECRET, "points": ["first_factor"],
                   "timeout": 1}]})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        receiver.mode = "decide"
        session = requests.Session()
        for username in ("alice", "bob", "mallory"):
            server.add_user(username, PASSWORD, email=f"{username}@example.com")
            bind_app(server, tmp_path / username, f"{username}@example.com")

        asked = len(receiver.requests)
        _, allowed = approve_qr_sign_in(server, server, tmp_path / "alice", session)
        assert allowed["status"] == "success", allowed
        told = receiver.requests[-1]
        assert len(receiver.requests) == asked + 1
        assert told["type"] == "first_factor" and told["factor"] == "swk" and told["user"]["username"] == "alice"

        # The policy asks nothing more of bob; the hook asks a second factor, which he sets up first (never by email).
        _, stepped_up = approve_qr_sign_in(server, server, tmp_path / "bob", session)
        assert stepped_up["status"] == "continue" and node_id(stepped_up) == "mfa.enroll.totp", stepped_up

        _, refused = approve_qr_sign_in(server, server, tmp_path / "mallory", session)
        assert refused["status"] == "failure" and refused["failure"]["error"] == "access_denied", refused
        assert refused["failure"]["error_description"] == "Sign-ins from this account are paused; call the help desk."
        failed = json.loads(server.cli("events", "--type", "sign_in.failed", "--json").stdout)
        assert failed[-1]["details"] == {"reason": "hook_denied", "methods": "swk pin"}
        assert receiver.bad_signatures == 0
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["slow", "garbage", "maybe"])
def test_a_failing_risk_hook_follows_its_policy(receiver, mode):
    for failure, status in (("deny", "failure"), ("continue", "success")):
        server = first_factor_server(receiver, failure)
        try:
            receiver.mode = mode
            answer = password(server, "alice").json()
            assert answer["status"] == status, (failure, answer)
            if failure == "deny":
                assert answer["failure"]["error"] == "temporarily_unavailable"
        finally:
            server.stop()


def test_before_an_account_is_created_a_hook_allows_names_it_or_refuses(receiver):
    server = Server(config={"registration": {"enabled": True, "verify_email": False},
                            "hooks": [{"id": "signup", "url": f"http://127.0.0.1:{receiver.port}/hooks/signup", "secret": SECRET,
                                       "points": ["registration"], "timeout": 1}]})
    try:
        server.add_client("app", "com.example.app:/callback", public=True)
        receiver.mode = "decide"

        def register(email, username):
            flow = begin(server, "registration")["flow_id"]
            return submit(server, flow, {"given_name": "Grace", "family_name": "Hopper", "email": email, "username": username,
                                         "new_password": "a long and unusual passphrase 77"}).json()

        allowed = register("grace@example.com", "grace")
        assert allowed["status"] == "success", allowed
        told = receiver.requests[-1]
        assert told["type"] == "registration" and told["client_id"] == "app"
        assert told["profile"] == {"username": "grace", "email": "grace@example.com", "given_name": "Grace", "family_name": "Hopper"}
        users = {user["username"]: user for user in json.loads(server.cli("users", "list", "--json").stdout)}
        assert users["grace"]["name"] == "Rear Admiral Grace Hopper"

        refused = register("spam@example.com", "spammer")
        assert refused["status"] == "error" and refused["node"]["id"] == "register.profile"
        assert refused["node"]["messages"][0]["text"] == "Accounts for this domain are not open."
        # A hook may set names only: one that sets the email is a failure, and the policy (deny) refuses.
        sneaky = register("sneaky@example.com", "sneaky")
        assert sneaky["status"] == "error" and sneaky["node"]["messages"][0]["code"] == "temporarily_unavailable"
        assert [user["username"] for user in json.loads(server.cli("users", "list", "--json").stdout)] == ["grace"]

        # A form with a typo never reaches the hook.
        asked = len(receiver.requests)
        assert register("not-an-email", "typo")["status"] == "error"
        assert len(receiver.requests) == asked and receiver.bad_signatures == 0
    finally:
        server.stop()


def test_every_other_door_asks_the_hooks_its_point_promises(receiver):
    """Attack script: a `first_factor` hook answering deny was never asked when the person got in by password recovery or
    by email sign-in, and a `registration` hook answering deny was never asked when the account was made by email
    sign-in or by a new identity at another provider. Each door now asks, and the refusal holds."""
    standin = StandIn()
    server = Server(config={
        "sign_on": {"email_sign_in": True},
        "registration": {"enabled": True, "verify_email": False},
        "identity_providers": [{"id": "partner", "name": "Partner", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID,
                                "client_secret": StandIn.CLIENT_SECRET, "trust_email": True}],
        "hooks": [{"id": "gate", "url": f"http://127.0.0.1:{receiver.port}/hooks/gate", "secret": SECRET,
                   "points": ["first_factor", "registration"], "timeout": 1}]})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        for name in ("alice", "mallory"):
            server.add_user(name, PASSWORD, email=f"{name}@example.com")
        receiver.mode = "decide"

        def recover(name):
            flow = begin(server, "recovery")["flow_id"]
            submit(server, flow, {"username": name})
            before = len(outbox(server, f"{name}@example.com"))
            assert submit(server, flow, {"method": "email"}).json()["node"]["id"] == "recovery.code"
            return submit(server, flow, {"code": latest_code(server, f"{name}@example.com", after=before)}).json()

        assert recover("alice")["node"]["id"] == "recovery.password"
        told = receiver.requests[-1]
        assert told["type"] == "first_factor" and told["factor"] == "email" and told["user"]["username"] == "alice"
        refused = recover("mallory")
        assert refused["status"] == "failure" and refused["failure"]["error"] == "access_denied", refused
        assert refused["failure"]["error_description"] == "Sign-ins from this account are paused; call the help desk."

        def email_sign_in(address):
            flow = start(server).json()["flow_id"]
            submit(server, flow, {}, action="email_code")
            before = len(outbox(server, address))
            assert submit(server, flow, {"email": address}).json()["node"]["id"] == "login.email_code"
            return submit(server, flow, {"code": latest_code(server, address, after=before)}).json()

        assert email_sign_in("alice@example.com")["status"] == "success"
        assert receiver.requests[-1]["type"] == "first_factor" and receiver.requests[-1]["user"]["username"] == "alice"
        refused = email_sign_in("mallory@example.com")
        assert refused["status"] == "failure" and refused["failure"]["error"] == "access_denied", refused
        # A new address makes an account only as the hook at `registration` allows: this one it refuses.
        refused = email_sign_in("spam@example.com")
        assert refused["status"] == "failure" and refused["failure"]["error_description"] == "Accounts for this domain are not open.", refused
        assert receiver.requests[-1]["type"] == "registration" and receiver.requests[-1]["profile"]["email"] == "spam@example.com"
        allowed = email_sign_in("grace@example.com")
        assert allowed["status"] == "success", allowed
        users = {user["username"]: user for user in json.loads(server.cli("users", "list", "--json").stdout)}
        assert "spam" not in users and users["grace"]["name"] == "Rear Admiral Grace Hopper"

        # A new identity at another provider makes an account only as the hook at `registration` allows.
        standin.claims = dict(standin.claims, sub="partner-spam", email="spam@example.com", preferred_username="spam")
        visit = Visit(server)
        visit.via_standin("partner")
        answer = parse_qs(urlparse(visit.page.headers["Location"]).query)
        assert answer["error"] == ["access_denied"] and answer["error_description"] == ["Accounts for this domain are not open."], answer
        assert receiver.requests[-1]["type"] == "registration" and receiver.requests[-1]["profile"]["username"] == "spam"
        assert "spam" not in {user["username"] for user in json.loads(server.cli("users", "list", "--json").stdout)}
        failed = json.loads(server.cli("events", "--type", "sign_in.failed", "--json").stdout)
        assert failed[-1]["details"] == {"reason": "registration_denied", "methods": "fed"}
        assert receiver.bad_signatures == 0
    finally:
        server.stop()
        standin.stop()


def test_an_events_hook_is_told_of_the_events_it_names_in_order_and_again_until_it_accepts(receiver):
    server = Server(config={"hooks": [{"id": "notify", "url": f"http://127.0.0.1:{receiver.port}/hooks/events", "secret": SECRET,
                                       "points": ["events"], "events": ["account.locked", "account.unlocked"]}]})
    try:
        server.add_user("alice", PASSWORD)
        server.add_user("warmup", PASSWORD)
        # The hook starts with what is recorded after the server first met it (within its first second): lock a
        # throwaway account until the hook hears of it, so that what follows is surely after.
        for _ in range(20):
            server.cli("users", "lock", "warmup")
            server.cli("users", "unlock", "warmup")
            if receiver.wait_for_events(1, 1):
                break
        assert receiver.events, "the hook was told of no event within 20 tries"
        # The rest of the warm-up arrives with the next delivery (every second): wait until 1.5 s pass without news.
        for _ in range(10):
            heard = len(receiver.events)
            time.sleep(1.5)
            if len(receiver.events) == heard:
                break
        receiver.events.clear()

        alice = next(user for user in json.loads(server.cli("users", "list", "--json").stdout) if user["username"] == "alice")
        receiver.refuse = 1
        server.cli("users", "lock", "alice")
        server.cli("users", "unlock", "alice")
        server.add_user("bob", PASSWORD)  # account.created: not named
        # The first attempt is refused; the same event comes again 10 s later, and the next one only after it.
        told = receiver.wait_for_events(2, 30)
        assert [notice["type"] for _, notice in told] == ["account.locked", "account.unlocked"], told
        assert receiver.refused == [told[0][0]] and told[0][0].startswith("evt_")
        assert all(notice["data"]["user_id"] == alice["id"] and notice["data"]["type"] == notice["type"] for _, notice in told)
        assert all(identifier == "evt_" + notice["data"]["id"] for identifier, notice in told)
        assert told[0][1]["data"]["actor"].startswith("operator:") and told[0][1]["timestamp"].endswith("Z")
        assert receiver.bad_signatures == 0
    finally:
        server.stop()


def test_an_events_hook_naming_no_event_or_an_unknown_one_is_refused_at_start(tmp_path):
    for events, named in [([], "hooks[0].events"), (["account.vanished"], "account.vanished")]:
        config = tmp_path / "config.json"
        config.write_text(json.dumps({"hooks": [{"id": "x", "url": "http://127.0.0.1:9/h", "secret": SECRET, "points": ["events"],
                                                 "events": events}]}))
        result = gatehouse("serve", "--config", str(config), "--database", str(tmp_path / "g.sqlite"), "--port", str(free_port()),
                           check=False, timeout=60)
        assert result.returncode != 0 and named in result.stderr, result.stderr
