"""A real browser (headless Chromium through Selenium) tries the demo the way the README tells a new user to."""
import json
import os
import re

import pytest

from gatehouse_harness import Server

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def wait_for_url(browser, prefix: str) -> None:
    """Waits until the browser has navigated to a URL starting with `prefix` (clicks return before navigation ends)."""
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.startswith(prefix))


def test_new_user_signs_in_to_the_demo_with_chromium(chromium, screenshots):
    browser = chromium
    server = Server(demo=True)
    try:
        password = re.search(r"Sign in as demo with the password (\S+)", server.stdout()).group(1)
        browser.get(server.issuer + "/demo")
        browser.find_element(By.ID, "sign-in").click()
        wait_for_url(browser, server.issuer + "/login?flow=")
        # The stylesheet loads under the page's CSP (a blocked stylesheet would leave the card unstyled).
        width = browser.execute_script("return getComputedStyle(document.querySelector('main')).width")
        assert width != "auto"
        assert browser.find_element(By.ID, "username").get_attribute("autocomplete") == "username"
        assert browser.find_element(By.ID, "password").get_attribute("autocomplete") == "current-password"
        browser.save_screenshot(os.path.join(screenshots, "login.png"))

        browser.find_element(By.ID, "username").send_keys("demo")
        browser.find_element(By.ID, "password").send_keys("not the password")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        assert browser.find_element(By.ID, "flow-message").text == "The username or password is incorrect."

        browser.find_element(By.ID, "password").send_keys(password)
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_for_url(browser, server.issuer + "/demo/callback?code=")
        assert "Signed in as demo" in browser.find_element(By.TAG_NAME, "h1").text
        claims = json.loads(browser.find_element(By.ID, "id-token-claims").text)
        assert claims["iss"] == server.issuer and claims["preferred_username"] == "demo"
        userinfo = json.loads(browser.find_element(By.ID, "userinfo").text)
        assert userinfo["sub"] == claims["sub"]
        browser.save_screenshot(os.path.join(screenshots, "signed-in.png"))

        session = browser.get_cookie("gatehouse_session")
        assert session and session["httpOnly"] and session["sameSite"] == "Lax"

        browser.find_element(By.ID, "sign-out").click()
        WebDriverWait(browser, 20).until(lambda driver: driver.current_url.rstrip("/").endswith("/demo") or "/demo?state=" in driver.current_url)
        assert browser.get_cookie("gatehouse_session") is None
        # Signed out for real: signing in again shows the form instead of single sign-on.
        browser.find_element(By.ID, "sign-in").click()
        wait_for_url(browser, server.issuer + "/login?flow=")
    finally:
        server.stop()
