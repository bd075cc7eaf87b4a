"""Languages: the flow API and the hosted sign-in page speak the language the request chooses (`ui_locales`, then
`Accept-Language`, then `default_locale`), with the same message ids in every language; an operator's override folder
changes one message, and a broken one stops the start with the file and key named."""
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin

import pexpect
import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser_steps import Screens, accept_language, click_and_wait, dark, page_node, press
from conftest import APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET  # noqa: F401
from gatehouse_harness import Browser, Server, authorize_url, binary, conforms_to_openapi, forms, gatehouse, outbox, submit

OUTBOX = {"email": {"delivery": "outbox"}, "sms": {"delivery": "outbox"}}
CATALOGS = Path(__file__).resolve().parents[2] / "Sources/GatehouseServer/Resources/messages"


def start_in(server, language_header=None, **overrides):
    body = {"client_id": "app", "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "st", "nonce": "nn",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
    body.update(overrides)
    headers = {"Accept-Language": language_header} if language_header else {}
    response = requests.post(server.issuer + "/flows/login", json=body, headers=headers, timeout=10)
    return conforms_to_openapi(server, response)


def texts_with_ids(node):
    """Every (id, text) pair of a node: its title, description, labels, buttons and messages."""
    pairs = [(node.get("name_id"), node["name"]), (node.get("description_id"), node["description"])]
    pairs += [(field.get("label_id"), field["label"]) for field in node["fields"]]
    pairs += [(action.get("label_id"), action["label"]) for action in node["actions"]]
    pairs += [(message.get("id"), message["text"]) for message in node["messages"]]
    return pairs


def test_the_flow_api_answers_in_the_language_asked_with_the_same_ids(server):
    english = start_in(server).json()["node"]
    german = start_in(server, "de-DE,de;q=0.9,en;q=0.5").json()["node"]
    german_catalog = json.loads((CATALOGS / "de.json").read_text())
    english_catalog = json.loads((CATALOGS / "en.json").read_text())
    assert [pair[0] for pair in texts_with_ids(english)] == [pair[0] for pair in texts_with_ids(german)]
    for key, text in texts_with_ids(german):
        assert key is not None, text
        catalog_text = german_catalog[key]
        # Placeholders are filled in: the text starts as the catalog's does, up to the first one.
        assert text == catalog_text if "{" not in catalog_text else text.startswith(catalog_text.split("{")[0]), (key, text)
        assert text != english_catalog[key], (key, text)
    assert german["name"] == "Anmelden" and german["fields"][0]["label"] == "Benutzername"
    assert german["description"].startswith("Melden Sie sich an, um zu ") and german["description"].endswith(" fortzufahren.")

    # The flow keeps asking in German as the app keeps sending its header; a wrong password says so in German.
    flow = start_in(server, "de").json()
    wrong = requests.post(f"{server.issuer}/flows/{flow['flow_id']}", headers={"Accept-Language": "de"}, timeout=30,
                          json={"client_id": "app", "action": "submit", "values": {"username": "nobody-de", "password": "nope nope"}})
    message = conforms_to_openapi(server, wrong).json()["node"]["messages"][0]
    assert message == {"level": "error", "text": "Benutzername oder Passwort ist falsch.", "code": "invalid_credentials",
                       "id": "flow.error.invalid_credentials"}
    # The same flow asked without the header answers in English: each answer is in its request's language.
    english_wrong = submit(server, flow["flow_id"], {"username": "nobody-en", "password": "nope nope"}).json()
    assert english_wrong["node"]["messages"][0]["text"] == "The username or password is incorrect."

    # An unknown language falls back to the default.
    assert start_in(server, "tlh, x-klingon;q=0.8").json()["node"]["name"] == "Sign in"


def test_the_flow_api_takes_ui_locales_and_the_codes_it_sends_speak_them(server):
    """A recovery started through the flow API with `ui_locales=fr` by someone who chose no language: its nodes and its
    emailed code are in French (the start body had no `ui_locales` member before; the email came in English)."""
    username = f"zoe-{time.monotonic_ns()}"
    server.add_user(username, PASSWORD)
    french = json.loads((CATALOGS / "fr.json").read_text())
    body = {"client_id": "app", "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "st", "nonce": "nn", "ui_locales": "fr-CA fr",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
    started = conforms_to_openapi(server, requests.post(server.issuer + "/flows/recovery", json=body, timeout=10)).json()
    assert started["node"]["name"] == french[started["node"]["name_id"]], started["node"]
    submit(server, started["flow_id"], {"username": username})
    asked = submit(server, started["flow_id"], {"method": "email"}).json()
    assert asked["node"]["id"] == "recovery.code" and asked["node"]["name"] == french[asked["node"]["name_id"]], asked["node"]
    assert outbox(server, f"{username}@example.com")[0]["subject"] == "Réinitialisez votre mot de passe"


def test_the_hosted_page_speaks_ui_locales_then_accept_language(server):
    def page(ui_locales=None, accept=None):
        browser = Browser(server)
        if accept:
            browser.session.headers["Accept-Language"] = accept
        return browser, browser.get(authorize_url(server, ui_locales=ui_locales))

    _, german = page(ui_locales="tlh de en")
    assert '<html lang="de" dir="ltr">' in german.text and "Benutzername" in german.text and ">Anmelden</button>" in german.text
    _, by_header = page(accept="de-AT")
    assert '<html lang="de"' in by_header.text and "Passwort vergessen?" in by_header.text
    _, requested_wins = page(ui_locales="en", accept="de")
    assert '<html lang="en"' in requested_wins.text and "Forgot your password?" in requested_wins.text

    # A wrong password on the German page is answered in German, on the same form. (A person of its own: the shared
    # server's alice must not collect wrong passwords towards her limit.)
    person = f"hanna-{time.monotonic_ns()}"
    server.add_user(person, PASSWORD)
    browser, first = page(ui_locales="de")
    answer = browser.submit_login(first, person, "wrong wrong")
    assert answer.status_code == 401 and "Benutzername oder Passwort ist falsch." in answer.text
    done = browser.submit_login(answer, person, PASSWORD)
    assert done.status_code in (302, 303), done.text


def test_an_override_folder_changes_one_message_and_a_broken_one_stops_the_start():
    folder = tempfile.TemporaryDirectory(prefix="gatehouse-messages-")
    Path(folder.name, "de.json").write_text(json.dumps({"flow.sign_in.submit": "Hinein"}), encoding="utf-8")
    server = Server(config={"messages_dir": folder.name, "default_locale": "de"})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        node = start_in(server).json()["node"]
        assert node["name"] == "Anmelden"  # the default language, with nothing asked
        submit_button = next(action for action in node["actions"] if action["id"] == "submit")
        assert submit_button == {"id": "submit", "type": "submit", "label": "Hinein", "label_id": "flow.sign_in.submit"}
        assert start_in(server, "en").json()["node"]["actions"][0]["label"] == "Sign in"
    finally:
        server.stop()

    work = tempfile.TemporaryDirectory(prefix="gatehouse-refused-")
    for text, named in [({"flow.no_such_message": "x"}, "flow.no_such_message"), ({"flow.identify.description": "{unclosed"}, "flow.identify.description"),
                        ({"flow.sign_in.submit": "Für {client}"}, "{client}")]:
        Path(folder.name, "de.json").write_text(json.dumps(text), encoding="utf-8")
        config = Path(work.name, "config.json")
        config.write_text(json.dumps({"messages_dir": folder.name, "courier": OUTBOX}))
        database = os.path.join(work.name, "refused.sqlite")
        refused = subprocess.run([binary(), "serve", "--config", str(config), "--database", database, "--port", "0"],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0 and not os.path.exists(database)
        assert named in refused.stderr and "de.json" in refused.stderr and "messages_dir" in refused.stderr, refused.stderr
    Path(folder.name, "de.json").unlink()
    config.write_text(json.dumps({"default_locale": "tlh", "courier": OUTBOX}))
    refused = subprocess.run([binary(), "serve", "--config", str(config), "--database", database, "--port", "0"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "default_locale" in refused.stderr, refused.stderr
    folder.cleanup()
    work.cleanup()


LANGUAGES = ["en", "de", "fr", "es", "ja", "ar"]


def catalog(language):
    return json.loads((CATALOGS / f"{language}.json").read_text(encoding="utf-8"))


def isolated(language, value):
    """`value` as a message puts it in a sentence: right to left, between Unicode isolates."""
    return f"\u2068{value}\u2069" if language == "ar" else value


@pytest.fixture(scope="module")
def multilingual():
    """A server that offers registration, with one account and the confidential web client."""
    instance = Server(config={"registration": {"enabled": True}, "client_sign_on": {"mfa-web": {"second_factor": "required"}}})
    try:
        instance.add_user("alice", PASSWORD, email="alice@example.com")
        instance.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        # Asks every person for a second factor: a first sign-in sets one up.
        instance.add_client("mfa-web", WEB_REDIRECT, secret=WEB_SECRET)
        instance.add_client("partner", WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Partner App", "--third-party"])
        yield instance
    finally:
        instance.stop()


def untranslated(chromium, language):
    """The page's texts (headings, paragraphs, labels, buttons, links, captions, hidden ones too) that are an English
    message whose translation differs, or that look like a catalog key."""
    english, own = catalog("en"), catalog(language)
    leftovers = {text for key, text in english.items() if "{" not in text and own[key] != text}
    found = []
    for element in chromium.find_elements(By.CSS_SELECTOR, "title, h1, p, label, button, legend, a, figcaption"):
        text = (element.get_attribute("textContent") or "").strip()
        if text in leftovers or re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", text):
            found.append(text)
    return found


def test_every_shipped_language_renders_the_sign_in_recovery_registration_second_factor_and_consent_pages(multilingual, chromium, screenshots):
    folder = screenshots
    screens = {language: Screens(chromium, folder, prefix=f"language-{language}") for language in LANGUAGES}
    for language in LANGUAGES:
        own = catalog(language)
        direction = "rtl" if language == "ar" else "ltr"
        chromium.get(authorize_url(multilingual, ui_locales=f"tlh {language}"))
        html = chromium.find_element(By.TAG_NAME, "html")
        assert (html.get_attribute("lang"), html.get_attribute("dir")) == (language, direction)
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.sign_in.name"]
        assert chromium.find_element(By.CSS_SELECTOR, "label[for=username]").text == own["flow.field.username.label"]
        assert untranslated(chromium, language) == [], language
        # Right to left, the form's text starts at the right edge: the layout mirrors.
        heading = chromium.find_element(By.TAG_NAME, "h1")
        assert heading.value_of_css_property("direction") == direction
        screens[language].check("sign-in")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens[language], "sign-in")

        # A wrong password (for a name of its own each time, so the account's limit stays out of it): the message, in
        # the language.
        chromium.find_element(By.ID, "username").send_keys(f"someone-{language}")
        chromium.find_element(By.ID, "password").send_keys("wrong wrong")
        press(chromium, "submit")
        assert chromium.find_element(By.CSS_SELECTOR, "p.error").text == own["flow.error.invalid_credentials"]
        assert untranslated(chromium, language) == [], language
        if language in ("en", "ar"):
            screens[language].check("sign-in-refused")
            check_dark_too(chromium, screens[language], "sign-in-refused")

        # Recovery: the link on the sign-in page, then where to send the code.
        press(chromium, "recover")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.recovery.name"]
        assert untranslated(chromium, language) == [], language
        screens[language].check("recovery")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens[language], "recovery")
        chromium.find_element(By.ID, "username").send_keys("alice")
        press(chromium, "submit")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.recovery.choose.name"]
        assert chromium.find_element(By.TAG_NAME, "legend").text == own["flow.recovery.choose.field"]
        assert untranslated(chromium, language) == [], language

        # Registration, asked for with prompt=create.
        chromium.get(authorize_url(multilingual, ui_locales=language, prompt="create"))
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.registration.name"]
        assert chromium.find_element(By.CSS_SELECTOR, "label[for=given_name]").text == own["flow.field.given_name.label"]
        assert untranslated(chromium, language) == [], language
        screens[language].check("registration")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens[language], "registration")

        # Second factor: a client that asks for one; a new person sets up an authenticator app.
        sign_in_as(chromium, multilingual, client_id="mfa-web", ui_locales=language)
        assert page_node(chromium) == "mfa.enroll.totp"
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.enroll_totp.name"]
        assert untranslated(chromium, language) == [], language
        screens[language].check("second-factor")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens[language], "second-factor")

        # Consent: a third-party client asks the person to allow it.
        sign_in_as(chromium, multilingual, client_id="partner", ui_locales=language)
        assert page_node(chromium) == "consent"
        # Right to left, a value put in a sentence is isolated (U+2068 … U+2069) so its own direction stays its own.
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.consent.name"].replace("{client}", isolated(language, "Partner App"))
        assert untranslated(chromium, language) == [], language
        screens[language].check("consent")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens[language], "consent")


def check_dark_too(chromium, screens, name):
    """The same screen again for a person whose system asks for a dark colour scheme, checked and kept as `name-dark`.
    The scheme applies at once, without reloading what may have been a form's answer."""
    dark(chromium)
    screens.check(f"{name}-dark")
    dark(chromium, on=False)


def sign_in_as(chromium, server, **overrides):
    """A new person signs in, in a browser without a session, on the authorization request `overrides` make."""
    username = f"person-{time.monotonic_ns()}"
    server.add_user(username, PASSWORD)
    chromium.delete_all_cookies()
    chromium.get(authorize_url(server, **overrides))
    chromium.find_element(By.ID, "username").send_keys(username)
    chromium.find_element(By.ID, "password").send_keys(PASSWORD)
    press(chromium, "submit")


def test_a_browser_set_to_each_language_gets_every_page_in_it_without_ui_locales(multilingual, chromium):
    for language in LANGUAGES:
        own = catalog(language)
        accept_language(chromium, f"{language}-XX, tlh;q=0.5")
        chromium.delete_all_cookies()
        chromium.get(authorize_url(multilingual))
        html = chromium.find_element(By.TAG_NAME, "html")
        assert (html.get_attribute("lang"), html.get_attribute("dir")) == (language, "rtl" if language == "ar" else "ltr")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.sign_in.name"]
        assert untranslated(chromium, language) == [], language
        press(chromium, "recover")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.recovery.name"]
        assert untranslated(chromium, language) == [], language
        chromium.get(authorize_url(multilingual, prompt="create"))
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.registration.name"]
        assert untranslated(chromium, language) == [], language
        sign_in_as(chromium, multilingual, client_id="mfa-web")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["flow.enroll_totp.name"]
        assert untranslated(chromium, language) == [], language
        sign_in_as(chromium, multilingual, client_id="partner")
        assert page_node(chromium) == "consent" and untranslated(chromium, language) == [], language
        # The account page of a person who chose no language: the browser's, dates written its way (in UTC, not ISO 8601).
        username = f"reader-{time.monotonic_ns()}"
        multilingual.add_user(username, PASSWORD)
        chromium.delete_all_cookies()
        chromium.get(multilingual.issuer + "/account")
        chromium.find_element(By.ID, "username").send_keys(username)
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["account.title"]
        assert untranslated(chromium, language) == [], language
        text = chromium.find_element(By.TAG_NAME, "main").text
        assert "UTC" in text and not re.search(r"\d{4}-\d\d-\d\dT\d\d:", text), text


def test_accept_language_alone_chooses_each_shipped_language(multilingual):
    for language in LANGUAGES:
        page = requests.get(authorize_url(multilingual), headers={"Accept-Language": f"{language}-XX;q=0.9, tlh"}, timeout=10)
        assert page.status_code == 200
        assert f'<html lang="{language}" dir="{"rtl" if language == "ar" else "ltr"}">' in page.text
        assert f"<h1>{catalog(language)['flow.sign_in.name']}</h1>" in page.text


def test_a_person_who_chose_french_reads_their_account_page_and_codes_in_french(multilingual):
    multilingual.add_user("claire", PASSWORD, email="claire@example.com")
    browser = Browser(multilingual)
    page = browser.sign_in(multilingual.issuer + "/account", "claire", PASSWORD)
    assert page.status_code == 200 and '<html lang="en"' in page.text and "<h1>Your account</h1>" in page.text
    form = next(form for form in forms(page.text) if form["inputs"].get("change") == "language")
    saved = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "locale": "fr"})
    assert saved.status_code == 200 and '<html lang="fr" dir="ltr">' in saved.text
    assert "<h1>Votre compte</h1>" in saved.text and "Votre langue a été enregistrée." in saved.text
    assert '<option value="fr" lang="fr" selected>Français</option>' in saved.text
    refused = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "locale": "tlh"})
    assert refused.status_code == 400 and "locale must be one of en, de, fr, es, ja, ar" in refused.text

    # A recovery asked from an English app: the flow speaks English (a typed name changes nothing it shows), and the
    # code goes to the account's address in French.
    english = {"Accept-Language": "en"}
    body = {"client_id": "web-public", "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "s", "nonce": "n",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}
    multilingual.add_client("web-public", APP_REDIRECT, public=True)
    started = requests.post(multilingual.issuer + "/flows/recovery", json=body, headers=english, timeout=10).json()
    step = lambda values: requests.post(f"{multilingual.issuer}/flows/{started['flow_id']}", headers=english, timeout=30,  # noqa: E731
                                        json={"client_id": "web-public", "action": "submit", "values": values}).json()
    chose = step({"username": "claire"})
    assert chose["node"]["name"] == "Where should we send the code?"
    sent = step({"method": "email"})
    assert sent["node"]["name"] == "Enter the code"
    message = outbox(multilingual, "claire@example.com")[0]
    assert message["subject"] == catalog("fr")["message.recovery_code.subject"] == "Réinitialisez votre mot de passe"
    assert "est votre code de réinitialisation du mot de passe" in message["body"] and "minutes" in message["body"], message["body"]


def test_the_account_page_in_every_language_from_its_own_choice_of_language(multilingual, chromium, screenshots):
    folder = screenshots
    username = f"chooser-{time.monotonic_ns()}"
    multilingual.add_user(username, PASSWORD, email=f"{username}@example.com")
    chromium.delete_all_cookies()
    chromium.get(multilingual.issuer + "/account")
    chromium.find_element(By.ID, "username").send_keys(username)
    chromium.find_element(By.ID, "password").send_keys(PASSWORD)
    press(chromium, "submit")
    for language in LANGUAGES[1:] + LANGUAGES[:1]:
        own = catalog(language)
        Select(chromium.find_element(By.ID, "locale")).select_by_value(language)
        click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, "section[aria-labelledby=language] button"))
        html = chromium.find_element(By.TAG_NAME, "html")
        assert (html.get_attribute("lang"), html.get_attribute("dir")) == (language, "rtl" if language == "ar" else "ltr")
        assert chromium.find_element(By.TAG_NAME, "h1").text == own["account.title"]
        assert chromium.find_element(By.CSS_SELECTOR, "p.info").text == own["account.notice.language_changed"]
        assert untranslated(chromium, language) == [], language
        screens = Screens(chromium, folder, prefix=f"language-{language}-account")
        screens.check("account")
        if language in ("en", "ar"):
            check_dark_too(chromium, screens, "account")


def test_the_device_and_sign_out_pages_speak_the_browsers_language(multilingual):
    for language in LANGUAGES:
        own = catalog(language)
        headers = {"Accept-Language": language}
        device = requests.get(multilingual.issuer + "/device", headers=headers, timeout=10)
        assert device.status_code == 200 and f'<html lang="{language}"' in device.text
        assert f"<h1>{own['device.code.title']}</h1>" in device.text and own["device.code.hint"] in device.text
        wrong = requests.post(multilingual.issuer + "/device", headers=headers, data={"user_code": "BCDF-GHJK"}, timeout=10)
        assert wrong.status_code == 403 and own["device.form_expired"] in wrong.text
        sign_out = requests.get(multilingual.issuer + "/logout", headers=headers, timeout=10)
        assert sign_out.status_code == 200 and f"<h1>{own['logout.heading']}</h1>" in sign_out.text
        assert own["logout.question"].replace("{product}", isolated(language, "Gatehouse")) in sign_out.text



def test_pages_that_stop_a_request_before_any_flow_speak_its_language(multilingual):
    for language in LANGUAGES:
        own = catalog(language)
        # `ui_locales` on the request first, then the browser's languages.
        unknown = requests.get(multilingual.issuer + "/authorize", params={"client_id": "no-such-app", "ui_locales": f"{language}-XX tlh"},
                               headers={"Accept-Language": "en"}, timeout=10)
        assert unknown.status_code == 400 and f'<html lang="{language}"' in unknown.text
        assert f"<h1>{own['page.unknown_application.title']}</h1>" in unknown.text
        assert own["page.unknown_application.message"].replace("{client}", isolated(language, "no-such-app")) in unknown.text
        headers = {"Accept-Language": language}
        nameless = requests.get(multilingual.issuer + "/authorize", params={"scope": "openid"}, headers=headers, timeout=10)
        assert nameless.status_code == 400 and own["page.request.no_client"] in nameless.text
        elsewhere = requests.get(multilingual.issuer + "/authorize", headers=headers, timeout=10,
                                 params={"client_id": "web", "redirect_uri": "https://elsewhere.example/cb", "response_type": "code"})
        assert elsewhere.status_code == 400 and f"<h1>{own['page.invalid_redirect.title']}</h1>" in elsewhere.text
        forged = requests.get(multilingual.issuer + "/logout", params={"id_token_hint": "a.b.c", "ui_locales": language}, timeout=10)
        assert forged.status_code == 400 and f'<html lang="{language}"' in forged.text
        assert f"<h1>{own['page.sign_out.invalid']}</h1>" in forged.text and own["page.sign_out.foreign_hint"] in forged.text
        # RP-initiated logout's `ui_locales` chooses the sign-out question's language, and goes with its form.
        asked = requests.get(multilingual.issuer + "/logout", params={"ui_locales": language}, timeout=10)
        assert asked.status_code == 200 and f"<h1>{own['logout.heading']}</h1>" in asked.text
        assert f'name="ui_locales" value="{language}"' in asked.text
        stray = requests.get(multilingual.issuer + "/login/idp/callback", params={"state": "no-such-flow.x", "code": "c"}, headers=headers,
                             timeout=10)
        assert f'<html lang="{language}"' in stray.text and f"<h1>{own['page.sign_in_expired.title']}</h1>" in stray.text


def test_the_terminal_speaks_the_language_of_its_locale(multilingual, tmp_path):
    multilingual.add_client("gatehouse-cli", "dev.gatehouse.cli:/callback", public=True)
    de, ja, es = catalog("de"), catalog("ja"), catalog("es")

    def login(home, password, **env):
        return gatehouse("login", "--issuer", multilingual.issuer, "--home", str(home), "--username", "alice", "--password-stdin",
                         stdin=password + "\n", check=False, env=env)

    # A scripted sign-in under a German locale: the refusal (the SDK's words) and the success (the tool's) in German.
    wrong = login(tmp_path / "de", "a wrong password", LANG="de_DE.UTF-8")
    assert wrong.returncode == 1 and de["flow.error.invalid_credentials"] in wrong.stderr, wrong.stderr
    done = login(tmp_path / "de", PASSWORD, LANG="de_DE.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == de["cli.done.login"].replace("{who}", "alice").replace("{issuer}", multilingual.issuer)
    signed_out = gatehouse("logout", "--home", str(tmp_path / "de"), env={"LC_ALL": "es_ES.UTF-8", "LANG": "de_DE.UTF-8"})
    assert signed_out.stdout.strip() == es["cli.signed_out"].replace("{issuer}", multilingual.issuer)
    # gettext's rules: LANGUAGE's list comes first, but a C locale means plain English.
    assert gatehouse("logout", "--home", str(tmp_path / "none"), env={"LANGUAGE": "es:de", "LANG": "fr_FR.UTF-8"}).stdout.strip() == es["cli.not_signed_in"]
    assert gatehouse("logout", "--home", str(tmp_path / "none"), env={"LANGUAGE": "es:de", "LANG": "C.UTF-8"}).stdout.strip() == "Not signed in."

    # At the keyboard in Japanese: the server's labels and messages, and the tool's own prompts, in Japanese.
    session = pexpect.spawn(binary(), ["login", "--issuer", multilingual.issuer, "--home", str(tmp_path / "ja")], encoding="utf-8",
                            timeout=60, env=dict(os.environ, LANG="ja_JP.UTF-8", COLUMNS="120"))
    prompt = lambda label, **more: ja["cli.prompt_suggested" if more else "cli.prompt"].replace("{label}", label).replace(  # noqa: E731
        "{suggestion}", more.get("suggestion", "")) + " "
    session.expect_exact(prompt(ja["flow.field.username.label"]))
    session.sendline("alice")
    session.expect_exact(prompt(ja["flow.field.password.label"]))
    session.sendline("a wrong password")
    session.expect_exact(ja["flow.error.invalid_credentials"])
    session.expect_exact(prompt(ja["flow.field.username.label"], suggestion="alice"))
    session.sendline("")
    session.expect_exact(prompt(ja["flow.field.password.label"]))
    session.sendline(PASSWORD)
    session.expect_exact(ja["cli.done.login"].replace("{who}", "alice").replace("{issuer}", multilingual.issuer))
    session.expect(pexpect.EOF)
    session.close()
    assert session.exitstatus == 0


def test_the_other_hosted_pages_pass_axe_in_english_and_arabic_light_and_dark(multilingual, chromium, screenshots):
    """Beyond the journeys above: the error page, the email link's page, the authenticator app's confirmation, the
    device grant's pages, and sign-out."""
    multilingual.cli("clients", "add", "tv", "--public", "--device-grant", "--name", "Living-room TV")
    folder = screenshots
    issuer = multilingual.issuer

    def click(selector):
        click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, selector))

    for language in ("en", "ar"):
        own = catalog(language)
        screens = Screens(chromium, folder, prefix=f"language-{language}-other")

        def check(name, heading=None):
            assert heading is None or chromium.find_element(By.TAG_NAME, "h1").text == heading
            assert chromium.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
            assert untranslated(chromium, language) == [], (language, name)
            screens.check(name)
            check_dark_too(chromium, screens, name)

        accept_language(chromium, language)
        chromium.delete_all_cookies()
        chromium.get(issuer + "/authorize?client_id=no-such-app")
        check("error", own["page.unknown_application.title"])
        chromium.get(issuer + "/login/email?code=123456")
        check("email-link", own["page.email_link.title"])
        chromium.get(issuer + "/authenticator/confirm?identity=none&code=none")
        check("app-confirmation-expired", own["device_confirm.expired.title"])

        # The device grant: the code typed on /device, a sign-in, the question, the answer.
        codes = requests.post(issuer + "/device_authorization", data={"client_id": "tv", "scope": "openid"}, timeout=10).json()
        chromium.get(issuer + "/device")
        check("device-code", own["device.code.title"])
        chromium.find_element(By.ID, "user_code").send_keys(codes["user_code"])
        click("button[type=submit]")
        username = f"viewer-{language}-{time.monotonic_ns()}"
        multilingual.add_user(username, PASSWORD)
        chromium.find_element(By.ID, "username").send_keys(username)
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")
        assert "/device/confirm" in chromium.current_url
        check("device-question")
        click("button[name=decision][value=allow]")
        check("device-approved", own["device.approved.heading"].replace("{application}", isolated(language, "Living-room TV")))

        # Sign-out: the question, then the signed-out page.
        chromium.get(issuer + "/logout")
        check("sign-out", own["logout.heading"])
        click("button[name=confirm]")
        check("signed-out", own["logout.done.heading"])

