"""Attacker scripts for the three ways a short code could be guessed into someone else's account, and proof that
each now stops within its limits: device registration codes, password-reset codes and second-factor codes are
counted per account (or address) across flows and nodes, with a block and a notice to the owner, while the owner
still signs in from a browser they used before. On SQLite, and on PostgreSQL with two nodes sharing the database
(the attacker's guesses alternate between the nodes and count together)."""
import re
import secrets
import time
from urllib.parse import urljoin

import pyotp
import pytest

from conftest import APP_REDIRECT, ENGINES, PASSWORD, WEB_REDIRECT
from gatehouse_harness import RFC7636_CHALLENGE, authorize_url, Browser, forms, fresh_postgres_database, latest_code, outbox, redirect_parameters, ReverseProxy, Server, session_from

APP_HEADERS = {"Gatehouse-App": "attack-script/1.0.0"}
# The defaults: 10 wrong codes per account and journey, then a block. The client-address limit is raised here so
# that the account limits are what these scripts meet (the per-source limit has its own test below).
CONFIG = {
    "sign_on": {"second_factor": "if_enrolled", "factors": ["totp"], "email_sign_in": True},
    "client_sign_on": {"enroll-app": {"second_factor": "required", "factors": ["totp"]}},
    "source_throttling": {"max_failures": 1000},
}
CODE_LIMIT = 10


@pytest.fixture(scope="module", params=ENGINES)
def nodes(request):
    """One node on SQLite; two nodes on one PostgreSQL database."""
    if request.param == "postgres":
        url = fresh_postgres_database()
        started = [Server(database_url=url, config=CONFIG, owns_database=False), Server(database_url=url, config=CONFIG, owns_database=True)]
    else:
        started = [Server(config=CONFIG)]
    try:
        started[0].add_client("web", WEB_REDIRECT, secret="web-client-secret-0123456789-abcdefghijklmnop")
        started[0].add_client("app", APP_REDIRECT, public=True)
        started[0].add_client("enroll-app", APP_REDIRECT, public=True)
        yield started
    finally:
        for node in started:
            node.stop()


def flow_start(session, node, kind="login", client_id="app", login_hint=None):
    body = {"client_id": client_id, "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "st", "nonce": "nn",
            "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    if login_hint is not None:
        body["login_hint"] = login_hint
    response = session.post(f"{node.issuer}/flows/{kind}", json=body, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def flow_submit(session, node, flow_id, values, action="submit", client_id="app", device_tokens=None):
    body = {"client_id": client_id, "action": action, "values": values}
    if device_tokens is not None:
        body["device_tokens"] = device_tokens
    return session.post(f"{node.issuer}/flows/{flow_id}", json=body, timeout=30).json()


def wrong_code(digits=6):
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def message_code(answer):
    messages = (answer.get("node") or {}).get("messages") or []
    return messages[0]["code"] if messages else None


def guess_until_blocked(new_flow, guesser, max_flows=6):
    """Wrong codes in flows made by `new_flow(number)`, each guess sent by `guesser(number)`'s (session, node), five per
    flow (a flow ends after its own five) and new flows until a limit answers `too_many_guesses`: (guesses, flows, blocked)."""
    guesses, flows, blocked = 0, 0, False
    while not blocked and flows < max_flows:
        flow_id = new_flow(flows)
        flows += 1
        for _ in range(5):
            session, node = guesser(guesses)
            answer = flow_submit(session, node, flow_id, {"code": wrong_code()})
            if message_code(answer) == "too_many_guesses":
                blocked = True
                break
            guesses += 1
            if answer["status"] == "failure":
                break  # this flow's own 5 guesses are spent; a new flow is started
    return guesses, flows, blocked


def test_device_registration_codes_cannot_be_guessed_into_an_account(nodes):
    """Takeover 1: binding an authenticator app to someone's email needed a 6-digit code, 5 guesses per registration,
    unlimited registrations. Now: 10-character codes, 3 registrations per address an hour, 10 wrong codes per address."""
    victim = "vera@example.com"
    nodes[0].add_user("vera", PASSWORD, email=victim)
    attacker = session_from("127.0.0.66")
    guesses, blocked, registrations, refused_registration = 0, None, [], None
    for attempt in range(6):
        node = nodes[attempt % len(nodes)]
        started = attacker.post(node.issuer + "/authenticator/registration", json={"email": victim, "device_name": "evil"},
                                headers=APP_HEADERS, timeout=10)
        if started.status_code == 429:
            refused_registration = started.json()
            break
        assert started.status_code == 201, started.text
        secret = started.json()["device_secret"]
        registrations.append(secret)
        for _ in range(5):
            node = nodes[guesses % len(nodes)]
            answer = attacker.post(node.issuer + "/authenticator/registration/verification", json={"code": wrong_code(10)},
                                   headers=dict(APP_HEADERS, Authorization=f"Bearer {secret}"), timeout=10)
            if answer.status_code == 429:
                blocked = answer.json()
                break
            assert answer.status_code in (400, 410), answer.text
            guesses += 1
    print(f"device registration: {guesses} wrong codes checked over {len(registrations)} registrations before the block")
    assert guesses == CODE_LIMIT
    assert blocked and blocked["error"] == "too_many_attempts"
    assert len(registrations) == 3 and refused_registration["error"] == "too_many_registrations"
    # The real code, which went to the victim, is refused too while the block lasts.
    real = latest_code(nodes[0], victim)
    assert re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", real)
    answer = attacker.post(nodes[-1].issuer + "/authenticator/registration/verification", json={"code": real},
                           headers=dict(APP_HEADERS, Authorization=f"Bearer {registrations[-1]}"), timeout=10)
    assert answer.status_code == 429
    # The victim was told, through the security notices' own budget.
    assert [m for m in outbox(nodes[0], victim) if m["template"] == "guesses_blocked"]


def test_password_reset_codes_are_counted_per_account_across_flows(nodes):
    """Takeover 2: the 5 guesses were per recovery flow, so new flows brought new guesses. Now the account counts."""
    victim = "rita@example.com"
    nodes[0].add_user("rita", PASSWORD, email=victim)
    attacker = session_from("127.0.0.67")

    def new_flow(number):
        node = nodes[number % len(nodes)]
        flow_id = flow_start(attacker, node, "recovery")["flow_id"]
        flow_submit(attacker, node, flow_id, {"username": "rita"})
        answer = flow_submit(attacker, node, flow_id, {"method": "email"})
        assert answer["node"]["id"] == "recovery.code"
        return flow_id

    guesses, flows, blocked = guess_until_blocked(new_flow, lambda guess: (attacker, nodes[guess % len(nodes)]))
    print(f"password recovery: {guesses} wrong codes checked over {flows} flows before the block")
    assert blocked and guesses == CODE_LIMIT
    # A new flow, and the real code from the victim's inbox: still refused while the block lasts.
    flow_id = flow_start(attacker, nodes[-1], "recovery")["flow_id"]
    flow_submit(attacker, nodes[-1], flow_id, {"username": "RITA@example.com"})
    answer = flow_submit(attacker, nodes[-1], flow_id, {"method": "email"})
    assert "RITA@example.com" in answer["node"]["description"]  # the identifier as typed, never the username
    answer = flow_submit(attacker, nodes[0], flow_id, {"code": latest_code(nodes[0], victim)})
    assert answer["status"] == "error" and message_code(answer) == "too_many_guesses"
    assert [m for m in outbox(nodes[0], victim) if m["template"] == "guesses_blocked"]


def test_unlock_codes_are_counted_per_account_across_flows(nodes):
    """An app may ask for an unlock code for a named account before any wrong password (the SDK's unlock helper):
    the code's guesses count per account across flows and nodes like a reset code's."""
    victim = "ulla@example.com"
    nodes[0].add_user("ulla", PASSWORD, email=victim)
    attacker = session_from("127.0.0.69")

    def new_flow(number):
        node = nodes[number % len(nodes)]
        started = flow_start(attacker, node, login_hint="ulla")
        answer = flow_submit(attacker, node, started["flow_id"], {}, action="unlock")
        assert answer["node"]["id"] == "unlock.code" and answer["node"]["code_source"] == "email", answer
        return started["flow_id"]

    guesses, flows, blocked = guess_until_blocked(new_flow, lambda guess: (attacker, nodes[guess % len(nodes)]))
    print(f"unlocking: {guesses} wrong codes checked over {flows} flows before the block")
    assert blocked and guesses == CODE_LIMIT
    # The real code from the victim's inbox is refused while the block lasts.
    flow_id = new_flow(0)
    answer = flow_submit(attacker, nodes[-1], flow_id, {"code": latest_code(nodes[0], victim)})
    assert answer["status"] == "error" and message_code(answer) == "too_many_guesses"
    # A flow without a name cannot ask for one.
    anonymous = flow_start(attacker, nodes[0])["flow_id"]
    refused = attacker.post(f"{nodes[0].issuer}/flows/{anonymous}", json={"client_id": "app", "action": "unlock", "values": {}}, timeout=10)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"


def email_code_node(session, node, address):
    """A new flow at the email sign-in's code node for `address`."""
    flow_id = flow_start(session, node)["flow_id"]
    flow_submit(session, node, flow_id, {}, action="email_code")
    answer = flow_submit(session, node, flow_id, {"email": address})
    assert answer["node"]["id"] == "login.email_code", answer
    return flow_id


def test_email_sign_in_codes_are_counted_per_account_across_flows_nodes_and_sources(nodes):
    """Signing in with only an emailed code: each flow allows 5 wrong codes, but the account counts them all, from
    every flow, node and client address; the block holds against the real code and the owner is told."""
    victim = "ella@example.com"
    nodes[0].add_user("ella", PASSWORD, email=victim)
    # A botnet: every guess from another address, so no per-source limit is what stops it.
    sources = [session_from(f"127.0.1.{number}") for number in range(1, 40)]
    guesses, flows, blocked = guess_until_blocked(
        lambda number: email_code_node(sources[number], nodes[number % len(nodes)], victim),
        lambda guess: (sources[guess % len(sources)], nodes[guess % len(nodes)]))
    print(f"email sign-in: {guesses} wrong codes checked over {flows} flows from {min(guesses + 1, len(sources))} addresses before the block")
    assert blocked and guesses == CODE_LIMIT
    flow_id = email_code_node(sources[-1], nodes[-1], victim)
    answer = flow_submit(sources[-2], nodes[0], flow_id, {"code": latest_code(nodes[0], victim)})
    assert answer["status"] == "error" and message_code(answer) == "too_many_guesses"
    assert [m for m in outbox(nodes[0], victim) if m["template"] == "guesses_blocked"]
    # The operator's unlock lifts this pause too, as it says: the owner signs in with the next code at once.
    assert "forgot its wrong passwords and codes" in nodes[0].cli("users", "unlock", "ella").stdout
    flow_id = email_code_node(sources[-3], nodes[-1], victim)
    answer = flow_submit(sources[-3], nodes[0], flow_id, {"code": latest_code(nodes[0], victim)})
    assert answer["status"] == "success", answer


def test_email_sign_in_codes_from_one_address_for_many_accounts_meet_that_address_limit():
    """Per-source limit: one client address guessing one code each for many addresses is blocked by its own count."""
    server = Server(config={"sign_on": {"email_sign_in": True}, "source_throttling": {"max_failures": 20, "cooldown": 600}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_user("sam", PASSWORD, email="sam@example.com")
        guesser = session_from("127.0.0.72")
        answers = []
        for number in range(25):
            flow_id = email_code_node(guesser, server, f"person{number}@example.com")
            answers.append(message_code(flow_submit(guesser, server, flow_id, {"code": wrong_code()})))
        print(f"email sign-in spraying: {answers.count('invalid_code')} codes checked from one address before its block")
        assert answers[:20] == ["invalid_code"] * 20 and set(answers[20:]) == {"too_many_guesses"}
        # Blocked, the address cannot sign in even with a right code; another address can.
        flow_id = email_code_node(guesser, server, "sam@example.com")
        assert message_code(flow_submit(guesser, server, flow_id, {"code": latest_code(server, "sam@example.com")})) == "too_many_guesses"
        elsewhere = session_from("127.0.0.73")
        flow_id = email_code_node(elsewhere, server, "sam@example.com")
        assert flow_submit(elsewhere, server, flow_id, {"code": latest_code(server, "sam@example.com", after=1)})["status"] == "success"
    finally:
        server.stop()


def enroll_totp(node, username):
    """The victim's own first sign-in to a client that requires a second factor: enrolls TOTP through the flow API."""
    victim = session_from("127.0.0.1")
    flow_id = flow_start(victim, node, client_id="enroll-app")["flow_id"]
    answer = flow_submit(victim, node, flow_id, {"username": username, "password": PASSWORD}, client_id="enroll-app")
    fields = {field["key"]: field for field in answer["node"]["fields"]}
    totp = pyotp.parse_uri(fields["otpauth"]["default_value"])
    answer = flow_submit(victim, node, flow_id, {"code": totp.now()}, client_id="enroll-app")
    assert answer["node"]["id"] == "mfa.enroll.recovery_codes", answer
    assert flow_submit(victim, node, flow_id, {}, client_id="enroll-app")["status"] == "success"
    return totp


def next_step_code(totp, after: int) -> tuple[str, int]:
    """A code for a time step after `after` that the server accepts now (it allows one step of drift)."""
    while True:
        step = int(time.time()) // 30
        if step + 1 > after:
            return totp.at((step + 1) * 30), step + 1
        time.sleep(0.5)


def second_factor_page(browser, page, code):
    """On the hosted page after the password: chooses TOTP when asked which factor, then enters `code`."""
    if 'name="factor"' in page.text:
        form = forms(page.text)[0]
        page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], factor="totp"))
    assert page.status_code == 200 and 'name="code"' in page.text, page.text[:2000]
    form = forms(page.text)[0]
    return browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=code))


def browser_sign_in(node, username, code):
    """The victim's browser on the hosted page: password, then the TOTP node."""
    browser = Browser(node)
    page = browser.submit_login(browser.get(authorize_url(node)), username, PASSWORD)
    return browser, second_factor_page(browser, page, code)


def test_second_factor_guesses_hold_across_flows_and_the_owner_still_signs_in(nodes):
    """Takeover 3: with the password, second-factor guesses were unlimited (a correct password reset the count, the
    last wrong code of a flow was never counted). Now 10 wrong codes block the account's second factor, whatever
    passwords come in between, while its owner's browser, which signed in before, gets through."""
    node = nodes[0]
    node.add_user("tom", PASSWORD)
    totp = enroll_totp(node, "tom")
    used = int(time.time()) // 30
    code, used = next_step_code(totp, used)
    browser, signed_in = browser_sign_in(node, "tom", code)
    assert "code" in redirect_parameters(signed_in)  # the victim's browser now holds a device cookie

    attacker = session_from("127.0.0.68")
    guesses, blocked, flows = 0, False, 0
    while not blocked and flows < 6:
        target = nodes[flows % len(nodes)]
        flows += 1
        flow_id = flow_start(attacker, target)["flow_id"]
        answer = flow_submit(attacker, target, flow_id, {"username": "tom", "password": PASSWORD})
        if message_code(answer) == "too_many_guesses":
            blocked = True
            break
        if answer["node"]["id"] == "mfa.choose":
            answer = flow_submit(attacker, target, flow_id, {"factor": "totp"})
        assert answer["node"]["id"] == "mfa.totp", answer
        for _ in range(5):
            guess = wrong_code()
            if guess in (totp.now(), totp.at(time.time() + 30), totp.at(time.time() - 30)):
                continue
            answer = flow_submit(attacker, nodes[guesses % len(nodes)], flow_id, {"code": guess})
            if message_code(answer) == "too_many_guesses":
                blocked = True
                break
            guesses += 1
            if answer["status"] == "failure":
                break
    print(f"second factor: {guesses} wrong codes checked over {flows} flows (each after a correct password) before the block")
    assert blocked and guesses == CODE_LIMIT
    # The attacker with the password and the right code: refused while the block lasts.
    flow_id = flow_start(attacker, nodes[-1])["flow_id"]
    flow_submit(attacker, nodes[-1], flow_id, {"username": "tom", "password": PASSWORD})
    flow_submit(attacker, nodes[-1], flow_id, {"factor": "totp"})
    answer = flow_submit(attacker, nodes[-1], flow_id, {"code": totp.now()})
    assert message_code(answer) == "too_many_guesses"
    # Wrong passwords block the name for browsers and apps it has not seen…
    for _ in range(5):
        flow_submit(attacker, nodes[0], flow_start(attacker, nodes[0])["flow_id"], {"username": "tom", "password": "not the password"})
    answer = flow_submit(attacker, nodes[-1], flow_start(attacker, nodes[-1])["flow_id"], {"username": "tom", "password": PASSWORD})
    assert message_code(answer) == "throttled"
    # …but the victim's own browser signs in with the password and a fresh code, during the attack.
    code, used = next_step_code(totp, used)
    page = browser.submit_login(browser.get(authorize_url(node, prompt="login")), "tom", PASSWORD)
    assert "code" in redirect_parameters(second_factor_page(browser, page, code))


def test_spraying_many_names_from_one_address_is_slowed_for_that_address_only():
    """Per-source limit: wrong passwords for many different names from one client address count together."""
    server = Server(config={"source_throttling": {"max_failures": 20, "cooldown": 600}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_user("sam", PASSWORD)
        sprayer = session_from("127.0.0.70")
        answers = []
        for number in range(25):
            flow_id = flow_start(sprayer, server)["flow_id"]
            answers.append(message_code(flow_submit(sprayer, server, flow_id, {"username": f"user{number}", "password": "Summer2026!"})))
        print(f"spraying: {answers.count('invalid_credentials')} passwords checked from one address before its block")
        assert answers[:20] == ["invalid_credentials"] * 20 and set(answers[20:]) == {"throttled"}
        # The sprayer cannot sign in even with a right password; someone elsewhere can.
        flow_id = flow_start(sprayer, server)["flow_id"]
        assert message_code(flow_submit(sprayer, server, flow_id, {"username": "sam", "password": PASSWORD})) == "throttled"
        elsewhere = session_from("127.0.0.71")
        flow_id = flow_start(elsewhere, server)["flow_id"]
        assert flow_submit(elsewhere, server, flow_id, {"username": "sam", "password": PASSWORD})["status"] == "success"
    finally:
        server.stop()


def app_sign_in(session, node, username, device_tokens=None):
    """An app's password sign-in through the flow API, presenting the device tokens it kept."""
    flow_id = flow_start(session, node)["flow_id"]
    return flow_submit(session, node, flow_id, {"username": username, "password": PASSWORD}, device_tokens=device_tokens)


def app_sign_in_with(session, node, username, password):
    """The same with any password, as an attacker types them."""
    flow_id = flow_start(session, node)["flow_id"]
    return flow_submit(session, node, flow_id, {"username": username, "password": password})


def test_an_app_that_signed_in_before_passes_the_names_block_with_its_device_token(nodes):
    """The flow API's device tokens: an app that signed in to an account keeps the token it was given and presents it,
    so wrong passwords typed for the name elsewhere (on either node) do not keep the owner out of that app."""
    node = nodes[0]
    node.add_user("una", PASSWORD)
    node.add_user("vic", PASSWORD)
    phone = session_from("127.0.0.80")
    first = app_sign_in(phone, node, "una")
    assert first["status"] == "success", first
    token = first["authorization"]["device_token"]
    # Presented again, it is recognised: no second token is handed out.
    again = app_sign_in(phone, nodes[-1], "una", device_tokens=[token])
    assert again["status"] == "success" and "device_token" not in again["authorization"], again
    other_account_token = app_sign_in(phone, node, "vic")["authorization"]["device_token"]

    attacker = session_from("127.0.0.81")
    for number in range(5):
        target = nodes[number % len(nodes)]
        assert message_code(app_sign_in_with(attacker, target, "una", "not the password")) == "invalid_credentials"
    assert message_code(app_sign_in(attacker, nodes[-1], "una")) == "throttled"
    # An app without a token, or with a forged one, or with another account's, meets the block…
    stranger = session_from("127.0.0.82")
    assert message_code(app_sign_in(stranger, node, "una")) == "throttled"
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert message_code(app_sign_in(stranger, node, "una", device_tokens=[forged])) == "throttled"
    assert message_code(app_sign_in(stranger, node, "una", device_tokens=[other_account_token])) == "throttled"
    # …the owner's app passes it on either node, with the token among others it keeps.
    for target in nodes:
        answer = app_sign_in(phone, target, "una", device_tokens=[other_account_token, token])
        assert answer["status"] == "success", answer
    # More tokens than the API takes are refused with a readable error, not ignored.
    flow_id = flow_start(phone, node)["flow_id"]
    body = {"client_id": "app", "action": "submit", "values": {"username": "una", "password": PASSWORD}, "device_tokens": [token] * 9}
    refused = phone.post(f"{node.issuer}/flows/{flow_id}", json=body, timeout=30)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request", refused.text


def test_behind_a_reverse_proxy_each_client_is_counted_by_its_own_address():
    """Behind nginx every connection comes from 127.0.0.1. With the proxy trusted, the per-source limit counts the
    client addresses nginx reports, so one sprayer is blocked while everyone else behind the same proxy signs in, and a
    sprayer that writes its own X-Forwarded-For gains nothing. Without the setting, one sprayer blocks everyone."""
    limits = {"source_throttling": {"max_failures": 10, "cooldown": 600}}
    trusted = Server(config={**limits, "trusted_proxies": {"addresses": ["127.0.0.1"], "header": "x-forwarded-for"}})
    untrusted = Server(config=limits)
    proxies = []
    try:
        for server in (trusted, untrusted):
            server.add_client("app", APP_REDIRECT, public=True)
            server.add_user("sam", PASSWORD)
            proxies.append(ReverseProxy(server))
        assert "Counting requests from trusted proxies by the client they name" in trusted.stdout() + trusted.stderr()

        def spray(server, proxy, address):
            sprayer = session_from(address)
            return [message_code(app_sign_in_with(sprayer, proxy, f"user{number}", "Summer2026!")) for number in range(12)]

        answers = spray(trusted, proxies[0], "127.0.0.90")
        print(f"behind nginx: {answers.count('invalid_credentials')} passwords checked from one client before its block")
        assert answers == ["invalid_credentials"] * 10 + ["throttled"] * 2
        front = proxies[0]
        # Writing another address into X-Forwarded-For does not get the sprayer a fresh count: nginx appends the real one.
        forger = session_from("127.0.0.90")
        forger.headers["X-Forwarded-For"] = "203.0.113.77"
        assert message_code(app_sign_in_with(forger, front, "sam", PASSWORD)) == "throttled"
        # Someone else behind the same proxy signs in.
        assert app_sign_in(session_from("127.0.0.91"), front, "sam")["status"] == "success"
        # A client that reaches the server directly and writes the header is counted by its own address: it is no proxy.
        direct = session_from("127.0.0.92")
        direct.headers["X-Forwarded-For"] = "127.0.0.90"
        assert app_sign_in(direct, trusted, "sam")["status"] == "success"

        # Without trusted_proxies, the proxy's one address is everybody's: the sprayer's block stops everyone.
        spray(untrusted, proxies[1], "127.0.0.93")
        assert message_code(app_sign_in(session_from("127.0.0.94"), proxies[1], "sam")) == "throttled"
    finally:
        for proxy in proxies:
            proxy.stop()
        trusted.stop()
        untrusted.stop()
