"""What open QR sign-in pages cost a node: N pages follow their sign-in's live status (server-sent events) while the
server's CPU time is read from /proc for a while; printed against the same node with no page open, and, with
`--against`, against another build in the same run.

    GATEHOUSE_BINARY=… python3 Benchmarks/Load/qrstreams.py --pages 1000 --seconds 10 [--against OLD/gatehouse]
    GATEHOUSE_BINARY=… scripts/with-postgres python3 Benchmarks/Load/qrstreams.py --postgres …
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Server" / "Tests" / "EndToEnd"))
from gatehouse_harness import POSTGRES_URL, Browser, Server, binary, fresh_postgres_database  # noqa: E402
from test_qr_login import show_qr_code  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(pid: int, seconds: float) -> float:
    """The server's CPU use over `seconds`, in percent of one core."""
    before, began = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - before) / (time.monotonic() - began)


def run(path: str, pages: int, seconds: float, postgres: bool) -> dict:
    os.environ["GATEHOUSE_BINARY"] = path
    config = {"authenticator": {"access_code_lifetime": 300}}
    server = (Server(demo=True, config=config, database_url=fresh_postgres_database(), owns_database=True) if postgres
              else Server(demo=True, config=config))
    stop = threading.Event()
    try:
        idle = measure(server.process.pid, seconds)
        flows = []
        for _ in range(pages):
            browser = Browser(server)
            flows.append((browser, show_qr_code(server, browser)[1]))
        opened = threading.Semaphore(0)

        def follow(browser: Browser, flow: str):
            with browser.session.get(f"{server.issuer}/login/app-status?flow={flow}", stream=True, timeout=(10, None)) as stream:
                lines = stream.iter_lines(decode_unicode=True)
                next(lines)
                opened.release()
                for _ in lines:
                    if stop.is_set():
                        return

        threads = [threading.Thread(target=follow, args=flow, daemon=True) for flow in flows]
        for thread in threads:
            thread.start()
        for _ in threads:
            assert opened.acquire(timeout=60), "a page's stream did not open"
        busy = measure(server.process.pid, seconds)
        return {"idle_percent": idle, "pages_percent": busy}
    finally:
        stop.set()
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL (GATEHOUSE_TEST_POSTGRES_URL; scripts/with-postgres)")
    parser.add_argument("--against", type=Path, help="another build's gatehouse binary, measured first in the same run")
    options = parser.parse_args()
    if options.postgres and not POSTGRES_URL:
        parser.error("--postgres needs GATEHOUSE_TEST_POSTGRES_URL; run under scripts/with-postgres")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, options.pages * 2 + 256)), hard))
    builds = ([("baseline", str(options.against.resolve()))] if options.against else []) + [("current", binary())]
    for name, path in builds:
        figures = run(path, options.pages, options.seconds, options.postgres)
        print(f"{name:<9} {'PostgreSQL' if options.postgres else 'SQLite'}, {options.pages} open QR pages: server CPU {figures['pages_percent']:.1f} % of a core "
              f"(idle {figures['idle_percent']:.1f} %)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
