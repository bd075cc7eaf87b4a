"""Fault test: requests in flight at the moment PostgreSQL stops (`pg_ctl stop -m fast`) each get an answer within
`database_wait` and a bound, whatever state their connection was in (a query lost on a closing connection included),
never silence. Refreshes and userinfo reads run from sixteen threads across the stop, three stops in a row; every
request gives up only after far longer than the bound, so a hang shows as a missing answer. The database is a
PostgreSQL server of this test's own, which it stops and starts."""
from __future__ import annotations

import threading
import time

import pytest
import requests

from gatehouse_harness import APP_REDIRECT, PASSWORD, PostgresInstance, Server, exchange, start, submit

WAIT = 2  # database_wait, seconds
BOUND = 3  # what an answer may take beyond the wait
PATIENCE = 30  # how long each request waits for any answer: far past the bound, so a hang is seen as one
THREADS = 16


@pytest.fixture(scope="module")
def postgres():
    try:
        instance = PostgresInstance()
    except (RuntimeError, OSError) as error:
        pytest.skip(f"PostgreSQL cannot be started here: {error}")
    yield instance
    instance.destroy()


def test_every_request_in_flight_when_postgresql_stops_is_answered_in_time(postgres):
    node = Server(database_url=postgres.create_database(), config={"database_wait": WAIT, "secret": "stop-test-shared-secret-0123456789abcdef"})
    stop = threading.Event()
    results: list[tuple[float, float, int, str]] = []  # (when, seconds taken, status or 0, what)
    lock = threading.Lock()
    try:
        node.add_client("app", APP_REDIRECT, public=True)
        tokens = []
        for number in range(THREADS):
            node.add_user(f"user{number}", PASSWORD)
            flow = start(node).json()
            done = submit(node, flow["flow_id"], {"username": f"user{number}", "password": PASSWORD}).json()
            tokens.append(exchange(node, done["authorization"]["code"]).json())

        def load(index: int):
            session = requests.Session()
            refresh_token, access_token = tokens[index]["refresh_token"], tokens[index]["access_token"]
            turn = 0
            while not stop.is_set():
                turn += 1
                began = time.monotonic()
                what = "refresh" if turn % 2 else "userinfo"
                try:
                    if what == "refresh":
                        answer = session.post(node.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token,
                                                                            "client_id": "app"}, timeout=PATIENCE)
                    else:
                        answer = session.get(node.issuer + "/userinfo", headers={"Authorization": "Bearer " + access_token}, timeout=PATIENCE)
                    status = answer.status_code
                    if what == "refresh" and status == 200:
                        refresh_token, access_token = answer.json()["refresh_token"], answer.json()["access_token"]
                except requests.RequestException:
                    status = 0
                    session = requests.Session()
                with lock:
                    results.append((began, time.monotonic() - began, status, what))
                time.sleep(0.01)

        threads = [threading.Thread(target=load, args=(index,)) for index in range(THREADS)]
        for thread in threads:
            thread.start()
        stops = []
        for _ in range(3):
            time.sleep(1.5)
            stops.append(time.monotonic())
            postgres.stop()
            time.sleep(WAIT + BOUND + 1)
            postgres.start()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and requests.get(node.issuer + "/health/ready", timeout=5).status_code != 200:
                time.sleep(0.2)
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join(timeout=PATIENCE + 10)

        around = [entry for entry in results if any(moment - 1 < entry[0] < moment + 1 for moment in stops)]
        print(f"{len(results)} requests, {len(around)} sent within a second of a stop; slowest {max(taken for _, taken, _, _ in results):.2f} s")
        assert around
        silent = [entry for entry in results if entry[2] == 0]
        assert not silent, f"{len(silent)} requests got no answer: {silent[:5]}"
        late = [entry for entry in results if entry[1] > WAIT + BOUND]
        assert not late, f"{len(late)} answers came after {WAIT + BOUND} s: {sorted(late, key=lambda entry: -entry[1])[:5]}"
        assert {status for _, _, status, _ in results} <= {200, 503}, {status for _, _, status, _ in results}
    finally:
        stop.set()
        node.stop()
