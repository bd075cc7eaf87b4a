"""Prometheus metrics end to end: a real Prometheus (the Debian package) scrapes the metrics listener, and its query
API sees the sign-ins the test made; `promtool check metrics` accepts the exposition; the public listener has none."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import requests

from gatehouse_harness import PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, free_port, get_code, redeem


@pytest.fixture(scope="module")
def metered():
    port = free_port()
    # One hashing thread, so concurrent sign-ins visibly queue for it.
    server = Server(config={"metrics": {"port": port}, "max_concurrent_hashes": 1})
    server.add_user("alice", PASSWORD, name="Alice Example")
    server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    server.metrics_url = f"http://127.0.0.1:{port}/metrics"
    yield server
    server.stop()


@pytest.fixture(scope="module")
def prometheus(metered):
    binary = shutil.which("prometheus")
    if not binary:
        pytest.skip("Prometheus is not installed (apt-get install prometheus)")
    folder = tempfile.TemporaryDirectory(prefix="gatehouse-prometheus-")
    target = metered.metrics_url.split("//")[1].split("/")[0]
    config = Path(folder.name) / "prometheus.yml"
    config.write_text(f"global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gatehouse\n    static_configs:\n      - targets: ['{target}']\n")
    port = free_port()
    process = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={folder.name}/data",
                                f"--web.listen-address=127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(url + "/-/ready", timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        time.sleep(0.3)
    else:
        process.kill()
        raise RuntimeError("Prometheus did not become ready")
    yield url
    process.terminate()
    process.wait(timeout=20)
    folder.cleanup()


def query(prometheus, expression):
    answer = requests.get(prometheus + "/api/v1/query", params={"query": expression}, timeout=10).json()
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def test_prometheus_sees_the_sign_ins(metered, prometheus):
    for _ in range(2):
        assert redeem(metered, get_code(metered)).status_code == 200
    wrong = Browser(metered)
    wrong.sign_in(authorize_url(metered), "alice", "not the password")
    deadline = time.monotonic() + 30
    succeeded = failed = None
    while time.monotonic() < deadline:
        succeeded = query(prometheus, 'sum(gatehouse_sign_ins_total{outcome="succeeded",factor="pwd"})')
        failed = query(prometheus, 'sum(gatehouse_sign_ins_total{outcome="failed",reason="invalid_credentials"})')
        if succeeded and float(succeeded[0]["value"][1]) == 2 and failed and float(failed[0]["value"][1]) == 1:
            break
        time.sleep(0.5)
    assert succeeded and float(succeeded[0]["value"][1]) == 2, succeeded
    assert failed and float(failed[0]["value"][1]) == 1, failed
    issued = query(prometheus, 'sum(gatehouse_tokens_issued_total{grant="authorization_code"})')
    assert issued and float(issued[0]["value"][1]) == 2
    routes = {series["metric"]["http_route"] for series in query(prometheus, "http_requests_total")}
    assert {"/authorize", "/login", "/token"} <= routes
    assert query(prometheus, 'gatehouse_build_info') and query(prometheus, "up{job=\"gatehouse\"} == 1")


def test_the_exposition_passes_promtool_and_is_not_public(metered):
    exposition = requests.get(metered.metrics_url, timeout=10)
    assert exposition.status_code == 200 and exposition.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    promtool = shutil.which("promtool")
    if not promtool:
        pytest.skip("promtool is not installed (apt-get install prometheus)")
    checked = subprocess.run([promtool, "check", "metrics"], input=exposition.text, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert requests.get(metered.issuer + "/metrics", timeout=10).status_code == 404


def sample(exposition, name):
    """The value of the sample `name` (with its labels, if any) in a text exposition."""
    for line in exposition.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} is not in the exposition")


def test_gauges_of_the_pools_and_the_courier_are_read_at_scrape_time(metered):
    # A message waits in the outbox queue? The outbox delivers at once, so the backlog is empty again.
    before = requests.get(metered.metrics_url, timeout=10).text
    assert sample(before, "gatehouse_password_hash_threads") >= 1
    assert sample(before, "gatehouse_courier_queue_depth") == 0
    assert sample(before, 'gatehouse_database_operations_in_flight{kind="transaction"}') == 0
    # Sign-ins at once against one hashing thread (unknown names: each still hashes, and no account is paused): a
    # scrape meanwhile sees them queue. A few rounds, as the queue lasts only while the hashes do.
    import concurrent.futures
    seen = []
    def scrape_while_busy(stop):
        while not stop.is_set() and not seen:
            text = requests.get(metered.metrics_url, timeout=10).text
            if sample(text, "gatehouse_password_hashes_in_flight") > sample(text, "gatehouse_password_hash_threads"):
                seen.append(text)
    for round in range(5):
        stop = threading.Event()
        with concurrent.futures.ThreadPoolExecutor(max_workers=9) as pool:
            watcher = pool.submit(scrape_while_busy, stop)
            sign_ins = [pool.submit(Browser(metered).sign_in, authorize_url(metered), f"nobody-{round}-{index}", "a wrong password")
                        for index in range(8)]
            for done in sign_ins:
                done.result()
            stop.set()
            watcher.result()
        if seen:
            break
    assert seen, "no scrape saw password hashes waiting for the pool"
    after = requests.get(metered.metrics_url, timeout=10).text
    assert sample(after, "gatehouse_password_hashes_in_flight") == 0
