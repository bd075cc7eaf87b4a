"""The operator's brand: `branding` puts a product name, logo, favicon, colours and an extra stylesheet on every hosted
page (colours through `/assets/brand.css`, the stylesheet's origin allowed by the CSP), and a client's own name and
logo where a page names the application; `templates_dir` replaces a shipped template; a broken setting or template
stops the start with what is wrong and where. The default look fits a 320 px wide screen; Chromium checks it with
axe-core, light and dark, and keeps screenshots (GATEHOUSE_SCREENSHOTS, else .build/screenshots)."""
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from browser_steps import Screens, dark
from gatehouse_harness import PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, binary, forms

LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='120' height='40'%3E%3Crect width='120' height='40' fill='%230b6e4f'/%3E%3C/svg%3E"
BRANDING = {
    "product_name": "Acme ID", "logo_url": LOGO, "favicon_url": LOGO, "primary_color": "#0b6e4f", "accent_color": "#0b5e44",
    "stylesheet_url": "https://cdn.acme.example/id.css", "clients": {"partner": {"name": "Partner Portal", "logo_url": LOGO}},
}
OUTBOX = {"email": {"delivery": "outbox"}, "sms": {"delivery": "outbox"}}


@pytest.fixture(scope="module")
def branded():
    folder = tempfile.TemporaryDirectory(prefix="gatehouse-templates-")
    # The operator's own markup for one template: the error page.
    Path(folder.name, "error.mustache").write_text('<h1 class="acme">{{title}}</h1>\n<p class="error" role="alert">Acme: {{message}}</p>\n')
    server = Server(config={"branding": BRANDING, "templates_dir": folder.name})
    try:
        server.add_user("alice", PASSWORD)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client("partner", WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Partner App", "--third-party"])
        yield server
    finally:
        server.stop()
        folder.cleanup()


def test_every_page_carries_the_brand_and_a_client_its_own_name(branded):
    page = requests.get(authorize_url(branded), timeout=10)
    assert page.status_code == 200
    assert re.search(r"<title>[^<]+ · Acme ID</title>", page.text), page.text[:400]
    assert f'<header class="brand"><img src="{LOGO.replace("&", "&amp;")}" alt="Acme ID" height="40"></header>' in page.text.replace("&#39;", "'")
    assert '<link rel="stylesheet" href="/assets/brand.css">' in page.text
    assert '<link rel="stylesheet" href="https://cdn.acme.example/id.css">' in page.text
    assert '<link rel="icon" href="data:image/svg+xml' in page.text
    # The operator's stylesheet is allowed by the CSP, and nothing else is: still no inline styles or scripts.
    policy = page.headers["Content-Security-Policy"]
    assert "style-src 'self' https://cdn.acme.example" in policy and "unsafe-inline" not in policy
    colours = requests.get(branded.issuer + "/assets/brand.css", timeout=10)
    assert colours.status_code == 200 and colours.headers["Content-Type"].startswith("text/css")
    assert "--primary: #0b6e4f;" in colours.text and "--accent: #0b5e44;" in colours.text and "--accent-dark" not in colours.text

    # The consent page names the client as the operator branded it; the page's chrome stays the operator's.
    browser = Browser(branded)
    consent = browser.sign_in(authorize_url(branded, client_id="partner"), "alice", PASSWORD)
    assert consent.status_code == 200 and 'data-node="consent"' in consent.text
    assert "Partner Portal" in consent.text and "Partner App" not in consent.text
    assert consent.text.count("<img") >= 2 and "· Acme ID</title>" in consent.text

    # The operator's error template replaces the shipped one.
    expired = requests.get(branded.issuer + "/login?flow=nothing", timeout=10)
    assert '<h1 class="acme">' in expired.text and "Acme: " in expired.text


def test_the_default_look_fits_320_pixels_and_passes_axe_light_and_dark(branded, chromium, screenshots):
    screens = Screens(chromium, screenshots, prefix="branding")
    chromium.set_window_size(320, 800)
    try:
        # The width of the page's viewport, not the window's: 320 CSS pixels across.
        chromium.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 320, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        chromium.get(authorize_url(branded, ui_locales="ar"))
        assert chromium.execute_script("return document.documentElement.scrollWidth") <= 320
        screens.check("sign-in-320-ar")
        chromium.get(authorize_url(branded))
        assert chromium.execute_script("return document.documentElement.scrollWidth") <= 320
        screens.check("sign-in-320")
        dark(chromium)
        chromium.refresh()
        screens.check("sign-in-320-dark")
        # Focus is visible: the focused field draws an outline.
        outline = chromium.execute_script(
            "const e = document.getElementById('username'); e.focus(); return getComputedStyle(e).outlineStyle")
        assert outline not in ("none", "")
    finally:
        dark(chromium, on=False)
        chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("config, named", [
    ({"branding": {"primary_color": "blue"}}, "branding.primary_color"),
    # White on pale yellow cannot be read: refused with the ratio it has.
    ({"branding": {"primary_color": "#f5e663"}}, "stands only 1.3:1 against white"),
    ({"branding": {"logo_url": "http://plain.example/logo.png"}}, "branding.logo_url"),
    ({"branding": {"stylesheet_url": "/local.css"}}, "branding.stylesheet_url"),
    ({"branding": {"product_name": ""}}, "branding.product_name"),
    ({"branding": {"colour": "#000000"}}, "branding.colour"),
    ({"branding": {"clients": {"web": {"logo": "x"}}}}, "branding.clients.web.logo"),
])
def test_a_broken_branding_setting_stops_the_start(config, named, tmp_path):
    refused = start_refused(tmp_path, config)
    assert named in refused.stderr, refused.stderr


def test_a_broken_or_unknown_template_stops_the_start_with_its_file_line_and_column(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "flow.mustache").write_text("<h1>{{name}}</h1>\n<p>{{#messages}}{{text}}</p>\n")
    refused = start_refused(tmp_path, {"templates_dir": str(folder)})
    assert "templates_dir" in refused.stderr and re.search(r"flow\.mustache:\d+:\d+", refused.stderr), refused.stderr
    (folder / "flow.mustache").unlink()
    (folder / "no-such-page.mustache").write_text("<p>hello</p>\n")
    refused = start_refused(tmp_path, {"templates_dir": str(folder)})
    assert "no-such-page.mustache" in refused.stderr and "no page template is called no-such-page" in refused.stderr, refused.stderr


def start_refused(folder, config):
    """`gatehouse serve` with `config`, which must refuse to start; nothing is written to its database."""
    path = folder / f"config-{time.monotonic_ns()}.json"
    path.write_text(json.dumps({**config, "courier": OUTBOX}))
    database = folder / f"refused-{time.monotonic_ns()}.sqlite"
    refused = subprocess.run([binary(), "serve", "--config", str(path), "--database", str(database), "--port", "0"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0, refused.stdout
    assert not database.exists()
    return refused
