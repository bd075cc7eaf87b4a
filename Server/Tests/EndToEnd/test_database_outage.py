"""PostgreSQL stops for 20 seconds under refresh load on two nodes, then starts again. While it is away, requests past
the wait limit (`database_wait`) answer 503 with Retry-After at once instead of piling up, and `/health/ready` says
503 within a second; when it is back, both nodes are ready within seconds, no refresh token a client was given is lost,
and no client that retried a refresh whose answer it never had is treated as a replay (its sign-in is not revoked).
A second test is a fault test of the moment of the stop: requests in flight as PostgreSQL stops (`pg_ctl stop -m
fast`) each get an answer within `database_wait` and a bound, whatever state their connection was in (a query lost on
a closing connection included), never silence: refreshes and userinfo reads from sixteen threads across three stops,
each request waiting far longer than the bound, so a hang shows as a missing answer. The database is a PostgreSQL
server of this module's own, which it stops and starts."""
from __future__ import annotations

import threading
import time

import pytest
import requests

from gatehouse_harness import APP_REDIRECT, PASSWORD, PostgresInstance, Server, exchange, start, submit

WAIT = 2  # database_wait, seconds
CLIENT_TIMEOUT = 4  # what the load's clients wait for an answer before retrying
USERS = 24
BOUND = 3  # what an answer to a request in flight at the stop may take beyond the wait
PATIENCE = 30  # how long each such request waits for any answer: far past the bound, so a hang is seen as one
THREADS = 16


@pytest.fixture(scope="module")
def postgres():
    try:
        instance = PostgresInstance()
    except (RuntimeError, OSError) as error:
        pytest.skip(f"PostgreSQL cannot be started here: {error}")
    yield instance
    instance.destroy()


def sign_in(node, username):
    """`username`'s tokens (access and refresh) from a native sign-in at `node`."""
    flow = start(node).json()
    done = submit(node, flow["flow_id"], {"username": username, "password": PASSWORD}).json()
    return exchange(node, done["authorization"]["code"]).json()


class Client:
    """One signed-in app refreshing as fast as it is answered, alternating nodes: a 200 gives it its next refresh token
    (acknowledged); a 503, a timeout or a lost connection makes it send the same token again, as any app would."""

    def __init__(self, nodes, refresh_token):
        self.nodes = nodes
        self.token = refresh_token
        self.acknowledged = 0
        self.refused: list[str] = []
        self.answers: list[tuple[float, float, int]] = []  # (when, seconds taken, status; 0 for no answer)

    def run(self, stop: threading.Event):
        session = requests.Session()
        turn = 0
        while not stop.is_set():
            node = self.nodes[turn % len(self.nodes)]
            turn += 1
            began = time.monotonic()
            try:
                answer = session.post(node.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": self.token,
                                                                    "client_id": "app"}, timeout=CLIENT_TIMEOUT)
                status = answer.status_code
            except requests.RequestException:
                answer, status = None, 0
                session = requests.Session()
            self.answers.append((began, time.monotonic() - began, status))
            if status == 200:
                self.token = answer.json()["refresh_token"]
                self.acknowledged += 1
            elif status == 400:
                self.refused.append(answer.text)
                return
            else:
                time.sleep(0.2)
            time.sleep(0.05)


def test_a_twenty_second_outage_signs_nobody_out(postgres):
    url = postgres.create_database()
    config = {"database_wait": WAIT, "secret": "outage-test-shared-secret-0123456789abcdef"}
    nodes: list[Server] = []
    stop = threading.Event()
    threads: list[threading.Thread] = []
    try:
        nodes.append(Server(database_url=url, config=config))
        nodes.append(Server(database_url=url, config={**config, "issuer": nodes[0].issuer}))
        nodes[0].add_client("app", APP_REDIRECT, public=True)
        for number in range(USERS):
            nodes[0].add_user(f"user{number}", PASSWORD)
        clients = [Client(nodes, sign_in(nodes[0], f"user{number}")["refresh_token"]) for number in range(USERS)]
        threads.extend(threading.Thread(target=client.run, args=(stop,)) for client in clients)
        for thread in threads:
            thread.start()
        time.sleep(3)

        postgres.stop()
        stopped = time.monotonic()
        readiness = []
        while time.monotonic() - stopped < 20:
            for node in nodes:
                began = time.monotonic()
                try:
                    status = requests.get(node.issuer + "/health/ready", timeout=5).status_code
                except requests.RequestException:
                    status = 0
                readiness.append((time.monotonic() - stopped, time.monotonic() - began, status))
            time.sleep(0.5)
        postgres.start()
        restarted = time.monotonic()
        ready_again = {}
        while len(ready_again) < len(nodes) and time.monotonic() - restarted < 30:
            for index, node in enumerate(nodes):
                if index not in ready_again and requests.get(node.issuer + "/health/ready", timeout=5).status_code == 200:
                    ready_again[index] = time.monotonic() - restarted
            time.sleep(0.2)
        time.sleep(5)  # the load goes on against the database that came back
        stop.set()
        for thread in threads:
            thread.join(timeout=30)

        # During the outage readiness said 503, each answer within a second (the first second may still have seen it up).
        during = [entry for entry in readiness if entry[0] > 1]
        assert during and all(status == 503 for _, _, status in during), during
        assert max(taken for _, taken, _ in during) < 1.5, during
        assert sorted(ready_again) == [0, 1] and max(ready_again.values()) < 15, ready_again

        # Refreshes during the outage answered 503 at the wait limit, never hung for the outage's length.
        answers = [answer for client in clients for answer in client.answers]
        outage = [answer for answer in answers if stopped + 1 < answer[0] < restarted - 1]
        assert outage and {status for _, _, status in outage} <= {503, 0}, {status for _, _, status in outage}
        assert max(taken for _, taken, _ in outage) < WAIT + 1.5, max(taken for _, taken, _ in outage)
        assert sum(status == 503 for _, _, status in outage) > len(outage) / 2
        # Never a server error: a connection lost mid-transaction is the database being away too.
        errors = [line for node in nodes for line in node.stderr().splitlines() if " error " in line]
        assert {status for _, _, status in answers} <= {200, 503, 0}, ({status for _, _, status in answers}, "\n".join(errors[:8]))

        # Nobody was signed out: no refresh was refused as a replay, every client refreshed after the outage, and the
        # last token each was given still works.
        assert not [client.refused for client in clients if client.refused], [client.refused for client in clients if client.refused]
        assert all(any(status == 200 and when > restarted for when, _, status in client.answers) for client in clients)
        for client in clients:
            final = requests.post(nodes[0].issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": client.token,
                                                                    "client_id": "app"}, timeout=10)
            assert final.status_code == 200, final.text
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        for node in nodes:
            node.stop()


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
            tokens.append(sign_in(node, f"user{number}"))

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
