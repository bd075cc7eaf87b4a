import os
import shutil
from pathlib import Path

# authlib refuses plain http unless told; these tests only talk to loopback.
os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")
# The command-line tool speaks the locale's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG): the tests read its
# English, whatever the machine's locale; the languages test sets its own.
for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(name, None)
os.environ["LANG"] = "C.UTF-8"

import pytest

from gatehouse_harness import APP_REDIRECT, ES_SECRET, PASSWORD, POSTGRES_URL, WEB_REDIRECT, WEB_SECRET, Server, fresh_postgres_database  # noqa: F401 (re-exported)



ENGINES = ["sqlite"] + (["postgres"] if POSTGRES_URL else [])


def pytest_report_header(config):
    if POSTGRES_URL:
        return "database engines: sqlite, postgres"
    return "database engines: sqlite only (PostgreSQL skipped: GATEHOUSE_TEST_POSTGRES_URL is not set; scripts/with-postgres sets it)"


@pytest.fixture(scope="session", params=ENGINES)
def server(request):
    """One server per database engine, with a user, a confidential web client, an ES256 client and a public app."""
    if request.param == "postgres":
        instance = Server(database_url=fresh_postgres_database(), owns_database=True)
    else:
        instance = Server()
    try:
        instance.add_user("alice", PASSWORD, name="Alice Example")
        instance.add_client("web", WEB_REDIRECT, secret=WEB_SECRET,
                            extra=["--name", "Web App", "--post-logout-redirect-uri", "http://127.0.0.1:9/signed-out"])
        instance.add_client("es-web", WEB_REDIRECT, secret=ES_SECRET, extra=["--id-token-alg", "ES256"])
        instance.add_client("app", APP_REDIRECT, public=True)
        yield instance
    finally:
        instance.stop()


@pytest.fixture
def screenshots():
    """The folder the browser tests keep their screenshots in, after the run too: GATEHOUSE_SCREENSHOTS, else
    `.build/screenshots` at the repository's root."""
    folder = os.environ.get("GATEHOUSE_SCREENSHOTS") or str(Path(__file__).resolve().parents[3] / ".build" / "screenshots")
    os.makedirs(folder, exist_ok=True)
    return folder


@pytest.fixture
def chromium():
    """Headless Chromium through Selenium; the test is skipped, with the reason, where it is not installed."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    driver_path = shutil.which("chromedriver")
    binary_path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not (driver_path and binary_path):
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary_path
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1300"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    driver.implicitly_wait(10)
    try:
        yield driver
    finally:
        driver.quit()
