"""The soak: a release build of `gatehouse serve` under steady token traffic for an hour (by default), with token
lifetimes cut to minutes so the hour stands for weeks of a real server's life. Every few minutes it prints the live
row counts of the tables that grow with traffic and the database's size on disk; after warm-up (two refresh-token
lifetimes) they should stay flat, because the housekeeping sweep deletes what has expired.

    scripts/benchmark-soak                        # SQLite, 60 minutes
    scripts/benchmark-soak --minutes 10 --every 1
    scripts/with-postgres scripts/benchmark-soak --postgres

Traffic, bounded so that the machine stays usable: refresh-token rotations through wrk at a capped rate (each
connection pauses between requests), password sign-ins through the flow API and client-credentials grants from
Python threads. Everything stays on loopback.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loadbench  # noqa: E402
from loadbench import REDIRECT, SERVICE_SECRET, WRK_SCRIPTS, Client, drive, phc_scrypt  # noqa: E402
from gatehouse_harness import POSTGRES_URL, Server, fresh_postgres_database  # noqa: E402

# Minutes instead of days: a refresh token lives five minutes, so an hour is twelve of its lifetimes.
LIFETIMES = {"access_token": 60, "id_token": 60, "refresh_token": 300, "session": 600, "session_idle": 300}
GROWING_TABLES = ("flows", "authorization_codes", "browser_sessions", "access_tokens", "refresh_tokens", "revoked_grants",
                  "one_time_codes", "attempt_counters", "audit_events")


def database_bytes(server: Server) -> int | None:
    """The SQLite file with its write-ahead log, or PostgreSQL's database size as `db stats` reports it."""
    if server.database.startswith("postgres"):
        return None
    return sum(os.path.getsize(path) for path in (server.database, server.database + "-wal") if os.path.exists(path))


def sample(server: Server, began: float, counters: dict) -> dict:
    stats = json.loads(server.cli("db", "stats", "--json", timeout=600).stdout)
    rows = {table["name"]: table["rows"] for table in stats["tables"] if table["name"] in GROWING_TABLES}
    size = database_bytes(server) or stats.get("total_bytes")
    return {"minute": (time.monotonic() - began) / 60, "rotations": counters["rotations"], "sign_ins": counters["sign_ins"],
            "client_credentials": counters["client_credentials"], "rows": rows, "bytes": size}


def print_sample(figures: dict) -> None:
    rows = " ".join(f"{name}={count}" for name, count in figures["rows"].items())
    size = f"{figures['bytes'] / 2 ** 20:.1f} MiB" if figures["bytes"] is not None else "?"
    rotations = f"{figures['rotations']:>9}" if figures["rotations"] else "(at end)"  # wrk reports when it finishes
    print(f"{figures['minute']:6.1f} min  rotations {rotations:>9}  sign-ins {figures['sign_ins']:>6}  "
          f"size {size:>10}  {rows}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--every", type=float, default=5, help="minutes between samples")
    parser.add_argument("--families", type=int, default=8, help="refresh-token families rotated at once (wrk connections)")
    parser.add_argument("--pause-ms", type=int, default=10, help="each wrk connection's pause between rotations")
    parser.add_argument("--postgres", action="store_true", help="run on PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL)")
    parser.add_argument("--json", type=Path, help="write the samples here")
    options = parser.parse_args()
    if options.postgres and not POSTGRES_URL:
        parser.error("--postgres needs GATEHOUSE_TEST_POSTGRES_URL; run under scripts/with-postgres")
    loadbench.LOG_N = 12  # sign-ins are here for the rows they write, not to measure hashing
    config = {"password_hashing": {"log_n": 12, "block_size": 8, "parallelism": 1}, "login_throttling": None,
              "token_lifetimes": LIFETIMES, "housekeeping": {"interval": 30, "replay_window": 60}}
    server = Server(database_url=fresh_postgres_database(), owns_database=True, config=config) if options.postgres else Server(config=config)
    counters = {"rotations": 0, "sign_ins": 0, "client_credentials": 0}
    samples: list[dict] = []
    stop = threading.Event()
    try:
        loadbench.seed(server, 1000, phc_scrypt(loadbench.PASSWORD, 12))
        server.add_client("bench-app", REDIRECT, public=True)
        server.add_client("bench-service", REDIRECT, secret=SERVICE_SECRET)
        families: list[dict] = []
        drive(server.port, lambda client, i: families.append(client.password_login(f"user{i}")), 4, 120, limit=options.families + 2)
        deadline = time.monotonic() + options.minutes * 60

        def rotations() -> None:
            # One wrk run for the whole soak: it holds each family's current token.
            source = ((WRK_SCRIPTS / "refresh.lua").read_text() + f"\ndelay = function() return {options.pause_ms} end\n"
                      + (WRK_SCRIPTS / "report.lua").read_text())
            with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
                handle.write(source)
            output = subprocess.run(["wrk", "-t2", f"-c{options.families}", f"-d{int(options.minutes * 60)}s", "--timeout", "10s", "-s",
                                     handle.name, server.issuer + "/token", "--", "2", "bench-app", *[f["refresh_token"] for f in families]],
                                    capture_output=True, text=True, timeout=options.minutes * 60 + 120).stdout
            os.unlink(handle.name)
            summary = json.loads(output.split("WRKJSON ", 1)[1].splitlines()[0])
            counters["rotations"] = summary["requests"]
            counters["rotation_errors"] = summary["errors"]

        def sign_ins() -> None:
            client, index = Client(server.port), 0
            while not stop.is_set() and time.monotonic() < deadline:
                client.password_login(f"user{(index * 7919) % 1000}")
                counters["sign_ins"] += 1
                index += 1
                stop.wait(0.5)

        def client_credentials() -> None:
            client = Client(server.port)
            basic = base64.b64encode(f"bench-service:{SERVICE_SECRET}".encode()).decode()
            while not stop.is_set() and time.monotonic() < deadline:
                client.connection.request("POST", "/token", body="grant_type=client_credentials", headers={
                    "Authorization": "Basic " + basic, "Content-Type": "application/x-www-form-urlencoded"})
                client.connection.getresponse().read()
                counters["client_credentials"] += 1
                stop.wait(0.05)

        threads = [threading.Thread(target=work, daemon=True) for work in (rotations, sign_ins, client_credentials)]
        began = time.monotonic()
        for thread in threads:
            thread.start()
        print(f"soak on {'PostgreSQL' if options.postgres else 'SQLite'} for {options.minutes:g} min; token lifetimes {LIFETIMES}; "
              f"sweep every 30 s", flush=True)
        while time.monotonic() < deadline:
            time.sleep(min(options.every * 60, max(0.0, deadline - time.monotonic())))
            samples.append(sample(server, began, counters))
            print_sample(samples[-1])
        stop.set()
        for thread in threads:
            thread.join(timeout=180)
        samples.append(sample(server, began, counters))
        print_sample(samples[-1])
        print(f"rotations in all {counters['rotations']:,} ({counters.get('rotation_errors', 0)} errors), sign-ins {counters['sign_ins']:,}, "
              f"client credentials {counters['client_credentials']:,}", flush=True)
        settled = [s for s in samples if s["minute"] >= 2 * LIFETIMES["refresh_token"] / 60]
        if len(settled) >= 2:
            first, last = settled[0], settled[-1]
            # Tables with rows to speak of (a flow lives only while a sign-in is under way).
            growth = {name: last["rows"][name] / first["rows"][name] for name in GROWING_TABLES if first["rows"].get(name, 0) >= 100
                      and name not in ("audit_events", "attempt_counters")}
            print("after warm-up, last sample / first: " + ", ".join(f"{name} {ratio:.2f}" for name, ratio in growth.items())
                  + (f", size {last['bytes'] / first['bytes']:.2f}" if last["bytes"] and first["bytes"] else ""), flush=True)
        if options.json:
            options.json.write_text(json.dumps(samples, indent=2))
    finally:
        stop.set()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
