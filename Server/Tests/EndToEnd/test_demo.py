"""`gatehouse serve --demo`: a new user opens /demo, signs in with the printed credentials and sees the claims."""
import json
import re

from urllib.parse import urljoin

from gatehouse_harness import Browser, Server, forms, hidden_text


def test_demo_sign_in_shows_verified_claims_and_userinfo():
    server = Server(demo=True)
    try:
        banner = server.stdout()
        assert f"{server.issuer}/demo" in banner
        password = re.search(r"Sign in as demo with the password (\S+)", banner).group(1)
        assert password not in server.stderr()  # never in the logs

        browser = Browser(server)
        home = browser.get(server.issuer + "/demo")
        assert home.status_code == 200 and 'href="/demo/login"' in home.text
        page = browser.get(server.issuer + "/demo/login")
        assert page.status_code == 200 and "Gatehouse demo" in page.text
        result = browser.submit_login(page, "demo", password)
        assert result.status_code == 200, result.text
        assert "Signed in as demo" in result.text
        claims = json.loads(hidden_text(result.text, "id-token-claims"))
        assert claims["iss"] == server.issuer and claims["aud"] == "gatehouse-demo"
        assert claims["email"] == "demo@example.com" and claims["amr"] == ["pwd"]
        userinfo = json.loads(hidden_text(result.text, "userinfo"))
        assert userinfo["sub"] == claims["sub"] and userinfo["name"] == "Demo User"

        sign_out = re.search(r'id="sign-out"|href="([^"]+)" id="sign-out"', result.text)
        link = re.search(r'href="([^"]+)" id="sign-out"', result.text).group(1).replace("&amp;", "&")
        back = browser.get(link)
        assert back.status_code == 200 and "Sign in with Gatehouse" in back.text
        assert sign_out

        # The same demo as a third-party application asks for consent, once; the account page lists it.
        assert 'href="/demo/login?as=partner"' in back.text
        page = browser.submit_login(browser.get(server.issuer + "/demo/login?as=partner"), "demo", password)
        assert 'data-node="consent"' in page.text and "Partner App (demo)" in page.text, page.text[-1500:]
        form = forms(page.text)[0]
        result = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"})
        assert "Signed in as demo" in result.text, result.text[-1500:]
        assert json.loads(hidden_text(result.text, "id-token-claims"))["aud"] == "gatehouse-demo-partner"
        again = browser.get(server.issuer + "/demo/login?as=partner")
        assert "Signed in as demo" in again.text, "allowed once, not asked again"
        assert "Partner App (demo)" in browser.get(server.issuer + "/account").text
    finally:
        server.stop()


def test_demo_password_is_stable_per_secret_and_logs_hold_no_secrets():
    first = Server(demo=True)
    try:
        password = re.search(r"with the password (\S+)", first.stdout()).group(1)
        secret_file = first.database + ".secret"
        with open(secret_file) as handle:
            secret = handle.read().strip()
        import os
        import stat
        assert stat.S_IMODE(os.stat(secret_file).st_mode) == 0o600
        assert secret not in first.stderr() and secret not in first.stdout()
        # A restart (or a second node) on the same database and secret prints the same password.
        first.restart()
        assert re.search(r"with the password (\S+)", first.stdout()).group(1) == password
    finally:
        first.stop()
    other = Server(demo=True)
    try:
        assert re.search(r"with the password (\S+)", other.stdout()).group(1) != password
    finally:
        other.stop()
