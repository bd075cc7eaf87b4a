"""Steps a person takes on the hosted pages in a real browser (Selenium), shared by the browser tests."""
import json
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from gatehouse_harness import PASSWORD, WEB_REDIRECT, authorize_url


def page_node(browser):
    """The id of the flow node the page shows."""
    return browser.find_element(By.CSS_SELECTOR, "form[data-node]").get_attribute("data-node")


def click_and_wait(browser, element):
    """Clicks `element` and waits for the page the answer brings (a click returns before it loads)."""
    browser.execute_script("window.answered = true")  # gone once the next document loads
    element.click()
    WebDriverWait(browser, 20).until(
        lambda driver: driver.execute_script("return !window.answered && document.readyState === 'complete'"))


def press(browser, action):
    """Clicks the button of `action` and waits for the next page."""
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, f"button[name=action][value={action}]"))


def sign_in(browser, server, username, **overrides):
    """Opens the web client's authorization request and signs in with the password."""
    browser.get(authorize_url(server, **overrides))
    assert browser.find_elements(By.ID, "username"), f"expected the sign-in form, got {browser.current_url}"
    browser.find_element(By.ID, "username").send_keys(username)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    press(browser, "submit")


def sign_out(browser, server):
    """Forgets the browser session: its cookie belongs to the server's origin, so delete it from a page there."""
    browser.get(server.issuer + "/.well-known/openid-configuration")
    browser.delete_all_cookies()


def signed_in(browser):
    """Waits for the redirect back to the web client; whether it carries a code."""
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.startswith(WEB_REDIRECT))
    return "code=" in browser.current_url


def dark(browser, on=True):
    """Chromium shows the pages as to a person whose system asks for a dark colour scheme."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if on else "light"}]})


def accept_language(browser, header):
    """Makes `browser` send `header` as its `Accept-Language`, as a browser set to those languages does."""
    agent = browser.execute_script("return navigator.userAgent")
    browser.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": header})


class Screens:
    """Screenshots (named `prefix`-NN-name.png) and axe-core, no serious or critical finding, for each screen a walk reaches."""

    def __init__(self, browser, folder, prefix):
        self.browser, self.folder, self.prefix, self.taken = browser, folder, prefix, []

    def check(self, name):
        from axe_selenium_python import Axe

        self.browser.save_screenshot(os.path.join(self.folder, f"{self.prefix}-{len(self.taken) + 1:02d}-{name}.png"))
        self.taken.append(name)
        axe = Axe(self.browser)
        axe.inject()
        serious = [v for v in axe.run()["violations"] if v["impact"] in ("serious", "critical") and not one_time_code_token(v)]
        assert not serious, f"{name}: " + json.dumps(serious, indent=1)[:3000]


def one_time_code_token(violation):
    """The axe-core that axe-selenium-python bundles (3.1) predates HTML's `one-time-code` autocomplete token and calls
    it malformed; that finding alone is set aside (later axe-core releases accept it)."""
    return violation["id"] == "autocomplete-valid" and all('autocomplete="one-time-code"' in node["html"] for node in violation["nodes"])
