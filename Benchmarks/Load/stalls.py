"""The stall benchmark: how long one piece of work can hold up every write. A build of `gatehouse serve` takes steady
write traffic (client-credentials grants, one insert each, from a few threads) while, phase by phase, the things that
ran beside the wave-2 probes run beside it: admin API key rotations, the operator's `gatehouse` CLI writing to the
same database from another process, password sign-ins filling the hashing pool, and refresh retries. For each phase
it prints the grants' p50, p99 and worst latency, the worst as a ratio of the quiet phase's, and what the server
logged about writes that held SQLite's writer (`A write transaction held SQLite's writer for …`).

    scripts/benchmark-stalls                       # SQLite, 10 s per phase
    scripts/benchmark-stalls --seconds 5 --against OLD/gatehouse   # an earlier build first, the same phases
    scripts/with-postgres scripts/benchmark-stalls --postgres

A worst latency that is a large multiple of the quiet phase's names the phase that stalls the writer: on the build
before the fix, a key rotation generated its RSA key inside its transaction and held every write for as long.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Server" / "Tests" / "EndToEnd"))
from gatehouse_harness import POSTGRES_URL, Server, fresh_postgres_database  # noqa: E402

SECRET = "stall-bench-client-secret-0123456789abcdefghij"
PASSWORD = "stall measuring passphrase 1"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def run(binary: str, seconds: float, threads: int, postgres: bool) -> dict:
    os.environ["GATEHOUSE_BINARY"] = binary
    config = {"password_hashing": {"log_n": 14, "block_size": 8, "parallelism": 1}}
    server = Server(database_url=fresh_postgres_database() if postgres else None, owns_database=postgres, config=config)
    try:
        server.add_client("ops", "https://ops.example/cb", secret=SECRET, extra=["--scope", "gatehouse:admin", "phone"])
        server.add_client("app", "dev.gatehouse.bench:/callback", public=True)
        server.add_user("bench", PASSWORD)
        bearer = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                               auth=("ops", SECRET), timeout=60).json()["access_token"]

        def rotate_by_api(stop):
            while not stop.is_set():
                requests.post(server.issuer + "/admin/v1/keys/rotate", headers={"Authorization": f"Bearer {bearer}"}, timeout=120)
                stop.wait(0.5)

        def rotate_by_cli(stop):
            while not stop.is_set():
                server.cli("keys", "rotate", check=False, timeout=300)
                server.cli("users", "lock", "bench", check=False, timeout=300)
                server.cli("users", "unlock", "bench", check=False, timeout=300)

        def sign_ins(stop):
            def one():
                session = requests.Session()
                while not stop.is_set():
                    flow = session.post(server.issuer + "/flows/login", json={
                        "client_id": "app", "redirect_uri": "dev.gatehouse.bench:/callback", "scope": "openid", "state": "s", "nonce": "n",
                        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}, timeout=120).json()
                    session.post(f"{server.issuer}/flows/{flow['flow_id']}", json={
                        "client_id": "app", "action": "submit", "values": {"username": "bench", "password": "not it"}}, timeout=120)
            helpers = [threading.Thread(target=one) for _ in range(12)]
            for helper in helpers:
                helper.start()
            for helper in helpers:
                helper.join()

        phases = {"quiet": None, "key rotations (admin API)": rotate_by_api, "operator CLI writes": rotate_by_cli,
                  "password sign-ins": sign_ins}
        results = {}
        for name, beside in phases.items():
            latencies: list[float] = []
            errors = [0]
            stop = threading.Event()

            def grants():
                session = requests.Session()
                while not stop.is_set():
                    began = time.monotonic()
                    try:
                        answer = session.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "phone"},
                                              auth=("ops", SECRET), timeout=120)
                        if answer.status_code != 200:
                            errors[0] += 1
                    except requests.RequestException:
                        errors[0] += 1
                    latencies.append(time.monotonic() - began)

            workers = [threading.Thread(target=grants) for _ in range(threads)]
            if beside:
                workers.append(threading.Thread(target=beside, args=(stop,)))
            logged_before = len(server.stderr())
            for worker in workers:
                worker.start()
            time.sleep(seconds)
            stop.set()
            for worker in workers:
                worker.join(timeout=300)
            held = [float(found) for found in re.findall(r"held SQLite's writer for ([0-9]+) ms", server.stderr()[logged_before:])]
            results[name] = {"count": len(latencies), "errors": errors[0], "p50_ms": percentile(latencies, 0.5) * 1000,
                             "p99_ms": percentile(latencies, 0.99) * 1000, "max_ms": max(latencies, default=0) * 1000,
                             "slow_writer_warnings": len(held), "longest_hold_ms": max(held, default=0.0)}
        return results
    finally:
        server.stop()


def report(label: str, results: dict) -> None:
    quiet = results["quiet"]["max_ms"] or 1
    print(f"\n{label}")
    print(f"{'phase':<28}{'grants':>8}{'errors':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>10}{'max/quiet':>11}{'writer held ms':>16}")
    for name, figures in results.items():
        print(f"{name:<28}{figures['count']:>8}{figures['errors']:>8}{figures['p50_ms']:>9.1f}{figures['p99_ms']:>9.1f}"
              f"{figures['max_ms']:>10.1f}{figures['max_ms'] / quiet:>11.1f}{figures['longest_hold_ms']:>16.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10, help="length of each phase")
    parser.add_argument("--threads", type=int, default=8, help="threads making client-credentials grants")
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL)")
    parser.add_argument("--against", help="an earlier build's gatehouse binary, run first with the same phases")
    parser.add_argument("--json", type=Path, help="write the figures here")
    arguments = parser.parse_args()
    if arguments.postgres and not POSTGRES_URL:
        parser.error("--postgres needs GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres sets it)")
    binary = os.environ.get("GATEHOUSE_BINARY")
    if not binary:
        parser.error("set GATEHOUSE_BINARY (scripts/benchmark-stalls builds and sets it)")
    runs = {}
    if arguments.against:
        runs["baseline"] = run(arguments.against, arguments.seconds, arguments.threads, arguments.postgres)
        report(f"baseline: {arguments.against}", runs["baseline"])
    runs["this build"] = run(binary, arguments.seconds, arguments.threads, arguments.postgres)
    report(f"this build: {binary}", runs["this build"])
    if arguments.against:
        print("\nworst grant latency, this build / baseline:")
        for name in runs["this build"]:
            ratio = runs["this build"][name]["max_ms"] / max(runs["baseline"][name]["max_ms"], 0.001)
            print(f"  {name:<28}{ratio:>6.2f}")
    if arguments.json:
        arguments.json.write_text(json.dumps(runs, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
