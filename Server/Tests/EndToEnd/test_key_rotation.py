"""Signing keys that rotate on a schedule (`keys.rotate_every`) across two PostgreSQL nodes: every successor is in the
JWKS before it signs, so a relying party that caches the key set for as long as the server lets it never meets an
unknown `kid`, and tokens signed by a retired key verify until they expire."""
import base64
import json
import os
import re
import tempfile
import time

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import POSTGRES_URL, authorize_url, Browser, free_port, fresh_postgres_database, gatehouse, redeem, redirect_parameters, refresh, Server

needs_postgres = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")

# A successor every 12 s, published 6 s ahead; nodes reread the keys every second (a quarter of that, rounded down), and
# the JWKS may be cached for 4 s (what is left after two rereads).
SCHEDULE = {"keys": {"rotate_every": 12, "publish_ahead": 6}}


class CachingRelyingParty:
    """Fetches the JWKS from whichever node the balancer gives it, keeps it for the `max-age` the answer allows, and
    never fetches early: an unknown `kid` is a failure, not a reason to fetch."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.fetches = 0
        self.keys = None
        self.expires = 0.0

    def key_set(self) -> KeySet:
        if self.keys is None or time.monotonic() >= self.expires:
            answer = requests.get(self.nodes[self.fetches % len(self.nodes)].issuer + "/jwks", timeout=10)
            assert answer.status_code == 200
            max_age = int(re.search(r"max-age=(\d+)", answer.headers["Cache-Control"]).group(1))
            self.keys = answer.json()
            self.expires = time.monotonic() + max_age
            self.fetches += 1
        return KeySet.import_key_set(self.keys)

    def kids(self) -> set[str]:
        self.key_set()
        return {key["kid"] for key in self.keys["keys"]}


def kid_of(token: str) -> str:
    """The `kid` of a token's header, read before any key is chosen: what a relying party looks up."""
    header = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]


@needs_postgres
def test_three_rotations_on_two_nodes_never_show_an_unknown_kid():
    url = fresh_postgres_database()
    first = Server(database_url=url, owns_database=True, config=SCHEDULE)
    second = None
    try:
        second = Server(database_url=url, config={**SCHEDULE, "issuer": first.issuer})
        nodes = [first, second]
        jwks = requests.get(first.issuer + "/jwks", timeout=10)
        assert jwks.headers["Cache-Control"] == "public, max-age=4", jwks.headers
        first.add_user("alice", PASSWORD)
        first.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        tokens = redeem(first, redirect_parameters(Browser(first).sign_in(authorize_url(first), "alice", PASSWORD))["code"]).json()
        earliest = tokens["id_token"]
        relying_party = CachingRelyingParty(nodes)

        seen: dict[str, int] = {}
        refresh_token = tokens["refresh_token"]
        deadline = time.monotonic() + 90
        round_number = 0
        while len(seen) < 4 and time.monotonic() < deadline:
            node = nodes[round_number % 2]
            answer = refresh(node, refresh_token)
            assert answer.status_code == 200, answer.text
            refresh_token = answer.json()["refresh_token"]
            id_token = answer.json()["id_token"]
            kid = kid_of(id_token)
            assert kid in relying_party.kids(), f"round {round_number}: {kid} is not in the cached key set"
            jwt.decode(id_token, relying_party.key_set(), algorithms=["RS256"])
            seen[kid] = seen.get(kid, 0) + 1
            round_number += 1
            time.sleep(0.25)
        assert len(seen) >= 4, f"three rotations within 90 s: saw {seen}"
        assert relying_party.fetches > 5

        # The first key is retired, yet the token it signed verifies until the token expires (15 minutes).
        retired = kid_of(earliest)
        keys = json.loads(first.cli("keys", "list", "--json").stdout)
        statuses = {key["kid"]: key["status"] for key in keys}
        assert statuses[retired] == "retired"
        assert sorted(set(statuses.values())) == ["active", "next", "retired"] or sorted(set(statuses.values())) == ["active", "retired"]
        fresh = KeySet.import_key_set(requests.get(second.issuer + "/jwks", timeout=10).json())
        claims = jwt.decode(earliest, fresh, algorithms=["RS256"]).claims
        jwt.JWTClaimsRegistry(exp={"essential": True}).validate(claims)

        # Each successor was made once, by one of the nodes: one event per key beyond the two first ones.
        events = json.loads(first.cli("events", "--type", "key.scheduled", "--json", "--limit", "100").stdout)
        assert len(events) == len(keys) - 2, (events, keys)
        assert all(event["actor"] == "system" for event in events)
        scheduled_rs256 = sorted(event["details"]["kid"] for event in events if event["details"]["algorithm"] == "RS256")
        assert set(seen) - {retired} <= set(scheduled_rs256)
    finally:
        if second:
            second.stop()
        first.stop()


def test_a_schedule_shorter_than_its_publication_is_refused():
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "config.json")
        with open(config, "w") as file:
            json.dump({"keys": {"rotate_every": 3600, "publish_ahead": 86400}}, file)
        result = gatehouse("serve", "--config", config, "--database", os.path.join(folder, "g.sqlite"), "--port", str(free_port()),
                           check=False, timeout=60)
        assert result.returncode != 0
        assert "keys.rotate_every" in result.stderr and "publish_ahead" in result.stderr
